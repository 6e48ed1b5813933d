"""The full-beam kernels of small states: the exact full-split shortcut
(:func:`full_split_choice`: a probe that gives every member its own bucket wins outright when no
weight is tiny) and :func:`sweep_small`, one state per thread over every probe at once in vector
blocks of the transposed matrix (``order_t``, see ``kernels.fullbeam.scan_order``)."""

from __future__ import annotations

import numpy as np

from backends.kernels.fullbeam_bounds import (APPROX_TOL, BOUND_MARGIN, _approx_log2_into, keep_if_ahead, largest_state,
                                              start_best)
from backends.kernels.sums import log2_upto
from backends.numba_shim import njit, prange


SMALL_BLOCK = 256  # probes per vector block of sweep_small


@njit(cache=True)
def _splits_fully(row, members, lo, hi, seen):
    """Does the probe with pattern row ``row`` give every member of the state its own code?

    Codes below 256 are tracked in a 256-bit mask held in four integers (nothing to clear);
    larger code spaces use ``seen`` (left all False)."""
    if seen.shape[0] <= 256:
        b0 = np.uint64(0)
        b1 = np.uint64(0)
        b2 = np.uint64(0)
        b3 = np.uint64(0)
        one = np.uint64(1)
        for j in range(lo, hi):
            c = np.int64(row[members[j]])
            bit = one << np.uint64(c & 63)
            word = c >> 6
            if word == 0:
                if b0 & bit:
                    return False
                b0 |= bit
            elif word == 1:
                if b1 & bit:
                    return False
                b1 |= bit
            elif word == 2:
                if b2 & bit:
                    return False
                b2 |= bit
            else:
                if b3 & bit:
                    return False
                b3 |= bit
        return True
    ok = True
    stop = hi
    for j in range(lo, hi):
        c = row[members[j]]
        if seen[c]:
            ok = False
            stop = j
            break
        seen[c] = True
    for j in range(lo, stop):
        seen[row[members[j]]] = False
    return ok


SCAN_MAX = 24  # states up to this size also scan every probe for a full split


@njit(cache=True)
def _first_full_splitter(order_t, members, lo, hi, collide):
    """First position ``q`` of the prior order whose probe gives every member of
    ``members[lo:hi]`` its own code (-1 if none). ``order_t[c, q]`` is the code of the ``q``-th
    probe on answer ``c``; blocks of probes are checked at once (byte compares of every pair of
    members, vectorised), and the scan stops at the first block holding a splitter."""
    n_probes = order_t.shape[1]
    block = collide.shape[0]
    for q0 in range(0, n_probes, block):
        nq = min(block, n_probes - q0)
        for p in range(nq):
            collide[p] = 0
        for i in range(lo, hi):
            ri = order_t[members[i], q0 : q0 + nq]
            for j in range(i + 1, hi):
                rj = order_t[members[j], q0 : q0 + nq]
                for p in range(nq):
                    collide[p] |= np.uint8(ri[p] == rj[p])
        for p in range(nq):
            if collide[p] == 0:
                return q0 + p
    return -1


@njit(cache=True, parallel=True)
def full_split_choice(matrix, order_t, members, offsets, w, wl, probe_prior, probe_order, n_bins, min_weight):
    """The exact full-split shortcut: chosen probe per state, or -1 when it does not apply.

    Members are tried first (a member is ahead of every non-member on the same entropy); among
    them the highest prior wins, lowest index on ties. Failing that, for states of at most
    ``SCAN_MAX`` members, non-members are scanned in ``probe_order`` (prior descending, index
    ascending) and the first full splitter wins (:func:`_first_full_splitter`).
    """
    n_states = offsets.shape[0] - 1
    n_probes = matrix.shape[0]
    out = np.full(n_states, -1, np.int64)
    out_h = np.zeros(n_states, np.float64)
    for s in prange(n_states):
        lo = offsets[s]
        hi = offsets[s + 1]
        m = hi - lo
        if m > n_bins:
            continue
        qmin = 1.0
        for j in range(lo, hi):
            if w[j] < qmin:
                qmin = w[j]
        if qmin < min_weight:
            continue
        seen = np.zeros(n_bins, np.bool_)
        collide = np.empty(SMALL_BLOCK, np.uint8)
        best = -1
        for i in range(lo, hi):
            g = members[i]
            if _splits_fully(matrix[g], members, lo, hi, seen):
                if best < 0 or probe_prior[g] > probe_prior[best]:
                    best = g
        if best < 0 and m <= SCAN_MAX:
            q = _first_full_splitter(order_t, members, lo, hi, collide)
            if q >= 0:
                best = probe_order[q]  # members were checked already: this is a non-member
        if best >= 0:
            h = 0.0
            for j in range(lo, hi):
                h -= wl[j]
            out[s] = best
            out_h[s] = h
    return out, out_h


