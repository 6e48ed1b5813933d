"""Effective size, T(M), the scale table, the collapse test and the empirical floor (docs/rules.md §8, §10)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from termo.core.errors import TermoError
from termo.robustness.scale import (
    collapse_test,
    empirical_floor,
    family_prior,
    scale_table,
    size_at,
    temperature_for,
)


def test_temperature_for_targets(game):
    expected = {300: 0.854, 600: 1.132, 1200: 1.564, 2400: 2.353, 4800: 5.193}
    for target, t in expected.items():
        got = temperature_for(game.icf, target)
        assert round(got, 3) == t
        assert abs(size_at(game.icf, got) / target - 1) < 1e-3
    assert temperature_for(game.icf, 6046) == math.inf
    assert temperature_for(game.icf, 10_000) == math.inf


def test_temperature_for_rejects_tiny_target(game):
    with pytest.raises(TermoError):
        temperature_for(game.icf, 1.0)


def test_scale_table(game):
    rows = scale_table(game.icf)
    assert [r["T"] for r in rows] == [0.25, 0.5, 1.0, 2.0, 4.0, math.inf]
    assert [round(r["M"], 1) for r in rows] == [7.7, 60.6, 447.0, 1872.2, 4149.0, 6046.0]


def test_family_prior_cut(game):
    p = family_prior(game.icf, 100, math.inf)
    assert np.count_nonzero(p) == 100
    assert abs(p.sum() - 1) < 1e-12
    assert abs(size_at(game.icf, math.inf, 100) - 100) < 1e-9
    order = np.argsort(np.asarray(game.icf), kind="stable")
    assert set(np.flatnonzero(p).tolist()) == set(order[:100].tolist())


def test_collapse(game):
    from termo.engine.matrix import pattern_matrix

    result = collapse_test(np.asarray(pattern_matrix(game)), game.icf)
    assert result["collapses"]
    assert [game.probes[r["opener"]] for r in result["rows"]] == ["tirão"] * 3
    assert result["gap"] == 0.0
    assert [round(r["T"], 3) for r in result["rows"]] == [1.564, 1.644, 2.496]


def test_empirical_floor(game):
    order = np.argsort(np.asarray(game.icf), kind="stable")
    rare = game.answers[order[999]]
    floor = empirical_floor(game.answers, game.icf, [game.answers[order[0]], rare, "xxxxx", "", "# comment"])
    assert floor == {"rank": 1000, "word": rare, "count": 3, "missing": ["xxxxx"]}
    assert empirical_floor(game.answers, game.icf, []) is None
