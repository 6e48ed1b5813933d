"""Compiled search of the exact joint solver for several boards, reached only through
:class:`backends.multi_exact.MultiExactEngine` (docs/modes-solver.md).

``V(S, r)`` is the expected cost still to pay at state ``S`` (the unsolved boards' candidate
sets) with ``r`` rounds left under the objective (:mod:`.multi_pass`): ``V(∅, r) = 0``,
``V(S, 0) = loss(U)``, otherwise ``min_g turn(U) + Σ_o P(o) · V(S_o, r − 1)`` over every probe
``g``, ``o`` the joint outcomes (one bucket per board; the win bucket solves its board).

:func:`solve` is a depth-first branch and bound, like the single-board search
(:mod:`.exact`): closed forms; the memo; the state's cheap bound (each board's own exact optimum,
the count of solving turns); a board with one candidate left forces its answer (playing a known
answer first never hurts); then the boards' candidates are tried, and when the best of them is at
most what any other probe can cost the state is done; otherwise one pass bounds every probe
(:func:`.multi_pass.probe_pass`) and the rest are tried, each phase in ascending bound (ties: the
finer split, then the lower index), one per class of probes that split every board alike. A probe's
joint outcomes first get their cheap bounds (closed forms, the memo, each board's own exact
optimum, the count of solving turns); the probe is dropped as soon as its running bound reaches
the best value so far or the caller's limit; the open outcomes are then solved, smallest first,
each with the budget left. A call returns ``(value, exact, guess)``: exact when below the limit,
else a proven lower bound. ``solve`` is the only recursive kernel (numba cannot cache a cycle of
mutually recursive kernels): ``what`` selects the question. The memo holds exact values, proven lower bounds and the best value
found so far with its guess (an upper bound: a complete strategy's value).
"""

from __future__ import annotations

import numpy as np

from backends.kernels.exact import memo_find, memo_store
from backends.kernels.multi_pass import (FINISH, SCORE, WIN, board_mass, board_pass, count_bound, forced_answer,
                                         insert_key, joint_pass, key_of, loss_cost, partition_boards, probe_pass,
                                         set_hash, state_key, turn_cost, two_board_bound, two_turn_chance)

STATE, PROBE, BOUND, PROBE_BOUND, BOUND_LITE, POLICY, PROBE_POLICY, REFINE = 0, 1, 2, 3, 4, 5, 6, 7  # `solve`'s questions
LOOKAHEAD = 8  # the policy's candidates per state (least bounds), the one of least probe bound played
from backends.numba_shim import njit

NODES, BUDGET, ABORTED, HITS, STORES, GUESSES, PASSES = 0, 1, 2, 3, 4, 5, 6  # stats slots (memo_store: 4)
N_STATS = 20
EXACTS, CUT_BOUND, CUT_SEARCH = 7, 8, 9
# the scratch tuple ``lx`` (see backends.multi_exact.MultiExactEngine)
CNT, WSUM, WMAX, LABEL, SEEN, SLOT, MARKS, KEYS1, KEYS2, PACKED, PW, EB, EM, DIST = range(14)
LBS, TIE, ENT, HSH, VALID, ORDER, GM, BSTART, BCODE, BMASS, BOFF, CM, COFF, WB, CANDS, SKIP = range(14, 30)
BM, BV1, BEX, BK1, BK2 = range(30, 35)
CTAG1, CTAG2, CPW, CEB, CEM, CTS, CHH, COK, SLOTS = range(35, 44)  # the boards' pass rows, cached
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


@njit(cache=True)
def build_child(c, U, boff, gm, bstart, bcode, bmass, win, cm, coff):
    """Joint outcome ``c`` (mixed radix over the boards' buckets) into ``cm``/``coff``:
    (probability, unsolved boards, members)."""
    p = 1.0
    uc = 0
    pos = 0
    coff[0] = 0
    for b in range(U):
        kb = boff[b + 1] - boff[b]
        i = boff[b] + c % kb
        c //= kb
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
        kb = boff[b + 1] - boff[b]
        i = boff[b] + c % kb
        c //= kb
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
        kb = boff[b + 1] - boff[b]
        i = boff[b] + c % kb
        c //= kb
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
def pair_bound(cx, lx, M, off, U, r, disjoint):
    """:func:`.multi_pass.two_board_bound` where it applies (two disjoint boards, two candidates
    each at least, two rounds at least, the exact win rule), else -inf."""
    if U != 2 or not disjoint or r < 2 or not cx[8] or off[1] < 2 or off[2] - off[1] < 2:
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
        kb = boff[b + 1] - boff[b]
        i = boff[b] + c % kb
        c //= kb
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


