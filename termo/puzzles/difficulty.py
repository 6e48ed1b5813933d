"""Nerdle difficulty (games-spec §1.6): a percentile and a quintile for every Classic answer.

Order the answers from easiest to hardest by

1. the number of guesses on the stored decision tree's path to the answer (real rules),
2. the size of the answer's feedback group after the opener (``48-32=16``; a smaller group is
   easier),
3. the equation text (the final, deterministic tie-break).

The answer at 1-based position ``r`` of ``N`` has percentile ``100 * r / N`` (the hardest is 100)
and quintile ``1 + 5 * (r - 1) // N``: five equal groups (sizes differ by one at most), 5/5 the
hardest 20 %, 1/5 the easiest.

Where the path length comes from: :func:`path_lengths` is the one place that knows. It asks
``termo.trees.path_lengths(game)`` (``{equation: guesses}``, or None when no tree is stored) and
uses it when it covers every answer. Until a stored Nerdle Classic tree exists, the documented
stand-in is used: **no path-length key at all**, so the order is the opener's feedback-group size,
then the text. Every result says which one is in use (``difficulty_source``).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

SOURCE_TREE = "stored tree: guesses on the path, then the opener's feedback-group size, then the text"
SOURCE_STAND_IN = ("stand-in (no stored Nerdle tree yet): the opener's feedback-group size, "
                   "then the text")


def path_lengths(game) -> dict[str, int] | None:
    """Guesses to each answer on the stored tree, or None (the stand-in is then used)."""
    try:
        import termo.trees as trees
    except ImportError:  # pragma: no cover - the package ships with termo
        return None
    provider = getattr(trees, "path_lengths", None)
    if provider is None:
        return None
    try:
        lengths = provider(game)
    except Exception:  # noqa: BLE001 - a missing or damaged tree means "no tree": use the stand-in
        return None
    if not lengths or any(a not in lengths for a in game.answers):
        return None
    return {a: int(lengths[a]) for a in game.answers}


def opener_groups(game, opener: str | None = None) -> dict[str, int]:
    """For every answer, the size of its feedback group after ``opener`` (the game's default):
    the number of answers still possible after the opener's colours (the win counts as a group)."""
    from termo.matrix import expected_code

    opener = opener or game.default_opener
    probe = game.index_of(opener)
    codes = [expected_code(game, probe, a) for a in range(game.n_answers)]
    sizes = Counter(codes)
    return {eq: sizes[c] for eq, c in zip(game.answers, codes)}


class Scale:
    """The difficulty of every answer of a game (built once per process per game)."""

    def __init__(self, game, lengths: dict[str, int] | None = None) -> None:
        self.game = game
        self.opener = game.default_opener
        self.groups = opener_groups(game)
        self.lengths = lengths
        self.source = SOURCE_TREE if lengths is not None else SOURCE_STAND_IN
        if lengths is not None:
            order = sorted(game.answers, key=lambda eq: (lengths[eq], self.groups[eq], eq))
        else:
            order = sorted(game.answers, key=lambda eq: (self.groups[eq], eq))
        self.order = tuple(order)
        self.rank = {eq: r for r, eq in enumerate(order, start=1)}

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


@lru_cache(maxsize=4)
def scale_for(game) -> Scale:
    """The difficulty scale of ``game`` (memoised; the tree is looked for once per process)."""
    return Scale(game, path_lengths(game))


def nerdle_scale() -> Scale:
    from termo.puzzles.archive import nerdle_game

    return scale_for(nerdle_game())
