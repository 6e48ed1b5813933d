"""The bracket of a whole two-board game from an opener (`termo.engine.multi.bracket`) against the
brute-force optimum of the real game (distinct answers, tests/multi_oracles.py) on tiny games: the
lower bound is at most the optimum, the upper bound at least it; checkpoints resume bit for bit;
the command's text, JSON and bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from multi_oracles import brute_force_game, brute_force_pairs, distinct_pairs
from solver_oracles import tiny_game
from termo.engine.multi import bracket
from termo.engine.multi.level2 import MultiSolver
from termo.games.mode import Mode

TOL = 1e-12


def _uniform(game):
    from dataclasses import replace

    return replace(game, name=game.name + "-uniform", icf=tuple(0.0 for _ in game.icf))


CASES = [
    ("weighted", lambda: tiny_game(12, 6, step=173, offset=11), 4, 0),
    ("uniform", lambda: _uniform(tiny_game(12, 6, step=211, offset=5)), 4, 3),
    ("short", lambda: tiny_game(12, 6, step=97, offset=2), 3, 5),  # losses: three turns for two boards
    ("extra-opener", lambda: tiny_game(12, 6, step=173, offset=11), 4, 13),  # an opener no answer
]


@pytest.mark.parametrize("name, make, turns, opener", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("budget", [0, 1, 10_000])
def test_the_bracket_holds_the_brute_force_optimum(name, make, turns, opener, budget):
    game = make()
    mode = Mode(game, 2, turns, key=f"{game.name}-x2-{turns}")
    prior = [float(x) for x in MultiSolver(mode).stats.prior]
    want = brute_force_game(game, prior, opener, turns)
    out = bracket.bracket_game(mode, opener, budget=budget, chunk=7)
    assert out["lower"] <= want + TOL
    assert want <= out["upper"] + TOL
    assert out["items_settled"] == out["items"] and out["gap"] >= 0
    assert math.isfinite(out["lower"]) and math.isfinite(out["upper"])
    if budget == 10_000:
        assert out["items_proved"] >= out["items"] - sum(1 for _ in _pair_items(mode, opener))


@pytest.mark.parametrize("name, make, turns, opener", CASES[:3], ids=[c[0] for c in CASES[:3]])
@pytest.mark.parametrize("budget", [0, 10_000])
def test_a_pair_inside_one_set_is_bracketed(name, make, turns, opener, budget):
    """`pair_bracket` (both answers in one of the opener's sets, distinct): its lower bound (the
    count of solving turns, the revealed answer, the relaxed product S × S) and its upper bound (a
    strategy's exact value) hold the brute-force optimum of the distinct pairs, every round count
    (sets larger than the tiny games' buckets: a part of the answers, every answer)."""
    game = make()
    mode = Mode(game, 2, turns, key=f"{game.name}-pairs-{turns}")
    prior = [float(x) for x in MultiSolver(mode).stats.prior]
    value, _ = brute_force_pairs(game, prior, turns)
    ctx = bracket._context(bracket.spec_of(mode, opener, budget=budget), mode)
    n = game.n_answers
    for S in (np.arange(5), np.arange(0, n, 2), np.arange(n)):
        for r in range(1, turns):
            want = value(distinct_pairs([int(a) for a in S]), (False, False), r)
            lo, up = bracket.pair_bracket(ctx, S, r, budget)
            assert lo <= want + TOL and want <= up + TOL and lo <= up


def _pair_items(mode, opener):
    spec = bracket.spec_of(mode, opener)
    ctx = bracket._context(spec, mode)
    for item_id, _, _ in bracket.items_of(ctx):
        i, j = divmod(item_id, bracket.ITEM)
        if i == j:
            yield item_id


def test_the_items_weigh_every_ordered_pair_of_distinct_answers():
    game = tiny_game(12, 6, step=173, offset=11)
    mode = Mode(game, 2, 4, key="tiny-weights")
    ctx = bracket._context(bracket.spec_of(mode, 0), mode)
    items = bracket.items_of(ctx)
    assert abs(sum(w for _, w, _ in items) - 1.0) < 1e-12
    assert sum(size for _, _, size in items) <= game.n_answers ** 2


def test_checkpoints_resume_to_the_same_bracket(tmp_path):
    game = tiny_game(12, 6, step=173, offset=11)
    mode = Mode(game, 2, 4, key="tiny-resume")
    store = bracket.bracket_store(tmp_path)
    first = bracket.bracket_game(mode, 0, budget=5, chunk=5, store=store)
    info: dict = {}
    again = bracket.bracket_game(mode, 0, budget=5, chunk=5, store=bracket.bracket_store(tmp_path), info=info)
    assert info["computed"] == 0 and info["resumed"] == first["chunks"]
    assert _values(first) == _values(again)
    status = bracket.bracket_game(mode, 0, budget=5, chunk=5, store=bracket.bracket_store(tmp_path), compute=False)
    assert status["lower"] == first["lower"] and status["upper"] == first["upper"]
    empty = bracket.bracket_game(mode, 0, budget=5, chunk=5, store=bracket.bracket_store(tmp_path / "none"),
                                 compute=False)
    assert empty["lower"] <= first["lower"] and empty["upper"] >= first["upper"] and empty["chunks_missing"] > 0
    assert empty["settled"] == {"weight": 0.0, "lower": None, "upper": None}
    part = first["settled"]
    assert abs(part["weight"] - 1.0) < 1e-12
    assert abs(part["lower"] - first["lower"]) < 1e-9 and abs(part["upper"] - first["upper"]) < 1e-9


def test_the_bracket_runs_on_dask_workers_to_the_same_values(tmp_path):
    """The chunks shipped to a Dask worker (`termo.core.executors.DaskExecutor`, as `--workers` and
    `--scheduler` do) come back with the values this process computes. The worker is a thread of
    this process (one, one thread: a process's search context is not shared between threads), so
    it finds the tiny mode the registry does not know."""
    distributed = pytest.importorskip("distributed")
    from termo.core.executors import DaskExecutor

    game = tiny_game(12, 6, step=173, offset=11)
    mode = Mode(game, 2, 4, key="tiny-dask")
    here = bracket.bracket_game(mode, 0, budget=5, chunk=5, store=bracket.bracket_store(tmp_path / "here"))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        executor = DaskExecutor(cluster.scheduler_address, worker_timeout=600)
        try:
            there = bracket.bracket_game(mode, 0, budget=5, chunk=5, store=bracket.bracket_store(tmp_path / "there"),
                                         executor=executor)
        finally:
            executor.close()
    assert there["chunks"] == here["chunks"] > 1 and executor.delivered == here["chunks"]
    assert _values(there) == _values(here)


def _values(out: dict) -> str:
    return json.dumps({k: v for k, v in out.items() if not k.startswith("chunks_")}, sort_keys=True)


def test_a_rejected_checkpoint_is_recomputed(tmp_path):
    game = tiny_game(12, 6, step=173, offset=11)
    mode = Mode(game, 2, 4, key="tiny-reject")
    first = bracket.bracket_game(mode, 0, budget=5, chunk=5, store=bracket.bracket_store(tmp_path))
    victim = sorted(tmp_path.glob("*.json"))[0]
    victim.write_text(victim.read_text().replace('"values"', '"valuez"'))
    lines: list = []
    again = bracket.bracket_game(mode, 0, budget=5, chunk=5, store=bracket.bracket_store(tmp_path), warn=lines.append)
    assert lines and "rejected" in lines[0]
    assert again["lower"] == first["lower"] and again["upper"] == first["upper"]


@pytest.mark.parametrize("args", [["--game", "quordle", "--opener", "salet", "--bracket"],
                                  ["--game", "dordle", "--bracket"],
                                  ["--game", "dordle", "--opener", "zzzzz", "--bracket"],
                                  ["--game", "dordle", "--opener", "salet", "--bracket", "--objective", "score"],
                                  ["--game", "dordle", "--opener", "salet"],
                                  ["--game", "wordle", "--opener", "salet", "--bracket"],
                                  ["--game", "dordle", "--opener", "salet", "--bracket", "--chunk", "0"],
                                  ["--game", "dordle", "--opener", "salet", "--bracket", "--nodes", "-1"]])
def test_cli_bad_input(capsys, tmp_path, args):
    from cli.app import main

    code = main(["optimal", *args, "--checkpoint-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "Traceback" not in err
