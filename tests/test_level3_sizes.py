"""Level 3 at every candidate count: no ceiling hands big sets to level 2, the suggestion reports
its progress, and the faster search pieces behind it (the tree's pruned sweep kernel, the
array-backed state registry) change no value: they equal the kernels they replace bit for bit
and the plain-Python oracles."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from backends.kernels import registry
from backends.kernels import sweeps as ke
from backends.kernels import tree as tk
from backends.kernels import tree_sweep as ts
from fake_solver import install
from termo.engine.entropy import Sweeper
from termo.core.prior import prior_weights
from termo.engine.session import Session
from termo.engine.solver import Solver
from termo.interface.suggest import Advisor, Config, suggest

from solver_oracles import draw_sweep_case

KEYS = ["candidates", "word", "bits", "expected", "is_candidate", "reason", "alternatives"]
MUNDO_E = 2.1557780802907196  # tosar:BYBBB, 301 candidates (the reference's level 3 plays mundo)


def candidates_after(game, history):
    session = Session(game)
    session.replay(history)
    return list(session.candidates), session.turn


# ---------------------------------------------------------------- no ceiling


def test_cli_level3_above_the_old_ceiling_is_a_real_level3_search(game):
    from cli.app import app

    result = CliRunner().invoke(app, ["suggest", "tosar:BYBBB", "--level", "3", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == KEYS
    assert data["candidates"] == 301
    assert data["word"] == "mundo" and data["expected"] == MUNDO_E
    assert "level 2" not in data["reason"] and "ceiling" not in data["reason"]
    cands, turn = candidates_after(game, ["tosar:BYBBB"])
    direct = Solver(game, level=3).decide(cands, turn)
    assert direct.word == "mundo" and direct.choice.expected == MUNDO_E
    assert data["reason"] == direct.reason
    assert [a["word"] for a in data["alternatives"]] == [a.word for a in direct.alternatives]
    assert [a["expected"] for a in data["alternatives"]] == [a.expected for a in direct.alternatives]


def test_advisor_never_hands_a_set_to_level2_by_size(game, monkeypatch):
    calls = install(monkeypatch)
    advisor = Advisor(game, Config(level=3))
    for n in (3, 250, 251, 301, 1000, 5000, game.n_answers):
        decision = advisor.decide(list(range(n)), 2)
        assert decision.reason == "fake level 3"
    assert [c[1] for c in calls] == [3] * 7 and [c[2] for c in calls] == [3, 250, 251, 301, 1000, 5000, 6046]
    assert list(advisor._solvers) == [3]  # no level-2 solver was even built
    assert "ceiling" not in {f.name for f in dataclasses.fields(Config)}


def test_advisor_passes_progress_to_solvers_without_a_tree(game, monkeypatch):
    calls = install(monkeypatch)
    seen = []
    decision = Advisor(game, Config(level=3)).decide(list(range(400)), 2, progress=lambda d, t: seen.append((d, t)))
    assert decision.reason == "fake level 3" and calls == [("decide", 3, 400, 2)] and seen == []


# ---------------------------------------------------------------- progress


def test_progress_is_reported_during_a_level3_suggestion(game):
    seen = []
    data = suggest(game, ["tosar:BYBBB"], level=3, progress=lambda done, total: seen.append((done, total)))
    assert data["word"] == "mundo" and data["expected"] == MUNDO_E
    assert seen, "the level-3 search reported no progress"
    totals = {t for _, t in seen}
    assert len(totals) == 1 and seen[-1][0] == seen[-1][1]  # one total, reached at the end
    dones = [d for d, _ in seen]
    assert dones == sorted(dones) and 0 <= dones[0]


def test_reporting_routes_and_restores_the_default_progress(game):
    advisor = Advisor(game, Config(level=3))
    cands, turn = candidates_after(game, ["tarso:BBBBB", "filme:BBBYY"])  # 12 candidates
    seen = []
    plain = advisor.decide(cands, turn)
    with_progress = advisor.decide(cands, turn, progress=lambda d, t: seen.append((d, t)))
    assert seen and with_progress == plain
    assert advisor.solver().tree.progress is None  # restored after the decision


# ---------------------------------------------------------------- the tree's sweep kernel


def random_states(rng, n_answers, sizes):
    sets = [np.sort(rng.choice(n_answers, m, replace=False)).astype(np.int64) for m in sizes]
    offsets = np.concatenate([[0], np.cumsum([s.shape[0] for s in sets])]).astype(np.int64)
    return np.concatenate(sets), offsets


def similar_states(rng, matrix_t, n_answers, count):
    """Children-like states: the members of one bucket of a random probe over a random set (the
    tree sweeps such look-alike words, where many probes split them the same way)."""
    out = []
    while len(out) < count:
        base = rng.choice(n_answers, 400, replace=False)
        codes = matrix_t[base, rng.integers(matrix_t.shape[1])]
        for c in np.unique(codes):
            bucket = np.sort(base[codes == c])
            if bucket.shape[0] >= 3:
                out.append(bucket.astype(np.int64))
    offsets = np.concatenate([[0], np.cumsum([s.shape[0] for s in out])]).astype(np.int64)
    return np.concatenate(out), offsets


def priors(game):
    open_world = prior_weights(game.icf, 1.0).copy()
    open_world[::3] = 0.0  # an open world: some answers can never be the secret
    return {"T=1": prior_weights(game.icf, 1.0), "T=0.5": prior_weights(game.icf, 0.5),
            "T=inf": prior_weights(game.icf, math.inf), "open": open_world}


@pytest.mark.parametrize("name", ["T=1", "T=0.5", "T=inf", "open"])
def test_tree_sweep_equals_the_entropy_kernel_bit_for_bit(game, name):
    prior = priors(game)[name]
    sweeper = Sweeper(game, prior)
    mt = sweeper.matrix_t
    rng = np.random.default_rng(11)
    sizes = [1, 2, 3, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 17, 22, 23, 30, 45, 64, 100, 200, 400, 513, 700]
    for members, offsets in (random_states(rng, game.n_answers, sizes),
                             similar_states(rng, mt, game.n_answers, 120)):
        ids = np.arange(offsets.shape[0] - 1, dtype=np.int64)
        for k in (1, 3, 10, 11):
            want = ke.sweep_top_k(mt, members, offsets, ids, prior, sweeper.probe_prior, k, game.n_patterns)
            got = ts.sweep_top_k(mt, members, offsets, ids, prior, sweeper.probe_prior, k, game.n_patterns)
            assert np.array_equal(got[0], want[0]), (name, k)
            assert np.array_equal(got[1], want[1]), (name, k)  # the same float64 bits


def test_tree_sweep_on_all_zero_weights(game):
    prior = np.zeros(game.n_answers)
    prior[:10] = 1.0  # states far from the first ten answers weigh nothing: uniform weights
    sweeper = Sweeper(game, prior)
    members, offsets = random_states(np.random.default_rng(2), game.n_answers - 10, [3, 7, 15, 40])
    members = members + 10
    ids = np.arange(4, dtype=np.int64)
    for k in (1, 10):
        want = ke.sweep_top_k(sweeper.matrix_t, members, offsets, ids, prior, sweeper.probe_prior, k, 243)
        got = ts.sweep_top_k(sweeper.matrix_t, members, offsets, ids, prior, sweeper.probe_prior, k, 243)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_tree_sweep_is_the_plain_python_oracle_order(data):
    case = draw_sweep_case(data, min_size=3)
    s = case.sweeper
    idx, ent = ts.sweep_top_k(s.matrix_t, case.members, np.asarray([0, len(case.cands)]), np.asarray([0]), case.prior,
                              s.probe_prior, case.k, case.game.n_patterns)
    want = case.oracle_order()
    assert idx[0][: len(want)].tolist() == want
    assert np.allclose(ent[0][: len(want)], case.oracle_entropies(want), rtol=0, atol=1e-12)


def test_merge_loss_is_a_lower_bound_of_the_entropy_lost():
    def phi(x):
        return -x * math.log2(x) if x > 0 else 0.0

    for x in np.linspace(0.0, 1.0, 2001):
        h2 = phi(x) + phi(1.0 - x)
        assert h2 >= 4.0 * x * (1.0 - x) - 1e-15
    rng = np.random.default_rng(4)
    pairs = [(0.0, 0.0), (0.0, 0.3), (0.3, 0.0), (1e-300, 0.5), (0.5, 1e-300), (1e-12, 1e-12)]
    pairs += [tuple(rng.random(2) * 10.0 ** rng.integers(-12, 0, 2)) for _ in range(2000)]
    for big, w in pairs:
        lost = phi(big) + phi(w) - phi(big + w)
        for bound in (ts._merge_loss(big, w), ts._merge_loss.py_func(big, w)):
            assert 0.0 <= bound <= lost + 1e-15


def test_the_tree_search_gives_the_same_costs_with_either_sweeper(game):
    """End to end: the root costs of real states with the tree's kernel equal those with the
    solver's own sweeper (NumPy), float for float."""
    from termo.engine.tree_search import PairJob

    histories = [["tosar:BYBBB"], ["tarso:BBBBB"], ["tarso:BBGBB"], ["tarso:BBBBB", "filme:BBBYY"]]
    results = {}
    for host_sweeps in (True, False):
        solver = Solver(game, level=3)
        solver.tree.host_sweeps = host_sweeps
        out = []
        for history in histories:
            cands, turn = candidates_after(game, history)
            sid = int(solver.tree.register([cands])[0])
            job = PairJob(sid, solver.tree.beam_of(sid, 1), 7 - turn, 1)
            solver.tree.run([job])
            out.append(list(zip(job.guesses, job.costs)))
        results[host_sweeps] = out
    assert results[True] == results[False]
    assert Solver(game, level=3).tree.host_sweeps  # the NumPy sweeper: the tree's kernel is used


