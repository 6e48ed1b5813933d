"""Checkpoints of a long run: one small JSON file per finished chunk of items (openers, first
words), for every run cut into chunks (:mod:`termo.core.executors` runs them).

A chunk's file is named by its *key*, a hash of everything its values depend on (for the
robustness sweep: world, column prior, rounds, loss, method version and the openers themselves),
so a stale file can never be mistaken for a fresh one: a changed input gives another key. Files
are written atomically (temporary file + rename) and sealed: the payload's sha256
(:func:`termo.core.cache.seal`) is stored beside it. When read, a file must parse, match its
format, checksum, key and items, and hold one possible value per item; anything else is
*rejected* (:meth:`CheckpointStore.load` says why) and its chunk recomputed.

A finished run's checkpoints can be kept as one archive instead of a folder of files (a
``.tar.gz`` of the chunk files, ``tar -czf run.tar.gz -C FOLDER .``, what ``bench/results/`` keeps): a store opened on the archive
reads its chunks exactly as from the folder (``--status`` and ``--resume`` read it) and writes
none (a resumed run goes on; its new chunks are not stored there, as on a read-only disk).

What a possible value is belongs to the kind of run: by default (the robustness sweep and the
opener tables, format :data:`FORMAT`) a JSON number in ``[1, high]`` (``high`` = turn limit +
loss cost, the most a game can cost, rules §6.1) or ``"inf"`` (an opener that splits nothing);
another kind gives the store its own ``kind`` (format name) and ``decode``. Floats are stored as
JSON numbers (``repr``, exact round trip), so a resumed run gives a bit-identical result.
"""

from __future__ import annotations

import hashlib
import json
import math
import tarfile
from pathlib import Path

from termo.core.cache import atomic_write_json, open_sealed, read_json, seal, warn_not_stored

FORMAT = "termo-robustness-chunk/2"  # the sweep's and the opener tables' chunks; /2: sealed (sha256)


def digest(obj) -> str:
    """Stable short hash of JSON-able data (keys sorted, floats by repr)."""
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, default=_fallback)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def _fallback(value):
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return str(value)


def number_out(x: float):
    """A stored number: an infinity as the text "inf" or "-inf" (JSON has none)."""
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def number_in(x) -> float:
    """`number_out`'s value read back; ValueError for anything it cannot have written."""
    if x in ("inf", "-inf"):
        return float(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"value {x!r} is not a number")
    return float(x)


def _encode(values):
    return [v if math.isfinite(v) else ("inf" if v > 0 else "nan") for v in values]


def stored_rows(values, fields: str):
    """Each stored row of a chunk whose rows are lists of ``fields`` ("lower, upper, how"), in order;
    ValueError at the first that is not a list of that length."""
    n = len(fields.split(", "))
    for row in values:
        if not isinstance(row, list) or len(row) != n:
            raise ValueError(f"result {row!r} is not [{fields}]")
        yield row


def _decode(values, high: float | None) -> list[float]:
    """The stored values as floats; ValueError for anything the writer cannot have written."""
    out = []
    for v in values:
        if v == "inf":
            out.append(math.inf)
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"value {v!r} is not a finite number")
        if v < 1.0 or (high is not None and v > high):
            raise ValueError(f"value {v!r} is outside [1, {high}]")
        out.append(float(v))
    return out


