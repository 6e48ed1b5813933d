"""The pattern matrix: ``M[probe, answer]`` = base-3 feedback code (rules §3), and its disk cache.

The matrix is built on a backend by :mod:`termo.engine.matrix_build`. It is cached on disk in two
layouts, probes-major (rows = probes) and answers-major (rows = answers: a candidate set's codes
are contiguous rows), keyed by :func:`matrix_signature` and :data:`RULES_VERSION`. A build writes
both a tile of answers at a time, neither ever whole in memory; each file is written atomically
(array first, metadata last, the metadata holding a crc32 of the ``.npy`` file's bytes and one per
4 MiB block). A layout is checked when loaded, once per process: every block's checksum (header
and every cell, read with plain reads into one buffer; no file metadata is trusted to vouch for
bytes, which can change below the file system), then a spot check of cells against the plain
rule. A stale, truncated or corrupt cache is rebuilt and rewritten (a damaged one is reported on
stderr), never used. A loaded layout is a read-only memory map; the sweeps of one question read
the rows they need from the file (:mod:`backends.file_rows`), so the process holds only those.
"""

from __future__ import annotations

import hashlib
import os
import random
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from backends import get_backend, host, status
from termo.core.cache import atomic_write_bytes, atomic_write_json, os_reason, read_json, warn, warn_not_stored
from termo.core.feedback import colours, encode
from termo.core.errors import TermoError
from termo.games import EXACT, Game
from termo.core.paths import cache_dir
from termo.engine.matrix_build import answer_tiles, build_matrix

RULES_VERSION = "two-pass-1"
_SPOT_CHECKS = 256


def matrix_signature(game: Game) -> str:
    """``"{probes}x{answers}:" + sha256(probes + "\\n--\\n" + answers)[:16]`` over normalised forms;
    a game whose win rule is not the exact one gets ``"+" + rule`` appended (its matrix differs)."""
    memo = game.__dict__.get("_matrix_signature")  # computed once per game object, like a
    if memo is not None:  # cached_property (the lists are hashed: ~6 calls per process)
        return memo
    text = "\n".join(game.probes_norm) + "\n--\n" + "\n".join(game.answers_norm)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    rule = "" if game.win_rule == EXACT else f"+{game.win_rule}"
    signature = f"{game.n_probes}x{game.n_answers}:{digest}{rule}"
    game.__dict__["_matrix_signature"] = signature
    return signature


def checked_game(game, signature: str, name: str | None = None):
    """``game`` when its pattern matrix's signature is ``signature`` (what a run's driver sent a
    worker); TermoError otherwise: the worker's lists are another version (``name``: what to call
    it, default its label)."""
    if matrix_signature(game) != signature:
        raise TermoError(f"this worker's {name or game.label} is not the driver's (another version of its lists)")
    return game


@dataclass(frozen=True)
class SignedGame:
    """A game of the registry and its matrix signature: what a run's driver sends its workers
    (a part of the run's spec), who load the game back and refuse another version of its lists."""

    game: str
    signature: str

    def load_game(self):
        from termo.games import get_game

        return checked_game(get_game(self.game), self.signature)


def expected_code(game: Game, probe: int, answer: int) -> int:
    """The plain-Python rule for one cell: two-pass colours, or the win code under the game's
    win rule (a commutative rearrangement of the answer wins)."""
    if game.win_rule != EXACT and game.wins(probe, answer):
        return game.win_code
    return encode(colours(game.probes_norm[probe], game.answers_norm[answer]))


# --- cache ----------------------------------------------------------------------------------
PROBES_MAJOR = "probes-major"  # rows = probes (the natural layout)
ANSWERS_MAJOR = "answers-major"  # rows = answers: a candidate set's codes are contiguous rows


def cache_paths(game: Game, layout: str = PROBES_MAJOR) -> tuple[Path, Path]:
    """Where the matrix of ``game`` (in ``layout``) and its metadata are cached."""
    signature = matrix_signature(game)
    suffix = "" if layout == PROBES_MAJOR else "-T"
    stem = f"matrix-{game.label}-{RULES_VERSION}-{signature.replace(':', '-').replace('+', '-')}{suffix}"
    return cache_dir() / f"{stem}.npy", cache_dir() / f"{stem}.json"


