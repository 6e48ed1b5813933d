"""Compiled kernels of the exact (branch-and-bound) solver, reached only through
:func:`backends.host_ops.exact.exact_engine`.

Written in the Python subset numba compiles (``backends/numba_shim.py``: lazily compiled,
cached on disk, plain Python under ``TERMO_NO_NUMBA=1``). Everything runs on host NumPy arrays.

The objective (docs/exact.md). For a candidate set ``S`` with ``r`` rounds left and answer
weights ``w`` (1 for a uniform game, the prior otherwise), ``C(S, r)`` is the least weighted
total of guesses still to be played: ``C(S, r) = loss·W(S)`` when ``r <= 0`` (``W`` the weight
of ``S``), and otherwise ``min_g W(S) + Σ_b C(S_b, r−1)`` over the probes ``g`` of the probe
space, ``S_b`` the non-winning feedback groups of ``g`` (the winning group is solved by this
guess). ``C/W`` is level 3's ``V(S, r)``; for weights 1 it is the sum of guesses over ``S``
(integers, exact in float64).

Lower bounds (all admissible). One guess solves at most the weight of one win class (``cm[a]``,
the weight of ``a``'s class: ``w[a]`` under the exact win rule), every other answer needs a
second guess, so ``C(T, r) >= 2·W(T) − max_{a∈T} cm[a]`` (``r >= 2``); with one round left
``C(T, 1) = W(T) + (W(T) − winmass)·loss``, bounded the same way; a singleton costs its weight.
A guess's bound is ``W(S) + Σ_b lb(S_b)`` from its partition (computed for every probe in one
pass per state, :func:`~backends.kernels.exact_bounds.sweep_state`), and a state's bound is the least
guess bound.

Search (:func:`solve`): depth first, guesses in ascending bound order (ties: the finer split by
``Σ_b W(S_b)²``, then the probe index), each child solved with the budget that is left before the
guess reaches the best value so far (or the caller's limit); a guess is dropped as soon as its
running bound reaches it. Results are memoised in an open-addressing table keyed by two
independent 62-bit polynomial hashes of (sorted members, rounds, allowed-set hash): exact values
and proven lower bounds (and the best strategy found so far, an upper bound). Hard mode passes the
allowed probe list down (:func:`filter_allowed`).
"""

from __future__ import annotations

import numpy as np

from backends.kernels.exact_bounds import (candidates_first, child_bound, closed_form, filter_allowed, partition,
                                           sweep_state)
from backends.numba_shim import njit


P1 = 2147483647  # 2^31 - 1
P2 = 2147483629
P3 = 2147483587
B1 = 1000003
B2 = 916132837
B3 = 314159257
PROBE_WINDOW = 16  # slots tried in the memo table before an entry is overwritten

# stats slots
NODES, BUDGET, ABORTED, HITS, STORES, GUESSES = 0, 1, 2, 3, 4, 5
N_STATS = 8


@njit(cache=True)
def take_node(stats):
    """Count one more state expanded and True, or False (``stats[ABORTED]`` set) when the search
    was aborted or its node budget is spent (the single-board and the several-board search)."""
    if stats[ABORTED] != 0 or stats[NODES] >= stats[BUDGET]:
        stats[ABORTED] = 1
        return False
    stats[NODES] += 1
    return True


@njit(cache=True)
def set_hash(items, n, salt):
    """Three 31-bit polynomial hashes of ``items[:n]`` (salted), packed as two int64 keys."""
    h1 = salt % P1
    h2 = (salt * 7 + 1) % P2
    h3 = (salt * 13 + 5) % P3
    for j in range(n):
        x = items[j] + 1
        h1 = (h1 * B1 + x) % P1
        h2 = (h2 * B2 + x) % P2
        h3 = (h3 * B3 + x) % P3
    k1 = h1 * 2147483648 + h2
    k2 = h3 * 4194304 + (n % 4194304)
    return k1, k2  # k2 > 0 for every state the memo holds (n >= 1): a free slot is k2 == 0


