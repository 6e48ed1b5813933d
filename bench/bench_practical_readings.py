"""Readings of the practical builder (docs/trees.md) on Nerdle Classic from 52-34=18, the
references' root -> bench/results/practical-readings.json.

Each reading is one `termo tree build --method practical --opener 52-34=18 --json` in its own
process (``--remaining all|unsolved``, ``--samples N``), its tree replayed by the command itself
(the mean, total and worst of `termo tree eval`), with the process's CPU seconds. The published
figure to compare with is NerdleBuddy's stored tree, 2.964 (commutative rule).

Usage: python bench/bench_practical_readings.py [--opener 52-34=18]
                                                [--readings all:2000,unsolved:2000,unsolved:5000,unsolved:10000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import save, timed_run  # noqa: E402
from bench.bench_rank import termo_command  # noqa: E402

READINGS = "all:2000,unsolved:2000,unsolved:5000,unsolved:10000"


def one(game: str, opener: str, remaining: str, samples: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="termo-bench-practical-") as folder:
        cmd = termo_command() + ["tree", "build", "--game", game, "--method", "practical", "--opener", opener,
                                 "--remaining", remaining, "--samples", str(samples), "--json",
                                 "--out", str(Path(folder) / "t.tree.gz")]
        load = os.getloadavg()[0]
        proc, wall, cpu = timed_run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"the build failed ({proc.returncode}): {proc.stderr.strip()[-600:]}")
        data = json.loads(proc.stdout)
    row = {"remaining": remaining, "samples": samples, "mean": data["mean"], "total": round(data["mean"] * data["answers"]),
           "worst": data["worst"], "nodes": data["nodes"], "cpu_s": cpu, "wall_s": wall, "load_before": load,
           "command": "termo " + " ".join(cmd[len(termo_command()):-2])}
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="nerdle")
    parser.add_argument("--opener", default="52-34=18")
    parser.add_argument("--readings", default=READINGS, help="remaining:samples,... (remaining: all or unsolved)")
    parser.add_argument("--name", default="practical-readings")
    args = parser.parse_args()
    rows = [one(args.game, args.opener, r, int(k)) for r, k in (x.split(":") for x in args.readings.split(","))]
    save(args.name, {"game": args.game, "opener": args.opener, "published": {"NerdleBuddy stored tree": 2.964},
                     "readings": rows})


if __name__ == "__main__":
    main()
