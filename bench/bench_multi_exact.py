"""Benchmark: the exact joint solver of several boards at scale, as whole processes.

``termo optimal --game MODE HISTORY --json`` (docs/modes-solver.md) on the largest states of a
seeded battery's tuples that fit the issue's targets: Quordle states of at most
2,000 joint answer tuples (target 60 s each), Dordle and Dueto states of at most 10,000 tuples
(target 5 minutes each). The states: the battery's tuples (`termo.analysis.mode_battery.mode_tuples`,
seed 0) after the mode's opener (and for Quordle a fixed second guess), the ``--states`` largest
products at most the target's tuples, distinct. Each state runs once (a proof is deterministic;
the wall time is the figure, the CPU seconds beside it), with ``--time`` the target (a state not
proved within it reports its bracket). Writes ``bench/results/multi-exact.json`` with the
machine and the load before and after each run.

Usage::

    python bench/bench_multi_exact.py [--modes quordle,dordle,dueto] [--states 3] [--n 400]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import load, save, timed_run  # noqa: E402

# mode: (tuples at most, target seconds, the guesses played first)
TARGETS = {"quordle": (2_000, 60.0, ("salet", "corny")),
           "dordle": (10_000, 300.0, ("salet",)),
           "dueto": (10_000, 300.0, ("tarso",))}


def states(mode_name: str, n: int, count: int) -> list[dict]:
    """The ``count`` largest distinct states of at most the target's tuples (history, sizes, tuples)."""
    import numpy as np

    from backends import host
    from termo.analysis.mode_battery import mode_tuples
    from termo.core.feedback import decode
    from termo.engine.matrix import pattern_matrix
    from termo.games.registry import get_mode

    mode = get_mode(mode_name)
    game = mode.game
    limit, _, guesses = TARGETS[mode_name]
    codes = np.asarray(pattern_matrix(game, host()))
    ids = [game.index_of(g) for g in guesses]
    win = int(codes[ids[0], ids[0]]) if ids[0] < game.n_answers else None
    seen, out = set(), []
    for answers in mode_tuples(mode, n, seed=0):
        sizes, history = [], []
        for g in ids:
            history.append(f"{game.probes[g]}:" + "/".join(decode(int(codes[g, a]), game.word_length) for a in answers))
        if any(int(codes[g, a]) == (win if win is not None else -1) for g in ids for a in answers):
            continue  # a board solved on the way: fewer boards, not the state asked for
        for a in answers:
            cand = np.arange(game.n_answers)
            for g in ids:
                cand = cand[codes[g, cand] == codes[g, a]]
            sizes.append(int(cand.shape[0]))
        tuples = int(np.prod(sizes))
        key = tuple(history)
        if tuples <= limit and key not in seen:
            seen.add(key)
            out.append({"history": history, "sizes": sizes, "tuples": tuples})
    out.sort(key=lambda s: -s["tuples"])
    return out[:count]


def run(mode_name: str, state: dict) -> dict:
    _, target, _ = TARGETS[mode_name]
    cmd = [str(Path(sys.executable).parent / "termo"), "optimal", "--game", mode_name, *state["history"], "--json",
           "--time", str(int(target))]
    load_before = load()
    done, wall, cpu = timed_run(cmd, capture_output=True, text=True, cwd=ROOT)
    row = {"command": "termo " + " ".join(cmd[1:]), **state, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
           "load_before": load_before, "load_after": load(), "target_s": target, "rc": done.returncode}
    if done.returncode == 0:
        data = json.loads(done.stdout)
        row.update({k: data.get(k) for k in ("proved", "word", "expected", "lower", "upper", "gap", "states",
                                              "seconds")})
        row["within_target"] = bool(data.get("proved")) and wall <= target
    else:
        row["stderr"] = done.stderr.strip().splitlines()[-1:]  # the one line of a refusal
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="quordle,dordle,dueto")
    parser.add_argument("--states", type=int, default=3, help="states per mode (the largest within the target)")
    parser.add_argument("--n", type=int, default=400, help="battery tuples the states are drawn from")
    parser.add_argument("--name", default="multi-exact")
    args = parser.parse_args()
    rows = {}
    for mode_name in args.modes.split(","):
        rows[mode_name] = [run(mode_name, s) for s in states(mode_name, args.n, args.states)]
    save(args.name, {"command": "python bench/bench_multi_exact.py " + " ".join(sys.argv[1:]),
                     "targets": {m: {"tuples": t[0], "seconds": t[1], "guesses": list(t[2])} for m, t in TARGETS.items()},
                     "runs": rows})


if __name__ == "__main__":
    main()
