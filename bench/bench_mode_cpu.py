"""Benchmark: the CPU of one never-asked level-2 answer of a mode, and the bytes its solver keeps.

The library call a server makes for ``POST /api/mode/suggest`` at level 2:
``multi_solver(get_mode(MODE), level=2).decide(state)``, on fresh two-turn histories (the level-2
opener of the mode's game, then a random probe, each board coloured by its own answer of a random
tuple of distinct answers, no board solved: `bench/server_load.py`'s ``mode_pool``). One solver
answers them all, as a server's does: it first answers ``--warm`` other histories (its memos as a
server's after some traffic), then each measured history once, never asked before (``time.process_time``
per answer: this process's CPU, both cores counted). numba is loaded first (a server's workers
load it), unless ``--no-numba``. Reports the median, p90, p99 and max CPU per answer in ms, the
solver's memo bytes after every question (`MultiSolver.memo_bytes`: bounded, docs/modes-solver.md)
and the process's peak RSS; ``--memo-questions N`` then asks N more distinct histories (turn 2
and 3, many distinct sets) and reports the memo bytes and the RSS again.

Usage::

    python bench/bench_mode_cpu.py --mode quordle --n 200 [--warm 50] [--name NAME]

Writes bench/results/<NAME>.json (default ``mode-cpu-<mode>``). Run it from another checkout's
tree (``--source DIR``) to measure that version: a solver without ``memo_bytes`` reports null.
"""

from __future__ import annotations

import random
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import load, save, script_parser  # noqa: E402
from bench.server_load import MODE_OPENERS as OPENERS  # noqa: E402 (level 2's first guess of the modes)


def histories(mode, size: int, seed: int, turns: int = 2) -> list:
    """``size`` distinct states after ``turns`` turns: the opener then random probes, coloured by a
    tuple of distinct answers, no board solved (the history's words, the state)."""
    from termo.core.feedback import feedback
    from termo.engine.multi.boards import BoardsState

    game = mode.game
    rng = random.Random(seed)
    opener = OPENERS.get(game.label, game.default_opener)
    start = BoardsState.start(mode)
    seen, out = set(), []
    while len(out) < size:
        answers = [game.answers_norm[i] for i in rng.sample(range(game.n_answers), mode.boards)]
        words = [opener] + [game.probes_norm[rng.randrange(game.n_probes)] for _ in range(turns - 1)]
        colours = [[feedback(w, a) for a in answers] for w in words]
        if any(game.win_pattern in c for c in colours) or tuple(words + answers) in seen:
            continue
        seen.add(tuple(words + answers))
        state = start
        for w, c in zip(words, colours):
            state = state.apply(w, c)
        out.append(state)
    return out


def percentile(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, int(round(q / 100 * len(ordered) + 0.5)) - 1))]


def main(argv=None) -> int:
    parser = script_parser(__doc__, mode="quordle", n=(200, "never-asked histories measured"),
                           warm=(50, "other histories asked first"), memo_questions=0, seed=99, no_numba=False,
                           source=(None, "the checkout whose termo is measured (default: this one)"), name=None)
    args = parser.parse_args(argv)
    if args.source:
        sys.path.insert(0, str(Path(args.source).resolve()))
    if not args.no_numba:
        from backends import numba_shim

        numba_shim.load()
    from termo.engine.multi.factory import multi_solver
    from termo.games import get_mode

    mode = get_mode(args.mode)
    load_before = load()
    states = histories(mode, args.warm + args.n, args.seed)
    solver = multi_solver(mode, level=2)
    for state in states[: args.warm]:
        solver.decide(state)
    cpu = []
    for state in states[args.warm:]:
        start = time.process_time()
        solver.decide(state)
        cpu.append((time.process_time() - start) * 1000)
    memo = getattr(solver, "memo_bytes", lambda: None)()
    result = {"mode": mode.label, "n": args.n, "warm": args.warm, "numba": not args.no_numba,
              "cpu_ms": {"median": round(statistics.median(cpu), 2), "p90": round(percentile(cpu, 90), 2),
                         "p99": round(percentile(cpu, 99), 2), "max": round(max(cpu), 2),
                         "mean": round(statistics.mean(cpu), 2)},
              "memo_bytes": memo, "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    if args.memo_questions:
        more = histories(mode, args.memo_questions // 2, args.seed + 1) + histories(
            mode, args.memo_questions - args.memo_questions // 2, args.seed + 2, turns=3)
        start = time.process_time()
        for state in more:
            solver.decide(state)
        result["memo_questions"] = {"n": len(more), "cpu_s": round(time.process_time() - start, 2),
                                    "memo_bytes": getattr(solver, "memo_bytes", lambda: None)(),
                                    "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    import termo

    payload = {"load_before": load_before, "load_after": load(),
               "source": str(Path(termo.__file__).resolve().parents[1]), **result}
    path = save(args.name or f"mode-cpu-{mode.label}", payload)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