def _shape(game: Game, layout: str) -> tuple[int, int]:
    return (game.n_probes, game.n_answers) if layout == PROBES_MAJOR else (game.n_answers, game.n_probes)


def _expected_meta(game: Game, layout: str = PROBES_MAJOR) -> dict:
    meta = {
        "signature": matrix_signature(game),
        "rules_version": RULES_VERSION,
        "shape": list(_shape(game, layout)),
        "dtype": game.code_dtype,
    }
    if layout != PROBES_MAJOR:
        meta["layout"] = layout
    return meta


def _spot_check(game: Game, matrix, layout: str = PROBES_MAJOR) -> bool:
    """A loaded matrix must agree with the plain-Python rule on the diagonal and random cells
    (read from a mapped layout's file: through the map, each cell made its whole folio, up to
    2 MiB, part of the process: ~400 MB of Nerdle Classic's 628 MB for 320 cells)."""
    rng = random.Random(matrix_signature(game))
    cells = [(rng.randrange(game.n_probes), rng.randrange(game.n_answers)) for _ in range(_SPOT_CHECKS)]
    cells += [(i, i) for i in rng.sample(range(game.n_answers), min(64, game.n_answers))]
    rows, cols = zip(*(cells if layout == PROBES_MAJOR else [(a, p) for p, a in cells]))
    values = host().read_cells(matrix, list(rows), list(cols))
    return all(value == expected_code(game, p, a) for value, (p, a) in zip(values, cells))


class FileBytes:
    """A file's bytes for :func:`checksum` and :func:`block_checksums`: read in slices into one
    reused buffer with plain reads, so the page cache holds the file and the process does not
    (through a memory map, a whole-file checksum made all of it resident: 628 MB of Nerdle
    Classic's layout). ``len()`` is the file's size when opened."""

    def __init__(self, handle):
        self._handle = handle
        self._size = os.fstat(handle.fileno()).st_size

    @classmethod
    def open(cls, path: Path) -> "FileBytes":
        return cls(open(path, "rb", buffering=0))

    def __len__(self) -> int:
        return self._size

    def __enter__(self) -> "FileBytes":
        return self

    def __exit__(self, *exc) -> None:
        self._handle.close()

    def slices(self, size: int):
        """Each ``size``-byte slice of the file in turn (the last one shorter), as a view of the
        one buffer (valid until the next slice)."""
        buffer = memoryview(bytearray(min(size, self._size) or 1))
        self._handle.seek(0)
        for start in range(0, self._size, size):
            want = min(size, self._size - start)
            got = 0
            while got < want:
                n = self._handle.readinto(buffer[got:want])
                if not n:
                    raise OSError(f"the file ended at byte {start + got} of {self._size}")
                got += n
            yield buffer[:want]


def checksum(buffer) -> str:
    """``"crc32:xxxxxxxx"`` of a bytes-like object (``bytes``, the buffer of a C-contiguous
    array) or of a :class:`FileBytes`. crc32 runs at 2-3 GB/s: measured on a load, Nerdle
    Classic's 628 MB in 0.2-0.3 s (its build: 6.5 s), Termo's 36 MB in 18 ms (0.35 s)."""
    if isinstance(buffer, FileBytes):
        crc = 0
        for piece in buffer.slices(BLOCK_BYTES):
            crc = zlib.crc32(piece, crc)
        return f"crc32:{crc & 0xFFFFFFFF:08x}"
    return f"crc32:{zlib.crc32(buffer) & 0xFFFFFFFF:08x}"


def file_checksum(path: Path) -> str | None:
    """:func:`checksum` of a file's bytes, read in slices (:class:`FileBytes`); None if unreadable."""
    try:
        with FileBytes.open(path) as data:
            return checksum(data)
    except OSError:
        return None


