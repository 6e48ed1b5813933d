"""Compiled helpers of the exact joint solver for several boards (:mod:`.multi_exact`): state keys,
the boards' partitions, the cheap lower bounds and the one pass that bounds every probe at a state.

A state is ``U`` unsolved boards, each a candidate set: ``M[off[b]:off[b + 1]]`` (answer indices,
ascending), ``r`` rounds left. Each board's answer is drawn from its set with the weights ``w``
renormalised over it, the boards independently (docs/modes-solver.md). The objective ``obj`` is
a cost per turn and a cost at a loss, both functions of the unsolved count ``U``:

* ``FINISH``: 1 per turn, 1 at a loss (the turn the last board is solved; a loss counts limit + 1);
* ``SCORE``: ``U`` per turn, ``U`` at a loss (the sum of the boards' solve turns);
* ``WIN``: 0 per turn, 1 at a loss (the probability of losing).

The state is *disjoint* when no probe can win two of its boards at once (their candidates lie in
different win classes): then one guess solves one board at most. Every bound here is admissible
(at most the true value); docs/modes-solver.md proves each.
"""

from __future__ import annotations

import numpy as np

from backends.kernels.exact_bounds import partition
from backends.numba_shim import njit

FINISH, SCORE, WIN = 0, 1, 2


@njit(cache=True)
def turn_cost(obj, u):
    if obj == FINISH:
        return 1.0
    if obj == SCORE:
        return float(u)
    return 0.0


@njit(cache=True)
def loss_cost(obj, u):
    if obj == SCORE:
        return float(u)
    return 1.0


@njit(cache=True)
def set_hash(items, n, salt):
    """Two int64 keys of ``items[:n]`` (salted): two 64-bit multiply-xorshift streams, no division
    (the memo and the pass rows key states by them; the second is positive, as a memo key must be)."""
    a = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(salt)
    b = np.uint64(0xC2B2AE3D27D4EB4F) + np.uint64(n)
    m1 = np.uint64(0xBF58476D1CE4E5B9)
    m2 = np.uint64(0x94D049BB133111EB)
    for j in range(n):
        x = np.uint64(items[j]) + np.uint64(1)
        a = (a ^ x) * m1
        a ^= a >> np.uint64(29)
        b = (b + x) * m2
        b ^= b >> np.uint64(32)
    a ^= a >> np.uint64(31)
    b = (b ^ (b >> np.uint64(27))) * m1
    return np.int64(a >> np.uint64(1)), np.int64((b >> np.uint64(2)) | np.uint64(1))


@njit(cache=True)
def insert_key(keys1, keys2, n, k1, k2):
    """Insert board key (k1, k2) into the sorted ``keys1/keys2[:n]``."""
    q = n
    while q > 0 and (keys1[q - 1] > k1 or (keys1[q - 1] == k1 and keys2[q - 1] > k2)):
        keys1[q] = keys1[q - 1]
        keys2[q] = keys2[q - 1]
        q -= 1
    keys1[q] = k1
    keys2[q] = k2


@njit(cache=True)
def key_of(keys1, keys2, n, r, packed):
    """Two int64 keys of a state from its boards' sorted set hashes ``keys1/keys2[:n]`` and ``r``."""
    for b in range(n):
        packed[2 * b] = keys1[b]
        packed[2 * b + 1] = keys2[b]
    return set_hash(packed, 2 * n, r * 1000003 + 17)


@njit(cache=True)
def state_key(M, off, U, r, keys1, keys2, packed):
    """Two int64 keys of the state (boards as a multiset: their set hashes sorted, then ``r``)."""
    for b in range(U):
        k1, k2 = set_hash(M[off[b]:off[b + 1]], off[b + 1] - off[b], 0)
        insert_key(keys1, keys2, b, k1, k2)
    return key_of(keys1, keys2, U, r, packed)


