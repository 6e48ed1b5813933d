"""Kernels of the batched greedy-tree evaluator behind ``termo robustness`` (the full-beam sweep).

Two jobs, done for many states at once:

* :func:`best_probes` — for every state (candidate set) of a batch, the first probe of the
  level-2 ordering (rules §5.2): entropy of the bucket distribution rounded to a 1e-9 grid,
  descending; members of the state first; probe prior descending; probe index ascending.
* :func:`partition_states` — split every state by its chosen probe into buckets (ascending
  pattern code, members ascending, the winning bucket dropped) with their probabilities.

The NumPy backend runs compiled numba kernels (``prange`` over blocks of probes, one histogram
per thread). Every other backend (JAX, CuPy, array-api-strict) runs
:func:`backends.array_api_ops.best_probes_array_api`, written with standard array-API calls plus the
backend's ``row_histogram`` kernel. The tests hold
a plain-Python oracle for both.

Numerical conventions (shared with the level-3 engine, so that values agree to the last bit):

* sums of prior weights follow NumPy's pairwise summation (:func:`pairwise_sum`);
* normalised weights are ``prior[c] / sum(prior[S])`` (``1/m`` when that sum is 0);
* ``H = -Σ`` over members in ascending index order of ``w·log2(w)`` for a member alone in its
  bucket, and of ``P_b·log2(P_b)`` at the first member of a shared bucket;
* ``P(b|S) = sum(prior[S_b]) / sum(prior[S])`` (``|S_b|/|S|`` when the latter is 0).

Two exact shortcuts make the sweep cheap (neither changes a result):

* *full split*: when some member of S puts every member in its own bucket, its entropy is the
  maximum possible, and every probe that merges two members loses at least the smaller normalised
  weight ``q_min`` in bits. If ``q_min ≥ 1e-8`` every such probe is strictly behind on the 1e-9
  grid, so the answer is the splitting member of highest prior (lowest index on ties) and no sweep
  is needed. Every full-splitting probe gets the bit-identical entropy under the convention above.
* *bounds*: a probe with ``k`` buckets has ``H ≤ log2 k`` and ``H ≤ H_½ = 2·log2 Σ_b √P_b``
  (Rényi entropies decrease with their order), and with its heaviest bucket ``p`` grouped apart
  ``H ≤ h(p) + (1 − p)·B`` for either bound ``B`` of the rest; an approximate entropy (a
  polynomial log2, error < 1e-6) bounds it tighter still. When a bound is more than 1e-7 below
  the best entropy already seen (1e-5 for the approximation), the probe cannot win and its exact
  entropy is never computed.

States left after the full-split shortcut take one of three exact sweeps (same choice, same bits):

* :func:`sweep_small` (at most ``SMALL_MAX`` members): one state per thread, every probe at once
  in vector blocks over the transposed matrix (quadratic in the members, linear in the probes);
* :func:`sweep_skewed` (larger states whose weight sits on a few members, as under a peaked
  prior): bucket masses of the heavy members first, a bound that covers whatever the light ones
  could add, and the light members read only for the few probes that survive it;
* :func:`sweep_best` (the rest): the probe-major sweep with the bounds above.
"""

from __future__ import annotations

import math

import numpy as np

# NumPy-exact sums and the §5.2 comparison, shared with the engine's kernels
from backends.constants import ROUND_STEP
from backends.kernels_entropy import pairwise_sum, probe_ahead

# numba compiles the NumPy backend's kernels (imported when one first runs); without it, or with
# TERMO_NO_NUMBA=1, the same source is interpreted: see backends/numba_shim.py
from backends.numba_shim import HAVE_NUMBA, get_num_threads, njit, prange


FULL_SPLIT_MIN_WEIGHT = 1e-8  # q_min above which the full-split shortcut is exact
BOUND_MARGIN = 1e-7  # the bucket bound skips a probe only when log2(k) < best H - this

