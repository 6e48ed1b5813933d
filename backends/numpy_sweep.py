"""Single-state entropy sweeps in whole-array NumPy, bit for bit like the compiled kernels.

A process that answers one question (``termo suggest --level 2``) would spend ~2 s importing and
loading numba for a ~10 ms decision. These functions give the same floats as the kernels of
``backends/kernels/`` for one candidate set with NumPy alone, so such a process never
imports numba (``termo.engine.entropy.Sweeper`` uses them until numba is loaded):

* :func:`fast_entropies` = the batched sweeps' order (``_sweep_small``/``_sweep_large``):
  ``H = 0 − t_1 − t_2 − …`` sequentially over the buckets in order of their first member,
  ``t = P·log2 P`` (a singleton's ``P`` is its weight; a bucket holding the whole set adds 0);
* :func:`exact_entropies` / :func:`entropy_row` = the reference's order (``entropies_single``,
  ``entropy_row``): up to 12 members ``−Σ_j w_j·log2 mass_j``, else ``−Σ_c P_c·log2 P_c`` over
  all codes, both sums with the kernels' pairwise summation;
* :func:`top_k` = ``top_k_from_entropies``: the §5.2 order (rint(H/1e-9) desc, member first,
  prior desc, index asc);
* :func:`sweep_top_k` / :func:`exact_top_k` = the first k probes of one state with the batched
  or the reference entropies. Only the few probes that can be among them get their exact
  entropy: a cheap pass (``np.log2``, any summation order: within ~1e-14 of either exact
  order on Termo, ~1e-11 at worst on the largest games) drops every probe more than
  ``2·1e-9 + 2·APPROX_MARGIN`` below the k-th best, which puts at least k probes a whole grid
  step above it, so it cannot be in the first k.

Why the floats agree exactly: bucket masses come from ``np.bincount``, which adds its weights
sequentially in input order, and the input is laid out member by member, so every bucket is
summed from 0.0 in member order as the kernels do; the kernels' pairwise summation is replayed
by :func:`pairwise_rows` (the same blocks, the same additions, vectorised over probes); and
logarithms are ``math.log2`` (the C library's ``log2``, which is what numba calls), never
``np.log2``, whose SIMD version differs from it in the last bit for ~0.1 % of arguments on
AVX-512 machines. Products, quotients and differences are single IEEE operations either way.
The tests compare every function with its kernel on many states (equality, not closeness).
"""

from __future__ import annotations

import math

import numpy as np

from backends.constants import ROUND_STEP
from backends.file_rows import Layouts

REFERENCE_SMALL = 12  # up to this size the reference sums w·log2(mass) (kernels.entropy)
PAIRWISE_MAX = 16  # fast_entropies: up to this size by pairwise comparisons (no code tables)
APPROX_MARGIN = 1e-9  # bound on |approximate − exact| entropy: worst cases are ~1e-11
_CELLS = 1 << 20  # (member or bin, probe) cells per block of probes: bounds the temporary arrays
_APPROX_BINS = 1 << 17  # histogram bins per block of the approximate pass (they stay in cache)
_SORTED_CELLS = 1 << 20  # (member, probe) cells per block of the sorted-runs pass: ~8 MB per temporary


