"""The full-beam sweep of large states whose members weigh the same (a uniform prior: Nerdle,
English Wordle): bucket *counts* instead of masses, read answers-major, and a bound that grows
while the members are read, so most probes are dropped after a part of the state.

For a state of ``m`` members of equal weight, a probe's entropy is
``H = log2 m - (1/m)·Σ_b n_b·log2 n_b`` over its bucket sizes ``n_b``. The sum only grows as
members are added to the buckets (``n·log2 n`` is increasing), so after reading the first ``j``
members with partial counts ``n'_b``, ``H ≤ log2 m - (1/m)·Σ_b n'_b·log2 n'_b``: the members not
read yet could at best each open a bucket of their own. A probe whose bound falls more than
``BOUND_MARGIN`` below the running best (the best exact entropy found so far) cannot be ahead of
it in the §5.2 order and is dropped; the bound is checked every ``CHECK_EVERY`` members.

The running best is seeded with the exact entropy of every member (candidates come first in the
§5.2 order, so they are the natural seeds), and every probe that survives the whole state gets
its exact entropy in the member-order convention (:func:`fullbeam_bounds._exact_entropy`) and its
§5.2 key, as in the other sweeps: the choice and its entropy are bit-identical to theirs. The
counts only decide what is skipped (``Σ n·log2 n`` summed in another order differs from the exact
entropy by rounding, far below ``BOUND_MARGIN``).

``order_t[c, q]`` is the code of probe ``probe_order[q]`` on answer ``c`` (the transposed
matrix of ``fullbeam.scan_order``): ``COUNT_TILE`` probes are read as one run of each member's
row. One state per thread; the states are striped over the threads, largest first.
"""

from __future__ import annotations

import math

import numpy as np

from backends.kernels.fullbeam_bounds import BOUND_MARGIN, keep_if_ahead, start_best
from backends.numba_shim import get_num_threads, njit, prange

CHECK_EVERY = 16  # members read between two checks of the bound
MAX_COUNT = 65535  # bucket counts are uint16: larger states take the other sweeps
ORDER_PROBES = 32  # probes that score the members' reading order


@njit(cache=True)
def uniform_states(w, offsets):
    """Per state: do all its members carry the same normalised weight?"""
    n_states = offsets.shape[0] - 1
    out = np.ones(n_states, np.bool_)
    for s in range(n_states):
        lo = offsets[s]
        for j in range(lo + 1, offsets[s + 1]):
            if w[j] != w[lo]:
                out[s] = False
                break
    return out


SCALE = 1048576.0  # the sums are integers in units of 2**-20 bits·members


@njit(cache=True)
def _nlogn_steps(n):
    """``d[k] ≤ (k·log2 k - (k-1)·log2(k-1))·SCALE`` as integers, for ``k = 1 .. n`` (``d[0] = 0``):
    each step rounded down and one unit less again, so a sum of steps never exceeds the true sum
    (in units of 1/SCALE) whatever the rounding of the logarithms."""
    d = np.zeros(n + 1, np.int64)
    prev = 0.0
    for k in range(2, n + 1):
        cur = k * math.log2(k)
        d[k] = max(0, np.int64(math.floor((cur - prev) * SCALE)) - 1)
        prev = cur
    return d


@njit(cache=True)
def _probe_sum(flat, q, rows, m, hist, steps, smax):
    """Read the codes of probe column ``q`` on the members (``flat[rows[j] + q]``, in reading order)
    into ``hist`` (counts), ``CHECK_EVERY`` at a time, until the sum of ``steps`` passes ``smax``;
    clear what was counted. True when it never did."""
    total = 0
    r = 0
    alive = True
    while r < m:
        r_end = min(m, r + CHECK_EVERY)
        for j in range(r, r_end):
            c = flat[rows[j] + q]
            n = hist[c] + 1
            hist[c] = n
            total += steps[n]
        r = r_end
        if total > smax:
            alive = False
            break
    for j in range(r):
        hist[flat[rows[j] + q]] = 0
    return alive


@njit(cache=True)
def _reading_order(flat, n_probes, members, lo, m, hist, n_order):
    """Where each member's row starts in ``flat``, the members that share their bucket most
    often first: a probe that cannot win shows it sooner when the members it merges come early.
    Scored by the size of a member's bucket under ``n_order`` evenly spaced probes (ties keep
    the member order); the order only decides how soon a probe is dropped, never the pick."""
    score = np.zeros(m, np.int64)
    for k in range(n_order):
        q = (k * n_probes) // n_order
        for j in range(m):
            hist[flat[members[lo + j] * n_probes + q]] += 1
        for j in range(m):
            score[j] += hist[flat[members[lo + j] * n_probes + q]]
        for j in range(m):
            hist[flat[members[lo + j] * n_probes + q]] = 0
    order = np.argsort(-score, kind="mergesort")
    rows = np.empty(m, np.int64)
    for j in range(m):
        rows[j] = np.int64(members[lo + order[j]]) * n_probes
    return rows


