"""The review of a game after (or during) play: every guess against the best, luck, scores.

For every turn of a game (docs/review.md):

* ``best_value``: the best expected guesses from the state before the turn (this guess included;
  a mode: the objective's cost still to pay), and ``best``, the guess(es) that reach it;
* ``guess_value``: the same after the player's guess; ``cost = guess_value − best_value`` (≥ 0);
* ``next_value``: the best value of the state the colours left (0 once solved), and
  ``luck = guess_value − turn cost − next_value``: what the colours gave against what the guess
  could expect (positive: lucky). With every turn exact, ``start + Σ cost − Σ luck`` is what the
  game cost (the guesses used; a loss counts the limit plus the loss cost);
* a verdict of the cost and of the luck (`VERDICTS`, `LUCK_VERDICTS`: Selby's thresholds, in
  guesses; a mode whose objective is the chance to lose takes them times `PROBABILITY_SCALE`);
* the method of the turn's values: ``exact`` (proved) or ``level3`` (the search's estimate), never
  mixed within a turn (`termo.analysis.review_board`, `termo.analysis.review_modes`).

Per game: the total cost and luck, a skill score ``round(99·exp(−Σcost / 0.5))`` and a luck score
``round(99 / (1 + exp(−Σluck / 0.5)))`` on 0–99 (`skill_score`, `luck_score`: 99 a perfect game,
50 average luck). A review is a pure function of the game, the history and the options (the
exact budget counts states, not seconds).
"""

from __future__ import annotations

import math

import numpy as np

from termo.core.errors import TermoError
from termo.engine.tree_search import LOSS_COST

# (upper bound, verdict) of a guess's cost in guesses (Selby's `wordle -A` thresholds); cost 0: perfect
VERDICTS = ((0.05, "near_perfect"), (0.1, "good"), (0.2, "fair"), (0.35, "not_great"), (0.5, "bad"),
            (math.inf, "very_bad"))
LUCK_VERDICTS = ((-1.0, "very_unlucky"), (-0.3, "unlucky"), (-0.1, "slightly_unlucky"), (0.1, "average"),
                 (0.3, "slightly_lucky"), (1.0, "lucky"), (math.inf, "very_lucky"))
SCORE_SCALE = 0.5  # guesses: the e-folding cost of the skill score and the slope of the luck score
PROBABILITY_SCALE = 0.1  # a mode's `win` objective (a probability): thresholds and scales times this
TIE = 1e-9  # a cost this small relative to the value is 0 (a weighted prior's sums in another order)


def verdict(cost, scale: float = 1.0) -> str | None:
    """The verdict of a guess that cost ``cost`` (None: not rated)."""
    if cost is None:
        return None
    if cost == 0:
        return "perfect"
    return next(name for bound, name in VERDICTS if cost < bound * scale)


def luck_verdict(luck, scale: float = 1.0) -> str | None:
    if luck is None:
        return None
    return next(name for bound, name in LUCK_VERDICTS if luck < bound * scale)


def skill_score(total_cost: float, scale: float = 1.0) -> int:
    """0–99: 99 for a game without a wasted guess, 36 for half a guess wasted, 13 for one."""
    return int(round(99.0 * math.exp(-total_cost / (SCORE_SCALE * scale))))


def luck_score(total_luck: float, scale: float = 1.0) -> int:
    """0–99: 50 for average luck, 73 half a guess lucky, 27 half a guess unlucky."""
    x = max(min(total_luck / (SCORE_SCALE * scale), 50.0), -50.0)
    return int(round(99.0 / (1.0 + math.exp(-x))))


# ----------------------------------------------------------------------------- one board


def review_game(game, rounds, *, hard: bool = False, t: float = 1.0, loss: float = LOSS_COST, nodes=None,
                first_nodes=None, backend=None) -> dict:
    """The review of a one-board game: ``rounds`` is ``[(guess, colours), ...]`` as typed (each
    checked by the game's rules, `termo.engine.session.Session`); ``nodes``/``first_nodes``: the
    exact search's budget per turn (states; `termo.analysis.review_board`)."""
    from termo.analysis.review_board import BoardValues

    states = _replay_board(game, rounds, hard)
    values = BoardValues(game, hard=hard, t=t, loss=loss, backend=backend, nodes=nodes, first_nodes=first_nodes)
    turns = []
    for k, st in enumerate(states, start=1):
        v = values.turn(st["members"], k, st["ref"], st["code"], st["allowed"], st["constraint"])
        prob = values.problem
        row = {"turn": k, "guess": st["guess"], "colours": st["pattern"], "candidates": len(st["members"]),
               "left": st["left"], "expected_left": _expected_left(prob, st["members"], st["ref"])}
        row.update(_rated(v, 1.0, _names(game, v.best)))
        turns.append(row)
    won = bool(states) and states[-1]["won"]
    data = {"game": game.label, "mode": None, "title": game.shown, "boards": 1, "hard": bool(hard),
            "objective": "finish", "t": None if game.uniform_prior or math.isinf(t) else t, "loss": loss,
            "tries": game.max_turns, "played": len(states), "won": won,
            "over": won or len(states) >= game.max_turns}
    data["result"] = len(states) if won else (game.max_turns + loss if data["over"] else None)
    return _finish(data, turns, 1.0, values.first_nodes, values.nodes)


