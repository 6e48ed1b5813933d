"""Kernels of the batched greedy-tree evaluator behind ``termo robustness`` (the full-beam sweep).

Two jobs, done for many states at once:

* :func:`best_probes` — for every state (candidate set) of a batch, the first probe of the
  level-2 ordering (spec §5.2): entropy of the bucket distribution rounded to a 1e-9 grid,
  descending; members of the state first; probe prior descending; probe index ascending.
* :func:`partition_states` — split every state by its chosen probe into buckets (ascending
  pattern code, members ascending, the winning bucket dropped) with their probabilities.

The NumPy backend runs compiled numba kernels (``prange`` over blocks of probes, one histogram
per thread). Every other backend (JAX, CuPy, array-api-strict) runs :func:`best_probes_array_api`,
written with standard array-API calls plus the backend's ``row_histogram`` kernel. The tests hold
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
  (Rényi entropies decrease with their order); when a bound is more than 1e-7 below the best
  entropy already seen, the probe cannot win and its logarithms are skipped.
"""

from __future__ import annotations

import math

import numpy as np

# NumPy-exact sums and the §5.2 comparison, shared with the engine's kernels
from backends.kernels_entropy import pairwise_sum, probe_ahead

try:  # numba compiles the NumPy backend's kernels; without it the same source is interpreted
    from numba import get_num_threads, njit, prange

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is a hard dependency of the NumPy fast path
    HAVE_NUMBA = False
    prange = range

    def get_num_threads() -> int:
        return 1

    def njit(*args, **kwargs):
        def wrap(fn):
            fn.py_func = fn
            return fn

        if len(args) == 1 and callable(args[0]) and not kwargs:
            return wrap(args[0])
        return wrap


ROUND_STEP = 1e-9  # entropies on the same 1e-9 grid point are ties (spec §5.2)
FULL_SPLIT_MIN_WEIGHT = 1e-8  # q_min above which the full-split shortcut is exact
BOUND_MARGIN = 1e-7  # the bucket bound skips a probe only when log2(k) < best H - this


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


