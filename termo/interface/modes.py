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


def replay(mode, history: Sequence[str], matrix=None, on_warning=None):
    """The `BoardsState` after the history items (each checked, see `BoardsState.apply`);
    ``on_warning(text)`` hears about a guess outside the word list (its colours still filter)."""
    from termo.engine.multi.boards import BoardsState

    state = BoardsState.start(mode, matrix=matrix)
    for number, item in enumerate(history, start=1):
        guess, patterns = parse_turn(item, mode.boards)
        try:
            if on_warning is not None and not state.over:
                for warning in state.session.check_guess(guess).warnings:
                    on_warning(str(warning))
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
                 backend: str | None = None, solver=None, progress=None, t: float | None = None,
                 on_warning=None, state=None) -> dict:
    """The suggestion for ``mode`` after ``history``: the decision's `Decision.as_dict` plus
    ``mode``, ``turn`` (the turn to play), ``turns`` (the limit) and ``boards`` (`boards_view`).
    A won game gives ``solved: True`` and no word. ``progress(done, total)`` is passed to a
    solver whose ``decide`` takes one (a long level-3 search); ``t`` is the prior temperature;
    ``state`` is `replay(mode, history)` when the caller has it already (not replayed again)."""
    from termo.engine.multi.factory import multi_solver

    if state is None:
        state = replay(mode, history, on_warning=on_warning)
    data = {"mode": mode.label, "turn": state.turns + 1, "turns": mode.max_turns}
    if state.won:
        data.update({"solved": True, "word": None, "expected": None, "reason": f"all {mode.boards} boards solved "
                     f"in {state.turns}/{mode.max_turns}", "alternatives": []})
    elif state.out_of_turns:
        raise TermoError(f"the game is over: all {mode.max_turns} tries were played", "game.over",
                         {"tries": mode.max_turns, "next": state.turns + 1})
    else:
        options = {} if t is None else {"t": t}
        solver = solver or multi_solver(mode, level=level, objective=objective, backend=backend, **options)
        data.update(decide(solver, state, progress))
    data["boards"] = boards_view(state)
    return data


def decide(solver, state, progress=None) -> dict:
    """``solver.decide(state)`` as a dict; ``progress(done, total)`` reaches a solver whose
    ``decide`` takes one, or one that keeps it as its ``progress`` attribute (set for this call)."""
    import inspect

    try:
        takes = "progress" in inspect.signature(solver.decide).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin or a C callable
        takes = False
    if progress is None or (not takes and not hasattr(solver, "progress")):
        return solver.decide(state).as_dict()
    if takes:
        return solver.decide(state, progress=progress).as_dict()
    before = solver.progress
    solver.progress = progress
    try:
        return solver.decide(state).as_dict()
    finally:
        solver.progress = before


OBJECTIVE_TEXT = {"finish": "expected guesses to finish", "score": "expected share-card score",
                  "win": "chance to solve every board"}


def format_board_line(board: dict, sample: int = 8) -> str:
    """One line about a board of `boards_view`: solved on which turn, or its candidates."""
    if board["solved"]:
        return f"board {board['board']}: solved on turn {board['solved_on']} ({board['sample'][0] if board['sample'] else '?'})"
    n = board["candidates"]
    shown = board["sample"][:sample]
    more = " ..." if n > len(shown) else ""
    return f"board {board['board']}: {n} candidate{'s' if n != 1 else ''}: {' '.join(shown)}{more}"


def format_mode_decision(data: dict, max_alternatives: int = 5, title: str = "") -> list[str]:
    """Plain-text lines for `suggest_mode`'s dict: the turn, each board, the suggestion, the
    reason and the alternatives."""
    head = f"{title or data['mode']}, turn {data['turn']}/{data['turns']}"
    if data.get("level") is not None:
        objective = data.get("objective", "finish")
        head += f" (level {data['level']}, objective {objective}: {OBJECTIVE_TEXT.get(objective, objective)})"
    lines = [head] + ["  " + format_board_line(b) for b in data.get("boards", [])]
    if data.get("solved"):
        return lines + [data.get("reason", "solved")]
    lines.append(f"suggestion:      {data['word']}")
    lines.append(f"bits:            {_number(data.get('bits'), 4)} (sum over the unsolved boards)")
    lines.append(f"solves a board:  {_percent(data.get('p_solve'))}")
    if data.get("expected") is not None:
        lines.append(f"expected:        {_number(data['expected'], 3)} ({OBJECTIVE_TEXT.get(data.get('objective'), '')})")
    lines.append(f"reason:          {data.get('reason', '')}")
    alternatives = (data.get("alternatives") or [])[:max_alternatives]
    if alternatives:
        lines.append("alternatives:")
        width = max(len(a["word"]) for a in alternatives) + 1
        for alt in alternatives:
            text = f"  {alt['word']:<{width}} {_number(alt.get('bits'), 4)} bits, solves a board {_percent(alt.get('p_solve'))}"
            if alt.get("expected") is not None:
                text += f", E {_number(alt['expected'], 3)}"
            lines.append(text)
    return lines


def _number(value, digits: int) -> str:
    return "-" if value is None else f"{float(value):.{digits}f}"


def _percent(value) -> str:
    return "-" if value is None else f"{100.0 * float(value):.2f}%"