class CheckpointStore:
    """Chunk results under ``directory`` (None: a store that remembers nothing). With
    ``reuse=False`` stored chunks are ignored (a fresh run) but new ones are still written.
    ``kind`` is the format written and required; ``decode(values, high)`` turns a chunk's stored
    values back into results, raising ValueError for anything the writer cannot have written
    (default: the robustness values, see the module doc)."""

    def __init__(self, directory: Path | str | None, reuse: bool = True, *, kind: str = FORMAT,
                 decode=None, encode=None):
        self.directory = Path(directory) if directory is not None else None
        self.archive = _Archive(self.directory) if self.directory is not None and self.directory.is_file() else None
        self.reuse = reuse
        self.kind = kind
        self.decode = decode or _decode
        self.encode = encode or _encode
        self._write_failed = False

    def path(self, key: str) -> Path:
        """The file of chunk ``key``."""
        return self._path(key)

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def load(self, key: str, openers: list[int], high: float | None = None) -> tuple[list[float] | None, str | None]:
        """``(values, None)`` for a sound stored chunk; ``(None, None)`` when there is none (or
        ``reuse`` is off); ``(None, problem)`` when the file is there but rejected. ``high``: the
        largest possible value (turn limit + loss cost)."""
        if self.directory is None or not self.reuse:
            return None, None
        if self.archive is not None:
            if key not in self.archive:
                return None, None
            data = self.archive.json(key)
        else:
            path = self._path(key)
            if not path.exists():
                return None, None
            data = read_json(path)
        payload, problem = open_sealed(data, self.kind, key, owner="chunk")
        if problem:
            return None, problem
        if payload.get("openers") != list(openers):
            return None, "its openers differ"
        values = payload.get("values")
        if not isinstance(values, list) or len(values) != len(openers):
            return None, "wrong number of values"
        try:
            return self.decode(values, high), None
        except ValueError as err:
            return None, str(err)

    def resume(self, key: str, items: list, high: float | None = None, warn=None) -> tuple[list | None, bool]:
        """``(values or None, rejected)`` of chunk ``key`` for a run that goes on: a rejected file
        is said through ``warn(line)`` (its chunk is computed again)."""
        values, problem = self.load(key, items, high)
        if problem is not None and warn is not None:
            warn(f"checkpoint {key}.json rejected ({problem}); recomputing its chunk")
        return values, problem is not None

    def get(self, key: str, openers: list[int], high: float | None = None) -> list[float] | None:
        """The stored values of chunk ``key`` if present and sound, else None."""
        return self.load(key, openers, high)[0]

    def put(self, key: str, openers: list[int], values: list[float], meta: dict | None = None) -> bool:
        """Checkpoint a finished chunk; False when the folder cannot be written (a full, read-only
        or blocked disk: said once on stderr, and the run goes on with the values in hand)."""
        if self.directory is None:
            return False
        if self.archive is not None:
            if not self._write_failed:
                self._write_failed = True
                warn_not_stored("a finished chunk", self.directory, OSError(30, "an archive is read-only"),
                                "the run goes on; extract the archive into a folder to keep new chunks")
            return False
        payload = {"format": self.kind, "key": key, "openers": list(openers), "values": self.encode(values)}
        if meta:
            payload["meta"] = meta
        try:
            atomic_write_json(self._path(key), seal(payload))
            return True
        except OSError as err:
            if not self._write_failed:
                self._write_failed = True
                warn_not_stored("a finished chunk", self.directory, err,
                                "the run goes on, but a rerun with --resume cannot reuse its chunks")
            return False

    def records(self, sample: int | None = None) -> list:
        """The stored chunks' raw records (the first ``sample`` by key), whatever they belong to:
        what a look at a folder or an archive of another run reads (None where unreadable)."""
        if self.archive is not None:
            return [self.archive.json(key) for key in sorted(self.archive.members)[:sample]]
        if self.directory is None or not self.directory.is_dir():
            return []
        return [read_json(path) for path in sorted(self.directory.glob("*.json"))[:sample]]

    def count(self) -> int:
        if self.archive is not None:
            return len(self.archive)
        if self.directory is None or not self.directory.is_dir():
            return 0
        return sum(1 for _ in self.directory.glob("*.json"))


class _Archive:
    """The chunk files of a finished run in one ``.tar.gz`` (read-only; members ``<key>.json``)."""

    def __init__(self, path: Path) -> None:
        self.members: dict[str, bytes] = {}
        try:
            with tarfile.open(path, "r:*") as tar:
                for member in tar.getmembers():
                    name = Path(member.name).name
                    if member.isfile() and name.endswith(".json"):
                        self.members[name[: -len(".json")]] = tar.extractfile(member).read()
        except (OSError, tarfile.TarError):
            self.members = {}  # unreadable: no chunk is found (each one recomputed)

    def __contains__(self, key: str) -> bool:
        return key in self.members

    def __len__(self) -> int:
        return len(self.members)

    def json(self, key: str):
        try:
            return json.loads(self.members[key].decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return None


def run_chunks(store: "CheckpointStore", executor, chunks, key_of, task_of, size_of, report, *, high=None,
               warn=None, compute: bool = True, meta: dict | None = None) -> tuple[dict, dict]:
    """``({item: value}, counts)`` of a run cut into ``chunks`` (tuples of items): a chunk whose
    checkpoint (``key_of(items)``) is sound is read back, the others are computed by ``executor``
    (``task_of(items, key)``, a task with ``key`` and ``items``) and stored as each arrives.
    ``report(done, total, resumed, task)`` follows the work in ``size_of(item)`` units (``task``:
    None before the first); ``compute=False`` reads the checkpoints only (``--status``). ``counts``:
    chunks resumed, computed, rejected and missing."""
    results: dict = {}
    todo = []
    counts = {"resumed": 0, "computed": 0, "rejected": 0, "missing": 0}
    for items in chunks:
        key = key_of(items)
        cached, rejected = store.resume(key, list(items), high=high, warn=warn)
        counts["rejected"] += rejected
        if cached is not None:
            counts["resumed"] += 1
            results.update(zip(items, cached))
        else:
            todo.append(task_of(items, key))
    total = sum(size_of(item) for items in chunks for item in items)
    done = resumed = sum(size_of(item) for item in results)
    report(done, total, resumed, None)
    if not compute:
        counts["missing"] = len(todo)
        return results, counts
    for task, values in executor.run(todo):
        store.put(task.key, list(task.items), values, meta=meta)
        counts["computed"] += 1
        results.update(zip(task.items, values))
        done += sum(size_of(item) for item in task.items)
        report(done, total, resumed, task)
    return results, counts
