"""Plain-data results of a policy: the word to play, why, and the alternatives."""

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
