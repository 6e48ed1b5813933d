"""The prior softmax(-ICF/T) of docs/rules.md §2.5."""

import math

import numpy as np
import pytest

from termo.core.errors import TermoError
from termo.core.prior import effective_size, most_common, parse_temperature, prior_weights


def test_effective_size_at_t1(game):
    assert round(effective_size(prior_weights(game.icf, 1.0)), 1) == 447.0


@pytest.mark.parametrize("t, m", [(0.25, 7.7), (0.5, 60.6), (2, 1872.2), (4, 4149.0)])
def test_scale_table(game, t, m):
    assert round(effective_size(prior_weights(game.icf, t)), 1) == m


def test_infinite_temperature_is_exactly_uniform(game):
    p = prior_weights(game.icf, math.inf)
    assert np.all(p == 1.0 / 6046)
    assert effective_size(p) == pytest.approx(6046)


def test_prior_sums_to_one_and_orders_by_icf(game):
    p = prior_weights(game.icf, 1.0)
    assert p.dtype == np.float64
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert int(np.argmax(p)) == game.answers.index("muito")


@pytest.mark.parametrize("bad", [0, -1, float("nan")])
def test_non_positive_temperature_is_rejected(bad):
    with pytest.raises(TermoError, match="positive"):
        prior_weights([1.0, 2.0], bad)


def test_parse_temperature():
    assert parse_temperature("inf") == math.inf
    assert parse_temperature("infinito") == math.inf
    assert parse_temperature("0.5") == 0.5
    with pytest.raises(TermoError, match="not a number"):
        parse_temperature("warm")
    with pytest.raises(TermoError, match="positive"):
        parse_temperature("-2")


def test_most_common_is_stable(game):
    top = most_common(game.icf, 3)
    assert game.answers[top[0]] == "muito"
    assert most_common([1.0, 0.5, 0.5, 2.0], 3) == [1, 2, 0]


@pytest.mark.parametrize("t", [0.25, 1.0, 1, 4.0, math.inf, 1e-320, "0.5", "inf"])
def test_prior_value_has_the_bits_of_prior_weights(game, t):
    from termo.core.prior import Prior, weights_and_form

    value = Prior.from_icf(game.icf, t)
    tf = parse_temperature(t) if isinstance(t, str) else t
    want, form = weights_and_form(game.icf, tf)
    assert value.weights.dtype == np.float64
    assert value.weights.tobytes() == want.tobytes()
    assert value.form == form and value.t == float(tf) and isinstance(value.t, float)


def test_prior_value_key_label_and_display(game):
    from termo.core.prior import Prior, t_display, t_key, t_label

    assert Prior.from_icf(game.icf, 1.0).key == "T=1.0"
    assert Prior.from_icf(game.icf, 1).key == "T=1.0"
    assert Prior.from_icf(game.icf, math.inf).key == "T=inf"
    assert Prior.from_icf(game.icf, 1e-320).key == "T=1e-320/stable"
    custom = Prior.custom([0.25, 0.75])
    assert custom.key == "prior=" + __import__("hashlib").sha256(np.array([0.25, 0.75]).tobytes()).hexdigest()[:16]
    assert (custom.t, custom.form, custom.label) == (None, "custom", "custom prior")
    assert Prior.from_icf(game.icf, 0.5).label == "T=0.5" and Prior.from_icf(game.icf, math.inf).label == "T=inf"
    assert Prior.from_icf(game.icf, math.inf).display == "T=∞"
    assert (t_label(2.0), t_label(math.inf), t_display(math.inf), t_key(0.3), t_key(math.inf)) == \
        ("2", "inf", "∞", "0.3", "inf")


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "-2", "warm"])
def test_prior_value_rejects_a_bad_temperature_like_prior_weights(bad):
    from termo.core.prior import Prior

    with pytest.raises(TermoError) as got:
        Prior.from_icf([1.0, 2.0], bad)
    with pytest.raises(TermoError) as want:
        prior_weights([1.0, 2.0], bad) if not isinstance(bad, str) else parse_temperature(bad)
    assert str(got.value) == str(want.value)


