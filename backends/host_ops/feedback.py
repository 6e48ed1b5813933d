"""The host operations of the games whose colours are not one honest answer's (docs/rules.md §13):
the adversary's (Absurdle) and the lying rows' (Fibble), the same on every backend (plain functions,
not :class:`backends.base.Backend` methods: a backend carries only what differs by array library).

The adversary keeps, for a guess, the largest group of a state's answers that share its colours
(ties by its order of the codes, ``pref``); its searches (``termo.engine.adversary``,
``termo.exact.absurdle``) walk states one at a time on the host, so every backend runs the same
compiled host kernels (``backends/kernels/adversary.py``; numba, or the same source interpreted)
on host copies of the matrices. A row that lies (``backends/kernels/lies.py``) shows, for an
answer whose true colours are ``h``, one of the codes ``neighbours[h]`` with the chances
``chances[h]``; the sweep of every probe's entropy over those shown codes is one kernel call. The
functions take and return host NumPy arrays.
"""

from __future__ import annotations

import numpy as np


_LOADED: dict = {}


def _kernels():
    kernels = _LOADED.get("adversary")
    if kernels is None:
        from backends.kernels import adversary as kernels

        _LOADED["adversary"] = kernels
    return kernels


def _lie_kernels():
    from backends.kernels import lies

    return lies


def _members(members):
    return np.ascontiguousarray(members, dtype=np.int64)


def adversary_pick(probes_major, members, guesses, pref, n_codes: int):
    """For each probe of ``guesses``: ``(code, size)`` of the group the adversary keeps over
    ``members`` (two int32 arrays)."""
    guesses = np.ascontiguousarray(guesses, dtype=np.int64)
    codes = np.zeros(guesses.shape[0], np.int32)
    sizes = np.zeros(guesses.shape[0], np.int32)
    if guesses.shape[0]:
        _kernels().pick_many(probes_major, _members(members), guesses, np.ascontiguousarray(pref, np.int32),
                             int(n_codes), codes, sizes)
    return codes, sizes


def adversary_kept(row, members, code: int):
    """The members whose code in ``row`` (one probe's codes over every answer) is ``code``."""
    members = _members(members)
    out = np.empty(members.shape[0], np.int64)
    n = _kernels().kept_members(row, members, int(code), out)
    return out[:n].copy()


def adversary_distinct(probes_major, members, n_codes: int):
    """For every probe: the number of distinct codes it shows over ``members`` (int32)."""
    out = np.zeros(probes_major.shape[0], np.int32)
    _kernels().distinct_many(probes_major, _members(members), int(n_codes), out)
    return out


def adversary_kept_many(probes_major, members, guesses, codes, total: int):
    """``(flat, starts)``: the group kept for each guess of ``guesses`` (its code in
    ``codes``), one after the other; ``total``: the sum of their sizes."""
    guesses = np.ascontiguousarray(guesses, dtype=np.int64)
    flat = np.empty(int(total), np.int64)
    starts = np.empty(guesses.shape[0] + 1, np.int64)
    _kernels().kept_many(probes_major, _members(members), guesses, np.ascontiguousarray(codes, np.int64), flat,
                         starts)
    return flat, starts


def adversary_splitters(probes_major, members, order, limit: int, pref, n_codes: int):
    """``(probes, kept)``: the probes of ``order[:limit]`` that split ``members`` into single
    answers (in ``order``'s order), and for each the answer the adversary then keeps."""
    order = np.ascontiguousarray(order, dtype=np.int64)
    limit = min(int(limit), order.shape[0])
    probes = np.empty(limit, np.int64)
    kept = np.empty(limit, np.int64)
    if limit == 0:
        return probes, kept
    n = _kernels().splitters(probes_major, _members(members), order, limit,
                             np.ascontiguousarray(pref, np.int32), int(n_codes), probes, kept)
    return probes[:n].copy(), kept[:n].copy()


def allowed_after(symbols, symbol_counts, allowed, guess: int, code: int):
    """Hard mode: the probes of ``allowed`` still legal after ``guess`` scored ``code`` (greens
    kept, revealed symbols reused; the exact solver's kernel)."""
    from backends.kernels.exact_bounds import filter_allowed

    allowed = np.ascontiguousarray(allowed, dtype=np.int64)
    marks = np.zeros(max(1, symbol_counts.shape[1]), np.int64)
    out = np.empty(allowed.shape[0], np.int64)
    m = filter_allowed(symbols, symbol_counts, marks, int(guess), int(code), int(symbols.shape[1]), allowed,
                       allowed.shape[0], out)
    return out[:m].copy()


def lie_entropies(probes_major, members, weights, neighbours, chances, win_code: int):
    """For every probe: the entropy (bits) of the codes a lying row shows over ``members``
    weighted by ``weights`` (float64, one per member), the win shown as it is (float64)."""
    out = np.zeros(probes_major.shape[0], np.float64)
    _lie_kernels().entropies(probes_major, _members(members), np.ascontiguousarray(weights, np.float64),
                             np.ascontiguousarray(neighbours, np.int32), np.ascontiguousarray(chances, np.float64),
                             int(win_code), out)
    return out
