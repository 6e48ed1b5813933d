"""Host kernels of the solver engine: exact entropies and the §5.2 order of probes.

Every kernel is written in the subset of Python that numba compiles. When numba is importable
the kernels are compiled (``@njit``, cached on disk; numba itself is imported only when a kernel
first runs, see ``backends/numba_shim.py``); otherwise, or when the environment variable
``TERMO_NO_NUMBA=1`` is set, the very same source runs as plain Python (the standard-only
fallback, slow but identical). The plain-Python version of each kernel is always reachable as
``kernel.py_func`` and serves as its oracle in the tests. ``backends/numpy_sweep.py`` computes
the single-state sweeps with whole-array NumPy calls, bit for bit like these kernels, for
processes that have not loaded numba.

Conventions:

* sums of weights are NumPy's pairwise sums (:func:`backends.kernels.sums.pairwise_sum`).
* ``entropies_single``/``entropy_row`` follow the reference's float order exactly (so published
  entropies are reproduced bit for bit); the batched sweeps use a faster order (singletons from
  precomputed ``w·log2 w``) that only has to agree on the 1e-9 ordering grid.
* The ordering key of a probe is ``(rint(H / 1e-9) desc, member of S first, prior desc, index asc)``.
* Every kernel releases the GIL (``nogil``): the server's worker threads answer level-2
  questions side by side on all cores instead of taking turns.

The batched sweeps are in :mod:`backends.kernels.sweeps`, the tree search's kernels in
:mod:`backends.kernels.tree`.
"""

from __future__ import annotations

import math

import numpy as np

from backends.constants import ROUND_STEP
from backends.kernels.sums import pairwise_sum, state_weights
# numba (imported when a kernel first runs) or the interpreted stand-ins: see backends/numba_shim.py
from backends.numba_shim import HAVE_NUMBA, njit, prange  # noqa: F401  (HAVE_NUMBA re-exported)


REFERENCE_SMALL = 12  # the reference's small-set threshold (its exact summation differs there)
LOCKSTEP = 4  # probes whose histograms are filled together by entropies_single


@njit(cache=True, nogil=True)
def _exact_entropy(codes, w, m, n_bins, hist, terms, mass):
    """H of one probe with the reference's exact float order (rules §5.1).

    m <= 12: ``mass_j`` = sequential sum of the weights sharing j's code, ``H = −Σ_j w_j·log2
    mass_j`` (NumPy pairwise sum over j). Larger sets: bucket sums in member order, ``H = −Σ_b
    P_b·log2 P_b`` summed pairwise over all ``n_bins`` codes in code order (empty bins add 0)."""
    if m <= REFERENCE_SMALL:
        for j in range(m):
            acc = 0.0
            for q in range(m):
                if codes[q] == codes[j]:
                    acc += w[q]
            mass[j] = acc
        for j in range(m):
            terms[j] = w[j] * math.log2(mass[j] if mass[j] > 0.0 else 1.0)
        return -pairwise_sum(terms, 0, m)
    for j in range(m):
        hist[codes[j]] += w[j]
    for c in range(n_bins):
        p = hist[c]
        terms[c] = p * math.log2(p) if p > 0.0 else 0.0
        hist[c] = 0.0
    return -pairwise_sum(terms, 0, n_bins)


