"""Which session and which solvers play a game, by its feedback model (`termo.core.feedback_model`).

A game declares its model (`termo.games.base.Game.feedback`); this module is the one place that
maps a model to what plays it, so neither the one-board solver nor the door names a game:

* ``honest``: `termo.engine.session.Session` (the door's own solvers: `termo.engine.factory`);
* ``adversary`` (Absurdle): `termo.engine.adversary.AdversarySession`, whose colours the adversary
  gives, and `termo.engine.adversary_search.AdversarySolver`;
* ``lies`` (Fibble): `termo.engine.lies.LieSession` and `termo.engine.lie_solver.LieSolver`.

Each family declares what it takes (its ``SUPPORTS``, a `termo.core.supports.Supports`).
"""

from __future__ import annotations

from termo.core.feedback_model import ADVERSARY_KIND, LIES_KIND


def session_for(game, matrix=None, hard: bool = False):
    """An empty game of ``game`` in the session its model plays."""
    kind = game.feedback.kind
    if kind == ADVERSARY_KIND:
        from termo.engine.adversary import AdversarySession as cls
    elif kind == LIES_KIND:
        from termo.engine.lies import LieSession as cls
    else:
        from termo.engine.session import Session as cls
    return cls(game, matrix=matrix, hard=hard)


def supports_for(game):
    """What the solvers of ``game``'s model take; None for the honest model (the door's own)."""
    kind = game.feedback.kind
    if kind == ADVERSARY_KIND:
        from termo.engine.adversary_search import SUPPORTS
    elif kind == LIES_KIND:
        from termo.engine.lie_solver import SUPPORTS
    else:
        return None
    return SUPPORTS


def solver_for(game, level: int, t: float = 1.0, hard: bool = False):
    """The solver of ``game``'s (not honest) model at ``level``."""
    kind = game.feedback.kind
    if kind == ADVERSARY_KIND:
        from termo.engine.adversary_search import AdversarySolver

        return AdversarySolver(game, level=level, hard=hard)
    if kind == LIES_KIND:
        from termo.engine.lie_solver import LieSolver

        return LieSolver(game, level=level, t=t)
    raise ValueError(f"{game.label}: the honest model's solvers are the door's (termo.engine.factory)")
