"""Kernels of the batched greedy-tree evaluator behind ``termo robustness`` (the full-beam sweep):
the entry points; the sweeps are in :mod:`.fullbeam_small`, :mod:`.fullbeam_counts`,
:mod:`.fullbeam_sweeps` and :mod:`.fullbeam_bounds`.

Two jobs, done for many states at once:

* :func:`best_probes_numba` — for every state (candidate set) of a batch, the first probe of the
  level-2 ordering (rules §5.2): entropy of the bucket distribution rounded to a 1e-9 grid,
  descending; members of the state first; probe prior descending; probe index ascending.
* :func:`partition_states` — split every state by its chosen probe into buckets (ascending
  pattern code, members ascending, the winning bucket dropped) with their probabilities.

The NumPy backend runs compiled numba kernels (``prange`` over blocks of probes, one histogram
per thread). Every other backend (JAX, CuPy, array-api-strict) runs the array-API implementation
of :mod:`backends.array_api_ops` (standard calls plus the backend's ``row_histogram``). The tests
hold a plain-Python oracle for both.

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

States left after the full-split shortcut take one of four exact sweeps (same choice, same bits):

* :func:`sweep_small` (at most ``SMALL_MAX`` members): one state per thread, every probe at once
  in vector blocks over the transposed matrix (quadratic in the members, linear in the probes);
* :func:`sweep_counts` (larger states whose members all weigh the same, as under a uniform prior):
  bucket counts read answers-major, and a bound that grows while the members are read, so that
  most probes are dropped after a part of the state (:mod:`.fullbeam_counts`);
* :func:`sweep_skewed` (larger states whose weight sits on a few members, as under a peaked
  prior): bucket masses of the heavy members first, a bound that covers whatever the light ones
  could add, and the light members read only for the few probes that survive it;
* :func:`sweep_best` (the rest): the probe-major sweep with the bounds above.
"""

from __future__ import annotations

import math

import numpy as np

from backends.constants import ROUND_STEP
from backends.kernels.fullbeam_bounds import _exact_entropy, heavy_split
from backends.kernels.fullbeam_counts import MAX_COUNT, sweep_counts, uniform_states
from backends.kernels.fullbeam_small import full_split_choice, sweep_small
from backends.kernels.fullbeam_sweeps import sweep_best, sweep_skewed
from backends.kernels.sums import pairwise_sum  # NumPy-exact sums, shared with the engine's kernels
from backends.kernels.tree import (  # the probabilities and values, as the tree search sums them
    bucket_probability, expected_cost, two_member_value)
# numba compiles the NumPy backend's kernels (imported when one first runs); without it, or with
# TERMO_NO_NUMBA=1, the same source is interpreted: see backends/numba_shim.py
from backends.numba_shim import HAVE_NUMBA, get_num_threads, njit, prange  # noqa: F401  (HAVE_NUMBA re-exported)


FULL_SPLIT_MIN_WEIGHT = 1e-8  # q_min above which the full-split shortcut is exact
SMALL_MAX = 24  # states up to this size take the all-probes-at-once path (sweep_small)
LIGHT_MASS = 0.03  # sweep_skewed: the light members carry at most this much of a state's weight...
HEAVY_SHARE_MAX = 0.6  # ...and the heavy ones are at most this share of its members


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


def scan_order(matrix, probe_prior):
    """(probe order by prior descending then index, and the matrix transposed in that order:
    ``order_t[c, q] = matrix[order[q], c]``) for the full-split scan; compute once per prior."""
    probe_prior = np.asarray(probe_prior, dtype=np.float64)
    order = np.lexsort((np.arange(probe_prior.shape[0]), -probe_prior)).astype(np.int64)
    return order, np.ascontiguousarray(np.asarray(matrix)[order].T)


