"""The exact solver's partitions and lower bounds (see :mod:`backends.kernels.exact`): one
probe's feedback groups, every allowed probe's bound in one pass per state, a state's closed
forms, and the hard-mode filter of the allowed probes.

Every kernel reads the pattern matrix in its answers-major layout, ``A[answer, probe]`` (the
code ``probe`` scores against ``answer``): a state's rows are contiguous, so the pass over every
probe streams the state's few rows instead of gathering scattered bytes from every probe's row
(docs/exact.md)."""

from __future__ import annotations

import numpy as np

from backends.numba_shim import njit


@njit(cache=True)
def child_bound(m, ws, cmax, rc, loss):
    """Admissible lower bound of ``C(T, rc)`` for a group of ``m`` answers of weight ``ws`` whose
    largest class weight is at most ``cmax`` (exact for m = 1, rc <= 0 and, under the exact win
    rule, rc = 1 and m = 2)."""
    if rc <= 0:
        return loss * ws
    if m == 1:
        return ws
    c = cmax if cmax < ws else ws
    if rc == 1:
        return ws + (ws - c) * loss
    return 2.0 * ws - c


@njit(cache=True)
def count_groups(A, g, S, n, cnt, seen):
    """Group the ``n`` answers ``S`` by probe ``g``'s code: ``cnt[c]`` counts each group (``cnt``
    must be all zero for the codes met), ``seen[:k]`` lists the codes in order of first meeting;
    returns ``k``."""
    nseen = 0
    for j in range(n):
        c = A[S[j], g]
        if cnt[c] == 0:
            seen[nseen] = c
            nseen += 1
        cnt[c] += 1
    return nseen


@njit(cache=True)
def weighted_groups(A, g, S, n, w, cm, cnt, wsum, cmx, seen):
    """:func:`count_groups` with each group's weight (``wsum``) and largest class weight (``cmx``)."""
    nseen = 0
    for j in range(n):
        a = S[j]
        c = A[a, g]
        if cnt[c] == 0:
            seen[nseen] = c
            nseen += 1
            wsum[c] = 0.0
            cmx[c] = 0.0
        cnt[c] += 1
        wsum[c] += w[a]
        if cm[a] > cmx[c]:
            cmx[c] = cm[a]
    return nseen


@njit(cache=True)
def sweep_bounds(A, w, cm, S, n, allowed, n_allowed, rc, loss, win, cnt, wsum, cmx, seen, lbs, sq, valid):
    """For every allowed probe: the bound ``Σ_b lb(S_b)`` over its non-winning groups (``lbs``),
    ``Σ_b W(S_b)²`` (``sq``) and whether it splits ``S`` at all (``valid``). One pass over the
    state's rows of the matrix per probe; ``cnt`` must be all zero (it is left so)."""
    for t in range(n_allowed):
        p = allowed[t]
        nseen = weighted_groups(A, p, S, n, w, cm, cnt, wsum, cmx, seen)
        total = 0.0
        s2 = 0.0
        for k in range(nseen):
            c = seen[k]
            if c != win:
                ws = wsum[c]
                total += child_bound(cnt[c], ws, cmx[c], rc, loss)
                s2 += ws * ws
            cnt[c] = 0
        lbs[t] = total
        sq[t] = s2
        valid[t] = not (nseen == 1 and seen[0] != win)


PAIR_MAX = 22  # states this small count equal pairs in uint8 lanes (22·21/2 = 231 pairs)
PAIR_BLOCK = 64  # probes per block of the pairwise pass


@njit(cache=True)
def unit_bound(sm, k, rc, loss):
    """The unit-weight bound of ``k`` non-winning groups holding ``sm`` answers (see below)."""
    if rc <= 0:
        return loss * sm
    if rc == 1:
        return (1.0 + loss) * sm - loss * k
    return 2.0 * sm - k


@njit(cache=True)
def sweep_unit_pairs(A, S, n, n_probes, rc, loss, win, lbs, sq, valid):
    """:func:`sweep_bounds_unit` over every probe of a small state (``n <= PAIR_MAX``) by
    comparing the state's rows pairwise, a block of probes at a time: per probe, an answer whose
    code no earlier answer has opens a group, and every equal pair adds 2 to ``Σ m²``. The loops
    over a block's probes have no branch, so the compiler runs them as vector instructions."""
    dup = np.zeros(PAIR_BLOCK, np.uint8)
    eq = np.zeros(PAIR_BLOCK, np.uint8)
    kk = np.zeros(PAIR_BLOCK, np.uint8)
    wn = np.zeros(PAIR_BLOCK, np.uint8)
    one = np.uint8(1)
    for p0 in range(0, n_probes, PAIR_BLOCK):
        pb = min(PAIR_BLOCK, n_probes - p0)
        eq[:] = 0
        kk[:] = 0
        wn[:] = 0
        for j in range(n):
            rj = A[S[j], p0:p0 + pb]
            dup[:] = 0
            for i in range(j):
                ri = A[S[i], p0:p0 + pb]
                for q in range(pb):
                    e = np.uint8(ri[q] == rj[q])
                    dup[q] |= e
                    eq[q] += e
            for q in range(pb):
                kk[q] += one - dup[q]
                wn[q] += np.uint8(rj[q] == win)
        for q in range(pb):
            w = np.int64(wn[q])
            k = np.int64(kk[q])
            valid[p0 + q] = not (k == 1 and w == 0)
            if w > 0:
                k -= 1
            lbs[p0 + q] = unit_bound(n - w, k, rc, loss)
            sq[p0 + q] = n + 2 * np.int64(eq[q]) - w * w


