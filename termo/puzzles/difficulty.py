"""Nerdle difficulty (docs/puzzles.md): a percentile and a quintile for every Classic answer.

Order the answers from easiest to hardest by

1. the number of guesses on the stored decision tree's path to the answer (real rules),
2. the size of the answer's feedback group after the opener (the tree's first guess, ``54-38=16``
   with the shipped exact tree; a smaller group is easier),
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

The ordering itself (:class:`Scale`, :func:`opener_groups`, :func:`feedback_code`) lives in
:mod:`termo.puzzles.scale`, below both this module and the disk store
(:mod:`termo.puzzles.scale_store`); it is re-exported here.
"""

from __future__ import annotations

from functools import lru_cache

from termo.puzzles.scale import SOURCE_STAND_IN, Scale, feedback_code, opener_groups, tree_source

__all__ = ["MAX_PATH", "SOURCE_STAND_IN", "Scale", "TREE_PREFERENCE", "feedback_code", "load_or_build",
           "nerdle_scale", "opener_groups", "path_lengths", "scale_for", "stored_tree_lengths", "tree_source"]

TREE_PREFERENCE = ("exact", "practical", "level3")
MAX_PATH = 64


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
