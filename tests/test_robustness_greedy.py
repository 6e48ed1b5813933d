"""The batched greedy-tree evaluator and its kernels against a plain-Python oracle (docs/rules.md §5.2, §6.1–§6.2)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from backends.kernels import fullbeam as kf
from backends.kernels import fullbeam_bounds as kb
from backends.kernels import fullbeam_small as ks
from termo.robustness.greedy_tree import GreedyTreeEvaluator

from solver_oracles import closed_form_value


# ----------------------------------------------------------------------------------------------
# Plain-Python oracle: the recursion of docs/rules.md §6.1 with the greedy tail of §6.2, written naively
# ----------------------------------------------------------------------------------------------
def numpy_sum(xs):
    """NumPy's pairwise summation, written out (blocks of 8 accumulators up to 128, halving above)."""
    xs = list(xs)

    def pw(lo, n):
        if n < 8:
            r = -0.0
            for i in range(lo, lo + n):
                r += xs[i]
            return r
        if n <= 128:
            acc = xs[lo : lo + 8]
            i = 8
            while i < n - n % 8:
                for k in range(8):
                    acc[k] += xs[lo + i + k]
                i += 8
            r = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
            while i < n:
                r += xs[lo + i]
                i += 1
            return r
        n2 = n // 2
        n2 -= n2 % 8
        return pw(lo, n2) + pw(lo + n2, n - n2)

    return pw(0, len(xs))


class Oracle:
    def __init__(self, matrix, prior, loss=7.0, win=242):
        self.m = [[int(x) for x in row] for row in np.asarray(matrix)]
        self.prior = [float(x) for x in prior]
        self.pp = self.prior + [0.0] * (len(self.m) - len(self.prior))
        self.loss = loss
        self.win = win

    def entropy(self, g, S):
        """Entropy of probe g over S, in the member-order convention of the kernels."""
        tot = numpy_sum(self.prior[c] for c in S)
        w = [self.prior[c] / tot if tot > 0 else 1.0 / len(S) for c in S]
        mass, count = {}, {}
        for c, wc in zip(S, w):
            code = self.m[g][c]
            mass[code] = mass.get(code, 0.0) + wc
            count[code] = count.get(code, 0) + 1
        h, seen = 0.0, set()
        for c, wc in zip(S, w):
            code = self.m[g][c]
            if count[code] == 1:
                h -= wc * math.log2(wc) if wc > 0 else 0.0
            elif code not in seen:
                seen.add(code)
                if mass[code] > 0:
                    h -= mass[code] * math.log2(mass[code])
        return h

    def top(self, S):
        members = set(S)
        key = lambda g: (round(self.entropy(g, S) / 1e-9), g in members, self.pp[g], -g)  # noqa: E731
        return max(range(len(self.m)), key=key)

    def value(self, S, r):
        closed = closed_form_value(self.prior, S, r, self.loss)
        if closed is not None:
            return closed
        return self.cost(self.top(S), S, r - 1)

    def cost(self, g, S, r):
        buckets = {}
        for c in S:
            buckets.setdefault(self.m[g][c], []).append(c)
        if len(buckets) == 1 and self.win not in buckets:
            return math.inf
        tot = numpy_sum(self.prior[c] for c in S)
        acc = 0.0
        for code in sorted(buckets):
            if code == self.win:
                continue
            sub = buckets[code]
            p = numpy_sum(self.prior[c] for c in sub) / tot if tot > 0 else len(sub) / len(S)
            acc += p * self.value(sub, r)
        return 1.0 + acc

    def expected(self, g, rounds=6):
        return self.cost(g, list(range(len(self.prior))), rounds - 1)


# ----------------------------------------------------------------------------------------------
# Small worlds cut from the real matrix
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def full():
    from termo.games.termo_pt import termo_game
    from termo.engine.matrix import pattern_matrix

    game = termo_game()
    return game, np.asarray(pattern_matrix(game))


def similar_world(full, n_answers, n_extra, seed):
    """A hard small world: words sharing a suffix (long greedy chains), plus random extra probes."""
    game, matrix = full
    rng = random.Random(seed)
    suffix = rng.choice(["ar", "ia", "ro", "os", "do", "as"])
    pool = [i for i, w in enumerate(game.answers_norm) if w.endswith(suffix)]
    answers = sorted(rng.sample(pool, min(n_answers, len(pool))))
    others = [i for i in range(game.n_answers) if i not in set(answers)]
    probes = answers + rng.sample(others, n_extra)
    sub = np.ascontiguousarray(matrix[np.ix_(probes, answers)])
    return sub


