"""Nerdle difficulty (docs/puzzles.md): a percentile and a quintile for every Classic answer.

Order the answers from easiest to hardest by

1. the number of guesses on the stored decision tree's path to the answer (real rules),
2. the size of the answer's feedback group after the opener (``48-32=16``; a smaller group is
   easier),
3. the equation text (the final, deterministic tie-break).

The answer at 1-based position ``r`` of ``N`` has percentile ``100 * r / N`` (the hardest is 100)
and quintile ``1 + 5 * (r - 1) // N``: five equal groups (sizes differ by one at most), 5/5 the
hardest 20 %, 1/5 the easiest.

Where the path length comes from: :func:`stored_tree_lengths` is the one place that knows. It
takes the stored trees of the game (``termo.trees.store.candidates``: shipped in ``data/trees/``,
then built ones in the cache; damaged files are skipped there), keeps the normal-mode ones, prefers
exact, then practical, then level-3 trees, and walks the tree for every answer with the plain
feedback rule (:func:`feedback_code`, equal to :func:`termo.engine.matrix.expected_code`; no pattern
matrix needed). A tree that does not
reach every answer's win is not used. With a tree, the opener is the tree's first guess. Until a
stored Nerdle Classic tree exists, the documented stand-in is used: **no path-length key at all**,
so the order is the opener's feedback-group size, then the text. Every result says which one is
in use (``difficulty_source``).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

SOURCE_STAND_IN = ("stand-in (no stored Nerdle tree yet): the opener's feedback-group size, "
                   "then the text")
TREE_PREFERENCE = ("exact", "practical", "level3")
MAX_PATH = 64


def tree_source(tree) -> str:
    return (f"stored {tree.method} tree (opener {tree.opener}): guesses on the path, then the "
            f"opener's feedback-group size, then the text")


def path_lengths(game, tree) -> dict[str, int] | None:
    """Guesses ``tree`` takes to win against every answer of ``game`` (the win counts), or None
    when some answer is not reached (a missing branch, or more than :data:`MAX_PATH` guesses)."""
    win = game.win_code
    lengths: dict[str, int] = {}
    for a, eq in enumerate(game.answers):
        node, guesses = tree.root, 0
        while node is not None and guesses < MAX_PATH:
            guesses += 1
            code = feedback_code(game, node.guess, a)
            if code == win:
                lengths[eq] = guesses
                break
            node = node.children.get(code)
        else:
            return None
    return lengths


def stored_tree_lengths(game) -> tuple[object, dict[str, int]] | None:
    """``(tree, lengths)`` for the preferred complete stored tree of ``game``, or None."""
    try:
        from termo.trees.store import candidates

        trees = [t for t in candidates(game) if not t.hard]
    except Exception:  # noqa: BLE001 - no readable tree means "no tree": the stand-in is used
        return None
    trees.sort(key=lambda t: TREE_PREFERENCE.index(t.method) if t.method in TREE_PREFERENCE else 99)
    for tree in trees:
        lengths = path_lengths(game, tree)
        if lengths is not None:
            return tree, lengths
    return None


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


@lru_cache(maxsize=4)
def scale_for(game) -> Scale:
    """The difficulty scale of ``game``, memoised per process (:func:`load_or_build`)."""
    return load_or_build(game)


def load_or_build(game) -> Scale:
    """The difficulty scale of ``game`` from disk (keyed by the answers, the opener and the bytes
    of every stored tree file, :mod:`termo.puzzles.scale_store`), else built and stored, so that
    a command does not parse and walk the tree each time."""
    from termo.puzzles import scale_store

    key = scale_store.signature(game)
    scale = scale_store.load(game, key)
    if scale is None:
        found = stored_tree_lengths(game)
        scale = Scale.build(game, *found) if found else Scale.build(game)
        scale_store.save(scale, key)
    return scale


def nerdle_scale() -> Scale:
    from termo.puzzles.archive import nerdle_game

    return scale_for(nerdle_game())