def log2(values) -> np.ndarray:
    """``math.log2`` of every value (the C library's log2, as the compiled kernels use)."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    return np.fromiter(map(math.log2, flat.tolist()), dtype=np.float64, count=flat.shape[0])


def pairwise_rows(a) -> np.ndarray:
    """``kernels.sums.pairwise_sum`` of every column of ``a`` (shape (n, cols)), summing
    down the rows: ``out[g] = pairwise_sum(a[:, g])`` bit for bit, vectorised over columns."""
    a = np.asarray(a, dtype=np.float64)
    return _pairwise(a, 0, a.shape[0])


def _pairwise(a, lo: int, n: int):
    if n <= 128:
        return _pairwise_block(a, lo, n)
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise(a, lo, n2) + _pairwise(a, lo + n2, n - n2)


def _pairwise_block(a, lo: int, n: int):
    if n < 8:
        res = np.full(a.shape[1:], -0.0)
        for i in range(lo, lo + n):
            res = res + a[i]
        return res
    r = [a[lo + k].copy() for k in range(8)]
    i = 8
    stop = n - (n % 8)
    while i < stop:
        for k in range(8):
            r[k] += a[lo + i + k]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res = res + a[lo + i]
        i += 1
    return res


def state_weights(prior, members) -> np.ndarray:
    """``kernels.sums.state_weights`` of the whole of ``members``."""
    buf = np.asarray(prior, dtype=np.float64)[np.asarray(members, dtype=np.int64)]
    m = buf.shape[0]
    total = float(buf.sum())  # == pairwise_sum(buf, 0, m) (tests/test_entropy.py checks this)
    if total > 0.0:
        return buf / total
    return np.full(m, 1.0 / m) if m else buf


def _blocks(m: int, n_probes: int, n_bins: int):
    width = max(1, min(n_probes, _CELLS // max(1, m), _CELLS // max(1, n_bins)))
    for start in range(0, n_probes, width):
        yield start, min(n_probes, start + width)


def _bucket_tables(codes, w, n_bins: int):
    """Bucket masses and sizes of every probe of a block: ``codes`` (m, b) → (n_bins·b,) tables
    indexed ``code·b + probe``, each mass summed from 0.0 in member order; and the bin ids."""
    m, b = codes.shape
    bins = codes.astype(np.int64) * b + np.arange(b, dtype=np.int64)  # (m, b), member-major
    flat = bins.ravel()
    mass = np.bincount(flat, weights=np.repeat(w, b), minlength=n_bins * b)
    size = np.bincount(flat, minlength=n_bins * b)
    return bins, mass, size


def _p_log_p(mass, where) -> np.ndarray:
    """``P·log2 P`` at the selected bins (``where`` mask), 0.0 elsewhere."""
    out = np.zeros(mass.shape[0], dtype=np.float64)
    sel = np.flatnonzero(where)
    p = mass[sel]
    out[sel] = p * log2(p)
    return out


def _state_codes(matrix_t, members, probes=None):
    """``(n, block)``: how many probes are asked for, and ``block(start, stop)``, the state's codes
    of probes ``start:stop`` of them, (members, stop − start): its rows of the answers-major matrix,
    or what :meth:`backends.file_rows.Layouts.codes` reads of a matrix's files (the same values)."""
    if isinstance(matrix_t, Layouts):
        return matrix_t.codes(members, probes)
    rows = matrix_t[members] if probes is None else matrix_t[np.ix_(members, np.asarray(probes, dtype=np.int64))]
    return rows.shape[1], lambda start, stop: rows[:, start:stop]


def fast_entropies(matrix_t, members, prior, n_bins: int, probes=None) -> np.ndarray:
    """H of every probe (or of ``probes``) over ``members`` in the batched sweeps' float order
    (the values ``kernels.sweeps.sweep_top_k`` ranks and returns); ``matrix_t`` is answers ×
    probes."""
    members = np.asarray(members, dtype=np.int64)
    m = members.shape[0]
    w = state_weights(prior, members)
    n_probes, codes_of = _state_codes(matrix_t, members, probes)
    out = np.zeros(n_probes, dtype=np.float64)
    if m <= 1:
        return out
    if m <= PAIRWISE_MAX:
        return _fast_pairwise(codes_of(0, n_probes), w)
    wl = _w_log_w(w)
    for start, stop in _blocks(m, n_probes, n_bins):
        codes = codes_of(start, stop)
        bins, mass, size = _bucket_tables(codes, w, n_bins)
        term = _p_log_p(mass, (size > 1) & (size < m) & (mass > 0.0))
        single = size[bins] == 1  # (m, b): a singleton's P is its member's weight, exactly (0.0 + w)
        term[bins[single]] = np.broadcast_to(wl[:, None], bins.shape)[single]
        seen = np.zeros(term.shape[0], dtype=np.bool_)
        h = np.zeros(stop - start, dtype=np.float64)
        for j in range(m):  # buckets in order of their first member, as the kernels walk them
            b = bins[j]
            first = ~seen[b]
            seen[b] = True
            h -= np.where(first, term[b], 0.0)  # x - 0.0 == x: a skipped bucket changes nothing
        out[start:stop] = h
    return out