# A cheap log2 for bounds only: exponent bits plus a degree-7 polynomial of the mantissa m in
# [1, 2) (a Chebyshev fit; largest error 8.2e-7 on a 400,001-point grid, checked by a test).
# An entropy from it is within LOG2_APPROX_ERROR of the true one (its weights sum to 1), so a
# probe whose approximate entropy + APPROX_TOL is below the running best cannot win.
LOG2_POLY = (-3.2352098285324664, 7.085102749634603, -7.3961515521566765, 5.673521559327592,
             -2.9144927004919374, 0.9507418392608008, -0.178109744194753, 0.014598489293481237)
LOG2_APPROX_ERROR = 8.2e-7
APPROX_TOL = 1e-5
_P0, _P1, _P2, _P3, _P4, _P5, _P6, _P7 = LOG2_POLY
_MANTISSA = np.uint64(0x000FFFFFFFFFFFFF)
_ONE_BITS = np.uint64(0x3FF0000000000000)
_MAGIC_BITS = np.uint64(0x4330000000000000)  # 2**52 as a double; its low bits hold an integer
_MAGIC = 4503599627371519.0  # 2**52 + 1023 (the exponent bias)
_SHIFT = np.uint64(52)
SMALL_MAX = 24  # states up to this size take the all-probes-at-once path (sweep_small)
SMALL_BLOCK = 256  # probes per vector block of sweep_small
LIGHT_MASS = 0.03  # sweep_skewed: the light members carry at most this much of a state's weight...
HEAVY_SHARE_MAX = 0.6  # ...and the heavy ones are at most this share of its members


# ---------------------------------------------------------------------------------------------
# Small shared pieces
# ---------------------------------------------------------------------------------------------
@njit(cache=True, parallel=True)
def state_weights(prior, members, offsets):
    """Per-member normalised weights ``w`` and ``w·log2 w``, and each state's prior total."""
    n_states = offsets.shape[0] - 1
    w = np.empty(members.shape[0], np.float64)
    wl = np.empty(members.shape[0], np.float64)
    totals = np.empty(n_states, np.float64)
    for s in prange(n_states):
        lo = offsets[s]
        m = offsets[s + 1] - lo
        buf = np.empty(m, np.float64)
        for j in range(m):
            buf[j] = prior[members[lo + j]]
        tot = pairwise_sum(buf, 0, m)
        totals[s] = tot
        for j in range(m):
            x = buf[j] / tot if tot > 0.0 else 1.0 / m
            w[lo + j] = x
            wl[lo + j] = x * math.log2(x) if x > 0.0 else 0.0
    return w, wl, totals


# ---------------------------------------------------------------------------------------------
# best_probes: the NumPy (numba) implementation
# ---------------------------------------------------------------------------------------------
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


@njit(cache=True)
def _exact_entropy(row, members, lo, hi, w, wl, hist, cnt, win_code):
    """Entropy of one probe (its pattern row ``row``) over ``members[lo:hi]``, in the member-order
    convention of the module doc, and whether the probe is itself a member. Leaves ``hist`` and
    ``cnt`` zeroed."""
    inc = 0
    for j in range(lo, hi):
        c = row[members[j]]
        hist[c] += w[j]
        cnt[c] += 1
        if c == win_code:
            inc = 1
    h = 0.0
    for j in range(lo, hi):
        c = row[members[j]]
        k = cnt[c]
        if k == 1:
            h -= wl[j]
        elif k > 1:
            p = hist[c]
            if p > 0.0:
                h -= p * math.log2(p)
        hist[c] = 0.0
        cnt[c] = 0
    return h, inc


PROBE_TILE = 4  # probes sharing one pass over a state's members
SEED_MEMBERS = 24  # members whose exact entropy seeds each state's running best


@njit(cache=True)
def _chain_cannot_win(k, pmax, scale, offset, limit, log2k):
    """True when ``scale·min(log2 k, h(p) + (1 - p)·log2(k - 1)) + offset`` is below ``limit``.

    ``p`` is the heaviest bucket's share: grouping it apart bounds the rest by log2(k - 1). The
    binary entropy ``h(p)`` is first bounded by ``2·√(p(1-p))`` (no logarithm), and only when
    that bound is not enough computed exactly."""
    if scale * log2k[k] + offset < limit:
        return True
    if k < 2:
        return False
    p = min(pmax, 1.0)
    q = 1.0 - p
    rest = q * log2k[k - 1]
    if scale * (2.0 * math.sqrt(p * q) + rest) + offset < limit:
        return True
    if p <= 0.0 or q <= 0.0:
        return False
    return scale * (-p * math.log2(p) - q * math.log2(q) + rest) + offset < limit


