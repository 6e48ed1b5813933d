"""NumPy-exact float sums, a state's normalised weights and a table of ``log2 k``, shared by every
kernel family.

``pairwise_sum`` reproduces NumPy's float64 ``sum`` of a contiguous vector bit for bit (blocks of
8 accumulators up to 128 elements, halving above, ``-0.0`` start below 8), so that a kernel's sums
of prior weights equal the reference's NumPy sums to the last bit.
"""

from __future__ import annotations

import math

import numpy as np

# numba (imported when a kernel first runs) or the interpreted stand-ins: see backends/numba_shim.py
from backends.numba_shim import njit


@njit(cache=True, nogil=True)
def _pairwise_block(a, lo, n):
    """NumPy's pairwise-sum leaf (n <= 128): plain loop below 8, else 8 accumulators."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    i = 8
    stop = n - (n % 8)
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def pairwise_sum(a, lo, n):
    """NumPy's float64 pairwise sum of ``a[lo:lo+n]`` (bit-identical to ``a[lo:lo+n].sum()``).

    Above 128 elements NumPy halves (the left half rounded down to a multiple of 8) and adds the
    two halves; the recursion is unrolled here with explicit stacks (numba caches recursive
    functions badly)."""
    if n <= 128:
        return _pairwise_block(a, lo, n)
    task_lo = np.empty(128, np.int64)
    task_n = np.empty(128, np.int64)  # n >= 0: evaluate; -1: combine the two top values
    values = np.empty(128, np.float64)
    nt = 1
    nv = 0
    task_lo[0] = lo
    task_n[0] = n
    while nt > 0:
        nt -= 1
        tl = task_lo[nt]
        tn = task_n[nt]
        if tn < 0:
            right = values[nv - 1]
            left = values[nv - 2]
            nv -= 2
            values[nv] = left + right
            nv += 1
        elif tn <= 128:
            values[nv] = _pairwise_block(a, tl, tn)
            nv += 1
        else:
            n2 = tn // 2
            n2 -= n2 % 8
            task_lo[nt] = 0
            task_n[nt] = -1
            task_lo[nt + 1] = tl + n2
            task_n[nt + 1] = tn - n2
            task_lo[nt + 2] = tl
            task_n[nt + 2] = n2
            nt += 3
    return values[0]


@njit(cache=True, nogil=True)
def state_weights(prior, members, lo, hi):
    """Normalised weights of the state ``members[lo:hi]`` (uniform when the prior sums to 0)."""
    m = hi - lo
    buf = np.empty(m, np.float64)
    for j in range(m):
        buf[j] = prior[members[lo + j]]
    total = pairwise_sum(buf, 0, m)
    w = np.empty(m, np.float64)
    if total > 0.0:
        for j in range(m):
            w[j] = buf[j] / total
    else:
        for j in range(m):
            w[j] = 1.0 / m
    return w


@njit(cache=True, nogil=True)
def _w_log_w(w):
    out = np.empty(w.shape[0], np.float64)
    for j in range(w.shape[0]):
        out[j] = w[j] * math.log2(w[j]) if w[j] > 0.0 else 0.0
    return out


@njit(cache=True, nogil=True)
def log2_upto(n):
    """``out[k] = log2 k`` for ``k = 1 .. n`` (``out[0] = 0``): the entropy bound of ``k`` buckets."""
    out = np.zeros(n + 1, np.float64)
    for k in range(1, n + 1):
        out[k] = math.log2(k)
    return out
