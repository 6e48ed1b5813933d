"""Time the robustness grid: the beam-mode grid (7 columns) and the full-beam cost per opener.

Usage: python bench/bench_robustness.py [--repeats 3] [--sample 64] [--backend numpy]
                                         [--fullbeam bench/results/fullbeam_T1.json]

* ``beam_grid``: ``termo robustness --openers beam`` on the whole game (the reference takes
  about 8 minutes), each run in a fresh process state (evaluator caches dropped).
* ``fullbeam_sample``: E of ``--sample`` openers spread over the lexicon, T = 1 column, in chunks
  of 32 with one evaluator (as the sweep runs them), seconds per opener. The cache only warms
  over a whole column, so this overestimates the per-opener cost of a complete run.
* ``fullbeam_run``: the per-opener cost of the complete T = 1 run, read from its result file
  (wall seconds of the run, and the CPU seconds it was given, on a shared machine).

Writes bench/results/robustness.json (or robustness-<suffix>.json).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import median_seconds, repeats_parser, save  # noqa: E402
from termo.robustness import world as world_mod  # noqa: E402
from termo.robustness.sweep import SweepConfig, run_sweep  # noqa: E402
from termo.robustness.world import Column, World, evaluator_for  # noqa: E402


def fresh_state() -> None:
    world_mod._EVALUATORS.clear()


def beam_grid(backend: str) -> dict:
    fresh_state()
    result = run_sweep(SweepConfig(mode="beam", backend=backend))
    return result


def fullbeam_sample(sample: int, backend: str) -> dict:
    fresh_state()
    n = 6046
    openers = [round(i * (n - 1) / max(1, sample - 1)) for i in range(sample)]
    ev = evaluator_for(World(), Column("T=1", 1.0, n), backend)
    start = time.perf_counter()
    cpu = time.process_time()
    for k in range(0, len(openers), 32):
        ev.expected_values(openers[k : k + 32])
    wall = time.perf_counter() - start
    return {"openers": len(openers), "seconds": wall, "seconds_per_opener": wall / len(openers),
            "cpu_seconds_per_opener": (time.process_time() - cpu) / len(openers),
            "states_swept": ev.stats.swept}


def main() -> None:
    parser = repeats_parser(__doc__, 3)
    parser.add_argument("--sample", type=int, default=64)
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--fullbeam", default=str(Path(__file__).resolve().parent / "results" / "fullbeam_T1.json"))
    parser.add_argument("--suffix", default="")
    args = parser.parse_args()
    try:
        import numba

        threads = numba.get_num_threads()
    except ImportError:
        threads = None
    payload = {"backend": args.backend, "numba_threads": threads, "load_average": os.getloadavg()}

    timing = median_seconds(lambda: beam_grid(args.backend), args.repeats, warmup=1)
    payload["beam_grid"] = {**timing, "reference_s": 480, "target_s": 60}
    print(f"beam grid: median {timing['median_s']:.1f} s", file=sys.stderr)

    payload["fullbeam_sample"] = {**fullbeam_sample(args.sample, args.backend), "reference_s_per_opener": 5.0,
                                  "target_s_per_opener": 0.1}
    print(f"full beam sample: {payload['fullbeam_sample']['seconds_per_opener']:.3f} s/opener", file=sys.stderr)

    path = Path(args.fullbeam)
    if path.exists():
        run = json.loads(path.read_text(encoding="utf-8")).get("run", {})
        if run:
            payload["fullbeam_run"] = run
    save("robustness" + (f"-{args.suffix}" if args.suffix else ""), payload)


if __name__ == "__main__":
    main()
