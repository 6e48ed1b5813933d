"""The several-board kernels against plain-Python oracles: the per-board entropies
(`backends.kernels.boards.probe_entropies`, its NumPy twin) and level 3's rollouts
(`backends.kernels.boards.rollout_costs` through `termo.engine.multi.level3.MultiSearch`).

The rollout oracle is plain Python written from docs/modes-solver.md: every joint answer tuple of
the independent boards (each board's answer drawn from its candidates with the prior
renormalised over them), the first guess, then level 2 restricted to the rollout's pool (level
2's own `ranked` over the top probes and the state's candidates, its forced move and late rule),
the colours by `termo.core.feedback.feedback_code`, and the objectives' costs per turn and at a
loss.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
import pytest

from solver_oracles import termo_game, tiny_game
from termo.core.feedback import feedback_code
from termo.engine.multi.level2 import LATE_SLACK, MultiSolver
from termo.engine.multi.level3 import MultiSearch
from termo.games.mode import Mode

OBJECTIVES = ("finish", "score", "win")


@pytest.fixture(scope="module")
def mode():
    return Mode(tiny_game(40, 10, step=131, offset=7), 3, 6, key="tiny-x3")


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


# ---------------------------------------------------------------------------------- entropies
def plain_entropy(game, cands, g) -> float:
    ws = [math.exp(-game.icf[c]) for c in cands]
    total = sum(ws)
    mass = defaultdict(float)
    for c, w in zip(cands, ws):
        mass[feedback_code(game.probes[g], game.answers[c])] += w / total
    return -sum(p * math.log2(p) for p in mass.values() if p > 0)


def test_board_entropies_kernel_python_and_numpy_agree_bit_for_bit():
    """The compiled kernel, its interpreted source and the NumPy twin give the same floats, on
    every set size path (pairwise comparisons, code tables), within 1e-12 of the plain formula."""
    from backends import numpy_sweep
    from backends.kernels import boards as kb
    from termo.engine.matrix import answers_major_matrix
    from termo.core.prior import prior_weights

    game = termo_game()
    matrix_t = np.asarray(answers_major_matrix(game))
    prior = np.asarray(prior_weights(game.icf, 1.0), dtype=np.float64)
    rng = np.random.default_rng(11)
    for m in (2, 3, 7, 8, 9, 16, 17, 40, 150):
        cands = np.sort(rng.choice(game.n_answers, m, replace=False)).astype(np.int64)
        compiled = kb.probe_entropies(matrix_t, cands, prior, game.n_patterns)
        assert _same_bits(compiled, numpy_sweep.fast_entropies(matrix_t, cands, prior, game.n_patterns)), m
        if m <= 17:
            assert _same_bits(compiled, kb.probe_entropies.py_func(matrix_t, cands, prior, game.n_patterns)), m
        for g in rng.choice(game.n_probes, 25, replace=False).tolist():
            assert abs(compiled[g] - plain_entropy(game, cands.tolist(), g)) < 1e-12, (m, g)


def test_board_stats_are_the_same_with_and_without_the_kernel(mode, monkeypatch):
    """`BoardStats` takes the kernel once numba is loaded and NumPy before: the same floats."""
    import backends.host_ops.search as host_ops

    solver = MultiSolver(mode)
    sets = [np.arange(0, 40, k, dtype=np.int64) for k in (1, 2, 3, 5, 7)]
    monkeypatch.setattr(host_ops, "numba_loaded", lambda: False)
    plain = [solver.stats.compute_entropies(c) for c in sets]
    monkeypatch.setattr(host_ops, "numba_loaded", lambda: True)
    for c, h in zip(sets, plain):
        assert _same_bits(solver.stats.compute_entropies(c), h)


# ---------------------------------------------------------------------------------- rollouts
def _weights(search, cands):
    """The rollouts' tuple weights on one board: the prior at ``rollout_t`` (the solver's T = 1
    when None; ∞: uniform), renormalised over ``cands``."""
    t = 1.0 if search.rollout_t is None else search.rollout_t
    ws = [1.0 if math.isinf(t) else math.exp(-search.game.icf[c] / t) for c in cands]
    return [w / sum(ws) for w in ws]


def rollout_oracle(search, boards, first, r, tuples=None):
    """E[cost] of ``first`` then level 2 on the rollout's pool, over every joint answer tuple
    (or over ``tuples``, each of weight 1), by brute force."""
    game = search.game
    top = [int(g) for g in np.asarray(search.ranked([np.asarray(c) for c in boards], search.top)[0]).tolist()]
    costs = search.objective

    def code(g, a):
        return feedback_code(game.probes[g], game.answers[a])

    def policy(state, left):
        arrays = [np.asarray(c, dtype=np.int64) for c in state]
        turn = search.mode.max_turns - left + 1
        forced = MultiSolver.forced(search, arrays)
        if forced is not None:
            return forced
        cands = sorted({a for c in state for a in c})
        late = left <= len(state) + LATE_SLACK
        pool = cands if late else sorted(set(top) | set(cands))
        assert search.late_pool(arrays, turn) is None or late
        return int(np.asarray(search.ranked(arrays, 1, pool=np.asarray(pool, dtype=np.int64))[0])[0])

    def play(answers, state, left, guess):
        """The cost still to pay on this tuple (answers of the boards of ``state``)."""
        if not state:
            return 0.0
        if left == 0:
            return costs.loss_cost(len(state))
        g = guess if guess is not None else policy(state, left)
        nxt, rest = [], []
        for a, c in zip(answers, state):
            if g != a:
                nxt.append(tuple(x for x in c if code(g, x) == code(g, a)))
                rest.append(a)
        return costs.turn_cost(len(state)) + play(rest, nxt, left - 1, None)

    boards = [tuple(int(x) for x in c) for c in boards]
    if tuples is None:
        total = 0.0
        for combo in itertools.product(*[list(zip(c, _weights(search, c))) for c in boards]):
            p = math.prod(w for _, w in combo)
            total += p * play([a for a, _ in combo], boards, r, first)
        return total
    return sum(play(list(t), boards, r, first) for t in tuples) / len(tuples)


STATES = [
    ([[0, 3, 5, 8], [1, 2, 4, 9, 17], [6, 7]], 4),
    ([[10, 11, 12, 13, 14, 15], [2], [20, 21, 22]], 3),  # a forced move, a late rule
    ([[5, 9, 14, 20, 25, 30, 35], [2, 7, 21, 33]], 5),  # a shared candidate
    ([[0, 1], [1, 2], [2, 3]], 2),  # late: candidates only
]


@pytest.mark.parametrize("rollout_t", [math.inf, None, 2.0])
@pytest.mark.parametrize("objective", OBJECTIVES)
def test_rollout_values_equal_the_brute_force_policy_value(mode, objective, rollout_t):
    """Every beam guess's rollout value, over every joint answer tuple weighted by the rollouts'
    prior (uniform by default, the solver's, another T), is the plain-Python value of that guess
    then level 2; level 3 plays the best of them and reports it (base included)."""
    search = MultiSearch(mode, objective=objective, beam=6, small=4, top=8, exact_product=0, rollout_t=rollout_t)
    for sets, r in STATES:
        boards = [np.asarray(c, dtype=np.int64) for c in sets]
        picks, n, exact = search.rollout(boards, r)
        assert exact and n == math.prod(len(c) for c in sets)
        for g, cost in picks:
            assert abs(cost - rollout_oracle(search, sets, g, r)) < 1e-12, (sets, g)
        values = [round(c, 12) for _, c in picks]  # ties (to 1e-12) in level 2's order
        assert values == sorted(values)
        assert search.choose(boards, mode.max_turns - r + 1) == picks[0][0]


def test_sampled_rollouts_average_the_drawn_tuples(mode):
    """Past `enumerate_max` tuples the rollout draws `samples` of them (seeded by the state: the
    same draw every time) and averages the plain-Python cost over exactly those tuples."""
    search = MultiSearch(mode, beam=4, small=2, top=6, exact_product=0, enumerate_max=10, samples=40)
    sets, r = STATES[0]
    boards = [np.asarray(c, dtype=np.int64) for c in sets]
    answers = np.unique(np.concatenate(boards))
    local = [np.searchsorted(answers, c) for c in boards]
    tuples, weights, exact = search.tuples(boards, local, r)
    assert not exact and tuples.shape == (40, 3) and np.all(weights == 1.0)
    again, _, _ = search.tuples(boards, local, r)
    assert np.array_equal(tuples, again)
    drawn = [tuple(int(answers[i]) for i in row) for row in tuples.tolist()]
    assert all(a in c for t in drawn for a, c in zip(t, sets))
    picks, n, exact = search.rollout(boards, r)
    assert not exact and n == 40
    for g, cost in picks[:3]:
        assert abs(cost - rollout_oracle(search, sets, g, r, tuples=drawn)) < 1e-12


def test_level3_is_no_worse_than_level2_in_the_model(mode):
    """Level 2's own choice is in the beam: with every tuple rolled out, level 3's pick has an
    expected cost at most that of level 2's pick followed by level 2."""
    search = MultiSearch(mode, beam=3, small=3, top=6, exact_product=0)
    rng = np.random.default_rng(5)
    for _ in range(6):
        sets = [sorted(rng.choice(40, int(rng.integers(1, 6)), replace=False).tolist()) for _ in range(3)]
        r = int(rng.integers(2, 6))
        boards = [np.asarray(c, dtype=np.int64) for c in sets]
        own = MultiSolver.choose(search, boards, mode.max_turns - r + 1)
        mine = search.choose(boards, mode.max_turns - r + 1)
        assert rollout_oracle(search, sets, mine, r) <= rollout_oracle(search, sets, own, r) + 1e-12


def test_decide_reports_the_value_it_ranked_by():
    """On a real mode (Dueto after one turn) the suggestion is the first of the ranking and every
    choice's `expected` is its rollout value plus the turns played; the alternatives come in
    ascending order of that value."""
    from termo.engine.multi.boards import BoardsState
    from termo.games import get_mode

    search = MultiSearch(get_mode("dueto"), beam=8, samples=64)
    state = BoardsState.start(search.mode).apply("tarso", ["BBBBB", "BYBBB"])
    decision = search.decide(state)
    boards = [np.asarray(state.candidates[b]) for b in state.unsolved]
    _, picks, _ = search.ranking(boards, search.rounds(2))
    data = decision.as_dict()
    assert data["word"] == search.game.probes[picks[0][0]]
    values = [data["expected"]] + [alt["expected"] for alt in data["alternatives"]]
    assert values == pytest.approx([1.0 + c for _, c in picks[: len(values)]], abs=1e-12)
    assert [round(v, 9) for v in values] == sorted(round(v, 9) for v in values)


def test_a_large_beam_is_screened_on_the_first_tuples(mode, monkeypatch):
    """Sampled, a beam of more than `KEEP` guesses is rolled out on the first `SCREEN` tuples;
    the `KEEP` best of them then on every tuple (their value: the mean over all), the others keep
    their screening mean and come after them."""
    import termo.engine.multi.level3 as level3

    monkeypatch.setattr(level3, "SCREEN", 20)
    monkeypatch.setattr(level3, "KEEP", 3)
    search = MultiSearch(mode, beam=8, small=0, top=10, exact_product=0, enumerate_max=10, samples=60)
    sets, r = STATES[2]
    boards = [np.asarray(c, dtype=np.int64) for c in sets]
    answers = np.unique(np.concatenate(boards))
    tuples, _, _ = search.tuples(boards, [np.searchsorted(answers, c) for c in boards], r)
    drawn = [tuple(int(answers[i]) for i in row) for row in tuples.tolist()]
    picks, n, exact = search.rollout(boards, r)
    assert not exact and n == 60 and len(picks) > 3
    screen = {g: rollout_oracle(search, sets, g, r, tuples=drawn[:20]) for g, _ in picks}
    kept = sorted(screen, key=lambda g: round(screen[g], 12))[:3]  # (no tie at the cut in this state)
    assert {g for g, _ in picks[:3]} == set(kept)
    for g, cost in picks[:3]:
        assert abs(cost - rollout_oracle(search, sets, g, r, tuples=drawn)) < 1e-12
    for g, cost in picks[3:]:
        assert abs(cost - screen[g]) < 1e-12


def test_level3_opens_with_its_table_word_and_says_so():
    """Level 3's first guess is its table's word for the mode (measured by level-2 batteries on
    other tuples than the figures'), a word given instead replaces it; each with its reason."""
    from termo.engine.multi.boards import BoardsState
    from termo.engine.multi.level3 import OPENERS
    from termo.games import get_mode

    mode = get_mode("quordle")
    start = BoardsState.start(mode)
    table = MultiSearch(mode).decide(start)
    assert table.choice.word == OPENERS[3]["quordle"] and table.reason.code == "reason.boards_first_table"
    given = MultiSearch(mode, opener="salet").decide(start)
    assert given.choice.word == "salet" and given.reason.code == "reason.boards_first_given"
    own = MultiSearch(mode, search_opener=False, opener=None).decide(start)
    assert own.choice.word == MultiSolver(mode).decide(start).choice.word
    assert own.reason.code == "reason.boards_first_level2"