def priors(n, rng):
    yield np.full(n, 1.0 / n)
    skewed = np.array([rng.random() ** 6 for _ in range(n)])
    yield skewed / skewed.sum()
    zeros = skewed.copy()
    zeros[rng.sample(range(n), n // 4)] = 0.0
    yield zeros / zeros.sum()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_expected_values_match_oracle(full, seed):
    rng = random.Random(seed)
    matrix = similar_world(full, 24, 16, seed)
    for prior in priors(matrix.shape[1], rng):
        oracle = Oracle(matrix, prior)
        openers = list(range(matrix.shape[0]))
        fast = GreedyTreeEvaluator(matrix, prior).expected_values(openers)
        slow = [oracle.expected(g) for g in openers]
        assert fast == slow  # same summation order: bit-identical


def test_rounds_and_loss(full):
    matrix = similar_world(full, 20, 5, 7)
    prior = np.full(matrix.shape[1], 1.0 / matrix.shape[1])
    for rounds in (1, 2, 3):
        fast = GreedyTreeEvaluator(matrix, prior, rounds=rounds).expected_values(range(matrix.shape[0]))
        slow = [Oracle(matrix, prior).expected(g, rounds) for g in range(matrix.shape[0])]
        assert fast == slow


def test_cache_does_not_change_values(full):
    matrix = similar_world(full, 30, 10, 3)
    prior = np.linspace(1.0, 2.0, matrix.shape[1])
    prior /= prior.sum()
    openers = list(range(matrix.shape[0]))
    one_go = GreedyTreeEvaluator(matrix, prior).expected_values(openers)
    ev = GreedyTreeEvaluator(matrix, prior)
    pieces = []
    for start in range(0, len(openers), 7):
        pieces += ev.expected_values(list(reversed(openers[start : start + 7])))[::-1]
    assert pieces == one_go
    assert ev.stats.value_hits + ev.stats.choice_hits > 0


def test_sweep_kernel_matches_oracle_top(full):
    rng = random.Random(11)
    matrix = similar_world(full, 40, 30, 11)
    for prior in priors(matrix.shape[1], rng):
        oracle = Oracle(matrix, prior)
        states = [sorted(rng.sample(range(matrix.shape[1]), rng.randint(3, 15))) for _ in range(25)]
        members = np.array([c for s in states for c in s], dtype=np.int32)
        offsets = np.cumsum([0] + [len(s) for s in states]).astype(np.int64)
        pp = np.concatenate([prior, np.zeros(matrix.shape[0] - matrix.shape[1])])
        for shortcut in (True, False):
            best, best_h = kf.best_probes_numba(matrix, members, offsets, prior, pp, 242, 243, shortcut=shortcut)
            assert [int(b) for b in best] == [oracle.top(s) for s in states]
            for b, h, s in zip(best, best_h, states):
                assert h == oracle.entropy(int(b), s)


def icf_like_prior(n, rng):
    """Weights spread over many orders of magnitude, like softmax(-ICF) at T = 1."""
    x = np.array([math.exp(-rng.uniform(0.0, 18.0)) for _ in range(n)])
    return x / x.sum()


@pytest.mark.parametrize("seed", [0, 1])
def test_every_sweep_path_matches_oracle(full, seed):
    """The vector small-state sweep, the heavy-first sweep and the plain sweep give the oracle's
    choice and bit-identical entropies, on states of 3 to 90 members and skewed priors."""
    rng = random.Random(100 + seed)
    matrix = similar_world(full, 120, 60, 100 + seed)
    n = matrix.shape[1]
    for prior in (icf_like_prior(n, rng), *list(priors(n, rng))[1:]):
        oracle = Oracle(matrix, prior)
        states = [sorted(rng.sample(range(n), rng.choice([3, 5, 9, 17, 24, 25, 40, 64, 90]))) for _ in range(18)]
        members = np.array([c for s in states for c in s], dtype=np.int32)
        offsets = np.cumsum([0] + [len(s) for s in states]).astype(np.int64)
        pp = np.concatenate([prior, np.zeros(matrix.shape[0] - n)])
        want = [oracle.top(s) for s in states]
        for small_max, light_mass in ((kf.SMALL_MAX, kf.LIGHT_MASS), (0, 0.0), (100, 0.0), (0, 0.2)):
            best, best_h = kf.best_probes_numba(matrix, members, offsets, prior, pp, 242, 243, shortcut=False,
                                                small_max=small_max, light_mass=light_mass)
            assert [int(b) for b in best] == want, (small_max, light_mass)
            for b, h, s in zip(best, best_h, states):
                assert h == oracle.entropy(int(b), s)


def test_first_full_splitter_matches_scalar_scan(full):
    """The vectorised full-split scan finds the first probe (in prior order) that separates every
    member, as a scalar scan does, on states with and without such a probe."""
    rng = np.random.default_rng(8)
    matrix = similar_world(full, 80, 40, 8)
    prior = rng.random(matrix.shape[0])
    order, order_t = kf.scan_order(matrix, prior)
    for size in (2, 3, 6, 12, 24, 40):
        for _ in range(6):
            state = np.sort(rng.choice(matrix.shape[1], size, replace=False)).astype(np.int32)
            want = next((q for q in range(matrix.shape[0]) if len(set(order_t[state, q].tolist())) == size), -1)
            got = ks._first_full_splitter(order_t, state, 0, size, np.empty(ks.SMALL_BLOCK, np.uint8))
            assert got == want


def test_approximate_log2_error_bound():
    """The polynomial log2 behind the approximate-entropy bound stays within its stated error."""
    x = np.concatenate([np.linspace(1.0, 2.0, 400_001), np.geomspace(1e-12, 1.0, 100_001)])
    n = x.shape[0]
    mant = np.empty(n, np.uint64)
    expo = np.empty(n, np.uint64)
    kb._approx_log2_into(x.view(np.uint64), n, mant, expo, mant.view(np.float64))
    assert np.abs(mant.view(np.float64) - np.log2(x)).max() <= kb.LOG2_APPROX_ERROR
    rng = np.random.default_rng(3)
    for _ in range(200):
        row = np.zeros(243)
        k = int(rng.integers(1, 243))
        v = rng.random(k) ** int(rng.integers(1, 30))
        row[rng.choice(243, k, replace=False)] = v / v.sum()
        exact = -sum(p * math.log2(p) for p in row if p > 0)
        assert abs(kb.approx_entropy_bins(row, 243, mant[:243].copy(), expo[:243].copy()) - exact) <= kb.APPROX_TOL


def test_partition_matches_python(full):
    game, matrix = full
    rng = np.random.default_rng(5)
    prior = rng.random(game.n_answers)
    states = [np.sort(rng.choice(game.n_answers, size, replace=False)) for size in (3, 10, 200)]
    members = np.concatenate(states).astype(np.int32)
    offsets = np.cumsum([0] + [len(s) for s in states]).astype(np.int64)
    guesses = np.array([0, 17, 4000], dtype=np.int64)
    cm, co, cparent, cprob, single = kf.partition_states(matrix, members, offsets, guesses, prior, 242, 243)
    k = 0
    for s, (state, g) in enumerate(zip(states, guesses)):
        codes = matrix[g, state]
        for code in sorted(set(codes.tolist()) - {242}):
            sub = state[codes == code]
            assert cparent[k] == s
            assert cm[co[k] : co[k + 1]].tolist() == sub.tolist()
            assert cprob[k] == prior[sub].sum() / prior[state].sum()
            k += 1
    assert k == len(cparent) and not single.any()


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 127, 128, 129, 300, 1000, 6046])
def test_pairwise_sum_is_numpy_sum(n):
    rng = np.random.default_rng(n)
    a = rng.random(n) ** 8 * 10.0 ** rng.integers(-6, 6, n)
    assert kf.pairwise_sum(a, 0, n) == a.sum()
    assert numpy_sum(a) == a.sum()


