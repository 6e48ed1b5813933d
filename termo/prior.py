"""The word-frequency prior ``softmax(-ICF/T)`` over the answers (rules §2.5), on the host in float64."""

from __future__ import annotations

import math

from backends import host
from termo.errors import TermoError

_INFINITY_WORDS = {"inf", "+inf", "infinity", "infinito", "∞", "uniform"}


def parse_temperature(text: str | float) -> float:
    """A temperature from the command line: a positive number, or ``inf`` / ``infinito`` / ``∞``."""
    if isinstance(text, (int, float)):
        value = float(text)
    elif text.strip().lower() in _INFINITY_WORDS:
        value = math.inf
    else:
        try:
            value = float(text)
        except ValueError:
            raise TermoError(f"temperature {text!r} is not a number (use e.g. 1, 0.5 or inf)") from None
    check_temperature(value)
    return value


def check_temperature(t: float) -> None:
    if math.isnan(t) or t <= 0:
        raise TermoError(f"temperature must be positive (or inf for a uniform prior), got {t}")


def prior_weights(icf, t: float = 1.0):
    """``softmax(-icf / t)`` as float64 (host array); ``t = inf`` gives exactly ``1/n``."""
    check_temperature(t)
    xp = host().xp
    scores = xp.asarray(list(icf) if not hasattr(icf, "shape") else icf, dtype=xp.float64)
    n = scores.shape[0]
    if math.isinf(t):
        return xp.full((n,), 1.0 / n, dtype=xp.float64)
    logits = -scores / t
    weights = xp.exp(logits - xp.max(logits))
    return weights / xp.sum(weights)


def effective_size(p) -> float:
    """``2 ** H(p)`` in bits, zero weights ignored (uniform over K words gives K)."""
    xp = host().xp
    p = xp.asarray(p, dtype=xp.float64)
    p = p[p > 0]
    p = p / xp.sum(p)
    return float(2.0 ** (-xp.sum(p * xp.log2(p))))


def most_common(icf, k: int) -> list[int]:
    """Indices of the ``k`` lowest ICF scores, by a stable ascending sort."""
    xp = host().xp
    order = xp.argsort(xp.asarray(list(icf), dtype=xp.float64), stable=True)
    return [int(i) for i in order[:k]]
