"""The review (termo.analysis.review) against plain-Python oracles on small games.

Every value of every turn — the best expected guesses, the player's guess's, the best of the state
the colours left, the cost and the luck — is checked against the exhaustive expectimax of
`solver_oracles.Oracle` (every probe at every state, no bound) on small closed worlds (a
Termo-like game of 24 answers, uniform and weighted, normal and hard mode, turn limits that force
losses; a Nerdle Mini subset with commutative wins); the modes' review against the brute-force
joint expectimax (`solver_oracles.joint_brute_force`) under each objective; level 3's values
against `solver_oracles.Level3Oracle`.
"""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest

from solver_oracles import nerdle_small_world, small  # noqa: F401 (the closed worlds' fixtures)
from solver_oracles import Level3Oracle, Oracle, joint_brute_force, tiny_game
from termo.analysis.review import luck_score, review_game, review_mode, skill_score, verdict
from termo.core.feedback import decode
from termo.engine import hard_mode
from termo.engine.matrix import expected_code
from termo.exact.search import answer_weights
from termo.games.mode import Mode

REL = 1e-12


def uniform(game):
    return dataclasses.replace(game, icf=(0.0,) * game.n_answers, uniform_prior=True)


def pattern(game, g: int, a: int) -> str:
    return decode(expected_code(game, g, a), game.word_length)


