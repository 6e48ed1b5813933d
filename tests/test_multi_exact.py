"""The exact joint solver (`termo.engine.multi.exact.MultiExact.prove`, the compiled search of
`backends.host_ops.multi_exact`) against the brute-force expectimax of tests/multi_oracles.py, on tiny
product games: one to three boards, shared candidates, turn limits that force losses, a
weighted and a uniform prior, all three objectives; budgets give a bracket around the value."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from multi_oracles import OBJECTIVES, brute_force, canonical
from solver_oracles import tiny_game
from termo.engine.multi.exact import MultiExact
from termo.engine.multi.level2 import MultiSolver, check_objective
from termo.games.mode import Mode

TOL = 1e-12


def _uniform(game):
    from dataclasses import replace

    return replace(game, name=game.name + "-uniform", icf=tuple(0.0 for _ in game.icf))


@pytest.fixture(scope="module")
def games():
    weighted = tiny_game(30, 6, step=173, offset=11)
    return {"weighted": weighted, "uniform": _uniform(tiny_game(30, 8, step=211, offset=5))}


_SOLVERS: dict = {}


def solver_for(game, objective):
    key = (game.name, objective)
    if key not in _SOLVERS:
        stats = MultiSolver(Mode(game, 2, 4, key=f"{game.name}-x2")).stats
        _SOLVERS[key] = (MultiExact(stats, check_objective(objective), memo_slots=1 << 14),
                         brute_force(game, objective, prior=[float(x) for x in stats.prior]))
    return _SOLVERS[key]


FIXED = [
    (((3,),), 2),
    (((0, 1),), 1),
    (((0, 1, 2),), 1),
    (((2, 5, 9, 14, 20),), 3),
    (((0, 1, 2), (3, 4)), 2),
    (((5, 9, 14, 20), (2, 7, 21)), 3),
    (((1, 8), (8, 13, 25)), 2),  # a shared candidate: the independent model counts both solves
    (((4,), (6, 11, 17)), 2),
    (((4,), (4, 6)), 2),
    (((7, 8), (7, 8)), 3),
    (((1, 2), (3, 4), (5, 6)), 3),
    (((1, 2), (3, 4), (5, 6)), 2),
    (((1,), (2, 3), (4, 10, 12)), 3),
    (((0, 3, 6, 9), (1, 4, 7, 10)), 1),
    # one set on both boards: the outcomes of different colours are disjoint (their bounds apply)
    (((2, 5, 9, 14, 20), (2, 5, 9, 14, 20)), 3),
    (((0, 3, 6, 9), (0, 3, 6, 9)), 4),
    (((1, 4, 7, 10, 13), (4, 7, 10, 13, 16)), 4),
    # a board of eight or more candidates
    (((0, 2, 4, 6, 8, 10, 12, 14), (1, 3)), 3),
    (((0, 1, 2, 3, 4, 5, 6, 7, 8), (20, 21, 22)), 3),
    (((3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25), (2, 4)), 4),
]


def check(game, objective, boards, r):
    exact, (value, cost) = solver_for(game, objective)
    arrays = [np.asarray(c, dtype=np.int64) for c in boards]
    key = canonical(boards)
    want = value(key, r)
    v, best, ranked = exact.solve(arrays, r)
    assert abs(v - want) < TOL, (boards, r, v, want)
    if best is not None:
        assert abs(cost(key, best, r) - want) < TOL
    for g, c in ranked:
        assert abs(c - cost(key, g, r)) < TOL, (boards, r, g)
    assert [c for _, c in ranked] == sorted(c for _, c in ranked)


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("kind", ["weighted", "uniform"])
def test_fixed_states_equal_the_brute_force(games, kind, objective):
    for boards, r in FIXED:
        check(games[kind], objective, boards, r)


def random_states(game, seed, n):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        U = rng.choice((1, 2, 2, 3))
        boards = [tuple(rng.sample(range(game.n_answers), rng.randint(1, 4 if U < 3 else 3))) for _ in range(U)]
        if int(np.prod([len(b) for b in boards])) > 27:
            continue
        out.append((boards, rng.randint(1, 3)))
    return out


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("kind", ["weighted", "uniform"])
def test_random_states_equal_the_brute_force(games, kind, objective):
    for boards, r in random_states(games[kind], 7 + len(kind), 24):
        check(games[kind], objective, boards, r)


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_a_budget_gives_a_bracket_around_the_value(games, objective):
    game = games["weighted"]
    _, (value, _) = solver_for(game, objective)
    stats = MultiSolver(Mode(game, 2, 4, key="tiny-budget")).stats
    for boards, r in random_states(game, 99, 12):
        want = value(canonical(boards), r)
        for nodes in (0, 1, 2, 5):
            fresh = MultiExact(stats, check_objective(objective), memo_slots=1 << 12)
            res = fresh.prove([np.asarray(c) for c in boards], r, node_limit=nodes)
            assert np.isfinite(res.lower) and np.isfinite(res.upper)  # the greedy strategy and the bounds
            assert res.lower <= want + TOL
            assert want <= res.upper + TOL
            if res.proved:
                assert abs(res.upper - want) < TOL


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_drawn_states_equal_the_brute_force(games, data):
    kind = data.draw(st.sampled_from(["weighted", "uniform"]))
    objective = data.draw(st.sampled_from(OBJECTIVES))
    game = games[kind]
    U = data.draw(st.integers(1, 3))
    size = 4 if U < 3 else 3
    boards = [data.draw(st.lists(st.integers(0, game.n_answers - 1), min_size=1, max_size=size, unique=True))
              for _ in range(U)]
    r = data.draw(st.integers(1, 3))
    check(game, objective, boards, r)


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_the_greedy_strategy_and_the_refined_bounds_bracket_every_probe(games, objective):
    """The greedy strategy's value is at least the optimum and at least its first guess's cost
    (it is a strategy that starts with that guess); every probe's refined bound is at most its
    cost, and equals it where it says exact."""
    game = games["weighted"]
    exact, (value, cost) = solver_for(game, objective)
    stats = exact.stats
    for boards, r in random_states(game, 5, 10):
        fresh = MultiExact(stats, check_objective(objective), memo_slots=1 << 12)
        engine = fresh.engine(4)
        key = canonical(boards)
        arrays = [np.asarray(c, dtype=np.int64) for c in boards]
        v, g = engine.policy_value(arrays, r)
        assert v >= value(key, r) - TOL
        if g >= 0:
            assert cost(key, g, r) <= v + TOL
        probes = np.arange(game.n_probes)
        bounds, ex = engine.refined_bounds(arrays, r, probes)
        for p, b, e in zip(probes.tolist(), bounds.tolist(), ex.tolist()):
            c = cost(key, p, r)
            assert b <= c + TOL
            if e:
                assert abs(b - c) < TOL
