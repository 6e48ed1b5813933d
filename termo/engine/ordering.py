"""The §5.2 order of probes for a candidate set, and its first k entries.

Probes are ranked by, in priority order:

1. entropy rounded to the 1e-9 grid, ``rint(H / 1e-9)``, descending (closer values are ties);
2. members of the candidate set first;
3. probe prior descending (extra probes have prior 0);
4. probe index ascending.

``top_k`` walks the probes once keeping a short sorted list (no full sort); ``full_order`` is the
complete permutation (stable sorts from the least significant key up), used for rankings.
"""

from __future__ import annotations

from backends import host
from backends.constants import ROUND_STEP
from backends.host_ops import search as host_search


def entropy_keys(entropies):
    """The primary ordering key ``rint(H / 1e-9)`` (float64, host)."""
    xp = host().xp
    h = xp.asarray(entropies, dtype=xp.float64)
    return xp.round(h / ROUND_STEP)


def membership(candidates, n_probes: int):
    """Boolean mask over probes: is the probe one of the candidates?"""
    xp = host().xp
    mask = xp.zeros(n_probes, dtype=xp.bool)
    cand = xp.asarray(candidates, dtype=xp.int64)
    if cand.shape[0]:
        mask[cand] = True
    return mask


def full_order(entropies, candidates, probe_prior):
    """Every probe index, best first, under the §5.2 order."""
    xp = host().xp
    keys = entropy_keys(entropies)
    n = keys.shape[0]
    member = membership(candidates, n)
    prior = xp.asarray(probe_prior, dtype=xp.float64)
    order = xp.arange(n, dtype=xp.int64)  # index ascending: the last tie-break
    for key in (-prior, xp.astype(~member, xp.int8), -keys):  # least significant first
        order = order[xp.argsort(key[order], stable=True)]
    return order


def top_k(entropies, candidates, probe_prior, k: int):
    """The first ``k`` probes of ``full_order`` and their entropies: (indices, entropies)."""
    return host_search.order_top_k(entropies, candidates, probe_prior, int(k))
