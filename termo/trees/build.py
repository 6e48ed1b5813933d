"""One entry point for the three builders: ``build_tree(game, method, ...) -> Tree``.

``exact``: the exact solver's strategy (`termo.trees.exact_adapter`); ``level3``: the level-3
policy played out (`termo.trees.playout`); ``practical``: the practical builder of docs/trees.md
(`termo.trees.practical`). The tree's key records the game, lists, rules, prior and hard mode
(`termo.trees.model.tree_key`); ``level`` (3) and, for ``level3``, beam and depth record the
live configuration the tree stands in for. Every built tree is replayed once and the result
noted in ``info["eval"]`` (see `note_value`).
"""

from __future__ import annotations

import time

from termo.core.errors import TermoError
from termo.trees.model import METHODS, Tree, opener_index, tree_key


def check_method(method: str) -> str:
    if method not in METHODS:
        raise TermoError(f"--method must be one of {', '.join(METHODS)}, not {method!r}")
    return method


def build_tree(game, method: str, opener: str | None = None, *, t: float = 1.0, hard: bool = False,
               beam: int = 10, depth: int = 1, backend=None, progress=None, solve=None,
               time_limit: float | None = None, practical: dict | None = None) -> Tree:
    """Build a complete tree of ``game`` by ``method`` (see the module docstring);
    ``progress(done, total)`` counts the answers whose branch is finished; ``time_limit``: the
    exact solver's budget in seconds (its default otherwise); ``practical``: the practical
    builder's options (``samples``, ``remaining``; its defaults otherwise)."""
    check_method(method)
    started = time.perf_counter()
    info: dict = {}
    prior = None  # the build's one Prior, where a builder makes it: the evaluation reads it too
    if method == "level3":
        from termo.engine.solver import Solver
        from termo.trees.playout import build_level3, level3_opener

        solver = Solver(game, level=3, t=t, beam=beam, depth=depth, backend=backend)
        prior = solver.answer_prior
        first = level3_opener(game, solver, opener)
        root = build_level3(game, solver, first, hard=hard, progress=progress)
        tree_beam, tree_depth = int(beam), int(depth)
    elif method == "practical":
        from termo.core.prior import Prior
        from termo.trees.playout import allowed_after
        from termo.trees.practical import PracticalBuilder, check_opener

        prior = Prior.from_icf(game.icf, t)
        builder = PracticalBuilder(game, t=t, hard=hard, progress=progress, prior=prior, **(practical or {}))
        rounds_of = (lambda rounds: allowed_after(game, rounds)) if hard else None
        root = builder.build(check_opener(game, opener), rounds_of=rounds_of)
        info = {"shortlist": builder.shortlist, "samples": builder.samples, "sample_limit": builder.sample_limit,
                "remaining": builder.remaining, "greedy_states": len(builder.values)}
        tree_beam, tree_depth = 10, 1  # it stands in for the default level-3 configuration
    else:
        from termo.trees.exact_adapter import build_exact

        first = None if opener is None else opener_index(game, opener)
        extra = {} if time_limit is None else {"time_limit": float(time_limit)}
        root, info = build_exact(game, first, t=t, hard=hard, solve=solve, **extra)
        tree_beam, tree_depth = 10, 1
    tree = Tree(game=game.label, key=tree_key(game, t, hard), method=method, opener=game.probes[root.guess],
                root=root, t=float(t), hard=bool(hard), level=3, beam=tree_beam, depth=tree_depth, info=info)
    tree.seconds = time.perf_counter() - started
    note_value(tree, game, prior)
    return tree


def note_value(tree, game, prior=None) -> dict:
    """Replay ``tree`` (`termo.trees.evaluate`) and note the result in ``tree.info["eval"]``:
    what `termo.trees.store` ranks serving trees by (``termo tree eval`` recomputes it, never
    reads it)."""
    from termo.trees.evaluate import evaluate

    data = evaluate(tree, game, prior)
    tree.info["eval"] = {k: data[k] for k in ("mean", "total", "worst", "losses", "missing")}
    return data