def _replay_board(game, rounds, hard: bool) -> list[dict]:
    """Each round's state: the candidates before it, hard mode's legal probes and rule, the guess
    (its probe index, else its normal form), its colours and code, the candidates after."""
    from termo.core.feedback import encode
    from termo.engine.session import Session

    session = Session(game, hard=hard)
    out = []
    for number, (guess, colours) in enumerate(rounds, start=1):
        if number > game.max_turns:
            raise TermoError(f"round {number}: {game.shown} has {game.max_turns} tries")
        members = session.candidates
        mask = session.allowed_probes()
        constraint = session.constraint() if hard else None
        try:
            outcome = session.play(guess, colours)
        except TermoError as err:
            raise TermoError(f"round {number} ({guess}:{colours}): {err}", err.code, err.params) from None
        if outcome.status == "empty":
            raise TermoError(f"round {number} ({guess}:{colours}) leaves no candidate: the colours cannot come "
                             f"from any answer of the game")
        rnd = outcome.round
        ref = rnd.probe if rnd.probe is not None else game.normalize(rnd.guess)
        out.append({"members": np.asarray(members, dtype=np.int64), "guess": rnd.guess, "pattern": rnd.pattern,
                    "ref": ref, "code": encode(rnd.pattern), "won": rnd.won, "left": 0 if rnd.won else rnd.after,
                    "allowed": None if mask is None else np.flatnonzero(mask).astype(np.int64),
                    "constraint": constraint})
    return out


def _expected_left(prob, members, ref):
    """The candidates ``ref`` leaves, expected under the prior (None for a word outside the list)."""
    if not isinstance(ref, (int, np.integer)):
        return None
    weight = prob.weight(members)
    total = 0.0
    for code, sub in prob.engine.partition(members, int(ref)):
        if code != prob.game.win_code:
            total += prob.weight(sub) * len(sub)
    return total / weight


def _names(game, probes) -> list[str]:
    return [game.probes[int(p)] for p in probes]


# ----------------------------------------------------------------------------- several boards


def review_mode(mode, rounds, *, objective: str = "finish", t: float = 1.0, nodes=None, backend=None) -> dict:
    """The review of a mode of several boards: ``rounds`` is ``[(guess, [colours or None per
    board]), ...]`` (None for a board already solved; each turn checked by
    `termo.engine.multi.boards.BoardsState.apply`), valued under ``objective``."""
    from termo.analysis.review_modes import ModeValues, expected_left

    states = _replay_mode(mode, rounds)
    values = ModeValues(mode, objective=objective, t=t, backend=backend, nodes=nodes)
    scale = PROBABILITY_SCALE if values.objective.name == "win" else 1.0
    turns = []
    for k, st in enumerate(states, start=1):
        v = values.turn(st["boards"], k, st["probe"], st["after"], st["codes"])
        row = {"turn": k, "guess": st["guess"], "colours": st["colours"], "candidates": st["candidates"],
               "left": st["left"],
               "expected_left": None if st["probe"] is None else expected_left(values.search.stats, st["boards"],
                                                                                st["probe"])}
        row.update(_rated(v, values.objective.turn_cost(len(st["boards"])), _names(mode.game, v.best), scale))
        turns.append(row)
    last = states[-1]["state"] if states else None
    won = bool(last is not None and last.won)
    over = won or len(states) >= mode.max_turns
    data = {"game": mode.game.label, "mode": mode.label, "title": mode.shown, "boards": mode.boards,
            "hard": False, "objective": values.objective.name, "t": None if mode.game.uniform_prior else t,
            "loss": None, "tries": mode.max_turns, "played": len(states), "won": won, "over": over,
            "solved_on": list(last.solved_on) if last is not None else [None] * mode.boards}
    data["result"] = _mode_result(values.objective, data, last) if over else None
    return _finish(data, turns, scale, None, values.nodes)


