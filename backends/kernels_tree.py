"""Host kernels of the level-3 tree search: partitions, the state registry, values bottom-up,
and the tree's sweeps (``sweep_top_k``: the lists of ``kernels_entropy.sweep_top_k``, bit for
bit, with most probes dropped early by an entropy bound).

Written, like ``backends/kernels_entropy.py``, in the Python subset numba compiles, with the same
interpreted fallback (``TERMO_NO_NUMBA=1`` or no numba) and ``.py_func`` oracles. These kernels
decide the level-3 *values* (float order of every sum), so their source is part of the opener
cache signature (``termo.book.openers.search_signature``); the entropy kernels are not (they are
checked against a plain-Python oracle instead, and the tree's sweeps against them).

Float conventions (bit-exact with the reference):

* ``P(b|S) = sum(prior[S_b]) / sum(prior[S])``, both sums NumPy's pairwise sum over ascending
  members (``|S_b|/|S|`` when ``sum(prior[S]) == 0``); buckets in ascending pattern code.
* ``cost = 1 + acc`` with ``acc`` summed sequentially from 0 over the non-winning buckets.
* two candidates: ``1 + f·(w_min / (w_0 + w_1))``, ``f = 1`` with a round to spare, else the
  loss cost; uniform (0.5) when both weights are 0.
"""

from __future__ import annotations

import numpy as np

from backends.kernels_entropy import (  # noqa: F401  (re-exported helpers)
    HAVE_NUMBA,
    balanced_order,
    int_dict,
    njit,
    pairwise_sum,
    prange,
)
from backends.kernels_entropy import (  # the exact entropy order and the §5.2 top-k list of the sweeps
    PARALLEL_MIN_WORK,
    ROUND_STEP,
    _log2_table,
    _probe_entropy_hist,
    _sweep_state,
    _topk_insert,
    _w_log_w,
    state_weights,
)


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
        if total > 0.0:
            for j in range(size):
                buf[j] = prior[out_members[start + j]]
            out_prob[b] = pairwise_sum(buf, 0, size) / total
        else:
            out_prob[b] = size / m
        start += size
        b += 1


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
# State registry (deduplication by hash, verified member by member)
# --------------------------------------------------------------------------------------------
@njit(cache=True)
def _hash_members(arr, lo, n):
    h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(n)
    for j in range(lo, lo + n):
        x = h ^ np.uint64(arr[j])
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        h = x ^ (x >> np.uint64(31))
    return np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))


@njit(cache=True)
def _same(a, alo, b, blo, n):
    for j in range(n):
        if a[alo + j] != b[blo + j]:
            return False
    return True


EMPTY_KEY = -1  # a free slot of an IdTable (keys are non-negative)


class IdTable:
    """int64 keys (non-negative) → int64 ids, open addressing over two NumPy arrays.

    The kernels read and fill the arrays; the Python side grows them before each batch
    (``reserve``), so a kernel never runs out of slots (the load factor stays at most 1/2).
    It replaces numba's typed dict, whose creation compiles for ~0.8 s in every process."""

    def __init__(self, capacity: int = 1024):
        cap = 16
        while cap < capacity:
            cap *= 2
        self.keys = np.full(cap, EMPTY_KEY, np.int64)
        self.ids = np.zeros(cap, np.int64)
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def reserve(self, extra: int) -> None:
        """Room for ``extra`` more entries."""
        need = 2 * (self.count + int(extra))
        cap = self.keys.shape[0]
        if need <= cap:
            return
        while cap < need:
            cap *= 2
        keys = np.full(cap, EMPTY_KEY, np.int64)
        ids = np.zeros(cap, np.int64)
        _table_rehash(self.keys, self.ids, keys, ids)
        self.keys, self.ids = keys, ids

    def put(self, key: int, value: int) -> None:
        """Add an entry (a duplicate key gets a second slot; lookups see both, in probe order)."""
        self.reserve(1)
        _table_put(self.keys, self.ids, int(key), int(value))
        self.count += 1