@njit(cache=True, parallel=True)
def sweep_small(matrix, order_t, probe_order, members, offsets, w, wl, probe_prior, win_code, n_bins):
    """Same contract as :func:`sweep_best`, for small states: one state per thread, every probe
    at once in vector blocks.

    ``order_t[c, q]`` is the code of probe ``probe_order[q]`` on answer ``c`` (see
    :func:`scan_order`): each member's codes for a block of probes are contiguous, so the
    quadratic pass below runs on vectors of probes. For member ``j`` it finds, for every probe of
    the block, whether ``j`` is the first member of its bucket and the bucket's mass (the members
    after ``j`` with ``j``'s code); first members give the bucket count ``k`` and an approximate
    entropy (:data:`LOG2_POLY`). Only a probe with ``log2 k`` and approximate entropy + APPROX_TOL
    both at least the running best (minus BOUND_MARGIN) gets its exact entropy and §5.2 key, as in
    :func:`sweep_best`. Every member is a seed. The §5.2 order is total, so the scan order of the
    probes does not matter.
    """
    n_probes = matrix.shape[0]
    n_states = offsets.shape[0] - 1
    out = np.empty(n_states, np.int64)
    out_h = np.empty(n_states, np.float64)
    log2k = log2_upto(largest_state(offsets) + 1)
    for s in prange(n_states):
        lo = offsets[s]
        hi = offsets[s + 1]
        m = hi - lo
        hist1, cnt1, bk, b_in, bp, bi, bh = start_best(n_bins, n_probes)
        for q in range(lo, hi):
            g = members[q]
            bk, b_in, bp, bi, bh, _ = keep_if_ahead(matrix[g], g, members, lo, hi, w, wl, probe_prior, hist1, cnt1,
                                                    win_code, bk, b_in, bp, bi, bh)
        count = np.empty(SMALL_BLOCK, np.int64)
        happrox = np.empty(SMALL_BLOCK, np.float64)
        mass = np.empty(SMALL_BLOCK, np.float64)
        first = np.empty(SMALL_BLOCK, np.uint8)
        mant_bits = np.empty(SMALL_BLOCK, np.uint64)
        exp_bits = np.empty(SMALL_BLOCK, np.uint64)
        lg = mant_bits.view(np.float64)
        for q0 in range(0, n_probes, SMALL_BLOCK):
            nq = min(SMALL_BLOCK, n_probes - q0)
            for p in range(nq):
                count[p] = 0
                happrox[p] = 0.0
            for j in range(m):
                rj = order_t[members[lo + j], q0 : q0 + nq]
                wj = w[lo + j]
                for p in range(nq):
                    first[p] = 1
                    mass[p] = wj
                for i in range(j):
                    ri = order_t[members[lo + i], q0 : q0 + nq]
                    for p in range(nq):
                        first[p] &= np.uint8(ri[p] != rj[p])
                for i in range(j + 1, m):
                    ri = order_t[members[lo + i], q0 : q0 + nq]
                    wi = w[lo + i]
                    for p in range(nq):
                        mass[p] += wi if ri[p] == rj[p] else 0.0
                _approx_log2_into(mass.view(np.uint64), nq, mant_bits, exp_bits, lg)
                for p in range(nq):
                    f = first[p]
                    count[p] += f
                    happrox[p] -= (mass[p] if f else 0.0) * lg[p]
            limit = bh - BOUND_MARGIN
            for p in range(nq):
                if log2k[count[p]] < limit or happrox[p] + APPROX_TOL < limit:
                    continue
                g = probe_order[q0 + p]
                bk, b_in, bp, bi, bh, ahead = keep_if_ahead(matrix[g], g, members, lo, hi, w, wl, probe_prior, hist1,
                                                            cnt1, win_code, bk, b_in, bp, bi, bh)
                if ahead:
                    limit = bh - BOUND_MARGIN
        out[s] = bi
        out_h[s] = bh
    return out, out_h