def _file_identity(path: Path) -> list | None:
    """Size, inode and the modification and status-change times in nanoseconds: what a write
    through the file system changes (a change *below* it, bit rot or a torn page, changes none)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]


def _stamp_path(npy_path: Path) -> Path:
    """The ``.verified.json`` stamp older versions wrote beside a layout (it let a file whose
    metadata had not changed skip its checksum: bit rot below the file system went unseen).
    It is no longer read; writes remove it."""
    return npy_path.with_suffix(".verified.json")


BLOCK_BYTES = 1 << 22  # 4 MiB per checksummed block: the load's warning names a damaged block. A
# layout is checked when a process loads it, once: a long-lived one (a server) does not check it again


def block_checksums(buffer, block: int = BLOCK_BYTES) -> list[int]:
    """crc32 of each ``block``-byte slice of ``buffer`` (bytes-like or :class:`FileBytes`; the
    last slice shorter)."""
    if isinstance(buffer, FileBytes):
        return [zlib.crc32(piece) & 0xFFFFFFFF for piece in buffer.slices(block)]
    view = memoryview(buffer).cast("B")
    return [zlib.crc32(view[i : i + block]) & 0xFFFFFFFF for i in range(0, len(view), block)]


def _blocks_meta(data) -> dict:
    return {"size": BLOCK_BYTES, "crc32": block_checksums(data)}


def _bad_blocks(npy_path: Path, meta: dict) -> list[int] | None:
    """``[]`` when the crc32 of the whole file equals the metadata's ``checksum`` (one pass);
    otherwise the numbers of the blocks whose crc32 differs from the metadata's ``blocks`` (``[-1]``
    when the metadata has none, or they all match a whole that does not), or None when the file
    cannot be read."""
    try:
        with FileBytes.open(npy_path) as data:
            if not len(data):
                return None  # empty: nothing to parse
            if checksum(data) == meta.get("checksum"):
                return []
            blocks = meta.get("blocks") if isinstance(meta.get("blocks"), dict) else {}
            size, expected = blocks.get("size"), blocks.get("crc32")
            got = block_checksums(data, size if isinstance(size, int) and size > 0 else BLOCK_BYTES)
            if not isinstance(expected, list) or len(expected) != len(got):
                return [-1]  # an older record (no block checksums): the file as a whole
            return [i for i, (a, b) in enumerate(zip(got, expected)) if a != b] or [-1]
    except OSError:  # missing or unreadable
        return None


_verified: dict = {}  # (path, file identity, checksum) -> True: verified in this process


def _verified_key(npy_path: Path, identity: list | None, checksum) -> tuple:
    """The key of `_verified`: a layout's bytes as of one write (its identity) and one checksum."""
    return (str(npy_path), tuple(identity or ()), checksum)


def _sealed_meta(meta_path: Path) -> dict | None:
    """A layout's metadata when it holds a checksum (else a plain miss: no cache to check)."""
    meta = read_json(meta_path)
    return meta if isinstance(meta, dict) and isinstance(meta.get("checksum"), str) else None


def _content_problem(npy_path: Path, meta: dict) -> str | None:
    """None when the file's bytes match the metadata's checksums, else what is wrong. The whole
    file is read once per process (crc32 at 1-3 GB/s: a Termo layout of 36 MB in ~20 ms, a
    Nerdle Classic one of 628 MB in ~0.3 s): no file metadata can vouch for bytes that changed
    below the file system. A check started ahead (:func:`verify_ahead`) is waited for first."""
    ahead = _ahead.pop(str(npy_path), None)
    if ahead is not None:
        ahead.join()
    return _checked(npy_path, meta)


def _checked(npy_path: Path, meta: dict) -> str | None:
    """:func:`_content_problem` without waiting for a check started ahead."""
    identity = _file_identity(npy_path)
    key = _verified_key(npy_path, identity, meta.get("checksum"))
    if identity is not None and key in _verified:
        return None
    wrong_size = _size_problem(identity, meta)
    if wrong_size:  # before reading a byte: a huge (or sparse) file in its place costs nothing
        return wrong_size
    bad = _bad_blocks(npy_path, meta)
    if bad is None:
        return "unreadable"
    if bad == [-1]:
        return "its checksum does not match"
    if bad:
        where = ", ".join(str(b) for b in bad[:3]) + (", ..." if len(bad) > 3 else "")
        mib = BLOCK_BYTES >> 20
        return f"its checksum does not match: {mib} MiB block{'s' if len(bad) > 1 else ''} {where}"
    _verified[key] = True
    return None