@njit(cache=True)
def _slot(key, mask):
    """The home slot of a key: state keys are hashes already; node keys are small and distinct."""
    return (key ^ (key >> 32)) & mask


@njit(cache=True)
def _table_put(keys, ids, key, value):
    mask = keys.shape[0] - 1
    slot = _slot(key, mask)
    while keys[slot] != EMPTY_KEY:
        slot = (slot + 1) & mask
    keys[slot] = key
    ids[slot] = value


@njit(cache=True)
def _table_rehash(old_keys, old_ids, keys, ids):
    for i in range(old_keys.shape[0]):
        if old_keys[i] != EMPTY_KEY:
            _table_put(keys, ids, old_keys[i], old_ids[i])


@njit(cache=True)
def _register_states(keys, ids, store_members, store_offsets, n_old, cand_members, cand_offsets, cand_ids, min_size):
    n = cand_offsets.shape[0] - 1
    mask = keys.shape[0] - 1
    firsts = np.empty(n, np.int64)
    n_new = 0
    for i in range(n):
        lo = cand_offsets[i]
        size = cand_offsets[i + 1] - lo
        if size < min_size:
            cand_ids[i] = -1
            continue
        h = _hash_members(cand_members, lo, size)
        slot = _slot(h, mask)
        found = -1
        while keys[slot] != EMPTY_KEY:
            if keys[slot] == h:
                sid = ids[slot]
                if sid < n_old:
                    slo = store_offsets[sid]
                    if store_offsets[sid + 1] - slo == size and _same(store_members, slo, cand_members, lo, size):
                        found = sid
                        break
                else:
                    flo = cand_offsets[firsts[sid - n_old]]
                    fsize = cand_offsets[firsts[sid - n_old] + 1] - flo
                    if fsize == size and _same(cand_members, flo, cand_members, lo, size):
                        found = sid
                        break
            slot = (slot + 1) & mask
        if found < 0:
            found = n_old + n_new
            keys[slot] = h
            ids[slot] = found
            firsts[n_new] = i
            n_new += 1
        cand_ids[i] = found
    return firsts[:n_new]


def register_states(table, store_members, store_offsets, n_old, cand_members, cand_offsets, cand_ids, min_size):
    """Map each candidate member list to a state id, creating ids for unseen ones.

    ``table`` (an :class:`IdTable`) maps a state's hash to its id; equal hashes are told apart
    by comparing members, so equality is always verified. Old states live in
    ``store_members``/``store_offsets`` (``n_old`` of them); candidate ``i`` is
    ``cand_members[cand_offsets[i]:cand_offsets[i+1]]``. Candidates smaller than ``min_size``
    get -1. Writes the ids into ``cand_ids`` and returns the candidate index of the first
    occurrence of each new state (in id order).
    """
    table.reserve(cand_offsets.shape[0] - 1)
    firsts = _register_states(table.keys, table.ids, store_members, store_offsets, n_old, cand_members,
                              cand_offsets, cand_ids, min_size)
    table.count += int(firsts.shape[0])
    return firsts


@njit(cache=True)
def _register_nodes(keys, ids, n_old, state_ids, rests):
    n = state_ids.shape[0]
    mask = keys.shape[0] - 1
    out = np.empty(n, np.int64)
    firsts = np.empty(n, np.int64)
    n_new = 0
    for i in range(n):
        s = state_ids[i]
        if s < 0:
            out[i] = -1
            continue
        key = s * 8 + rests[i]
        slot = _slot(key, mask)
        while keys[slot] != EMPTY_KEY and keys[slot] != key:
            slot = (slot + 1) & mask
        if keys[slot] == key:
            out[i] = ids[slot]
        else:
            nid = n_old + n_new
            keys[slot] = key
            ids[slot] = nid
            firsts[n_new] = i
            n_new += 1
            out[i] = nid
    return out, firsts[:n_new]