@njit(cache=True)
def _cannot_win(nb, pmax, limit, log2k):
    """True when ``H ≤ min(log2 nb, h(pmax) + (1 - pmax)·log2(nb - 1))`` is below ``limit``."""
    return _chain_cannot_win(nb, pmax, 1.0, 0.0, limit, log2k)


@njit(cache=True, fastmath={"contract"})
def _approx_log2_into(src_bits, n, mant_bits, exp_bits, out):
    """``out[i] ≈ log2`` of the doubles whose bits are ``src_bits[:n]`` (within LOG2_APPROX_ERROR;
    0 maps to a finite value). ``out`` is the float view of ``mant_bits``; ``exp_bits`` scratch.
    Vectorised; no reassociation, so the exponent comes out exact."""
    exp_f = exp_bits.view(np.float64)
    for i in range(n):
        bits = src_bits[i]
        mant_bits[i] = (bits & _MANTISSA) | _ONE_BITS
        exp_bits[i] = (bits >> _SHIFT) | _MAGIC_BITS
    for i in range(n):
        x = out[i]
        out[i] = (((((((_P7 * x + _P6) * x + _P5) * x + _P4) * x + _P3) * x + _P2) * x + _P1) * x + _P0
                  + (exp_f[i] - _MAGIC))


@njit(cache=True, fastmath={"contract", "reassoc", "nsz"})
def _neg_dot(a, b, n):
    acc = 0.0
    for i in range(n):
        acc -= a[i] * b[i]
    return acc


@njit(cache=True)
def approx_entropy_bins(row, n_bins, mant_bits, exp_bits):
    """``-Σ x·log2 x`` over a histogram row of masses, within LOG2_APPROX_ERROR (masses sum to 1)."""
    lg = mant_bits.view(np.float64)
    _approx_log2_into(row.view(np.uint64), n_bins, mant_bits, exp_bits, lg)
    return _neg_dot(row, lg, n_bins)


@njit(cache=True)
def _renyi_cannot_win(root, pmax, limit):
    """Rényi-½ bounds from ``root = Σ_b √P_b``: ``H ≤ 2·log2 root``, and with the heaviest bucket
    (mass ``p``) grouped apart, ``H ≤ h(p) + (1 - p)·(2·log2(root - √p) - log2(1 - p))``."""
    if root <= 0.0 or 2.0 * math.log2(root) < limit:
        return True
    p = min(pmax, 1.0)
    q = 1.0 - p
    rest = root - math.sqrt(p)
    if p <= 0.0 or q <= 0.0 or rest <= 0.0:
        return False
    lq = math.log2(q)
    return -p * math.log2(p) - q * lq + q * (2.0 * math.log2(rest) - lq) < limit


BIN_SCAN_MIN = 40  # states at least this large take their Rényi-½ bound off the bins, not the members


@njit(cache=True, fastmath=True)
def _scan_sqrt(row, n_bins):
    """``Σ √bin`` of a histogram row (a vectorised scan; only a bound uses it)."""
    sq = 0.0
    for c in range(n_bins):
        sq += math.sqrt(row[c])
    return sq