@njit(cache=True)
def memo_find(mk1, mk2, k1, k2):
    """Slot holding key (k1, k2), or -1."""
    cap = mk1.shape[0]
    s = k1 % cap
    for _ in range(PROBE_WINDOW):
        if mk1[s] == k1 and mk2[s] == k2:
            return s
        if mk2[s] == 0:
            return -1
        s += 1
        if s == cap:
            s = 0
    return -1


@njit(cache=True)
def memo_store(mk1, mk2, mlb, mub, mg, k1, k2, lb, ub, g, stats):
    cap = mk1.shape[0]
    s = k1 % cap
    target = s
    for _ in range(PROBE_WINDOW):
        if (mk1[s] == k1 and mk2[s] == k2) or mk2[s] == 0:
            target = s
            break
        s += 1
        if s == cap:
            s = 0
    mk1[target] = k1
    mk2[target] = k2
    mlb[target] = lb
    mub[target] = ub
    mg[target] = g
    stats[STORES] += 1


@njit(cache=True)
def set_weight(w, cm, S, n):
    """``(W(S), max_{a∈S} cm[a])`` of ``S[:n]``, the weight summed in member order."""
    total = 0.0
    cbig = 0.0
    for j in range(n):
        total += w[S[j]]
        if cm[S[j]] > cbig:
            cbig = cm[S[j]]
    return total, cbig


@njit(cache=True)
def tie_bucket(lbs, sq, n_allowed, lo, out):
    """The guesses whose bound is ``lo``, in the search's order within a bound (the finer split,
    least ``Σ_b W(S_b)²``, then the lower position, i.e. the lower probe index), into ``out``;
    returns their count. With :func:`next_bound` it hands the guesses out in the search's order
    a bound at a time: most states try a handful, so nothing sorts the whole probe space."""
    b = 0
    for t in range(n_allowed):
        if lbs[t] == lo:
            out[b] = t
            b += 1
    if b > 32:
        keys = np.empty(b, np.float64)
        for i in range(b):
            keys[i] = sq[out[i]]
        o = np.argsort(keys, kind="mergesort")
        tmp = out[:b].copy()
        for i in range(b):
            out[i] = tmp[o[i]]
    else:
        for i in range(1, b):
            v = out[i]
            k = i - 1
            while k >= 0 and sq[out[k]] > sq[v]:
                out[k + 1] = out[k]
                k -= 1
            out[k + 1] = v
    return b


@njit(cache=True)
def next_bound(lbs, n_allowed, lo):
    """The least bound above ``lo`` (inf when none)."""
    nxt = np.inf
    for t in range(n_allowed):
        v = lbs[t]
        if v > lo and v < nxt:
            nxt = v
    return nxt


@njit(cache=True)
def memo_bound(mk1, mk2, mlb, mub, S, n, salt):
    """``(bound, exact)`` the memo holds for state ``S[:n]`` under ``salt`` (rounds and allowed
    set), ``(-inf, False)`` when it holds nothing."""
    k1, k2 = set_hash(S, n, salt)
    slot = memo_find(mk1, mk2, k1, k2)
    if slot < 0:
        return -np.inf, False
    return mlb[slot], mlb[slot] == mub[slot]


