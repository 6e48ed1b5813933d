"""A game in progress as the one door sees it: one board or several, behind one protocol.

A game is the mode of one board (`termo.games.mode.Mode`). `position(mode, hard)` is the one place
that picks the state a mode plays on: `OneBoard` (a `termo.engine.session.Session`: hard mode,
stored trees, undo) or `Boards` (the `termo.engine.multi.boards.BoardsState` of each turn, kept
for undo). Both take a turn as ``guess`` and one pattern per board, replay a history, say whether
the game is won or over, and write the plain data of an answer (`answer`, `solved_data`), so
`termo.interface.suggest` and `termo.interface.play` are one code path for any number of boards.

History notation of several boards (docs/modes.md): one item per turn, ``guess:p1/p2/.../pB``, one
colour pattern per board in board order, in any colour notation of the game; a board solved on an
earlier turn takes ``-`` (``termo:-/GGYBB``).
"""

from __future__ import annotations

from typing import Sequence

from termo.core.errors import TermoError
from termo.core.messages import Message

SOLVED_SLOT = "-"


def as_mode(game_or_mode):
    """A `Mode` for a game (its one-board mode, `Mode.single`) or a mode (itself)."""
    from termo.games.mode import Mode

    return game_or_mode if isinstance(game_or_mode, Mode) else Mode.single(game_or_mode)


def position(mode, hard: bool = False, matrix=None):
    """The empty position of ``mode``: `OneBoard` for one board, `Boards` for several."""
    if mode.boards == 1:
        return OneBoard(mode, hard=hard, matrix=matrix)
    if hard:
        raise TermoError(f"--hard is for one board; {mode.label} has several (see docs/modes.md)")
    return Boards(mode, matrix=matrix)


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


def _now(name: str) -> property:
    """A property of the game so far (``now``), read through."""
    return property(lambda self: getattr(self.now, name), doc=f"``now.{name}``")


class _Position:
    """What one board and several share: the game so far is ``now`` (a `Session`, a `BoardsState`)."""

    won = _now("won")
    out_of_turns = _now("out_of_turns")
    over = _now("over")


class OneBoard(_Position):
    """One board: the `Session` of the game (its rounds, undo, hard mode)."""

    boards = 1

    def __init__(self, mode, hard: bool = False, matrix=None, session=None):
        from termo.engine.feedback_models import session_for

        self.mode = mode
        self.game = mode.game
        self.session = session if session is not None else session_for(mode.game, matrix=matrix, hard=hard)

    # -- the game so far
    @property
    def now(self):
        return self.session

    @property
    def played(self) -> int:
        return len(self.session.rounds)

    def replay(self, history: Sequence[str], on_warning=None) -> None:
        """Apply every history item ``guess:colours`` (TermoError at the first bad one)."""
        for outcome in self.session.replay(history):
            for warning in outcome.warnings:
                if on_warning is not None:
                    on_warning(warning)

    def undo(self) -> bool:
        return self.session.undo() is not None

    def reset(self) -> None:
        self.session.reset()

    # -- answers
    def over_error(self) -> TermoError:
        """The error of a suggestion asked after the last try."""
        tries, played = self.game.max_turns, self.played
        extra = f" ({played} rounds given)" if played > tries else ""
        return TermoError(f"the game is over: all {tries} tries were played{extra}, there is no "
                          f"try {played + 1} to suggest", "game.over", {"tries": tries, "next": played + 1})

    def solved_data(self, remaining: int | None = None) -> dict:
        """The answer once the game is won (``solved``, the turn, the answer)."""
        turn, tries = self.played, self.game.max_turns
        word = self.session.rounds[-1].guess
        data = {"solved": True, "turn": turn, "candidates": 1, "word": word, "bits": None, "expected": None,
                "is_candidate": True, "reason": Message(f"solved in {turn}/{tries}", "reason.solved", turn=turn,
                                                        tries=tries),
                "alternatives": []}
        if remaining is not None:
            data["remaining"] = [word]
        return self._coloured(data)

    def answer(self, decision, source: dict, remaining: int | None = None) -> dict:
        """The plain data of a suggestion: `Decision.as_dict`, where it came from, the candidates;
        for a game that colours the guesses itself (the adversary), ``rounds`` too: the history
        as ``guess:colours``, with its colours."""
        data = decision.as_dict()
        data.update(source)
        if remaining is not None:
            data["remaining"] = self.session.most_likely(max(int(remaining), 1))
        return self._coloured(data)

    def _coloured(self, data: dict) -> dict:
        if self.game.feedback.adversary:
            data["rounds"] = self.session.history()
        return data