@njit(cache=True, fastmath=True)
def _clear(row, n_bins):
    for c in range(n_bins):
        row[c] = 0.0


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
    max_m = 1
    for s in range(n_states):
        max_m = max(max_m, offsets[s + 1] - offsets[s])
    log2k = np.zeros(max(max_m, n_bins) + 1, np.float64)
    for k in range(1, log2k.shape[0]):
        log2k[k] = math.log2(k)
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
            key = np.rint(h / ROUND_STEP)
            pg = probe_prior[g]
            if probe_ahead(key, inc, pg, g, bk[0, s], bin_[0, s], bp[0, s], bi[0, s]):
                bk[0, s] = key
                bin_[0, s] = inc
                bp[0, s] = pg
                bi[0, s] = g
                bh[0, s] = h
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
        g_start = blk * n_probes // n_blocks
        g_end = (blk + 1) * n_probes // n_blocks
        hist = np.zeros((PROBE_TILE, n_bins), np.float64)
        nb = np.zeros(PROBE_TILE, np.int64)
        pm = np.zeros(PROBE_TILE, np.float64)
        mant_bits = np.empty(n_bins, np.uint64)
        exp_bits = np.empty(n_bins, np.uint64)
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
                        if big:
                            _clear(row, n_bins)
                        else:
                            for j in range(lo, hi):
                                row[matrix[g, members[j]]] = 0.0
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
                        if big:
                            _clear(row, n_bins)
                        else:
                            for j in range(lo, hi):
                                row[matrix[g, members[j]]] = 0.0
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
                    key = np.rint(h / ROUND_STEP)
                    pg = probe_prior[g]
                    if probe_ahead(key, inc, pg, g, bk[blk, s], bin_[blk, s], bp[blk, s], bi[blk, s]):
                        bk[blk, s] = key
                        bin_[blk, s] = inc
                        bp[blk, s] = pg
                        bi[blk, s] = g
                        bh[blk, s] = h
                        limit = h - BOUND_MARGIN
    return _merged_blocks(bk, bin_, bp, bi, bh)


@njit(cache=True)
def _f(x):
    return -x * math.log2(x) if x > 0.0 else 0.0


@njit(cache=True)
def heavy_split(members, offsets, w, light_mass, n_bins):
    """Per state: the order of its members heaviest first (``perm[lo + r]`` is the position of the
    ``r``-th heaviest relative to the state's start ``lo``), how many of them carry at least
    ``1 - light_mass`` of the weight (``n_heavy``), and the slack of the bound of
    :func:`sweep_skewed`: ``f(t) + ε·log2(k_L/ε)`` with ``t`` the heavy mass, ``ε`` the light mass,
    ``k_L = min(#light, n_bins)`` and ``f(x) = -x·log2 x``. Also returns ``t``."""
    n_states = offsets.shape[0] - 1
    perm = np.empty(members.shape[0], np.int64)
    n_heavy = np.empty(n_states, np.int64)
    slack = np.empty(n_states, np.float64)
    heavy_mass = np.empty(n_states, np.float64)
    for s in range(n_states):
        lo = offsets[s]
        m = offsets[s + 1] - lo
        order = np.argsort(-w[lo : lo + m], kind="mergesort")
        t = 0.0
        h = m
        for r in range(m):
            perm[lo + r] = order[r]
            if h == m:  # still among the heavy ones
                t += w[lo + order[r]]
                if t >= 1.0 - light_mass:
                    h = r + 1
        eps = 0.0
        for r in range(h, m):
            eps += w[lo + order[r]]
        k_light = min(m - h, n_bins)
        n_heavy[s] = h
        heavy_mass[s] = t
        slack[s] = _f(t) + (eps * math.log2(k_light / eps) if eps > 0.0 and k_light > 0 else 0.0)
    return perm, n_heavy, slack, heavy_mass


