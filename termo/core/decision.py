"""Plain-data results of a policy: the word to play, why, and the alternatives.

One `Decision` for one board and for several (a game is the mode of one board). Its fields that
only several boards have are per-board summaries of the guess: ``p_solve`` (the chance that it
solves one of the unsolved boards) on a `Choice`, and the ``level`` and ``objective`` the
several-board solvers chose by (`termo.engine.multi`); a one-board decision has ``candidates``
(the candidates left before the guess) and each choice ``is_candidate`` instead. `as_dict` writes
the JSON contract of each: the keys of one board (``candidates, word, bits, expected,
is_candidate, reason, alternatives``) or of several (``level, objective, word, bits, p_solve,
expected, reason, alternatives``), in that order.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Choice:
    """One probe with what the solver knows about it."""

    index: int  # probe index in the game's probe list
    word: str  # display (accented) form
    bits: float | None = None  # entropy of the probe over the current candidates (several boards: their sum)
    expected: float | None = None  # expected number of guesses (level 3; several boards: the objective)
    is_candidate: bool = False  # can this probe be the answer? (one board)
    p_solve: float | None = None  # several boards: the probability that it solves one of the unsolved boards

    @property
    def boards(self) -> bool:
        """Whether this is a choice of several boards (it carries ``p_solve``)."""
        return self.p_solve is not None

    def as_dict(self) -> dict:
        bits = None if self.bits is None else self.bits + 0.0  # -0.0 (one group) is 0
        if self.boards:
            return {"word": self.word, "bits": bits, "p_solve": self.p_solve, "expected": self.expected}
        return {"word": self.word, "bits": bits, "expected": self.expected, "is_candidate": self.is_candidate}


@dataclass(frozen=True)
class Decision:
    """The suggestion for one position, as plain data (see `as_dict` for the JSON contract)."""

    choice: Choice
    reason: str
    candidates: int | None = None  # one board: the candidates left before this guess
    alternatives: tuple[Choice, ...] = field(default_factory=tuple)
    level: int | None = None  # several boards: the level that chose it
    objective: str | None = None  # several boards: the objective it was chosen by

    @property
    def index(self) -> int:
        return self.choice.index

    @property
    def word(self) -> str:
        return self.choice.word

    def as_dict(self) -> dict:
        if self.objective is not None:
            out = {"level": self.level, "objective": self.objective}
        else:
            out = {"candidates": self.candidates}
        out.update(self.choice.as_dict())
        out["reason"] = self.reason
        out["alternatives"] = [alt.as_dict() for alt in self.alternatives]
        return out
