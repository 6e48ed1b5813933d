"""Check: the answers do not move. Every board page's HTML and the API's answer to a fixed set of
questions (and a few `termo ... --json` lines), recorded from a checkout, compared with another.

    python bench/bench_answers.py record --checkout DIR --out FILE   # run DIR's code (its venv, if any)
    python bench/bench_answers.py compare BEFORE.json AFTER.json [--expect FILE] [--name NAME]

`record` runs in a child process with ``DIR`` first on ``sys.path`` (``DIR/.venv/bin/python`` when
there is one, else this interpreter), so the same questions are asked of an older checkout (a
`git worktree` of the commit before a change) and of this one. Each answer is kept whole: the HTTP
status, the body's bytes (as text) and the headers that are part of the contract.
`compare` lists every question whose answer differs; ``--expect`` names a JSON file of
``{question: why}`` for the differences a change makes on purpose (a bug fix says why): the
check passes when every difference is expected and every expected difference happened.
Writes ``bench/results/<name>.json`` (default ``answers``) with both digests and the verdict.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PAGES = ("/", "/nerdle", "/nerdle-mini", "/wordle", "/wordle-ru", "/dueto", "/quarteto", "/dordle", "/quordle",
         "/octordle", "/binerdle", "/quad-nerdle", "/no-such-board")

SUGGEST = [
    {}, {"history": ["tarso:BBBBB"], "level": 2}, {"history": ["tarso:BBBBB"], "level": 1},
    {"history": ["tarso:BBBBB"], "level": 3}, {"history": ["tarso:BYBBB", "linde:BBBYB"], "level": 3},
    {"history": ["tarso:BBBBB"], "level": 2, "hard": True}, {"history": ["tarso:BBBBB"], "level": 2, "list": 5},
    {"history": ["tarso:BBBBB"], "level": 2, "t": "inf"}, {"history": ["termo:GGGGG"]},
    {"game": "wordle", "history": ["salet:BBYBB"]}, {"game": "wordle", "history": ["salet:BBYBB"], "level": 2},
    {"game": "nerdle", "history": ["54-38=16:GYGGYGGB"], "level": 2},
    {"game": "nerdle-mini", "history": ["4*7=28:BBBGBB"], "level": 3},
    {"game": "wordle-ru", "history": ["норка:BBBBB"], "level": 2},
    {"history": ["tarso:BBBBZ"]}, {"history": ["xxxxx:BBBBB"]}, {"level": 7}, {"game": "dueto"},
]
MODE_SUGGEST = [
    {}, {"mode": "dueto", "history": ["tarso:BBBBB/BYBBB"]}, {"mode": "dueto", "history": ["tarso:BBBBB/BYBBB"], "level": 3},
    {"mode": "quarteto", "history": ["tarso:BBBBB/BYBBB/BBBBY/GBBBB"]},
    {"mode": "quordle", "history": ["salet:BBYBB/BBBBB/YBBBB/BBBBG"]},
    {"mode": "octordle"}, {"mode": "binerdle", "history": ["54-38=16:GYGGYGGB/BYBGBGYG"]},
    {"mode": "dueto", "history": ["tarso:BBBBB/BYBBB"], "objective": "score", "level": 3},
    {"mode": "dueto", "history": ["tarso:BBBBB"]}, {"mode": "nope"}, {"mode": "dueto", "level": 1},
]
OTHER = [
    ("POST", "/api/feedback", {"guess": "rerum", "answer": "carro"}),
    ("POST", "/api/feedback", {"guess": "52-34=18", "answer": "54-38=16", "game": "nerdle"}),
    ("POST", "/api/partition", {"guess": "linde", "history": ["tarso:BBBBB"]}),
    ("POST", "/api/candidates", {"history": ["tarso:YYYBB", "linde:GBBBB"], "list": 10}),
    ("POST", "/api/mode/boards", {"mode": "dueto", "history": ["tarso:BBBBB/BYBBB"]}),
    ("POST", "/api/mode/boards", {"mode": "quarteto", "history": ["tarso:BBBBB/BYBBB/BBBBY/GGGGG"]}),
    ("GET", "/api/games", None), ("GET", "/api/modes", None),
    ("GET", "/api/opener?level=2", None), ("GET", "/api/opener?game=wordle&level=3", None),
    ("POST", "/api/suggest", {"unknown": 1}),
]
CLI = [
    ["suggest", "tarso:BBBBB", "--level", "2", "--json"],
    ["suggest", "tarso:BBBBB", "--level", "3", "--json"],
    ["suggest", "--game", "dueto", "tarso:BBBBB/BYBBB", "--level", "2", "--json"],
    ["suggest", "--game", "dueto", "tarso:BBBBB/BYBBB", "--level", "3", "--json"],
    ["suggest", "--game", "quordle", "salet:BBYBB/BBBBB/YBBBB/BBBBG", "--json"],
    ["suggest", "--game", "wordle", "salet:BBYBB", "--json"],
    ["games", "--json"],
]
HEADERS = ("content-type", "x-termo-warnings")
ONCE_NOTICES = ("termo: compiling", "termo: building")


def questions() -> list[tuple[str, str, str, object]]:
    """``(name, method, path, body)`` of every question, in a fixed order."""
    out = [(f"GET {p}", "GET", p, None) for p in PAGES]
    out += [(f"POST /api/suggest {json.dumps(b, sort_keys=True, ensure_ascii=False)}", "POST", "/api/suggest", b)
            for b in SUGGEST]
    out += [(f"POST /api/mode/suggest {json.dumps(b, sort_keys=True, ensure_ascii=False)}", "POST",
             "/api/mode/suggest", b) for b in MODE_SUGGEST]
    out += [(f"{m} {p}" + ("" if b is None else " " + json.dumps(b, sort_keys=True, ensure_ascii=False)), m, p, b)
            for m, p, b in OTHER]
    return out


def _record_here() -> dict:
    """The answers of the code on ``sys.path`` (run in the child)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from web.app import create_app

    answers = {}
    with TestClient(create_app()) as client:
        for name, method, path, body in questions():
            response = client.request(method, path, json=body) if body is not None else client.request(method, path)
            answers[name] = {"status": response.status_code, "body": response.text,
                             "headers": {k: response.headers.get(k) for k in HEADERS if response.headers.get(k)}}
    for args in CLI:
        done = subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True)
        stderr = "".join(line for line in done.stderr.splitlines(keepends=True)
                         if not line.startswith(ONCE_NOTICES))  # a first run's one-time notices
        answers["termo " + " ".join(args)] = {"status": done.returncode, "body": done.stdout, "stderr": stderr}
    return answers


