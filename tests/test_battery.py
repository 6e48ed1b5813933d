"""Batteries (docs/rules.md §7.2) and the published strategy numbers (docs/rules.md §10)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from termo.analysis.battery import battery_secrets, run_battery, summarize
from termo.analysis.lockstep import LockstepResult
from termo.core.errors import TermoError

from engine_marks import needs_engine


# --- secrets -------------------------------------------------------------------------------------
def test_realistic_battery_is_the_1500_commonest_in_index_order(game):
    secrets = battery_secrets(game, "realistic")
    icf = np.asarray(game.icf)
    assert len(secrets) == 1500 and secrets == sorted(secrets)
    assert secrets == sorted(np.argsort(icf, kind="stable")[:1500].tolist())
    assert game.answers[secrets[0]] != "" and game.index_of("muito") in secrets
    assert battery_secrets(game, "realistic", 60) == sorted(np.argsort(icf, kind="stable")[:60].tolist())
    assert battery_secrets(game, "level3") == battery_secrets(game, "realistic", 300)


@pytest.mark.parametrize("n", [1, 2, 7, 60, 1000, 6045])
def test_full_battery_is_a_truncated_linspace(game, n):
    expected = np.linspace(0, game.n_answers - 1, n).astype(int).tolist()
    assert battery_secrets(game, "full", n) == expected


def test_full_battery_default_is_every_answer(game):
    assert battery_secrets(game, "full") == list(range(game.n_answers))
    assert battery_secrets(game, "full", 10_000) == list(range(game.n_answers))


def test_bad_battery_requests(game):
    with pytest.raises(TermoError):
        battery_secrets(game, "nope")
    with pytest.raises(TermoError):
        battery_secrets(game, "realistic", 0)


# --- metrics -------------------------------------------------------------------------------------
def test_summary_metrics(game):
    result = LockstepResult(secrets=[0, 1, 2, 3], solved_turn=[1, 3, 0, 6], max_turns=6, seconds=2.0,
                            decisions_per_turn=[1, 2], first_guess=5)
    row = summarize(result, game, "entropy")
    assert row["games"] == 4
    assert row["mean"] == pytest.approx((1 + 3 + 6) / 3)
    assert row["penalised_mean"] == pytest.approx((1 + 3 + 7 + 6) / 4)
    assert row["win_rate"] == 0.75
    assert row["histogram"] == [1, 0, 1, 0, 0, 1]
    assert row["lost"] == [game.answers[2]]
    assert row["solved_last_turn"] == [game.answers[3]]
    assert row["seconds_per_game"] == 0.5
    assert row["first_guess"] == game.probes[5]
    json.dumps(row)  # plain data


# --- published numbers (docs/rules.md §10) ------------------------------------------------------------------
def _check(row, mean, penalised, win_rate, histogram=None):
    assert round(row["mean"], 3) == mean
    assert round(row["penalised_mean"], 3) == penalised
    assert round(100 * row["win_rate"], 1) == win_rate
    if histogram is not None:
        assert row["histogram"] == histogram


def test_random_strategy_realistic_battery():
    (row,) = run_battery(["random"], "realistic")
    _check(row, 4.269, 4.505, 91.3)
    assert row["first_guess"] is not None


@needs_engine
def test_baselines_realistic_battery():
    likely, letters = run_battery(["likely", "letters"], "realistic")
    _check(likely, 3.707, 3.740, 99.0)
    _check(letters, 4.171, 4.371, 92.9)
    assert letters["first_guess"] == "oreia"


@needs_engine
def test_entropy_realistic_battery():
    (row,) = run_battery(["entropy"], "realistic")
    assert round(row["mean"], 4) == 3.5807 and round(row["penalised_mean"], 4) == 3.5807
    assert row["win_rate"] == 1.0
    assert row["histogram"] == [1, 24, 664, 725, 86, 0]
    assert row["first_guess"] == "tarso"


@needs_engine
@pytest.mark.slow
def test_entropy_full_battery():
    (row,) = run_battery(["entropy"], "full")
    assert round(row["mean"], 4) == 3.9464 and round(row["penalised_mean"], 4) == 3.9570
    assert len(row["lost"]) == 21
    assert row["histogram"] == [1, 56, 1560, 3150, 1164, 94]


@needs_engine
@pytest.mark.slow  # ~100 s: the engine's JAX sweeps compile per state size
def test_same_battery_numbers_on_numpy_and_jax():
    pytest.importorskip("jax")
    names = ["random", "letters", "likely", "entropy"]
    ref = run_battery(names, "realistic", n=60, backend="numpy")
    got = run_battery(names, "realistic", n=60, backend="jax")
    keys = ("games", "mean", "penalised_mean", "win_rate", "histogram", "lost", "solved_last_turn", "first_guess")
    for a, b in zip(ref, got):
        assert {k: a[k] for k in keys} == {k: b[k] for k in keys}


@needs_engine
@pytest.mark.slow
def test_level3_battery_runs_and_beats_level2():
    l2, l3 = run_battery(["entropy", "level3"], "level3")
    assert l3["games"] == 300 and l3["first_guess"] == "tosar"
    assert l3["penalised_mean"] <= l2["penalised_mean"] + 0.05


@needs_engine
def test_level2_opener_cache(tmp_path, monkeypatch):
    from termo.analysis.opener_cache import entry_path, level2_opener
    from termo.analysis.strategies import make_solver
    from termo.analysis.worlds import full_world

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    solver = make_solver(full_world(t=1.0))
    path = entry_path(solver)  # one file per key
    path.parent.mkdir(parents=True)
    path.write_text("{not json")  # a corrupt cache counts as empty
    index = level2_opener(solver)
    assert solver.game.probes[index] == "tarso"
    data = json.loads(path.read_text())
    assert data["key"].startswith("game=termo;level=2;T=1.0;")
    data["value"]["word"] = "muito"  # a stale entry is ignored and rewritten
    path.write_text(json.dumps(data))
    assert level2_opener(solver) == index
    assert json.loads(path.read_text())["value"]["word"] == "tarso"