@njit(cache=True)
def sweep_bounds_unit(A, S, n, allowed, n_allowed, rc, loss, win, cnt, lbs, sq, valid):
    """:func:`sweep_bounds` for weights 1 under the exact win rule: the same numbers from counts
    alone, branch-free. Per probe, with ``k`` groups (the winning one left out) holding ``Σm``
    answers the bound is ``2·Σm − k`` (``(1 + loss)·Σm − loss·k`` with one round left), and
    ``Σ_b m_b²`` is ``n + 2·(pairs of equal codes)`` less the winning group's ``m²``. ``allowed``
    is ascending (every probe when ``n_allowed`` is the probe count)."""
    if n <= PAIR_MAX and n_allowed == A.shape[1]:
        sweep_unit_pairs(A, S, n, n_allowed, rc, loss, win, lbs, sq, valid)
        return
    for t in range(n_allowed):
        p = allowed[t]
        pairs = 0
        k = 0
        for j in range(n):
            c = A[S[j], p]
            x = cnt[c]
            pairs += x
            k += x == 0
            cnt[c] = x + 1
        wn = cnt[win]
        for j in range(n):
            cnt[A[S[j], p]] = 0
        valid[t] = not (k == 1 and wn == 0)
        if wn > 0:
            k -= 1
        lbs[t] = unit_bound(n - wn, k, rc, loss)
        sq[t] = n + 2 * pairs - wn * wn


@njit(cache=True)
def cm_small(cm, S, n):
    """Whether every class size of ``S[:n]`` fits a byte (the pairwise pass's lanes)."""
    for j in range(n):
        if cm[S[j]] > 255:
            return False
    return True


@njit(cache=True)
def sweep_classes_pairs(A, cm, S, n, n_probes, rc, loss, win, lbs, sq, valid):
    """:func:`sweep_bounds_classes` over every probe of a small state (``n <= PAIR_MAX``, class
    sizes below 256) by comparing the state's rows pairwise, a block of probes at a time, like
    :func:`sweep_unit_pairs`. Per probe and answer ``j``: the earlier answers with its code (their
    count, the largest class among them) and whether a later one has it; at the last answer of
    a group, ``min(c_b, m_b)`` is the group's largest class, capped by the earlier ones plus one."""
    before = np.zeros(PAIR_BLOCK, np.uint8)
    largest = np.zeros(PAIR_BLOCK, np.uint8)
    after = np.zeros(PAIR_BLOCK, np.uint8)
    pairs = np.zeros(PAIR_BLOCK, np.uint8)
    kk = np.zeros(PAIR_BLOCK, np.uint8)
    wn = np.zeros(PAIR_BLOCK, np.uint8)
    caps = np.zeros(PAIR_BLOCK, np.uint8)
    one = np.uint8(1)
    zero = np.uint8(0)
    for p0 in range(0, n_probes, PAIR_BLOCK):
        pb = min(PAIR_BLOCK, n_probes - p0)
        pairs[:] = 0
        kk[:] = 0
        wn[:] = 0
        caps[:] = 0
        for j in range(n):
            rj = A[S[j], p0:p0 + pb]
            before[:] = 0
            after[:] = 0
            largest[:] = np.uint8(cm[S[j]])
            for i in range(n):
                ri = A[S[i], p0:p0 + pb]
                if i < j:
                    zi = np.uint8(cm[S[i]])
                    for q in range(pb):
                        e = np.uint8(ri[q] == rj[q])
                        before[q] += e
                        z = e * zi
                        largest[q] = z if z > largest[q] else largest[q]
                elif i > j:
                    for q in range(pb):
                        after[q] |= np.uint8(ri[q] == rj[q])
            for q in range(pb):
                b = before[q]
                pairs[q] += b
                kk[q] += np.uint8(b == zero)
                w = np.uint8(rj[q] == win)
                wn[q] += w
                c = b + one
                c = largest[q] if largest[q] < c else c
                caps[q] += np.uint8(after[q] == zero) * (one - w) * c
        for q in range(pb):
            w = np.int64(wn[q])
            k = np.int64(kk[q])
            valid[p0 + q] = not (k == 1 and w == 0)
            sm = n - w
            cs = np.int64(caps[q])
            if rc <= 0:
                lbs[p0 + q] = loss * sm
            elif rc == 1:
                lbs[p0 + q] = (1.0 + loss) * sm - loss * cs
            else:
                lbs[p0 + q] = 2.0 * sm - cs
            sq[p0 + q] = n + 2 * np.int64(pairs[q]) - w * w


