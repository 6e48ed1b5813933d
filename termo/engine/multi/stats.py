"""Per-board statistics for the multi-board solvers, memoised by candidate set (docs/modes-solver.md).

A board of a mode is one candidate set of the base game. Everything the joint solvers ask of one
board depends on that set alone, and the same sets come back again and again (every board of a
battery starts from the same opener, so its second-turn set is one of the opener's buckets), so
`BoardStats` keeps the answers in memos keyed by the set's bytes, each bounded in **bytes**
(`ENTROPY_BYTES`, `SPLIT_BYTES`: least recently used first out), so that a solver's memory does
not grow with the questions it is asked:

* ``entropies(cands)``: every probe's entropy (bits) over the set, on the host in one float order
  whatever the backend (``backends.host_ops.boards.probe_entropies``): the compiled kernel
  ``backends.kernels.boards.probe_entropies`` once the process has loaded numba (a server, a
  battery), else ``backends.numpy_sweep.fast_entropies`` (the same floats with NumPy alone, so a
  one-question process never loads numba);
* ``weights(cands)``: the prior renormalised over the set (uniform when its mass is 0);
* ``split(cands, probe)``: the buckets of the set under one probe, ``[(code, members, mass)]`` in
  ascending code (the search's partition, memoised per (set, probe)).

``memo_bytes()`` is what the memos hold (arrays, keys and the containers' own overhead).
"""

from __future__ import annotations

import sys
from collections import OrderedDict

import numpy as np

from termo.core.keys import candidate_key

ENTROPY_BYTES = 32 * 2**20  # entropy vectors kept (LRU): ~320 of Wordle's 12,972 probes
SPLIT_BYTES = 8 * 2**20  # (set, probe) partitions kept (LRU)
ENTRY_OVERHEAD = 200  # bytes a memo entry costs beyond its arrays and key (dict slot, tuple, header)


class ByteLRU:
    """A least-recently-used memo bounded by the bytes of its entries (``size(value)`` each, plus
    its key and `ENTRY_OVERHEAD`)."""

    def __init__(self, capacity: int, size):
        self.capacity = int(capacity)
        self.size = size
        self.bytes = 0
        self._items: OrderedDict = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key):
        hit = self._items.get(key)
        if hit is not None:
            self._items.move_to_end(key)
            return hit[0]
        return None

    def put(self, key, value) -> None:
        cost = self.size(value) + _key_bytes(key) + ENTRY_OVERHEAD
        old = self._items.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        if cost > self.capacity:
            return
        self._items[key] = (value, cost)
        self.bytes += cost
        while self.bytes > self.capacity:
            _, (_, freed) = self._items.popitem(last=False)
            self.bytes -= freed

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0


def _key_bytes(key) -> int:
    if isinstance(key, tuple):
        return sum(_key_bytes(k) for k in key) + sys.getsizeof(key)
    return sys.getsizeof(key)


def _split_bytes(buckets) -> int:
    return sum(members.nbytes + ENTRY_OVERHEAD for _, members, _ in buckets) + sys.getsizeof(buckets)


class BoardStats:
    """The per-board questions of one game under one prior, on one backend (``sweeper``)."""

    def __init__(self, game, prior, sweeper):
        self.game = game
        self.sweeper = sweeper
        self.prior = np.asarray(prior, dtype=np.float64)
        self.matrix = np.asarray(sweeper.matrix)  # probes × answers, host
        self.matrix_t = np.asarray(sweeper.matrix_t)  # answers × probes, host
        self.win_code = int(game.win_code)
        self.n_probes = int(game.n_probes)
        self.n_patterns = int(game.n_patterns)
        self._entropy = ByteLRU(ENTROPY_BYTES, lambda h: h.nbytes)
        self._splits = ByteLRU(SPLIT_BYTES, _split_bytes)

    key = staticmethod(candidate_key)

    def memo_bytes(self) -> int:
        """The bytes the memos hold now (at most `ENTROPY_BYTES` + `SPLIT_BYTES`)."""
        return self._entropy.bytes + self._splits.bytes

    def weights(self, cands) -> np.ndarray:
        w = self.prior[np.asarray(cands, dtype=np.int64)]
        total = float(w.sum())
        if not total > 0.0:
            return np.full(w.shape, 1.0 / max(int(w.shape[0]), 1))
        return w / total

    # ----------------------------------------------------------------- entropies
    def entropies(self, cands) -> np.ndarray:
        """H (bits) of every probe over ``cands`` (ascending answer indices), host float64."""
        cands = np.asarray(cands, dtype=np.int64)
        if int(cands.shape[0]) <= 1:
            return np.zeros(self.n_probes, dtype=np.float64)
        k = self.key(cands)
        hit = self._entropy.get(k)
        if hit is not None:
            return hit
        h = self.compute_entropies(cands)
        h.setflags(write=False)
        self._entropy.put(k, h)
        return h

    def compute_entropies(self, cands) -> np.ndarray:
        """`entropies` without the memo: the kernel where numba is loaded, else NumPy (same floats)."""
        from backends.host_ops.boards import probe_entropies

        return probe_entropies(self.matrix_t, cands, self.prior, self.n_patterns)

    # ----------------------------------------------------------------- partitions
    def split(self, cands, probe: int):
        """The buckets of ``cands`` under ``probe``: a tuple of (code, members, mass), ascending code."""
        cands = np.asarray(cands, dtype=np.int64)
        k = (self.key(cands), int(probe))
        hit = self._splits.get(k)
        if hit is not None:
            return hit
        codes = self.matrix[int(probe)][cands]
        w = self.weights(cands)
        order = np.argsort(codes, kind="stable")
        sc = codes[order]
        edges = np.flatnonzero(np.diff(sc)) + 1
        out = []
        for part in np.split(np.arange(sc.shape[0]), edges):
            idx = order[part]
            out.append((int(sc[part[0]]), cands[np.sort(idx)], float(w[idx].sum())))
        out = tuple(out)
        self._splits.put(k, out)
        return out

    def bucket_stats(self, cands, probes):
        """For each probe of ``probes`` over ``cands``: (codes, counts, masses) of its buckets as a
        probes × patterns pair of arrays (counts int64, masses float64)."""
        cands = np.asarray(cands, dtype=np.int64)
        probes = np.asarray(probes, dtype=np.int64)
        codes = self.matrix[probes][:, cands].astype(np.int64)  # K × n
        w = self.weights(cands)
        n_pat = int(self.game.n_patterns)
        flat = (codes + (np.arange(probes.shape[0]) * n_pat)[:, None]).ravel()
        size = probes.shape[0] * n_pat
        counts = np.bincount(flat, minlength=size).reshape(-1, n_pat)
        masses = np.bincount(flat, weights=np.tile(w, probes.shape[0]), minlength=size).reshape(-1, n_pat)
        return counts, masses
