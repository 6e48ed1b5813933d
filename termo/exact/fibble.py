"""Fibble from a fixed opener, bracketed (docs/fibble.md): the best expected number of guesses lies
between two proved values, and the best chance of a win within the rows above a third.

* **Upper bound**: a strategy's exact value. The level-2 (or level-3) policy of
  `termo.engine.lie_solver.LieSolver` is played from the opener against every answer (its prior
  weight) and every lie of every row (its chance), the whole tree walked (`policy_value`): the
  expected guesses (a game lost after the last row costs the rows plus `LOSS`) and the chance of a
  win within the rows. No strategy does worse than the best, so the best is at most that.
* **Lower bound**: honest colours after the opener's row. A player who is shown the true colours
  of every later row can always do as well as one shown lies (it may draw the lie itself), so the
  best Fibble value from the opener is at least ``1 + Σ_p P(p)·V_H(S_p)``, ``V_H`` the best honest
  expected guesses from the candidates the opener's row ``p`` leaves, weighted by their chance,
  with the rows left. ``V_H`` comes from the exact solver (`termo.exact.search.Problem`): proved,
  or a proved lower bound when its node budget runs out (then said so).

`bracket` returns both with how they were obtained; when they meet the value is proved.
"""

from __future__ import annotations

import math
import time
from typing import Callable

from backends import host
from termo.core.errors import TermoError
from termo.engine.lie_solver import LOSS, LieSolver, rows

DEFAULT_NODES = 200_000  # the exact solver's states per opener row (lower bound), before it settles for a bound


def policy_value(solver: LieSolver, members, weights, turn: int, first: int | None = None,
                 progress: Callable | None = None, counter: list | None = None) -> tuple[float, float]:
    """``(expected guesses, chance of a win within the rows)`` of ``solver``'s policy from a state
    at a 1-based ``turn`` (``first``: the guess played there instead of the policy's)."""
    game = solver.game
    left = game.max_turns - turn + 1
    if left <= 0:
        return LOSS, 0.0
    if counter is not None:
        counter[0] += 1
        if progress is not None and counter[0] % 2000 == 0:
            progress(f"{counter[0]:,} states of the policy walked")
    if int(members.shape[0]) == 1 and first is None:
        return 1.0, 1.0
    guess = int(first) if first is not None else solver.decide_state(members, weights, turn).index
    value, win = 1.0, 0.0
    for code, p, m, w in rows(solver.matrix, game, members, weights, guess):
        if code == game.win_code:
            win += p
            continue
        v, pw = policy_value(solver, m, w, turn + 1, None, progress, counter)
        value += p * v
        win += p * pw
    return value, win


def honest_lower_bound(game, opener: int, t: float = 1.0, nodes: int = DEFAULT_NODES,
                       progress: Callable | None = None) -> dict:
    """``1 + Σ_p P(p)·V_H(S_p)`` (see the module doc), each ``V_H`` by the exact solver within
    ``nodes`` states (a proved lower bound where it runs out)."""
    from termo.engine.lie_solver import LOSS as loss
    from termo.engine.lies import lie_tables
    from termo.exact.search import Problem

    xp = host().xp
    solver = LieSolver(game, level=2, t=t)
    members, prior = solver.state(range(game.n_answers))
    honest = xp.take(xp.asarray(solver.matrix[opener]), members).astype(xp.int64)
    neighbours = lie_tables(game.word_length)[0]
    share = xp.where(honest == game.win_code, 1.0, 1.0 / xp.maximum((neighbours[honest] >= 0).sum(axis=1), 1))
    weights = prior * share  # an answer's weight in every row the opener may show: its prior, its row's chance
    problem = Problem(game, weights=weights, loss=loss)
    total = 0.0
    proved = True
    children = rows(solver.matrix, game, members, prior, opener)
    for i, (code, p, m, w) in enumerate(children):
        if code == game.win_code:
            continue
        value, exact, _ = problem.engine.solve(m, game.max_turns - 1, budget=int(nodes))
        proved = proved and exact
        total += value / problem.weight(m) * p
        if progress is not None:
            progress(f"honest bound: {i + 1} of {len(children)} rows of the opener solved")
    return {"lower": 1.0 + total, "rows": len(children), "each_row_proved": proved, "nodes_per_row": int(nodes)}


def bracket(game, opener: str | None = None, *, level: int = 2, t: float = 1.0, nodes: int = DEFAULT_NODES,
            progress: Callable | None = None) -> dict:
    """The bracket of the best expected guesses from ``opener`` (default the game's), and the
    chance of a win within the rows of ``level``'s policy; plain data."""
    if game.feedback.kind != "lies":
        raise TermoError(f"{game.label}'s rows do not lie: `termo optimal` proves its value exactly (docs/exact.md)")
    word = opener or game.default_opener
    probe = game.index_of(word) if word else None
    if probe is None:
        raise TermoError(f"--opener {str(word)[:40]!r} is not a guess of {game.label}")
    started = time.time()
    solver = LieSolver(game, level=level, t=t)
    members, weights = solver.state(range(game.n_answers))
    counter = [0]
    upper, win = policy_value(solver, members, weights, 1, probe, progress, counter)
    policy_seconds = time.time() - started
    low = honest_lower_bound(game, probe, t, nodes, progress)
    lower = low["lower"]
    return {"game": game.label, "opener": game.probes[probe], "rows": game.max_turns, "answers": game.n_answers,
            "policy_level": level, "upper": upper, "lower": lower, "gap": upper - lower,
            "proved": math.isclose(upper, lower, rel_tol=0, abs_tol=1e-9),
            "win_within_rows": win, "policy_states": counter[0], "loss": LOSS,
            "rows_of_opener": low["rows"], "lower_rows_proved": low["each_row_proved"], "lower_nodes_per_row": low["nodes_per_row"],
            "seconds": {"policy": round(policy_seconds, 1), "lower": round(time.time() - started - policy_seconds, 1)}}
