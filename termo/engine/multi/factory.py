"""The composition root of the multi-board solvers: `multi_solver(mode, level, objective)`.

Level 2 is `termo.engine.multi.level2.MultiSolver`; level 3 is `termo.engine.multi.level3.MultiSearch`.
"""

from __future__ import annotations

from termo.core.errors import TermoError
from termo.core.supports import Supports
from termo.engine.multi.level2 import DEFAULT_OBJECTIVE, LEVELS, OBJECTIVES, MultiSolver
from termo.engine.multi.level3 import MultiSearch

# what the several-board solvers take (`termo.interface` refuses the rest with one line)
SUPPORTS = Supports(levels=LEVELS, objectives=OBJECTIVES, exact=True)


def multi_solver(mode, level: int = 2, objective=DEFAULT_OBJECTIVE, backend=None, **options):
    """The solver for ``mode`` at ``level`` (2 or 3) under ``objective``."""
    if isinstance(level, bool) or level not in LEVELS:
        raise TermoError(f"a mode is solved at level 2 or 3, not {level!r}", "level.mode",
                         {"level": str(level)[:20]})
    if level == 2:
        return MultiSolver(mode, objective=objective, backend=backend, **options)
    return MultiSearch(mode, objective=objective, backend=backend, **options)