class Boards(_Position):
    """Several boards: the `BoardsState` after each turn (the last one is the position)."""

    def __init__(self, mode, matrix=None):
        from termo.engine.multi.boards import BoardsState

        self.mode = mode
        self.game = mode.game
        self.boards = mode.boards
        self.states = [BoardsState.start(mode, matrix=matrix)]
        self.rows: list[tuple[str, tuple]] = []  # per turn: the guess and each board's pattern (None: solved)

    @property
    def state(self):
        return self.states[-1]

    now = state
    session = _now("session")  # the single-board session the boards' checks run on (a guess's word, its warnings)
    played = _now("turns")

    def play(self, word: str, patterns: Sequence) -> None:
        """Apply one turn (TermoError, nothing changed, when any part of it is wrong)."""
        self.states.append(self.state.apply(word, patterns))
        self.rows.append((word, tuple(patterns)))

    def replay(self, history: Sequence[str], on_warning=None) -> None:
        """Apply every history item ``guess:p1/.../pB`` (TermoError at the first bad one, naming
        its turn); ``on_warning(text)`` hears about a guess outside the word list."""
        for number, item in enumerate(history, start=1):
            guess, patterns = parse_turn(item, self.boards)
            try:
                if on_warning is not None and not self.over:
                    for warning in self.session.check_guess(guess).warnings:
                        on_warning(warning)
                self.play(guess, patterns)
            except TermoError as err:
                raise TermoError(f"turn {number} ({item}): {err}", err.code, err.params) from None

    def undo(self) -> bool:
        if not self.rows:
            return False
        self.rows.pop()
        self.states.pop()
        return True

    def reset(self) -> None:
        del self.states[1:]
        self.rows.clear()

    # -- answers
    def view(self, sample: int = 10) -> list[dict]:
        """Per board: ``board`` (1-based), ``solved``, ``solved_on``, ``candidates`` (count) and the
        first ``sample`` candidates (display forms, most probable first)."""
        from termo.engine.level2 import by_icf

        state, game = self.state, self.game
        out = []
        for b, cands in enumerate(state.candidate_lists()):
            shown = [game.answers[i] for i in by_icf(cands, game.icf)[:sample]]
            out.append({"board": b + 1, "solved": state.solved_on[b] is not None, "solved_on": state.solved_on[b],
                        "candidates": len(cands), "sample": shown})
        return out

    def head(self) -> dict:
        return {"mode": self.mode.label, "turn": self.played + 1, "turns": self.mode.max_turns}

    def over_error(self) -> TermoError:
        tries = self.mode.max_turns
        return TermoError(f"the game is over: all {tries} tries were played", "game.over",
                          {"tries": tries, "next": self.played + 1})

    def solved_data(self, remaining: int | None = None) -> dict:
        n, turn, tries = self.boards, self.played, self.mode.max_turns
        reason = Message(f"all {n} boards solved in {turn}/{tries}", "reason.boards_won", n=n, turn=turn, tries=tries)
        return {**self.head(), "solved": True, "word": None, "expected": None, "reason": reason, "alternatives": [],
                "boards": self.view()}

    def answer(self, decision, source: dict, remaining: int | None = None) -> dict:
        return {**self.head(), **decision.as_dict(), "boards": self.view()}

    def boards_data(self) -> dict:
        """The boards a history leaves, without a suggestion (the board's last try, a game over)."""
        return {**self.head(), "won": bool(self.won), "over": bool(self.over), "boards": self.view()}
