"""Every first word ranked with proof, as a whole run -> bench/results/<name>.json.

Runs ``termo optimal --game G [--hard] [--strict] --rank N --json`` in a fresh checkpoint folder
(here, on ``--workers K`` local Dask processes, or both in turn with ``--compare-workers``), and
records what it proved (the ranking), its wall seconds and its CPU seconds: user + system of the
run and of every process it started and waited for (its Dask workers included), the load average
before and after, and the machine. ``--expect word=total,...`` checks the ranking against
published totals (Selby's for English Wordle) and records whether they agree.

Usage: python bench/bench_rank.py --game wordle --rank 5 --workers 2 --name rank-wordle-normal \\
           --expect salet=7920,reast=7923,crate=7926,trace=7926,slate=7928
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import save, timed_run  # noqa: E402


def termo_command() -> list[str]:
    script = Path(sys.executable).with_name("termo")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cli"]


def one_run(args, workers: int | None) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="termo-bench-rank-"))
    try:
        cmd = termo_command() + ["optimal", "--game", args.game, "--rank", str(args.rank), "--json",
                                 "--checkpoint-dir", str(folder)]
        cmd += ["--hard"] if args.hard else []
        cmd += ["--strict"] if args.strict else []
        cmd += ["--workers", str(workers)] if workers else []
        load_before = list(os.getloadavg())
        proc, wall, cpu = timed_run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"the run failed ({proc.returncode}): {proc.stderr.strip()[-600:]}")
        return {"command": "termo " + " ".join(cmd[len(termo_command()):-2]), "workers": workers or 0,
                "wall_s": wall, "cpu_s": cpu, "load_average_before": load_before,
                "load_average_after": list(os.getloadavg()), "result": json.loads(proc.stdout)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def check(result: dict, expect: str | None):
    if not expect:
        return None
    wanted = {w: float(v) for w, v in (pair.split("=") for pair in expect.split(","))}
    got = {row["word"]: row["total"] for row in result["ranking"]}
    return {"expected": wanted, "agrees": all(got.get(w) == v for w, v in wanted.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="wordle")
    parser.add_argument("--rank", type=int, default=5)
    parser.add_argument("--hard", action="store_true")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--workers", type=int, default=0, help="local Dask worker processes (0: in this process)")
    parser.add_argument("--compare-workers", default=None,
                        help="a comma list of worker counts run in turn, e.g. 0,1,2 (the speed-up of docs/scale.md)")
    parser.add_argument("--expect", default=None, help="word=total,... published totals to check")
    parser.add_argument("--name", default=None)
    args = parser.parse_args()
    counts = [int(x) for x in args.compare_workers.split(",")] if args.compare_workers else [args.workers]
    runs = [one_run(args, k) for k in counts]
    payload = {"game": args.game, "hard": args.hard, "strict": args.strict, "rank": args.rank, "backend": "numpy",
               "cpu_note": "user + system seconds of the run and of every process it waited for (its Dask workers)",
               "runs": runs, "check": check(runs[0]["result"], args.expect)}
    if len(runs) > 1:
        base = runs[0]["wall_s"]
        payload["speed_up"] = {str(r["workers"]): base / r["wall_s"] for r in runs}
        payload["same_result"] = all(r["result"] == runs[0]["result"] for r in runs)
    name = args.name or f"rank-{args.game}{'-hard' if args.hard else ''}"
    save(name, payload)


if __name__ == "__main__":
    main()
