"""Level 3 and the exact solver for several boards against a brute-force expectimax.

The oracle is plain Python written from docs/modes-solver.md: every probe of a tiny game, every
joint answer tuple of the independent boards (each board's answer drawn from its candidates with
the prior renormalised over them), the colours by `termo.core.feedback.feedback_code`, and the
objectives' costs per turn and at a loss (finish: 1 and 1; score: the unsolved boards, twice at
a loss; win: 0 and 1).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver_oracles import joint_brute_force as brute_force, tiny_game
from termo.core.feedback import feedback
from termo.engine.multi.boards import BoardsState
from termo.engine.multi.exact import MultiExact
from termo.engine.multi.level3 import MultiSearch
from termo.games.mode import Mode

OBJECTIVES = ("finish", "score", "win")


@pytest.fixture(scope="module")
def mode():
    return Mode(tiny_game(30, 6, step=173, offset=11), 2, 4, key="tiny-x2")


STATES = [
    (((0, 1, 2), (3, 4)), 2),
    (((5, 9, 14, 20), (2, 7, 21)), 3),
    (((1, 8), (8, 13, 25)), 2),  # a shared candidate: the independent model counts both solves
    (((4,), (6, 11, 17)), 2),
]


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_exact_values_equal_brute_force_expectimax(mode, objective):
    from termo.engine.multi.level2 import MultiSolver, check_objective

    solver = MultiSolver(mode)
    exact = MultiExact(solver.stats, check_objective(objective))
    value, cost = brute_force(mode.game, objective)
    for boards, r in STATES:
        arrays = [np.asarray(c, dtype=np.int64) for c in boards]
        v, best, ranked = exact.solve(arrays, r)
        want = value(tuple(sorted(boards)), r)
        assert abs(v - want) < 1e-12, (boards, r)
        assert abs(cost(tuple(sorted(boards)), best, r) - want) < 1e-12
        for g, c in ranked[:5]:
            assert abs(c - cost(tuple(sorted(boards)), g, r)) < 1e-12


def _oracle_prior(mode, rollout_t):
    """The prior level 3's exact states value the answers by: its rollouts' (`rollout_t`: ∞ every
    answer alike, the default; None the game's own prior, the oracle's default)."""
    return None if rollout_t is None else [1.0] * mode.game.n_answers


@pytest.mark.parametrize("rollout_t", [math.inf, None])
@pytest.mark.parametrize("objective", OBJECTIVES)
def test_level3_on_small_products_is_the_brute_force_optimum(mode, objective, rollout_t):
    """Level 3 with a beam of every probe decides small products exactly, by the prior its rollouts
    draw tuples from: its pick's value is the brute-force optimum under that prior."""
    search = MultiSearch(mode, objective=objective, beam=mode.game.n_probes, exact_product=64, rollout_t=rollout_t)
    value, cost = brute_force(mode.game, objective, prior=_oracle_prior(mode, rollout_t))
    for boards, r in STATES:
        arrays = [np.asarray(c, dtype=np.int64) for c in boards]
        turn = mode.max_turns - r + 1
        pick = search.choose(arrays, turn)
        want = value(tuple(sorted(boards)), r)
        assert abs(cost(tuple(sorted(boards)), pick, r) - want) < 1e-12
        assert search.choose_many([arrays], [turn]) == [pick]


@pytest.mark.parametrize("rollout_t", [math.inf, None])
@pytest.mark.parametrize("objective", OBJECTIVES)
def test_decide_reports_the_expected_objective(mode, objective, rollout_t):
    game = mode.game
    search = MultiSearch(mode, objective=objective, beam=game.n_probes, exact_product=10**3, rollout_t=rollout_t)
    state = BoardsState.start(mode)
    answers = (3, 17)
    guess = game.probes[0]
    pats = [feedback(guess, game.answers[a]) for a in answers]
    state = state.apply(guess, pats)
    value, _ = brute_force(game, objective, prior=_oracle_prior(mode, rollout_t))
    boards = tuple(sorted(tuple(int(i) for i in state.candidates[b]) for b in state.unsolved))
    decision = search.decide(state)
    base = search.objective.base(state.turns, state.solved_on)
    assert decision.choice.expected == pytest.approx(base + value(boards, mode.max_turns - 1), abs=1e-12)
    assert decision.index == search.choose([state.candidates[b] for b in state.unsolved], state.turns + 1)
    data = decision.as_dict()
    assert data["level"] == 3 and all(alt["expected"] is not None for alt in data["alternatives"])


def test_beam_decisions_on_a_real_mode_are_level2s_shape():
    """Without an exact state the search plays a beam guess and reports an estimate."""
    from termo.games import get_mode

    mode = get_mode("dueto")
    search = MultiSearch(mode)
    state = BoardsState.start(mode).apply("tarso", ["BBBBB", "BYBBB"])
    data = search.decide(state).as_dict()
    assert data["word"] and data["expected"] > 2 and data["level"] == 3


def test_exact_states_share_the_statistics_when_the_priors_agree(mode):
    """The exact states get their own statistics only when the rollouts' prior differs from the
    solver's: with a uniform prior (Wordle's modes) they are the same object, so nothing moves."""
    uniform = MultiSearch(mode, prior=np.ones(mode.game.n_answers))
    assert uniform.exact.stats is uniform.stats
    own = MultiSearch(mode, rollout_t=None)
    assert own.exact.stats is own.stats
    drawn = MultiSearch(mode)  # the game's prior is not uniform; the rollouts' (T = ∞) is
    assert drawn.exact.stats is not drawn.stats
    assert np.all(drawn.exact.stats.prior == drawn.exact.stats.prior[0])