def best_probes_numba(matrix, members, offsets, prior, probe_prior, win_code, n_bins, shortcut=True, order=None,
                      small_max=SMALL_MAX, light_mass=LIGHT_MASS, counts=True):
    """NumPy backend: (best probe index, its entropy) for every state ``members[offsets[s]:offsets[s+1]]``.

    ``order`` is :func:`scan_order` of (matrix, probe_prior), computed here when not given.
    ``shortcut`` enables the full-split shortcut; states of at most ``small_max`` members left
    after it run :func:`sweep_small`; larger ones whose members all weigh the same run
    :func:`sweep_counts` (``counts``); the others run :func:`sweep_skewed` when members carrying
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
    if shortcut or small_max > 0 or counts:
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
    if counts and large.size:
        even = uniform_states(w, offsets)[large] & (sizes[large] <= MAX_COUNT)
        if even.any():
            idx, sub_off = _subset(offsets, large[even])
            best[large[even]], best_h[large[even]] = sweep_counts(matrix, order_t, probe_order, members[idx], sub_off,
                                                                  w[idx], wl[idx], probe_prior, win_code, n_bins)
            large = large[~even]
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


@njit(cache=True, parallel=True)
def candidate_picks(matrix, members, offsets, prior, probe_prior, win_code, n_bins):
    """The candidates-only follow-up (docs/openers.md): for every state, the member whose guess
    leaves the fewest answers unsolved on average — the least ``Σ n_b²`` over its non-winning
    buckets (counts, compared exactly) — then the §5.2 chain: entropy on the 1e-9 grid
    descending (the member-order convention), probe prior descending, index ascending.
    Returns (pick, its entropy) per state."""
    n_states = offsets.shape[0] - 1
    w, wl, _ = state_weights(prior, members, offsets)
    out = np.empty(n_states, np.int64)
    out_h = np.empty(n_states, np.float64)
    for s in prange(n_states):
        lo = offsets[s]
        hi = offsets[s + 1]
        hist = np.zeros(n_bins, np.float64)
        cnt = np.zeros(n_bins, np.int64)
        best = -1
        best_sq = 0
        best_key = 0.0
        best_h = 0.0
        for q in range(lo, hi):
            g = members[q]
            row = matrix[g]
            for j in range(lo, hi):
                cnt[row[members[j]]] += 1
            sq = 0
            for j in range(lo, hi):
                c = row[members[j]]
                k = cnt[c]
                if k > 0 and c != win_code:
                    sq += k * k
                cnt[c] = 0
            h, _ = _exact_entropy(row, members, lo, hi, w, wl, hist, cnt, win_code)
            key = np.rint(h / ROUND_STEP)
            if best < 0 or sq < best_sq or (sq == best_sq and (key > best_key or (key == best_key and (
                    probe_prior[g] > probe_prior[best] or (probe_prior[g] == probe_prior[best] and g < best))))):
                best, best_sq, best_key, best_h = g, sq, key, h
        out[s] = best
        out_h[s] = best_h
    return out, out_h


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
            cprob[k] = bucket_probability(prior, cm, co[k], co[k + 1] - co[k], total, m, buf)
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
            out[s] = two_member_value(prior[members[offsets[s]]], prior[members[offsets[s] + 1]], r, loss)
        else:
            out[s] = np.nan
    return out


@njit(cache=True)
def reduce_values(n_parents, child_parent, child_prob, child_value, single):
    """``V(parent) = 1 + Σ_children P·V`` summed sequentially in child order (ascending code), as the
    tree search sums a guess's buckets (:func:`backends.kernels.tree.expected_cost`, each parent's
    children its buckets); ``inf`` for a parent whose guess did not split it."""
    n = child_parent.shape[0]
    order = np.argsort(child_parent, kind="mergesort")  # each parent's children together, in child order
    start = np.zeros(n_parents + 1, np.int64)
    for k in range(n):
        start[child_parent[k] + 1] += 1
    for s in range(n_parents):
        start[s + 1] += start[s]
    prob = child_prob[order]
    value = child_value[order].reshape((n, 1))  # V(child) as the tree's vals[child, r - 1] with r = 1
    child = np.arange(n)
    out = np.empty(n_parents, np.float64)
    for s in range(n_parents):
        out[s] = np.inf if single[s] else expected_cost(start[s], start[s + 1], child, prob, value, 1, 0.0)
    return out


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
