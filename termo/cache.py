"""Atomic writes and defensive reads for derived data (caches are rebuilt, never trusted blindly)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_json(path: Path | str, obj: Any) -> None:
    """Write ``obj`` as UTF-8 JSON atomically."""
    text = json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=False, allow_nan=True)
    atomic_write_bytes(path, (text + "\n").encode("utf-8"))


def read_json(path: Path | str) -> Any | None:
    """The JSON in ``path``, or None when it is missing, unreadable or corrupt."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
