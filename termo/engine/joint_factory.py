"""The composition root of the multi-board solvers: `joint_solver(mode, level, objective)`.

Level 2 is `termo.engine.joint.JointSolver`; level 3 is `termo.engine.joint_search.JointSearch`.
"""

from __future__ import annotations

from termo.core.errors import TermoError
from termo.engine.joint import DEFAULT_OBJECTIVE, LEVELS, JointSolver
from termo.engine.joint_search import JointSearch


def joint_solver(mode, level: int = 2, objective=DEFAULT_OBJECTIVE, backend=None, **options):
    """The solver for ``mode`` at ``level`` (2 or 3) under ``objective``."""
    if isinstance(level, bool) or level not in LEVELS:
        raise TermoError(f"a mode is solved at level 2 or 3, not {level!r}", "level.mode",
                         {"level": str(level)[:20]})
    if level == 2:
        return JointSolver(mode, objective=objective, backend=backend, **options)
    return JointSearch(mode, objective=objective, backend=backend, **options)
