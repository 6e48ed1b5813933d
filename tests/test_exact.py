"""The exact solver (termo.exact) against an independent brute-force oracle.

The oracle is plain Python: the plain feedback rule (``termo.engine.matrix.expected_code``, which
applies the game's win rule), every probe tried at every state (no bound, no pruning, no
closed form; only a memo of finished states), hard mode by the plain ``termo.engine.hard_mode.is_legal``
rule over merged constraints. Values are compared exactly for uniform games (integer totals) and
to 1e-12 for weighted ones; on the NumPy and JAX backends.
"""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends import BackendUnavailable, get_backend
from termo.engine import hard_mode
from termo.exact import evaluate_tree, solve
from termo.exact.search import Problem, answer_weights

from solver_oracles import nerdle_small_world, small  # noqa: F401 (the closed worlds' fixtures)
from solver_oracles import Oracle, oracle_value, tiny_game

LOSS = 7.0
SALET_TOTAL = 7920  # Selby: opener SALET, 2,315 answers, mean 3.4212 (Selby's published result)
BEAM_TOSAR = 3.0094161966572304


# ------------------------------------------------------------------------------ small games
def uniform(game):
    return dataclasses.replace(game, icf=(0.0,) * game.n_answers, uniform_prior=True)


def backends_for_test():
    out = []
    for name in ("numpy", "jax"):
        try:
            get_backend(name)
            out.append(name)
        except BackendUnavailable:
            pass
    return out


def check_against_oracle(game, backend, t=1.0, hard=False, opener=None):
    result = solve(game, t=t, hard=hard, opener=opener, backend=backend, node_limit=10_000_000)
    weights, weighted = answer_weights(game, t)
    expect = oracle_value(game, weights, hard, None if opener is None else game.index_of(opener))
    scale = float(sum(float(x) for x in weights)) if weighted else float(game.n_answers)
    assert result.proved
    if weighted:
        assert result.mean == pytest.approx(expect / scale, rel=1e-12, abs=0)
        assert result.lower == pytest.approx(result.upper, rel=1e-12, abs=0)
    else:
        assert result.total == expect and result.lower == result.upper == expect / game.n_answers
        assert result.upper_total == expect
    total, losses = evaluate_tree(game, result.tree(), weights if weighted else None)
    assert total == pytest.approx(expect, rel=1e-12, abs=0) if weighted else total == expect
    assert losses == result.stats["losses"]
    return result


# ------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("backend", backends_for_test())
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_the_oracle(small, backend, weighted):
    game = small if weighted else uniform(small)
    check_against_oracle(game, backend)