@njit(cache=True)
def _heavy_cannot_win(k_heavy, p_heavy, t, slack, k_light, limit, log2k, n_bins):
    """Bound of a probe from the heavy members' buckets only (``k_heavy`` buckets, heaviest
    ``p_heavy``, total ``t``): with ``P = A + B`` (heavy + light masses), ``f(a+b) ≤ f(a) + f(b)``
    gives ``H ≤ Σ f(A_b) + Σ f(B_b) ≤ t·H(A/t) + f(t) + ε·log2(k_L/ε)``, and ``H(A/t)`` is bounded
    as in :func:`_cannot_win`; also ``H ≤ log2(min(k_heavy + k_L, n_bins))``."""
    if log2k[min(k_heavy + k_light, n_bins)] < limit:
        return True
    if t <= 0.0:
        return False
    return _chain_cannot_win(k_heavy, p_heavy / t, t, slack, limit, log2k)


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
        g_start = blk * n_probes // n_blocks
        g_end = (blk + 1) * n_probes // n_blocks
        hist = np.zeros((PROBE_TILE, n_bins), np.float64)
        nb = np.zeros(PROBE_TILE, np.int64)
        pm = np.zeros(PROBE_TILE, np.float64)
        mant_bits = np.empty(n_bins, np.uint64)
        exp_bits = np.empty(n_bins, np.uint64)
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
                        if mid - lo < 64:
                            for r in range(lo, mid):
                                row[matrix[g, heavy_members[r]]] = 0.0
                        else:
                            _clear(row, n_bins)
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
                    key = np.rint(h / ROUND_STEP)
                    pg = probe_prior[g]
                    if probe_ahead(key, inc, pg, g, bk[blk, s], bin_[blk, s], bp[blk, s], bi[blk, s]):
                        bk[blk, s] = key
                        bin_[blk, s] = inc
                        bp[blk, s] = pg
                        bi[blk, s] = g
                        bh[blk, s] = h
                        limit = h - BOUND_MARGIN
    return _merged_blocks(bk, bin_, bp, bi, bh)


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
    max_m = 1
    for s in range(n_states):
        max_m = max(max_m, offsets[s + 1] - offsets[s])
    log2k = np.zeros(max_m + 2, np.float64)
    for k in range(1, log2k.shape[0]):
        log2k[k] = math.log2(k)
    for s in prange(n_states):
        lo = offsets[s]
        hi = offsets[s + 1]
        m = hi - lo
        hist1 = np.zeros(n_bins, np.float64)
        cnt1 = np.zeros(n_bins, np.int64)
        bk = -1.0
        b_in = 0
        bp = 0.0
        bi = n_probes
        bh = -1.0
        for q in range(lo, hi):
            g = members[q]
            h, inc = _exact_entropy(matrix[g], members, lo, hi, w, wl, hist1, cnt1, win_code)
            key = np.rint(h / ROUND_STEP)
            pg = probe_prior[g]
            if probe_ahead(key, inc, pg, g, bk, b_in, bp, bi):
                bk, b_in, bp, bi, bh = key, inc, pg, g, h
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
                h, inc = _exact_entropy(matrix[g], members, lo, hi, w, wl, hist1, cnt1, win_code)
                key = np.rint(h / ROUND_STEP)
                pg = probe_prior[g]
                if probe_ahead(key, inc, pg, g, bk, b_in, bp, bi):
                    bk, b_in, bp, bi, bh = key, inc, pg, g, h
                    limit = bh - BOUND_MARGIN
        out[s] = bi
        out_h[s] = bh
    return out, out_h


def scan_order(matrix, probe_prior):
    """(probe order by prior descending then index, and the matrix transposed in that order:
    ``order_t[c, q] = matrix[order[q], c]``) for the full-split scan; compute once per prior."""
    probe_prior = np.asarray(probe_prior, dtype=np.float64)
    order = np.lexsort((np.arange(probe_prior.shape[0]), -probe_prior)).astype(np.int64)
    return order, np.ascontiguousarray(np.asarray(matrix)[order].T)