def _w_log_w(w) -> np.ndarray:
    """``w·log2 w`` per member (0.0 for a zero weight): ``kernels.sums._w_log_w``."""
    return np.array([x * math.log2(x) if x > 0.0 else 0.0 for x in w.tolist()], dtype=np.float64)


def _fast_pairwise(codes, w) -> np.ndarray:
    """:func:`fast_entropies` of a small set by pairwise comparisons (members × members × probes
    work, no code tables): the same floats, as ``kernels.sweeps._probe_entropy_small`` walks it.
    Each bucket's mass is summed from its first member in member order (adding 0.0 for the
    members outside it changes nothing), and ``H`` takes the terms in first-member order."""
    wl = _w_log_w(w)
    m = codes.shape[0]
    h = np.zeros(codes.shape[1], dtype=np.float64)
    for j in range(m):
        first = np.ones(codes.shape[1], dtype=np.bool_)
        for q in range(j):
            first &= codes[q] != codes[j]
        mass = np.full(codes.shape[1], w[j])
        count = np.ones(codes.shape[1], dtype=np.int64)
        for q in range(j + 1, m):
            same = codes[q] == codes[j]
            mass = mass + np.where(same, w[q], 0.0)
            count += same
        h = h - np.where(first & (count == 1), wl[j], 0.0)
        sel = np.flatnonzero(first & (count > 1) & (count < m) & (mass > 0.0))
        if sel.shape[0]:
            p = mass[sel]
            term = np.zeros(codes.shape[1], dtype=np.float64)
            term[sel] = p * log2(p)
            h = h - term
    return h


def exact_entropies(matrix_t, members, prior, n_bins: int, probes=None) -> np.ndarray:
    """H of every probe (or of ``probes``) over ``members`` in the reference's float order (the
    values of ``kernels.entropy.entropies_single``)."""
    members = np.asarray(members, dtype=np.int64)
    m = members.shape[0]
    n_probes = matrix_t.shape[1] if probes is None else len(probes)
    out = np.zeros(n_probes, dtype=np.float64)
    if m <= 1:
        return out
    w = state_weights(prior, members)
    _, codes_of = _state_codes(matrix_t, members, probes)
    for start, stop in _blocks(m, n_probes, n_bins):
        codes = codes_of(start, stop)
        b = stop - start
        if m <= REFERENCE_SMALL:
            mass = np.zeros((m, b), dtype=np.float64)
            for j in range(m):
                acc = np.zeros(b, dtype=np.float64)
                for q in range(m):
                    acc = acc + np.where(codes[q] == codes[j], w[q], 0.0)
                mass[j] = acc
            safe = np.where(mass > 0.0, mass, 1.0)
            terms = w[:, None] * log2(safe).reshape(m, b)
        else:
            _, mass, _ = _bucket_tables(codes, w, n_bins)
            terms = _p_log_p(mass, mass > 0.0).reshape(n_bins, b)
        out[start:stop] = -pairwise_rows(terms)
    return out


def entropy_row(matrix_t, members, prior, probe: int, n_bins: int) -> float:
    """H of one probe over ``members``, reference order (``kernels.entropy.entropy_row``)."""
    return float(exact_entropies(matrix_t, members, prior, n_bins, probes=[int(probe)])[0])


def top_k(entropies, members, probe_prior, k: int, probes=None):
    """The first ``k`` probes of the §5.2 order and their entropies (``top_k_from_entropies``);
    with ``probes``, ``entropies`` are those probes' and the order is taken among them."""
    h = np.asarray(entropies, dtype=np.float64)
    n = h.shape[0]
    index = np.arange(n, dtype=np.int64) if probes is None else np.asarray(probes, dtype=np.int64)
    key = np.rint(h / ROUND_STEP)
    member = _is_member(np.asarray(members, dtype=np.int64), index)
    prior = np.asarray(probe_prior, dtype=np.float64)[index]
    order = np.lexsort((index, -prior, ~member, -key))[: min(k, n)]
    return index[order], h[order]


def _is_member(members, index) -> np.ndarray:
    """``index[i] in members`` for ascending ``members`` (a binary search, like the kernels')."""
    if members.shape[0] == 0:
        return np.zeros(index.shape[0], dtype=np.bool_)
    pos = np.minimum(np.searchsorted(members, index), members.shape[0] - 1)
    return members[pos] == index


