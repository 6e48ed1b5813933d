"""The probe-major full-beam sweeps of larger states: :func:`sweep_best` (every probe, bounded)
and :func:`sweep_skewed` (states whose weight sits on a few members: the heavy members' buckets
first). Blocks of probes run in parallel, each with its own running best per state, merged in
order at the end (the §5.2 order is total, so the merge is exact)."""

from __future__ import annotations

import math

import numpy as np

from backends.constants import ROUND_STEP
from backends.kernels.entropy import probe_ahead
from backends.kernels.fullbeam_bounds import (APPROX_TOL, BOUND_MARGIN, _cannot_win, _clear, _exact_entropy,
                                              _heavy_cannot_win, _renyi_cannot_win, _scan_sqrt,
                                              approx_entropy_bins, largest_state)
from backends.kernels.sums import log2_upto
from backends.numba_shim import njit, prange


PROBE_TILE = 4  # probes sharing one pass over a state's members
SEED_MEMBERS = 24  # members whose exact entropy seeds each state's running best
BIN_SCAN_MIN = 40  # states at least this large take their Rényi-½ bound off the bins, not the members


@njit(cache=True, inline="always")
def _tile_masses(matrix, g0, nt, members, w, r_lo, r_hi, hist, nb, pm):
    """Scatter-add the weights ``w[r_lo:r_hi]`` of ``members[r_lo:r_hi]`` into the histograms of probes
    ``g0 .. g0+nt-1`` (``hist`` rows, left zeroed before), with each probe's bucket count ``nb``
    and heaviest bucket ``pm``. Four probes share each pass (independent chains)."""
    if nt == 4:
        k0 = 0
        k1 = 0
        k2 = 0
        k3 = 0
        p0 = 0.0
        p1 = 0.0
        p2 = 0.0
        p3 = 0.0
        for r in range(r_lo, r_hi):
            cj = members[r]
            wj = w[r]
            c0 = matrix[g0, cj]
            c1 = matrix[g0 + 1, cj]
            c2 = matrix[g0 + 2, cj]
            c3 = matrix[g0 + 3, cj]
            x0 = hist[0, c0]
            x1 = hist[1, c1]
            x2 = hist[2, c2]
            x3 = hist[3, c3]
            k0 += x0 == 0.0
            k1 += x1 == 0.0
            k2 += x2 == 0.0
            k3 += x3 == 0.0
            x0 += wj
            x1 += wj
            x2 += wj
            x3 += wj
            hist[0, c0] = x0
            hist[1, c1] = x1
            hist[2, c2] = x2
            hist[3, c3] = x3
            p0 = max(p0, x0)
            p1 = max(p1, x1)
            p2 = max(p2, x2)
            p3 = max(p3, x3)
        nb[0] = k0
        nb[1] = k1
        nb[2] = k2
        nb[3] = k3
        pm[0] = p0
        pm[1] = p1
        pm[2] = p2
        pm[3] = p3
        return
    for t in range(nt):
        nb[t] = 0
        pm[t] = 0.0
    for r in range(r_lo, r_hi):
        cj = members[r]
        wj = w[r]
        for t in range(nt):
            c = matrix[g0 + t, cj]
            x = hist[t, c]
            nb[t] += x == 0.0
            x += wj
            hist[t, c] = x
            pm[t] = max(pm[t], x)


@njit(cache=True)
def _offer(bk, bin_, bp, bi, bh, blk, s, h, inc, pg, g):
    """Make probe ``g`` (entropy ``h``, membership ``inc``, prior ``pg``) the running best of state
    ``s`` in block ``blk`` if it is ahead in the §5.2 order; True when it is."""
    key = np.rint(h / ROUND_STEP)
    if not probe_ahead(key, inc, pg, g, bk[blk, s], bin_[blk, s], bp[blk, s], bi[blk, s]):
        return False
    bk[blk, s] = key
    bin_[blk, s] = inc
    bp[blk, s] = pg
    bi[blk, s] = g
    bh[blk, s] = h
    return True


@njit(cache=True)
def _clear_row(row, n_bins, whole, matrix, g, members, lo, hi):
    """Zero a tile's histogram row after probe ``g``: every bin when ``whole``, else only the bins
    of the members ``members[lo:hi]`` (cheaper for a small state)."""
    if whole:
        _clear(row, n_bins)
    else:
        for j in range(lo, hi):
            row[matrix[g, members[j]]] = 0.0


@njit(cache=True)
def _block_scratch(blk, n_blocks, n_probes, n_bins):
    """Block ``blk``'s probes ``g_start .. g_end`` and its scratch: the tile's histograms, bucket
    counts and heaviest buckets, and the bit buffers of the approximate log2."""
    return (blk * n_probes // n_blocks, (blk + 1) * n_probes // n_blocks, np.zeros((PROBE_TILE, n_bins), np.float64),
            np.zeros(PROBE_TILE, np.int64), np.zeros(PROBE_TILE, np.float64), np.empty(n_bins, np.uint64),
            np.empty(n_bins, np.uint64))