@njit(cache=True)
def group_bounds(A, w, cm, exact_rule, check_memo, loss, win, rc, salt, mk1, mk2, mlb, mub,
                 cnt, wsum, cmx, seen, members, codes, start, nb, vals, need, acc, cutoff):
    """The cheap stage of a guess: every non-winning group's value or bound without a pass over
    the probe space (closed forms, the memo, the candidates alone), from ``acc`` (the guess's
    one-pass bound) raised as each group's bound rises; it stops once ``acc`` reaches
    ``cutoff``. ``vals[i]`` holds group i's value or bound; ``need[:k]`` the groups still to be
    searched, smallest first. Returns ``(acc, k)``."""
    k = 0
    for i in range(nb):
        if codes[i] == win:
            vals[i] = 0.0
            continue
        lo = start[i]
        mm = start[i + 1] - lo
        ws = 0.0
        cmax = 0.0
        for j in range(lo, lo + mm):
            ws += w[members[j]]
            if cm[members[j]] > cmax:
                cmax = cm[members[j]]
        blb = child_bound(mm, ws, cmax, rc, loss)
        vals[i] = blb
        if rc <= 0 or mm == 1 or (exact_rule and (rc == 1 or mm == 2)):
            continue  # the bound is the value
        child = members[lo:lo + mm]
        b = blb
        settled = False
        if check_memo:
            v, ex = memo_bound(mk1, mk2, mlb, mub, child, mm, salt)
            if v > b:
                b = v
            settled = ex
        if exact_rule and not settled:
            pv, pg, plb = candidates_first(A, w, cm, child, mm, ws, rc, loss, win, cnt, wsum, cmx, seen)
            if pg >= 0:
                b = pv
                settled = True
            elif plb > b:
                b = plb
        vals[i] = b
        acc += b - blb
        if not settled:
            # insertion by size: the smallest groups are searched first
            q = k
            while q > 0 and start[need[q - 1] + 1] - start[need[q - 1]] > mm:
                need[q] = need[q - 1]
                q -= 1
            need[q] = i
            k += 1
        if acc >= cutoff:
            break
    return acc, k