def approx_entropies(matrix_t, members, prior, n_bins: int) -> np.ndarray:
    """H of every probe over ``members`` to within ~1e-14 of both exact orders (the bucket
    masses are the same sums; the logarithms and the sum over buckets are NumPy's)."""
    members = np.asarray(members, dtype=np.int64)
    m = members.shape[0]
    w = state_weights(prior, members)
    n_probes, codes_of = _state_codes(matrix_t, members)
    out = np.zeros(n_probes, dtype=np.float64)
    if m <= 1:
        return out
    if m * 8 < n_bins:  # few members, many codes (Nerdle): runs of sorted codes, probe by probe
        n_blocks = -(-n_probes // max(2, _SORTED_CELLS // m))  # even blocks (a column alone would
        cuts = [i * n_probes // n_blocks for i in range(n_blocks + 1)]  # be summed in another order)
        for start, stop in zip(cuts[:-1], cuts[1:]):
            out[start:stop] = _approx_sorted(codes_of(start, stop), w)
        return out
    width = max(8, _APPROX_BINS // n_bins)
    for start in range(0, n_probes, width):
        codes = codes_of(start, min(n_probes, start + width))
        b = codes.shape[1]
        bins = np.add(codes, np.arange(0, b * n_bins, n_bins, dtype=np.intp), dtype=np.intp)
        mass = np.bincount(bins.ravel(), weights=np.repeat(w, b), minlength=n_bins * b)
        terms = np.log2(mass, out=np.zeros_like(mass), where=mass > 0.0)
        terms *= mass
        out[start:start + b] = -terms.reshape(b, n_bins).sum(axis=1)
    return out


def _approx_sorted(rows, w) -> np.ndarray:
    """:func:`approx_entropies` for a set much smaller than the code space: each probe's codes
    sorted, bucket masses as differences of running sums at the ends of equal runs (within
    ~1e-15 of the exact masses), so the work is members × probes, not codes × probes."""
    order = np.argsort(rows, axis=0, kind="stable")
    codes = np.take_along_axis(rows, order, axis=0)
    weights = w[order]
    running = np.cumsum(weights, axis=0)
    first = np.ones(codes.shape, dtype=np.bool_)
    first[1:] = codes[1:] != codes[:-1]
    last = np.ones(codes.shape, dtype=np.bool_)
    last[:-1] = first[1:]
    before = np.maximum.accumulate(np.where(first, running - weights, -np.inf), axis=0)
    mass = np.where(last, running - before, 0.0)
    terms = np.log2(mass, out=np.zeros_like(mass), where=mass > 0.0)
    return -(terms * mass).sum(axis=0)


def contenders(approx, k: int) -> np.ndarray:
    """Probes that may be among the first ``k`` given approximate entropies (ascending)."""
    n = approx.shape[0]
    if k >= n:
        return np.arange(n, dtype=np.int64)
    kth = np.partition(approx, n - k)[n - k]
    return np.flatnonzero(approx >= kth - 2.0 * ROUND_STEP - 2.0 * APPROX_MARGIN).astype(np.int64)


def sweep_top_k(matrix_t, members, prior, probe_prior, k: int, n_bins: int):
    """The first ``k`` probes of one state with the batched sweeps' entropies: what
    ``kernels.sweeps.sweep_top_k`` returns for a single state (unpadded)."""
    probes = contenders(approx_entropies(matrix_t, members, prior, n_bins), k)
    h = fast_entropies(matrix_t, members, prior, n_bins, probes=probes)
    return top_k(h, members, probe_prior, k, probes=probes)


def exact_top_k(matrix_t, members, prior, probe_prior, k: int, n_bins: int):
    """The first ``k`` probes of one state with the reference's entropies (the kernels'
    ``entropies_single`` then ``top_k_from_entropies``)."""
    probes = contenders(approx_entropies(matrix_t, members, prior, n_bins), k)
    h = exact_entropies(matrix_t, members, prior, n_bins, probes=probes)
    return top_k(h, members, probe_prior, k, probes=probes)
