"""The one key of a candidate set, for memo and dedupe dictionaries.

A candidate set is an ascending array (or sequence) of answer indices; its key is the bytes of
those indices as contiguous int64, so equal sets give equal keys whatever array type or dtype
held them.
"""

from __future__ import annotations

import numpy as np


def candidate_key(members) -> bytes:
    """The one key of a candidate set (the int64 contiguous bytes of its ascending member indices)."""
    return np.ascontiguousarray(np.asarray(members, dtype=np.int64)).tobytes()
