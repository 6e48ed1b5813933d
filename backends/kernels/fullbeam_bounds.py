"""A probe's exact entropy over a state in the full-beam convention (:func:`_exact_entropy`,
see :mod:`backends.kernels.fullbeam`) and the cheap upper bounds that let the sweeps skip it: the
bucket count, the heaviest bucket, Rényi-½, an approximate entropy from a polynomial log2, and the
heavy-members bound of the skewed sweep (:func:`heavy_split`). Each bound only decides whether a
probe can still win; none changes a result."""

from __future__ import annotations

import math

import numpy as np

from backends.constants import ROUND_STEP
from backends.kernels.entropy import probe_ahead
from backends.numba_shim import njit


# A cheap log2 for bounds only: exponent bits plus a degree-7 polynomial of the mantissa m in
# [1, 2) (a Chebyshev fit; largest error 8.2e-7 on a 400,001-point grid, checked by a test).
# An entropy from it is within LOG2_APPROX_ERROR of the true one (its weights sum to 1), so a
# probe whose approximate entropy + APPROX_TOL is below the running best cannot win.
LOG2_POLY = (-3.2352098285324664, 7.085102749634603, -7.3961515521566765, 5.673521559327592,
             -2.9144927004919374, 0.9507418392608008, -0.178109744194753, 0.014598489293481237)
LOG2_APPROX_ERROR = 8.2e-7
APPROX_TOL = 1e-5
_P0, _P1, _P2, _P3, _P4, _P5, _P6, _P7 = LOG2_POLY
_MANTISSA = np.uint64(0x000FFFFFFFFFFFFF)
_ONE_BITS = np.uint64(0x3FF0000000000000)
_MAGIC_BITS = np.uint64(0x4330000000000000)  # 2**52 as a double; its low bits hold an integer
_MAGIC = 4503599627371519.0  # 2**52 + 1023 (the exponent bias)
_SHIFT = np.uint64(52)
BOUND_MARGIN = 1e-7  # the bucket bound skips a probe only when log2(k) < best H - this


@njit(cache=True)
def _exact_entropy(row, members, lo, hi, w, wl, hist, cnt, win_code):
    """Entropy of one probe (its pattern row ``row``) over ``members[lo:hi]``, in the member-order
    convention of the module doc, and whether the probe is itself a member. Leaves ``hist`` and
    ``cnt`` zeroed."""
    inc = 0
    for j in range(lo, hi):
        c = row[members[j]]
        hist[c] += w[j]
        cnt[c] += 1
        if c == win_code:
            inc = 1
    h = 0.0
    for j in range(lo, hi):
        c = row[members[j]]
        k = cnt[c]
        if k == 1:
            h -= wl[j]
        elif k > 1:
            p = hist[c]
            if p > 0.0:
                h -= p * math.log2(p)
        hist[c] = 0.0
        cnt[c] = 0
    return h, inc


@njit(cache=True, inline="always")
def start_best(n_bins, n_probes):
    """The scratch of :func:`keep_if_ahead` (``hist``, ``cnt``, cleared) and its running best
    before any probe, behind every probe: ``hist, cnt, bk, b_in, bp, bi, bh``."""
    return np.zeros(n_bins, np.float64), np.zeros(n_bins, np.int64), -1.0, 0, 0.0, n_probes, -1.0


@njit(cache=True, inline="always")
def keep_if_ahead(row, g, members, lo, hi, w, wl, probe_prior, hist, cnt, win_code, bk, b_in, bp, bi, bh):
    """Probe ``g`` (its pattern row ``row``) scored exactly over ``members[lo:hi]`` against the
    running best of the §5.2 order, (key, member, prior, index, entropy) ``bk, b_in, bp, bi, bh``
    (none yet: :func:`start_best`): the best after it, and whether ``g`` took its place. ``hist``
    and ``cnt`` as :func:`_exact_entropy`."""
    h, inc = _exact_entropy(row, members, lo, hi, w, wl, hist, cnt, win_code)
    key = np.rint(h / ROUND_STEP)
    pg = probe_prior[g]
    if probe_ahead(key, inc, pg, g, bk, b_in, bp, bi):
        return key, inc, pg, g, h, True
    return bk, b_in, bp, bi, bh, False


@njit(cache=True)
def largest_state(offsets):
    """The size of the largest state of a segmented array (at least 1)."""
    max_m = 1
    for s in range(offsets.shape[0] - 1):
        max_m = max(max_m, offsets[s + 1] - offsets[s])
    return max_m


@njit(cache=True)
def _chain_cannot_win(k, pmax, scale, offset, limit, log2k):
    """True when ``scale·min(log2 k, h(p) + (1 - p)·log2(k - 1)) + offset`` is below ``limit``.

    ``p`` is the heaviest bucket's share: grouping it apart bounds the rest by log2(k - 1). The
    binary entropy ``h(p)`` is first bounded by ``2·√(p(1-p))`` (no logarithm), and only when
    that bound is not enough computed exactly."""
    if scale * log2k[k] + offset < limit:
        return True
    if k < 2:
        return False
    p = min(pmax, 1.0)
    q = 1.0 - p
    rest = q * log2k[k - 1]
    if scale * (2.0 * math.sqrt(p * q) + rest) + offset < limit:
        return True
    if p <= 0.0 or q <= 0.0:
        return False
    return scale * (-p * math.log2(p) - q * math.log2(q) + rest) + offset < limit


@njit(cache=True)
def _cannot_win(nb, pmax, limit, log2k):
    """True when ``H ≤ min(log2 nb, h(pmax) + (1 - pmax)·log2(nb - 1))`` is below ``limit``."""
    return _chain_cannot_win(nb, pmax, 1.0, 0.0, limit, log2k)


