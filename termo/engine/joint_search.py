"""Level 3 and the exact solver for several boards: search over product states (docs/modes.md).

(A placeholder while the search is written: level 3 plays level 2's guess.)
"""

from __future__ import annotations

from termo.engine.joint import JointSolver


class JointSearch(JointSolver):
    """Level-3 decisions for one mode."""

    level = 3
