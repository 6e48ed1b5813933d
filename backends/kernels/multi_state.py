"""The joint search's per-state helpers (:mod:`.multi_exact`'s ``solve`` is the one recursive kernel;
what it does at one state without recursing lives here): the stats and scratch slots, the closed
forms, a state's children (their members, keys, sizes and cheap bounds), the one-pass bounds of the
probes at a state and the order in which the search takes them (batches of least bound, no full
sort), and the state's cheap bounds (docs/modes-solver.md).
"""

from __future__ import annotations

import numpy as np

from backends.kernels.multi_pass import (FINISH, SCORE, WIN, board_mass, board_pass, count_bound, insert_key, joint_pass,
                                         loss_cost, probe_pass, set_hash, turn_cost, two_board_bound, two_turn_chance)
from backends.numba_shim import njit

# stats slots: the single-board search's (backends.kernels.exact: NODES ... GUESSES, 0 to 5), then these
PASSES = 6
N_STATS = 20
EXACTS, CUT_BOUND, CUT_SEARCH = 7, 8, 9
JOINT_FROZEN = 17  # nonzero: no state of several boards is expanded (one board's still are: its own optimum)
# the scratch tuple ``lx`` (see backends.host_ops.multi_exact.MultiExactEngine)
CNT, WSUM, WMAX, LABEL, SEEN, MARKS, KEYS1, KEYS2, PACKED, PW, EB, EM, DIST = range(13)
LBS, TIE, ENT, HSH, VALID, ORDER, GM, BSTART, BCODE, BMASS, BOFF, CM, COFF, WB, CANDS, SKIP = range(13, 29)
BM, BV1, BEX, BK1, BK2 = range(29, 34)
CTAG1, CTAG2, CPW, CEB, CEM, CTS, CHH, COK, SLOTS = range(34, 43)  # the boards' pass rows, cached
BATCH = 32  # probes taken in order per scan of the bounds
BIG_STATE = 512  # states with more members are swept probes-major (the single-board search's rule)


@njit(cache=True)
def closed_form(cx, M, off, U, r, disjoint):
    """(value, guess, done): the states whose value needs no search: none unsolved, no round
    left, more disjoint boards than rounds, and one board (exact win rule) of one or two
    candidates or with one round left (its heaviest candidate played)."""
    obj = cx[3]
    if U == 0:
        return 0.0, -1, True
    if r <= 0:
        return loss_cost(obj, U), -1, True
    if disjoint and U > r and obj != SCORE:
        return (float(r + 1) if obj == FINISH else 1.0), -1, True
    if U != 1 or not cx[8]:
        return 0.0, -1, False
    n = off[1]
    if n > 2 and r > 1:
        return 0.0, -1, False
    w = cx[1]
    W = 0.0
    g = M[0]
    for j in range(n):
        W += w[M[j]]
        if w[M[j]] > w[g]:
            g = M[j]
    miss = (W - w[g]) / W  # the chance the heaviest candidate is not the answer
    if obj == WIN:
        return (miss if r == 1 else 0.0), g, True
    return 1.0 + miss, g, True


@njit(cache=True, inline="always")
def outcome_bucket(c, b, boff):
    """Board ``b``'s bucket in joint outcome ``c`` (a number in mixed radix over the boards' bucket
    counts ``boff[b + 1] - boff[b]``, board 0 the lowest digit; the outcome ``c`` of the boards
    from ``b`` on): (the bucket's index, the outcome of the boards after ``b``)."""
    kb = boff[b + 1] - boff[b]
    return boff[b] + c % kb, c // kb


@njit(cache=True)
def child_disjoint(c, U, boff, bcode, win, disjoint):
    """Whether joint outcome ``c``'s unsolved boards are pairwise disjoint: the state's were, or
    their buckets' colours differ pairwise (a word two boards share gets one colour pattern on both,
    so buckets of different colours share no word). Boards sharing one set (a Dordle state of
    ``salet:BBYBB/BBYBB``) are not disjoint, and most of their outcomes are."""
    if disjoint:
        return True
    codes = np.empty(U, np.int64)
    n = 0
    for b in range(U):
        i, c = outcome_bucket(c, b, boff)
        if bcode[i] == win:
            continue
        for k in range(n):
            if codes[k] == bcode[i]:
                return False
        codes[n] = bcode[i]
        n += 1
    return True


@njit(cache=True)
def build_child(c, U, boff, gm, bstart, bcode, bmass, win, cm, coff):
    """Joint outcome ``c`` (mixed radix over the boards' buckets) into ``cm``/``coff``:
    (probability, unsolved boards, members)."""
    p = 1.0
    uc = 0
    pos = 0
    coff[0] = 0
    for b in range(U):
        i, c = outcome_bucket(c, b, boff)
        p *= bmass[i]
        if bcode[i] == win:
            continue
        for j in range(bstart[i], bstart[i + 1]):
            cm[pos] = gm[j]
            pos += 1
        uc += 1
        coff[uc] = pos
    return p, uc, pos


