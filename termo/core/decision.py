"""Plain-data results of a policy: the word to play, why, and the alternatives.

`Choice` and `Decision` are one board's; `JointChoice` and `JointDecision` their counterparts for
several boards at once (`termo.engine.joint`), with the chance to solve a board in place of
``is_candidate``."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Choice:
    """One probe with what the solver knows about it."""

    index: int  # probe index in the game's probe list
    word: str  # display (accented) form
    bits: float | None = None  # entropy of the probe over the current candidates
    expected: float | None = None  # expected number of guesses (level 3)
    is_candidate: bool = False  # can this probe be the answer?

    def as_dict(self) -> dict:
        return {
            "word": self.word,
            "bits": None if self.bits is None else self.bits + 0.0,  # -0.0 (one group) is 0
            "expected": self.expected,
            "is_candidate": self.is_candidate,
        }


@dataclass(frozen=True)
class Decision:
    """The suggestion for one position, as plain data (see `as_dict` for the JSON contract)."""

    choice: Choice
    reason: str
    candidates: int  # number of candidates left before this guess
    alternatives: tuple[Choice, ...] = field(default_factory=tuple)

    @property
    def index(self) -> int:
        return self.choice.index

    @property
    def word(self) -> str:
        return self.choice.word

    def as_dict(self) -> dict:
        out = {"candidates": self.candidates}
        out.update(self.choice.as_dict())
        out["reason"] = self.reason
        out["alternatives"] = [alt.as_dict() for alt in self.alternatives]
        return out


@dataclass(frozen=True)
class JointChoice:
    """One guess for every board: its probe, joint entropy, chance to solve a board, value."""

    index: int
    word: str
    bits: float
    p_solve: float  # the probability that it solves one of the unsolved boards (independent boards)
    expected: float | None = None  # level 3: the expected objective after playing it (see Objective.base)

    def as_dict(self) -> dict:
        return {"word": self.word, "bits": self.bits + 0.0, "p_solve": self.p_solve, "expected": self.expected}


@dataclass(frozen=True)
class JointDecision:
    """The suggestion for a mode in progress (see `as_dict` for the JSON contract)."""

    choice: JointChoice
    reason: str
    level: int
    objective: str
    alternatives: tuple[JointChoice, ...] = field(default_factory=tuple)

    @property
    def index(self) -> int:
        return self.choice.index

    @property
    def word(self) -> str:
        return self.choice.word

    def as_dict(self) -> dict:
        out = {"level": self.level, "objective": self.objective}
        out.update(self.choice.as_dict())
        out["reason"] = self.reason
        out["alternatives"] = [alt.as_dict() for alt in self.alternatives]
        return out
