"""The word-frequency prior ``softmax(-ICF/T)`` over the answers (rules §2.5), on the host in float64.

Every positive T has its own prior. The formula of §2.5 (``exp(x − max x)`` normalised, ``x =
−score/T``) is used wherever it is finite, so every published number keeps its bits; when it is
not (below T ≈ 1e-306 ``−score/T`` overflows to ``−inf`` and the formula gives NaN) the prior
is its *stable form* ``exp(−(score − min score)/T)`` normalised: the exponent is never positive,
an infinite one gives exactly 0, so the lowest scores share the mass (the T → 0 limit) and no
floating-point warning is raised. A T that parses to 0.0 (``1e-400``) cannot be represented and
is rejected.

A candidate set whose mass under the global prior is tiny (at most :data:`REBASE_MASS`) gets the
prior re-based on it (:func:`rebased_prior`); `termo.engine.solver.Solver` does that for its decisions.

:class:`Prior` is the prior as one value: its weights (those of :func:`prior_weights`, bit for bit),
its T (validated once, when the value is made), how it was computed, the cache-key segment the
caches write for it (:attr:`Prior.key`) and its label / display forms (:func:`t_label`,
:func:`t_display`: the one place ``inf`` / ``∞`` is spelled). One question makes it once: a solver
(`Solver.answer_prior`), a world (`World.answer_prior`) or a tree build passes it down, and the
places that need the prior at a T take it through :meth:`Prior.at` (the value passed, else built).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

from backends import host
from termo.core.errors import TermoError

_INFINITY_WORDS = {"inf", "+inf", "infinity", "infinito", "∞", "uniform"}

# Re-base a set's prior when its global mass is at most this. Weights that lost precision in the
# global softmax are the subnormal ones (below 2.2e-308, absolute error at most 2^-1075 each) and
# those that underflowed to 0 (true value below 2^-1075 each): over fewer than 2^20 answers that
# is under 2^-1054 ≈ 5e-318 of mass in all. Above 1e-290 the error is below 5e-28 of the set's
# mass, ~10^11 times under float64's resolution of the normalised weights (2^-53 ≈ 1.1e-16), so
# the set's weights, entropies and costs are already what exact weights give and are left alone
# (bit for bit as ever); 18 orders of headroom above the subnormal range. On Termo no set reaches
# it for T ≥ 0.025 (the ICF range is 16.5, and ln 1e-290 ≈ −668): no published T re-bases.
REBASE_MASS = 1e-290


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
            raise TermoError(f"temperature {text!r} is not a number (use e.g. 1, 0.5 or inf)", "temperature.not_number",
                             {"text": text}) from None
        if value == 0.0 and _positive_text(text):
            raise TermoError(f"temperature {text.strip()} is below the smallest positive number a float64 holds "
                             f"(5e-324), so it would be 0; use a T of at least 5e-324", "temperature.underflow",
                             {"text": text.strip()})
    check_temperature(value)
    return value


def _positive_text(text: str) -> bool:
    """Does ``text`` spell a number above 0 (exactly, before rounding to float64)?"""
    from decimal import Decimal, InvalidOperation  # only for a T that parsed to 0.0

    try:
        return Decimal(text.strip()) > 0
    except (InvalidOperation, ValueError):
        return False


def check_temperature(t: float) -> None:
    if math.isnan(t) or t <= 0:
        raise TermoError(f"temperature must be positive (or inf for a uniform prior), got {t}",
                         "temperature.positive", {"value": t})


def _scores(icf):
    xp = host().xp
    return xp.asarray(list(icf) if not hasattr(icf, "shape") else icf, dtype=xp.float64)


def _stable(scores, t: float):
    """``exp(−(s − min s)/t)`` normalised (non-positive exponents; ``−inf`` gives 0 exactly)."""
    import numpy  # errstate only: no array work

    xp = host().xp
    with numpy.errstate(all="ignore"):
        weights = xp.exp(-((scores - xp.min(scores)) / t))
        return weights / xp.sum(weights)


def weights_and_form(icf, t: float = 1.0):
    """``(prior, form)``: the prior of :func:`prior_weights` and how it was computed:
    ``"uniform"`` (T = ∞), ``"softmax"`` (the formula of §2.5) or ``"stable"`` (its stable form,
    where the formula is not finite)."""
    check_temperature(t)
    return _weights_and_form(icf, t)


def _weights_and_form(icf, t: float):
    """:func:`weights_and_form` for a ``t`` already checked."""
    import numpy  # errstate only: no array work

    xp = host().xp
    scores = _scores(icf)
    n = scores.shape[0]
    if math.isinf(t):
        return xp.full((n,), 1.0 / n, dtype=xp.float64), "uniform"
    with numpy.errstate(all="ignore"):
        logits = -scores / t
        weights = xp.exp(logits - xp.max(logits))
        p = weights / xp.sum(weights)
    if bool(xp.all(xp.isfinite(p))):
        return p, "softmax"
    return _stable(scores, t), "stable"


def prior_weights(icf, t: float = 1.0):
    """``softmax(-icf / t)`` as float64 (host array); ``t = inf`` gives exactly ``1/n``; the
    stable form where the formula overflows (see the module doc), never NaN, never a warning."""
    return weights_and_form(icf, t)[0]


def t_label(t: float) -> str:
    """T as labels and file names write it: ``inf``, else ``{t:g}`` (``0.5``, ``1``)."""
    return "inf" if math.isinf(t) else f"{t:g}"


def t_display(t: float) -> str:
    """T as tables show it: ``∞``, else ``{t:g}``."""
    return "∞" if math.isinf(t) else f"{t:g}"


def t_key(t: float) -> str:
    """T as cache keys write it: ``repr(float(t))`` (``1.0``, ``0.5``, ``inf``), exact to the bit."""
    return repr(float(t))


@dataclass(frozen=True, eq=False)
class Prior:
    """The answers' prior as one value.

    ``weights``: host float64, one per answer (treat as read-only); ``t``: the temperature it was
    made at (None for a custom prior); ``form``: ``"uniform"`` / ``"softmax"`` / ``"stable"``
    (see :func:`weights_and_form`) or ``"custom"``. Make one with :meth:`from_icf` (T checked
    there, once) or :meth:`custom`."""

    weights: Any
    t: float | None
    form: str

    @classmethod
    def from_icf(cls, icf, t: float | str = 1.0) -> "Prior":
        """``softmax(−icf/t)`` (the weights of :func:`prior_weights`, bit for bit); ``t`` may be
        text (:func:`parse_temperature`). TermoError for a T that is not positive."""
        if isinstance(t, str):
            t = parse_temperature(t)  # checks it
        else:
            check_temperature(t)
        weights, form = _weights_and_form(icf, t)
        return cls(weights, float(t), form)

    @classmethod
    def at(cls, icf, t: float | str, known: "Prior | None" = None) -> "Prior":
        """The prior ``softmax(−icf/t)`` of a question: ``known``, the one value a caller made
        and passed down (it vouches for the same ``icf``), when it was made at this T, so it is
        not built twice; else :meth:`from_icf` (T checked there)."""
        if known is not None and known.t is not None and not isinstance(t, str) and known.t == float(t):
            return known
        return cls.from_icf(icf, t)

    @classmethod
    def custom(cls, weights) -> "Prior":
        """Weights given by the caller (float64 on the host)."""
        xp = host().xp
        return cls(xp.asarray(weights, dtype=xp.float64), None, "custom")

    @property
    def stable(self) -> bool:
        """Is it the stable form of the prior (T below ~1e-306), not §2.5's formula?"""
        return self.form == "stable"

    @property
    def key(self) -> str:
        """The prior's segment of a cache key: ``T={t!r}`` (``/stable`` appended for the stable
        form), or ``prior=`` and the first 16 hex digits of the sha256 of a custom prior's bytes."""
        if self.t is None:
            return "prior=" + hashlib.sha256(self.weights.tobytes()).hexdigest()[:16]
        return f"T={t_key(self.t)}" + ("/stable" if self.stable else "")

    @property
    def label(self) -> str:
        """``T=`` and :func:`t_label` (``T=inf``, ``T=0.5``), or ``custom prior``."""
        return "custom prior" if self.t is None else f"T={t_label(self.t)}"

    @property
    def display(self) -> str:
        """``T=`` and :func:`t_display` (``T=∞``, ``T=0.5``), or ``custom prior``."""
        return "custom prior" if self.t is None else f"T={t_display(self.t)}"


def rebased_prior(icf, t: float, members):
    """The prior re-based on the set ``members``: ``softmax(−icf/t)`` restricted to it and
    normalised there, in the stable form (so its mass is 1 whatever the global prior gives the
    set); zeros outside. ``t = inf``: uniform over ``members``."""
    check_temperature(t)
    xp = host().xp
    scores = _scores(icf)
    idx = xp.asarray(sorted({int(m) for m in members}), dtype=xp.int64)
    if idx.shape[0] == 0:
        raise TermoError("no candidate left")
    out = xp.zeros(scores.shape, dtype=xp.float64)
    if math.isinf(t):
        out[idx] = 1.0 / idx.shape[0]
        return out
    out[idx] = _stable(xp.take(scores, idx), t)
    return out


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
