"""The plain text of an answer, as the command line and the interactive game print it: one board
(`format_decision`) or several (`format_boards_decision`, each board by `format_board_line`);
`format_answer` picks by the answer's shape."""

from __future__ import annotations


def format_answer(data: dict, uniform: bool = False, title: str = "") -> list[str]:
    """The lines of `termo.interface.suggest.suggest`'s answer: several boards' (it has
    ``boards``) or one board's (``uniform``: the game's prior is uniform)."""
    if "boards" in data:
        return format_boards_decision(data, title=title)
    return format_decision(data, uniform=uniform)


def _fmt(value, digits: int) -> str:
    """``value`` with ``digits`` decimals; a value that rounds to zero prints as 0 (never -0.0000)."""
    if value is None:
        return "-"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def format_decision(data: dict, max_alternatives: int = 10, uniform: bool = False) -> list[str]:
    """Plain-text lines for a decision dict (``suggest``/``opener_report`` output); ``uniform``:
    the game's prior is uniform, so the candidates are listed in list order, not by likelihood."""
    lines = []
    if data.get("solved"):
        lines.append(f"{data.get('reason', 'solved')}: {data['word']}")
        return lines
    if "candidates" in data:
        n = data["candidates"]
        lines.append(f"candidates left: {n}")
    if data.get("remaining"):
        shown = data["remaining"]
        more = f" (the first {len(shown)})" if len(shown) < data.get("candidates", len(shown)) else ""
        lines.append(f"all equally likely, in list order{more}:" if uniform else f"most likely first{more}:")
        for start in range(0, len(shown), 10):
            lines.append("  " + " ".join(shown[start:start + 10]))
    flag = "can be the answer" if data.get("is_candidate") else "cannot be the answer"
    lines.append(f"suggestion:      {data['word']}  ({flag})")
    lines.append(f"bits:            {_fmt(data.get('bits'), 4)}")
    if data.get("expected") is not None:
        lines.append(f"expected:        {_fmt(data['expected'], 3)} guesses (including this one)")
    lines.append(f"reason:          {data.get('reason', '')}")
    alternatives = data.get("alternatives") or []
    if alternatives:
        lines.append("alternatives (* = can be the answer):")
        width = max(len(a["word"]) for a in alternatives[:max_alternatives]) + 1
        for alt in alternatives[:max_alternatives]:
            word = alt["word"] + ("*" if alt.get("is_candidate") else "")
            text = f"  {word:<{width}}  {_fmt(alt.get('bits'), 4)} bits"
            if alt.get("expected") is not None:
                text += f"   E {_fmt(alt['expected'], 3)} guesses"
            lines.append(text)
    return lines


OBJECTIVE_TEXT = {"finish": "expected guesses to finish", "score": "expected share-card score",
                  "win": "chance to solve every board"}


def format_board_line(board: dict, sample: int = 8) -> str:
    """One line about a board of `termo.interface.positions.Boards.view`: solved on which turn, or its candidates."""
    if board["solved"]:
        return f"board {board['board']}: solved on turn {board['solved_on']} ({board['sample'][0] if board['sample'] else '?'})"
    n = board["candidates"]
    shown = board["sample"][:sample]
    more = " ..." if n > len(shown) else ""
    return f"board {board['board']}: {n} candidate{'s' if n != 1 else ''}: {' '.join(shown)}{more}"


def format_boards_decision(data: dict, max_alternatives: int = 5, title: str = "") -> list[str]:
    """Plain-text lines for several boards' answer (`termo.interface.suggest.suggest`): the turn, each board, the suggestion, the
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
