"""Share texts: the emoji grid a game shows when it ends, written and read back (docs/review.md).

Each game and mode writes its own share text, declared in `termo.games.registry` (``_SHARE``: the
header's first words, how the puzzle number is written, the "present" square, the score in the
header)::

    joguei term.ooo #1302 3/6          Wordle 1,234 4/6*           Daily Quordle 812
                                                                    6️⃣5️⃣
    🟨⬛⬛⬛⬛                         ⬛⬛🟨⬛⬛                   4️⃣8️⃣
    ...                                 ...
                                                                    ⬛🟨⬛⬛⬛ ⬛⬛⬛🟩⬛ ...

A one-board text is a header line, a blank line and one row of squares per guess. A mode of
several boards adds a block of digits (each board's solve turn in board order, two boards a
line: 1️⃣ … 9️⃣, 🔟, 🕚 11, 🕛 12, 🕐 13, ``[14]`` beyond, 🟥 a board not solved) and writes its
boards two side by side, one block of rows per pair, blocks apart by a blank line; a board
already solved shows ⬛ squares in the rows after its win. ``*`` after the score is hard mode.

Reading is tolerant of what players paste: a header or none (a bare grid: the caller names the
game), the puzzle number, the streak (``🔥 12``) and other words in the header, the light-mode
⬜, the high-contrast 🟧 (correct) and 🟦 (present), links and score lines after the grid. What it
reads is checked against the rules a grid alone must keep (``read_grid``): the squares per row,
at most the turn limit of rows, no row after a board's win but filler, no row a guess can never
get (every tile green but one yellow), the digits and the header's score equal to what the grid
shows. The words themselves are checked by the caller (`termo.interface.review`), which replays
them with the game's rules. Every refusal is one line (`TermoError`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from termo.core.errors import TermoError

GREEN, YELLOW, PURPLE, BLACK = "🟩", "🟨", "🟪", "⬛"
WHITE, ORANGE, BLUE, RED = "⬜", "🟧", "🟦", "🟥"
SQUARES = {GREEN: "G", ORANGE: "G", YELLOW: "Y", PURPLE: "Y", BLUE: "Y", BLACK: "B", WHITE: "B"}
KEYCAP = "\ufe0f\u20e3"  # a digit followed by these is a keycap digit (1️⃣)
BIG_DIGITS = {10: "🔟", 11: "🕚", 12: "🕛", 13: "🕐"}
PER_LINE = 2  # boards side by side in a mode's text
_SCORE = re.compile(r"^((?:\d+|x)(?:&(?:\d+|x))*)/(\d+)(\*?)$", re.IGNORECASE)
_NUMBER = re.compile(r"^#?(\d[\d,.\u00a0]*)$")


@dataclass(frozen=True)
class Header:
    """What a share text's first line says: the game or mode it names (None: a bare grid), the
    puzzle number, the scores (per board for ``4&6/7``, one for ``3/6``; None for ``X``) and
    the turn limit of the score, hard mode."""

    name: str | None
    number: int | None = None
    scores: tuple | None = None
    turns: int | None = None
    hard: bool = False


@dataclass(frozen=True)
class Grid:
    """A share text read against a game: ``rows[t][b]`` the pattern (``GYB…``) board ``b`` got on
    turn ``t + 1``, None once that board was solved; ``solved_on[b]`` the turn of its win (None:
    not solved); the header."""

    header: Header
    rows: tuple
    solved_on: tuple

    @property
    def turns(self) -> int:
        return len(self.rows)


# ----------------------------------------------------------------------------- writing


def write_share(name: str, rows, max_turns: int, hard: bool = False, number: int | None = None) -> str:
    """The share text of a finished game of ``name`` (a game or mode of `termo.games.registry`):
    ``rows[t][b]`` the pattern board ``b`` got on turn ``t + 1`` (None once solved). TermoError for
    a game that is not over (a share text is the end of a game)."""
    from termo.games.registry import share_spec

    prefix, number_style, present, score_style = share_spec(name)
    rows = [tuple(r) for r in rows]
    boards = len(rows[0]) if rows else 0
    if not rows or boards == 0:
        raise TermoError("nothing to share: no guess was played", "share.nothing")
    solved = _solved_on(rows)
    if not (all(t is not None for t in solved) or len(rows) >= max_turns):
        raise TermoError("the game is not over: a share text is written once every board is solved or the "
                         "tries are used up", "review.not_over")
    head = prefix + _number_text(number, number_style) + _score_text(solved, max_turns, score_style, boards)
    head += "*" if hard else ""
    squares = {"G": GREEN, "Y": present, "B": BLACK}
    length = len(next(p for p in rows[0] if p is not None))
    lines = [head, ""]
    if boards == 1:
        lines += ["".join(squares[c] for c in r[0]) for r in rows]
        return "\n".join(lines)
    digits = [_digit(t) for t in solved]
    lines += ["".join(digits[i:i + PER_LINE]) for i in range(0, boards, PER_LINE)] + [""]
    filler = BLACK * length
    for first in range(0, boards, PER_LINE):
        pair = range(first, min(first + PER_LINE, boards))
        for r in rows:
            lines.append(" ".join(filler if r[b] is None else "".join(squares[c] for c in r[b]) for b in pair))
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def _number_text(number, style: str) -> str:
    if number is None:
        return ""
    return f" #{number}" if style == "#" else f" {number:,}" if style == "," else f" {number}"


def _score_text(solved, max_turns: int, style: str, boards: int) -> str:
    if style == "turns":
        last = None if any(t is None for t in solved) else max(solved)
        return f" {'X' if last is None else last}/{max_turns}"
    if style == "boards":
        return " " + "&".join("X" if t is None else str(t) for t in solved) + f"/{max_turns}"
    return ""


def _digit(turn) -> str:
    if turn is None:
        return RED
    if turn < 10:
        return f"{turn}{KEYCAP}"
    return BIG_DIGITS.get(turn, f"[{turn}]")


def _solved_on(rows) -> tuple:
    """Each board's win turn (None: not solved) in rows of patterns."""
    boards = len(rows[0])
    out = []
    for b in range(boards):
        won = next((t + 1 for t, r in enumerate(rows) if r[b] is not None and set(r[b]) == {"G"}), None)
        out.append(won)
    return tuple(out)