def _size_problem(identity: list | None, meta: dict) -> str | None:
    """What is wrong with the file's size (from its `_file_identity`), when the metadata's block
    checksums say what it must be (n blocks: over n - 1 and at most n blocks); None otherwise."""
    blocks = meta.get("blocks") if isinstance(meta.get("blocks"), dict) else {}
    block, crcs = blocks.get("size"), blocks.get("crc32")
    if identity is None or not isinstance(block, int) or block <= 0 or not isinstance(crcs, list) or not crcs:
        return None
    if (len(crcs) - 1) * block < identity[0] <= len(crcs) * block:
        return None
    return f"its size, {identity[0]:,} bytes, is not the size it was written with"


_ahead: dict = {}  # layout path -> the thread checking it ahead of its load (verify_ahead)
_asked: set = set()  # layout paths verify_ahead was asked for in this process


def verify_ahead(game: Game, layouts: tuple[str, ...] = (ANSWERS_MAJOR,)) -> None:
    """Start checking the cached ``layouts``' bytes on a background thread, while the caller loads
    another layout: a question that needs both (a level-2 or level-3 sweep) reads them side by side
    on two cores instead of one after the other (crc32 and plain reads release the GIL; Termo's two
    36 MB layouts: ~54 ms in turn). The load waits for the thread and trusts only what it marked
    verified: a layout the thread found damaged (or could not read) is checked again by the load,
    which reports and rebuilds it as ever. A layout not cached, verified already or asked for
    before in this process (a server's sessions) starts nothing."""
    for layout in layouts:
        npy_path, meta_path = cache_paths(game, layout)
        if str(npy_path) in _asked:
            continue
        _asked.add(str(npy_path))
        meta = _sealed_meta(meta_path)
        if meta is None:
            continue
        identity = _file_identity(npy_path)
        if identity is None or _verified_key(npy_path, identity, meta["checksum"]) in _verified:
            continue
        thread = threading.Thread(target=_check_quietly, args=(npy_path, meta), name=f"verify {npy_path.name}",
                                  daemon=True)
        _ahead[str(npy_path)] = thread
        thread.start()


def _check_quietly(npy_path: Path, meta: dict) -> None:
    try:
        _checked(npy_path, meta)  # marks the layout verified, or leaves it to the load
    except Exception:  # noqa: BLE001 - the load checks again and says what is wrong
        pass


def _load_cached(game: Game, layout: str = PROBES_MAJOR):
    """The cached host matrix, or None when it is missing, stale, truncated or corrupt.

    Missing or stale metadata (another signature, an older format without a checksum) is a plain
    miss; a file that fails its checksum, its shape or the spot check is reported on stderr."""
    npy_path, meta_path = cache_paths(game, layout)
    meta = _sealed_meta(meta_path)
    if meta is None:
        return None
    if {k: v for k, v in meta.items() if k not in ("checksum", "blocks")} != _expected_meta(game, layout):
        return None
    matrix = None
    problem = _content_problem(npy_path, meta)  # before parsing: a damaged header is never read
    if problem is None:
        matrix = host().load_array(npy_path)
        if matrix is None or tuple(matrix.shape) != _shape(game, layout) or str(matrix.dtype) != game.code_dtype:
            problem = "unreadable or of the wrong shape"
        elif not _spot_check(game, matrix, layout):
            problem = "its cells disagree with the rule"
    if problem is not None:
        warn(f"cached pattern matrix {npy_path.name} ignored ({problem}); rebuilding it")
        return None
    return matrix


def _store(game: Game, host_matrix, layout: str = PROBES_MAJOR) -> bool:
    """Write one layout to the cache; False when it cannot be (see :func:`_store_or_error`)."""
    return _store_or_error(game, host_matrix, layout) is None