def register_nodes(table, n_old, state_ids, rests):
    """Map (state id, rest) pairs to node ids (key ``state*8 + rest`` in the :class:`IdTable`);
    -1 states stay -1. Returns (node ids, index of the first occurrence of each new node, in
    id order)."""
    table.reserve(state_ids.shape[0])
    out, firsts = _register_nodes(table.keys, table.ids, n_old, state_ids, rests)
    table.count += int(firsts.shape[0])
    return out, firsts


# --------------------------------------------------------------------------------------------
# Batched sweeps of the tree: the lists of kernels_entropy.sweep_top_k, probes pruned by a bound
# --------------------------------------------------------------------------------------------
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
    ``kernels_entropy._sweep_state``'s (same keys, the same float order of every entropy) with
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
    top_i = np.full(kk, -1, np.int64)
    top_key = np.zeros(kk, np.float64)
    top_in = np.zeros(kk, np.int64)
    top_p = np.zeros(kk, np.float64)
    top_h = np.zeros(kk, np.float64)
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
    log2_int = _log2_table(n_bins)
    for i in prange(state_ids.shape[0]):
        t = perm[i]
        _tree_sweep_state(matrix_t, members, offsets, state_ids[t], prior, probe_prior, kk, n_bins, log2_int, out_i,
                          out_h, t)


@njit(cache=True)
def _tree_sweep_serial(matrix_t, members, offsets, state_ids, prior, probe_prior, kk, n_bins, out_i, out_h):
    log2_int = _log2_table(n_bins)
    for t in range(state_ids.shape[0]):
        _tree_sweep_state(matrix_t, members, offsets, state_ids[t], prior, probe_prior, kk, n_bins, log2_int, out_i,
                          out_h, t)


def sweep_top_k(matrix_t, members, offsets, state_ids, prior, probe_prior, k, n_bins):
    """``kernels_entropy.sweep_top_k`` with the same arguments and the very same result
    (indices and entropies bit for bit), faster: states of ``BOUND_MIN``..``BOUND_MAX`` members
    and at least k of them are swept by the pruned scan (``_sweep_bounded``), the others by the
    entropy kernel itself. States run in parallel when the batch is big enough."""
    n_states = state_ids.shape[0]
    n_probes = matrix_t.shape[1]
    kk = min(k, n_probes)
    out_i = np.full((n_states, k), -1, np.int64)
    out_h = np.zeros((n_states, k), np.float64)
    sizes = offsets[state_ids + 1] - offsets[state_ids]
    if int(np.sum(sizes)) * n_probes >= PARALLEL_MIN_WORK and n_states > 1:
        _tree_sweep_parallel(matrix_t, members, offsets, state_ids, prior, probe_prior, kk, n_bins, out_i, out_h,
                             balanced_order(sizes))
    else:
        _tree_sweep_serial(matrix_t, members, offsets, state_ids, prior, probe_prior, kk, n_bins, out_i, out_h)
    return out_i, out_h


# --------------------------------------------------------------------------------------------
# Values, bottom-up
# --------------------------------------------------------------------------------------------
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
            tot = a + b
            pmin = (min(a, b) / tot) if tot > 0.0 else 0.5
            for r in range(1, rmax + 1):
                f = 1.0 if r >= 2 else loss
                vals[nd, r] = 1.0 + f * pmin
            continue
        for r in range(1, rmax + 1):
            best = np.inf
            for p in range(node_pair_lo[nd], node_pair_hi[nd]):
                if pair_single[p]:
                    continue
                acc = 0.0
                for bb in range(pair_bucket_lo[p], pair_bucket_hi[p]):
                    child = bucket_child[bb]
                    if child < 0:
                        v = 1.0 if r >= 2 else loss
                    else:
                        v = vals[child, r - 1]
                    acc += bucket_prob[bb] * v
                c = 1.0 + acc
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
            continue
        acc = 0.0
        for bb in range(pair_bucket_lo[p], pair_bucket_hi[p]):
            child = bucket_child[bb]
            if child < 0:
                v = 1.0 if r >= 2 else loss
            else:
                v = vals[child, r - 1]
            acc += bucket_prob[bb] * v
        out[t] = 1.0 + acc
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