# ----------------------------------------------------------------------------- reading


def _lines(text: str) -> list[str]:
    if not isinstance(text, str) or not text.strip():
        raise TermoError("the share text is empty", "share.empty")
    return [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]


def read_header(text: str) -> Header:
    """The header of a share text (its first line that is not squares or digits): the game or
    mode whose header words it starts with (the longest match; None when there is no header)."""
    from termo.games.registry import share_names, share_spec

    first = next((line for line in _lines(text) if line), "")
    if _is_grid_line(first) or _is_digit_line(first):
        return Header(None)
    lowered = first.lower()
    found = None
    for name in share_names():
        prefix = share_spec(name)[0].lower()
        if (lowered == prefix or lowered.startswith(prefix + " ")) and (found is None or len(prefix) > len(found[1])):
            found = (name, prefix)
    if found is None:
        raise TermoError(f"the share text's first line {first[:60]!r} names no game termo knows (give --game, "
                         f"and the grid alone)", "share.unknown_header", {"line": first[:60]})
    return _parse_header(found[0], first[len(found[1]):].split())


def _parse_header(name: str, tokens) -> Header:
    number = scores = turns = None
    hard = False
    for token in tokens:
        if token == "*":
            hard = True
            continue
        score = _SCORE.match(token)
        if score is not None and scores is None:
            scores = tuple(None if s.lower() == "x" else int(s) for s in score.group(1).split("&"))
            turns, hard = int(score.group(2)), hard or bool(score.group(3))
            continue
        found = _NUMBER.match(token)
        if found is not None and number is None and scores is None:
            number = int(re.sub(r"[^\d]", "", found.group(1)))
    return Header(name, number, scores, turns, hard)


def _clean(line: str) -> str:
    return line.replace("\ufe0f", "").replace(" ", "").replace("\u00a0", "").replace("\t", "")


def _is_grid_line(line: str) -> bool:
    body = _clean(line)
    return bool(body) and all(ch in SQUARES for ch in body)


