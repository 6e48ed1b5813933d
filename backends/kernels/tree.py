"""Host kernels of the level-3 tree search: partitions, values bottom-up and the bookkeeping of
each level. The state registry is :mod:`backends.kernels.registry`, the tree's sweeps
:mod:`backends.kernels.tree_sweep` (the lists of ``kernels.sweeps.sweep_top_k``, bit for bit, with
most probes dropped early by an entropy bound).

Written, like ``backends/kernels/entropy.py``, in the Python subset numba compiles, with the same
interpreted fallback (``TERMO_NO_NUMBA=1`` or no numba) and ``.py_func`` oracles. These kernels
decide the level-3 *values* (float order of every sum), so their source (with the registry's and
the tree sweep's) is part of the opener cache signature (``termo.book.openers.search_signature``);
the entropy kernels are not (they are checked against a plain-Python oracle instead, and the
tree's sweeps against them). The full-beam kernels sum their probabilities and values with the
same helpers (:func:`bucket_probability`, :func:`expected_cost`, :func:`two_member_value`).

Float conventions (bit-exact with the reference):

* ``P(b|S) = sum(prior[S_b]) / sum(prior[S])``, both sums NumPy's pairwise sum over ascending
  members (``|S_b|/|S|`` when ``sum(prior[S]) == 0``); buckets in ascending pattern code.
* ``cost = 1 + acc`` with ``acc`` summed sequentially from 0 over the non-winning buckets.
* two candidates: ``1 + f·(w_min / (w_0 + w_1))``, ``f = 1`` with a round to spare, else the
  loss cost; uniform (0.5) when both weights are 0.
"""

from __future__ import annotations

import numpy as np

from backends.kernels.sums import pairwise_sum
from backends.kernels.sweeps import balanced_order
from backends.numba_shim import HAVE_NUMBA, int_dict, njit, prange  # noqa: F401  (HAVE_NUMBA, int_dict re-exported)


@njit(cache=True)
def most_probable(members, lo, hi, prior):
    """argmax of the prior over ``members[lo:hi]``, first (lowest) index on ties."""
    best = members[lo]
    bp = prior[best]
    for j in range(lo + 1, hi):
        c = members[j]
        if prior[c] > bp:
            bp = prior[c]
            best = c
    return best


@njit(cache=True)
def most_probable_many(members, offsets, state_ids, prior):
    out = np.empty(state_ids.shape[0], np.int64)
    for t in range(state_ids.shape[0]):
        s = state_ids[t]
        out[t] = most_probable(members, offsets[s], offsets[s + 1], prior)
    return out


# --------------------------------------------------------------------------------------------
# Partitions
# --------------------------------------------------------------------------------------------
@njit(cache=True)
def _count_pair(matrix_t, members, offsets, s, g, win_code, n_buckets, n_members, single, p):
    lo = offsets[s]
    hi = offsets[s + 1]
    seen = np.zeros(win_code + 1, np.bool_)
    nb = 0
    total = 0
    kept = 0
    for j in range(lo, hi):
        c = matrix_t[members[j], g]
        if c != win_code:
            kept += 1
        if not seen[c]:
            seen[c] = True
            total += 1
            if c != win_code:
                nb += 1
    n_buckets[p] = nb
    n_members[p] = kept
    single[p] = total == 1 and nb == 1  # one losing bucket holding the whole state: no progress


@njit(cache=True, parallel=True)
def _partition_counts_parallel(matrix_t, members, offsets, pair_state, pair_guess, win_code, n_buckets, n_members,
                               single, perm):
    for i in prange(pair_state.shape[0]):
        p = perm[i]
        _count_pair(matrix_t, members, offsets, pair_state[p], pair_guess[p], win_code, n_buckets, n_members, single, p)


@njit(cache=True)
def _partition_counts_serial(matrix_t, members, offsets, pair_state, pair_guess, win_code, n_buckets, n_members, single):
    for p in range(pair_state.shape[0]):
        _count_pair(matrix_t, members, offsets, pair_state[p], pair_guess[p], win_code, n_buckets, n_members, single, p)


PARALLEL_MIN_MEMBERS = 200_000  # below this many pair members partitions run on one thread


def _pair_work(offsets, pair_state):
    return int(np.sum(offsets[pair_state + 1] - offsets[pair_state]))


def partition_counts(matrix_t, members, offsets, pair_state, pair_guess, win_code):
    """Per (state, guess) pair: the number of non-winning buckets, of members outside the
    winning bucket, and whether the guess leaves the whole state in one bucket (such a guess
    has infinite cost)."""
    n_pairs = pair_state.shape[0]
    n_buckets = np.zeros(n_pairs, np.int64)
    n_members = np.zeros(n_pairs, np.int64)
    single = np.zeros(n_pairs, np.bool_)
    parallel = _pair_work(offsets, pair_state) >= PARALLEL_MIN_MEMBERS
    if parallel:
        perm = balanced_order(offsets[pair_state + 1] - offsets[pair_state])
        _partition_counts_parallel(matrix_t, members, offsets, pair_state, pair_guess, win_code, n_buckets,
                                   n_members, single, perm)
    else:
        _partition_counts_serial(matrix_t, members, offsets, pair_state, pair_guess, win_code, n_buckets,
                                 n_members, single)
    return n_buckets, n_members, single


@njit(cache=True)
def _fill_pair(matrix_t, members, offsets, s, g, win_code, prior, bucket_start, member_start,
               out_members, out_size, out_prob, p):
    n_bins = win_code + 1
    lo = offsets[s]
    hi = offsets[s + 1]
    m = hi - lo
    cnt = np.zeros(n_bins, np.int64)
    buf = np.empty(m, np.float64)
    for j in range(m):
        c = members[lo + j]
        cnt[matrix_t[c, g]] += 1
        buf[j] = prior[c]
    total = pairwise_sum(buf, 0, m)
    # bucket starts (relative), ascending code, winning bucket skipped
    pos = np.zeros(n_bins, np.int64)
    b = bucket_start[p]
    run = 0
    for c in range(n_bins):
        if cnt[c] > 0 and c != win_code:
            pos[c] = run
            out_size[b] = cnt[c]
            run += cnt[c]
            b += 1
    base = member_start[p]
    for j in range(m):
        c = members[lo + j]
        code = matrix_t[c, g]
        if code != win_code:
            out_members[base + pos[code]] = c
            pos[code] += 1
    # probabilities
    b = bucket_start[p]
    start = base
    while b < bucket_start[p + 1]:
        size = out_size[b]
        out_prob[b] = bucket_probability(prior, out_members, start, size, total, m, buf)
        start += size
        b += 1


@njit(cache=True)
def bucket_probability(prior, members, a, size, total, m, buf):
    """``P(b|S)`` of the bucket ``members[a:a+size]`` of a state of ``m`` members whose prior sums
    to ``total``: ``sum(prior[S_b]) / total`` (NumPy's pairwise sum over the bucket's members, in
    ``buf``), ``|S_b|/|S|`` when ``total`` is 0."""
    if total > 0.0:
        for j in range(size):
            buf[j] = prior[members[a + j]]
        return pairwise_sum(buf, 0, size) / total
    return size / m


@njit(cache=True, parallel=True)
def _partition_fill_parallel(matrix_t, members, offsets, pair_state, pair_guess, win_code, prior,
                             bucket_start, member_start, out_members, out_size, out_prob, perm):
    for i in prange(pair_state.shape[0]):
        p = perm[i]
        _fill_pair(matrix_t, members, offsets, pair_state[p], pair_guess[p], win_code, prior, bucket_start,
                   member_start, out_members, out_size, out_prob, p)


