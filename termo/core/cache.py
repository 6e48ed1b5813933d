"""Atomic writes, defensive reads and checksummed payloads for derived data (caches are rebuilt,
never trusted blindly).

A *sealed* payload is a JSON object with one more field, ``sha256``: the hash of the payload's
canonical JSON (keys sorted, no spaces, floats by ``repr``). Reading it back and re-hashing detects
any edit of a value that still parses; a file that does not parse is simply unreadable.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Callable

from backends.stale import STALE_TEMP_SECONDS, remove_if_stale


def sweep_stale_temps(path: Path | str, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Remove the temporary files of earlier writes of ``path`` that a killed writer left behind
    (``.NAME.*.tmp`` beside it, not modified for ``older_than`` seconds; a live writer's file is
    fresh). Returns how many were removed."""
    import time

    path = Path(path)
    now = time.time()
    return sum(remove_if_stale(tmp, now, older_than) for tmp in path.parent.glob(f".{path.name}.*.tmp"))


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (``/proc``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: read it by setting it, and put it back at once
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Path | str, data: bytes | Callable[[BinaryIO], None], mode: int = 0o666) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it, then rename it into place
    (and sweep up the temporary files of killed earlier writes of the same file). ``data`` may
    also be a function that writes the content to the open file itself (a large file written
    piece by piece, never whole in memory); the file is renamed into place when it returns.

    The file gets ``mode`` less the umask, as `open` gives an ordinary file (typically 0644):
    the temporary file's private 0600 is not kept."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            if callable(data):
                data(handle)
            else:
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
    sweep_stale_temps(path)


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


SEAL_FIELD = "sha256"


def canonical_json(obj: Any) -> str:
    """The one text a payload is hashed over: keys sorted, no spaces, UTF-8 kept, floats by repr."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=True)


def payload_digest(obj: Any) -> str:
    """sha256 (hex) of the canonical JSON of ``obj``."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def seal(payload: dict) -> dict:
    """``payload`` (as JSON would give it back) plus its ``sha256`` field."""
    plain = json.loads(canonical_json(payload))  # tuples -> lists etc.: hash what a reader will see
    if SEAL_FIELD in plain:
        raise ValueError(f"a payload to seal must not hold a {SEAL_FIELD!r} field")
    plain[SEAL_FIELD] = payload_digest(plain)
    return plain


def unseal(data: Any) -> dict | None:
    """The payload of a sealed object (without its ``sha256``), or None when it is not a sealed
    object or its checksum does not match its content."""
    if not isinstance(data, dict) or not isinstance(data.get(SEAL_FIELD), str):
        return None
    payload = {k: v for k, v in data.items() if k != SEAL_FIELD}
    return payload if payload_digest(payload) == data[SEAL_FIELD] else None


def open_sealed(data: Any, fmt: str, key: str, owner: str = "key") -> tuple[dict | None, str | None]:
    """``(payload, None)`` for a sealed record of format ``fmt`` written for ``key``; otherwise
    ``(None, problem)``: unreadable, checksum, format or key (``owner`` names what a key is)."""
    if data is None:
        return None, "unreadable or not JSON"
    payload = unseal(data)
    if payload is None:
        return None, "checksum missing or wrong"
    if payload.get("format") != fmt:
        return None, f"unknown format {payload.get('format')!r}"
    if payload.get("key") != key:
        return None, f"it belongs to another {owner}"
    return payload, None


OS_REASONS = {  # a file-system error in words (also the CLI's error lines)
    errno.ENOSPC: "no space left on device (the disk is full)",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "the file is too large",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENOENT: "no such file or folder",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "it is a folder, not a file",
    errno.EEXIST: "it exists and is not a folder",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ELOOP: "too many symbolic links",
    errno.EIO: "input/output error",
    errno.EMFILE: "too many open files",
    errno.ENFILE: "too many open files",
    errno.ENOMEM: "out of memory",
    errno.EPIPE: "the reader closed the pipe",
}


def os_reason(err: OSError) -> str:
    """The reason of a file-system error in words (``OS_REASONS``, else its own text)."""
    return OS_REASONS.get(err.errno) or (err.strerror or str(err) or type(err).__name__).lower()


def warn_not_stored(what: str, where: Path | str, err: OSError, then: str = "") -> None:
    """One line on stderr: ``what`` (already computed and used) was not stored in ``where``, why,
    and ``then`` (what follows from it)."""
    warn(f"{what} was not stored in {where}: {os_reason(err)}" + (f"; {then}" if then else ""))


def warn(message: str) -> None:
    """One line on stderr (damaged caches are reported, then rebuilt)."""
    try:
        print(f"termo: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass
