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
from backends.kernels.exact import set_hash
from backends.kernels.multi_pass import (FINISH, SCORE, WIN, board_mass, count_bound, forced_answer, insert_key, key_of,
                                         loss_cost, partition_boards, probe_pass, state_key, turn_cost)

STATE, PROBE, BOUND, PROBE_BOUND, BOUND_LITE = 0, 1, 2, 3, 4  # what `solve` is asked (see its doc)
from backends.numba_shim import njit

NODES, BUDGET, ABORTED, HITS, STORES, GUESSES, PASSES = 0, 1, 2, 3, 4, 5, 6  # stats slots (memo_store: 4)
N_STATS = 12
EXACTS, CUT_BOUND, CUT_SEARCH = 7, 8, 9
# the scratch tuple ``lx`` (see backends.multi_exact.MultiExactEngine)
CNT, WSUM, WMAX, LABEL, SEEN, SLOT, MARKS, KEYS1, KEYS2, PACKED, PW, EB, EM, DIST = range(14)
LBS, TIE, ENT, HSH, VALID, ORDER, GM, BSTART, BCODE, BMASS, BOFF, CM, COFF, WB, CANDS, SKIP = range(14, 30)
BM, BV1, BEX, BK1, BK2 = range(30, 35)
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
def sort_probes(order, m, lbs, tie):
    """``order[:m]`` (ascending positions) sorted by (bound, split), stable."""
    idx = order[:m].copy()
    t = np.empty(m, np.float64)
    for i in range(m):
        t[i] = tie[idx[i]]
    idx = idx[np.argsort(t, kind="mergesort")]
    for i in range(m):
        t[i] = lbs[idx[i]]
    idx = idx[np.argsort(t, kind="mergesort")]
    for i in range(m):
        order[i] = idx[i]


@njit(cache=True)
def state_pass(cx, lx, M, off, U, r, disjoint, probes, n_probes):
    """The one-pass bounds of ``probes[:n_probes]`` at the state (level ``r``'s arrays)."""
    Wb = lx[WB][r]
    for b in range(U):
        Wb[b] = board_mass(cx[1], M, off[b], off[b + 1])[0]
    if off[U] <= BIG_STATE:
        probe_pass(cx[9], cx[1], M, off, U, Wb, r - 1, cx[3], disjoint, cx[2], probes, n_probes, lx[CNT], lx[WSUM],
                   lx[WMAX], lx[LABEL], lx[SEEN], lx[PW], lx[EB], lx[EM], lx[DIST], lx[LBS][r], lx[TIE][r],
                   lx[HSH][r], lx[VALID][r])
    else:
        probe_pass(cx[0].T, cx[1], M, off, U, Wb, r - 1, cx[3], disjoint, cx[2], probes, n_probes, lx[CNT],
                   lx[WSUM], lx[WMAX], lx[LABEL], lx[SEEN], lx[PW], lx[EB], lx[EM], lx[DIST], lx[LBS][r],
                   lx[TIE][r], lx[HSH][r], lx[VALID][r])


@njit(cache=True)
def select(lx, r, probes, n_probes, skip, limit, low):
    """The probes worth trying (valid, not skipped, bound below ``limit``) into level ``r``'s order,
    sorted: (their count, ``low`` lowered to the least bound set aside)."""
    lbs, tie, valid, order = lx[LBS][r], lx[TIE][r], lx[VALID][r], lx[ORDER][r]
    m = 0
    for t in range(n_probes):
        if not valid[t] or skip[probes[t]]:
            continue
        if lbs[t] >= limit:
            if lbs[t] < low:
                low = lbs[t]
            continue
        order[m] = t
        m += 1
    sort_probes(order, m, lbs, tie)
    return m, low


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
    return turn_cost(obj, U) + count_bound(obj, U, r - 1, disjoint, 1.0)


@njit(cache=True)
def combine_lb(obj, U, r, disjoint, sum_m, best1, sum1):
    """The state's cheap bound from the count of solving turns and the boards' own optima."""
    count = count_bound(obj, U, r, disjoint, sum_m)
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
    sum_m = 0.0
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
        sum_m += bm[i]
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
    return p, combine_lb(obj, uc, rc, disjoint, sum_m, best1, sum1), False


@njit(cache=True)
def solve(cx, mx, lx, M, off, U, r, disjoint, limit, arg, what):
    """``(value, exact, guess)``. ``what``: STATE, the state's value (exact when below ``limit``,
    else a proven lower bound); PROBE, the cost of playing probe ``arg`` (``limit`` its cutoff;
    nothing memoised for the state); BOUND, the state's cheap bound without expanding it (a board's
    known answer is played through: the forced turns' outcomes bounded in turn); PROBE_BOUND, a
    bound of playing ``arg`` from its outcomes' cheap bounds (exact when they all are)."""
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
    none = zero - 1
    yes = zero == 0
    unlimited = np.inf + 0.0 * zero
    if what == PROBE or what == PROBE_BOUND:
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
            if n <= cx[7] and (U >= 2 or n <= 2):
                keys1[0] = bk1[i]
                keys2[0] = bk2[i]
                h1, h2 = key_of(keys1, keys2, 1, rc, packed)
                s1 = memo_find(mk1, mk2, h1, h2) if n > 2 else -1
                if s1 >= 0 and mlb[s1] == mub[s1]:
                    bv1[i] = mlb[s1]
                    continue
                one[1] = n
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
            return lb0, False, inc_g
    # the cheap bound: solving turns counted; with several boards, each board's own optimum
    w = cx[1]
    sum_m = 0.0
    best1 = 1.0 if obj == FINISH else 0.0
    sum1 = 0.0
    for b in range(U):
        W, big = board_mass(w, M, off[b], off[b + 1])
        sum_m += big / W
        if U == 1 or obj == WIN:
            continue
        n = off[b + 1] - off[b]
        if n <= cx[7]:
            one = np.zeros(2, np.int64)
            one[1] = n
            v1 = solve(cx, mx, lx, M[off[b]:off[b + 1]], one, zero + 1, r, yes, unlimited, none, k_state)[0]
        else:
            v1 = 2.0 - big / W
        sum1 += v1
        if v1 > best1:
            best1 = v1
    s = combine_lb(obj, U, r, disjoint, sum_m, best1, sum1)
    if s > lb0:
        lb0 = s
    if what == BOUND:
        return lb0, False, inc_g
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
        state_pass(cx, lx, M, off, U, r, disjoint, probes, n_p)
        m, low = select(lx, r, probes, n_p, skip, limit, low)
        lbs, tie, hsh, order = lx[LBS][r], lx[TIE][r], lx[HSH][r], lx[ORDER][r]
        run = np.empty(max(m, 1), np.int64)
        n_run = 0
        for q in range(m):
            t = order[q]
            glb = lbs[t]
            cutoff = best if best < limit else limit
            if glb >= cutoff:
                if glb < low:
                    low = glb
                break
            if q == 0 or glb != lbs[order[q - 1]] or tie[t] != tie[order[q - 1]]:
                n_run = 0
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
                if q + 1 < m and lbs[order[q + 1]] < low:
                    low = lbs[order[q + 1]]
                aborted = True
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