def test_other_backends_agree(full, other_backend):
    """JAX / array-api-strict / CuPy run the array-API fallback: same choices, same values."""
    matrix = similar_world(full, 18, 6, 4)
    prior = np.array([1.0 + (i % 5) for i in range(matrix.shape[1])])
    prior /= prior.sum()
    openers = list(range(matrix.shape[0]))
    ref = GreedyTreeEvaluator(matrix, prior).expected_values(openers)
    got = GreedyTreeEvaluator(matrix, prior, backend=other_backend).expected_values(openers)
    assert np.allclose(got, ref, rtol=0, atol=1e-12)
    rng = random.Random(2)
    states = [sorted(rng.sample(range(matrix.shape[1]), rng.randint(3, 12))) for _ in range(10)]
    members = np.array([c for s in states for c in s], dtype=np.int32)
    offsets = np.cumsum([0] + [len(s) for s in states]).astype(np.int64)
    pp = np.concatenate([prior, np.zeros(matrix.shape[0] - matrix.shape[1])])
    a, ha = kf.best_probes_numba(matrix, members, offsets, prior, pp, 242, 243)
    from backends.array_api_ops import best_probes_array_api

    b, hb = best_probes_array_api(other_backend, other_backend.asarray(matrix), members, offsets, prior, pp, 242, 243)
    assert a.tolist() == b.tolist()
    assert np.allclose(ha, hb, rtol=0, atol=1e-12)


@pytest.mark.slow
def test_matches_level3_engine_oracle(full):
    """Cross-check with the solver engine's ``greedy_values_with_openers`` (independent code)."""
    from termo.robustness.scale import family_prior, temperature_for
    from termo.engine.solver import Solver

    game, matrix = full
    openers = [game.index_of(w) for w in ("tarso", "cairo", "ababá")]
    for t in (1.0, temperature_for(game.icf, 300), math.inf):
        prior = family_prior(game.icf, None, t)
        engine = Solver(game, level=2, t=t, prior=prior).greedy_values_with_openers(openers, range(game.n_answers), 6)
        mine = GreedyTreeEvaluator(matrix, prior).expected_values(openers)
        assert mine == engine
