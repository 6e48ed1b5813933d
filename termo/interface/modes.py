"""Requests about modes of several boards (Dueto, Quarteto, Dordle, ...): history and suggestions.

History notation (docs/modes.md): one item per turn, ``guess:p1/p2/.../pB``, one colour pattern
per board in board order, in any colour notation of the game (``tarso:BBBBB/BYBBB``). A board
solved on an earlier turn takes no more colours: its slot is ``-`` (``termo:-/GGYBB``).
"""

from __future__ import annotations

from typing import Sequence

from termo.core.errors import TermoError

SOLVED_SLOT = "-"


def parse_turn(item: str, boards: int) -> tuple[str, list]:
    """Split ``guess:p1/.../pB`` into the guess and one pattern per board (None for ``-``)."""
    from termo.engine.session import parse_history_item

    guess, patterns = parse_history_item(item)
    slots = [p.strip() for p in patterns.split("/")]
    if len(slots) != boards:
        raise TermoError(f"bad history item {item!r}: {len(slots)} colour pattern(s) for {boards} boards; give one "
                         f"per board separated by '/', and '{SOLVED_SLOT}' for a board already solved",
                         "boards.count", {"n": len(slots), "boards": boards})
    return guess, [None if s == SOLVED_SLOT else s for s in slots]


def replay(mode, history: Sequence[str], matrix=None):
    """The `BoardsState` after the history items (each checked, see `BoardsState.apply`)."""
    from termo.engine.boards import BoardsState

    state = BoardsState.start(mode, matrix=matrix)
    for number, item in enumerate(history, start=1):
        guess, patterns = parse_turn(item, mode.boards)
        try:
            state = state.apply(guess, patterns)
        except TermoError as err:
            raise TermoError(f"turn {number} ({item}): {err}", err.code, err.params) from None
    return state


def boards_view(state, sample: int = 10) -> list[dict]:
    """Per board: ``board`` (1-based), ``solved``, ``solved_on``, ``candidates`` (count) and the
    first ``sample`` candidates (display forms, most probable first)."""
    from termo.engine.level2 import by_icf

    game = state.game
    out = []
    for b, cands in enumerate(state.candidate_lists()):
        shown = [game.answers[i] for i in by_icf(cands, game.icf)[:sample]]
        out.append({"board": b + 1, "solved": state.solved_on[b] is not None, "solved_on": state.solved_on[b],
                    "candidates": len(cands), "sample": shown})
    return out


def suggest_mode(mode, history: Sequence[str] = (), level: int = 3, objective: str = "finish", *,
                 backend: str | None = None, solver=None) -> dict:
    """The suggestion for ``mode`` after ``history``: the decision's `JointDecision.as_dict` plus
    ``mode``, ``turn`` (the turn to play), ``turns`` (the limit) and ``boards`` (`boards_view`).
    A won game gives ``solved: True`` and no word."""
    from termo.engine.joint_factory import joint_solver

    state = replay(mode, history)
    data = {"mode": mode.label, "turn": state.turns + 1, "turns": mode.max_turns}
    if state.won:
        data.update({"solved": True, "word": None, "expected": None, "reason": f"all {mode.boards} boards solved "
                     f"in {state.turns}/{mode.max_turns}", "alternatives": []})
    elif state.out_of_turns:
        raise TermoError(f"the game is over: all {mode.max_turns} tries were played", "game.over",
                         {"tries": mode.max_turns, "next": state.turns + 1})
    else:
        solver = solver or joint_solver(mode, level=level, objective=objective, backend=backend)
        data.update(solver.decide(state).as_dict())
    data["boards"] = boards_view(state)
    return data