def _store_or_error(game: Game, host_matrix, layout: str = PROBES_MAJOR) -> OSError | None:
    """Write one layout to the cache: None when stored, else the error (a full, read-only or
    blocked disk: the matrix is kept in memory only; one line on stderr says where and why)."""
    npy_path, meta_path = cache_paths(game, layout)
    try:
        meta_path.unlink(missing_ok=True)  # the metadata goes last: no metadata, no cache
        _stamp_path(npy_path).unlink(missing_ok=True)
        data = host().array_bytes(host_matrix)
        atomic_write_bytes(npy_path, data)
        atomic_write_json(meta_path, dict(_expected_meta(game, layout), checksum=checksum(data),
                                          blocks=_blocks_meta(data)))
        return None
    except OSError as err:
        if npy_path.parent not in _store_warned:  # once per process and folder (two layouts)
            _store_warned.add(npy_path.parent)
            warn_not_stored("the pattern matrix", npy_path.parent, err,
                            "it is kept in memory for this run and built again next time")
        return err


_store_warned: set = set()


def _stream_store(game: Game, backend, layouts: tuple[str, ...]) -> OSError | None:
    """Build the matrix a tile of answers at a time (:func:`answer_tiles`) and write ``layouts``
    to the cache as the tiles come, neither ever whole in memory (Nerdle Classic: 628 MB each):
    the answers-major file row after row, the probes-major one a band of columns per tile. Then
    each layout's metadata, its checksums read back from the file (which is then verified for
    this process). None when stored, else the error (the metadata removed first: no cache)."""
    try:
        for layout in layouts:
            npy_path, meta_path = cache_paths(game, layout)
            meta_path.unlink(missing_ok=True)  # the metadata goes last: no metadata, no cache
            _stamp_path(npy_path).unlink(missing_ok=True)
        _write_layouts(game, backend, list(layouts), {})
        for layout in layouts:
            npy_path, meta_path = cache_paths(game, layout)
            identity = _file_identity(npy_path)
            with FileBytes.open(npy_path) as data:
                sums = {"checksum": checksum(data), "blocks": {"size": BLOCK_BYTES,
                                                               "crc32": block_checksums(data)}}
            atomic_write_json(meta_path, dict(_expected_meta(game, layout), **sums))
            if identity is not None:
                _verified[_verified_key(npy_path, identity, sums["checksum"])] = True
        return None
    except OSError as err:
        return err


def _write_layouts(game: Game, backend, layouts: list[str], handles: dict) -> None:
    """Open each layout's file (atomically: renamed into place once written), then fill them."""
    if layouts:
        layout = layouts[0]
        atomic_write_bytes(cache_paths(game, layout)[0],
                           lambda handle: _write_layouts(game, backend, layouts[1:], {**handles, layout: handle}))
        return
    hb = host()
    starts = {}
    for layout, handle in handles.items():
        header = hb.npy_header(_shape(game, layout), game.code_dtype)
        handle.write(header)
        handle.flush()  # the probes-major bands are written at their offsets, past the buffer
        starts[layout] = len(header)
    for a0, _, block in answer_tiles(game, backend):
        size = block.dtype.itemsize
        if ANSWERS_MAJOR in handles:
            handles[ANSWERS_MAJOR].write(memoryview(hb.contiguous(block.T)).cast("B"))
        if PROBES_MAJOR in handles:
            hb.write_band(handles[PROBES_MAJOR].fileno(), block, starts[PROBES_MAJOR] + a0 * size,
                          game.n_answers * size)


BUILD_STEP = "building the pattern matrix"  # what a spinner says meanwhile (backends.status)
ANNOUNCE_BYTES = 256 * 2**20  # a first build writing at least this much (both layouts) says so on stderr
_announced: set = set()


def disk_bytes(game: Game) -> int:
    """What the cached matrix of ``game`` takes on disk, both layouts (the ``.npy`` headers aside)."""
    import numpy as np

    return 2 * game.n_probes * game.n_answers * np.dtype(game.code_dtype).itemsize


