"""The count sweep of equal-weight states (``backends.kernels.fullbeam_counts``) and the probes near
the top (``probes_at_least``, the win rule's recomputation) against the plain-Python oracle."""

from __future__ import annotations

import random

import numpy as np
import pytest

from backends import host
from backends.array_api_ops import ArrayApiOps
from backends.kernels import fullbeam as kf
from backends.kernels import fullbeam_counts as kc
from termo.robustness import win_rule

from test_robustness_greedy import Oracle, similar_world


@pytest.fixture(scope="module")
def full():
    from termo.games.termo_pt import termo_game
    from termo.engine.matrix import pattern_matrix

    game = termo_game()
    return game, np.asarray(pattern_matrix(game))


def _batch(states):
    members = np.array([c for s in states for c in s], dtype=np.int32)
    offsets = np.cumsum([0] + [len(s) for s in states]).astype(np.int64)
    return members, offsets


def _two_level_prior(n, rng):
    """Weights 1 or 3: a state drawn from one level only has equal weights (the count sweep), a
    mixed one does not (the other sweeps)."""
    return np.array([1.0 if i % 2 else 3.0 for i in range(n)]) / (2.0 * n)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_count_sweep_matches_oracle(full, seed, monkeypatch):
    """Uniform and two-level priors, states of 25 to 110 members (the count sweep's sizes): the
    oracle's §5.2 first probe and its bit-identical entropy, with the count sweep on and off."""
    swept = []
    sweep = kf.sweep_counts
    monkeypatch.setattr(kf, "sweep_counts", lambda *a: swept.append(a[4].shape[0] - 1) or sweep(*a))
    rng = random.Random(200 + seed)
    matrix = similar_world(full, 160, 80, 200 + seed)
    n = matrix.shape[1]
    uniform = np.full(n, 1.0 / n)
    for prior in (uniform, _two_level_prior(n, rng)):
        oracle = Oracle(matrix, prior)
        states = []
        for _ in range(14):
            size = rng.choice([25, 26, 31, 40, 64, 90, 110])
            pool = range(n) if rng.random() < 0.5 else range(seed % 2, n, 2)  # one level of the two-level prior
            states.append(sorted(rng.sample(pool, min(size, len(pool)))))
        members, offsets = _batch(states)
        pp = np.concatenate([prior, np.zeros(matrix.shape[0] - n)])
        want = [oracle.top(s) for s in states]
        for counts in (True, False):
            for shortcut in (True, False):
                best, best_h = kf.best_probes_numba(matrix, members, offsets, prior, pp, 242, 243, shortcut=shortcut,
                                                    counts=counts)
                assert [int(b) for b in best] == want, (counts, shortcut)
                for b, h, s in zip(best, best_h, states):
                    assert h == oracle.entropy(int(b), s)
    assert sum(swept) >= 8  # the count sweep took states of every batch (both priors, shortcut or not)


def test_reading_order_never_changes_the_pick(full):
    """The members' reading order only decides how soon a probe is dropped: none, a few or many
    scoring probes give the same picks and entropies."""
    rng = random.Random(9)
    matrix = similar_world(full, 160, 80, 9)
    n = matrix.shape[1]
    prior = np.full(n, 1.0 / n)
    pp = np.concatenate([prior, np.zeros(matrix.shape[0] - n)])
    states = [sorted(rng.sample(range(n), min(n, rng.choice([25, 50, 120])))) for _ in range(10)]
    members, offsets = _batch(states)
    w, wl, _ = kf.state_weights(prior, members, offsets)
    order, order_t = kf.scan_order(matrix, pp)
    runs = [kc.sweep_counts(matrix, order_t, order, members, offsets, w, wl, pp, 242, 243, k) for k in (0, 3, 32, 200)]
    for best, best_h in runs[1:]:
        assert best.tolist() == runs[0][0].tolist() and best_h.tolist() == runs[0][1].tolist()


def test_count_steps_never_exceed_the_true_sum():
    """The integer steps sum to at most ``n·log2 n`` (in units of 1/SCALE), for every n: the bound
    they give is never tighter than the real one."""
    import math

    steps = kc._nlogn_steps(5000)
    total = np.cumsum(steps)
    for k in (1, 2, 3, 7, 100, 1000, 5000):
        assert total[k] <= k * math.log2(k) * kc.SCALE
        assert total[k] >= k * math.log2(k) * kc.SCALE - 2 * k  # and loses at most two units a step


def test_uniform_states():
    w = np.array([0.5, 0.5, 0.2, 0.3, 0.1, 0.1, 0.1])
    offsets = np.array([0, 2, 4, 7], dtype=np.int64)
    assert kc.uniform_states(w, offsets).tolist() == [True, False, True]


