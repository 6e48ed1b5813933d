"""A strategy tree in memory: nodes (a guess and its children by feedback code) and the header
that says which game and configuration the tree was built for.

A node's ``guess`` is a probe index of the game; ``children`` maps a feedback code (the pattern
matrix's code, the game's win rule included) to the node played next. The win code never has a
child: that branch ends with the answer. A complete tree has one child for every other code some
answer reaching the node gives (checked by :mod:`termo.trees.evaluate`, not assumed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

FORMAT = "termo-tree/1"
METHODS = ("exact", "level3", "practical")


@dataclass
class Node:
    guess: int
    children: dict = field(default_factory=dict)  # feedback code -> Node

    def walk(self, path=()):
        """``(path, node)`` for this node and every node below it, in preorder, children in
        ascending code order (the file order)."""
        stack = [(tuple(path), self)]
        while stack:
            p, node = stack.pop()
            yield p, node
            for code in sorted(node.children, reverse=True):
                stack.append((p + (code,), node.children[code]))

    def count(self) -> int:
        return sum(1 for _ in self.walk())

    def depth(self) -> int:
        """Guesses on the longest branch (a lone node: 1)."""
        return max(len(p) for p, _ in self.walk()) + 1


def opener_index(game, opener: str) -> int:
    """The probe index of the word ``opener`` (as ``--opener`` gives it); TermoError if it is not a
    guess of ``game``."""
    from termo.core.errors import TermoError

    index = game.index_of(opener)
    if index is None:
        raise TermoError(f"--opener {opener!r} is not a guess of {game.label}")
    return index


def tree_key(game, t: float = 1.0, hard: bool = False) -> str:
    """What a tree's moves depend on besides its method: the game (its registry name, the
    matrix signature over its lists and win rule, its turn limit), the prior (T, or ``uniform``
    for a game whose prior does not depend on T) and hard mode."""
    from termo.core.prior import t_key
    from termo.engine.matrix import matrix_signature

    prior = "uniform" if game.uniform_prior else t_key(t)
    return (f"game={game.label};M={matrix_signature(game)};R={game.max_turns};T={prior};"
            f"hard={int(bool(hard))}")


@dataclass
class Tree:
    """A complete strategy and what it was built for.

    ``level``/``beam``/``depth`` name the live configuration the tree stands in for (``termo
    suggest``/``play`` walk it only under that configuration); ``t`` and ``hard`` are part of
    ``key`` (see :func:`tree_key`). ``info`` is free plain data from the builder (kept, never
    trusted by the evaluator)."""

    game: str
    key: str
    method: str
    opener: str
    root: Node
    t: float = 1.0
    hard: bool = False
    level: int = 3
    beam: int | None = 10
    depth: int | None = 1
    info: dict = field(default_factory=dict)
    seconds: float | None = None  # how long the build took (not written to the file)

    @property
    def nodes(self) -> int:
        return self.root.count()

    def serves(self, game, level: int, t: float, hard: bool, beam: int | None = None,
               depth: int | None = None) -> bool:
        """May a live configuration follow this tree? Same key (game, lists, rules, prior,
        hard mode), same level, beam and depth (a practical or exact tree stands in for the
        default level-3 configuration, beam 10 and depth 1; a level-3 playout for its own)."""
        if self.key != tree_key(game, t, hard) or int(level) != self.level:
            return False
        return beam == self.beam and depth == self.depth
