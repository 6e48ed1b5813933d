"""Checksummed JSON entries: one file per key, written atomically, checked when read.

An entry is a JSON value stored under a string key. On disk it is a *record*: the sealed object
``{"format", "key", "value", "sha256"}`` (see :func:`termo.core.cache.seal`), so an edit of any value,
a file moved to another key's name or one from another format is detected. An
:class:`EntryStore` keeps one record per file in a folder, the file named by a hash of its key:
writers of different keys never touch the same file, and two writers of the same key each
replace it whole (atomic rename), so concurrent processes lose nothing and never leave a torn
file. A *bundle* is one read-only file holding several records (shipped data).

Reading takes a ``validate`` callable (value -> a problem string, or None when the value is
sound): a record that fails its checksum or its validation is reported on stderr (one line),
dropped (a store's file is deleted) and read as missing, so the caller recomputes it.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any, Callable

from termo.core.cache import atomic_write_json, read_json, open_sealed, seal, warn

RECORD_FORMAT = "termo-entry/1"
BUNDLE_FORMAT = "termo-entries/1"

Validator = Callable[[Any], "str | None"]


def number_in(value: Any, low: float, high: float) -> bool:
    """True when ``value`` is a finite JSON number (not a boolean) in ``[low, high]`` (for validators)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and low <= value <= high)


def file_name(key: str) -> str:
    """The file name of ``key``'s record in a store."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32] + ".json"


def make_record(key: str, value: Any) -> dict:
    return seal({"format": RECORD_FORMAT, "key": key, "value": value})


def open_record(record: Any, key: str, validate: Validator | None = None) -> tuple[Any, str | None]:
    """``(value, None)`` for a sound record of ``key``; ``(None, problem)`` otherwise."""
    payload, problem = open_sealed(record, RECORD_FORMAT, key)
    if problem:
        return None, problem
    if "value" not in payload:
        return None, "no value"
    value = payload["value"]
    problem = validate(value) if validate is not None else None
    if problem:
        return None, f"invalid value: {problem}"
    return value, None


class EntryStore:
    """A folder of records, one file per key (``what`` names the cache in messages)."""

    def __init__(self, directory: Path | str, what: str = "cache"):
        self.directory = Path(directory)
        self.what = what

    def path(self, key: str) -> Path:
        return self.directory / file_name(key)

    def get(self, key: str, validate: Validator | None = None) -> Any | None:
        """The value stored under ``key``, or None when missing or rejected (reported, dropped)."""
        path = self.path(key)
        if not path.exists():
            return None
        value, problem = open_record(read_json(path), key, validate)
        if problem is None:
            return value
        warn(f"{self.what}: ignoring {path} ({problem}); it will be recomputed")
        try:
            path.unlink()
        except OSError:
            pass
        return None

    def put(self, key: str, value: Any) -> bool:
        """Write ``value`` under ``key`` (atomically); False if the folder cannot be written."""
        try:
            atomic_write_json(self.path(key), make_record(key, value))
            return True
        except (OSError, ValueError):
            return False


def bundle_get(path: Path | str, key: str, validate: Validator | None = None, what: str = "cache") -> Any | None:
    """The value of ``key`` in the bundle file ``path``, or None when absent or rejected (reported)."""
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != BUNDLE_FORMAT or not isinstance(data.get("entries"), list):
        if Path(path).exists():
            warn(f"{what}: ignoring {path} (unreadable or not a {BUNDLE_FORMAT} file)")
        return None
    for record in data["entries"]:
        payload = record if isinstance(record, dict) else {}
        if payload.get("key") != key:
            continue
        value, problem = open_record(record, key, validate)
        if problem is None:
            return value
        warn(f"{what}: ignoring the entry in {path} ({problem}); it will be recomputed")
        return None
    return None


def write_bundle(path: Path | str, entries: dict) -> None:
    """Write ``{key: value}`` as a bundle file (atomically)."""
    atomic_write_json(path, {"format": BUNDLE_FORMAT,
                             "entries": [make_record(k, v) for k, v in entries.items()]})