@pytest.mark.parametrize("backend", backends_for_test())
@pytest.mark.parametrize("turns", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_turn_limit_that_forces_losses(small, backend, turns, weighted):
    game = dataclasses.replace(small if weighted else uniform(small), max_turns=turns)
    result = check_against_oracle(game, backend)
    if turns == 2:
        assert result.stats["losses"] > 0  # 24 answers cannot all be found in two guesses


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("turns", [2, 3, 4])
def test_loss_not_allowed_matches_the_oracle(small, turns, hard):
    """``loss = inf`` (every answer must be found, Selby's objective): infinite where the turn limit
    forces a loss, else the least total of the strategies that find every answer; the oracle
    charges an infinite cost per lost answer."""
    game = dataclasses.replace(uniform(small), max_turns=turns)
    weights, _ = answer_weights(game, 1.0)
    oracle = Oracle(game, weights, hard, loss=math.inf)
    c0 = hard_mode.free(game.word_length) if hard else None
    expect = oracle.cost(tuple(range(game.n_answers)), turns, c0)
    result = solve(game, hard=hard, loss=math.inf, node_limit=10_000_000)
    assert result.proved and result.total == expect and result.loss == math.inf
    assert (result.stats["losses"] > 0) == math.isinf(expect)
    if math.isfinite(expect):
        total, losses = evaluate_tree(game, result.tree(), None, loss=math.inf)
        assert total == expect and losses == 0


@pytest.mark.parametrize("backend", backends_for_test())
@pytest.mark.parametrize("weighted", [False, True])
def test_hard_mode_matches_the_oracle(small, backend, weighted):
    game = dataclasses.replace(small if weighted else uniform(small), max_turns=4)
    hard = check_against_oracle(game, backend, hard=True)
    normal = solve(game, backend=backend)
    assert hard.upper >= normal.upper - 1e-12  # hard mode can only cost more


@pytest.mark.parametrize("backend", backends_for_test())
def test_fixed_opener_matches_the_oracle(small, backend):
    game = uniform(small)
    for opener in (game.probes[0], game.probes[-1]):
        result = check_against_oracle(game, backend, opener=opener)
        assert result.opener == opener and result.tree()["guess"] == game.index_of(opener)


@pytest.mark.parametrize("backend", backends_for_test())
def test_commutative_wins_match_the_oracle(nerdle_small, backend):
    assert nerdle_small.win_classes  # the subset holds commutative pairs
    check_against_oracle(nerdle_small, backend)
    check_against_oracle(dataclasses.replace(nerdle_small, max_turns=3), backend)
    strict = dataclasses.replace(nerdle_small, win_rule="exact", win_key=None)
    check_against_oracle(strict, backend)


def test_backends_give_identical_results(small):
    names = backends_for_test()
    if len(names) < 2:
        pytest.skip("only one backend here")
    for hard in (False, True):
        results = [solve(small, backend=b, hard=hard) for b in names]
        seen = {(r.total, r.lower, r.upper, r.nodes, json.dumps(r.tree(), sort_keys=True)) for r in results}
        assert len(seen) == 1


def test_tree_is_plain_data_covering_every_answer(small):
    game = uniform(small)
    result = solve(game)
    tree = result.tree()
    json.dumps(tree)  # plain data (pattern codes are ints)

    def walk(node):
        assert set(node) == {"guess", "children"}
        assert game.win_code not in node["children"]
        for child in node["children"].values():
            walk(child)

    walk(tree)
    total, losses = evaluate_tree(game, tree)
    assert total == result.total and losses == 0


def test_budget_gives_valid_bounds():
    game = uniform(tiny_game(300, 20, step=19))
    full = solve(game)
    assert full.proved and full.nodes > 1
    cut = solve(game, node_limit=1)
    assert not cut.proved and cut.nodes <= 1
    assert cut.lower_total <= full.total <= cut.upper_total
    assert cut.lower <= cut.upper and cut.gap > 0
    total, _ = evaluate_tree(game, cut.tree())
    assert total == cut.upper_total  # the upper bound is the strategy it reports


def test_ranking_limit_stops_early(small):
    game = uniform(small)
    truth = oracle_value(game, [1.0] * game.n_answers)
    below = solve(game, limit=truth)  # is it below the true value? no: a lower bound >= it
    assert below.lower_total >= truth  # (or the exact value itself, when proving it was as cheap)
    assert not below.proved or below.total == truth
    above = solve(game, limit=truth + 1)
    assert above.proved and above.total == truth


def test_bad_input_is_one_clear_error(small):
    from termo.core.errors import TermoError

    with pytest.raises(TermoError, match="not a word"):
        solve(small, opener="zzzzz")
    with pytest.raises(TermoError, match="--time"):
        solve(small, time_limit=0)
    with pytest.raises(TermoError, match="--nodes"):
        solve(small, node_limit=0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_small_games_match_the_oracle(small, data):
    n = data.draw(st.integers(3, 10))
    extra = data.draw(st.integers(0, 5))
    answers = sorted(data.draw(st.lists(st.integers(0, small.n_answers - 1), min_size=n, max_size=n, unique=True)))
    extras = data.draw(st.lists(st.integers(small.n_answers, small.n_probes - 1), max_size=extra, unique=True))
    turns = data.draw(st.integers(1, 4))
    hard = data.draw(st.booleans())
    weighted = data.draw(st.booleans())
    from termo.games.termo_pt import termo_like

    game = termo_like("hyp", [small.answers[i] for i in answers],
                      [small.answers[i] for i in answers] + [small.probes[i] for i in extras],
                      [small.icf[i] for i in answers] if weighted else [0.0] * n,
                      max_turns=turns, uniform_prior=not weighted)
    result = solve(game, hard=hard)
    weights, _ = answer_weights(game, 1.0)
    expect = oracle_value(game, weights, hard)
    scale = float(sum(float(x) for x in weights)) if weighted else float(n)
    assert result.proved
    assert result.upper == pytest.approx(expect / scale, rel=1e-12, abs=1e-15)


def test_problem_engine_is_reused_by_solve(small):
    game = uniform(small)
    prob = Problem(game)
    first = solve(game, problem=prob)
    again = solve(game, problem=prob)
    assert again.total == first.total and again.nodes == 0  # everything came from the memo


@pytest.mark.slow
def test_salet_reproduces_selbys_optimum():
    from termo.games import get_game

    result = solve(get_game("wordle"), opener="salet", time_limit=1800)
    assert result.proved and result.total == SALET_TOTAL
    assert round(result.mean, 4) == 3.4212
    assert result.stats["losses"] == 0
    depths = _depths(result.tree())
    assert max(depths) <= 5  # every answer within five guesses


# Selby's proven rankings of the first words (original lists): the five best, normal and hard mode
SELBY_TOP5 = {False: {"salet": 7920, "reast": 7923, "crate": 7926, "trace": 7926, "slate": 7928},
              True: {"salet": 8122, "least": 8127, "reast": 8134, "crate": 8143, "trape": 8144}}


@pytest.mark.slow
@pytest.mark.parametrize("hard,word", [(h, w) for h in (False, True) for w in SELBY_TOP5[h]])
def test_selbys_five_best_first_words_are_proved_one_by_one(hard, word):
    """`termo optimal --game wordle --opener W [--hard] --loss inf` proves each of Selby's five best
    first words (hard mode: every answer found within six, as his figures assume)."""
    from termo.games import get_game

    result = solve(get_game("wordle"), opener=word, hard=hard, loss=math.inf, time_limit=1800)
    assert result.proved and result.total == SELBY_TOP5[hard][word] and result.stats["losses"] == 0


def _depths(tree, depth=1):
    out = [depth]  # the guess itself may be the answer
    for child in tree["children"].values():
        out.extend(_depths(child, depth + 1))
    return out


@pytest.mark.parametrize("mode", [1, 2])
def test_count_passes_give_the_same_search(small, nerdle_small, mode):
    """Weights 1 take a counting bound pass (1: the exact rule's, with the candidates-first
    shortcut; 2: Nerdle's commutative rule, with class sizes); forcing the general pass must give
    the same values, trees and work."""
    game = dataclasses.replace(uniform(small) if mode == 1 else nerdle_small, max_turns=4)
    fast = Problem(game)
    slow = Problem(game)
    assert fast.engine.unit == mode
    slow.engine.unit = 0
    a = solve(game, problem=fast)
    b = solve(game, problem=slow)
    assert (a.total, a.lower, a.nodes) == (b.total, b.lower, b.nodes)
    assert json.dumps(a.tree(), sort_keys=True) == json.dumps(b.tree(), sort_keys=True)


@pytest.mark.parametrize("rounds", [1, 2, 3, 5])
def test_the_count_passes_equal_the_general_pass(small, nerdle_small, rounds):
    """Every probe's bound, split and validity by the counting passes (weights 1: the exact rule's,
    and the commutative rule's with class sizes) equal the general pass's, on random states."""
    import random

    rng = random.Random(rounds)
    for game, mode in ((uniform(small), 1), (nerdle_small, 2)):
        prob = Problem(game)
        engine = prob.engine
        assert engine.unit == mode
        for size in (1, 2, 3, 5, 9, 17, 23, game.n_answers):
            members = sorted(rng.sample(range(game.n_answers), min(size, game.n_answers)))
            engine.unit = mode
            fast = engine.guess_bounds(members, rounds), engine.guess_splits(members, rounds)
            engine.unit = 0
            slow = engine.guess_bounds(members, rounds), engine.guess_splits(members, rounds)
            engine.unit = mode
            assert fast[0].tolist() == slow[0].tolist() and fast[1].tolist() == slow[1].tolist()


def test_rank_openers_settles_every_candidate(small):
    """Four listed openers, then every other first guess by bounds and limit-mode searches: the
    result is the game's optimum (here an opener outside the list), proved."""
    from termo.exact.openers import rank_openers

    game = uniform(small)
    words = [game.probes[i] for i in (0, 5, 11, game.n_probes - 1)]
    out = rank_openers(game, words)
    truth = {w: oracle_value(game, [1.0] * game.n_answers, opener=game.index_of(w)) / game.n_answers for w in words}
    overall = oracle_value(game, [1.0] * game.n_answers) / game.n_answers
    assert out["proved_global"] and out["others_open"] == 0 and out["candidates_settled"]
    assert out["best_value"] == overall
    assert oracle_value(game, [1.0] * game.n_answers, opener=game.index_of(out["best"])) / game.n_answers == overall
    for row in out["candidates"][: len(words)]:
        assert row["status"] in ("best", "cannot beat")
        assert row["lower"] <= truth[row["word"]] + 1e-12
        if row["status"] == "cannot beat":
            assert truth[row["word"]] >= overall


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_first_guess_bounds_are_admissible(small, weighted, hard):
    game = small if weighted else uniform(small)
    weights, _ = answer_weights(game, 1.0)
    oracle = Oracle(game, weights, hard)
    prob = Problem(game, hard=hard)
    root = prob.root()
    probes = list(range(game.n_probes))
    one = prob.engine.guess_bounds(root, game.max_turns)
    deep = prob.engine.deep_guess_bounds(root, game.max_turns, probes)
    c0 = hard_mode.free(game.word_length) if hard else None
    truth = [oracle.guess_cost(tuple(range(game.n_answers)), game.max_turns, p, c0) for p in probes]
    best = min(truth)
    capped = prob.engine.deep_guess_bounds(root, game.max_turns, probes, limit=best)
    for p in probes:
        if math.isinf(truth[p]):
            continue
        assert one[p] <= deep[p] * (1 + 1e-12) and deep[p] <= truth[p] * (1 + 1e-12)
        assert capped[p] <= truth[p] * (1 + 1e-12) and (capped[p] >= best or capped[p] == pytest.approx(deep[p]))


@pytest.mark.parametrize("unit", [0, 1, 2])
def test_big_states_read_the_probes_major_layout_with_the_same_numbers(unit):
    """A state of more than BIG_STATE answers reads the probes-major layout: every probe's bound,
    split and validity equal the answers-major pass's, for each pass (any weights, weights 1 under
    the exact rule, weights 1 with win classes), on a synthetic matrix of 700 answers."""
    import numpy as np

    rng = np.random.default_rng(unit)
    n_answers, n_probes, n_codes = 700, 300, 243
    probes_major = rng.integers(0, n_codes - 1, size=(n_probes, n_answers)).astype(np.uint8)
    probes_major[np.arange(n_answers) % n_probes, np.arange(n_answers)] = n_codes - 1  # a few wins
    answers_major = np.ascontiguousarray(probes_major.T)
    weights = np.ones(n_answers) if unit else rng.random(n_answers) + 0.5
    classes = rng.integers(1, 3, n_answers).astype(np.float64) if unit == 2 else weights
    from backends.host_ops.exact import exact_engine

    options = dict(loss=LOSS, win_code=n_codes - 1, n_codes=n_codes, max_rounds=6, exact_rule=unit != 2)
    big = exact_engine(answers_major, weights, classes, probes_major=probes_major, **options)
    small = exact_engine(answers_major, weights, classes, **options)
    assert big.unit == small.unit == unit and big.B is not big.A
    for size in (513, 650, n_answers):
        members = np.sort(rng.choice(n_answers, size, replace=False))
        for rounds in (1, 2, 4):
            a, b = big.first_pass(members, rounds), small.first_pass(members, rounds)
            assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()
