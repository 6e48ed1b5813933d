"""Doddle's simultaneous solver on given answer tuples: a peer of `termo bench battery --game MODE`.

Runs under Doddle's own environment (PyPI ``doddle`` with ``numpy<2``; Doddle is a peer, never a
dependency of termo)::

    python3 -m venv /tmp/doddle-venv && /tmp/doddle-venv/bin/pip install doddle "numpy<2"
    /tmp/doddle-venv/bin/python bench/peers/doddle_modes.py TUPLES.json OUT.json [--opener SALET]

``TUPLES.json`` (written by ``bench/bench_modes.py``) holds ``{"mode", "boards", "turns",
"digest", "tuples": [[word, ...], ...]}``. Each tuple is one game of Doddle's ``SimulEngine``
(the solver Doddle's own ``simul_benchmark`` plays), opening with ``--opener`` (``default``:
Doddle's own seed word), on Doddle's official Wordle lists (2,315 answers, 12,972 words). Doddle
plays on past the turn limit until every board is solved; ``OUT.json`` records, per game, the
round on which each board was solved (uncapped) and the CPU seconds it took; the limit is
applied by the reader. The file is rewritten every ``--every`` games, and a rerun resumes from it
(on the same tuples, or a longer list that starts with the games already played).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from importlib.metadata import version


def _engine(solver: str):
    from doddle import Doddle

    doddle = Doddle(size=5, solver_type=solver, lazy_eval=False)
    return doddle.simul_engine


def play(engine, words, opener):
    """Per board, the round Doddle solved it on; and the seconds the game took."""
    from doddle.words import Word

    start = time.process_time()
    guesses = [Word(opener)] if opener else []
    game = engine.run([Word(w.upper()) for w in words], guesses)
    return [int(g.rounds) for g in game.games], time.process_time() - start


def _write(path: str, payload: dict) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(payload, fh, separators=(",", ":"))
    os.replace(tmp, path)


def _header(spec: dict, args) -> dict:
    return {"peer": "doddle", "doddle_version": version("doddle"), "solver": args.solver.lower(),
            "opener": args.opener.upper() if args.opener else "default", "mode": spec["mode"],
            "boards": spec["boards"], "turns": spec["turns"], "digest": spec["digest"],
            "seed": spec.get("seed"), "n": len(spec["tuples"]), "python": platform.python_version(),
            "machine": platform.machine(), "cpus": os.cpu_count(), "tuples": spec["tuples"], "games": [],
            "seconds": []}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tuples")
    parser.add_argument("out")
    parser.add_argument("--opener", default="SALET", help="first guess; 'default' for Doddle's own seed")
    parser.add_argument("--solver", default="MINIMAX", help="MINIMAX (Doddle's default) or ENTROPY")
    parser.add_argument("--every", type=int, default=50, help="rewrite OUT every this many games")
    parser.add_argument("--upto", type=int, default=0, help="play only the first UPTO tuples (0: all)")
    args = parser.parse_args(argv)
    if args.opener.lower() == "default":
        args.opener = ""
    with open(args.tuples, encoding="utf-8") as fh:
        spec = json.load(fh)
    payload = _header(spec, args)
    if os.path.exists(args.out):  # resume a run on the same tuples
        with open(args.out, encoding="utf-8") as fh:
            old = json.load(fh)
        done = len(old["games"])
        same = all(old.get(k) == payload[k] for k in ("solver", "opener", "mode"))
        if same and old.get("tuples", spec["tuples"])[:done] == spec["tuples"][:done]:
            payload["games"], payload["seconds"] = old["games"], old["seconds"]
    engine = _engine(args.solver)
    todo = spec["tuples"][: args.upto] if args.upto else spec["tuples"]
    for i in range(len(payload["games"]), len(todo)):
        rounds, seconds = play(engine, todo[i], args.opener)
        payload["games"].append(rounds)
        payload["seconds"].append(round(seconds, 4))
        if (i + 1) % args.every == 0 or i + 1 == len(todo):
            payload["cpu_seconds"] = round(sum(payload["seconds"]), 2)
            _write(args.out, payload)
            print(f"doddle {spec['mode']}: {i + 1}/{len(todo)} games, {payload['cpu_seconds']:.0f} s",
                  file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
