"""Rows and cells of a memory-mapped ``.npy`` matrix, read with plain reads of its file.

A memory map is resident in a process in whole page-cache folios: on a recent Linux (ext4 with
large folios, kernel 6.18 measured) one byte read through the map of Nerdle Classic's 628 MB
layout makes up to 2 MiB of it part of the process, so 320 scattered cells made ~400 MB resident
and a sweep over all of it the whole 628 MB. ``os.preadv`` into a new array copies what is read
and nothing more; the page cache holds the file either way, shared and reclaimable.

:func:`file_of` recognises a whole mapped ``.npy`` array (what ``np.load(mmap_mode="r")``
returns, or a plain view of all of it); anything else (an array in memory, a slice of a map) is
indexed as it is, so every function here returns what indexing the array returns.
"""

from __future__ import annotations

import mmap
import os

import numpy as np


def file_of(arr) -> tuple[str, int] | None:
    """``(path, data offset)`` when ``arr`` is the whole of a memory-mapped C-contiguous ``.npy``
    array (or a view of all of it); None otherwise."""
    if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
        return None
    mapped = arr
    while mapped is not None and not (isinstance(mapped, np.memmap) and isinstance(mapped.base, mmap.mmap)):
        mapped = mapped.base if isinstance(mapped.base, np.ndarray) else None
    if mapped is None or not mapped.filename or mapped.shape != arr.shape or mapped.dtype != arr.dtype:
        return None
    if mapped.__array_interface__["data"][0] != arr.__array_interface__["data"][0]:
        return None
    return str(mapped.filename), int(mapped.offset)


def _open(path: str) -> int | None:
    """A descriptor of ``path`` for reading, or None when it cannot be opened. The cache replaces a
    file by renaming a new one into place, with the same bytes (same signature): reading the path
    reads what the map holds."""
    try:
        return os.open(path, os.O_RDONLY)
    except OSError:
        return None


def _read_into(fd: int, out: np.ndarray, offset: int) -> None:
    view = memoryview(out).cast("B")
    done = 0
    while done < len(view):
        n = os.preadv(fd, [view[done:]], offset + done)
        if n <= 0:
            raise OSError(f"short read at byte {offset + done}")
        done += n


def _runs(indices: np.ndarray):
    """``(position, first index, length)`` of each run of consecutive ``indices``."""
    if indices.shape[0] == 0:
        return
    breaks = np.flatnonzero(np.diff(indices) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [indices.shape[0]]))
    for s, e in zip(starts.tolist(), ends.tolist()):
        yield s, int(indices[s]), e - s


def take_rows(arr, rows) -> np.ndarray:
    """``arr[rows]`` (a new C-contiguous array): a mapped file is read a run of consecutive rows
    at a time, not through the map."""
    rows = np.asarray(rows, dtype=np.int64)
    where = file_of(arr)
    if where is None or arr.ndim != 2:
        return np.asarray(arr)[rows]
    path, offset = where
    if rows.shape[0] and (int(rows.min()) < 0 or int(rows.max()) >= arr.shape[0]):
        raise IndexError("row index out of range")
    out = np.empty((rows.shape[0], arr.shape[1]), dtype=arr.dtype)
    row_bytes = arr.shape[1] * arr.dtype.itemsize
    fd = _open(path)
    if fd is None:  # the file is gone (a cache folder removed under a long-lived process): the map
        return np.asarray(arr)[rows]
    try:
        for pos, first, n in _runs(rows):
            _read_into(fd, out[pos:pos + n], offset + first * row_bytes)
    finally:
        os.close(fd)
    return out


def write_band(fd: int, block, offset: int, stride: int) -> None:
    """Write row ``i`` of the 2-D ``block`` at byte ``offset + i * stride`` of the open file ``fd``
    (``os.pwrite``: the file's position is left alone)."""
    for i in range(block.shape[0]):
        view = memoryview(np.ascontiguousarray(block[i])).cast("B")
        done = 0
        while done < len(view):
            done += os.pwrite(fd, view[done:], offset + i * stride + done)


def take_cells(arr, rows, cols) -> np.ndarray:
    """``arr[rows, cols]`` (1-D): a mapped file is read one cell at a time."""
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    where = file_of(arr)
    if where is None or arr.ndim != 2:
        return np.asarray(arr)[rows, cols]
    path, offset = where
    if rows.shape[0] and (int(rows.min()) < 0 or int(rows.max()) >= arr.shape[0]
                          or int(cols.min()) < 0 or int(cols.max()) >= arr.shape[1]):
        raise IndexError("cell index out of range")
    out = np.empty(rows.shape[0], dtype=arr.dtype)
    size = arr.dtype.itemsize
    fd = _open(path)
    if fd is None:
        return np.asarray(arr)[rows, cols]
    try:
        for i, (r, c) in enumerate(zip(rows.tolist(), cols.tolist())):
            _read_into(fd, out[i:i + 1], offset + (r * arr.shape[1] + c) * size)
    finally:
        os.close(fd)
    return out


ROWS_BUDGET = 32 << 20  # bytes of whole answers-major rows a state's codes may take at once


class Layouts:
    """One pattern matrix in both layouts, for the whole-array sweeps of :mod:`backends.numpy_sweep`:
    ``by_probe`` (probes × answers) and ``by_answer`` (answers × probes, the sweeps' ``matrix_t``),
    each an array in memory or a mapped ``.npy`` file (then read, never touched through the map).

    :meth:`codes` serves a state's codes ``by_answer[np.ix_(members, probes)]`` a block of probes
    at a time, from whichever layout reads fewer bytes: the members' whole rows of ``by_answer``
    (a small state; at most :data:`ROWS_BUDGET` bytes, read once), else the probes' rows of
    ``by_probe``, block by block (a big state, or few probes). The values are the same either way.
    """

    def __init__(self, by_probe, by_answer, budget: int = ROWS_BUDGET):
        self.by_probe = by_probe
        self.by_answer = by_answer
        self.budget = int(budget)
        self.shape = tuple(by_answer.shape)  # answers × probes, like matrix_t

    def codes(self, members, probes=None):
        """``(n, block)``: the number ``n`` of probes asked for (every probe when ``probes`` is
        None) and ``block(start, stop)``, the state's codes of probes ``start:stop`` of them,
        (members × (stop − start))."""
        members = np.asarray(members, dtype=np.int64)
        n_answers, n_probes = self.shape
        chosen = None if probes is None else np.asarray(probes, dtype=np.int64)
        n = n_probes if chosen is None else chosen.shape[0]
        m = members.shape[0]
        row_bytes = m * n_probes * np.dtype(self.by_answer.dtype).itemsize
        if row_bytes <= self.budget and m * n_probes <= n * n_answers:
            rows = take_rows(self.by_answer, members)
            if chosen is not None:
                rows = rows[:, chosen]
            return n, lambda start, stop: rows[:, start:stop]
        everyone = m == n_answers and bool(np.all(members == np.arange(m)))

        def block(start: int, stop: int):
            ids = np.arange(start, stop, dtype=np.int64) if chosen is None else chosen[start:stop]
            got = take_rows(self.by_probe, ids)  # probes × answers
            return np.ascontiguousarray((got if everyone else got[:, members]).T)

        return n, block
