"""Time the solver engine: level-3 opener from scratch, level-3 and level-2 suggestions, batches.

Usage: python bench/bench_solver.py [--repeats 5] [--opener-repeats 3] [--backend numpy]
                                    [--skip-opener] [--suffix X]
Every timed call uses a fresh `Solver` (empty search memo), the pattern matrix already cached
and the compiled kernels already loaded (one warm-up run each); also records user CPU seconds
(``cpu_s``), which is less sensitive to other processes on a shared machine than wall time.
Writes bench/results/solver.json (or solver-<suffix>.json).
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from backends import get_backend  # noqa: E402
from bench.common import repeats_parser, save  # noqa: E402
from termo.book import openers  # noqa: E402
from termo.core.feedback import encode  # noqa: E402
from termo.games.termo_pt import termo_game  # noqa: E402
from termo.engine.matrix import pattern_matrix  # noqa: E402
from termo.engine.solver import Solver  # noqa: E402


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(func, repeats: int, warmup: int = 1) -> dict:
    for _ in range(warmup):
        func()
    wall, cpu, result = [], [], None
    for _ in range(repeats):
        c0, t0 = cpu_seconds(), time.perf_counter()
        result = func()
        wall.append(time.perf_counter() - t0)
        cpu.append(cpu_seconds() - c0)
    return {"median_s": statistics.median(wall), "min_s": min(wall), "runs_s": wall,
            "cpu_s": statistics.median(cpu), "result": result}


def states(game):
    m = np.asarray(pattern_matrix(game))
    everything = np.arange(game.n_answers)

    def filt(cands, word, pattern):
        return cands[m[game.index_of(word), cands] == encode(pattern)]

    c223 = filt(everything, "tarso", "BBBBB")
    out = {
        "tarso BBBBB (223)": (c223, 2),
        "tarso BBGBB (51)": (filt(everything, "tarso", "BBGBB"), 2),
        "tarso BBBBB, filme BBBYY (12)": (filt(c223, "filme", "BBBYY"), 3),
    }
    # every first-turn state of tarso with 100..250 candidates (the interactive ceiling is 250)
    row = m[game.index_of("tarso")]
    codes, counts = np.unique(row, return_counts=True)
    for code, count in zip(codes, counts):
        if 100 <= count <= 250 and len(out) < 8:
            out[f"tarso code {int(code)} ({int(count)})"] = (everything[row == code], 2)
    return out


def main() -> None:
    parser = repeats_parser(__doc__, 5, opener_repeats=3, backend="numpy", skip_opener=False, suffix="")
    args = parser.parse_args()
    game = termo_game()
    backend = get_backend(args.backend)
    pattern_matrix(game)
    rows = []

    def report(name, timing, **extra):
        res = timing.pop("result")
        rows.append({"task": name, **timing, **extra})
        print(f"{name:45} median {timing['median_s']*1000:9.1f} ms  cpu {timing['cpu_s']*1000:9.1f} ms  {res}",
              file=sys.stderr)

    for name, (cands, turn) in states(game).items():
        t3 = timed(lambda: Solver(game, level=3, backend=backend).decide(cands, turn).word, args.repeats)
        report(f"level-3 suggest {name}", t3, candidates=len(cands))
        solver2 = Solver(game, level=2, backend=backend)
        t2 = timed(lambda: solver2.decide(cands, turn).word, args.repeats)
        report(f"level-2 suggest {name}", t2, candidates=len(cands))
    everything = list(range(game.n_answers))
    solver2 = Solver(game, level=2, backend=backend)
    report("level-2 decision, all 6046 candidates", timed(lambda: solver2.decide(everything, 1).word, args.repeats),
           candidates=game.n_answers)
    first = [np.flatnonzero(np.asarray(pattern_matrix(game))[game.index_of("tarso")] == c)
             for c in np.unique(np.asarray(pattern_matrix(game))[game.index_of("tarso")])]
    report(f"level-2 decide_many, {len(first)} states after tarso",
           timed(lambda: len(Solver(game, level=2, backend=backend).decide_many(first, [2] * len(first))),
                 args.repeats), states=len(first))
    if not args.skip_opener:
        def opener():
            solver = Solver(game, level=3, backend=backend)
            decision, costs, _ = openers.search_level3(solver)
            return f"{decision.word} {decision.choice.expected!r} sweeps={solver.tree.last_stats['sweeps']}"

        report("level-3 opener from scratch (no cache)", timed(opener, args.opener_repeats, warmup=0))
    save("solver" + (f"-{args.suffix}" if args.suffix else ""),
         {"backend": backend.describe(), "repeats": args.repeats, "results": rows})


if __name__ == "__main__":
    main()