def test_prior_value_key_is_the_opener_cache_key_segment(game):
    from termo.book.openers import cache_key
    from termo.core.prior import Prior
    from termo.engine.solver import Solver

    for t in (1.0, 0.3, math.inf):
        assert f";{Prior.from_icf(game.icf, t).key};" in cache_key(Solver(game, level=3, t=t))
    p = Prior.from_icf(game.icf, 1.0).weights.copy()
    p[0] = 0.0
    assert f";{Prior.custom(p).key};" in cache_key(Solver(game, level=3, prior=p))


def test_prior_at_is_the_value_passed_when_made_at_that_t(game):
    """`Prior.at`: the one value a caller passed down, when it was made at the T asked; else the
    prior made there (the same bits), T still checked."""
    from termo.core.prior import Prior

    known = Prior.from_icf(game.icf, 1.0)
    assert Prior.at(game.icf, 1.0, known) is known
    other = Prior.at(game.icf, 0.5, known)
    assert other is not known and other.t == 0.5
    assert other.weights.tobytes() == Prior.from_icf(game.icf, 0.5).weights.tobytes()
    custom = Prior.custom(known.weights)
    assert Prior.at(game.icf, 1.0, custom) is not custom
    assert Prior.at(game.icf, 1.0, custom).weights.tobytes() == known.weights.tobytes()
    with pytest.raises(TermoError):
        Prior.at(game.icf, 0.0, known)


def count_builds(monkeypatch) -> list:
    """Every `Prior.from_icf` made from now on (the calls recorded, the values unchanged)."""
    from termo.core.prior import Prior

    made = []
    real = Prior.from_icf.__func__

    def counted(cls, icf, t=1.0):
        made.append(t)
        return real(cls, icf, t)

    monkeypatch.setattr(Prior, "from_icf", classmethod(counted))
    return made


def test_a_solver_takes_the_prior_it_is_passed(game, monkeypatch):
    """A Solver given the Prior of its T keeps that value (no second build) and is the solver
    made from T alone, bit for bit and key for key; a custom Prior is custom weights."""
    from termo.book.openers import cache_key
    from termo.core.prior import Prior
    from termo.engine.solver import Solver

    plain = Solver(game, level=3, t=0.5)
    made = count_builds(monkeypatch)
    passed = Solver(game, level=3, t=0.5, prior=plain.answer_prior)
    assert made == []
    assert passed.answer_prior is plain.answer_prior and not passed.custom_prior
    assert passed.prior.tobytes() == plain.prior.tobytes() and cache_key(passed) == cache_key(plain)
    p = plain.prior.copy()
    p[0] = 0.0
    custom = Solver(game, level=3, prior=Prior.custom(p))
    assert custom.custom_prior and cache_key(custom) == cache_key(Solver(game, level=3, prior=p))


@pytest.mark.parametrize("method", ["practical", "level3"])
def test_a_tree_build_makes_its_prior_once(method, monkeypatch):
    """A tree build makes the prior once: the builder's value is the one its evaluation reads."""
    from termo.games import get_game
    from termo.trees.build import build_tree

    mini = get_game("nerdle-mini")
    made = count_builds(monkeypatch)
    build_tree(mini, method, mini.default_opener)
    assert made == [1.0]


@pytest.mark.parametrize("name", ["likely", "entropy"])
def test_a_world_policy_makes_its_prior_once(name, monkeypatch):
    """A study's policy and the solver behind it share the world's one Prior."""
    from termo.analysis.strategies import build_policy
    from termo.worlds.world import World

    world = World(game="nerdle-mini", t=0.5)
    made = count_builds(monkeypatch)
    build_policy(name, world)
    assert made == [0.5]