@njit(cache=True)
def child_keys(c, U, boff, bstart, bcode, bk1, bk2, win, keys1, keys2):
    """Joint outcome ``c``'s boards' set hashes, sorted, into ``keys1/keys2``: (its unsolved
    boards, whether one of them has one candidate left)."""
    uc = 0
    single = False
    for b in range(U):
        i, c = outcome_bucket(c, b, boff)
        if bcode[i] == win:
            continue
        if bstart[i + 1] - bstart[i] == 1:
            single = True
        insert_key(keys1, keys2, uc, bk1[i], bk2[i])
        uc += 1
    return uc, single


@njit(cache=True)
def child_size(c, U, boff, bstart, bcode, win):
    """The members of joint outcome ``c`` (its unsolved boards' candidates)."""
    n = 0
    for b in range(U):
        i, c = outcome_bucket(c, b, boff)
        if bcode[i] != win:
            n += bstart[i + 1] - bstart[i]
    return n


@njit(cache=True)
def full_pass(cx, lx, M, off, U, r, disjoint, stats):
    """The one-pass bounds of every probe at the state (level ``r``'s arrays), from each board's
    rows: kept per candidate set in a direct-mapped cache (a board's set comes back with many
    partners), the last ``U`` rows scratch for boards that collide."""
    Wb = lx[WB][r]
    tag1, tag2, slots = lx[CTAG1], lx[CTAG2], lx[SLOTS]
    n_cached = tag1.shape[0] - slots.shape[0]
    X = cx[9] if off[U] <= BIG_STATE else cx[0].T
    for b in range(U):
        Wb[b] = board_mass(cx[1], M, off[b], off[b + 1])[0]
        k1, k2 = set_hash(M[off[b]:off[b + 1]], off[b + 1] - off[b], 0)
        s = k1 % n_cached
        for q in range(b):
            if slots[q] == s:
                s = n_cached + b  # taken by another board of this state: a scratch row
        slots[b] = s
        if s < n_cached and tag1[s] == k1 and tag2[s] == k2:
            continue
        stats[16] += 1
        board_pass(X, cx[1], M, off[b], off[b + 1], Wb[b], cx[6], cx[2], lx[CNT], lx[WSUM], lx[WMAX], lx[LABEL],
                   lx[SEEN], lx[CPW][s], lx[CEB][s], lx[CEM][s], lx[CTS][s], lx[CHH][s], lx[COK][s],
                   cx[10])
        tag1[s] = k1 if s < n_cached else -1
        tag2[s] = k2
    joint_pass(slots, U, r - 1, cx[3], disjoint, cx[6], lx[CPW], lx[CEB], lx[CEM], lx[CTS], lx[CHH], lx[COK],
               lx[PW], lx[EB], lx[EM], lx[DIST], lx[LBS][r], lx[TIE][r], lx[HSH][r], lx[VALID][r])


@njit(cache=True)
def state_pass(cx, lx, M, off, U, r, disjoint, probes, n_probes, stats):
    """The one-pass bounds of ``probes[:n_probes]`` at the state (level ``r``'s arrays)."""
    if n_probes == cx[6] and r >= 2 and lx[CTAG1].shape[0] > lx[SLOTS].shape[0]:
        full_pass(cx, lx, M, off, U, r, disjoint, stats)
        return
    Wb = lx[WB][r]
    for b in range(U):
        Wb[b] = board_mass(cx[1], M, off[b], off[b + 1])[0]
    if off[U] <= BIG_STATE:
        probe_pass(cx[9], cx[1], M, off, U, Wb, r - 1, cx[3], disjoint, cx[2], probes, n_probes, lx[CNT], lx[WSUM],
                   lx[WMAX], lx[LABEL], lx[SEEN], lx[PW], lx[EB], lx[EM], lx[DIST], lx[LBS][r], lx[TIE][r],
                   lx[HSH][r], lx[VALID][r], cx[10])
    else:
        probe_pass(cx[0].T, cx[1], M, off, U, Wb, r - 1, cx[3], disjoint, cx[2], probes, n_probes, lx[CNT],
                   lx[WSUM], lx[WMAX], lx[LABEL], lx[SEEN], lx[PW], lx[EB], lx[EM], lx[DIST], lx[LBS][r],
                   lx[TIE][r], lx[HSH][r], lx[VALID][r], cx[10])


@njit(cache=True)
def eligible(lx, r, probes, n_probes, skip, limit, low):
    """Set aside the probes not worth trying (invalid, skipped, bound at least ``limit``: their
    bound becomes inf in level ``r``'s array): ``low`` lowered to the least bound set aside."""
    lbs, valid = lx[LBS][r], lx[VALID][r]
    for t in range(n_probes):
        if not valid[t] or skip[probes[t]]:
            lbs[t] = np.inf
        elif lbs[t] >= limit:
            if lbs[t] < low:
                low = lbs[t]
            lbs[t] = np.inf
    return low