def _replay_mode(mode, rounds) -> list[dict]:
    from termo.core.feedback import encode
    from termo.engine.multi.boards import BoardsState

    state = BoardsState.start(mode)
    out = []
    for number, (guess, patterns) in enumerate(rounds, start=1):
        before = state
        try:
            state = state.apply(guess, patterns)
            probe = state.session.check_guess(guess).probe
        except TermoError as err:
            raise TermoError(f"turn {number} ({guess}): {err}", err.code, err.params) from None
        boards = [before.candidates[b] for b in before.unsolved]
        after = [state.candidates[b] for b in state.unsolved]
        colours = [None if p is None else mode.game.parse_colours(p) for p in patterns]
        codes = [encode(colours[b]) for b in before.unsolved]
        out.append({"guess": state.session.check_guess(guess).word, "probe": probe, "boards": boards, "codes": codes,
                    "after": after, "colours": colours, "state": state,
                    "candidates": [None if before.solved_on[b] is not None else before.n_candidates(b)
                                   for b in range(mode.boards)],
                    "left": [None if state.solved_on[b] is not None else state.n_candidates(b)
                             for b in range(mode.boards)]})
    return out


def _mode_result(objective, data, state) -> float:
    """What the finished game cost under the objective (finish: the last solve turn, the limit + 1
    when lost; score: the sum of solve turns, the limit + 1 for a board not solved; win: 0 or 1)."""
    limit = data["tries"]
    turns = [limit + 1 if t is None else t for t in state.solved_on]
    if objective.name == "finish":
        return float(max(turns))
    if objective.name == "score":
        return float(sum(turns))
    return 0.0 if data["won"] else 1.0


# ----------------------------------------------------------------------------- the common part


def _rated(v, turn_cost: float, best_words, scale: float = 1.0) -> dict:
    """A turn's values, cost, luck and verdicts (plain data)."""
    cost = luck = None
    if v.best_value is not None and v.guess_value is not None and math.isfinite(v.best_value):
        cost = v.guess_value - v.best_value
        if cost <= TIE * max(1.0, abs(v.best_value)):
            cost = 0.0
    if v.guess_value is not None and v.next_value is not None and math.isfinite(v.guess_value) \
            and math.isfinite(v.next_value):
        luck = v.guess_value - turn_cost - v.next_value
    return {"method": v.method, "best": best_words, "best_value": v.best_value, "guess_value": v.guess_value,
            "cost": cost, "verdict": verdict(cost, scale), "next_value": v.next_value, "luck": luck,
            "luck_verdict": luck_verdict(luck, scale)}


def _finish(data: dict, turns: list, scale: float, first_nodes, nodes) -> dict:
    """The game's totals, scores and methods around its turns."""
    costs = [r["cost"] for r in turns if r["cost"] is not None]
    lucks = [r["luck"] for r in turns if r["luck"] is not None]
    methods = {m: sum(1 for r in turns if r["method"] == m) for m in ("exact", "level3", "unrated")}
    total_cost, total_luck = float(sum(costs)), float(sum(lucks))
    rated = bool(turns) and len(costs) == len(turns)
    data.update({
        "start_value": turns[0]["best_value"] if turns else None,
        "total_cost": total_cost, "total_luck": total_luck,
        "skill": skill_score(total_cost, scale) if rated else None,
        "luck_score": luck_score(total_luck, scale) if lucks else None,
        "verdict": _game_verdict(total_cost, scale) if rated else None,
        "luck_verdict": luck_verdict(total_luck, scale) if lucks else None,
        "method": next((m for m, n in methods.items() if n == len(turns)), "mixed") if turns else None,
        "methods": methods, "budget": {"first_turn_states": first_nodes, "states_per_turn": nodes},
        "turns": turns,
    })
    return data


GAME_VERDICTS = ((0.1, "near_perfect"), (0.2, "good"), (0.4, "fair"), (0.7, "not_great"), (1.0, "bad"),
                 (math.inf, "very_bad"))


def _game_verdict(total_cost: float, scale: float = 1.0) -> str:
    """The verdict of a game's total cost (Selby's thresholds for the sum)."""
    if total_cost == 0:
        return "perfect"
    return next(name for bound, name in GAME_VERDICTS if total_cost < bound * scale)
