"""Where termo finds its shipped data and keeps its derived caches."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """Shipped data: ``$TERMO_DATA_DIR``, else the installed ``termo_data`` package (the repo's ``data/``)."""
    override = os.environ.get("TERMO_DATA_DIR")
    if override:
        return Path(override)
    import termo_data

    return Path(termo_data.__file__).resolve().parent


def cache_dir() -> Path:
    """Derived caches: ``$TERMO_CACHE_DIR``, else ``$XDG_CACHE_HOME/termo``, else ``~/.cache/termo``."""
    override = os.environ.get("TERMO_CACHE_DIR")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "termo"
