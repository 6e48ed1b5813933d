"""Level 3 (docs/rules.md §6): the level-synchronous search equals a depth-first plain-Python recursion
bit for bit; published decisions; batching; every backend; the interpreted fallback."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from termo.core.prior import prior_weights
from termo.engine.solver import Solver

from solver_oracles import Level3Oracle, tiny_game
from transcripts import decide_after

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tiny():
    return tiny_game()


@pytest.mark.parametrize("beam,depth,t", [(10, 1, 1.0), (3, 1, 1.0), (2, 2, 1.0), (4, 0, math.inf), (10, 1, 0.5)])
def test_root_costs_equal_the_recursive_oracle_bit_for_bit(tiny, beam, depth, t):
    prior = prior_weights(tiny.icf, t)
    oracle = Level3Oracle(tiny, prior, beam=beam, depth=depth)
    solver = Solver(tiny, level=3, t=t, beam=beam, depth=depth)
    everything = list(range(tiny.n_answers))
    rng = np.random.default_rng(beam * 10 + depth)
    sets = [everything] + [sorted(rng.choice(tiny.n_answers, m, replace=False).tolist()) for m in (4, 9, 20, 35)]
    for cands in sets:
        for r in (1, 2, 3, 6):
            want = oracle.root_costs(tuple(cands), r)
            tree = solver.tree
            sid = int(tree.register([cands])[0])
            from termo.engine.tree_search import PairJob

            job = PairJob(sid, tree.beam_of(sid, 1), r, depth)
            tree.run([job])
            assert list(zip(job.guesses, job.costs)) == want
            assert solver.expected_value(cands, r) == oracle.value(tuple(cands), r, depth + 1)


def test_open_world_prior_with_zero_weights(tiny):
    prior = prior_weights(tiny.icf, 1.0).copy()
    prior[1::2] = 0.0
    oracle = Level3Oracle(tiny, prior)
    solver = Solver(tiny, level=3, prior=prior)
    cands = list(range(tiny.n_answers))
    assert solver.expected_value(cands, 6) == oracle.value(tuple(cands), 6, 2)
    zero = [c for c in cands if prior[c] == 0][:7]  # an all-zero set falls back to counts
    assert solver.expected_value(zero, 4) == oracle.value(tuple(zero), 4, 2)


def test_greedy_value_with_opener_is_the_imposed_guess_then_greedy(tiny):
    prior = prior_weights(tiny.icf, 1.0)
    oracle = Level3Oracle(tiny, prior)
    solver = Solver(tiny, level=3)
    cands = list(range(tiny.n_answers))
    probes = [0, 5, tiny.n_answers + 2]
    got = solver.greedy_values_with_openers(probes, cands, 6)
    assert got == [oracle.cost(p, cands, 5, 0) for p in probes]
    assert solver.greedy_value_with_opener(probes[1], cands, 6) == got[1]


def test_decide_uses_the_ranked_costs_and_delegates_small_sets(tiny):
    prior = prior_weights(tiny.icf, 1.0)
    oracle = Level3Oracle(tiny, prior)
    solver = Solver(tiny, level=3)
    cands = list(range(tiny.n_answers))
    d = solver.decide(cands, 1)
    ranked = sorted((c, i, g) for i, (g, c) in enumerate(oracle.root_costs(tuple(cands), 6)))
    assert d.index == ranked[0][2]
    assert d.choice.expected == ranked[0][0]
    assert [a.index for a in d.alternatives] == [g for _, _, g in ranked[1:6]]
    assert d.reason == f"lowest expected number of guesses ({ranked[0][0]:.3f})"
    two = cands[:2]
    d2 = solver.decide(two, 3)
    assert d2.reason == "only two candidates left: the more common one"
    assert d2.choice.expected == oracle.value(tuple(two), 4, 2)
    assert solver.decide(cands[:3], 5).reason.startswith("turn 5 with 3 candidates")
    assert solver.decide(cands[:9], 6).reason == "last turn: the most common candidate"


def test_decide_many_equals_decide(tiny):
    solver = Solver(tiny, level=3, beam=4)
    rng = np.random.default_rng(11)
    states = [sorted(rng.choice(tiny.n_answers, m, replace=False).tolist()) for m in (2, 3, 6, 14, 30, 60)]
    turns = [2, 5, 3, 2, 4, 1]
    fresh = Solver(tiny, level=3, beam=4)
    assert solver.decide_many(states, turns) == [fresh.decide(s, t).index for s, t in zip(states, turns)]


def test_every_backend_decides_and_values_alike(tiny, other_backend):
    ref = Solver(tiny, level=3, beam=3, backend="numpy")
    other = Solver(tiny, level=3, beam=3, backend=other_backend)
    cands = list(range(0, tiny.n_answers, 2))
    a, b = ref.decide(cands, 1), other.decide(cands, 1)
    assert (a.index, [x.index for x in a.alternatives]) == (b.index, [x.index for x in b.alternatives])
    assert a.choice.expected == b.choice.expected
    assert ref.expected_value(cands[:12], 4) == other.expected_value(cands[:12], 4)


def test_interpreted_fallback_gives_the_same_answer(tiny):
    """The kernels' standard-only fallback (numba disabled) on the tiny game."""
    script = (
        "import sys; sys.path[:0] = [{t!r}, {r!r}]\n"
        "from solver_oracles import tiny_game\n"
        "from termo.engine.solver import Solver\n"
        "g = tiny_game(); s = Solver(g, level=3, beam=3)\n"
        "d = s.decide(list(range(g.n_answers)), 1)\n"
        "print(d.index, repr(d.choice.expected))\n"
    ).format(t=str(ROOT / "tests"), r=str(ROOT))
    env = dict(os.environ, TERMO_NO_NUMBA="1")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    d = Solver(tiny, level=3, beam=3).decide(list(range(tiny.n_answers)), 1)
    assert out.stdout.split() == [str(d.index), repr(d.choice.expected)]