@njit(cache=True)
def solve(A, B, w, cm, symc, symn, marks, length, hard, exact_rule, unit, loss, win,
          mk1, mk2, mlb, mub, mg, stats,
          cnt, wsum, cmx, seen,
          lv_lbs, lv_sq, lv_valid, lv_order, lv_members, lv_codes, lv_start, lv_vals, lv_allowed, lv_need,
          S, r, allowed, n_allowed, ahash, limit):
    """``(value, exact, guess)`` for state ``S`` with ``r`` rounds left over the probes
    ``allowed[:n_allowed]`` (see the module doc): ``exact`` when ``value < limit`` was proved the
    optimum (``guess`` an optimal first guess); otherwise ``value`` is a proven lower bound (at
    least ``limit`` unless the node budget ran out: ``stats[ABORTED]``) and ``guess`` the best
    guess found so far (-1: none)."""
    n = S.shape[0]
    cv, cg, done = closed_form(A, w, S, n, r, loss, win, exact_rule)
    if done:
        return cv, True, cg
    W, cbig = set_weight(w, cm, S, n)
    if cbig > W:
        cbig = W
    lb0 = 2.0 * W - cbig
    if exact_rule:
        pv, pg, plb = candidates_first(A, w, cm, S, n, W, r, loss, win, cnt, wsum, cmx, seen)
        if pg >= 0:
            return pv, True, pg
        if plb > lb0:
            lb0 = plb
    k1, k2 = set_hash(S, n, r * 1000003 + ahash)
    slot = memo_find(mk1, mk2, k1, k2)
    inc = np.inf
    inc_g = -1
    if slot >= 0:
        stats[HITS] += 1
        if mlb[slot] == mub[slot]:
            return mlb[slot], True, mg[slot]
        if mlb[slot] > lb0:
            lb0 = mlb[slot]
        inc = mub[slot]
        inc_g = mg[slot]
    if lb0 >= limit or not take_node(stats):
        return lb0, False, inc_g
    lbs = lv_lbs[r]
    sq = lv_sq[r]
    valid = lv_valid[r]
    order = lv_order[r]
    sweep_state(A, B, w, cm, S, n, allowed, n_allowed, r - 1, loss, win, unit, cnt, wsum, cmx, seen, lbs, sq, valid)
    # the guesses worth trying: bound below the limit (the others are set aside, ``excluded``
    # their least bound), handed out in order (bound, split, index) a bound at a time
    level = np.inf
    excluded = np.inf
    for t in range(n_allowed):
        if not valid[t]:
            lbs[t] = np.inf
            continue
        v = W + lbs[t]
        if v >= limit:
            if v < excluded:
                excluded = v
            lbs[t] = np.inf
        elif lbs[t] < level:
            level = lbs[t]
    if level == np.inf:
        if excluded < lb0:
            excluded = lb0
        memo_store(mk1, mk2, mlb, mub, mg, k1, k2, excluded, inc, inc_g, stats)
        return excluded, False, inc_g
    size = tie_bucket(lbs, sq, n_allowed, level, order)
    pos = 0
    best = inc
    best_g = inc_g
    fail_lb = np.inf
    rest_lb = excluded
    members = lv_members[r]
    codes = lv_codes[r]
    start = lv_start[r]
    vals = lv_vals[r]
    need = lv_need[r]
    child_allowed = lv_allowed[r - 1]
    csalt = (r - 1) * 1000003 + ahash
    while True:
        if pos == size:
            level = next_bound(lbs, n_allowed, level)
            if level == np.inf:
                break
            size = tie_bucket(lbs, sq, n_allowed, level, order)
            pos = 0
        t = order[pos]
        pos += 1
        g = allowed[t]
        glb = W + lbs[t]
        cutoff = best if best < limit else limit
        if glb >= cutoff:
            if glb < rest_lb:
                rest_lb = glb
            break
        stats[GUESSES] += 1
        nb = partition(A, g, S, n, win, cnt, seen, members, codes, start)
        acc, nneed = group_bounds(A, w, cm, exact_rule, not hard, loss, win, r - 1, csalt, mk1, mk2, mlb, mub,
                                  cnt, wsum, cmx, seen, members, codes, start, nb, vals, need, glb, cutoff)
        ok = acc < cutoff
        for q in range(nneed):
            if not ok:
                break
            i = need[q]
            lo = start[i]
            hi = start[i + 1]
            child = members[lo:hi]
            blb = vals[i]
            climit = cutoff - (acc - blb)
            if hard:
                na = filter_allowed(symc, symn, marks, g, codes[i], length, allowed, n_allowed, child_allowed)
                chash = set_hash(child_allowed, na, 7)[0] % 1000000007
                v, ex, _ = solve(A, B, w, cm, symc, symn, marks, length, hard, exact_rule, unit, loss, win,
                                 mk1, mk2, mlb, mub, mg, stats, cnt, wsum, cmx, seen,
                                 lv_lbs, lv_sq, lv_valid, lv_order, lv_members, lv_codes, lv_start, lv_vals,
                                 lv_allowed, lv_need, child, r - 1, child_allowed, na, chash, climit)
            else:
                v, ex, _ = solve(A, B, w, cm, symc, symn, marks, length, hard, exact_rule, unit, loss, win,
                                 mk1, mk2, mlb, mub, mg, stats, cnt, wsum, cmx, seen,
                                 lv_lbs, lv_sq, lv_valid, lv_order, lv_members, lv_codes, lv_start, lv_vals,
                                 lv_allowed, lv_need, child, r - 1, allowed, n_allowed, ahash, climit)
            # the child's buffers are its own level's; ours (level r) are intact
            if not ex and v < blb:
                v = blb  # an aborted child's bound may be below the cheap stage's
            vals[i] = v
            acc += v - blb
            if (not ex) or acc >= cutoff:
                ok = False
        if ok:
            val = W
            for i in range(nb):
                val += vals[i]
            if val < best:
                best = val
                best_g = g
        elif acc < fail_lb:
            fail_lb = acc
        if stats[ABORTED] != 0:
            nxt = W + (lbs[order[pos]] if pos < size else next_bound(lbs, n_allowed, level))
            if nxt < rest_lb:
                rest_lb = nxt
            break
    if stats[ABORTED] == 0 and best < limit:
        memo_store(mk1, mk2, mlb, mub, mg, k1, k2, best, best, best_g, stats)
        return best, True, best_g
    lbv = best
    if fail_lb < lbv:
        lbv = fail_lb
    if rest_lb < lbv:
        lbv = rest_lb
    if lbv < lb0:
        lbv = lb0
    memo_store(mk1, mk2, mlb, mub, mg, k1, k2, lbv, best, best_g, stats)
    return lbv, False, best_g


