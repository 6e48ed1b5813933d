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