def _digit_tokens(line: str):
    """The tokens of a line of digits (turn numbers, None for 🟥), or None when it is not one."""
    body = line.replace(" ", "").replace("\u00a0", "")
    out = []
    i = 0
    big = {v: k for k, v in BIG_DIGITS.items()}
    while i < len(body):
        ch = body[i]
        if ch.isdigit() and body[i + 1:i + 3] == KEYCAP:
            out.append(int(ch))
            i += 3
        elif ch.isdigit() and body[i + 1:i + 2] == "\u20e3":
            out.append(int(ch))
            i += 2
        elif ch in big:
            out.append(big[ch])
            i += 1 + (body[i + 1:i + 2] == "\ufe0f")
        elif ch == RED:
            out.append(None)
            i += 1
        elif ch == "[" and "]" in body[i:]:
            end = body.index("]", i)
            if not body[i + 1:end].isdigit():
                return None
            out.append(int(body[i + 1:end]))
            i = end + 1
        else:
            return None
    return out if out else None


def _is_digit_line(line: str) -> bool:
    return _digit_tokens(line) is not None


def read_grid(text: str, boards: int, length: int, max_turns: int, name: str | None = None) -> Grid:
    """The share text ``text`` read as a game of ``boards`` boards of ``length`` tiles and
    ``max_turns`` tries (``name``: the game or mode it must be, when its header names one),
    checked against the rules a grid alone must keep (see the module docstring)."""
    header = read_header(text)
    if header.name is not None and name is not None and not _same_header(header.name, name):
        raise TermoError(f"the share text is of {header.name}, not {name}", "share.other_game",
                         {"found": header.name, "game": name})
    blocks, digits = _blocks(_lines(text))
    per_board = _boards_of(blocks, boards, length)
    rows, solved = _turns(per_board, max_turns)
    _check_digits(digits, solved, boards, len(rows), max_turns)
    _check_header(header, solved, len(rows), max_turns)
    return Grid(header, rows, solved)


def _same_header(found: str, name: str) -> bool:
    from termo.games.registry import share_spec

    return share_spec(found)[0].lower() == share_spec(name)[0].lower()


def _blocks(lines) -> tuple[list, list]:
    """(blocks of grid lines, digit tokens): grid lines in runs apart by blank lines; lines of
    words (a header, a link, a score line) are passed over; a line that mixes squares and other
    text is refused."""
    blocks: list = []
    digits: list = []
    current: list = []
    for number, line in enumerate(lines, start=1):
        if _is_grid_line(line):
            current.append(line)
            continue
        if current:
            blocks.append(current)
            current = []
        if not line:
            continue
        tokens = _digit_tokens(line)
        if tokens is not None:
            if blocks:
                raise TermoError(f"line {number}: a line of digits after the grid", "share.digits_after_grid",
                                 {"line": number})
            digits += tokens
        elif any(ch in SQUARES for ch in line):
            raise TermoError(f"line {number} mixes squares and other text: {line[:60]!r}", "share.mixed_line",
                             {"line": number})
    if current:
        blocks.append(current)
    if not blocks:
        raise TermoError("the share text has no grid of squares", "share.no_grid")
    return blocks, digits