@njit(cache=True)
def _partition_fill_serial(matrix_t, members, offsets, pair_state, pair_guess, win_code, prior,
                           bucket_start, member_start, out_members, out_size, out_prob):
    for p in range(pair_state.shape[0]):
        _fill_pair(matrix_t, members, offsets, pair_state[p], pair_guess[p], win_code, prior, bucket_start,
                   member_start, out_members, out_size, out_prob, p)


def partition_fill(matrix_t, members, offsets, pair_state, pair_guess, win_code, prior,
                   bucket_start, member_start, out_members, out_size, out_prob):
    """Fill the non-winning buckets of every pair, ascending code, members ascending.

    Pair p writes its buckets at ``bucket_start[p]:bucket_start[p+1]`` and their members
    at ``member_start[p]:...`` (bucket after bucket). ``out_prob`` gets P(b|S) by the
    convention documented at the top of this module.
    """
    parallel = _pair_work(offsets, pair_state) >= PARALLEL_MIN_MEMBERS
    if parallel:
        perm = balanced_order(offsets[pair_state + 1] - offsets[pair_state])
        _partition_fill_parallel(matrix_t, members, offsets, pair_state, pair_guess, win_code, prior, bucket_start,
                                 member_start, out_members, out_size, out_prob, perm)
    else:
        _partition_fill_serial(matrix_t, members, offsets, pair_state, pair_guess, win_code, prior, bucket_start,
                               member_start, out_members, out_size, out_prob)


# --------------------------------------------------------------------------------------------
# Values, bottom-up
# --------------------------------------------------------------------------------------------
@njit(cache=True)
def expected_cost(lo, hi, bucket_child, bucket_prob, vals, r, loss):
    """``1 + Σ_b P(b|S)·V(S_b, r-1)`` over the buckets ``lo..hi`` of one guess, summed sequentially
    from 0 in bucket order (ascending code): ``V`` is ``vals[child, r-1]``, and for a bucket with
    no node (``child < 0``: one member) 1 with a round to spare, else ``loss``."""
    acc = 0.0
    for bb in range(lo, hi):
        child = bucket_child[bb]
        if child < 0:
            v = 1.0 if r >= 2 else loss
        else:
            v = vals[child, r - 1]
        acc += bucket_prob[bb] * v
    return 1.0 + acc


@njit(cache=True)
def two_member_value(a, b, r, loss):
    """The value with ``r >= 1`` rounds of a state of two members weighing ``a`` and ``b``: the likelier
    first, then the other with probability ``w_min/(w_0+w_1)`` (0.5 when both weigh 0), costing 1
    more guess with a round to spare, else ``loss``."""
    tot = a + b
    pmin = (min(a, b) / tot) if tot > 0.0 else 0.5
    return 1.0 + (1.0 if r >= 2 else loss) * pmin


@njit(cache=True)
def node_values(order, node_size, node_state, node_rmax, node_pair_lo, node_pair_hi,
                pair_single, pair_bucket_lo, pair_bucket_hi, bucket_child, bucket_prob,
                members, offsets, prior, loss, r_cap, vals, matrix_t, win_code):
    """Fill ``vals[node, r]`` for r = 0..rmax(node), nodes processed in ``order`` (ascending size).

    r = 0 → ``loss``; size 1 → 1; size 2 → 1 when one of the two wins against the other (a
    win rule beyond the exact one, Nerdle's commutative answers), else 1 + f·w_min/(w_0+w_1) with
    f = 1 if r ≥ 2 else ``loss`` (uniform when both weights are 0); larger → min over the node's pairs of
    ``1 + Σ_b P(b|S)·V(S_b, r-1)`` (sequential sum in ascending bucket code)."""
    for t in range(order.shape[0]):
        nd = order[t]
        size = node_size[nd]
        rmax = min(node_rmax[nd], r_cap)
        vals[nd, 0] = loss
        if size == 1:
            for r in range(1, rmax + 1):
                vals[nd, r] = 1.0
            continue
        if size == 2:
            s = node_state[nd]
            lo = offsets[s]
            a = prior[members[lo]]
            b = prior[members[lo + 1]]
            if matrix_t[members[lo + 1], members[lo]] == win_code or matrix_t[members[lo], members[lo + 1]] == win_code:
                for r in range(1, rmax + 1):
                    vals[nd, r] = 1.0
                continue
            for r in range(1, rmax + 1):
                vals[nd, r] = two_member_value(a, b, r, loss)
            continue
        for r in range(1, rmax + 1):
            best = np.inf
            for p in range(node_pair_lo[nd], node_pair_hi[nd]):
                if pair_single[p]:
                    continue
                c = expected_cost(pair_bucket_lo[p], pair_bucket_hi[p], bucket_child, bucket_prob, vals, r, loss)
                if c < best:
                    best = c
            vals[nd, r] = best


