"""Entropy kernels (docs/rules.md §5.1, §5.2): NumPy-exact sums, sweeps, top-k order, every backend."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.kernels import entropy as kern
from termo.engine.entropy import Sweeper
from termo.engine.ordering import full_order, top_k
from termo.core.prior import prior_weights

from solver_oracles import code_table, draw_sweep_case, entropy, tiny_game


@pytest.fixture(scope="module")
def tiny():
    game = tiny_game()
    return game, code_table(game), prior_weights(game.icf, 1.0)


def test_pairwise_sum_is_numpy_sum_bit_for_bit():
    rng = np.random.default_rng(7)
    for n in list(range(0, 300)) + [511, 1000, 4097, 6046]:
        a = rng.random(n) * 10.0 ** rng.integers(-6, 6, n)
        assert kern.pairwise_sum(a, 0, n) == a.sum()
        if n > 5:
            assert kern.pairwise_sum(a, 5, n - 5) == a[5:].sum()
    a = rng.random(300)
    assert kern.pairwise_sum.py_func(a, 0, 300) == a.sum()  # the interpreted fallback too


def test_published_entropies_bit_exact(game):
    s = Sweeper(game, prior_weights(game.icf, 1.0))
    h = s.entropies(list(range(game.n_answers)))
    assert h[game.index_of("tarso")] == 5.9748166899580495
    assert h[game.index_of("tosar")] == 5.906771015269017
    u = Sweeper(game, prior_weights(game.icf, math.inf)).entropies(list(range(game.n_answers)))
    assert u[game.index_of("cairo")] == 6.202837886904743
    assert s.entropy_of(game.index_of("tarso"), list(range(game.n_answers))) == 5.9748166899580495


def test_entropies_match_python_oracle(tiny):
    game, codes, prior = tiny
    s = Sweeper(game, prior)
    rng = np.random.default_rng(1)
    for m in (1, 2, 3, 7, 12, 13, 30, game.n_answers):
        cands = sorted(rng.choice(game.n_answers, m, replace=False).tolist())
        got = s.entropies(cands)
        want = [entropy(codes, prior, cands, g) for g in range(game.n_probes)]
        assert np.allclose(got, want, rtol=0, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_sweep_top_k_is_the_oracle_order(data):
    case = draw_sweep_case(data, min_size=2)
    idx, ent = case.sweeper.sweep(case.members, np.asarray([0, len(case.cands)]), np.asarray([0]), case.k)
    assert idx[0].tolist() == case.oracle_order()
    assert np.allclose(ent[0], case.oracle_entropies(idx[0]), atol=1e-12)


def test_batched_sweep_equals_single_sweeps(game):
    prior = prior_weights(game.icf, 1.0)
    s = Sweeper(game, prior)
    rng = np.random.default_rng(3)
    sets = [sorted(rng.choice(game.n_answers, m, replace=False).tolist()) for m in (3, 5, 9, 12, 14, 40, 120)]
    members = np.concatenate([np.asarray(c) for c in sets]).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in sets])]).astype(np.int64)
    idx, ent = s.sweep(members, offsets, np.arange(len(sets)), 10)
    for i, cands in enumerate(sets):
        h = s.entropies(cands)
        want = full_order(h, cands, s.probe_prior)[:10]
        assert idx[i].tolist() == want.tolist()
        assert np.allclose(ent[i], h[want], atol=1e-12)
        ti, th = top_k(h, cands, s.probe_prior, 10)
        assert ti.tolist() == want.tolist()


def test_full_order_tie_breaks():
    # equal rounded entropies: candidates first, then prior, then index
    h = np.asarray([1.0, 1.0 + 1e-12, 1.0, 0.5, 1.0])
    prior = np.asarray([0.1, 0.1, 0.3, 0.5, 0.0])
    assert full_order(h, [2, 4], prior).tolist() == [2, 4, 0, 1, 3]
    assert top_k(h, [2, 4], prior, 2)[0].tolist() == [2, 4]


def test_every_backend_gives_the_same_sweeps(tiny, other_backend):
    game, codes, prior = tiny
    ref = Sweeper(game, prior, "numpy")
    other = Sweeper(game, prior, other_backend)
    rng = np.random.default_rng(5)
    sets = [sorted(rng.choice(game.n_answers, m, replace=False).tolist()) for m in (2, 4, 11, 25, game.n_answers)]
    for cands in sets:
        assert np.allclose(other.entropies(cands), ref.entropies(cands), rtol=0, atol=1e-12)
    members = np.concatenate([np.asarray(c) for c in sets]).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in sets])]).astype(np.int64)
    a = ref.sweep(members, offsets, np.arange(len(sets)), 5)
    b = other.sweep(members, offsets, np.arange(len(sets)), 5)
    assert a[0].tolist() == b[0].tolist()
    assert np.allclose(a[1], b[1], atol=1e-12)