@njit(cache=True)
def _limit(m, floor_h):
    """The sum above which a probe's entropy is below ``floor_h``:
    ``H ≤ log2 m - sum/m < floor_h  ⇔  sum > (log2 m - floor_h)·m``, in the integer units of the
    steps (rounded down: an integer sum above it is above the real bound)."""
    x = (math.log2(m) - floor_h) * m * SCALE
    return np.int64(min(math.floor(x), 4e18))


@njit(cache=True)
def _best_of_state(matrix, order_t, probe_order, probe_pos, members, lo, hi, w, wl, probe_prior, win_code, n_bins,
                   steps, hist, seen, n_order):
    """(first probe of the §5.2 order, its exact entropy) over ``members[lo:hi]`` (equal weights).
    The members go first (candidates: the running best rises at once), then every other probe;
    ``hist`` and ``seen`` are scratch, left cleared."""
    n_probes = matrix.shape[0]
    m = hi - lo
    hist1, cnt1, bk, b_in, bp, bi, bh = start_best(n_bins, n_probes)
    smax = _limit(m, bh - BOUND_MARGIN)
    flat = order_t.reshape(-1)
    rows = _reading_order(flat, n_probes, members, lo, m, hist, n_order)
    for i in range(lo, hi + n_probes):
        if i < hi:
            q = probe_pos[members[i]]
            seen[q] = True
        else:
            q = i - hi
            if seen[q]:
                continue
        if not _probe_sum(flat, q, rows, m, hist, steps, smax):
            continue
        g = probe_order[q]
        bk, b_in, bp, bi, bh, ahead = keep_if_ahead(matrix[g], g, members, lo, hi, w, wl, probe_prior, hist1, cnt1,
                                                    win_code, bk, b_in, bp, bi, bh)
        if ahead:
            smax = _limit(m, bh - BOUND_MARGIN)
    for i in range(lo, hi):
        seen[probe_pos[members[i]]] = False
    return bi, bh


@njit(cache=True, parallel=True)
def _sweep_striped(matrix, order_t, probe_order, probe_pos, members, offsets, w, wl, probe_prior, win_code, n_bins,
                   by_size, n_threads, steps, n_order):
    n_states = offsets.shape[0] - 1
    out = np.empty(n_states, np.int64)
    out_h = np.empty(n_states, np.float64)
    for t in prange(n_threads):
        hist = np.zeros(n_bins, np.uint16)
        seen = np.zeros(order_t.shape[1], np.bool_)
        for i in range(t, n_states, n_threads):
            s = by_size[i]
            out[s], out_h[s] = _best_of_state(matrix, order_t, probe_order, probe_pos, members, offsets[s],
                                              offsets[s + 1], w, wl, probe_prior, win_code, n_bins, steps, hist, seen,
                                              n_order)
    return out, out_h


def sweep_counts(matrix, order_t, probe_order, members, offsets, w, wl, probe_prior, win_code, n_bins,
                 n_order=ORDER_PROBES):
    """Same contract as ``fullbeam_sweeps.sweep_best``, for states whose members all weigh the
    same (see the module doc): (first probe of the §5.2 order, its exact entropy) per state.
    ``n_order`` probes score the members' reading order (0: the member order)."""
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    sizes = offsets[1:] - offsets[:-1]
    by_size = np.argsort(-sizes, kind="stable").astype(np.int64)
    steps = _nlogn_steps(int(max(2, sizes.max(initial=2))))
    n_threads = max(1, min(get_num_threads(), by_size.shape[0]))
    probe_order = np.ascontiguousarray(probe_order, dtype=np.int64)
    probe_pos = np.empty_like(probe_order)
    probe_pos[probe_order] = np.arange(probe_order.shape[0], dtype=np.int64)
    return _sweep_striped(matrix, order_t, probe_order, probe_pos, members, offsets, w, wl, probe_prior, win_code, n_bins,
                          by_size, n_threads, steps, int(n_order))


@njit(cache=True)
def _near_best(order_t, probe_order, members, floor_h, n_bins, steps):
    m = members.shape[0]
    smax = _limit(m, floor_h)
    hist = np.zeros(n_bins, np.uint16)
    flat = order_t.reshape(-1)
    rows = _reading_order(flat, order_t.shape[1], members, 0, m, hist, ORDER_PROBES)
    out = np.empty(order_t.shape[1], np.int64)
    k = 0
    for q in range(order_t.shape[1]):
        if _probe_sum(flat, q, rows, m, hist, steps, smax):
            out[k] = probe_order[q]
            k += 1
    return np.sort(out[:k])


def near_best(order_t, probe_order, members, floor_h, n_bins):
    """Every probe whose entropy over ``members`` (equal weights) is at least ``floor_h``, and
    possibly a few more (the count bound decides, no exact entropy is computed): sorted probe
    indices."""
    members = np.ascontiguousarray(members, dtype=np.int32)
    steps = _nlogn_steps(int(max(2, members.shape[0])))
    return _near_best(order_t, np.ascontiguousarray(probe_order, dtype=np.int64), members, float(floor_h), n_bins,
                      steps)