@njit(cache=True)
def pair_costs(pairs, r, pair_single, pair_bucket_lo, pair_bucket_hi, bucket_child, bucket_prob, loss, vals):
    """``cost(g, S, r-1)`` of the given pairs (root guesses), the same summation as ``node_values``."""
    out = np.empty(pairs.shape[0], np.float64)
    for t in range(pairs.shape[0]):
        p = pairs[t]
        if pair_single[p]:
            out[t] = np.inf
        else:
            out[t] = expected_cost(pair_bucket_lo[p], pair_bucket_hi[p], bucket_child, bucket_prob, vals, r, loss)
    return out


# --------------------------------------------------------------------------------------------
# Small bookkeeping helpers of the level-synchronous search
# --------------------------------------------------------------------------------------------
@njit(cache=True)
def gather_segments(cand_members, cand_offsets, firsts):
    """Concatenate the segments ``firsts`` of a segmented array; returns (members, sizes)."""
    n = firsts.shape[0]
    sizes = np.empty(n, np.int64)
    total = 0
    for t in range(n):
        i = firsts[t]
        sizes[t] = cand_offsets[i + 1] - cand_offsets[i]
        total += sizes[t]
    out = np.empty(total, np.int64)
    pos = 0
    for t in range(n):
        i = firsts[t]
        for j in range(cand_offsets[i], cand_offsets[i + 1]):
            out[pos] = cand_members[j]
            pos += 1
    return out, sizes


@njit(cache=True)
def level_pairs(nodes, node_states, node_rests, top_idx, best):
    """The (state, guess) pairs of the given nodes, node after node: the valid top-k probes plus
    the most probable candidate when ``rest > 0``, only the top probe when ``rest == 0``.
    Returns (pair states, pair guesses, owner rests, pairs per node)."""
    n = nodes.shape[0]
    k = top_idx.shape[1]
    per_node = np.zeros(n, np.int64)
    for t in range(n):
        s = node_states[t]
        if node_rests[t] == 0:
            per_node[t] = 1
        else:
            cnt = 0
            has_best = False
            for q in range(k):
                g = top_idx[s, q]
                if g >= 0:
                    cnt += 1
                    if g == best[s]:
                        has_best = True
            per_node[t] = cnt if has_best else cnt + 1
    total = 0
    for t in range(n):
        total += per_node[t]
    ps = np.empty(total, np.int64)
    pg = np.empty(total, np.int64)
    pr = np.empty(total, np.int64)
    pos = 0
    for t in range(n):
        s = node_states[t]
        if node_rests[t] == 0:
            ps[pos] = s
            pg[pos] = top_idx[s, 0]
            pr[pos] = 0
            pos += 1
            continue
        has_best = False
        for q in range(k):
            g = top_idx[s, q]
            if g >= 0:
                ps[pos] = s
                pg[pos] = g
                pr[pos] = node_rests[t]
                pos += 1
                if g == best[s]:
                    has_best = True
        if not has_best:
            ps[pos] = s
            pg[pos] = best[s]
            pr[pos] = node_rests[t]
            pos += 1
    return ps, pg, pr, per_node