def random_games(game, count: int, seed: int, hard: bool = False):
    """Games of random guesses (legal ones in hard mode) until the answer or the turn limit."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        answer = rng.randrange(game.n_answers)
        rule = hard_mode.free(game.word_length)
        rounds = []
        for _turn in range(game.max_turns):
            legal = [p for p in range(game.n_probes) if not hard or hard_mode.is_legal(rule, game.probes_norm[p])[0]]
            g = rng.choice(legal)
            pat = pattern(game, g, answer)
            rounds.append((game.probes[g], pat))
            if hard:
                rule = rule.merge(hard_mode.from_round(game.probes_norm[g], pat))
            if pat == game.win_pattern:
                break
        out.append(rounds)
    return out


def guess_total(oracle, members, rounds, g, constraint):
    """The oracle's total after ``g``, also for a guess that splits nothing (never chosen by its
    minimum, but a player may play it: it costs a turn and leaves the state as it was)."""
    total = oracle.guess_cost(members, rounds, g, constraint)
    if math.isinf(total):
        total = sum(oracle.w[a] for a in members) + oracle.cost(members, rounds - 1, constraint)
    return total


def check_against_oracle(game, rounds, hard=False, t=1.0):
    data = review_game(game, rounds, hard=hard, t=t, nodes=10_000_000, first_nodes=10_000_000)
    weights, _ = answer_weights(game, t)
    oracle = Oracle(game, weights, hard)
    members = tuple(range(game.n_answers))
    rule = hard_mode.free(game.word_length) if hard else None
    for k, ((word, pat), row) in enumerate(zip(rounds, data["turns"]), start=1):
        g = game.index_of(word)
        r = game.max_turns - k + 1
        W = sum(oracle.w[a] for a in members)
        best = oracle.cost(members, r, rule) / W
        mine = guess_total(oracle, members, r, g, rule) / W
        after = tuple(a for a in members if pattern(game, g, a) == pat)
        child_rule = rule.merge(hard_mode.from_round(game.probes_norm[g], pat)) if hard else None
        won = pat == game.win_pattern
        nxt = 0.0 if won else oracle.cost(after, r - 1, child_rule) / sum(oracle.w[a] for a in after)
        assert row["method"] == "exact", row
        assert row["best_value"] == pytest.approx(best, rel=REL, abs=0), (k, row)
        assert row["guess_value"] == pytest.approx(mine, rel=REL, abs=0), (k, row)
        assert row["next_value"] == pytest.approx(nxt, rel=REL, abs=0), (k, row)
        assert row["cost"] >= 0 and row["cost"] == pytest.approx(max(mine - best, 0.0), abs=1e-9)
        assert row["luck"] == pytest.approx(mine - 1 - nxt, abs=1e-9)
        assert (row["cost"] == 0) == (row["verdict"] == "perfect")
        best_probe = game.index_of(row["best"][0])
        assert guess_total(oracle, members, r, best_probe, rule) / W == pytest.approx(best, rel=REL, abs=0)
        members, rule = after, child_rule
    return data


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("turns", [6, 3])
def test_every_value_equals_the_exhaustive_expectimax(small, weighted, turns):
    game = dataclasses.replace(small if weighted else uniform(small), max_turns=turns)
    for rounds in random_games(game, 8, seed=turns + 10 * weighted):
        check_against_oracle(game, rounds)


@pytest.mark.parametrize("weighted", [False, True])
def test_hard_mode_values_equal_the_exhaustive_expectimax(small, weighted):
    game = dataclasses.replace(small if weighted else uniform(small), max_turns=4)
    for rounds in random_games(game, 6, seed=7, hard=True):
        check_against_oracle(game, rounds, hard=True)


def test_commutative_wins_equal_the_exhaustive_expectimax(nerdle_small):
    assert nerdle_small.win_classes
    for turns in (6, 3):
        game = dataclasses.replace(nerdle_small, max_turns=turns)
        for rounds in random_games(game, 6, seed=turns):
            check_against_oracle(game, rounds)


def test_an_exact_game_adds_up_to_what_it_cost(small):
    """start + Σ cost − Σ luck = the guesses used (a loss: the limit plus the loss cost)."""
    for turns in (6, 3):
        game = dataclasses.replace(uniform(small), max_turns=turns)
        for rounds in random_games(game, 6, seed=3 + turns):
            data = review_game(game, rounds)
            assert data["method"] == "exact"
            assert data["over"] and data["result"] == (len(rounds) if data["won"] else turns + 7.0)
            assert data["start_value"] + data["total_cost"] - data["total_luck"] == pytest.approx(data["result"])


def test_a_review_is_deterministic(small):
    game = uniform(small)
    rounds = random_games(game, 1, seed=5)[0]
    assert review_game(game, rounds, nodes=3) == review_game(game, rounds, nodes=3)


def test_past_its_budget_a_turn_is_level3_and_says_so():
    """With a budget of one state the search proves only the states its closed forms settle: the
    others are valued by level 3 (the values of its plain-Python oracle), never mixed with exact ones."""
    game = uniform(tiny_game(60, 15))
    oracle = Level3Oracle(game, np.ones(game.n_answers) / game.n_answers)
    seen = set()
    for rounds in random_games(game, 6, seed=11):
        data = review_game(game, rounds, nodes=1, first_nodes=1)
        members = list(range(game.n_answers))
        for k, ((word, pat), row) in enumerate(zip(rounds, data["turns"]), start=1):
            seen.add(row["method"])
            g = game.index_of(word)
            if row["method"] == "level3":
                want = oracle.cost(g, members, game.max_turns - k, 1)
                assert row["guess_value"] == pytest.approx(want, rel=REL)
                assert row["best_value"] <= row["guess_value"] and row["cost"] >= 0
                assert row["best_value"] == pytest.approx(
                    min(oracle.cost(game.index_of(b), members, game.max_turns - k, 1) for b in row["best"]), rel=REL)
            members = [a for a in members if pattern(game, g, a) == pat]
        assert data["method"] in ("exact", "level3", "mixed")
    assert "level3" in seen


@pytest.fixture(scope="module")
def tiny_mode():
    return Mode(tiny_game(12, 4, step=173, offset=11), 2, 4, key="tiny-x2")


def mode_games(mode, count, seed):
    game = mode.game
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        answers = rng.sample(range(game.n_answers), mode.boards)
        solved = [False] * mode.boards
        rounds = []
        for _turn in range(mode.max_turns):
            g = rng.choice(range(game.n_probes)) if rng.random() < 0.5 else rng.choice(
                [a for a, s in zip(answers, solved) if not s])
            pats = [None if s else pattern(game, g, a) for s, a in zip(solved, answers)]
            rounds.append((game.probes[g], pats))
            solved = [s or p == game.win_pattern for s, p in zip(solved, pats)]
            if all(solved):
                break
        out.append(rounds)
    return out


@pytest.mark.parametrize("objective", ["finish", "score", "win"])
def test_the_modes_review_equals_the_brute_force_joint_expectimax(tiny_mode, objective):
    game = tiny_mode.game
    value, cost = joint_brute_force(game, objective)
    for rounds in mode_games(tiny_mode, 6, seed=len(objective)):
        data = review_mode(tiny_mode, rounds, objective=objective, nodes=10**9)
        boards = [tuple(range(game.n_answers))] * tiny_mode.boards
        for k, ((word, pats), row) in enumerate(zip(rounds, data["turns"]), start=1):
            g = game.index_of(word)
            r = tiny_mode.max_turns - k + 1
            state = tuple(sorted(boards))
            after = [tuple(a for a in b if pattern(game, g, a) == p)
                     for b, p in zip(boards, [p for p in pats if p is not None]) if p != game.win_pattern]
            assert row["method"] == "exact", row
            assert row["best_value"] == pytest.approx(value(state, r), abs=1e-12)
            assert row["guess_value"] == pytest.approx(cost(state, g, r), abs=1e-12)
            assert row["next_value"] == pytest.approx(value(tuple(sorted(after)), r - 1), abs=1e-12)
            for b in row["best"]:
                assert cost(state, game.index_of(b), r) == pytest.approx(value(state, r), abs=1e-12)
            boards = after


def test_scores_and_verdicts():
    assert skill_score(0.0) == 99 and skill_score(0.5) == 36 and skill_score(100.0) == 0
    assert luck_score(0.0) == 50 and luck_score(-100.0) == 0 and luck_score(100.0) == 99
    assert [verdict(c) for c in (0.0, 0.01, 0.07, 0.15, 0.3, 0.4, 0.6, None)] == [
        "perfect", "near_perfect", "good", "fair", "not_great", "bad", "very_bad", None]


# ----------------------------------------------------------------------------- Selby's exact analysis
# `wordle -a wordlist_orig_all -h wordlist_orig_hidden -A <guesses>` (github alex1770/wordle, built from
# source as bench/bench_review_selby.py builds it, its report printed to 12 decimals): per turn the best
# expected guesses, the player's guess's and the luck, every answer to be found within six guesses
# (termo's --loss inf). The other games: bench/results/review-selby.json.
SELBY = {
    "salet.piper.dicey": [(3.421166306695, 3.421166306695, -0.401263599847),
                          (2.822429906542, 3.140186915888, 0.340186915888), (1.8, 2.2, 1.2)],
    "slate.sooth": [(3.421166306695, 3.424622030238, 0.424622030238), (2.0, 2.0, 1.0)],
    "reast.silky.sunny": [(3.421166306695, 3.422462203024, -0.119706471675),
                          (2.542168674699, 2.722891566265, -0.027108433735), (1.75, 2.0, 1.0)],
}


@pytest.mark.parametrize("game", sorted(SELBY))
def test_wordle_reviews_equal_selbys_exact_analysis(game):
    from termo.interface.review import review_request

    words = game.split(".")
    data = review_request("wordle", words, answer=words[-1], loss="inf", nodes=100_000_000)
    assert len(data["turns"]) == len(SELBY[game])
    for row, (best, mine, luck) in zip(data["turns"], SELBY[game]):
        assert row["method"] == "exact", row
        assert row["best_value"] == pytest.approx(best, abs=1e-9), row
        assert row["guess_value"] == pytest.approx(mine, abs=1e-9), row
        assert row["cost"] == pytest.approx(mine - best, abs=1e-9), row
        assert row["luck"] == pytest.approx(luck, abs=1e-9), row


@pytest.mark.slow
def test_where_selbys_analysis_misses_the_optimum_termo_finds_it():
    """crate owner viper piper riper, turn 2: Selby's analysis (its 10 best guesses of its heuristic
    order at the state) reports linos at 2.938053097345; asked for winds there (``-A
    crate.winds.riper``) Selby's program values it 2.929203539823: termo's best, proved."""
    from termo.interface.review import review_request

    words = "crate owner viper piper riper".split()
    data = review_request("wordle", words, answer=words[-1], loss="inf", nodes=100_000_000)
    row = data["turns"][1]
    assert row["method"] == "exact" and row["best_value"] == pytest.approx(2.929203539823, abs=1e-9)
    assert row["best_value"] < 2.938053097345 and row["guess_value"] == pytest.approx(3.159292035398, abs=1e-9)
