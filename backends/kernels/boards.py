"""Compiled host kernels of the several-board solvers (``termo.engine.multi``, docs/modes-solver.md).

* :func:`probe_entropies`: the entropy of every probe over one board's candidate set, in the
  batched sweeps' float order (``kernels.sweeps``: bucket masses summed in member order,
  ``H = 0 − t_1 − t_2 − …`` over the buckets in the order of their first member, a singleton's
  ``t`` its precomputed ``w·log2 w``, a bucket holding the whole set adding nothing). It reads the
  answers-major matrix (one row per candidate, the probes contiguous), so a set of m candidates
  costs O(m) a probe with no cache misses. ``backends.numpy_sweep.fast_entropies`` gives the same
  floats with NumPy alone (the tests compare them bit for bit).
* :mod:`.boards_rollout`: the level-3 search's policy evaluation.
"""

from __future__ import annotations

import numpy as np

from backends.kernels.sums import _w_log_w, state_weights
from backends.kernels.sweeps import _probe_entropy_hist, _probe_entropy_small, find_member
# numba (imported when a kernel first runs) or the interpreted stand-ins: see backends/numba_shim.py
from backends.numba_shim import njit, prange

PAIRWISE_MAX = 8  # up to this many candidates a probe's buckets are found by pairwise comparisons


@njit(cache=True, nogil=True)
def probe_entropies(matrix_t, members, prior, n_bins):
    """H (bits) of every probe over ``members`` (ascending answer indices), sweeps' float order."""
    n_probes = matrix_t.shape[1]
    m = members.shape[0]
    out = np.zeros(n_probes, np.float64)
    if m <= 1:
        return out
    w = state_weights(prior, members, 0, m)
    wl = _w_log_w(w)
    if m <= PAIRWISE_MAX:
        codes = np.empty(m, np.int64)
        for g in range(n_probes):
            out[g] = _probe_entropy_small(matrix_t, members, 0, m, g, w, wl, codes)[1]
        return out
    hist = np.zeros(n_bins, np.float64)
    cnt = np.zeros(n_bins, np.int64)
    for g in range(n_probes):
        out[g] = _probe_entropy_hist(matrix_t, members, 0, m, g, w, wl, hist, cnt)
    return out


# ------------------------------------------------------------------------------------------------
# The level-3 search's policy evaluation (``termo.engine.multi.level3``, docs/modes-solver.md).
#
# A *rollout* plays a first guess, then the base policy (level 2 on a pool of probes) until every
# board is solved or the turns run out, for every answer tuple of a list (every tuple of the
# product of the boards' candidate sets with its probability, or a sample of them), and returns
# the mean cost of the objective. The tuples that share their colours so far share one node: one
# decision per node, so a list of P tuples costs at most P decisions a turn. Local tables:
#
# * ``codes`` (A × K): the colour code of pool probe k against local answer a; the local answers
#   are the union of the root's candidate sets, numbered in ascending global order;
# * ``prior`` (A,): the game's prior of each local answer (renormalised over each set);
# * ``answer_probe`` (A,): the pool index of each local answer (every candidate is in the pool);
# * ``probe_answer`` (K,): the local answer a pool probe is (-1: none); ``probe_ids`` (K,): its
#   global index (the last tie-break);
# * the first ``top_n`` pool probes are the level-2 pool of every node (with the node's own
#   candidates); late nodes (turns left ≤ boards + ``late_slack``) rank their candidates only.
#
# The base policy's floats are level 2's (`termo.engine.multi.level2`): the boards' entropies in
# the sweeps' order summed in board order, the solve chance ``1 − Π(1 − p_b)``, the key
# (rint(bits / 1e-9) desc, chance desc, global index asc); forced: the first board of one
# candidate. ``costs`` = (turn cost constant, per unsolved board, loss constant, per unsolved board).
# ------------------------------------------------------------------------------------------------

ROUND = 1e-9  # backends.constants.ROUND_STEP