def announce_build(game: Game) -> None:
    """One stderr line (terminal or not) before a first build that writes a lot to the cache
    (Nerdle Classic: 628 MB per layout, both written by the build, tile by tile):
    what is written, how much and where. Once per game and process."""
    key = matrix_signature(game)
    size = disk_bytes(game)
    if key in _announced or size < ANNOUNCE_BYTES:
        return
    _announced.add(key)
    status.say(f"termo: building the {game.shown} pattern matrix once ({game.n_probes:,} × "
               f"{game.n_answers:,} feedback codes: {size / 2 / 2**30:.1f} GB in {cache_dir()}, "
               f"{size / 2**30:.1f} GB with its answers-major copy; later runs read it)\u2026")


_memory: dict = {}


def build_info(game: Game, backend=None, rebuild: bool = False) -> dict:
    """Get the matrix (from memory, disk cache or a fresh build) and report how it went."""
    backend = get_backend(backend)
    key = (matrix_signature(game), RULES_VERSION, backend.name)
    start = time.perf_counter()
    source = "memory"
    matrix = None if rebuild else _memory.get(key)
    if matrix is None:
        host_matrix = None if rebuild else _load_cached(game)
        source = "disk"
        if host_matrix is None:
            with status.step(BUILD_STEP):
                announce_build(game)
                matrix, source = _build(game, backend)
        else:
            matrix = backend.asarray(host_matrix)
        _memory[key] = matrix
    seconds = time.perf_counter() - start
    return {
        "matrix": matrix,
        "shape": [game.n_probes, game.n_answers],
        "signature": matrix_signature(game),
        "seconds": seconds,
        "source": source,
        "cache": str(cache_paths(game)[0]),
        "backend": backend.name,
    }


def _build(game: Game, backend) -> tuple:
    """``(matrix, source)``: both layouts built into the cache tile by tile and the matrix read
    from there; where the cache cannot be written, the matrix built whole and kept in memory."""
    if _stream_store(game, backend, (PROBES_MAJOR, ANSWERS_MAJOR)) is None:
        host_matrix = _load_cached(game)
        if host_matrix is not None:
            return backend.asarray(host_matrix), "built"
    matrix = build_matrix(game, backend)
    host_matrix = backend.to_numpy(matrix)
    if host_matrix is matrix:  # NumPy: read-only like a cached (memory-mapped) matrix, so
        matrix.flags.writeable = False  # the kernels see one array type and compile once
    error = _store_or_error(game, host_matrix)
    return matrix, "built" if error is None else f"built (not cached: {os_reason(error)})"


def pattern_matrix(game: Game, backend=None, rebuild: bool = False):
    """The (n_probes, n_answers) matrix of feedback codes on ``backend`` (cached)."""
    if not rebuild:  # held in memory: straight from there (no report to build; every request asks)
        matrix = _memory.get((matrix_signature(game), RULES_VERSION, get_backend(backend).name))
        if matrix is not None:
            return matrix
    return build_info(game, backend, rebuild)["matrix"]


_answers_major: dict = {}


def answers_major_matrix(game: Game, rebuild: bool = False):
    """The host matrix transposed, C-contiguous (answers × probes), cached on disk like the matrix.

    Sweeps over a small candidate set read that set's rows; in this layout each is contiguous.
    """
    key = (matrix_signature(game), RULES_VERSION)
    if not rebuild and key in _answers_major:
        return _answers_major[key]
    matrix = None if rebuild else _load_cached(game, ANSWERS_MAJOR)
    if matrix is None:
        with status.step(BUILD_STEP):
            announce_build(game)  # silent when this process announced the matrix just built
            if _stream_store(game, host(), (ANSWERS_MAJOR,)) is None:  # tile by tile, as a build
                matrix = _load_cached(game, ANSWERS_MAJOR)
        if matrix is None:  # the cache cannot be written: the transposed copy, in memory
            probes_major = host().to_numpy(pattern_matrix(game, host(), rebuild=rebuild))
            with status.step(BUILD_STEP):
                matrix = host().contiguous(probes_major.T)
                matrix.flags.writeable = False  # as a memory-mapped cache is (one kernel signature)
                _store(game, matrix, ANSWERS_MAJOR)
    _answers_major[key] = matrix
    return matrix