@njit(cache=True)
def next_batch(lbs, tie, n, order, blb, btie):
    """The next ``blb.shape[0]`` probes at most in the search's order (bound, split, position),
    taken out of ``lbs`` (set to inf): their positions into ``order``, bounds and splits into
    ``blb``/``btie``; their count. One scan, no sort of the whole probe space."""
    B = blb.shape[0]
    k = 0
    for t in range(n):
        v = lbs[t]
        if v == np.inf:
            continue
        s = tie[t]
        if k == B and (v > blb[k - 1] or (v == blb[k - 1] and s >= btie[k - 1])):
            continue
        q = k if k < B else B - 1
        while q > 0 and (blb[q - 1] > v or (blb[q - 1] == v and btie[q - 1] > s)):
            if q < B:
                blb[q] = blb[q - 1]
                btie[q] = btie[q - 1]
                order[q] = order[q - 1]
            q -= 1
        blb[q] = v
        btie[q] = s
        order[q] = t
        if k < B:
            k += 1
    for i in range(k):
        lbs[order[i]] = np.inf
    return k


@njit(cache=True)
def least_left(lbs, n):
    low = np.inf
    for t in range(n):
        if lbs[t] < low:
            low = lbs[t]
    return low


@njit(cache=True)
def pairs(cx, U, r, disjoint):
    """Whether a state of ``U`` boards may take :func:`pair_bound`: two disjoint boards, two rounds
    at least, the exact win rule (its sizes aside)."""
    return U == 2 and disjoint and r >= 2 and cx[8]


@njit(cache=True)
def pair_bound(cx, lx, M, off, U, r, disjoint):
    """:func:`.multi_pass.two_board_bound` where it applies (:func:`pairs`, and two candidates on
    each board at least), else -inf."""
    if not pairs(cx, U, r, disjoint) or off[1] < 2 or off[2] - off[1] < 2:
        return -np.inf
    w = cx[1]
    max_m = 0.0
    for b in range(2):
        W, big = board_mass(w, M, off[b], off[b + 1])
        if big / W > max_m:
            max_m = big / W
    X = cx[9] if off[2] <= BIG_STATE else cx[0].T
    p2 = two_turn_chance(X, w, M, off, cx[2], lx[CNT], lx[WMAX], lx[SEEN])
    return two_board_bound(cx[3], r, p2, max_m)


@njit(cache=True)
def candidates(M, off, U, out):
    """The distinct answers of the state's boards, ascending, into ``out``: their count."""
    n = off[U]
    for j in range(n):
        out[j] = M[j]
    out[:n].sort()
    k = 0
    for j in range(n):
        if k == 0 or out[j] != out[k - 1]:
            out[k] = out[j]
            k += 1
    return k


@njit(cache=True)
def non_candidate_bound(cx, U, r, disjoint):
    """A lower bound of any probe that is no board's candidate: it solves nothing, so every board
    is still unsolved with a round less."""
    obj = cx[3]
    return turn_cost(obj, U) + count_bound(obj, U, r - 1, disjoint, 0.0)


@njit(cache=True)
def combine_lb(obj, U, r, disjoint, max_m, best1, sum1):
    """The state's cheap bound from the count of solving turns (``max_m``: the largest of the
    boards' heaviest normalised weights) and the boards' own optima."""
    count = count_bound(obj, U, r, disjoint, 1.0 - max_m if max_m < 1.0 else 0.0)
    if obj == SCORE:
        return sum1 if sum1 > count else count
    if obj == FINISH:
        return best1 if best1 > count else count
    return count


@njit(cache=True)
def child_cheap(c, U, boff, bcode, bmass, bm, bv1, bex, win, obj, rc, disjoint):
    """Joint outcome ``c``'s (probability, cheap bound, exact) from its buckets' data alone:
    ``bm`` the heaviest normalised weight, ``bv1`` the bucket's own optimum (``bex``: exact)."""
    p = 1.0
    uc = 0
    max_m = 0.0
    best1 = 1.0 if obj == FINISH else 0.0
    sum1 = 0.0
    last = -1
    for b in range(U):
        i, c = outcome_bucket(c, b, boff)
        p *= bmass[i]
        if bcode[i] == win:
            continue
        uc += 1
        last = i
        if bm[i] > max_m:
            max_m = bm[i]
        sum1 += bv1[i]
        if bv1[i] > best1:
            best1 = bv1[i]
    if uc == 0:
        return p, 0.0, True
    if rc <= 0:
        return p, loss_cost(obj, uc), True
    if disjoint and uc > rc and obj != SCORE:
        return p, (float(rc + 1) if obj == FINISH else 1.0), True
    if uc == 1 and obj != WIN:
        return p, bv1[last], bex[last]
    return p, combine_lb(obj, uc, rc, disjoint, max_m, best1, sum1), False
