"""The skip mark of tests that need the solver engine (a checkout without termo.engine.solver or
termo.book.policies runs the rest)."""

from __future__ import annotations

import pytest


def engine_available() -> bool:
    try:
        import termo.book.policies  # noqa: F401
        import termo.engine.solver  # noqa: F401
    except ImportError:
        return False
    return True


needs_engine = pytest.mark.skipif(not engine_available(),
                                  reason="the solver engine (termo.engine.solver, termo.book.policies) is not installed")