@njit(cache=True, nogil=True, parallel=True)
def entropies_single(matrix, members, prior, n_bins):
    """Entropy (bits) of every probe over one candidate set, with the reference's exact float
    order (bit-identical to its published values); ``matrix`` is (probes × answers)."""
    n_probes = matrix.shape[0]
    m = members.shape[0]
    out = np.zeros(n_probes, np.float64)
    if m <= 1:
        return out
    w = state_weights(prior, members, 0, m)
    n_blocks = (n_probes + 63) // 64
    B = LOCKSTEP
    for blk in prange(n_blocks):
        hist = np.zeros(n_bins, np.float64)
        hists = np.zeros((B, n_bins), np.float64)
        terms = np.zeros(max(n_bins, m), np.float64)
        mass = np.zeros(m, np.float64)
        codes = np.empty(m, np.int64)
        g_end = min(n_probes, (blk + 1) * 64)
        if m <= REFERENCE_SMALL:
            for g in range(blk * 64, g_end):
                row = matrix[g]
                for j in range(m):
                    codes[j] = row[members[j]]
                out[g] = _exact_entropy(codes, w, m, n_bins, hist, terms, mass)
            continue
        # larger sets: B probes in lockstep (each bin still summed in member order), then the
        # reference's pairwise sum of P·log2 P over all bins, probe by probe
        for g0 in range(blk * 64, g_end, B):
            nb = min(B, g_end - g0)
            for j in range(m):
                c_idx = members[j]
                wj = w[j]
                for b in range(nb):
                    hists[b, matrix[g0 + b, c_idx]] += wj
            for b in range(nb):
                for c in range(n_bins):
                    p = hists[b, c]
                    terms[c] = p * math.log2(p) if p > 0.0 else 0.0
                    hists[b, c] = 0.0
                out[g0 + b] = -pairwise_sum(terms, 0, n_bins)
    return out


@njit(cache=True, nogil=True)
def entropy_row(matrix_t, members, prior, g, n_bins):
    """H of probe ``g`` over one state, with the reference's exact float order."""
    m = members.shape[0]
    if m <= 1:
        return 0.0
    w = state_weights(prior, members, 0, m)
    codes = np.empty(m, np.int64)
    for j in range(m):
        codes[j] = matrix_t[members[j], g]
    hist = np.zeros(n_bins, np.float64)
    terms = np.zeros(max(n_bins, m), np.float64)
    mass = np.zeros(m, np.float64)
    return _exact_entropy(codes, w, m, n_bins, hist, terms, mass)


@njit(cache=True, nogil=True)
def probe_ahead(ka, ina, pa, ia, kb, inb, pb, ib):
    """Is probe a strictly ahead of probe b in the §5.2 order (key, member, prior, -index)?"""
    if ka != kb:
        return ka > kb
    if ina != inb:
        return ina > inb
    if pa != pb:
        return pa > pb
    return ia < ib


@njit(cache=True, nogil=True)
def _topk_insert(top_i, top_key, top_in, top_p, top_h, filled, k, g, key, inc, pg, h):
    """Insert probe g into the sorted top list (best first) if it belongs there; returns filled."""
    if filled == k:
        last = k - 1
        if not probe_ahead(key, inc, pg, g, top_key[last], top_in[last], top_p[last], top_i[last]):
            return filled
        pos = last
    else:
        pos = filled
        filled += 1
    while pos > 0 and probe_ahead(key, inc, pg, g, top_key[pos - 1], top_in[pos - 1], top_p[pos - 1], top_i[pos - 1]):
        top_i[pos] = top_i[pos - 1]
        top_key[pos] = top_key[pos - 1]
        top_in[pos] = top_in[pos - 1]
        top_p[pos] = top_p[pos - 1]
        top_h[pos] = top_h[pos - 1]
        pos -= 1
    top_i[pos] = g
    top_key[pos] = key
    top_in[pos] = inc
    top_p[pos] = pg
    top_h[pos] = h
    return filled


@njit(cache=True, nogil=True)
def _topk_lists(k):
    """An empty top list of ``k`` entries for :func:`_topk_insert`: (indices, all -1; keys;
    memberships; priors; entropies)."""
    return (np.full(k, -1, np.int64), np.zeros(k, np.float64), np.zeros(k, np.int64), np.zeros(k, np.float64),
            np.zeros(k, np.float64))


@njit(cache=True, nogil=True)
def top_k_from_entropies(h, members, probe_prior, k):
    """The first ``k`` probes of the §5.2 order given their entropies; returns (indices, H)."""
    n = h.shape[0]
    k = min(k, n)
    top_i, top_key, top_in, top_p, top_h = _topk_lists(k)
    filled = 0
    ptr = 0
    m = members.shape[0]
    for g in range(n):
        inc = 0
        while ptr < m and members[ptr] < g:
            ptr += 1
        if ptr < m and members[ptr] == g:
            inc = 1
        key = np.rint(h[g] / ROUND_STEP)
        filled = _topk_insert(top_i, top_key, top_in, top_p, top_h, filled, k, g, key, inc, probe_prior[g], h[g])
    return top_i, top_h
