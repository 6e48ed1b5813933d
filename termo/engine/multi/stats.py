"""Per-board statistics for the multi-board solvers, memoised by candidate set (docs/modes-solver.md).

A board of a mode is one candidate set of the base game. Everything the joint solvers ask of one
board depends on that set alone, and the same sets come back again and again (every board of a
battery starts from the same opener, so its second-turn set is one of the opener's buckets), so
`BoardStats` keeps the answers in a bounded memo keyed by the set's bytes:

* ``entropies(cands)``: every probe's entropy (bits) over the set: the backend's sweep for a big
  set, a host formula for a small one (``H(g) = −Σ_i w_i log2 m_i(g)``, with ``m_i(g)`` the
  mass of the bucket of candidate i under g: the same number as the sweep's up to the last bits,
  and the same on every backend);
* ``weights(cands)``: the prior renormalised over the set (uniform when its mass is 0);
* ``split(cands, probe)``: the buckets of the set under one probe, ``[(code, members, mass)]`` in
  ascending code (the search's partition, memoised per (set, probe)).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from termo.core.keys import candidate_key

SMALL_SET = 12  # sets of at most this many candidates: the host formula, not a backend sweep
ENTROPY_KEPT = 3000  # entropy vectors memoised (LRU); 12,972 probes × 8 bytes each
SPLITS_KEPT = 200_000  # (set, probe) partitions memoised (LRU)


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
        self._entropy: OrderedDict = OrderedDict()
        self._splits: OrderedDict = OrderedDict()

    key = staticmethod(candidate_key)

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
        n = int(cands.shape[0])
        if n <= 1:
            return np.zeros(self.n_probes, dtype=np.float64)
        k = self.key(cands)
        hit = self._entropy.get(k)
        if hit is not None:
            self._entropy.move_to_end(k)
            return hit
        h = self._small_entropies(cands) if n <= SMALL_SET else np.asarray(self.sweeper.entropies(cands), dtype=np.float64)
        h.setflags(write=False)
        self._entropy[k] = h
        while len(self._entropy) > ENTROPY_KEPT:
            self._entropy.popitem(last=False)
        return h

    def _small_entropies(self, cands) -> np.ndarray:
        codes = self.matrix_t[cands]  # n × probes
        w = self.weights(cands)
        h = np.zeros(self.n_probes, dtype=np.float64)
        for i in range(int(cands.shape[0])):
            mass = (codes == codes[i]).T @ w  # the mass of candidate i's bucket, per probe
            h -= w[i] * np.log2(mass)
        return np.maximum(h, 0.0)

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
        self._splits[k] = out
        while len(self._splits) > SPLITS_KEPT:
            self._splits.popitem(last=False)
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