@njit(cache=True, nogil=True)
def _policy(codes, prior, members, blo, bhi, nb, r, answer_probe, probe_answer, probe_ids, top_n,
            late_slack, hist, cnt, mark, stamp, cand):
    """The pool probe the base policy plays at a node (``nb`` boards, sets ``members[blo:bhi]``)."""
    for i in range(nb):
        if bhi[i] - blo[i] == 1:
            return answer_probe[members[blo[i]]]
    nc = 0
    for i in range(nb):
        for j in range(blo[i], bhi[i]):
            k = answer_probe[members[j]]
            if mark[k] != stamp:
                mark[k] = stamp
                cand[nc] = k
                nc += 1
    late = r <= nb + late_slack
    n_try = nc if late else nc + top_n
    total = 0
    for i in range(nb):
        total += bhi[i] - blo[i]
    ws = np.empty(total, np.float64)
    wls = np.empty(total, np.float64)
    for i in range(nb):
        w = state_weights(prior, members, blo[i], bhi[i])
        wl = _w_log_w(w)
        for j in range(bhi[i] - blo[i]):
            ws[blo[i] - blo[0] + j] = w[j]
            wls[blo[i] - blo[0] + j] = wl[j]
    best = -1
    best_key = 0.0
    best_chance = 0.0
    for t in range(n_try):
        if t < nc:
            k = cand[t]
        else:
            k = t - nc
            if mark[k] == stamp:  # a candidate, tried above
                continue
        bits = 0.0
        miss = 1.0
        a = probe_answer[k]
        for i in range(nb):
            lo = blo[i]
            m = bhi[i] - lo
            off = lo - blo[0]
            if m > 1:
                bits = bits + _probe_entropy_hist(codes, members, lo, m, k, ws[off:off + m], wls[off:off + m],
                                                  hist, cnt)
            p = 0.0
            if a >= 0:
                pos = find_member(members, lo, bhi[i], a)
                if pos >= 0:
                    p = ws[off + pos - lo]
            miss = miss * (1.0 - p)
        key = np.rint(bits / ROUND)
        chance = 1.0 - miss
        if best < 0 or key > best_key or (key == best_key and (chance > best_chance or (
                chance == best_chance and probe_ids[k] < probe_ids[best]))):
            best = k
            best_key = key
            best_chance = chance
    return best


@njit(cache=True, nogil=True)
def _same_colours(codes, tuples, boards, b0, nb, k, t1, t2):
    for i in range(nb):
        b = boards[b0 + i]
        if codes[tuples[t1, b], k] != codes[tuples[t2, b], k]:
            return False
    return True


