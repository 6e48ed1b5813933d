"""A mode: several boards of one game played together, with one shared turn limit.

term.ooo plays Termo on one board (6 tries), Dueto on 2 (7 tries) and Quarteto on 4 (9 tries);
Dordle, Quordle and Octordle are 2, 4 and 8 boards of English Wordle (7, 9 and 13 tries),
Binerdle and Quad Nerdle 2 and 4 boards of Nerdle (7 and 10 tries). Each board hides its own
answer (the answers are distinct); one guess is typed for every board at once, and each board
colours it against its own answer. A board is solved when it shows the win pattern; the game is
won when every board is solved within the shared limit.

A `Mode` holds the `Game` it plays (a value, never a plugin import: the registry or the caller
builds it), so any number of boards is one line: ``Mode(game, boards=16, max_turns=21)``.
`Mode.single(game)` is the one-board game itself, with the game's own turn limit.
The candidate state of a mode in progress is `termo.engine.multi.boards`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from termo.core.errors import TermoError

if TYPE_CHECKING:
    from termo.games.base import Game


@dataclass(frozen=True)
class Mode:
    """``boards`` boards of ``game`` (distinct answers) sharing ``max_turns`` guesses.

    ``key`` is the registry name (``dueto``); without one the mode is named after its game
    and board count (``termo-x2``). ``title`` is what a board shows (``Dueto``).
    """

    game: "Game"
    boards: int
    max_turns: int
    key: str = ""
    title: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.boards, bool) or not isinstance(self.boards, int) or self.boards < 1:
            raise TermoError(f"a mode needs at least one board, not {self.boards!r}")
        if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise TermoError(f"a mode needs at least one turn, not {self.max_turns!r}")
        if self.boards > self.game.n_answers:
            raise TermoError(f"{self.label}: {self.boards} boards need as many distinct answers; "
                             f"{self.game.label} has {self.game.n_answers}")

    def __repr__(self) -> str:  # the game's own repr holds its word lists
        return f"Mode({self.label!r}: {self.boards} boards of {self.game.label}, {self.max_turns} turns)"

    @classmethod
    def single(cls, game: "Game") -> "Mode":
        """The game itself as a mode: one board, the game's own turn limit, name and title."""
        return cls(game, 1, game.max_turns, key=game.label, title=game.shown)

    @property
    def label(self) -> str:
        """The mode's name: its registry key, else the game's name and the board count."""
        if self.key:
            return self.key
        return self.game.label if self.boards == 1 else f"{self.game.label}-x{self.boards}"

    @property
    def shown(self) -> str:
        """The name a player reads: the title, else the label."""
        return self.title or self.label

    def summary(self) -> dict:
        """Plain data for a listing (``termo games --json``): the mode's name and title, its base
        game, boards and shared turn limit, then the base game's sizes as the boards play them."""
        game = self.game
        return {
            "name": self.label,
            "title": self.shown,
            "game": game.label,
            "boards": self.boards,
            "turns": self.max_turns,
            "answers": game.n_answers,
            "probes": game.n_probes,
            "length": game.word_length,
            "language": game.language,
            "colours": game.colour_hint,
        }