def test_tree_search_keeps_the_sweeper_on_other_backends(game):
    class Other:
        backend = type("B", (), {"name": "jax"})()

        def sweep(self, members, offsets, state_ids, k):  # pragma: no cover - never called here
            raise AssertionError

    from termo.engine.tree_search import TreeSearch

    sweeper = Sweeper(game, prior_weights(game.icf, 1.0))
    assert TreeSearch(sweeper.matrix_t, sweeper.prior, sweeper.probe_prior, 242, sweeper=sweeper.sweep).host_sweeps
    assert not TreeSearch(sweeper.matrix_t, sweeper.prior, sweeper.probe_prior, 242, sweeper=Other().sweep).host_sweeps


# ---------------------------------------------------------------- the array-backed registry


def test_state_and_node_registries_match_a_dictionary():
    rng = np.random.default_rng(9)
    table = registry.IdTable(capacity=16)  # grows many times below
    store_m = np.zeros(0, np.int64)
    store_off = np.zeros(1, np.int64)
    reference: dict[tuple, int] = {}
    for batch in range(6):
        lists = [tuple(sorted(rng.choice(40, rng.integers(1, 5), replace=False).tolist())) for _ in range(700)]
        cand_m = np.concatenate([np.asarray(c, np.int64) for c in lists])
        cand_off = np.concatenate([[0], np.cumsum([len(c) for c in lists])]).astype(np.int64)
        ids = np.empty(len(lists), np.int64)
        n_old = store_off.shape[0] - 1
        firsts = registry.register_states(table, store_m, store_off, n_old, cand_m, cand_off, ids, 2)
        for c, sid in zip(lists, ids.tolist()):
            if len(c) < 2:
                assert sid == -1
                continue
            reference.setdefault(c, len(reference))
            assert reference[c] == sid
        new_m, new_sizes = tk.gather_segments(cand_m, cand_off, firsts)
        store_m = np.concatenate([store_m, new_m])
        store_off = np.concatenate([store_off, store_off[-1] + np.cumsum(new_sizes)])
        assert len(table) == len(reference) == store_off.shape[0] - 1
    nodes = registry.IdTable(capacity=16)
    seen: dict[tuple, int] = {}
    for batch in range(4):
        states = rng.integers(-1, 300, 900)
        rests = rng.integers(0, 3, 900)
        out, firsts = registry.register_nodes(nodes, len(seen), states, rests)
        for i, (s, r) in enumerate(zip(states.tolist(), rests.tolist())):
            if s < 0:
                assert out[i] == -1
                continue
            seen.setdefault((s, r), len(seen))
            assert out[i] == seen[(s, r)]
        assert len(nodes) == len(seen)