def _boards_of(blocks, boards: int, length: int) -> list:
    """Per board, its rows of patterns, from the blocks (each line: one or more boards of
    ``length`` squares side by side)."""
    out: list = []
    for block in blocks:
        widths = set()
        per_line = []
        for line in block:
            cells = [SQUARES[ch] for ch in _clean(line)]
            if len(cells) % length:
                raise TermoError(f"a grid row of {len(cells)} squares: rows here have {length} per board",
                                 "share.row_width", {"squares": len(cells), "length": length})
            widths.add(len(cells) // length)
            per_line.append(["".join(cells[i:i + length]) for i in range(0, len(cells), length)])
        if len(widths) != 1:
            raise TermoError("the rows of one block of the grid have different numbers of boards", "share.block_width")
        width = widths.pop()
        for b in range(width):
            out.append([line[b] for line in per_line])
    if len(out) != boards:
        raise TermoError(f"the grid shows {len(out)} board{'s' if len(out) != 1 else ''}; this game has {boards}",
                         "share.board_count", {"shown": len(out), "boards": boards})
    return out


def _turns(per_board, max_turns: int) -> tuple[tuple, tuple]:
    """(rows by turn, each board's win turn), checking each board's rows."""
    played = max(len(rows) for rows in per_board)
    if played > max_turns:
        raise TermoError(f"the grid has {played} rows; the game has {max_turns} tries", "share.too_many_rows",
                         {"rows": played, "tries": max_turns})
    solved = []
    for b, rows in enumerate(per_board):
        label = "" if len(per_board) == 1 else f"board {b + 1}, "
        won = None
        for t, pattern in enumerate(rows, start=1):
            if won is not None:
                if set(pattern) != {"B"}:
                    raise TermoError(f"{label}row {t}: a row after the board was solved on turn {won}",
                                     "share.row_after_win", {"row": t, "won": won, "board": b + 1})
                continue
            _check_pattern(pattern, f"{label}row {t}", t)
            if set(pattern) == {"G"}:
                won = t
        if won is None and len(rows) < played:
            raise TermoError(f"{label}the board has {len(rows)} rows and no win, the grid {played}", "share.short_board",
                             {"rows": len(rows), "played": played, "board": b + 1})
        solved.append(won)
    rows = tuple(tuple(None if solved[b] is not None and t > solved[b] else per_board[b][t - 1]
                       for b in range(len(per_board))) for t in range(1, played + 1))
    if all(s is not None for s in solved) and max(solved) < played:
        raise TermoError(f"the grid has {played} rows but every board was solved by turn {max(solved)}",
                         "share.rows_after_end", {"rows": played, "turn": max(solved)})
    return rows, tuple(solved)


def _check_pattern(pattern: str, where: str, row: int) -> None:
    """A pattern no guess can get, whatever the words: every tile green but one yellow (the
    yellow letter has no other place to be)."""
    if pattern.count("Y") == 1 and pattern.count("G") == len(pattern) - 1:
        raise TermoError(f"{where}: every tile green but one yellow is a pattern no answer can produce",
                         "share.impossible_row", {"row": row})


def _check_digits(digits, solved, boards: int, played: int, max_turns: int) -> None:
    if not digits:
        return
    if len(digits) != boards:
        raise TermoError(f"the share text gives {len(digits)} board result{'s' if len(digits) != 1 else ''} "
                         f"for {boards} board{'s' if boards != 1 else ''}", "share.digit_count",
                         {"n": len(digits), "boards": boards})
    for b, (said, won) in enumerate(zip(digits, solved), start=1):
        if said != won:
            shown = "not solved" if said is None else f"solved on turn {said}"
            grid = "not solved" if won is None else f"solved on turn {won}"
            raise TermoError(f"board {b}: the digits say {shown}, the grid shows it {grid}", "share.digits_mismatch",
                             {"board": b})
    if any(s is None for s in solved) and played < max_turns:
        raise TermoError(f"a board is marked not solved after {played} of {max_turns} tries", "share.unsolved_early",
                         {"played": played, "tries": max_turns})


def _check_header(header: Header, solved, played: int, max_turns: int) -> None:
    if header.turns is not None and header.turns != max_turns:
        raise TermoError(f"the header's score is out of {header.turns} tries; this game has {max_turns}",
                         "share.header_tries", {"shown": header.turns, "tries": max_turns})
    if header.scores is None:
        return
    if len(header.scores) == 1:
        finish = None if any(s is None for s in solved) else max(solved)
        said = header.scores[0]
        if said != finish or (said is None and played < max_turns):
            shown = "X" if said is None else said
            raise TermoError(f"the header's score {shown}/{header.turns} does not match the grid "
                             f"({'not solved' if finish is None else f'solved on turn {finish}'}, {played} rows)",
                             "share.header_score")
        return
    if tuple(header.scores) != tuple(solved):
        raise TermoError(f"the header's scores {'&'.join('X' if s is None else str(s) for s in header.scores)} "
                         f"do not match the grid's {'&'.join('X' if s is None else str(s) for s in solved)}",
                         "share.header_score")