@njit(cache=True)
def greedy_guess(A, B, w, cm, S, n, r, allowed, n_allowed, loss, win, exact_rule,
                 cnt, wsum, cmx, seen, lbs, sq, valid):
    """A guess by the search's own order (least bound, finer split, lowest index), for the
    states the search left unfinished; closed forms where they apply."""
    cv, cg, done = closed_form(A, w, S, n, r, loss, win, exact_rule)
    if done and cg >= 0:
        return cg
    sweep_state(A, B, w, cm, S, n, allowed, n_allowed, r - 1, loss, win, 0, cnt, wsum, cmx, seen, lbs, sq, valid)
    best = -1
    for t in range(n_allowed):
        if not valid[t]:
            continue
        if best < 0 or lbs[t] < lbs[best] or (lbs[t] == lbs[best] and sq[t] < sq[best]):
            best = t
    if best < 0:
        return S[0]
    return allowed[best]


@njit(cache=True)
def first_guess_bounds(A, B, w, cm, symc, symn, marks, length, hard, S, n, r, guesses, n_guesses, allowed, n_allowed,
                       loss, win, exact_rule, unit, limit, cnt, wsum, cmx, seen, members, codes, start, vals,
                       child_allowed, lbs, sq, valid, out):
    """For each probe of ``guesses``, a lower bound of playing it first at ``S`` (``r`` rounds
    left, probes ``allowed``) one level deeper than the one-pass bound: ``W(S) + Σ_b B(S_b)``
    with ``B`` each group's closed form, candidates-first value or bound, or least guess bound
    over the probes allowed there (its own one-pass bound; hard mode: the probes still legal after
    the guess). The cheap bounds of every group come first; then the groups are swept largest
    first, and a guess stops as soon as its bound reaches ``limit`` (it is then at least that)."""
    W = 0.0
    for j in range(n):
        W += w[S[j]]
    for o in range(n_guesses):
        g = guesses[o]
        nb = partition(A, g, S, n, win, cnt, seen, members, codes, start)
        # the cheap stage: closed forms and the candidates alone; the rest, largest first
        total = W
        idx = np.empty(nb, np.int64)
        k = 0
        for i in range(nb):
            if codes[i] == win:
                continue
            child = members[start[i]:start[i + 1]]
            m = child.shape[0]
            wc, cbig = set_weight(w, cm, child, m)
            base = child_bound(m, wc, cbig, r - 1, loss)
            cv, cg, done = closed_form(A, w, child, m, r - 1, loss, win, exact_rule)
            if done:
                total += cv
                continue
            if cbig > wc:
                cbig = wc
            lb0 = 2.0 * wc - cbig
            if base > lb0:
                lb0 = base
            if exact_rule:
                pv, pg, plb = candidates_first(A, w, cm, child, m, wc, r - 1, loss, win, cnt, wsum, cmx, seen)
                if pg >= 0:
                    total += pv
                    continue
                if plb > lb0:
                    lb0 = plb
            vals[i] = lb0
            total += lb0
            q = k
            while q > 0 and start[idx[q - 1] + 1] - start[idx[q - 1]] < m:
                idx[q] = idx[q - 1]
                q -= 1
            idx[q] = i
            k += 1
        for q in range(k):
            if total >= limit:
                break
            i = idx[q]
            child = members[start[i]:start[i + 1]]
            m = child.shape[0]
            wc = 0.0
            for j in range(m):
                wc += w[child[j]]
            sub = allowed
            n_sub = n_allowed
            if hard:
                n_sub = filter_allowed(symc, symn, marks, g, codes[i], length, allowed, n_allowed, child_allowed)
                sub = child_allowed
            sweep_state(A, B, w, cm, child, m, sub, n_sub, r - 2, loss, win, unit, cnt, wsum, cmx, seen, lbs, sq,
                        valid)
            best = np.inf
            for t in range(n_sub):
                if valid[t] and wc + lbs[t] < best:
                    best = wc + lbs[t]
            if best > vals[i]:
                total += best - vals[i]
        out[o] = total
