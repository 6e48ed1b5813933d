"""Benchmark the lockstep batteries: the realistic battery with the four strategies, and the
level-3 battery of 300 secrets. Writes ``bench/results/battery.json``.

    python bench/bench_battery.py [--backend numpy] [--repeats 5]

Each timed run builds fresh policies (new solvers, so the level-2 opener sweep and every
decision are recomputed); the one-time costs (numba compilation, the level-3 opener search,
which the engine caches on disk) are paid in the warm-up run and reported separately.
Reference figures (Destermo, sequential games): realistic battery ≈ 14 s, level-3 battery of
300 ≈ 90 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import median_seconds, save  # noqa: E402
from termo.analysis.battery import run_battery  # noqa: E402

STRATEGIES = ("random", "letters", "likely", "entropy")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--level3-repeats", type=int, default=3)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    warm_rows = run_battery(STRATEGIES, "realistic", backend=args.backend)
    warm_l3 = run_battery(["level3"], "level3", backend=args.backend)
    warmup = time.perf_counter() - start

    per_strategy: dict[str, list[float]] = {name: [] for name in STRATEGIES}

    def realistic():
        rows = run_battery(STRATEGIES, "realistic", backend=args.backend)
        for row in rows:
            per_strategy[row["strategy"]].append(row["seconds"] + row["setup_seconds"])
        return rows

    timing = median_seconds(realistic, repeats=args.repeats, warmup=0)
    timing_l3 = median_seconds(lambda: run_battery(["level3"], "level3", backend=args.backend),
                               repeats=args.level3_repeats, warmup=0)
    strategies = {}
    for row in warm_rows:
        runs = sorted(per_strategy[row["strategy"]])
        strategies[row["strategy"]] = {"median_s": runs[len(runs) // 2], "penalised_mean": row["penalised_mean"],
                                       "win_rate": row["win_rate"], "histogram": row["histogram"]}
    payload = {
        "backend": args.backend,
        "realistic_all_four": {**timing, "games": warm_rows[0]["games"], "target_s": 2.0, "reference_s": 14.0,
                               "strategies": strategies},
        "level3_300": {**timing_l3, "games": warm_l3[0]["games"], "target_s": 10.0, "reference_s": 90.0,
                       "penalised_mean": warm_l3[0]["penalised_mean"], "histogram": warm_l3[0]["histogram"],
                       "opener": warm_l3[0]["first_guess"]},
        "warmup_s": warmup,
    }
    save("battery", payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