@njit(cache=True)
def solve(cx, mx, lx, M, off, U, r, disjoint, limit, arg, what):
    """``(value, exact, guess)``. ``what``: STATE, the state's value (exact when below ``limit``,
    else a proven lower bound); PROBE, the cost of playing probe ``arg`` (``limit`` its cutoff;
    nothing memoised for the state); BOUND, the state's cheap bound without expanding it (a board's
    known answer is played through: the forced turns' outcomes bounded in turn); PROBE_BOUND, a
    bound of playing ``arg`` from its outcomes' cheap bounds (exact when they all are); POLICY, the
    exact value of a complete strategy from the state (an upper bound: a known answer played
    first, else of the ``LOOKAHEAD`` probes of least one-pass bound the one of least PROBE_BOUND;
    the memo's best found where it has one), PROBE_POLICY, that strategy's value after ``arg``;
    REFINE, for the ``arg`` probes in level ``r``'s order array, each one's cost bounded one level
    down without expanding a state (PROBE stopped at ``limit`` with no budget), into level ``r``'s
    bounds and (exact) flags: every entry point that recurses is this one kernel."""
    obj = cx[3]
    win = cx[2]
    mk1, mk2, mlb, mub, mg, stats = mx
    # the recursive calls take no literal argument: numba specialises a call on a literal, and a
    # cached recursive kernel called with one crashes when it is loaded (numba 0.6x)
    zero = r - r
    k_state = zero + STATE
    k_probe = zero + PROBE
    k_probe_bound = zero + PROBE_BOUND
    k_bound_lite = zero + BOUND_LITE
    k_policy = zero + POLICY
    k_probe_policy = zero + PROBE_POLICY
    none = zero - 1
    yes = zero == 0
    unlimited = np.inf + 0.0 * zero
    stats[12] += 1
    if what == REFINE:
        probes = lx[ORDER][r][:arg].copy()
        budget = stats[BUDGET]
        stats[BUDGET] = stats[NODES]  # no state is expanded: the open outcomes keep their bounds
        for i in range(arg):
            stats[ABORTED] = 0
            v, ex, _ = solve(cx, mx, lx, M, off, U, r, disjoint, limit, probes[i], k_probe)
            lx[LBS][r][i] = v
            lx[VALID][r][i] = ex and stats[ABORTED] == 0
        stats[ABORTED] = 0
        stats[BUDGET] = budget
        return 0.0, True, -1
    if what == PROBE or what == PROBE_BOUND or what == PROBE_POLICY:
        # the probe's buckets, each with its heaviest weight and its own optimum
        w = cx[1]
        Wb = lx[WB][r]
        for b in range(U):
            Wb[b] = board_mass(w, M, off[b], off[b + 1])[0]
        gm, bstart, bcode, bmass, boff = lx[GM][r], lx[BSTART][r], lx[BCODE][r], lx[BMASS][r], lx[BOFF][r]
        bm, bv1, bex = lx[BM][r], lx[BV1][r], lx[BEX][r]
        cm, coff = lx[CM][r], lx[COFF][r]
        partition_boards(cx[0], w, arg, M, off, U, win, lx[CNT], lx[SEEN], lx[SLOT], gm, bstart, bcode, bmass,
                         boff, Wb)
        rc = r - 1
        one = np.zeros(2, np.int64)
        bk1, bk2 = lx[BK1][r], lx[BK2][r]
        keys1, keys2, packed = lx[KEYS1], lx[KEYS2], lx[PACKED]
        for i in range(boff[U]):
            bv1[i] = 0.0
            bex[i] = True
            bm[i] = 1.0
            if bcode[i] == win:
                continue
            n = bstart[i + 1] - bstart[i]
            Wi, big = board_mass(w, gm, bstart[i], bstart[i + 1])
            bm[i] = big / Wi
            bk1[i], bk2[i] = set_hash(gm[bstart[i]:bstart[i + 1]], n, 0)
            if obj == WIN or rc <= 0:
                continue
            if n <= 2 and cx[8]:
                bv1[i] = 2.0 - bm[i]  # the heavier candidate played (the closed form of one board)
                continue
            if n <= cx[7] and U >= 2:
                keys1[0] = bk1[i]
                keys2[0] = bk2[i]
                h1, h2 = key_of(keys1, keys2, 1, rc, packed)
                s1 = memo_find(mk1, mk2, h1, h2)
                if s1 >= 0 and mlb[s1] == mub[s1]:
                    bv1[i] = mlb[s1]
                    continue
                one[1] = n
                stats[13] += 1
                v1, e1, _ = solve(cx, mx, lx, gm[bstart[i]:bstart[i + 1]], one, zero + 1, rc, yes, unlimited,
                                  none, k_state)
                bv1[i] = v1
                bex[i] = e1
            else:
                bv1[i] = 2.0 - bm[i]
                bex[i] = n == 1
        K = 1
        for b in range(U):
            K *= boff[b + 1] - boff[b]
        stats[14] += K
        stats[15] += boff[U]
        prob = np.empty(K, np.float64)
        val = np.empty(K, np.float64)
        done = np.zeros(K, np.bool_)
        tc = turn_cost(obj, U)
        acc = tc
        n_open = 0
        for c in range(K):
            p, v, ex = child_cheap(c, U, boff, bcode, bmass, bm, bv1, bex, win, obj, rc, disjoint)
            prob[c] = p
            val[c] = v
            done[c] = ex or p == 0.0
            if not done[c]:
                n_open += 1
            acc += p * v
        if what == PROBE_POLICY:
            total = turn_cost(obj, U)
            for c in range(K):
                if not done[c]:
                    p, uc, n = build_child(c, U, boff, gm, bstart, bcode, bmass, win, cm, coff)
                    val[c] = solve(cx, mx, lx, cm, coff, uc, rc, disjoint, unlimited, none, k_policy)[0]
                total += prob[c] * val[c]
            return total, True, arg
        if acc >= limit:
            if what == PROBE:
                stats[CUT_BOUND] += 1
                stats[10] += 1
            return acc, False, arg
        # the open outcomes' cheap bounds raised by the memo and a known answer played through,
        # the likeliest first
        todo = np.empty(n_open, np.int64)
        keys = np.empty(n_open, np.float64)
        k = 0
        for c in range(K):
            if not done[c]:
                todo[k] = c
                keys[k] = -prob[c]
                k += 1
        todo = todo[np.argsort(keys, kind="mergesort")]
        n_open = 0
        for q in range(todo.shape[0]):
            c = todo[q]
            # the memo by the buckets' hashes; a known answer played through when it has nothing
            uc, single = child_keys(c, U, boff, bstart, bcode, bk1, bk2, win, keys1, keys2)
            h1, h2 = key_of(keys1, keys2, uc, rc, packed)
            s1 = memo_find(mk1, mk2, h1, h2)
            p = prob[c]
            if s1 >= 0:
                v = mlb[s1]
                ex = mlb[s1] == mub[s1]
            elif single and (obj != SCORE or disjoint):
                stats[11] += 1
                p, uc, n = build_child(c, U, boff, gm, bstart, bcode, bmass, win, cm, coff)
                v, ex, _ = solve(cx, mx, lx, cm, coff, uc, rc, disjoint, unlimited, none, k_bound_lite)
            else:
                v = val[c]
                ex = False
            if ex:
                done[c] = True
                acc += p * (v - val[c])
                val[c] = v
            else:
                if v > val[c]:
                    acc += p * (v - val[c])
                    val[c] = v
                todo[n_open] = c
                n_open += 1
            if acc >= limit:
                if what == PROBE:
                    stats[CUT_BOUND] += 1
                return acc, False, arg
        if n_open > 0 and what == PROBE_BOUND:
            return acc, False, arg
        if n_open > 0:
            sizes = np.empty(n_open, np.int64)
            for q in range(n_open):
                sizes[q] = child_size(todo[q], U, boff, bstart, bcode, win)
            ordered = todo[:n_open][np.argsort(sizes, kind="mergesort")]
            for c in ordered:
                p, uc, n = build_child(c, U, boff, gm, bstart, bcode, bmass, win, cm, coff)
                lb = val[c]
                climit = (limit - (acc - p * lb)) / p
                v, ex, _ = solve(cx, mx, lx, cm, coff, uc, rc, disjoint, climit, none, k_state)
                if not ex and v < lb:
                    v = lb
                acc += p * (v - lb)
                val[c] = v
                if (not ex) or acc >= limit or stats[ABORTED] != 0:
                    stats[CUT_SEARCH] += 1
                    return acc, False, arg
        total = tc
        for c in range(K):
            total += prob[c] * val[c]
        if what == PROBE:
            stats[EXACTS] += 1
        return total, True, arg
    cv, cg, done0 = closed_form(cx, M, off, U, r, disjoint)
    if done0:
        return cv, True, cg
    k1, k2 = state_key(M, off, U, r, lx[KEYS1], lx[KEYS2], lx[PACKED])
    slot = memo_find(mk1, mk2, k1, k2)
    inc = np.inf
    inc_g = -1
    lb0 = -np.inf
    if slot >= 0:
        if what == STATE:
            stats[HITS] += 1
        if mlb[slot] == mub[slot]:
            return mlb[slot], True, mg[slot]
        lb0 = mlb[slot]
        inc = mub[slot]
        inc_g = mg[slot]
    if what == BOUND_LITE or what == BOUND:
        # a known answer played through (a memo entry has that already)
        fa = forced_answer(M, off, U, obj, disjoint) if slot < 0 else -1
        if fa >= 0:
            v, ex, _ = solve(cx, mx, lx, M, off, U, r, disjoint, unlimited, fa, k_probe_bound)
            if ex:
                memo_store(mk1, mk2, mlb, mub, mg, k1, k2, v, v, fa, stats)
                return v, True, fa
            if v > lb0:
                lb0 = v
            memo_store(mk1, mk2, mlb, mub, mg, k1, k2, lb0, inc, inc_g, stats)
        if what == BOUND_LITE:
            if slot < 0 and fa < 0:
                pb = pair_bound(cx, lx, M, off, U, r, disjoint)
                if pb > lb0:
                    lb0 = pb
                    memo_store(mk1, mk2, mlb, mub, mg, k1, k2, lb0, inc, inc_g, stats)
            return lb0, False, inc_g
    # the cheap bound: solving turns counted; with several boards, each board's own optimum
    w = cx[1]
    max_m = 0.0
    best1 = 1.0 if obj == FINISH else 0.0
    sum1 = 0.0
    for b in range(U):
        W, big = board_mass(w, M, off[b], off[b + 1])
        if big / W > max_m:
            max_m = big / W
        if U == 1 or obj == WIN:
            continue
        n = off[b + 1] - off[b]
        v1 = 2.0 - big / W  # the closed form for one or two candidates, else a bound
        if 2 < n <= cx[7] or (n <= 2 and not cx[8]):
            h1, h2 = set_hash(M[off[b]:off[b + 1]], n, 0)
            lx[KEYS1][0] = h1
            lx[KEYS2][0] = h2
            h1, h2 = key_of(lx[KEYS1], lx[KEYS2], 1, r, lx[PACKED])
            s1 = memo_find(mk1, mk2, h1, h2)
            if s1 >= 0 and mlb[s1] == mub[s1]:
                v1 = mlb[s1]
            else:
                one = np.zeros(2, np.int64)
                one[1] = n
                v1 = solve(cx, mx, lx, M[off[b]:off[b + 1]], one, zero + 1, r, yes, unlimited, none, k_state)[0]
        sum1 += v1
        if v1 > best1:
            best1 = v1
    s = combine_lb(obj, U, r, disjoint, max_m, best1, sum1)
    if s > lb0:
        lb0 = s
    if slot < 0:
        s = pair_bound(cx, lx, M, off, U, r, disjoint)
        if s > lb0:
            lb0 = s
    if what == BOUND:
        return lb0, False, inc_g
    if what == POLICY:
        if inc < np.inf:
            return inc, False, inc_g
        g = forced_answer(M, off, U, obj, disjoint)
        if g < 0:
            state_pass(cx, lx, M, off, U, r, disjoint, cx[5], cx[6], stats)
            order = lx[ORDER][r]
            blb = np.empty(LOOKAHEAD, np.float64)
            btie = np.empty(LOOKAHEAD, np.float64)
            lbs = lx[LBS][r]
            for t in range(cx[6]):
                if not lx[VALID][r][t]:
                    lbs[t] = np.inf
            nb = next_batch(lbs, lx[TIE][r], cx[6], order, blb, btie)
            picks = order[:nb].copy()
            bestb = np.inf
            for q in range(nb):
                v, ex, _ = solve(cx, mx, lx, M, off, U, r, disjoint, unlimited, picks[q], k_probe_bound)
                if v < bestb:
                    bestb = v
                    g = picks[q]
            if g < 0:
                g = M[0]
        v = solve(cx, mx, lx, M, off, U, r, disjoint, unlimited, g, k_probe_policy)[0]
        memo_store(mk1, mk2, mlb, mub, mg, k1, k2, lb0, v, g, stats)
        return v, lb0 >= v, g
    if lb0 >= limit:
        return lb0, False, inc_g
    if stats[ABORTED] != 0 or stats[NODES] >= stats[BUDGET]:
        stats[ABORTED] = 1
        return lb0, False, inc_g
    stats[NODES] += 1
    fa = forced_answer(M, off, U, obj, disjoint)
    if fa >= 0:
        v, ex, _ = solve(cx, mx, lx, M, off, U, r, disjoint, limit, fa, k_probe)
        if ex and stats[ABORTED] == 0:
            memo_store(mk1, mk2, mlb, mub, mg, k1, k2, v, v, fa, stats)
            return v, True, fa
        if v < lb0:
            v = lb0
        memo_store(mk1, mk2, mlb, mub, mg, k1, k2, v, inc, inc_g, stats)
        return v, False, fa
    # the candidates first, then (unless they settle it) every other probe
    cands = lx[CANDS][r]
    skip = lx[SKIP][r]
    nc = candidates(M, off, U, cands)
    other = non_candidate_bound(cx, U, r, disjoint)
    best = inc
    best_g = inc_g
    low = np.inf
    aborted = False
    for phase in range(2):
        probes = cands
        n_p = nc
        if phase == 1:
            if aborted or best <= other or other >= limit:
                if other < low:
                    low = other
                break
            for j in range(nc):
                skip[cands[j]] = True
            probes = cx[5]
            n_p = cx[6]
            stats[PASSES] += 1
        state_pass(cx, lx, M, off, U, r, disjoint, probes, n_p, stats)
        low = eligible(lx, r, probes, n_p, skip, limit, low)
        lbs, tie, hsh, order = lx[LBS][r], lx[TIE][r], lx[HSH][r], lx[ORDER][r]
        blb = np.empty(BATCH, np.float64)
        btie = np.empty(BATCH, np.float64)
        run = np.empty(max(n_p, 1), np.int64)
        n_run = 0
        prev_lb = -np.inf
        prev_tie = -np.inf
        finished = False
        while not finished:
            nb = next_batch(lbs, tie, n_p, order, blb, btie)
            if nb == 0:
                break
            for q in range(nb):
                t = order[q]
                glb = blb[q]
                cutoff = best if best < limit else limit
                if glb >= cutoff:
                    if glb < low:
                        low = glb
                    finished = True
                    break
                if glb != prev_lb or btie[q] != prev_tie:
                    n_run = 0
                    prev_lb = glb
                    prev_tie = btie[q]
                dup = False
                for i in range(n_run):
                    if run[i] == hsh[t]:
                        dup = True
                        break
                if dup:
                    continue
                run[n_run] = hsh[t]
                n_run += 1
                stats[GUESSES] += 1
                v, ex, _ = solve(cx, mx, lx, M, off, U, r, disjoint, cutoff, probes[t], k_probe)
                if ex and v < best:
                    best = v
                    best_g = probes[t]
                elif v < low:
                    low = v
                if stats[ABORTED] != 0:
                    rest = blb[q + 1] if q + 1 < nb else least_left(lbs, n_p)
                    if rest < low:
                        low = rest
                    aborted = True
                    finished = True
                    break
        if phase == 1:
            for j in range(nc):
                skip[cands[j]] = False
    if not aborted and best < limit:
        memo_store(mk1, mk2, mlb, mub, mg, k1, k2, best, best, best_g, stats)
        return best, True, best_g
    lbv = best if best < low else low
    if lbv < lb0:
        lbv = lb0
    memo_store(mk1, mk2, mlb, mub, mg, k1, k2, lbv, best, best_g, stats)
    return lbv, False, best_g

