"""The batched §5.2 top-k sweeps of the level-2 engine: for every state of a batch, the first
``k`` probes of the order (entropy on the 1e-9 grid descending, members first, prior descending,
index ascending) and their entropies.

Small states key each probe's partition by its pair-equality bits and compute one entropy per
distinct partition; larger ones fill the histograms of a few probes in lockstep and skip the
logarithms of probes whose bucket count already rules them out. Their entropies use a faster
float order than the reference's (singletons from precomputed ``w·log2 w``) that only has to
agree on the 1e-9 grid; ``backends/numpy_sweep.py`` computes the same lists with NumPy alone.
"""

from __future__ import annotations

import math

import numpy as np

from backends.constants import ROUND_STEP
from backends.kernels.entropy import _topk_insert, _topk_lists
from backends.kernels.sums import _w_log_w, log2_upto, state_weights
# numba (imported when a kernel first runs) or the interpreted stand-ins: see backends/numba_shim.py
from backends.numba_shim import get_num_threads, njit, prange


@njit(cache=True, nogil=True)
def _probe_entropy_small(matrix_t, members, lo, m, g, w, wl, codes):
    """(number of buckets, H) of probe g over a small state, by pairwise comparisons."""
    for j in range(m):
        codes[j] = matrix_t[members[lo + j], g]
    nb = 0
    h = 0.0
    for j in range(m):
        c = codes[j]
        first = True
        for q in range(j):
            if codes[q] == c:
                first = False
                break
        if not first:
            continue
        nb += 1
        mass = w[j]
        k = 1
        for q in range(j + 1, m):
            if codes[q] == c:
                mass += w[q]
                k += 1
        if k == 1:
            h -= wl[j]
        elif k < m and mass > 0.0:
            h -= mass * math.log2(mass)
    return nb, h


@njit(cache=True, nogil=True)
def _pair_signatures(matrix_t, members, lo, m, acc, sig):
    """Exact partition key of every probe: bit (q, j) = [code_q == code_j] for q < j, packed
    into ``sig`` (words × probes). Whole-row comparisons, vectorised over probes."""
    n = matrix_t.shape[1]
    n_words = sig.shape[0]
    for wd in range(n_words):
        for g in range(n):
            sig[wd, g] = 0
    bitpos = 0
    for j in range(1, m):
        rj = matrix_t[members[lo + j]]
        for g in range(n):
            acc[g] = 0
        for q in range(j):
            rq = matrix_t[members[lo + q]]
            bit = np.uint32(1) << np.uint32(q)
            for g in range(n):
                acc[g] |= bit if rq[g] == rj[g] else np.uint32(0)
        wd = bitpos // 64
        off = np.int64(bitpos % 64)
        row = sig[wd]
        for g in range(n):
            row[g] |= np.int64(acc[g]) << off
        if off + j > 64:
            row2 = sig[wd + 1]
            back = np.int64(64) - off
            for g in range(n):
                row2[g] |= np.int64(acc[g]) >> back
        bitpos += j


@njit(cache=True, nogil=True)
def find_member(members, lo, hi, a):
    """The position of ``a`` in the ascending ``members[lo:hi]``, else -1 (a binary search)."""
    x = lo
    y = hi
    while x < y:
        mid = (x + y) // 2
        if members[mid] < a:
            x = mid + 1
        else:
            y = mid
    if x < hi and members[x] == a:
        return x
    return -1


@njit(cache=True, nogil=True)
def _is_member(members, lo, hi, g):
    return 1 if find_member(members, lo, hi, g) >= 0 else 0


SIGNATURE_MAX = 22  # up to this size a probe's partition is keyed by its pair-equality bits


@njit(cache=True, nogil=True)
def _probe_entropy_hist(matrix_t, members, lo, m, g, w, wl, hist, cnt):
    """H of probe g over a state in O(m) with scratch histograms (left zeroed), same float order
    as ``_probe_entropy_small`` (bucket masses summed in member order)."""
    for j in range(m):
        c = matrix_t[members[lo + j], g]
        hist[c] += w[j]
        cnt[c] += 1
    h = 0.0
    for j in range(m):
        c = matrix_t[members[lo + j], g]
        k = cnt[c]
        if k == 0:
            continue
        if k == 1:
            h -= wl[j]
        elif k < m and hist[c] > 0.0:
            h -= hist[c] * math.log2(hist[c])
        hist[c] = 0.0
        cnt[c] = 0
    return h


DIRECT_MAX = 5  # up to this size (10 pair bits) the partition signature indexes a table directly