@njit(cache=True, parallel=True)
def full_split_choice(matrix, order_t, members, offsets, w, wl, probe_prior, probe_order, n_bins, min_weight):
    """The exact full-split shortcut: chosen probe per state, or -1 when it does not apply.

    Members are tried first (a member is ahead of every non-member on the same entropy); among
    them the highest prior wins, lowest index on ties. Failing that, for states of at most
    ``SCAN_MAX`` members, non-members are scanned in ``probe_order`` (prior descending, index
    ascending) and the first full splitter wins; the scan stops a probe at its first collision.
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
        best = -1
        for i in range(lo, hi):
            g = members[i]
            if _splits_fully(matrix[g], members, lo, hi, seen):
                if best < 0 or probe_prior[g] > probe_prior[best]:
                    best = g
        if best < 0 and m <= SCAN_MAX and n_bins <= 256:
            # order_t[c, q] = code of probe probe_order[q] on answer c: each member's row is
            # streamed in order, so the scan runs at memory speed
            for q in range(n_probes):
                ok = True
                b0 = np.uint64(0)
                b1 = np.uint64(0)
                b2 = np.uint64(0)
                b3 = np.uint64(0)
                for j in range(lo, hi):
                    c = np.int64(order_t[members[j], q])
                    bit = np.uint64(1) << np.uint64(c & 63)
                    word = c >> 6
                    if word == 0:
                        if b0 & bit:
                            ok = False
                            break
                        b0 |= bit
                    elif word == 1:
                        if b1 & bit:
                            ok = False
                            break
                        b1 |= bit
                    elif word == 2:
                        if b2 & bit:
                            ok = False
                            break
                        b2 |= bit
                    else:
                        if b3 & bit:
                            ok = False
                            break
                        b3 |= bit
                if ok:
                    best = probe_order[q]  # members were checked already: this is a non-member
                    break
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
def _cannot_win(nb, pmax, limit, log2k):
    """True when ``H ≤ min(log2 nb, h(pmax) + (1 - pmax)·log2(nb - 1))`` is below ``limit``.

    ``pmax`` is the heaviest bucket's mass: grouping it apart bounds the rest by log2(nb - 1).
    The binary entropy is bounded by ``h(p) ≤ 2·√(p(1-p))`` (one square root, no logarithm)."""
    if log2k[nb] < limit:
        return True
    if nb < 2:
        return False
    p = min(pmax, 1.0)
    return 2.0 * math.sqrt(p * (1.0 - p)) + (1.0 - p) * log2k[nb - 1] < limit


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
    for blk in prange(n_blocks):
        g_start = blk * n_probes // n_blocks
        g_end = (blk + 1) * n_probes // n_blocks
        hist = np.zeros((PROBE_TILE, n_bins), np.float64)
        nb = np.zeros(PROBE_TILE, np.int64)
        pm = np.zeros(PROBE_TILE, np.float64)
        for g0 in range(g_start, g_end, PROBE_TILE):
            nt = min(PROBE_TILE, g_end - g0)
            for s in range(n_states):
                lo = offsets[s]
                hi = offsets[s + 1]
                limit = bh[blk, s] - BOUND_MARGIN
                # pass 1: bucket masses, bucket counts and heaviest buckets
                if nt == PROBE_TILE:
                    k0 = 0
                    k1 = 0
                    k2 = 0
                    k3 = 0
                    p0 = 0.0
                    p1 = 0.0
                    p2 = 0.0
                    p3 = 0.0
                    for j in range(lo, hi):
                        cj = members[j]
                        wj = w[j]
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
                else:
                    for t in range(nt):
                        nb[t] = 0
                        pm[t] = 0.0
                    for j in range(lo, hi):
                        cj = members[j]
                        wj = w[j]
                        for t in range(nt):
                            c = matrix[g0 + t, cj]
                            x = hist[t, c]
                            nb[t] += x == 0.0
                            x += wj
                            hist[t, c] = x
                            pm[t] = max(pm[t], x)
                # pass 2: where the count / heaviest-bucket bound allows a win, the Rényi-½ bound;
                # where that allows a win too, the exact entropy straight from the histogram
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
                    if root <= 0.0 or 2.0 * math.log2(root) < limit:
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


def scan_order(matrix, probe_prior):
    """(probe order by prior descending then index, and the matrix transposed in that order:
    ``order_t[c, q] = matrix[order[q], c]``) for the full-split scan; compute once per prior."""
    probe_prior = np.asarray(probe_prior, dtype=np.float64)
    order = np.lexsort((np.arange(probe_prior.shape[0]), -probe_prior)).astype(np.int64)
    return order, np.ascontiguousarray(np.asarray(matrix)[order].T)


def best_probes_numba(matrix, members, offsets, prior, probe_prior, win_code, n_bins, shortcut=True, order=None):
    """NumPy backend: (best probe index, its entropy) for every state ``members[offsets[s]:offsets[s+1]]``.

    ``order`` is :func:`scan_order` of (matrix, probe_prior), computed here when not given."""
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
    if shortcut:
        probe_order, order_t = order if order is not None else scan_order(matrix, probe_prior)
        best, best_h = full_split_choice(matrix, order_t, members, offsets, w, wl, probe_prior, probe_order, n_bins,
                                         FULL_SPLIT_MIN_WEIGHT)
    else:
        best = np.full(n_states, -1, np.int64)
        best_h = np.zeros(n_states, np.float64)
    todo = np.flatnonzero(best < 0)
    if todo.size:
        sizes = offsets[todo + 1] - offsets[todo]
        sub_off = np.zeros(todo.size + 1, np.int64)
        np.cumsum(sizes, out=sub_off[1:])
        idx = np.concatenate([np.arange(offsets[s], offsets[s + 1]) for s in todo]) if todo.size < 64 else _gather_index(offsets, todo, sub_off)
        n_blocks = max(1, min(matrix.shape[0], 4 * get_num_threads()))
        g, h = sweep_best(matrix, members[idx], sub_off, w[idx], wl[idx], probe_prior, win_code, n_bins, n_blocks)
        best[todo] = g
        best_h[todo] = h
    return best, best_h


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
# best_probes: the standard array-API implementation (JAX, CuPy, array-api-strict)
# ---------------------------------------------------------------------------------------------
def _batch_pick(xp, row_histogram, per_batch, size, n_probes, win_code, n_bins,
                matrix, flat, wts, valid, probe_prior, probe_index):
    """For a batch of equal-size states: every probe's entropy and each state's §5.2 first probe."""
    codes = xp.astype(xp.take(matrix, flat, axis=1), xp.int64)  # (probes, batch*size)
    codes = xp.permute_dims(xp.reshape(codes, (n_probes, per_batch, size)), (1, 0, 2))
    codes2 = xp.reshape(codes, (per_batch * n_probes, size))
    weights = xp.reshape(xp.broadcast_to(wts[:, None, :], (per_batch, n_probes, size)), (per_batch * n_probes, size))
    hist = row_histogram(codes2, weights, n_bins)  # (batch*probes, n_bins)
    safe = xp.where(hist > 0.0, hist, 1.0)
    h = -xp.sum(xp.where(hist > 0.0, safe * xp.log2(safe), 0.0), axis=1)
    h = xp.reshape(h, (per_batch, n_probes))
    inc = xp.any((codes == win_code) & valid[:, None, :], axis=2)  # (batch, probes)
    key = xp.round(h / ROUND_STEP)
    top = key == xp.max(key, axis=1, keepdims=True)
    top = top & (inc | ~xp.any(top & inc, axis=1, keepdims=True))
    masked = xp.where(top, probe_prior[None, :], -1.0)
    top = top & (masked == xp.max(masked, axis=1, keepdims=True))
    pick = xp.min(xp.where(top, probe_index[None, :], n_probes), axis=1)
    return pick, h


def _batch_function(backend, per_batch, size, n_probes, win_code, n_bins):
    """:func:`_batch_pick` bound to one batch shape; compiled once per shape on JAX."""
    from functools import partial

    fn = partial(_batch_pick, backend.xp, backend.row_histogram, per_batch, size, n_probes, win_code, n_bins)
    if backend.name != "jax":
        return fn
    cache = backend.__dict__.setdefault("_fullbeam_jit", {})
    key = (per_batch, size, n_probes, win_code, n_bins)
    if key not in cache:
        import jax

        cache[key] = jax.jit(fn)
    return cache[key]


def best_probes_array_api(backend, matrix, members, offsets, prior, probe_prior, win_code, n_bins,
                          max_cells: int = 24_000_000):
    """Same contract as :func:`best_probes_numba`, with standard array-API calls on ``backend``.

    ``matrix`` lives on the backend's device; ``members``/``offsets``/``prior``/``probe_prior``
    are host arrays. States are padded to a power-of-two size (zero-weight copies of their first
    member) and processed in batches of equal padded size (a power-of-two count), so a jit
    backend compiles a handful of shapes: the codes of every probe on every state of the batch,
    a weighted ``row_histogram`` (one row per (state, probe)), the entropy summed over buckets
    (equal to the compiled kernel's member-order sum within a few ulps), then the §5.2 key
    reduced with max/where along the probe axis. Returns host NumPy arrays.
    """
    xp = backend.xp
    members = np.asarray(members, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    prior = np.asarray(prior, dtype=np.float64)
    n_probes = matrix.shape[0]
    probe_prior_dev = backend.asarray(np.asarray(probe_prior, dtype=np.float64))
    probe_index = backend.asarray(np.arange(n_probes, dtype=np.int64))
    w_all, _, _ = state_weights(prior, members.astype(np.int32), offsets)
    n_states = offsets.shape[0] - 1
    out = np.empty(n_states, np.int64)
    out_h = np.empty(n_states, np.float64)
    sizes = offsets[1:] - offsets[:-1]
    padded = np.array([1 << int(max(0, int(m) - 1)).bit_length() for m in sizes], dtype=np.int64)
    for size in sorted(set(padded.tolist())):
        ids = np.flatnonzero(padded == size)
        per_batch = max(1, min(len(ids), max_cells // max(1, n_probes * max(size, n_bins))))
        per_batch = 1 << (per_batch.bit_length() - 1)  # a power of two
        for start in range(0, len(ids), per_batch):
            chunk = ids[start : start + per_batch]
            batch = np.resize(chunk, per_batch)  # pad the batch with repeats (results ignored)
            idx = np.empty((per_batch, size), dtype=np.int64)
            wts = np.zeros((per_batch, size), dtype=np.float64)
            valid = np.zeros((per_batch, size), dtype=bool)
            for r, st in enumerate(batch):
                lo, hi = int(offsets[st]), int(offsets[st + 1])
                idx[r, :] = members[lo]
                idx[r, : hi - lo] = members[lo:hi]
                wts[r, : hi - lo] = w_all[lo:hi]
                valid[r, : hi - lo] = True
            pick, h = _batch_function(backend, per_batch, size, n_probes, win_code, n_bins)(
                matrix, backend.asarray(idx.reshape(-1)), backend.asarray(wts), backend.asarray(valid),
                probe_prior_dev, probe_index)
            pick_host = backend.to_numpy(pick)
            h_host = backend.to_numpy(h)
            for r, st in enumerate(chunk):
                out[st] = int(pick_host[r])
                out_h[st] = float(h_host[r, out[st]])
    return out, out_h


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


def best_probes(backend, matrix, members, offsets, prior, probe_prior, win_code, n_bins, order=None):
    """Dispatch: compiled kernels on the NumPy backend, the array-API fallback elsewhere."""
    if backend.name == "numpy" and HAVE_NUMBA:
        return best_probes_numba(matrix, members, offsets, prior, probe_prior, win_code, n_bins, order=order)
    return best_probes_array_api(backend, matrix, members, offsets, prior, probe_prior, win_code, n_bins)


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


def state_entropies(backend, matrix, members, prior, win_code, n_bins):
    """Entropy (bits) of every probe over the state ``members`` and whether the probe is a member.

    Host NumPy arrays out. Compiled on the NumPy backend (member-order sum, bit-identical to the
    sweep kernel); elsewhere a chunked ``row_histogram`` with a sum over buckets.
    """
    members = np.ascontiguousarray(members, dtype=np.int32)
    offsets = np.asarray([0, members.shape[0]], dtype=np.int64)
    w, wl, _ = state_weights(np.ascontiguousarray(prior, dtype=np.float64), members, offsets)
    if backend.name == "numpy" and HAVE_NUMBA:
        h, inc = _entropies_one_state(np.asarray(matrix), members, w, wl, win_code, n_bins)
        return h, inc.astype(bool)
    xp = backend.xp
    n_probes = matrix.shape[0]
    idx = backend.asarray(members.astype(np.int64))
    wd = backend.asarray(w)
    chunk = max(1, 2_000_000 // max(1, members.shape[0]))
    hs, incs = [], []
    for start in range(0, n_probes, chunk):
        codes = xp.astype(xp.take(matrix[start : start + chunk, :], idx, axis=1), xp.int64)
        hist = backend.row_histogram(codes, wd, n_bins)
        safe = xp.where(hist > 0.0, hist, 1.0)
        hs.append(backend.to_numpy(-xp.sum(xp.where(hist > 0.0, safe * xp.log2(safe), 0.0), axis=1)))
        incs.append(backend.to_numpy(xp.any(codes == win_code, axis=1)))
    return np.concatenate(hs), np.concatenate(incs)