@njit(cache=True, nogil=True)
def _rollout_one(codes, prior, members, blo, bhi, tuples, weights, r, g, answer_probe, probe_answer, probe_ids,
                 top_n, late_slack, win_code, costs, n_bins, node_limit):
    """(Σ_t weight_t × cost_t, nodes) of playing pool probe ``g`` first, then the base policy.

    Level by level (no recursion: numba's cache does not keep recursive functions): the frontier's
    nodes hold their tuples as a range of ``order`` (sorted in place by colours, so a node's
    children are sub-ranges), their boards (``bd_*``: board id and set range) and their sets
    (``mem``, each node's boards contiguous, in board order)."""
    n_tuples = tuples.shape[0]
    nb0 = blo.shape[0]
    hist = np.zeros(n_bins, np.float64)
    cnt = np.zeros(n_bins, np.int64)
    mark = np.zeros(codes.shape[1], np.int64)
    cand = np.empty(codes.shape[1], np.int64)
    order = np.arange(n_tuples)
    n_nodes = 1
    node_tlo = np.zeros(1, np.int64)
    node_thi = np.full(1, n_tuples, np.int64)
    node_nb = np.full(1, nb0, np.int64)
    node_b0 = np.zeros(1, np.int64)
    bd_board = np.arange(nb0)
    bd_lo = blo.copy()
    bd_hi = bhi.copy()
    mem = members.copy()
    total = 0.0
    visited = 0
    stamp = 0
    for level in range(r):
        left = r - level
        guess = np.empty(n_nodes, np.int64)
        c_tlo = np.empty(n_tuples, np.int64)
        c_thi = np.empty(n_tuples, np.int64)
        c_parent = np.empty(n_tuples, np.int64)
        c_nb = np.empty(n_tuples, np.int64)
        n_child = 0
        n_bd = 0
        n_mem = 0
        for nd in range(n_nodes):
            tlo = node_tlo[nd]
            thi = node_thi[nd]
            nb = node_nb[nd]
            b0 = node_b0[nd]
            wsum = 0.0
            for t in range(tlo, thi):
                wsum += weights[order[t]]
            total += wsum * (costs[0] + costs[1] * nb)
            visited += 1
            if visited > node_limit:
                return total, visited
            if level == 0:
                k = g
            else:
                stamp += 1
                k = _policy(codes, prior, mem, bd_lo[b0:b0 + nb], bd_hi[b0:b0 + nb], nb, left, answer_probe,
                            probe_answer, probe_ids, top_n, late_slack, hist, cnt, mark, stamp, cand)
            guess[nd] = k
            seg = order[tlo:thi].copy()
            key = np.empty(thi - tlo, np.int64)
            for i in range(nb - 1, -1, -1):  # stable sorts, the last board first: by colours
                b = bd_board[b0 + i]
                for t in range(thi - tlo):
                    key[t] = codes[tuples[seg[t], b], k]
                seg = seg[np.argsort(key, kind="mergesort")]
            order[tlo:thi] = seg
            s = tlo
            while s < thi:
                e = s + 1
                while e < thi and _same_colours(codes, tuples, bd_board, b0, nb, k, order[s], order[e]):
                    e += 1
                cnb = 0
                for i in range(nb):
                    c = codes[tuples[order[s], bd_board[b0 + i]], k]
                    if c != win_code:
                        cnb += 1
                        for j in range(bd_lo[b0 + i], bd_hi[b0 + i]):
                            if codes[mem[j], k] == c:
                                n_mem += 1
                if cnb > 0:
                    c_tlo[n_child] = s
                    c_thi[n_child] = e
                    c_parent[n_child] = nd
                    c_nb[n_child] = cnb
                    n_child += 1
                    n_bd += cnb
                s = e
        # the next frontier: each child's boards filtered by its colours (the win code solves)
        nx_b0 = np.empty(n_child, np.int64)
        nx_board = np.empty(n_bd, np.int64)
        nx_lo = np.empty(n_bd, np.int64)
        nx_hi = np.empty(n_bd, np.int64)
        nx_mem = np.empty(n_mem, np.int64)
        q = 0
        x = 0
        for c_i in range(n_child):
            nd = c_parent[c_i]
            k = guess[nd]
            b0 = node_b0[nd]
            t0 = order[c_tlo[c_i]]
            nx_b0[c_i] = q
            for i in range(node_nb[nd]):
                b = bd_board[b0 + i]
                c = codes[tuples[t0, b], k]
                if c == win_code:
                    continue
                nx_board[q] = b
                nx_lo[q] = x
                for j in range(bd_lo[b0 + i], bd_hi[b0 + i]):
                    if codes[mem[j], k] == c:
                        nx_mem[x] = mem[j]
                        x += 1
                nx_hi[q] = x
                q += 1
        n_nodes = n_child
        node_tlo = c_tlo[:n_child].copy()
        node_thi = c_thi[:n_child].copy()
        node_nb = c_nb[:n_child].copy()
        node_b0 = nx_b0
        bd_board = nx_board
        bd_lo = nx_lo
        bd_hi = nx_hi
        mem = nx_mem
        if n_nodes == 0:
            break
    for nd in range(n_nodes):  # out of turns: the loss
        wsum = 0.0
        for t in range(node_tlo[nd], node_thi[nd]):
            wsum += weights[order[t]]
        total += wsum * (costs[2] + costs[3] * node_nb[nd])
    return total, visited


@njit(cache=True, nogil=True, parallel=True)
def rollout_costs(codes, prior, members, blo, bhi, tuples, weights, r, firsts, answer_probe, probe_answer,
                  probe_ids, top_n, late_slack, win_code, costs, n_bins, node_limit):
    """For each pool probe of ``firsts``: (Σ_t weight_t × cost_t / Σ_t weight_t, nodes visited) of
    playing it now, then the base policy, on the tuples ``tuples`` (T × boards, local answers)
    with ``weights``, from the root sets ``members[blo:bhi]`` with ``r`` turns left. A rollout
    that passes ``node_limit`` nodes reports nodes > node_limit (its cost is then meaningless)."""
    n = firsts.shape[0]
    out = np.zeros(n, np.float64)
    nodes = np.zeros(n, np.int64)
    wsum = 0.0
    for t in range(weights.shape[0]):
        wsum += weights[t]
    for f in prange(n):
        total, used = _rollout_one(codes, prior, members, blo, bhi, tuples, weights, r, firsts[f], answer_probe,
                                   probe_answer, probe_ids, top_n, late_slack, win_code, costs, n_bins, node_limit)
        out[f] = total / wsum
        nodes[f] = used
    return out, nodes