@njit(cache=True, fastmath={"contract"})
def _approx_log2_into(src_bits, n, mant_bits, exp_bits, out):
    """``out[i] ≈ log2`` of the doubles whose bits are ``src_bits[:n]`` (within LOG2_APPROX_ERROR;
    0 maps to a finite value). ``out`` is the float view of ``mant_bits``; ``exp_bits`` scratch.
    Vectorised; no reassociation, so the exponent comes out exact."""
    exp_f = exp_bits.view(np.float64)
    for i in range(n):
        bits = src_bits[i]
        mant_bits[i] = (bits & _MANTISSA) | _ONE_BITS
        exp_bits[i] = (bits >> _SHIFT) | _MAGIC_BITS
    for i in range(n):
        x = out[i]
        out[i] = (((((((_P7 * x + _P6) * x + _P5) * x + _P4) * x + _P3) * x + _P2) * x + _P1) * x + _P0
                  + (exp_f[i] - _MAGIC))


@njit(cache=True, fastmath={"contract", "reassoc", "nsz"})
def _neg_dot(a, b, n):
    acc = 0.0
    for i in range(n):
        acc -= a[i] * b[i]
    return acc


@njit(cache=True)
def approx_entropy_bins(row, n_bins, mant_bits, exp_bits):
    """``-Σ x·log2 x`` over a histogram row of masses, within LOG2_APPROX_ERROR (masses sum to 1)."""
    lg = mant_bits.view(np.float64)
    _approx_log2_into(row.view(np.uint64), n_bins, mant_bits, exp_bits, lg)
    return _neg_dot(row, lg, n_bins)


@njit(cache=True)
def _renyi_cannot_win(root, pmax, limit):
    """Rényi-½ bounds from ``root = Σ_b √P_b``: ``H ≤ 2·log2 root``, and with the heaviest bucket
    (mass ``p``) grouped apart, ``H ≤ h(p) + (1 - p)·(2·log2(root - √p) - log2(1 - p))``."""
    if root <= 0.0 or 2.0 * math.log2(root) < limit:
        return True
    p = min(pmax, 1.0)
    q = 1.0 - p
    rest = root - math.sqrt(p)
    if p <= 0.0 or q <= 0.0 or rest <= 0.0:
        return False
    lq = math.log2(q)
    return -p * math.log2(p) - q * lq + q * (2.0 * math.log2(rest) - lq) < limit


@njit(cache=True, fastmath=True)
def _scan_sqrt(row, n_bins):
    """``Σ √bin`` of a histogram row (a vectorised scan; only a bound uses it)."""
    sq = 0.0
    for c in range(n_bins):
        sq += math.sqrt(row[c])
    return sq


@njit(cache=True, fastmath=True)
def _clear(row, n_bins):
    for c in range(n_bins):
        row[c] = 0.0


@njit(cache=True)
def _f(x):
    return -x * math.log2(x) if x > 0.0 else 0.0


@njit(cache=True)
def heavy_split(members, offsets, w, light_mass, n_bins):
    """Per state: the order of its members heaviest first (``perm[lo + r]`` is the position of the
    ``r``-th heaviest relative to the state's start ``lo``), how many of them carry at least
    ``1 - light_mass`` of the weight (``n_heavy``), and the slack of the bound of
    :func:`sweep_skewed`: ``f(t) + ε·log2(k_L/ε)`` with ``t`` the heavy mass, ``ε`` the light mass,
    ``k_L = min(#light, n_bins)`` and ``f(x) = -x·log2 x``. Also returns ``t``."""
    n_states = offsets.shape[0] - 1
    perm = np.empty(members.shape[0], np.int64)
    n_heavy = np.empty(n_states, np.int64)
    slack = np.empty(n_states, np.float64)
    heavy_mass = np.empty(n_states, np.float64)
    for s in range(n_states):
        lo = offsets[s]
        m = offsets[s + 1] - lo
        order = np.argsort(-w[lo : lo + m], kind="mergesort")
        t = 0.0
        h = m
        for r in range(m):
            perm[lo + r] = order[r]
            if h == m:  # still among the heavy ones
                t += w[lo + order[r]]
                if t >= 1.0 - light_mass:
                    h = r + 1
        eps = 0.0
        for r in range(h, m):
            eps += w[lo + order[r]]
        k_light = min(m - h, n_bins)
        n_heavy[s] = h
        heavy_mass[s] = t
        slack[s] = _f(t) + (eps * math.log2(k_light / eps) if eps > 0.0 and k_light > 0 else 0.0)
    return perm, n_heavy, slack, heavy_mass


@njit(cache=True)
def _heavy_cannot_win(k_heavy, p_heavy, t, slack, k_light, limit, log2k, n_bins):
    """Bound of a probe from the heavy members' buckets only (``k_heavy`` buckets, heaviest
    ``p_heavy``, total ``t``): with ``P = A + B`` (heavy + light masses), ``f(a+b) ≤ f(a) + f(b)``
    gives ``H ≤ Σ f(A_b) + Σ f(B_b) ≤ t·H(A/t) + f(t) + ε·log2(k_L/ε)``, and ``H(A/t)`` is bounded
    as in :func:`_cannot_win`; also ``H ≤ log2(min(k_heavy + k_L, n_bins))``."""
    if log2k[min(k_heavy + k_light, n_bins)] < limit:
        return True
    if t <= 0.0:
        return False
    return _chain_cannot_win(k_heavy, p_heavy / t, t, slack, limit, log2k)
