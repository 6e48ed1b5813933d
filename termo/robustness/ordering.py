"""The level-2 ordering (rules §5.2) of every probe over all answers, under a given prior.

Keys, most significant first: entropy rounded to the 1e-9 grid (descending), member of the
candidate set first, probe prior descending, probe index ascending. The probe prior is the
column's own prior padded with zeros for extra probes (docs/robustness.md).
"""

from __future__ import annotations

from backends import get_backend, host
from backends.constants import ROUND_STEP
from termo.worlds.world import termo_defaults


def probe_prior_of(prior, n_probes: int):
    xp = host().xp
    prior = xp.asarray(prior, dtype=xp.float64)
    pad = xp.zeros((n_probes - prior.shape[0],), dtype=xp.float64)
    return xp.concat([prior, pad])


def root_entropies(matrix, prior, n_patterns: int | None = None, backend=None):
    """(entropy per probe, membership per probe) over every answer under ``prior`` (``n_patterns``
    None: Termo's)."""
    _, n_patterns = termo_defaults(n_patterns=n_patterns)
    backend = get_backend(backend)
    xp = host().xp
    n_answers = matrix.shape[1]
    members = xp.arange(n_answers, dtype=xp.int32)
    return backend.state_entropies(matrix, members, prior, n_patterns - 1, n_patterns)


def ordered_probes(entropies, members, probe_prior, k: int | None = None) -> list[int]:
    """Probe indices in §5.2 order (the first ``k`` of them)."""
    h = [float(x) for x in entropies]
    inc = [bool(x) for x in members]
    pp = [float(x) for x in probe_prior]
    order = sorted(range(len(h)), key=lambda g: (-round(h[g] / ROUND_STEP), not inc[g], -pp[g], g))
    return order if k is None else order[:k]
