"""Batched sweeps of the level-3 tree: the lists of :func:`backends.kernels.sweeps.sweep_top_k`
(indices and entropies bit for bit), with most probes dropped early by an entropy bound
(:func:`_sweep_bounded`); the states it does not take go to the entropy kernel itself."""

from __future__ import annotations

import numpy as np

from backends.constants import ROUND_STEP
from backends.kernels.entropy import _topk_insert, _topk_lists
from backends.kernels.sums import _w_log_w, log2_upto, state_weights
from backends.kernels.sweeps import _probe_entropy_hist, _sweep_state, batched_top_k
from backends.numba_shim import njit, prange


BOUND_MIN = 3  # states of BOUND_MIN..BOUND_MAX members are swept by the pruned scan (a larger
BOUND_MAX = 512  # state sits far below its finest split, where the bound drops few probes)
BOUND_MARGIN = 3e-10  # bits; the float error of an entropy and of the bound is below 1e-10


@njit(cache=True)
def _members_settle(filled, kk, h0, top_key, top_in):
    """After the members: can no other probe enter the top list? Every probe has H <= h0 (the
    entropy of the finest split, up to float error); a non-member needs a key above the k-th
    entry's when that entry is a member, out of reach when h0 rounds to at most that key."""
    return filled == kk and top_in[kk - 1] == 1 and (h0 + BOUND_MARGIN) / ROUND_STEP < top_key[kk - 1] + 0.5


@njit(cache=True)
def _drop_limits(h0, key):
    """The limits on ``d`` (the entropy lost so far, a lower bound, so that ``h0 - d`` bounds the
    probe's entropy) past which a probe is surely not ahead of the k-th entry, whose key is
    ``key``: (a probe that would win a tie with it: its key is then below ``key``; a probe that
    would lose a tie: its key is then at most ``key``)."""
    return (h0 - ((key - 0.5) * ROUND_STEP - BOUND_MARGIN), h0 - ((key + 0.5) * ROUND_STEP - BOUND_MARGIN))


@njit(cache=True)
def _tie_loses(inc, pg, g, top_in, top_p, top_i, kk):
    """Would a probe (membership ``inc``, prior ``pg``, index ``g``) with the k-th entry's key
    stay behind it (§5.2: members first, then prior desc, index asc)?"""
    q = kk - 1
    if inc != top_in[q]:
        return inc < top_in[q]
    if pg != top_p[q]:
        return pg < top_p[q]
    return g > top_i[q]


@njit(cache=True)
def _merge_loss(big, w):
    """A lower bound on the entropy lost when mass ``w`` joins a bucket of mass ``big``:
    ``(big+w)·h2(w/(big+w)) >= 4·big·w/(big+w)``."""
    s = big + w
    return 4.0 * big * w / s if s > 0.0 else 0.0


@njit(cache=True)
def _bound_scan(matrix_t, rows, hw, m, g, limit, hist, cnt, touched):
    """Read probe g's codes heaviest member first, summing the entropy lost (``_merge_loss``),
    until the loss exceeds ``limit`` (-1: the probe is dropped) or every member is read (the
    number of buckets). The scratch histograms are left zeroed."""
    d = 0.0
    nt = 0
    q = 0
    while q < m and d <= limit:
        c = matrix_t[rows[q], g]
        if cnt[c] > 0:
            d += _merge_loss(hist[c], hw[q])
        else:
            touched[nt] = c
            nt += 1
        hist[c] += hw[q]
        cnt[c] += 1
        q += 1
    for u in range(nt):
        hist[touched[u]] = 0.0
        cnt[touched[u]] = 0
    return -1 if d > limit else nt


