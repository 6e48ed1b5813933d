"""The adversary's kernels (Absurdle, docs/rules.md §13.1): the group it keeps for a guess, for one
guess or many, and the guesses that split a set into single answers.

``pref[code]`` is the adversary's order of the colour codes (its tie-break): among groups of the
same size it keeps the one of the lowest ``pref``. A state is an ascending int64 array of answer
indices; ``M`` the probes-major pattern matrix (probes × answers).
The plain-Python oracle is ``termo.engine.adversary.reference_choice`` (tests compare them).
"""

from __future__ import annotations

import numpy as np

from backends.numba_shim import njit, prange


@njit(cache=True)
def pick_row(row, members, pref, counts):
    """The code the adversary keeps for one guess's ``row`` of codes over ``members`` and its
    group's size (``counts``: scratch, one slot per code, left zeroed)."""
    best = -1
    size = 0
    for j in range(members.shape[0]):
        c = row[members[j]]
        k = counts[c] + 1
        counts[c] = k
        if k > size or (k == size and pref[c] < pref[best]):
            best = c
            size = k
    for j in range(members.shape[0]):
        counts[row[members[j]]] = 0
    return best, size


@njit(cache=True, parallel=True)
def pick_many(M, members, guesses, pref, n_codes, out_code, out_size):
    """For every guess of ``guesses`` (probe indices): the code the adversary keeps over
    ``members`` and the size of its group (``out_code``, ``out_size``)."""
    for i in prange(guesses.shape[0]):
        counts = np.zeros(n_codes, np.int32)
        c, s = pick_row(M[guesses[i]], members, pref, counts)
        out_code[i] = c
        out_size[i] = s


@njit(cache=True, parallel=True)
def distinct_many(M, members, n_codes, out):
    """For every probe: how many distinct codes it shows over ``members`` (at most this many answers
    can it split into single ones)."""
    for g in prange(M.shape[0]):
        seen = np.zeros(n_codes, np.uint8)
        row = M[g]
        d = 0
        for j in range(members.shape[0]):
            c = row[members[j]]
            if seen[c] == 0:
                seen[c] = 1
                d += 1
        out[g] = d


@njit(cache=True)
def splitters(M, members, order, limit, pref, n_codes, out_probe, out_answer):
    """The probes of ``order[:limit]`` that split ``members`` into single answers (every code
    distinct): their number, written to ``out_probe`` (in ``order``'s order) with, in
    ``out_answer``, the answer the adversary then keeps (the member whose code has the lowest
    ``pref``). A probe is dropped at its first repeated code: ``stamp[code]`` holds the last probe
    (its place in ``order``) that showed ``code``, so nothing is cleared between probes."""
    stamp = np.full(n_codes, -1, np.int64)
    n = 0
    for k in range(limit):
        g = order[k]
        row = M[g]
        split = True
        best = -1
        for j in range(members.shape[0]):
            c = row[members[j]]
            if stamp[c] == k:
                split = False
                break
            stamp[c] = k
            if best < 0 or pref[c] < pref[row[members[best]]]:
                best = j
        if split:
            out_probe[n] = g
            out_answer[n] = members[best]
            n += 1
    return n


@njit(cache=True)
def kept_many(M, members, guesses, codes, out, starts):
    """The group kept for each guess (its code in ``codes``): written one after the other to
    ``out``, guess ``i``'s from ``starts[i]`` to ``starts[i + 1]``."""
    n = 0
    for i in range(guesses.shape[0]):
        starts[i] = n
        row = M[guesses[i]]
        code = codes[i]
        for j in range(members.shape[0]):
            if row[members[j]] == code:
                out[n] = members[j]
                n += 1
    starts[guesses.shape[0]] = n
    return n


@njit(cache=True)
def kept_members(row, members, code, out):
    """The members whose code in ``row`` is ``code`` (the group kept), written to ``out``; their number."""
    n = 0
    for j in range(members.shape[0]):
        if row[members[j]] == code:
            out[n] = members[j]
            n += 1
    return n