@njit(cache=True)
def sweep_bounds_classes(A, cm, S, n, allowed, n_allowed, rc, loss, win, cnt, cmx, lbs, sq, valid):
    """:func:`sweep_bounds` for weights 1 under a win rule with classes (Nerdle's commutative
    answers: one guess wins a whole class, ``cm[a]`` the size of ``a``'s class): the same numbers,
    branch-free. A group of ``m`` answers whose largest class has ``c`` members in all is bounded
    by ``2m − min(c, m)`` (``(1 + loss)·m − loss·min(c, m)`` with one round left), so per probe
    the pass keeps ``Σ_b min(c_b, m_b)`` up to date as each answer joins its group. ``cnt`` (an
    integer table over the codes) must be all zero and is left so; ``cmx`` (another) is scratch.
    ``allowed`` is ascending (every probe when ``n_allowed`` is the probe count)."""
    if n <= PAIR_MAX and n_allowed == A.shape[1] and cm_small(cm, S, n):
        sweep_classes_pairs(A, cm, S, n, n_allowed, rc, loss, win, lbs, sq, valid)
        return
    cmx[:] = 0
    for t in range(n_allowed):
        p = allowed[t]
        pairs = 0
        k = 0
        caps = 0
        for j in range(n):
            a = S[j]
            c = A[a, p]
            x = cnt[c]
            y = cmx[c]
            z = np.int64(cm[a])
            ny = y if y > z else z
            pairs += x
            k += x == 0
            caps += min(ny, x + 1) - min(y, x)
            cnt[c] = x + 1
            cmx[c] = ny
        wn = cnt[win]
        cw = min(cmx[win], wn)
        for j in range(n):
            c = A[S[j], p]
            cnt[c] = 0
            cmx[c] = 0
        valid[t] = not (k == 1 and wn == 0)
        sm = n - wn
        cs = caps - cw
        if rc <= 0:
            lbs[t] = loss * sm
        elif rc == 1:
            lbs[t] = (1.0 + loss) * sm - loss * cs
        else:
            lbs[t] = 2.0 * sm - cs
        sq[t] = n + 2 * pairs - wn * wn


BIG_STATE = 512  # states with more answers read the matrix probes-major (see sweep_state)


@njit(cache=True)
def sweep_state(A, B, w, cm, S, n, allowed, n_allowed, rc, loss, win, unit, cnt, wsum, cmx, seen, lbs, sq, valid):
    """Every allowed probe's bound at state ``S`` by the pass its weights allow: ``unit`` 1 (weights
    1, exact win rule), 2 (weights 1, win classes) or 0 (any weights). ``A`` and ``B`` hold the
    same codes, both indexed ``[answer, probe]``: ``A`` answers-major (a small state's rows are
    contiguous), ``B`` the probes-major layout seen through its transpose (a big state's codes for
    one probe are one contiguous row); a state of more than :data:`BIG_STATE` answers reads ``B``."""
    if n > BIG_STATE:
        _sweep(B, w, cm, S, n, allowed, n_allowed, rc, loss, win, unit, cnt, wsum, cmx, seen, lbs, sq, valid)
    else:
        _sweep(A, w, cm, S, n, allowed, n_allowed, rc, loss, win, unit, cnt, wsum, cmx, seen, lbs, sq, valid)


@njit(cache=True)
def _sweep(A, w, cm, S, n, allowed, n_allowed, rc, loss, win, unit, cnt, wsum, cmx, seen, lbs, sq, valid):
    if unit == 1:
        sweep_bounds_unit(A, S, n, allowed, n_allowed, rc, loss, win, cnt, lbs, sq, valid)
    elif unit == 2:
        sweep_bounds_classes(A, cm, S, n, allowed, n_allowed, rc, loss, win, cnt, seen, lbs, sq, valid)
    else:
        sweep_bounds(A, w, cm, S, n, allowed, n_allowed, rc, loss, win, cnt, wsum, cmx, seen, lbs, sq, valid)


