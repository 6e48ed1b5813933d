"""What a killed writer leaves behind: a temporary file nobody will rename. Every cache that writes
through a temporary file (the sealed caches, `termo.core.cache`; JAX's shape list,
`backends.jax_backend`) removes its own once they are stale, by the one rule here.

Importing this module imports nothing else.
"""

from __future__ import annotations

import os

STALE_TEMP_SECONDS = 3600.0  # a temporary file untouched this long was left by a killed writer (a live one's is fresh)


def remove_if_stale(path, now: float, older_than: float = STALE_TEMP_SECONDS) -> bool:
    """Remove ``path`` when it was last modified ``older_than`` seconds before ``now`` or earlier;
    whether it was removed (a file gone meanwhile or not removable: False)."""
    try:
        if now - os.stat(path).st_mtime < older_than:
            return False
        os.unlink(path)
        return True
    except OSError:
        return False