@njit(cache=True)
def _sweep_bounded(matrix_t, members, lo, hi, prior, probe_prior, kk, n_bins, out_i, out_h, t):
    """Top-kk probes of one state of at least 3 members, equal to
    ``kernels.sweeps._sweep_state``'s (same keys, the same float order of every entropy) with
    most probes never fully examined; returns False, writing nothing, when the state has fewer
    members than kk (the full sweep is then the faster way).

    Probes are taken members first, each group in ascending index. The members fill the list
    with their exact entropies; when no other probe can enter it (``_members_settle``) the
    sweep ends there. Otherwise every further probe is bounded: starting from the finest split
    (every member alone, entropy ``h0``), each member that joins a bucket lowers the entropy
    by at least ``_merge_loss``, so ``h0 - d`` bounds the entropy of every partition the
    members not yet read can complete. The bound after the three heaviest members is taken for
    all non-members in one pass; the probes it keeps are read further, heaviest member first,
    until dropped (``_drop_limits``) or complete; those get their exact entropy (``h0`` itself
    for the finest split) and enter the list by the §5.2 comparison."""
    n_probes = matrix_t.shape[1]
    m = hi - lo
    if m < kk:
        return False
    w = state_weights(prior, members, lo, hi)
    wl = _w_log_w(w)
    h0 = 0.0
    for j in range(m):
        h0 -= wl[j]
    heavy = np.argsort(-w, kind="mergesort")
    hw = np.empty(m, np.float64)
    rows = np.empty(m, np.int64)
    for q in range(m):
        hw[q] = w[heavy[q]]
        rows[q] = members[lo + heavy[q]]
    hist = np.zeros(n_bins, np.float64)
    cnt = np.zeros(n_bins, np.int64)
    touched = np.empty(m, np.int64)
    top_i, top_key, top_in, top_p, top_h = _topk_lists(kk)
    filled = 0
    win = np.inf
    lose = np.inf
    for j in range(m):  # the members
        g = members[lo + j]
        nb = 0
        if filled == kk:
            limit = lose if _tie_loses(1, probe_prior[g], g, top_in, top_p, top_i, kk) else win
            nb = _bound_scan(matrix_t, rows, hw, m, g, limit, hist, cnt, touched)
            if nb < 0:
                continue
        h = h0 if nb == m else _probe_entropy_hist(matrix_t, members, lo, m, g, w, wl, hist, cnt)
        filled = _topk_insert(top_i, top_key, top_in, top_p, top_h, filled, kk, g, np.rint(h / ROUND_STEP), 1,
                              probe_prior[g], h)
        if filled == kk:
            win, lose = _drop_limits(h0, top_key[kk - 1])
    if not _members_settle(filled, kk, h0, top_key, top_in):
        # the bound after the three heaviest members, for every probe in one pass
        r0 = matrix_t[rows[0]]
        r1 = matrix_t[rows[1]]
        r2 = matrix_t[rows[2]]
        d01 = _merge_loss(hw[0], hw[1])
        d012 = _merge_loss(hw[0] + hw[1], hw[2])
        d02 = _merge_loss(hw[0], hw[2])
        d12 = _merge_loss(hw[1], hw[2])
        loss = np.empty(n_probes, np.float64)
        for g in range(n_probes):
            a = r0[g]
            b = r1[g]
            c = r2[g]
            x = d01 if a == b else 0.0
            y = d012 if a == b else d02
            z = d12 if b == c else 0.0
            loss[g] = x + (y if a == c else z)
        scan = np.empty(n_probes, np.int64)
        n_scan = 0
        if top_in[kk - 1] == 1:  # a non-member loses every tie with a member
            for g in range(n_probes):
                if loss[g] <= lose:
                    scan[n_scan] = g
                    n_scan += 1
        else:
            for g in range(n_probes):
                limit = lose if _tie_loses(0, probe_prior[g], g, top_in, top_p, top_i, kk) else win
                if loss[g] <= limit:
                    scan[n_scan] = g
                    n_scan += 1
        ptr = lo
        for i in range(n_scan):
            g = scan[i]
            while ptr < hi and members[ptr] < g:
                ptr += 1
            if ptr < hi and members[ptr] == g:
                continue  # a member: done above
            limit = lose if _tie_loses(0, probe_prior[g], g, top_in, top_p, top_i, kk) else win
            nb = _bound_scan(matrix_t, rows, hw, m, g, limit, hist, cnt, touched)
            if nb < 0:
                continue
            # the finest split's entropy is h0 itself (singletons only: the same sum, same order)
            h = h0 if nb == m else _probe_entropy_hist(matrix_t, members, lo, m, g, w, wl, hist, cnt)
            key = np.rint(h / ROUND_STEP)
            if key < top_key[kk - 1]:
                continue
            filled = _topk_insert(top_i, top_key, top_in, top_p, top_h, filled, kk, g, key, 0, probe_prior[g], h)
            win, lose = _drop_limits(h0, top_key[kk - 1])
    for q in range(kk):
        out_i[t, q] = top_i[q]
        out_h[t, q] = top_h[q]
    return True


@njit(cache=True)
def _tree_sweep_state(matrix_t, members, offsets, s, prior, probe_prior, kk, n_bins, log2_int, out_i, out_h, t):
    lo = offsets[s]
    hi = offsets[s + 1]
    m = hi - lo
    if m < BOUND_MIN or m > BOUND_MAX or not _sweep_bounded(matrix_t, members, lo, hi, prior, probe_prior, kk, n_bins,
                                                             out_i, out_h, t):
        _sweep_state(matrix_t, members, offsets, s, prior, probe_prior, kk, n_bins, log2_int, out_i, out_h, t)


@njit(cache=True, parallel=True)
def _tree_sweep_parallel(matrix_t, members, offsets, state_ids, prior, probe_prior, kk, n_bins, out_i, out_h, perm):
    log2_int = log2_upto(n_bins + 1)
    for i in prange(state_ids.shape[0]):
        t = perm[i]
        _tree_sweep_state(matrix_t, members, offsets, state_ids[t], prior, probe_prior, kk, n_bins, log2_int, out_i,
                          out_h, t)


@njit(cache=True)
def _tree_sweep_serial(matrix_t, members, offsets, state_ids, prior, probe_prior, kk, n_bins, out_i, out_h):
    log2_int = log2_upto(n_bins + 1)
    for t in range(state_ids.shape[0]):
        _tree_sweep_state(matrix_t, members, offsets, state_ids[t], prior, probe_prior, kk, n_bins, log2_int, out_i,
                          out_h, t)


def sweep_top_k(matrix_t, members, offsets, state_ids, prior, probe_prior, k, n_bins):
    """``kernels.sweeps.sweep_top_k`` with the same arguments and the very same result
    (indices and entropies bit for bit), faster: states of ``BOUND_MIN``..``BOUND_MAX`` members
    and at least k of them are swept by the pruned scan (``_sweep_bounded``), the others by the
    entropy kernel itself. States run in parallel when the batch is big enough."""
    return batched_top_k(matrix_t, members, offsets, state_ids, prior, probe_prior, k, n_bins,
                         _tree_sweep_parallel, _tree_sweep_serial)