@njit(cache=True)
def board_mass(w, M, lo, hi):
    """(W, the heaviest weight) of ``M[lo:hi]``, summed in member order."""
    total = 0.0
    big = 0.0
    for j in range(lo, hi):
        total += w[M[j]]
        if w[M[j]] > big:
            big = w[M[j]]
    return total, big


@njit(cache=True)
def is_disjoint(cls, M, off, U, marks, stamp):
    """True when no two boards hold answers of one win class (``marks``: per class, the last
    ``stamp`` that saw it; ``stamp`` must be fresh, larger than every earlier one)."""
    for b in range(U):
        for j in range(off[b], off[b + 1]):
            c = cls[M[j]]
            if marks[c] >= stamp and marks[c] != stamp + b:
                return False
        for j in range(off[b], off[b + 1]):
            marks[cls[M[j]]] = stamp + b
    return True


@njit(cache=True)
def forced_answer(M, off, U, obj, disjoint):
    """The answer a singleton board forces (the least such answer), or -1. Playing a board's
    known answer first never hurts finish or win, nor score when the state is disjoint."""
    if obj == SCORE and not disjoint:
        return -1
    best = -1
    for b in range(U):
        if off[b + 1] - off[b] == 1:
            a = M[off[b]]
            if best < 0 or a < best:
                best = a
    return best


@njit(cache=True)
def count_bound(obj, U, r, disjoint, waste):
    """A bound from counting solving turns alone, for a disjoint state (one guess solves one board
    at most): ``waste`` is a lower bound of the chance that the next guess solves no board (at
    least ``1 − max_b m_b``, ``m_b`` board b's heaviest normalised weight: the guess is the answer
    of one board at most)."""
    if not disjoint or r <= 0:
        return 0.0
    if obj == FINISH:
        if U > r:
            return float(r + 1)
        return float(U) + waste
    if obj == SCORE:
        return count_cost(SCORE, U, r) + (float(U) * waste if U <= r else 0.0)
    if U > r:
        return 1.0
    return waste if U == r else 0.0


@njit(cache=True)
def poisson_binomial(p_unsolved, U, dist):
    """``dist[k]``: the probability that ``k`` of ``U`` independent boards stay unsolved."""
    dist[0] = 1.0
    for k in range(1, U + 1):
        dist[k] = 0.0
    for b in range(U):
        q = p_unsolved[b]
        for k in range(b + 1, 0, -1):
            dist[k] = dist[k] * (1.0 - q) + dist[k - 1] * q
        dist[0] = dist[0] * (1.0 - q)


NO_BOARDS = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)  # the sums of add_board over no board


@njit(cache=True, inline="always")
def add_board(sums, p, m, e):
    """The boards' sums that :func:`quick_bound` reads, ``(Π pw, Σ pw, Σ em, Π (1 − em), max eb,
    Σ eb)`` (none yet: :data:`NO_BOARDS`), with one more board: its ``pw`` ``p``, ``em`` ``m``,
    ``eb`` ``e`` (see :func:`combine_bound`)."""
    all_win, sum_pw, sum_em, prod_miss, best_eb, sum_eb = sums
    return all_win * p, sum_pw + p, sum_em + m, prod_miss * (1.0 - m), (e if e > best_eb else best_eb), sum_eb + e


@njit(cache=True)
def quick_bound(obj, U, rc, disjoint, sums):
    """:func:`combine_bound` from the boards' aggregates alone (no array: the passes call it once per
    probe; ``sums`` from :func:`add_board`): (bound, done); not done when the bound needs the
    distribution of the boards left (a disjoint state with more boards than rounds, or score),
    which :func:`combine_bound` computes. The chance the outcome's next guess solves nothing is
    min_b (1 − m_b) over independent boards, at least their product (x, y in [0, 1]:
    min(x, y) >= xy) and 1 − Σ_b m_b."""
    all_win, sum_pw, sum_em, prod_miss, best_eb, sum_eb = sums
    tc = turn_cost(obj, U)
    if rc <= 0:
        if obj == SCORE:
            return tc + float(U) - sum_pw, True
        return tc + 1.0 - all_win, True
    if obj == WIN:
        if not disjoint or U <= rc:
            return 0.0, True
        return 0.0, False
    if obj == SCORE:
        if disjoint:
            return 0.0, False
        return tc + sum_eb, True
    count = 1.0 - all_win
    if disjoint:
        if U > rc:
            return 0.0, False
        waste = 1.0 - sum_em
        if prod_miss > waste:
            waste = prod_miss
        count = float(U) - sum_pw + (waste if waste > 0.0 else 0.0)
    return tc + (best_eb if best_eb > count else count), True


