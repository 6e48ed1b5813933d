"""Time the opener tables (`termo openers`): the full table of Nerdle Mini and English Wordle,
and an estimate for Nerdle Classic measured on a sample of its openers.

Usage: python bench/bench_opener_tables.py [--repeats 3] [--sample 100] [--backend numpy]
                                            [--skip-wordle] [--skip-classic] [--out NAME]

* ``nerdle-mini``: the whole table (206 openers), ``--repeats`` runs, each with fresh
  evaluator caches; the table itself is saved.
* ``wordle``: the whole table (2,315 openers over 12,972 probes), one run (minutes); saved.
* ``nerdle``: ``--sample`` openers spread evenly over the 17,723 answers, in chunks of 32 with
  one evaluator (as a table run does): seconds per opener and the estimate for all 17,723.
  Subtree caches warm over a whole run, so the estimate is on the high side.

Every timing records wall and CPU seconds (this machine is shared: CPU seconds are the steadier
number). Writes bench/results/opener_tables.json (or ``--out``).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import repeats_parser, save  # noqa: E402
from termo.robustness import world as world_mod  # noqa: E402
from termo.robustness.opener_table import TableConfig, rank_rows, run_table  # noqa: E402
from termo.robustness.world import World, evaluate_chunk, load_game_world, uniform_column  # noqa: E402

NERDLEBUDDY_CLASSIC_TOP = 2.983  # NerdleBuddy's published table (their greedy follow-up; not the same definition)


def fresh_state() -> None:
    world_mod._EVALUATORS.clear()


def timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def full_table(game: str, repeats: int, backend: str) -> dict:
    load_game_world(World(game=game))  # the matrix load is not part of the table's time
    walls, cpus, table = [], [], None
    for _ in range(repeats):
        fresh_state()
        table, wall, cpu = timed(lambda: run_table(TableConfig(game=game, backend=backend)))
        walls.append(wall)
        cpus.append(cpu)
        print(f"{game}: {table['n_openers']} openers in {wall:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr)
    rows = table["openers"]
    return {
        "openers": table["n_openers"],
        "probes": table["n_probes"],
        "runs": repeats,
        "wall_s": statistics.median(walls),
        "cpu_s": statistics.median(cpus),
        "runs_wall_s": walls,
        "best": rows[0],
        "tied_at_top": sum(1 for r in rows if r["rank"] == 1),
        "distinct_values": len({r["expected"] for r in rows}),
        "table": rows,
    }


def classic_sample(sample: int, backend: str, chunk: int = 32) -> dict:
    world = World(game="nerdle")
    data, seconds_load, _ = timed(lambda: load_game_world(world))
    column = uniform_column(data)
    n = len(data.answers)
    step = n / sample
    openers = sorted({int(i * step) for i in range(sample)})
    fresh_state()
    values: list = []

    def run():
        for start in range(0, len(openers), chunk):
            values.extend(evaluate_chunk(world, column, openers[start : start + chunk], backend))
            print(f"nerdle: {len(values)}/{len(openers)} sample openers", file=sys.stderr)

    _, wall, cpu = timed(run)
    rows = rank_rows([(data.probes[g], v) for g, v in zip(openers, values)])
    per_wall, per_cpu = wall / len(openers), cpu / len(openers)
    return {
        "answers": n,
        "sample": len(openers),
        "sample_rule": f"answer indices floor(i * {n}/{sample}), i = 0..{sample - 1}",
        "matrix_load_s": seconds_load,
        "wall_s": wall,
        "cpu_s": cpu,
        "per_opener_wall_s": per_wall,
        "per_opener_cpu_s": per_cpu,
        "estimate_full_wall_h": per_wall * n / 3600,
        "estimate_full_cpu_h": per_cpu * n / 3600,
        "best_in_sample": rows[0],
        "nerdlebuddy_top": NERDLEBUDDY_CLASSIC_TOP,
        "table": rows,
    }


def main() -> None:
    parser = repeats_parser(__doc__, 3, sample=100, backend="numpy", skip_wordle=False, skip_classic=False,
                            out="opener_tables")
    args = parser.parse_args()
    results = {"backend": args.backend, "method": world_mod.METHOD,
               "nerdle-mini": full_table("nerdle-mini", args.repeats, args.backend)}
    if not args.skip_wordle:
        results["wordle"] = full_table("wordle", 1, args.backend)
    if not args.skip_classic:
        results["nerdle"] = classic_sample(args.sample, args.backend)
    save(args.out, results)


if __name__ == "__main__":
    main()