@njit(cache=True, parallel=True)
def _seeded_blocks(matrix, members, offsets, w, wl, probe_prior, win_code, n_bins, n_blocks):
    """Per-block running bests ``(key, member, prior, index, H)`` of every state, all seeded with
    the exact key of up to SEED_MEMBERS members, and ``log2k[k] = log2 k``."""
    n_probes = matrix.shape[0]
    n_states = offsets.shape[0] - 1
    bk = np.full((n_blocks, n_states), -1.0)
    bin_ = np.zeros((n_blocks, n_states), np.int64)
    bp = np.zeros((n_blocks, n_states), np.float64)
    bi = np.full((n_blocks, n_states), n_probes, np.int64)
    bh = np.full((n_blocks, n_states), -1.0)
    log2k = log2_upto(max(largest_state(offsets), n_bins))
    # seeds: the exact key of up to SEED_MEMBERS members of each state
    for s in prange(n_states):
        lo = offsets[s]
        hi = offsets[s + 1]
        m = hi - lo
        step = max(1, m // SEED_MEMBERS)
        hist1 = np.zeros(n_bins, np.float64)
        cnt1 = np.zeros(n_bins, np.int64)
        for q in range(lo, hi, step):
            g = members[q]
            h, inc = _exact_entropy(matrix[g], members, lo, hi, w, wl, hist1, cnt1, win_code)
            _offer(bk, bin_, bp, bi, bh, 0, s, h, inc, probe_prior[g], g)
        for blk in range(1, n_blocks):
            bk[blk, s] = bk[0, s]
            bin_[blk, s] = bin_[0, s]
            bp[blk, s] = bp[0, s]
            bi[blk, s] = bi[0, s]
            bh[blk, s] = bh[0, s]
    return bk, bin_, bp, bi, bh, log2k


@njit(cache=True)
def _merged_blocks(bk, bin_, bp, bi, bh):
    """The best of every state over the blocks (the §5.2 order is total: the merge is exact)."""
    n_blocks, n_states = bk.shape
    out = np.empty(n_states, np.int64)
    out_h = np.empty(n_states, np.float64)
    for s in range(n_states):
        b = 0
        for blk in range(1, n_blocks):
            if probe_ahead(bk[blk, s], bin_[blk, s], bp[blk, s], bi[blk, s], bk[b, s], bin_[b, s], bp[b, s], bi[b, s]):
                b = blk
        out[s] = bi[b, s]
        out_h[s] = bh[b, s]
    return out, out_h


@njit(cache=True, parallel=True)
def sweep_best(matrix, members, offsets, w, wl, probe_prior, win_code, n_bins, n_blocks):
    """First probe of the §5.2 order for every state, by a probe-major sweep over all probes.

    Blocks of consecutive probes run in parallel; each keeps its own best per state (seeded with
    the exact key of a few members, so that the bounds bite at once), and the blocks are merged
    in order at the end (the order is total, so the merge is exact). Inside a block,
    ``PROBE_TILE`` probes share each pass over a state's members:

    1. bucket masses (a scatter-add),
       with the number of buckets ``k`` and the heaviest bucket ``p``: ``H ≤ log2 k`` and
       ``H ≤ h(p) + (1 − p)·log2(k − 1)``;
    2. if those allow a win, the Rényi-½ bound ``H ≤ 2·log2 Σ_b √P_b`` (over the bins for large
       states, over the members for small ones);
    3. only if every bound allows a win: the exact entropy in member order from the same
       histogram, and the §5.2 key. The histograms end cleared either way.

    A zero-weight member can count its bucket twice: ``k`` only grows, so it is still a bound.
    """
    n_probes = matrix.shape[0]
    n_states = offsets.shape[0] - 1
    bk, bin_, bp, bi, bh, log2k = _seeded_blocks(matrix, members, offsets, w, wl, probe_prior, win_code, n_bins,
                                                 n_blocks)
    for blk in prange(n_blocks):
        g_start, g_end, hist, nb, pm, mant_bits, exp_bits = _block_scratch(blk, n_blocks, n_probes, n_bins)
        for g0 in range(g_start, g_end, PROBE_TILE):
            nt = min(PROBE_TILE, g_end - g0)
            for s in range(n_states):
                lo = offsets[s]
                hi = offsets[s + 1]
                limit = bh[blk, s] - BOUND_MARGIN
                # pass 1: bucket masses, bucket counts and heaviest buckets
                _tile_masses(matrix, g0, nt, members, w, lo, hi, hist, nb, pm)
                # pass 2: where the count / heaviest-bucket bound allows a win, the Rényi-½ bounds;
                # then (large states) the approximate entropy off the bins; where all of these
                # allow a win, the exact entropy straight from the histogram
                # (its masses were accumulated in member order, as the exact convention wants:
                # each bucket's P·log2 P is subtracted at its first member; for a bucket of one
                # member that is bit for bit w·log2 w). Histograms end cleared either way.
                big = hi - lo >= BIN_SCAN_MIN
                for t in range(nt):
                    row = hist[t]
                    g = g0 + t
                    if _cannot_win(min(nb[t], log2k.shape[0] - 1), pm[t], limit, log2k):
                        _clear_row(row, n_bins, big, matrix, g, members, lo, hi)
                        continue
                    if big:
                        root = _scan_sqrt(row, n_bins)
                    else:
                        root = 0.0
                        for j in range(lo, hi):  # each bucket once: visited masses turn negative
                            c = matrix[g, members[j]]
                            x = row[c]
                            if x > 0.0:
                                root += math.sqrt(x)
                                row[c] = -x
                    if _renyi_cannot_win(root, pm[t], limit) or (
                            big and approx_entropy_bins(row, n_bins, mant_bits, exp_bits) + APPROX_TOL < limit):
                        _clear_row(row, n_bins, big, matrix, g, members, lo, hi)
                        continue
                    h = 0.0
                    inc = 0
                    for j in range(lo, hi):
                        c = matrix[g, members[j]]
                        x = abs(row[c])
                        if x > 0.0:
                            h -= x * math.log2(x)
                        row[c] = 0.0
                        if c == win_code:
                            inc = 1
                    if _offer(bk, bin_, bp, bi, bh, blk, s, h, inc, probe_prior[g], g):
                        limit = h - BOUND_MARGIN
    return _merged_blocks(bk, bin_, bp, bi, bh)


@njit(cache=True, parallel=True)
def sweep_skewed(matrix, members, offsets, w, wl, probe_prior, win_code, n_bins, n_blocks, perm, n_heavy, slack,
                 heavy_mass):
    """Same contract as :func:`sweep_best`, for large states whose weight sits on a few members
    (see :func:`heavy_split`): each probe's bucket masses are first summed over the heavy
    members only, and :func:`_heavy_cannot_win` drops most probes before the light members are
    read. Survivors get the full histogram (heavy first, so not in member order), the bounds of
    :func:`sweep_best` and the approximate entropy, then their exact entropy recomputed in member
    order (:func:`_exact_entropy`), so the choice is bit-identical to the plain sweep."""
    n_probes = matrix.shape[0]
    n_states = offsets.shape[0] - 1
    bk, bin_, bp, bi, bh, log2k = _seeded_blocks(matrix, members, offsets, w, wl, probe_prior, win_code, n_bins,
                                                 n_blocks)
    heavy_members = np.empty_like(members)  # every state's members, heaviest first
    heavy_w = np.empty_like(w)
    for s in range(n_states):
        for r in range(offsets[s], offsets[s + 1]):
            heavy_members[r] = members[offsets[s] + perm[r]]
            heavy_w[r] = w[offsets[s] + perm[r]]
    for blk in prange(n_blocks):
        g_start, g_end, hist, nb, pm, mant_bits, exp_bits = _block_scratch(blk, n_blocks, n_probes, n_bins)
        hist1 = np.zeros(n_bins, np.float64)
        cnt1 = np.zeros(n_bins, np.int64)
        for g0 in range(g_start, g_end, PROBE_TILE):
            nt = min(PROBE_TILE, g_end - g0)
            for s in range(n_states):
                lo = offsets[s]
                hi = offsets[s + 1]
                mid = lo + n_heavy[s]
                k_light = min(hi - mid, n_bins)
                limit = bh[blk, s] - BOUND_MARGIN
                _tile_masses(matrix, g0, nt, heavy_members, heavy_w, lo, mid, hist, nb, pm)
                for t in range(nt):
                    row = hist[t]
                    g = g0 + t
                    if _heavy_cannot_win(nb[t], pm[t], heavy_mass[s], slack[s], k_light, limit, log2k, n_bins):
                        _clear_row(row, n_bins, mid - lo >= 64, matrix, g, heavy_members, lo, mid)
                        continue
                    k = nb[t]
                    p = pm[t]
                    for r in range(mid, hi):  # light members
                        c = matrix[g, heavy_members[r]]
                        x = row[c]
                        k += x == 0.0
                        x += heavy_w[r]
                        row[c] = x
                        p = max(p, x)
                    hopeless = (_cannot_win(min(k, log2k.shape[0] - 1), p, limit, log2k)
                                or _renyi_cannot_win(_scan_sqrt(row, n_bins), p, limit)
                                or approx_entropy_bins(row, n_bins, mant_bits, exp_bits) + APPROX_TOL < limit)
                    _clear(row, n_bins)  # not in member order: the exact entropy is recomputed
                    if hopeless:
                        continue
                    h, inc = _exact_entropy(matrix[g], members, lo, hi, w, wl, hist1, cnt1, win_code)
                    if _offer(bk, bin_, bp, bi, bh, blk, s, h, inc, probe_prior[g], g):
                        limit = h - BOUND_MARGIN
    return _merged_blocks(bk, bin_, bp, bi, bh)