@njit(cache=True)
def combine_bound(obj, U, rc, disjoint, pw, eb, em, dist):
    """A lower bound of a probe's cost from its per-board aggregates: ``pw[b]`` the chance it
    solves board b, ``eb[b]`` Σ over b's other buckets of P·(a single-board bound of the bucket),
    ``em[b]`` the chance the next guess could solve b (win bucket counted 1). ``rc``: rounds left
    after the probe. :func:`quick_bound` where the boards' sums decide it, else from the
    distribution of the boards left unsolved."""
    sums = NO_BOARDS
    for b in range(U):
        sums = add_board(sums, pw[b], em[b], eb[b])
    v, done = quick_bound(obj, U, rc, disjoint, sums)
    if done:
        return v
    count = _expected_count(obj, pw, U, rc, dist)
    if obj == WIN:
        return count
    own = sums[5] if obj == SCORE else sums[4]
    return turn_cost(obj, U) + (own if own > count else count)


@njit(cache=True)
def _unsolved_dist(pw, U, dist):
    """``dist[U + 1 + k]``: the chance that ``k`` boards stay unsolved (``dist[:U]`` scratch)."""
    for b in range(U):
        dist[b] = 1.0 - pw[b]
    poisson_binomial(dist[:U], U, dist[U + 1:])


@njit(cache=True)
def count_cost(obj, k, r):
    """The cost of ``k`` unsolved boards with ``r`` rounds left when a guess solves one board at
    most, counted from the next turn: finish ``min(k, r + 1)``, score ``Σ_{i ≤ k} min(i, r + 1)``,
    win 1 when ``k > r`` (a loss), else 0."""
    if obj == WIN:
        return 1.0 if k > r else 0.0
    if obj == FINISH:
        return float(k if k <= r else r + 1)
    total = 0.0
    for i in range(1, k + 1):
        total += float(i if i <= r + 1 else r + 1)
    return total


@njit(cache=True)
def _expected_count(obj, pw, U, rc, dist):
    """E[:func:`count_cost` of the boards left unsolved] when each board ``b`` is solved with
    chance ``pw[b]``, independently (``dist`` scratch)."""
    _unsolved_dist(pw, U, dist)
    total = 0.0
    for k in range(1, U + 1):
        total += dist[U + 1 + k] * count_cost(obj, k, rc)
    return total


@njit(cache=True, inline="always")
def board_split(X, w, M, lo, hi, g, win, rc, inv, cnt, wsum, wmax, label, seen, rnd, r0, h, tsum):
    """Board ``M[lo:hi]`` (weights over the board ``w/W``, ``inv = 1/W``) split by probe ``g``, the
    one loop body of :func:`probe_pass` and :func:`board_pass`: ``h`` and ``tsum`` carried on (the
    split's hash, Σ_j rnd[j - r0]·label_j with the win bucket labelled 1000, and Σ P²), then
    whether the probe splits or solves the board, the chance it solves it, Σ over the other
    buckets of P (no round left, ``rc <= 0``) or P·(2 − m), and the chance the next guess could
    solve it. ``cnt``, ``wsum``, ``wmax`` are left cleared."""
    ns = 0
    for j in range(lo, hi):
        a = M[j]
        c = X[a, g]
        if cnt[c] == 0:
            label[c] = ns + 1 if c != win else 1000
            seen[ns] = c
            ns += 1
        cnt[c] += 1
        wsum[c] += w[a]
        if w[a] > wmax[c]:
            wmax[c] = w[a]
        h += rnd[j - r0] * np.uint64(label[c])
    pwb = 0.0
    ebb = 0.0
    emb = 0.0
    for i in range(ns):
        c = seen[i]
        p = wsum[c] * inv
        if c == win:
            pwb = p
            emb += p
        else:
            ebb += (p if rc <= 0 else (2.0 * wsum[c] - wmax[c]) * inv)
            emb += wmax[c] * inv
        tsum += p * p
        cnt[c] = 0
        wsum[c] = 0.0
        wmax[c] = 0.0
    return h, tsum, ns > 1 or pwb > 0.0, pwb, ebb, emb