def best_probes_numba(matrix, members, offsets, prior, probe_prior, win_code, n_bins, shortcut=True, order=None,
                      small_max=SMALL_MAX, light_mass=LIGHT_MASS):
    """NumPy backend: (best probe index, its entropy) for every state ``members[offsets[s]:offsets[s+1]]``.

    ``order`` is :func:`scan_order` of (matrix, probe_prior), computed here when not given.
    ``shortcut`` enables the full-split shortcut; states of at most ``small_max`` members left
    after it run :func:`sweep_small`; larger ones run :func:`sweep_skewed` when members carrying
    ``1 - light_mass`` of the weight are at most ``HEAVY_SHARE_MAX`` of them (``light_mass = 0``
    turns that path off), else :func:`sweep_best`. Every path is exact; the switches exist for
    tests and benchmarks."""
    members = np.ascontiguousarray(members, dtype=np.int32)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    prior = np.ascontiguousarray(prior, dtype=np.float64)
    probe_prior = np.ascontiguousarray(probe_prior, dtype=np.float64)
    n_states = offsets.shape[0] - 1
    if probe_prior.shape[0] != matrix.shape[0] or prior.shape[0] != matrix.shape[1]:
        raise ValueError("best_probes: need one prior weight per answer and one tie-break weight per probe")
    if n_states == 0:
        return np.empty(0, np.int64), np.empty(0, np.float64)
    w, wl, _ = state_weights(prior, members, offsets)
    if shortcut or small_max > 0:
        probe_order, order_t = order if order is not None else scan_order(matrix, probe_prior)
    if shortcut:
        best, best_h = full_split_choice(matrix, order_t, members, offsets, w, wl, probe_prior, probe_order, n_bins,
                                         FULL_SPLIT_MIN_WEIGHT)
    else:
        best = np.full(n_states, -1, np.int64)
        best_h = np.zeros(n_states, np.float64)
    sizes = offsets[1:] - offsets[:-1]
    left = best < 0
    small = np.flatnonzero(left & (sizes <= small_max))
    if small.size:
        idx, sub_off = _subset(offsets, small)
        best[small], best_h[small] = sweep_small(matrix, order_t, probe_order, members[idx], sub_off, w[idx], wl[idx],
                                                 probe_prior, win_code, n_bins)
    large = np.flatnonzero(left & (sizes > small_max))
    if large.size:
        idx, sub_off = _subset(offsets, large)
        lm, lw, lwl = members[idx], w[idx], wl[idx]
        n_blocks = max(1, min(matrix.shape[0], 4 * get_num_threads()))
        perm, n_heavy, slack, heavy_mass = heavy_split(lm, sub_off, lw, light_mass, n_bins)
        skewed = n_heavy <= HEAVY_SHARE_MAX * sizes[large] if light_mass > 0.0 else np.zeros(large.size, bool)
        for part, heavy_first in ((np.flatnonzero(skewed), True), (np.flatnonzero(~skewed), False)):
            if not part.size:
                continue
            pidx, part_off = _subset(sub_off, part)
            args = (matrix, lm[pidx], part_off, lw[pidx], lwl[pidx], probe_prior, win_code, n_bins, n_blocks)
            if heavy_first:  # perm is relative to each state's start: it survives the subset
                g, h = sweep_skewed(*args, perm[pidx], n_heavy[part], slack[part], heavy_mass[part])
            else:
                g, h = sweep_best(*args)
            best[large[part]] = g
            best_h[large[part]] = h
    return best, best_h


def _subset(offsets, ids):
    """Positions of the members of states ``ids`` and the offsets of that subset of states."""
    sub_off = np.zeros(ids.size + 1, np.int64)
    np.cumsum(offsets[ids + 1] - offsets[ids], out=sub_off[1:])
    return _gather_index(offsets, ids, sub_off), sub_off


@njit(cache=True)
def _gather_index_nb(offsets, todo, sub_off):
    out = np.empty(sub_off[-1], np.int64)
    for t in range(todo.shape[0]):
        s = todo[t]
        base = sub_off[t]
        for j in range(offsets[s + 1] - offsets[s]):
            out[base + j] = offsets[s] + j
    return out


def _gather_index(offsets, todo, sub_off):
    return _gather_index_nb(offsets, todo.astype(np.int64), sub_off)


