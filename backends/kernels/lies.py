"""The kernel of rows that lie (Fibble, docs/rules.md §13.2): every probe's entropy over the codes a
lying row shows.

An answer whose true colours for a probe are ``h`` is shown as ``neighbours[h, k]`` with chance
``chances[h, k]`` (``-1`` pads a row of ``neighbours``); the win (``win_code``, the probe is the
answer) is shown as it is. The plain-Python oracle is ``termo.engine.lies.reference_entropies``.
"""

from __future__ import annotations

import math

import numpy as np

from backends.numba_shim import njit, prange

BLOCK = 256  # probes per parallel block (its buffers allocated once)


@njit(cache=True, parallel=True)
def entropies(M, members, weights, neighbours, chances, win_code, out):
    """``out[g]``: the entropy (bits) of the code shown for probe ``g`` over ``members``. Only the
    codes a probe touches are visited and reset (a small state costs about ten steps a member)."""
    n_codes = neighbours.shape[0]
    k_max = neighbours.shape[1]
    n = members.shape[0]
    total = 0.0
    for j in range(n):
        total += weights[j]
    n_probes = M.shape[0]
    blocks = (n_probes + BLOCK - 1) // BLOCK
    for b in prange(blocks):
        honest = np.zeros(n_codes, np.float64)
        shown = np.zeros(n_codes, np.float64)
        touched = np.empty(n, np.int64)
        seen = np.empty(n * k_max + 1, np.int64)
        for g in range(b * BLOCK, min(n_probes, (b + 1) * BLOCK)):
            out[g] = _one(M[g], members, weights, neighbours, chances, win_code, total, honest, shown, touched, seen)


@njit(cache=True)
def _one(row, members, weights, neighbours, chances, win_code, total, honest, shown, touched, seen):
    """One probe's entropy (the buffers come zeroed and are left so)."""
    n = members.shape[0]
    k_max = neighbours.shape[1]
    n_touched = 0
    n_seen = 0
    for j in range(n):
        h = row[members[j]]
        if honest[h] == 0.0:
            touched[n_touched] = h
            n_touched += 1
        honest[h] += weights[j]
    for t in range(n_touched):
        h = touched[t]
        mass = honest[h]
        honest[h] = 0.0
        if h == win_code:
            if shown[h] == 0.0:
                seen[n_seen] = h
                n_seen += 1
            shown[h] += mass
            continue
        for k in range(k_max):
            p = neighbours[h, k]
            if p >= 0:
                if shown[p] == 0.0:
                    seen[n_seen] = p
                    n_seen += 1
                shown[p] += mass * chances[h, k]
    e = 0.0
    for t in range(n_seen):
        p = seen[t]
        q = shown[p] / total
        shown[p] = 0.0
        if q > 0.0:
            e -= q * math.log2(q)
    return e