def record(checkout: Path, out: Path) -> None:
    checkout = checkout.resolve()
    venv_python = checkout / ".venv" / "bin" / "python"
    python = str(venv_python) if venv_python.exists() else sys.executable
    env = {**os.environ, "PYTHONPATH": str(checkout), "TERMO_GAME": "", "TERMO_BACKEND": ""}
    env.pop("TERMO_GAME")
    env.pop("TERMO_BACKEND")
    code = ("import json, sys; sys.path.insert(0, %r); sys.path.insert(0, %r); import bench_answers as b; "
            "json.dump(b._record_here(), open(%r, 'w', encoding='utf-8'), ensure_ascii=False, indent=1, sort_keys=True)"
            % (str(checkout), str(ROOT / "bench"), str(out)))
    subprocess.run([python, "-c", code], cwd=checkout, env=env, check=True)
    data = json.loads(out.read_text(encoding="utf-8"))
    print(f"{len(data)} answers recorded from {checkout} -> {out}")


def digest(answer: dict) -> str:
    return hashlib.sha256(json.dumps(answer, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def compare(before: Path, after: Path, expect: Path | None, name: str) -> int:
    a = json.loads(before.read_text(encoding="utf-8"))
    b = json.loads(after.read_text(encoding="utf-8"))
    expected = json.loads(expect.read_text(encoding="utf-8")) if expect else {}
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    unexpected = [k for k in differ if k not in expected]
    missing = [k for k in expected if k not in differ]
    rows = {k: {"before": digest(a[k]) if k in a else None, "after": digest(b[k]) if k in b else None,
                "same": k not in differ, "why": expected.get(k)} for k in sorted(set(a) | set(b))}
    verdict = "pass" if not unexpected and not missing else "fail"
    sys.path.insert(0, str(ROOT))
    from bench.common import save

    save(name, {"questions": len(rows), "identical": len(rows) - len(differ), "differ": len(differ),
                "unexpected": unexpected, "expected_but_same": missing, "verdict": verdict, "answers": rows})
    print(f"{len(rows)} questions: {len(rows) - len(differ)} identical, {len(differ)} differ "
          f"({len(differ) - len(unexpected)} on purpose); verdict {verdict}")
    for k in unexpected:
        print(f"  unexpected: {k}")
    for k in missing:
        print(f"  expected a change, none: {k}")
    return 0 if verdict == "pass" else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--checkout", type=Path, default=ROOT)
    rec.add_argument("--out", type=Path, required=True)
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    cmp_.add_argument("--expect", type=Path, default=None)
    cmp_.add_argument("--name", default="answers")
    args = parser.parse_args(argv)
    if args.verb == "record":
        record(args.checkout, args.out)
        return 0
    return compare(args.before, args.after, args.expect, args.name)


if __name__ == "__main__":
    raise SystemExit(main())