@njit(cache=True)
def partition(A, g, S, n, win, cnt, seen, out_members, out_codes, out_start):
    """Split ``S`` by probe ``g``: groups in ascending code, members ascending within a group,
    written to ``out_members``; ``out_codes[i]``/``out_start[i:i+2]`` describe group i. Returns
    the number of groups."""
    nseen = count_groups(A, g, S, n, cnt, seen)
    # insertion sort of the codes seen
    for i in range(1, nseen):
        v = seen[i]
        k = i - 1
        while k >= 0 and seen[k] > v:
            seen[k + 1] = seen[k]
            k -= 1
        seen[k + 1] = v
    pos = 0
    for i in range(nseen):
        c = seen[i]
        out_codes[i] = c
        out_start[i] = pos
        m = cnt[c]
        cnt[c] = pos  # reuse as the write cursor
        pos += m
    out_start[nseen] = pos
    for j in range(n):
        a = S[j]
        c = A[a, g]
        out_members[cnt[c]] = a
        cnt[c] += 1
    for i in range(nseen):
        cnt[seen[i]] = 0
    return nseen


@njit(cache=True)
def filter_allowed(symc, symn, marks, g, code, length, parent, n_parent, out):
    """Hard mode: the probes of ``parent`` still legal after ``g`` scored ``code`` (greens kept in
    place, each symbol used at least as often as it got G/Y marks). Returns the count;
    ``marks`` (one slot per symbol) must be all zero and is left so."""
    greens = np.zeros(length, np.bool_)
    x = code
    for i in range(length - 1, -1, -1):
        d = x % 3
        x //= 3
        if d == 2:
            greens[i] = True
        if d >= 1:
            marks[symc[g, i]] += 1
    m = 0
    for t in range(n_parent):
        h = parent[t]
        ok = True
        for i in range(length):
            if greens[i] and symc[h, i] != symc[g, i]:
                ok = False
                break
        if ok:
            for i in range(length):
                s = symc[g, i]
                if marks[s] > 0 and symn[h, s] < marks[s]:
                    ok = False
                    break
        if ok:
            out[m] = h
            m += 1
    for i in range(length):
        marks[symc[g, i]] = 0
    return m


@njit(cache=True)
def closed_form(A, w, S, n, r, loss, win, exact_rule):
    """(value, guess, True) for the states solved by a formula (r <= 0, one answer, the last
    round, two answers), else (0, -1, False)."""
    W = 0.0
    for j in range(n):
        W += w[S[j]]
    if r <= 0:
        return loss * W, -1, True
    if n == 1:
        return W, S[0], True
    if r == 1:
        best = -1.0
        bg = S[0]
        for i in range(n):
            a = S[i]
            if exact_rule:
                wm = w[a]
            else:
                wm = 0.0
                for j in range(n):
                    if A[S[j], a] == win:
                        wm += w[S[j]]
            if wm > best:
                best = wm
                bg = a
        return W + (W - best) * loss, bg, True
    if n == 2:
        a = S[0]
        b = S[1]
        if A[b, a] == win:
            return W, a, True
        if A[a, b] == win:
            return W, b, True
        if w[b] > w[a]:
            return W + w[a], b, True
        return W + w[b], a, True
    return 0.0, -1, False


@njit(cache=True)
def candidates_first(A, w, cm, S, n, W, r, loss, win, cnt, wsum, cmx, seen):
    """Exact win rule, ``r >= 2``: try the candidates alone. A candidate whose every other group
    has a closed form (one or two answers, or one round left) has an exact value; when the best
    such value is at most ``2·W(S)`` (no other probe can do better: it solves nothing at once)
    and at most every other candidate's bound, it is the optimum. ``(value, guess, lower)``:
    ``(optimum, its guess, optimum)`` when settled, else ``(inf, -1, lower)`` with ``lower`` a
    lower bound of ``C(S, r)`` from the same pass: the least candidate bound, or ``2·W(S)``
    (what a non-candidate costs at least) if less. O(n²): no pass over the probe space."""
    vbest = np.inf
    gbest = -1
    other = np.inf
    for i in range(n):
        g = S[i]
        nseen = weighted_groups(A, g, S, n, w, cm, cnt, wsum, cmx, seen)
        total = W
        closed = True
        for k in range(nseen):
            c = seen[k]
            if c != win:
                m = cnt[c]
                total += child_bound(m, wsum[c], cmx[c], r - 1, loss)
                if m > 2 and r - 1 > 1:
                    closed = False
            cnt[c] = 0
        if closed:
            if total < vbest:
                vbest = total
                gbest = g
        elif total < other:
            other = total
    if vbest <= 2.0 * W and vbest <= other:
        return vbest, gbest, vbest
    lower = 2.0 * W
    if vbest < lower:
        lower = vbest
    if other < lower:
        lower = other
    return np.inf, -1, lower
