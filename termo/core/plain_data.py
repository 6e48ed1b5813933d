"""Plain JSON-ready data out of library results (the ``--json`` contract and report files)."""

from __future__ import annotations

import math
from typing import Any


def jsonable(value: Any) -> Any:
    """Plain JSON data: non-finite floats become the strings ``inf``, ``-inf`` or ``nan``, tuples
    become lists, array scalars are unwrapped, dictionary keys become strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # array scalars
        return jsonable(value.item())
    return value
