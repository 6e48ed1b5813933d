"""Benchmark: does the first run's kernel warm-up cover every command, from an empty kernel cache?

From an empty numba cache (``NUMBA_CACHE_DIR`` pointed at a new temporary folder, so the
repository's own ``__pycache__`` is left alone) and a fresh ``TERMO_CACHE_DIR``, it runs the
quick start's first command (``termo suggest tarso:BBBBB``: numba loads and the warm-up
compiles), then one command of each kind, each as a whole process: ``suggest`` at levels 2 and
3 and ``--hard``, ``partition``, ``rank``, ``opener``, ``optimal`` (Nerdle Mini with an opener,
without one and ``--rank``: the ranking of every first word), ``openers``, ``robustness``,
``tree build`` (each method), a first question on each game (default and hard mode), and a
search worker of the server preparing a game (``web.warmup.warm_game``, what ``termo serve``'s
workers run at start).

For each command it records the wall and CPU seconds, the exit code, whether the compile notice
showed, the number of files in the kernel cache after it (numba's ``.nbi`` index and ``.nbc``
signature files, and the warm-up stamp) and which kernel signatures it added, and the size of
the termo cache (the pattern matrices: the disk cost of each game's first question); and what each
warm-up of the first command took (its stamp records wall and CPU seconds: the estimates of
``termo.interface.warm_up.WARM_UPS``). "Compiles once" holds when no command after the first adds a
kernel file.

``--disk`` then measures, per game, the cache a first question leaves in a fresh
``TERMO_CACHE_DIR`` (``du``), with the kernel cache warm.

Usage: python bench/bench_warmup.py [--name warmup] [--only-first] [--disk] [--keep DIR]
Writes bench/results/<name>.json (machine, load average before and after, every row).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_startup import NOTICE, child_env, run_once, termo_command  # noqa: E402
from bench.common import machine, save  # noqa: E402


def commands(scratch: Path) -> list[list[str]]:
    """The commands, in the order a user meets them: the quick start's first, then one of each kind."""
    tree = str(scratch / "trees")
    return [
        ["suggest", "tarso:BBBBB"],  # the quick start: numba loads, the warm-up runs
        ["suggest", "tarso:BBBBB", "--level", "2"],
        ["suggest", "tarso:BBBBB", "filme:BBBYY", "--level", "3"],
        ["suggest", "--hard", "tarso:BYBBB"],
        ["suggest", "--hard", "tarso:BYBBB", "--level", "2"],
        ["partition", "filme", "tarso:BBBBB"],
        ["rank", "--by", "minimax", "--top", "3", "tarso:BBBBB"],
        ["opener", "--level", "3"],
        ["optimal", "--game", "nerdle-mini", "--opener", "4*7=28", "--time", "60"],
        ["optimal", "--game", "nerdle-mini"],  # every first word ranked until the best is proved
        ["optimal", "--game", "nerdle-mini", "--rank", "3"],
        ["optimal", "--game", "nerdle-mini", "--hard", "--time", "30"],
        ["opener", "--game", "nerdle-mini", "--level", "3"],
        ["partition", "--game", "nerdle-mini", "4*7=28", "3*5=15:BGBGBB"],
        ["openers", "--game", "nerdle-mini", "--json"],
        ["robustness", "--world", "60", "--columns", "30,T=1", "--out", str(scratch / "robustness")],
        ["tree", "build", "--game", "nerdle-mini", "--method", "level3", "--out", tree + "-level3.txt"],
        ["tree", "build", "--game", "nerdle-mini", "--method", "practical", "--out", tree + "-practical.txt"],
        ["tree", "build", "--game", "nerdle-mini", "--method", "exact", "--time", "30", "--out", tree + "-exact.txt"],
        ["suggest", "--game", "wordle", "salet:BBYBB"],
        ["suggest", "--game", "wordle", "--hard", "salet:BBYBB"],
        ["suggest", "--game", "wordle-ru", "норка:BBBBB"],
        ["suggest", "--game", "nerdle-mini", "4*7=28:BBYYBB"],
        ["suggest", "--game", "nerdle", "48-32=16:YBBGYGYB"],
        ["suggest", "--game", "nerdle", "--hard", "48-32=16:YBBGYGYB"],
        ["suggest", "--game", "nerdle", "--no-tree", "48-32=16:YBBGYGYB"],
        ["openers", "--game", "wordle-ru", "--limit", "2", "--json"],
        ["robustness", "--openers", "all", "--world", "40", "--columns", "T=1", "--out", str(scratch / "robustness-all")],
        ["optimal", "--game", "wordle-ru", "--opener", "норка", "--time", "20"],
        [WORKER, "nerdle-mini"],  # a server's search worker preparing a game (level 3, its opener)
        [WORKER, "wordle-ru"],
    ]


