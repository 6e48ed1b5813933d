"""Checkpoints of a long sweep: one small JSON file per finished chunk of openers.

A chunk's file is named by its *key*, a hash of everything its values depend on (world, column
prior, rounds, loss, method version and the openers themselves), so a stale file can never be
mistaken for a fresh one: a changed input gives another key. Files are written atomically
(temporary file + rename) and checked when read (key, openers and number of values must match);
a damaged file is ignored and its chunk recomputed. Floats are stored as JSON numbers (``repr``,
exact round trip), so a resumed run gives a bit-identical result.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from termo.cache import atomic_write_json, read_json

FORMAT = "termo-robustness-chunk/1"


def digest(obj) -> str:
    """Stable short hash of JSON-able data (keys sorted, floats by repr)."""
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, default=_fallback)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def _fallback(value):
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return str(value)


def _encode(values):
    return [v if math.isfinite(v) else ("inf" if v > 0 else "nan") for v in values]


def _decode(values):
    return [float(v) for v in values]


class CheckpointStore:
    """Chunk results under ``directory`` (None: a store that remembers nothing). With
    ``reuse=False`` stored chunks are ignored (a fresh run) but new ones are still written."""

    def __init__(self, directory: Path | str | None, reuse: bool = True):
        self.directory = Path(directory) if directory is not None else None
        self.reuse = reuse

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str, openers: list[int]) -> list[float] | None:
        """The stored values of chunk ``key`` if present and consistent, else None."""
        if self.directory is None or not self.reuse:
            return None
        data = read_json(self._path(key))
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
            return None
        if data.get("openers") != list(openers):
            return None
        values = data.get("values")
        if not isinstance(values, list) or len(values) != len(openers):
            return None
        try:
            return _decode(values)
        except (TypeError, ValueError):
            return None

    def put(self, key: str, openers: list[int], values: list[float], meta: dict | None = None) -> None:
        if self.directory is None:
            return
        payload = {"format": FORMAT, "key": key, "openers": list(openers), "values": _encode(values)}
        if meta:
            payload["meta"] = meta
        atomic_write_json(self._path(key), payload)

    def count(self) -> int:
        if self.directory is None or not self.directory.is_dir():
            return 0
        return sum(1 for _ in self.directory.glob("*.json"))