@njit(cache=True, nogil=True)
def _sweep_small(matrix_t, members, lo, hi, prior, probe_prior, kk, out_i, out_h, t, n_bins):
    """Top-kk probes of a state of at most SIGNATURE_MAX members: one entropy per distinct
    partition (a table keyed by the exact pair-equality signature: indexed directly for tiny
    states, open addressing otherwise), then one pass over the probes for the top-k."""
    n_probes = matrix_t.shape[1]
    m = hi - lo
    w = state_weights(prior, members, lo, hi)
    wl = _w_log_w(w)
    n_words = max(1, (m * (m - 1) // 2 + 63) // 64)
    acc = np.empty(n_probes, np.uint32)
    sig = np.empty((n_words, n_probes), np.int64)
    _pair_signatures(matrix_t, members, lo, m, acc, sig)
    direct = m <= DIRECT_MAX
    if direct:
        cap = 1 << (m * (m - 1) // 2)
    else:
        # distinct partitions <= min(#probes, Bell(m)): small states get tables that stay in L1
        bell = np.array([1, 1, 2, 5, 15, 52, 203, 877, 4140, 21147], np.int64)
        bound = n_probes if m >= bell.shape[0] else min(n_probes, bell[m])
        cap = 4
        while cap < 2 * bound:
            cap *= 2
    mask = cap - 1
    used = np.zeros(cap, np.bool_)
    skey = np.empty((cap, n_words), np.int64)
    sval = np.empty(cap, np.float64)
    srnd = np.empty(cap, np.float64)
    codes = np.empty(m, np.int64)
    hist = np.zeros(n_bins, np.float64)
    cnt = np.zeros(n_bins, np.int64)
    top_i, top_key, top_in, top_p, top_h = _topk_lists(kk)
    filled = 0
    thr = -1.0
    for g in range(n_probes):
        if direct:
            slot = sig[0, g]
            if not used[slot]:
                used[slot] = True
                nb, hv = _probe_entropy_small(matrix_t, members, lo, m, g, w, wl, codes)
                sval[slot] = hv
                srnd[slot] = np.rint(hv / ROUND_STEP)
        else:
            hsh = np.uint64(0)
            for wd in range(n_words):
                hsh = (hsh ^ np.uint64(sig[wd, g])) * np.uint64(0x9E3779B97F4A7C15)
            slot = np.int64(hsh >> np.uint64(32)) & mask
            while True:
                if not used[slot]:
                    used[slot] = True
                    for wd in range(n_words):
                        skey[slot, wd] = sig[wd, g]
                    if m <= 6:
                        nb, hv = _probe_entropy_small(matrix_t, members, lo, m, g, w, wl, codes)
                    else:
                        hv = _probe_entropy_hist(matrix_t, members, lo, m, g, w, wl, hist, cnt)
                    sval[slot] = hv
                    srnd[slot] = np.rint(hv / ROUND_STEP)
                    break
                same = True
                for wd in range(n_words):
                    if skey[slot, wd] != sig[wd, g]:
                        same = False
                        break
                if same:
                    break
                slot = (slot + 1) & mask
        key = srnd[slot]
        if key < thr:
            continue
        inc = _is_member(members, lo, hi, g)
        filled = _topk_insert(top_i, top_key, top_in, top_p, top_h, filled, kk, g, key, inc,
                              probe_prior[g], sval[slot])
        if filled == kk:
            thr = top_key[kk - 1]
    for q in range(kk):
        out_i[t, q] = top_i[q]
        out_h[t, q] = top_h[q]


LARGE_BLOCK = 8  # probes processed in lockstep by the large-set sweep (independent histograms)


@njit(cache=True, nogil=True)
def _sweep_large(matrix_t, members, lo, hi, prior, probe_prior, kk, n_bins, log2_int, out_i, out_h, t):
    """Top-kk probes of a larger state: histograms of LARGE_BLOCK probes are filled in lockstep
    (member-major, so consecutive updates hit different histograms and do not wait on each
    other), each probe's buckets listed in the order of their first member; a probe whose bound
    ``log2(#buckets)`` rounds below the current k-th key gets no logarithm. The entropy is summed
    over that list (a bucket's term where its first member comes, as a pass over the members in
    order would: the same floats), a singleton from the member's precomputed ``w·log2 w``.
    Same fast float order as the other sweeps."""
    n_probes = matrix_t.shape[1]
    m = hi - lo
    w = state_weights(prior, members, lo, hi)
    wl = _w_log_w(w)
    B = LARGE_BLOCK
    hist = np.zeros((B, n_bins), np.float64)
    cnt = np.zeros((B, n_bins), np.int32)
    first_bin = np.empty((B, m), np.int32)  # a probe's buckets in the order of their first member
    first_j = np.empty((B, m), np.int32)  # ... and that member
    nbk = np.zeros(B, np.int64)
    top_i, top_key, top_in, top_p, top_h = _topk_lists(kk)
    filled = 0
    thr = -1.0
    for g0 in range(0, n_probes, B):
        nbl = min(B, n_probes - g0)
        for b in range(nbl):
            nbk[b] = 0
        for j in range(m):
            r = members[lo + j]
            wj = w[j]
            for b in range(nbl):
                c = matrix_t[r, g0 + b]
                k = cnt[b, c]
                if k == 0:
                    q = nbk[b]
                    first_bin[b, q] = c
                    first_j[b, q] = j
                    nbk[b] = q + 1
                cnt[b, c] = k + 1
                hist[b, c] += wj
        for b in range(nbl):
            g = g0 + b
            nb = nbk[b]
            need = not (filled == kk and np.rint((log2_int[nb] + 1e-12) / ROUND_STEP) < thr)
            h = 0.0
            for q in range(nb):
                c = first_bin[b, q]
                if need:
                    k = cnt[b, c]
                    if k == 1:
                        h -= wl[first_j[b, q]]
                    elif k < m:
                        p = hist[b, c]
                        if p > 0.0:
                            h -= p * math.log2(p)
                hist[b, c] = 0.0
                cnt[b, c] = 0
            if not need:
                continue
            key = np.rint(h / ROUND_STEP)
            if key < thr:
                continue
            inc = _is_member(members, lo, hi, g)
            filled = _topk_insert(top_i, top_key, top_in, top_p, top_h, filled, kk, g, key, inc,
                                  probe_prior[g], h)
            if filled == kk:
                thr = top_key[kk - 1]
    for q in range(kk):
        out_i[t, q] = top_i[q]
        out_h[t, q] = top_h[q]


@njit(cache=True, nogil=True)
def _sweep_state(matrix_t, members, offsets, s, prior, probe_prior, kk, n_bins, log2_int, out_i, out_h, t):
    lo = offsets[s]
    hi = offsets[s + 1]
    if hi - lo <= SIGNATURE_MAX:
        _sweep_small(matrix_t, members, lo, hi, prior, probe_prior, kk, out_i, out_h, t, n_bins)
    else:
        _sweep_large(matrix_t, members, lo, hi, prior, probe_prior, kk, n_bins, log2_int, out_i, out_h, t)


@njit(cache=True, nogil=True, parallel=True)
def _sweep_top_k_parallel(matrix_t, members, offsets, state_ids, prior, probe_prior, kk, n_bins, out_i, out_h,
                          perm):
    log2_int = log2_upto(n_bins + 1)
    for i in prange(state_ids.shape[0]):
        t = perm[i]
        _sweep_state(matrix_t, members, offsets, state_ids[t], prior, probe_prior, kk, n_bins, log2_int,
                     out_i, out_h, t)


@njit(cache=True, nogil=True)
def _sweep_top_k_serial(matrix_t, members, offsets, state_ids, prior, probe_prior, kk, n_bins, out_i, out_h):
    log2_int = log2_upto(n_bins + 1)
    for t in range(state_ids.shape[0]):
        _sweep_state(matrix_t, members, offsets, state_ids[t], prior, probe_prior, kk, n_bins, log2_int,
                     out_i, out_h, t)


PARALLEL_MIN_WORK = 3_000_000  # below this many (member, probe) cells a batch runs on one thread


def sweep_top_k(matrix_t, members, offsets, state_ids, prior, probe_prior, k, n_bins):
    """Batched sweep: for each state in ``state_ids`` the first ``k`` probes of the §5.2 order.

    ``matrix_t`` is the transposed pattern matrix (answers × probes), so a state's rows are
    contiguous; state ``s`` is ``members[offsets[s]:offsets[s+1]]`` (ascending). Returns
    (indices int64 (S, k), entropies float64 (S, k)); indices are -1 past the number of probes.
    States run in parallel when the batch is big enough to pay for waking the threads.
    """
    return batched_top_k(matrix_t, members, offsets, state_ids, prior, probe_prior, k, n_bins,
                         _sweep_top_k_parallel, _sweep_top_k_serial)


def batched_top_k(matrix_t, members, offsets, state_ids, prior, probe_prior, k, n_bins, parallel, serial):
    """The batch of a top-k sweep (:func:`sweep_top_k`'s contract): the (S, k) outputs, filled by
    the kernel ``parallel`` (states dealt over the threads by :func:`balanced_order`) when the batch
    is big enough to pay for waking the threads, else by ``serial``."""
    n_states = state_ids.shape[0]
    n_probes = matrix_t.shape[1]
    kk = min(k, n_probes)
    out_i = np.full((n_states, k), -1, np.int64)
    out_h = np.zeros((n_states, k), np.float64)
    sizes = offsets[state_ids + 1] - offsets[state_ids]
    if int(np.sum(sizes)) * n_probes >= PARALLEL_MIN_WORK and n_states > 1:
        parallel(matrix_t, members, offsets, state_ids, prior, probe_prior, kk, n_bins, out_i, out_h,
                 balanced_order(sizes))
    else:
        serial(matrix_t, members, offsets, state_ids, prior, probe_prior, kk, n_bins, out_i, out_h)
    return out_i, out_h


def balanced_order(sizes):
    """A permutation dealing items round-robin by size over the threads, so that the contiguous
    chunks a parallel loop hands each thread carry similar work."""
    threads = get_num_threads()
    order = np.argsort(np.asarray(sizes), kind="stable")
    return np.concatenate([order[t::threads] for t in range(threads)]).astype(np.int64)