WORKER = "server-worker"  # not a termo command: `python -c` running web.warmup.warm_game on the game
WORKER_CODE = ("import sys; from web.warmup import load_kernels, warm_game; load_kernels(); "
               "warm_game(sys.argv[1], level='3')")


def argv_of(termo: list[str], argv: list[str]) -> list[str]:
    """The process to start for a row of `commands`."""
    if argv[0] == WORKER:
        return [sys.executable, "-c", WORKER_CODE, *argv[1:]]
    return termo + argv


def warm_up_times(folder: Path) -> list[dict]:
    """What each warm-up took, as its stamp records it (``name wall_s W cpu_s C``)."""
    out = []
    for stamp in sorted(folder.rglob("termo-warm-up-*.stamp")) if folder.exists() else ():
        parts = stamp.read_text(encoding="utf-8").split()
        if len(parts) == 5 and parts[1] == "wall_s" and parts[3] == "cpu_s":
            out.append({"warm_up": parts[0], "wall_s": float(parts[2]), "cpu_s": float(parts[4])})
    return out


# a first question on each game (level 3, the default), for the disk cost of its cache
FIRST_QUESTIONS = {
    "termo": ["suggest", "tarso:BBBBB"],
    "wordle": ["suggest", "--game", "wordle", "salet:BBYBB"],
    "wordle-ru": ["suggest", "--game", "wordle-ru", "норка:BBBBB"],
    "nerdle-mini": ["suggest", "--game", "nerdle-mini", "4*7=28:BBYYBB"],
    "nerdle": ["suggest", "--game", "nerdle", "48-32=16:YBBGYGYB"],
}


def disk_per_game(termo: list[str], numba_cache: Path, scratch: Path) -> dict:
    """For each game, a fresh ``TERMO_CACHE_DIR`` (the kernel cache stays warm): the first
    question's wall time, what it said on stderr and the bytes it left in the cache (``du``)."""
    out = {}
    for game, argv in FIRST_QUESTIONS.items():
        cache = scratch / f"disk-{game}"
        shutil.rmtree(cache, ignore_errors=True)
        env = child_env(TERMO_CACHE_DIR=str(cache), NUMBA_CACHE_DIR=str(numba_cache))
        row = run_once(termo + argv, ROOT, env)
        du = subprocess.run(["du", "-sb", str(cache)], capture_output=True, text=True)
        human = subprocess.run(["du", "-sh", str(cache)], capture_output=True, text=True)
        row.update({"command": "termo " + " ".join(argv), "cache_bytes": int(du.stdout.split()[0]),
                    "du_sh": human.stdout.split()[0], "load_average": os.getloadavg()})
        out[game] = row
        print(f"disk: {game:<12} {row['du_sh']:>6}  first question {row['wall_s']:6.1f} s (exit {row['returncode']})"
              f"  stderr: {row['stderr'][:160]!r}", flush=True)
        shutil.rmtree(cache, ignore_errors=True)
    return out