# --- the published transcript on the real game (docs/rules.md §10) ----------------------------------
@pytest.fixture(scope="module")
def s3(game):
    return Solver(game, level=3)


def test_transcript_tarso_bbbbb_then_filme(game, s3):
    c1, d = decide_after(game, s3, range(game.n_answers), "tarso", "BBBBB", size=223, turn=2)
    assert d.word == "filme"
    assert round(d.choice.expected, 3) == 1.886
    assert round(d.choice.bits, 2) == 3.53
    assert [a.word for a in d.alternatives[:3]] == ["cline", "linde", "lince"]
    _, d = decide_after(game, s3, c1, "filme", "BBBYY", size=12, turn=3)
    assert d.word == "nuvem"
    assert round(d.choice.expected, 3) == 1.414
    assert [a.word for a in d.alternatives[:3]] == ["bunda", "bundo", "jundu"]


def test_transcript_tarso_bbgbb_verde(game, s3):
    _, d = decide_after(game, s3, range(game.n_answers), "tarso", "BBGBB", size=51, turn=2)
    assert d.word == "verde"
    assert round(d.choice.bits, 3) == 1.831
    assert round(d.choice.expected, 3) == 1.433


def test_state_registry_verifies_members_on_hash_collisions():
    from backends.kernels import registry as tk

    store = np.asarray([1, 2, 3], dtype=np.int64)
    store_off = np.asarray([0, 3], dtype=np.int64)
    cand = np.asarray([4, 5, 1, 2, 3, 4, 5, 7], dtype=np.int64)
    cand_off = np.asarray([0, 2, 5, 7, 8], dtype=np.int64)
    for kernel in (tk._register_states, tk._register_states.py_func):  # compiled and interpreted
        table = tk.IdTable()
        table.put(int(tk._hash_members(store, 0, 3)), 0)  # state 0 = [1, 2, 3], properly registered
        # a forged entry: the hash of [4, 5] also points at state 0
        table.put(int(tk._hash_members(cand, 0, 2)), 0)
        ids = np.empty(4, dtype=np.int64)
        firsts = kernel(table.keys, table.ids, store, store_off, 1, cand, cand_off, ids, 2)
        assert ids.tolist() == [1, 0, 1, -1]  # [4,5] new despite the collision; [1,2,3] found; [7] too small
        assert firsts.tolist() == [0]


def test_tree_search_memo_is_reused_across_calls(tiny):
    solver = Solver(tiny, level=3)
    cands = list(range(tiny.n_answers))
    first = solver.expected_value(cands, 6)
    sweeps = solver.tree.sweeps
    assert solver.expected_value(cands, 6) == first
    assert solver.tree.sweeps == sweeps  # every sweep came from the memo
    assert solver.tree.register([cands, cands[:10], cands])[0] == solver.tree.register([cands])[0]


def test_value_edge_cases(tiny):
    from termo.core.errors import TermoError

    solver = Solver(tiny, level=3)
    cands = list(range(10))
    assert solver.expected_value(cands, 0) == 7.0  # no round left: the loss cost
    assert solver.expected_value(cands[:1], 3) == 1.0
    with pytest.raises(TermoError):
        solver.greedy_value_with_opener(0, cands, 0)
    with pytest.raises(TermoError):
        solver.greedy_value_with_opener(tiny.n_probes, cands, 3)
    with pytest.raises(TermoError):
        solver.decide([], 1)
    with pytest.raises(TermoError):
        Solver(tiny, level=4)
