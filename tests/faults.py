"""Fault injection for the cache files (used by tests/test_faults.py).

Each helper damages one thing the way disks, crashes and people do: flip one byte, edit one
array cell in place, truncate, swap two files, change a value of a valid JSON file (without
fixing its checksum), or reseal one (a wrong value with a right checksum: a writer's bug). The
``*_worker`` functions run in child processes (``multiprocessing`` spawn) to race cache writers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parents[1]


# --- damage -----------------------------------------------------------------------------------
def flip_byte(path, offset: int, mask: int = 0x01) -> None:
    """XOR the byte at ``offset`` with ``mask``, in place."""
    with open(path, "r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)
        assert byte, f"offset {offset} is past the end of {path}"
        handle.seek(offset)
        handle.write(bytes([byte[0] ^ mask]))


def rot_byte(path, offset: int, mask: int = 0x01) -> None:
    """Change one byte the way bit rot, a bad controller or a torn page write does, below the file
    system's notice: the size and modification time stay as they were, and a ``.verified.json``
    stamp beside the file (older versions trusted it to skip the checksum) is made to match the
    file's metadata again (the status-change time cannot be restored from user space)."""
    path = Path(path)
    before = os.stat(path)
    flip_byte(path, offset, mask)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    stamp = path.with_suffix(".verified.json")
    if stamp.exists():
        data = json.loads(stamp.read_text(encoding="utf-8"))
        st = os.stat(path)
        data["file"] = [st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]
        stamp.write_text(json.dumps(data), encoding="utf-8")


def set_cell(npy_path, index: tuple, value) -> None:
    """Edit one cell of a ``.npy`` file in place (through a writable memory map)."""
    import numpy as np

    m = np.load(npy_path, mmap_mode="r+")
    m[index] = value
    m.flush()
    del m


def truncate(path, size: int) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(size)


def swap(a, b) -> None:
    """Exchange the contents of two files."""
    a, b = Path(a), Path(b)
    tmp = a.with_name(a.name + ".swap")
    os.replace(a, tmp)
    os.replace(b, a)
    os.replace(tmp, b)


def tamper_json(path, edit) -> None:
    """Load the JSON file, let ``edit(data)`` change it in place, write it back (still valid JSON,
    checksum untouched)."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def reseal(path) -> None:
    """Recompute the checksum of a sealed JSON file after an edit (a writer that wrote garbage)."""
    from termo.core.cache import SEAL_FIELD, seal

    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop(SEAL_FIELD, None)
    path.write_text(json.dumps(seal(data), ensure_ascii=False, indent=1), encoding="utf-8")


def npy_data_start(path) -> int:
    """Offset of the first array byte in a ``.npy`` file (after its header)."""
    head = Path(path).read_bytes()[:12]
    major = head[6]
    if major == 1:
        return 10 + int.from_bytes(head[8:10], "little")
    return 12 + int.from_bytes(head[8:12], "little")


def sample_offsets(size: int, marks=(), n: int = 8) -> list[int]:
    """Offsets across a file of ``size`` bytes: the first bytes, each mark and its neighbours,
    ``n`` evenly spaced ones, and the last byte."""
    picks = {0, 1, 2, 6, 8, size // 2, size - 1}
    for m in marks:
        picks.update({m - 1, m, m + 1})
    picks.update(i * size // n for i in range(n))
    return sorted(o for o in picks if 0 <= o < size)


# --- racing writers (child processes) -----------------------------------------------------------
def fake_solver(game, t: float, level: int = 3):
    """Just what the opener cache keys read (one distinct key per ``t``)."""
    return SimpleNamespace(game=game, custom_prior=False, t=float(t), beam=10, depth=1, loss=7.0, endgame=3,
                           level=level)


def shipped_entry() -> dict:
    """Termo's shipped level-3 opener entry (whatever the shipped file's layout)."""
    data = json.loads((REPO / "data" / "openers.json").read_text(encoding="utf-8"))
    if isinstance(data.get("entries"), dict):  # the old layout: {"version": 1, "entries": {key: entry}}
        return next(iter(data["entries"].values()))
    return data["entries"][0]["value"]


def store_openers_worker(cache: str, worker: int, n: int) -> None:
    os.environ["TERMO_CACHE_DIR"] = cache
    from termo.book import openers
    from termo.games import get_game

    game = get_game("termo")
    entry = shipped_entry()
    for i in range(n):
        openers.store(fake_solver(game, 100.0 + worker * 1000 + i), entry)


def level2_opener_worker(cache: str, worker: int, n: int) -> None:
    """Caches ``n`` level-2 openers (a fake, fast decision: ``tarso``) through level2_opener."""
    os.environ["TERMO_CACHE_DIR"] = cache
    from termo.analysis import opener_cache
    from termo.games import get_game

    game = get_game("termo")
    index = game.index_of("tarso")
    choice = SimpleNamespace(bits=5.9748166899580495)
    opener_cache.book.decide = lambda solver, cands, turn: SimpleNamespace(index=index, word="tarso", choice=choice)
    for i in range(n):
        opener_cache.level2_opener(fake_solver(game, 100.0 + worker * 1000 + i))


def store_matrix_worker(cache: str, game_name: str, n: int) -> None:
    """Stores the same matrix ``n`` times (both layouts) into the cache folder."""
    os.environ["TERMO_CACHE_DIR"] = cache
    from backends import host
    from termo.engine import matrix
    from termo.games import get_game

    game = get_game(game_name)
    m = host().to_numpy(matrix.build_matrix(game, host()))
    t = host().contiguous(m.T)
    for _ in range(n):
        assert matrix._store(game, m)
        assert matrix._store(game, t, matrix.ANSWERS_MAJOR)
