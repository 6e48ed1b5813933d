"""The ``exact`` builder: the strategy of the exact solver (`termo.exact.solve`) as a tree.

The solver's result has ``.tree()`` returning nested plain data ``{"guess": probe_index,
"children": {pattern_code: node}}`` with the winning pattern omitted; this module turns it into
`termo.trees.model.Node` values, checking every index and code on the way. ``solve`` can be
passed in (the tests use a fake); by default it is ``termo.exact.solve``, and a missing one is
one clear line.
"""

from __future__ import annotations

from termo.core.errors import TermoError
from termo.trees.model import Node


def default_solve():
    try:
        from termo.exact import solve
    except ImportError:
        solve = None
    if solve is None:
        raise TermoError("--method exact needs the exact solver (termo.exact.solve), which this "
                         "installation does not have yet; use --method practical or level3")
    return solve


def node_from_plain(game, data, depth: int = 0) -> Node:
    """A `Node` from the solver's nested plain data (TermoError on a bad index or code)."""
    if depth > 64:
        raise TermoError("the exact solver's tree is deeper than 64 guesses")
    if not isinstance(data, dict) or "guess" not in data:
        raise TermoError("the exact solver's tree has a node without a guess")
    guess = data["guess"]
    if isinstance(guess, bool) or not isinstance(guess, int) or not 0 <= guess < game.n_probes:
        raise TermoError(f"the exact solver's tree has a bad guess index {guess!r}")
    node = Node(int(guess))
    for code, child in (data.get("children") or {}).items():
        code = int(code)
        if not 0 <= code < game.n_patterns or code == game.win_code:
            raise TermoError(f"the exact solver's tree has a bad pattern code {code!r}")
        node.children[code] = node_from_plain(game, child, depth + 1)
    return node


def build_exact(game, opener: int | None, t: float = 1.0, hard: bool = False, solve=None, **options):
    """``(root, info)``: the exact solver's tree and what it reported (value, proof, seconds)."""
    solve = solve or default_solve()
    result = solve(game, opener=opener, hard=hard, t=t, **options)
    root = node_from_plain(game, result.tree())
    if opener is not None and root.guess != int(opener):
        raise TermoError("the exact solver's tree does not start with the opener it was given")
    info = {}
    for name in ("mean", "total", "proved", "lower", "upper", "seconds"):
        value = getattr(result, name, None)
        if isinstance(value, (bool, int, float, str)):
            info[name] = value
    return root, info
