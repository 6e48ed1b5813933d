"""Compiled search of the exact joint solver for several boards, reached only through
:class:`backends.host_ops.multi_exact.MultiExactEngine` (docs/modes-solver.md).

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
optimum, the count of solving turns, two boards' pair bound; outcomes of different colours on
boards that share candidates are disjoint); the probe is dropped as soon as its running bound reaches
the best value so far or the caller's limit; the open outcomes are then solved, smallest first,
each with the budget left. A call returns ``(value, exact, guess)``: exact when below the limit,
else a proven lower bound. ``solve`` is the only recursive kernel (numba cannot cache a cycle of
mutually recursive kernels): ``what`` selects the question. The memo holds exact values, proven lower bounds and the best value
found so far with its guess (an upper bound: a complete strategy's value).
"""

from __future__ import annotations

import numpy as np

from backends.kernels.exact import ABORTED, BUDGET, GUESSES, HITS, NODES, STORES, memo_find, memo_store, take_node
from backends.kernels.multi_pass import (FINISH, SCORE, WIN, board_mass, forced_answer, key_of, partition_boards, set_hash,
                                         state_key, turn_cost)
from backends.kernels.multi_state import (BATCH, BCODE, BEX, BK1, BK2, BM, BMASS, BOFF, BSTART, BV1, CANDS, CM, CNT,
                                          COFF, CUT_BOUND, CUT_SEARCH, EXACTS, JOINT_FROZEN, GM, HSH, KEYS1, KEYS2, LBS, N_STATS,
                                          ORDER, PACKED, PASSES, SEEN, SKIP, TIE, VALID, WB, build_child, candidates,
                                          child_disjoint,
                                          child_cheap, child_keys, child_size, closed_form, combine_lb, eligible,
                                          least_left, next_batch, non_candidate_bound, pair_bound, pairs, state_pass)
from backends.numba_shim import njit

# N_STATS and the stats slots (NODES ... GUESSES): read by backends.host_ops.multi_exact through this module
STATE, PROBE, BOUND, PROBE_BOUND, BOUND_LITE, POLICY, PROBE_POLICY, REFINE = 0, 1, 2, 3, 4, 5, 6, 7  # `solve`'s questions
LOOKAHEAD = 8  # the policy's candidates per state (least bounds), the one of least probe bound played


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
    down without expanding a state of several boards (PROBE stopped at ``limit``), into level ``r``'s
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
        # no state of several boards is expanded: the open outcomes keep their bounds, and a
        # bucket's own optimum is searched (one board), as the search itself would
        stats[JOINT_FROZEN] = 1
        for i in range(arg):
            stats[ABORTED] = 0
            v, ex, _ = solve(cx, mx, lx, M, off, U, r, disjoint, limit, probes[i], k_probe)
            lx[LBS][r][i] = v
            lx[VALID][r][i] = ex and stats[ABORTED] == 0
        stats[ABORTED] = 0
        stats[JOINT_FROZEN] = 0
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
        partition_boards(cx[0], w, arg, M, off, U, win, lx[CNT], lx[SEEN], gm, bstart, bcode, bmass, boff, Wb)
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
        disj = np.empty(K, np.bool_)  # each outcome's boards disjoint (`child_disjoint`)
        tc = turn_cost(obj, U)
        acc = tc
        n_open = 0
        for c in range(K):
            disj[c] = child_disjoint(c, U, boff, bcode, win, disjoint)
            p, v, ex = child_cheap(c, U, boff, bcode, bmass, bm, bv1, bex, win, obj, rc, disj[c])
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
                    val[c] = solve(cx, mx, lx, cm, coff, uc, rc, disj[c], unlimited, none, k_policy)[0]
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
            cd = disj[c]
            if s1 >= 0:
                v = mlb[s1]
                ex = mlb[s1] == mub[s1]
            elif (single and (obj != SCORE or cd)) or pairs(cx, uc, rc, cd):
                # a known answer played through, or two boards' pair bound (`pair_bound`): both
                # cost no state and cut many probes before any outcome is searched
                stats[11] += 1
                p, uc, n = build_child(c, U, boff, gm, bstart, bcode, bmass, win, cm, coff)
                v, ex, _ = solve(cx, mx, lx, cm, coff, uc, rc, cd, unlimited, none, k_bound_lite)
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
                v, ex, _ = solve(cx, mx, lx, cm, coff, uc, rc, disj[c], climit, none, k_state)
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
    if lb0 >= limit or (U >= 2 and stats[JOINT_FROZEN] != 0) or not take_node(stats):
        return lb0, False, inc_g
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