# ---------------------------------------------------------------------------------------------
# Partition of states by their chosen probes (host bookkeeping, compiled)
# ---------------------------------------------------------------------------------------------
@njit(cache=True)
def partition_states(matrix, members, offsets, guesses, prior, win_code, n_bins):
    """Non-winning buckets of every state under its guess, ascending code, members ascending.

    Returns ``(child_members, child_offsets, child_parent, child_prob, single)``: child ``k``
    is ``child_members[child_offsets[k]:child_offsets[k+1]]``, a bucket of state
    ``child_parent[k]`` with probability ``child_prob[k]``; ``single[s]`` is True when the guess
    leaves state ``s`` whole in one bucket (an infinite cost; the state then has no children).
    """
    n_states = offsets.shape[0] - 1
    total_members = offsets[n_states]
    cm = np.empty(total_members, np.int32)
    n_children_max = total_members
    co = np.empty(n_children_max + 1, np.int64)
    cp = np.empty(n_children_max, np.int64)
    cprob = np.empty(n_children_max, np.float64)
    single = np.zeros(n_states, np.bool_)
    cnt = np.zeros(n_bins, np.int64)
    pos = np.zeros(n_bins, np.int64)
    nc = 0
    mptr = 0
    co[0] = 0
    for s in range(n_states):
        lo = offsets[s]
        hi = offsets[s + 1]
        m = hi - lo
        row = matrix[guesses[s]]
        buf = np.empty(m, np.float64)
        n_distinct = 0
        for j in range(m):
            c = members[lo + j]
            code = row[c]
            if cnt[code] == 0:
                n_distinct += 1
            cnt[code] += 1
            buf[j] = prior[c]
        total = pairwise_sum(buf, 0, m)
        if n_distinct == 1 and cnt[win_code] == 0:
            single[s] = True
            for j in range(m):
                cnt[row[members[lo + j]]] = 0
            continue
        run = mptr
        first_child = nc
        for code in range(n_bins):
            k = cnt[code]
            if k > 0 and code != win_code:
                pos[code] = run
                run += k
                cp[nc] = s
                nc += 1
                co[nc] = run
        for j in range(m):
            c = members[lo + j]
            code = row[c]
            if code != win_code:
                cm[pos[code]] = c
                pos[code] += 1
        for j in range(m):
            cnt[row[members[lo + j]]] = 0
        for k in range(first_child, nc):
            a = co[k]
            size = co[k + 1] - a
            if total > 0.0:
                for j in range(size):
                    buf[j] = prior[cm[a + j]]
                cprob[k] = pairwise_sum(buf, 0, size) / total
            else:
                cprob[k] = size / m
        mptr = run
    return cm[:mptr], co[: nc + 1].copy(), cp[:nc].copy(), cprob[:nc].copy(), single


@njit(cache=True)
def leaf_values(members, offsets, prior, rounds_left, loss):
    """Values of states that need no guess: ``r ≤ 0`` → loss; one member → 1; two members →
    ``1 + f·w_min/(w_0+w_1)`` with ``f = 1`` when ``r ≥ 2`` else ``loss``; NaN for larger states."""
    n = offsets.shape[0] - 1
    out = np.empty(n, np.float64)
    for s in range(n):
        m = offsets[s + 1] - offsets[s]
        r = rounds_left
        if r <= 0:
            out[s] = loss
        elif m == 1:
            out[s] = 1.0
        elif m == 2:
            a = prior[members[offsets[s]]]
            b = prior[members[offsets[s] + 1]]
            tot = a + b
            pmin = (min(a, b) / tot) if tot > 0.0 else 0.5
            out[s] = 1.0 + (1.0 if r >= 2 else loss) * pmin
        else:
            out[s] = np.nan
    return out


@njit(cache=True)
def reduce_values(n_parents, child_parent, child_prob, child_value, single):
    """``V(parent) = 1 + Σ_children P·V`` summed sequentially in child order (ascending code);
    ``inf`` for a parent whose guess did not split it."""
    acc = np.zeros(n_parents, np.float64)
    for k in range(child_parent.shape[0]):
        acc[child_parent[k]] += child_prob[k] * child_value[k]
    out = np.empty(n_parents, np.float64)
    for s in range(n_parents):
        out[s] = np.inf if single[s] else 1.0 + acc[s]
    return out


# ---------------------------------------------------------------------------------------------
# Entropy of every probe over one state (root rankings)
# ---------------------------------------------------------------------------------------------
@njit(cache=True, parallel=True)
def _entropies_one_state(matrix, members, w, wl, win_code, n_bins):
    n_probes = matrix.shape[0]
    m = members.shape[0]
    out_h = np.zeros(n_probes, np.float64)
    out_in = np.zeros(n_probes, np.int64)
    n_blocks = (n_probes + 31) // 32
    for blk in prange(n_blocks):
        hist = np.zeros(n_bins, np.float64)
        cnt = np.zeros(n_bins, np.int64)
        for g in range(blk * 32, min(n_probes, (blk + 1) * 32)):
            h, inc = _exact_entropy(matrix[g], members, 0, m, w, wl, hist, cnt, win_code)
            out_h[g] = h
            out_in[g] = inc
    return out_h, out_in
