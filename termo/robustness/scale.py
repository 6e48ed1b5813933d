"""How wide is the prior? Effective size, the temperature that gives a target size, the scale
table and the collapse test (rules §8).

The prior family ``p_{N,T}`` is ``softmax(-ICF/T)`` over the ``N`` most common answers (stable
ascending ICF order), zero elsewhere. Its *effective size* is ``M = 2**H(p)`` (uniform over K
words gives K). :func:`temperature_for` inverts ``T ↦ M`` by geometric bisection.
"""

from __future__ import annotations

import math
from backends import host
from termo.core.errors import TermoError
from termo.core.prior import Prior, effective_size, most_common

SCALE_TEMPERATURES = (0.25, 0.5, 1.0, 2.0, 4.0, math.inf)
COLLAPSE_TARGET = 1200.0
COLLAPSE_CUTS = (None, 3000, 1500)  # None: every answer of Termo (6,046)

_T_LOW = 1e-6
_T_GIVE_UP = 1e9
_MAX_BISECTIONS = 200
_REL_TOL = 1e-4


def family_prior(icf, n_cut: int | None, t: float):
    """``p_{N,T}``: ``softmax(-ICF/T)`` over the ``n_cut`` most common answers, zero elsewhere."""
    xp = host().xp
    icf = list(icf)
    n = len(icf)
    n_cut = n if n_cut is None else int(n_cut)
    if not 1 <= n_cut <= n:
        raise TermoError(f"the cut N must be between 1 and {n}, got {n_cut}")
    if n_cut == n:
        return Prior.from_icf(icf, t).weights
    keep = most_common(icf, n_cut)
    inner = Prior.from_icf([icf[i] for i in keep], t).weights
    out = xp.zeros((n,), dtype=xp.float64)
    out[xp.asarray(keep, dtype=xp.int64)] = inner
    return out


def size_at(icf, t: float, n_cut: int | None = None) -> float:
    """Effective size ``M`` of ``p_{N,T}``."""
    return effective_size(family_prior(icf, n_cut, t))


def temperature_for(icf, target: float, n_cut: int | None = None) -> float:
    """The temperature at which ``p_{N,T}`` has effective size ``target`` (∞ when target ≥ N).

    Bracket: ``lo = 1e-6``, ``hi = 1``, doubling ``hi`` until ``M(hi) ≥ target`` (∞ past 1e9);
    then at most 200 geometric bisections until ``hi/lo - 1 < 1e-4``; returns ``√(lo·hi)``.
    """
    n = len(list(icf)) if n_cut is None else int(n_cut)
    if target >= n:
        return math.inf
    if target <= 1:
        raise TermoError(f"the target effective size must be above 1, got {target}")
    lo, hi = _T_LOW, 1.0
    while size_at(icf, hi, n_cut) < target:
        hi *= 2.0
        if hi > _T_GIVE_UP:
            return math.inf
    for _ in range(_MAX_BISECTIONS):
        if hi / lo - 1.0 < _REL_TOL:
            break
        mid = math.sqrt(lo * hi)
        if size_at(icf, mid, n_cut) < target:
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


def scale_table(icf, temperatures=SCALE_TEMPERATURES) -> list[dict]:
    """``[{"T": t, "M": size}]`` for the full lexicon at each temperature."""
    return [{"T": t, "M": size_at(icf, t)} for t in temperatures]


def collapse_test(matrix, icf, target: float = COLLAPSE_TARGET, cuts=COLLAPSE_CUTS, n_patterns: int | None = None,
                  backend=None) -> dict:
    """Reach the same effective size through different cuts N; do the level-2 openers agree?

    For each cut N the temperature giving ``target`` is solved, and the level-2 opener is the
    first probe of the §5.2 ordering over all answers under ``p_{N,T}`` (its own prior as the
    tie-break). ``gap`` is the largest, over the cuts' priors, (max − min) entropy among the
    distinct winners (0 when they collapse to one word).
    """
    from termo.worlds.world import termo_answers
    from termo.robustness.ordering import ordered_probes, probe_prior_of, root_entropies

    n = len(list(icf))
    rows = []
    tables = []
    for cut in cuts:
        cut = min(int(termo_answers() if cut is None else cut), n)
        t = temperature_for(icf, target, cut)
        prior = family_prior(icf, cut, t)
        h, inc = root_entropies(matrix, prior, n_patterns, backend)
        top = ordered_probes(h, inc, probe_prior_of(prior, matrix.shape[0]), 1)[0]
        rows.append({"N": cut, "T": t, "opener": int(top), "entropy": float(h[top])})
        tables.append(h)
    winners = sorted({row["opener"] for row in rows})
    gap = 0.0
    for h in tables:
        values = [float(h[g]) for g in winners]
        gap = max(gap, max(values) - min(values))
    return {"target": target, "rows": rows, "collapses": len(winners) == 1, "winners": winners, "gap": gap}


def empirical_floor(answers, icf, past_words) -> dict | None:
    """A measured lower bound on N/M from past secrets (rules §8, ``piso_empirico``).

    Each past secret is located by its 1-based rank in the stable ascending ICF order; the rarest
    one's rank bounds how deep into the lexicon the game draws. Returns ``{rank, word, count,
    missing}`` (``missing``: past words not in the lexicon), or None when no word is given.
    """
    from termo.core.feedback import normalize

    words = [w.strip() for w in past_words if w.strip() and not w.strip().startswith("#")]
    if not words:
        return None
    order = most_common(icf, len(icf))
    rank_of = {normalize(answers[i]): r + 1 for r, i in enumerate(order)}
    found, missing = [], []
    for w in words:
        rank = rank_of.get(normalize(w))
        (found.append((rank, w)) if rank is not None else missing.append(w))
    if not found:
        return {"rank": None, "word": None, "count": len(words), "missing": missing}
    rank, word = max(found)
    return {"rank": rank, "word": word, "count": len(words), "missing": missing}
