"""Benchmark: openers of a mode, each tried by a level-2 battery (the table of level 3's openers).

For each opener, level 2 plays ``--n`` seeded answer tuples of the mode (`termo bench battery`'s
tuples, seed ``--seed``: keep it away from the figures' seed 0, so that the opener is not chosen
on the games it is then measured on) with that first guess (``multi_solver(mode, level=2,
opener=WORD)``), and the per-game finish is compared with level 2's own opener on the same
tuples: mean, 95 % interval of the paired difference, win rate. The openers: level 2's best
``--top`` first guesses (joint entropy of the first turn) and ``--extra`` words.

Usage::

    python bench/bench_mode_openers.py --mode quordle --n 1000 --seed 1 --top 30 --extra carle,salet

Writes bench/results/mode-openers-<mode>.json (machine, load, every opener's figures, best first).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import load, save, script_parser  # noqa: E402


def main(argv=None) -> int:
    parser = script_parser(__doc__, mode="quordle", n=1000, seed=1, top=30, extra="", objective="finish", name=None)
    args = parser.parse_args(argv)
    import numpy as np

    from termo.analysis.mode_battery import game_figures, load_kernels, mode_tuples, paired, play_modes_lockstep
    from termo.engine.multi.factory import multi_solver
    from termo.games import get_mode

    load_kernels()
    mode = get_mode(args.mode)
    game = mode.game
    load_before = load()
    tuples = mode_tuples(mode, args.n, args.seed)
    base = multi_solver(mode, level=2, objective=args.objective)
    everything = [np.arange(game.n_answers, dtype=np.int64)] * mode.boards
    top, bits, _ = base.ranked(everything, args.top)
    own = int(top[0])
    words = [game.probes[int(g)] for g in top.tolist()]
    words += [w for w in (x.strip() for x in args.extra.split(",")) if w and w not in words]
    rows, reference = [], None
    for word in [game.probes[own]] + [w for w in words if w != game.probes[own]]:
        start = time.process_time()
        solver = multi_solver(mode, level=2, objective=args.objective, opener=word)
        run = play_modes_lockstep(solver, mode, tuples)
        per_game = [game_figures(s, mode.max_turns) for s in run.solved_on]
        finishes = [f for f, _, _ in per_game]
        reference = reference or finishes
        diff = paired(reference, finishes)
        index = game.index_of(word)
        rows.append({"opener": game.probes[index], "bits": float(base.joint_bits(everything)[index]),
                     "mean_finish": sum(finishes) / len(finishes),
                     "win_rate": sum(1 for *_, won in per_game if won) / len(per_game),
                     "level2_minus_this": diff["mean"], "ci95": diff["ci95"], "cpu_s": round(time.process_time() - start, 1)})
        print(f"{rows[-1]['opener']:>10}  finish {rows[-1]['mean_finish']:.4f}  win {rows[-1]['win_rate']:.3f}  "
              f"L2 − this {diff['mean']:+.4f} [{diff['ci95'][0]:+.4f}, {diff['ci95'][1]:+.4f}]", flush=True)
    rows.sort(key=lambda r: (r["mean_finish"], -r["win_rate"]))
    payload = {"mode": mode.label, "n": args.n, "seed": args.seed, "objective": args.objective,
               "level2_opener": game.probes[own], "load_before": load_before,
               "load_after": load(), "openers": rows}
    print(f"wrote {save(args.name or f'mode-openers-{mode.label}', payload)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
