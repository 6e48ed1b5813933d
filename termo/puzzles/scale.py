"""The Nerdle difficulty scale itself (docs/puzzles.md): every answer ranked from easiest to
hardest by the guesses on a stored tree's path (when there is one), then the size of its
feedback group after the opener, then the text; percentiles and quintiles of that order.

:class:`Scale` is plain data built from the game and, optionally, a tree's path lengths; where
those come from (:mod:`termo.puzzles.difficulty`) and how a scale is kept on disk
(:mod:`termo.puzzles.scale_store`) both build on this module.
"""

from __future__ import annotations

from collections import Counter

SOURCE_STAND_IN = ("stand-in (no stored Nerdle tree yet): the opener's feedback-group size, "
                   "then the text")


def tree_source(tree) -> str:
    return (f"stored {tree.method} tree (opener {tree.opener}): guesses on the path, then the "
            f"opener's feedback-group size, then the text")


def feedback_code(game, probe: int, answer: int) -> int:
    """:func:`termo.engine.matrix.expected_code` (the plain rule: two-pass colours, or the win code under
    the game's win rule), asking the win rule only when it can hold: a win is the answer itself
    or a rearrangement of its symbols (the commutative moves only reorder tiles), so a guess with
    other symbols cannot win. Parsing both win keys for every cell would cost ~0.2 ms a cell."""
    from termo.core.feedback import colours, encode
    from termo.games.base import EXACT

    guess, secret = game.probes_norm[probe], game.answers_norm[answer]
    if probe == answer:
        return game.win_code
    if game.win_rule != EXACT and sorted(guess) == sorted(secret) and game.wins(probe, answer):
        return game.win_code
    return encode(colours(guess, secret))


def opener_groups(game, opener: str | None = None) -> dict[str, int]:
    """For every answer, the size of its feedback group after ``opener`` (the game's default):
    the number of answers still possible after the opener's colours (the win counts as a group)."""
    opener = opener or game.default_opener
    probe = game.index_of(opener)
    codes = [feedback_code(game, probe, a) for a in range(game.n_answers)]
    sizes = Counter(codes)
    return {eq: sizes[c] for eq, c in zip(game.answers, codes)}


class Scale:
    """The difficulty of every answer of a game: ``order`` (easiest first), ``groups`` (feedback-
    group size after ``opener`` per answer), ``lengths`` (guesses on the tree, or None with the
    stand-in) and ``source`` (what the scale is built from, in words)."""

    def __init__(self, game, opener: str, groups: dict[str, int], lengths: dict[str, int] | None,
                 source: str) -> None:
        self.game = game
        self.opener = opener
        self.groups = groups
        self.lengths = lengths
        self.source = source
        self.order = tuple(sorted(game.answers, key=self.sort_key))
        self.rank = {eq: r for r, eq in enumerate(self.order, start=1)}

    def sort_key(self, eq: str) -> tuple:
        if self.lengths is None:
            return self.groups[eq], eq
        return self.lengths[eq], self.groups[eq], eq

    @classmethod
    def build(cls, game, tree=None, lengths: dict[str, int] | None = None) -> "Scale":
        """The scale from ``tree`` (with its ``lengths``, :func:`path_lengths`), or the stand-in."""
        if tree is None:
            opener = game.default_opener
            return cls(game, opener, opener_groups(game, opener), None, SOURCE_STAND_IN)
        opener = game.probes[tree.root.guess]
        return cls(game, opener, opener_groups(game, opener), lengths, tree_source(tree))

    @property
    def size(self) -> int:
        return len(self.order)

    def percentile(self, equation: str) -> float:
        return 100.0 * self.rank[equation] / self.size

    def quintile(self, equation: str) -> int:
        return 1 + 5 * (self.rank[equation] - 1) // self.size

    def of(self, equation: str) -> dict | None:
        """Plain data for one equation, or None when it is not a modelled answer."""
        if equation not in self.rank:
            return None
        q = self.quintile(equation)
        return {
            "rank": self.rank[equation],
            "of": self.size,
            "percentile": round(self.percentile(equation), 4),
            "quintile": q,
            "quintile_label": f"{q}/5",
            "guesses_on_tree": None if self.lengths is None else self.lengths[equation],
            "opener": self.opener,
            "candidates_after_opener": self.groups[equation],
            "difficulty_source": self.source,
        }