def _entropies(matrix, state, prior):
    oracle = Oracle(matrix, prior)
    return np.array([oracle.entropy(g, state) for g in range(matrix.shape[0])])


@pytest.mark.parametrize("generic", [False, True], ids=["numba", "array-api"])
def test_probes_at_least_is_a_superset(full, generic):
    """Every probe with an entropy of at least the floor is returned (a few more may be)."""
    rng = random.Random(7)
    matrix = similar_world(full, 100, 40, 7)
    n = matrix.shape[1]
    prior = np.full(n, 1.0 / n)
    pp = np.concatenate([prior, np.zeros(matrix.shape[0] - n)])
    backend = host()
    plan = ArrayApiOps.best_probe_plan(backend, matrix, pp) if generic else backend.best_probe_plan(matrix, pp)
    for size in (2, 3, 9, 30, 70):
        state = np.array(sorted(rng.sample(range(n), size)), dtype=np.int32)
        h = _entropies(matrix, state.tolist(), prior)
        for floor in (h.max(), h.max() - 1e-8, np.sort(h)[-5], h.max() - 0.5):
            if generic:
                got = ArrayApiOps.probes_at_least(backend, plan, state, prior, floor, 242, 243)
            else:
                got = backend.probes_at_least(plan, state, prior, floor, 242, 243)
            assert set(np.flatnonzero(h >= floor).tolist()) <= set(got.tolist())
            assert list(got) == sorted(got)


def test_first_probe_on_the_probes_near_the_top_is_the_same():
    """Under Nerdle Mini's commutative rule: the §5.2 first probe by membership weighed over the
    probes near the top equals the one weighed over every probe."""
    from termo.games import get_game
    from termo.engine.matrix import pattern_matrix

    game = get_game("nerdle-mini")
    matrix = host().to_numpy(pattern_matrix(game, backend=host()))
    n = game.n_answers
    prior = np.full(n, 1.0 / n)
    pp = prior.copy()
    backend = host()
    plan = backend.best_probe_plan(matrix, pp)
    rng = random.Random(3)
    for _ in range(40):
        state = np.array(sorted(rng.sample(range(n), rng.choice([3, 5, 8, 20, 40]))), dtype=np.int32)
        members, offsets = _batch([state.tolist()])
        _, best_h = kf.best_probes_numba(matrix, members, offsets, prior, pp, game.win_code, game.n_patterns)
        near = backend.probes_at_least(plan, state, prior, float(best_h[0]) - win_rule.NEAR_TOP, game.win_code,
                                       game.n_patterns)
        assert win_rule.first_probe(matrix, state, prior, pp, game.n_patterns, near) == win_rule.first_probe(
            matrix, state, prior, pp, game.n_patterns)


def _candidate_pick_oracle(matrix, state, prior, probe_prior, win_code):
    """Plain Python: the member with the least Σ n_b² over its non-winning buckets, then entropy on
    the 1e-9 grid descending, probe prior descending, index ascending (docs/openers.md)."""
    import math
    from collections import Counter

    total = sum(prior[a] for a in state)

    def key(g):
        codes = [int(matrix[g][a]) for a in state]
        counts = Counter(codes)
        sq = sum(k * k for c, k in counts.items() if c != win_code)
        mass = Counter()
        for a, c in zip(state, codes):
            mass[c] += prior[a] / total
        h = -sum(p * math.log2(p) for p in mass.values() if p > 0)
        return (sq, -round(h / 1e-9), -probe_prior[g], g)

    return min(state, key=key)


@pytest.mark.parametrize("seed", range(3))
def test_candidate_picks_match_oracle(full, seed):
    """The candidates-remaining follow-up's kernel (``termo openers --follow-up``) picks what the
    plain-Python rule picks, on Termo states of every size, uniform and weighted priors."""
    game, matrix = full
    rng = random.Random(seed)
    n = matrix.shape[1]
    states = [sorted(rng.sample(range(n), k)) for k in (3, 4, 7, 12, 40, 150)]
    members, offsets = _batch(states)
    for prior in (np.full(n, 1.0 / n), _two_level_prior(n, rng)):
        probe_prior = np.array([rng.random() for _ in range(matrix.shape[0])])
        picks, _ = kf.candidate_picks(matrix, members, offsets, prior, probe_prior, game.win_code, game.n_patterns)
        oracle = [_candidate_pick_oracle(matrix, s, prior, probe_prior, game.win_code) for s in states]
        assert [int(p) for p in picks] == oracle
