"""Batteries of secrets and their metrics (rules §7.2).

=========== =================================================================================
realistic   the 1,500 lowest-ICF answers (stable sort), re-sorted by index; ``n`` → the n lowest
full        all answers; ``n`` (< all) → ``linspace(0, last, n)`` truncated to integers
level3      realistic with n = 300
=========== =================================================================================

Metrics of one strategy: mean number of guesses over the wins, penalised mean (a loss counts
``max_turns + 1`` = 7), win rate, histogram of the winning turn (1..6), the lost words, the
words solved on the last turn, and seconds (total and per game; hardware dependent).
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

from backends import get_backend
from termo.analysis.lockstep import LockstepResult, play_lockstep
from termo.analysis.strategies import LABELS, build_policy, t_label
from termo.analysis.worlds import World, full_world
from termo.core.errors import TermoError
from termo.games import Game
from termo.engine.matrix import pattern_matrix
from termo.core.prior import most_common

BATTERIES = ("realistic", "full", "level3")
REALISTIC_SIZE = 1500
LEVEL3_SIZE = 300


def battery_secrets(game: Game, name: str = "realistic", n: int | None = None) -> list[int]:
    """The answer indices of battery ``name`` (ascending)."""
    total = game.n_answers
    if n is not None and n < 1:
        raise TermoError(f"--n must be at least 1, got {n}")
    if name in ("realistic", "level3"):
        k = n if n is not None else (REALISTIC_SIZE if name == "realistic" else LEVEL3_SIZE)
        return sorted(most_common(game.icf, min(k, total)))
    if name == "full":
        if n is None or n >= total:
            return list(range(total))
        if n == 1:
            return [0]
        # numpy.linspace(0, total - 1, n).astype(int): start + i * step, truncated
        step = (total - 1) / (n - 1)
        return [int(i * step) if i < n - 1 else total - 1 for i in range(n)]
    raise TermoError(f"unknown battery {name!r} (choose from {', '.join(BATTERIES)})")


def summarize(result: LockstepResult, game: Game, strategy: str, **extra) -> dict:
    """The metrics of one lockstep run as plain JSON-ready data."""
    turns = result.solved_turn
    max_turns = result.max_turns
    games = len(turns)
    wins = [t for t in turns if t > 0]
    histogram = [sum(1 for t in turns if t == k) for k in range(1, max_turns + 1)]
    penalised = sum(t if t > 0 else max_turns + 1 for t in turns) / games if games else None
    lost = [game.answers[s] for s, t in zip(result.secrets, turns) if t == 0]
    last = [game.answers[s] for s, t in zip(result.secrets, turns) if t == max_turns]
    out = {
        "strategy": strategy,
        "label": LABELS.get(strategy, strategy),
        "games": games,
        "mean": sum(wins) / len(wins) if wins else None,
        "penalised_mean": penalised,
        "win_rate": len(wins) / games if games else None,
        "histogram": histogram,
        "lost": lost,
        "solved_last_turn": last,
        "first_guess": game.probes[result.first_guess] if result.first_guess is not None else None,
        "seconds": result.seconds,
        "seconds_per_game": result.seconds / games if games else None,
        "decisions": sum(result.decisions_per_turn),
    }
    out.update(extra)
    return out


def evaluate(policy, world: World, secrets: Sequence[int], *, backend=None,
             on_turn: Callable[[int, int, int], None] | None = None) -> LockstepResult:
    """Play ``policy`` in ``world`` against ``secrets`` (lockstep)."""
    backend = get_backend(backend)
    game = world.load_game()
    return play_lockstep(policy, pattern_matrix(game, backend), secrets, world.initial, max_turns=world.rounds,
                         n_patterns=game.n_patterns, backend=backend, on_turn=on_turn)


def run_battery(
    strategies: Sequence[str] = ("random", "letters", "likely", "entropy"),
    battery: str = "realistic",
    *,
    n: int | None = None,
    t: float = 1.0,
    extended: bool = False,
    seed: int = 0,
    beam: int = 10,
    depth: int = 1,
    backend=None,
    progress: Callable[[str, int, int], None] | None = None,
    game=None,
    hard: bool = False,
) -> list[dict]:
    """Run each strategy on the battery; one metrics dict per strategy (in the given order).

    ``progress(label, done, total)`` is called as games finish (for a progress bar). ``hard``:
    hard mode (docs/rules.md §12.2; levels 1 and 2), each row then carries ``"hard": True``.
    """
    world = full_world(t=t, extended=extended, game=game)
    game = world.load_game()
    secrets = battery_secrets(game, battery, n)
    backend_name = get_backend(backend).name
    rows = []
    for name in strategies:
        start = time.perf_counter()
        policy = build_policy(name, world, seed=seed, beam=beam, depth=depth, backend=backend, hard=hard)
        setup = time.perf_counter() - start
        total = len(secrets)
        reported = {"done": -1}

        def on_turn(turn, alive, nodes, _name=name):
            if progress and total - alive != reported["done"]:
                reported["done"] = total - alive
                progress(_name, total - alive, total)

        result = evaluate(policy, world, secrets, backend=backend, on_turn=on_turn)
        if progress and reported["done"] != total:  # each count once: the end is not said twice
            progress(name, total, total)
        rows.append(summarize(result, game, name, set=battery, t=t_label(t), probes=game.n_probes,
                              seed=seed if name == "random" else None, setup_seconds=setup, backend=backend_name,
                              **({"hard": True} if hard else {})))
    return rows
