"""What the colours of a row are: a game's feedback model (docs/rules.md §13), declared by its plugin.

Most games answer every guess honestly against one secret answer (`HONEST`). Two do not:

* ``adversary`` (Absurdle): there is no secret; after each guess the game keeps the largest group
  of the answers still possible (the answers that would give the guess the same colours), ties
  broken by a fixed rule (`ADVERSARY_TIE_BREAK`), and shows that group's colours;
* ``lies`` (Fibble): one secret, but each row of colours of a wrong guess has exactly ``lies``
  tiles whose colour is replaced by another (one lie a row: any tile, either other colour).

A game carries its model as a plain value (`termo.games.base.Game.feedback`); the engine reads the
model's ``kind`` to pick the family of solvers and the session that plays it, and never names a game.
"""

from __future__ import annotations

from dataclasses import dataclass

HONEST_KIND = "honest"
ADVERSARY_KIND = "adversary"
LIES_KIND = "lies"
KINDS = (HONEST_KIND, ADVERSARY_KIND, LIES_KIND)
# Absurdle's tie-break between groups of the same size: fewer greens, then fewer yellows, then the
# colours read tile by tile from the left, absent < present < right place (docs/rules.md §13.1)
ADVERSARY_TIE_BREAK = "fewer-greens-yellows-then-leftmost"


@dataclass(frozen=True)
class FeedbackModel:
    """One game's feedback model: its ``kind`` (`KINDS`), the lies a row tells (``lies``) and
    the adversary's tie-break (``tie_break``)."""

    kind: str = HONEST_KIND
    lies: int = 0
    tie_break: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown feedback model {self.kind!r}; choose one of: {', '.join(KINDS)}")
        if (self.kind == LIES_KIND) != (self.lies > 0):
            raise ValueError("a model of lies tells at least one a row, and only it lies")

    @property
    def honest(self) -> bool:
        return self.kind == HONEST_KIND

    @property
    def adversary(self) -> bool:
        """Whether the game colours each guess itself (the player types only the guess)."""
        return self.kind == ADVERSARY_KIND

    def describe(self) -> str:
        """One phrase for listings and help."""
        if self.kind == ADVERSARY_KIND:
            return "adversarial: the game keeps the largest group of answers and colours the guess itself"
        if self.kind == LIES_KIND:
            return f"{self.lies} lie{'s' if self.lies > 1 else ''} in every row of colours"
        return "honest"

    def summary(self) -> dict:
        """Plain data (``termo games --json`` of a game whose model is not the honest one)."""
        out = {"kind": self.kind, "description": self.describe()}
        if self.kind == LIES_KIND:
            out["lies"] = self.lies
        if self.kind == ADVERSARY_KIND:
            out["tie_break"] = self.tie_break
        return out


HONEST = FeedbackModel()
ADVERSARY = FeedbackModel(ADVERSARY_KIND, tie_break=ADVERSARY_TIE_BREAK)
ONE_LIE = FeedbackModel(LIES_KIND, lies=1)