@njit(cache=True)
def probe_pass(X, w, M, off, U, Wb, rc, obj, disjoint, win, probes, n_probes, cnt, wsum, wmax, label, seen,
               pw, eb, em, dist, lbs, tie, hsh, valid, rnd):
    """For every probe of ``probes[:n_probes]`` at the state: ``lbs`` a lower bound of its cost,
    ``tie`` Σ P(bucket)² over the boards (the finer split first), ``hsh`` the class of its split
    (probes splitting every board alike share it: a 64-bit hash of the boards' bucket labels in
    order of first appearance, the win bucket marked: Σ_j rnd[j]·label_j over the members, ``rnd``
    random 64-bit constants), ``valid`` whether it splits or solves some board. ``X[answer, probe]`` holds the codes: the answers-major matrix for a small state (its
    rows stay in cache while the probes stream), the probes-major one seen transposed for a big one."""
    sep = np.uint64(0xD6E8FEB86659FD93)
    for t in range(n_probes):
        g = probes[t]
        h = np.uint64(7)
        useful = False
        tsum = 0.0
        for b in range(U):
            h, tsum, splits, pw[b], eb[b], em[b] = board_split(X, w, M, off[b], off[b + 1], g, win, rc, 1.0 / Wb[b],
                                                               cnt, wsum, wmax, label, seen, rnd, 0, h, tsum)
            h = h * sep + np.uint64(b + 1)
            if splits:
                useful = True
        valid[t] = useful
        tie[t] = tsum
        h ^= h >> np.uint64(31)
        hsh[t] = np.int64(h >> np.uint64(1))
        lbs[t] = combine_bound(obj, U, rc, disjoint, pw, eb, em, dist) if useful else np.inf


@njit(cache=True)
def partition_boards(Bm, w, g, M, off, U, win, cnt, seen, gm, bstart, bcode, bmass, boff, Wb):
    """Each board's buckets under probe ``g`` (the single-board :func:`partition` of each board,
    ``Bm`` probes-major): board b's buckets are ``boff[b]..boff[b + 1]``, bucket i holds
    ``gm[bstart[i]:bstart[i + 1]]`` (ascending), code ``bcode[i]``, probability ``bmass[i]`` (its
    weight over the board's). Buckets in ascending code."""
    A = Bm.T
    nb = 0
    boff[0] = 0
    for b in range(U):
        lo = off[b]
        hi = off[b + 1]
        ns = partition(A, g, M[lo:hi], hi - lo, win, cnt, seen, gm[lo:hi], bcode[nb:], bstart[nb:])
        for i in range(ns + 1):
            bstart[nb + i] += lo
        for i in range(ns):
            s = 0.0
            for j in range(bstart[nb + i], bstart[nb + i + 1]):
                s += w[gm[j]]
            bmass[nb + i] = s / Wb[b]
        nb += ns
        boff[b + 1] = nb
    return nb