def kernel_files(folder: Path) -> set:
    """The files of numba's kernel cache (index, signatures, the warm-up stamp), relative names."""
    if not folder.exists():
        return set()
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def tree_bytes(folder: Path) -> int:
    if not folder.exists():
        return 0
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="warmup", help="results file bench/results/<name>.json")
    parser.add_argument("--only-first", action="store_true", help="only the quick start's first command")
    parser.add_argument("--only", metavar="TEXT", action="append", default=[],
                        help="after the first command, only the commands containing TEXT (repeatable)")
    parser.add_argument("--disk", action="store_true",
                        help="then, per game, the cache a first question leaves in a fresh TERMO_CACHE_DIR")
    parser.add_argument("--keep", metavar="DIR", default=None,
                        help="keep the caches in DIR (default: a temporary folder, removed at the end)")
    parser.add_argument("--note", default="", help="free text kept in the JSON (which commit was measured)")
    args = parser.parse_args()
    scratch = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="termo-bench-warmup-"))
    scratch.mkdir(parents=True, exist_ok=True)
    numba_cache, termo_cache = scratch / "numba-cache", scratch / "termo-cache"
    for folder in (numba_cache, termo_cache):
        shutil.rmtree(folder, ignore_errors=True)
    env = child_env(TERMO_CACHE_DIR=str(termo_cache), NUMBA_CACHE_DIR=str(numba_cache))
    termo = termo_command(ROOT)
    payload: dict = {"machine": machine(), "command": termo, "note": args.note, "rows": []}
    payload["load_average_before"] = os.getloadavg()
    todo = commands(scratch)[:1] if args.only_first else commands(scratch)
    if args.only:
        todo = todo[:1] + [c for c in todo[1:] if any(t in " ".join(c) for t in args.only)]
    seen: set = set()
    try:
        for argv in todo:
            row = run_once(argv_of(termo, argv), ROOT, env)
            files = kernel_files(numba_cache)
            added = sorted(files - seen)
            seen |= files
            row.update({"command": "termo " + " ".join(argv), "notice": NOTICE in row["stderr"],
                        "kernel_cache_files": len(files), "added_files": added,
                        "termo_cache_bytes": tree_bytes(termo_cache), "load_average": os.getloadavg()})
            payload["rows"].append(row)
            if len(payload["rows"]) == 1:
                payload["warm_ups"] = warm_up_times(numba_cache)
                for w in payload["warm_ups"]:
                    print(f"  warm-up {w['warm_up']:<24} {w['wall_s']:7.1f} s wall {w['cpu_s']:7.1f} s cpu", flush=True)
            print(f"{row['command'][:62]:<62} {row['wall_s']:7.1f} s wall {row['cpu_s']:7.1f} s cpu  exit "
                  f"{row['returncode']}  kernel files {len(files):4d} (+{len(added)})"
                  f"{'  NOTICE' if row['notice'] else ''}  termo cache {row['termo_cache_bytes'] / 1e6:7.1f} MB",
                  flush=True)
            if row["returncode"] != 0:
                print("    stderr: " + row["stderr"][-600:].replace("\n", "\n            "), flush=True)
        if args.disk:
            payload["disk"] = disk_per_game(termo, numba_cache, scratch)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    rows = payload["rows"]
    payload["after_first"] = rows[0]["kernel_cache_files"]
    payload["after_all"] = rows[-1]["kernel_cache_files"]
    payload["grew_after_first"] = [r["command"] for r in rows[1:] if r["added_files"]]
    payload["load_average_after"] = os.getloadavg()
    for row in rows:  # keep the JSON short: the tail of stderr only
        row["stderr"] = row["stderr"][-400:]
    print(f"kernel cache files: {payload['after_first']} after the first command, {payload['after_all']} after all;"
          f" grew after the first in: {payload['grew_after_first'] or 'none'}")
    save(args.name, payload)
    return 0 if not payload["grew_after_first"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