@njit(cache=True)
def board_pass(X, w, M, lo, hi, W, n_probes, win, cnt, wsum, wmax, label, seen, pw, eb, em, ts, hh, ok, rnd):
    """One board's part of :func:`probe_pass` for every probe ``0..n_probes-1`` (one round left at
    least), into rows a later :func:`joint_pass` reads: the chance the probe solves the board,
    Σ P·(2 − m) over its other buckets, the chance the next guess could solve it, Σ P², the hash
    of its split and whether it splits or solves the board."""
    inv = 1.0 / W
    for g in range(n_probes):
        h, ts[g], ok[g], pw[g], eb[g], em[g] = board_split(X, w, M, lo, hi, g, win, 1, inv, cnt, wsum, wmax, label,
                                                           seen, rnd, lo, np.uint64(7), 0.0)
        hh[g] = np.int64(h >> np.uint64(1))


@njit(cache=True)
def joint_pass(slots, U, rc, obj, disjoint, n_probes, CPW, CEB, CEM, CTS, CHH, COK, pw, eb, em, dist, lbs, tie, hsh,
               valid):
    """:func:`probe_pass` over every probe from the boards' rows (``slots[b]``: board b's row in
    the cached arrays, filled by :func:`board_pass`)."""
    mult = np.uint64(0x9E3779B97F4A7C15)
    sep = np.uint64(2000)
    for g in range(n_probes):
        h = np.uint64(7)
        useful = False
        tsum = 0.0
        sums = NO_BOARDS
        for b in range(U):
            s = slots[b]
            sums = add_board(sums, CPW[s, g], CEM[s, g], CEB[s, g])
            tsum += CTS[s, g]
            h = (h * mult + np.uint64(CHH[s, g])) * mult + sep
            if COK[s, g]:
                useful = True
        valid[g] = useful
        tie[g] = tsum
        h ^= h >> np.uint64(31)
        hsh[g] = np.int64(h >> np.uint64(1))
        if not useful:
            lbs[g] = np.inf
            continue
        v, done = quick_bound(obj, U, rc, disjoint, sums)
        if not done:
            for b in range(U):
                pw[b] = CPW[slots[b], g]
                eb[b] = CEB[slots[b], g]
                em[b] = CEM[slots[b], g]
            v = combine_bound(obj, U, rc, disjoint, pw, eb, em, dist)
        lbs[g] = v


@njit(cache=True)
def two_turn_chance(X, w, M, off, win, cnt, wmax, seen):
    """For two disjoint boards (exact win rule): an upper bound of the chance that both are solved
    by the next two guesses. The first must be the answer of one board, candidate x with its
    weight on its board, and the second the other board's answer, which after x's colours is
    guessed with chance Σ over x's buckets of that board of their heaviest weight (over the
    board's): the largest product over every candidate of either board."""
    best = 0.0
    for b in range(2):
        o = 1 - b
        Wb = 0.0
        for j in range(off[b], off[b + 1]):
            Wb += w[M[j]]
        Wo = 0.0
        for k in range(off[o], off[o + 1]):
            Wo += w[M[k]]
        for j in range(off[b], off[b + 1]):
            x = M[j]
            ns = 0
            for k in range(off[o], off[o + 1]):
                a = M[k]
                c = X[a, x]
                if cnt[c] == 0:
                    cnt[c] = 1
                    wmax[c] = 0.0
                    seen[ns] = c
                    ns += 1
                if w[a] > wmax[c]:
                    wmax[c] = w[a]
            q = 0.0
            for i in range(ns):
                q += wmax[seen[i]]
                cnt[seen[i]] = 0
                wmax[seen[i]] = 0.0
            v = (w[x] / Wb) * (q / Wo)
            if v > best:
                best = v
    return best


@njit(cache=True)
def two_board_bound(obj, r, p2, max_m):
    """The bound of two disjoint boards of at least two candidates each with ``r >= 2`` rounds,
    ``p2`` from :func:`two_turn_chance`: finish ``3 − p2`` (two turns only when both guesses
    solve, else three at least); score ``3 + (1 − p2) + (1 − max_m)``; win ``1 − p2`` when two
    rounds are left."""
    if obj == FINISH:
        return 3.0 - p2
    if obj == SCORE:
        return 3.0 + (1.0 - p2) + (1.0 - max_m)
    return 1.0 - p2 if r == 2 else 0.0
