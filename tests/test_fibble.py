"""Fibble (docs/fibble.md, docs/rules.md §13.2): the one-lie filter against a brute-force filter
(every lie position of the row, every other colour) in a hypothesis test, the entropy kernel
against its plain-Python oracle, the session and solvers, and the exact value of a strategy
against an enumeration of every answer and every lie on a small game."""

from __future__ import annotations

import dataclasses
import itertools
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termo.core.errors import TermoError
from termo.core.feedback import colours
from termo.engine.lie_solver import LOSS, LieSolver, rows
from termo.engine.lies import LieSession, chance, reference_entropies, reference_filter, shown_by_one_lie
from termo.engine.session import Guess
from termo.exact.fibble import bracket, policy_value
from termo.games import get_game

COLOURS = st.text(alphabet="GYB", min_size=5, max_size=5)


def test_one_lie_shows_ten_rows_and_nine_next_to_four_greens():
    assert len(shown_by_one_lie("BBYBG")) == 10
    assert len(shown_by_one_lie("GGBGG")) == 9 and "GGGGG" not in shown_by_one_lie("GGBGG")
    assert chance("BBBBB", "BBYBB") == pytest.approx(0.1)
    assert chance("BBBBB", "BBBBB") == 0.0


@settings(max_examples=60, deadline=None)
@given(guess=st.integers(0, 12971), answer=st.integers(0, 2314), tile=st.integers(0, 4), other=st.integers(0, 1),
       free=COLOURS, arbitrary=st.booleans())
def test_the_lie_filter_equals_the_brute_force_filter(guess, answer, tile, other, free, arbitrary):
    game = get_game("fibble")
    word = game.probes_norm[guess]
    honest = colours(word, game.answers_norm[answer])
    lies = [c for c in "GYB" if c != honest[tile]]
    shown = free if arbitrary else honest[:tile] + lies[other] + honest[tile + 1:]
    if shown == game.win_pattern:
        return
    session = LieSession(game)
    kept = session.filter(Guess(word, word, guess), shown).tolist()
    assert kept == reference_filter(game, range(game.n_answers), word, shown)
    if not arbitrary and word != game.answers_norm[answer] and shown != game.win_pattern:
        assert answer in kept


def test_the_entropy_kernel_matches_its_oracle():
    game = get_game("fibble")
    session = LieSession(game)
    session.play("salet", "BBYBB")
    solver = LieSolver(game, level=2)
    members, weights = solver.state(session.candidates, session.likelihoods())
    bits = solver.entropies(members, weights)
    probes = [0, 7, 500, 2400, game.index_of("salet"), int(bits.argmax())]
    assert [round(float(bits[p]), 10) for p in probes] == \
        [round(x, 10) for x in reference_entropies(game, members.tolist(), weights.tolist(), probes)]


def test_the_session_weighs_candidates_and_refuses_what_cannot_win():
    game = get_game("fibble")
    session = LieSession(game)
    session.replay(["salet:BBYBB", "crony:BGBBB"])
    likely = session.likelihoods()
    assert likely.shape[0] == session.n_candidates
    assert {round(x, 12) for x in likely.tolist()} <= {0.01, round(1 / 90, 12), round(1 / 81, 12)}
    with pytest.raises(TermoError):
        LieSession(game, hard=True)
    with pytest.raises(TermoError):
        session.play("salet", "GGGGG")  # salet was shown with a lie: it is not the answer


def test_suggest_on_both_bases_at_levels_2_and_3():
    from termo.interface.suggest import suggest

    for name, history in (("fibble", ["salet:BBYBB"]), ("fibble-termo", ["tarso:BYBBB"])):
        for level in (2, 3):
            data = suggest(get_game(name), history, level=level, remaining=3)
            assert data["word"] and data["candidates"] > 2 and len(data["remaining"]) == 3
            assert (data["expected"] is None) == (level == 2)
    with pytest.raises(TermoError):
        suggest(get_game("fibble"), [], level=1)


@lru_cache(maxsize=None)
def tiny_game():
    """Seven answers and a few more guesses of English Wordle, with Fibble's rows (4 of them)."""
    base = get_game("fibble")
    answers = ("crane", "crate", "grape", "grate", "trace", "brace", "crave")
    probes = answers + ("tread", "pygmy")
    return dataclasses.replace(base, name="fibble-tiny", key="fibble-tiny", answers=answers, probes=probes,
                               icf=(0.0,) * len(answers), max_turns=4, default_opener="tread")


def enumerate_value(solver, game, opener):
    """The strategy's value by enumeration: every answer, every lie of every row it is shown."""
    def play(answer, history, turn, prob):
        if turn > game.max_turns:
            return [(prob, game.max_turns + LOSS, False)]
        if turn == 1:
            guess = opener
        else:
            session = LieSession(game)
            for word, shown in history:
                session.play(word, shown)
            members, weights = solver.state(session.candidates, session.likelihoods())
            guess = game.probes[solver.decide_state(members, weights, turn).index] if members.shape[0] > 1 \
                else game.answers[int(members[0])]
        if guess == game.answers[answer]:
            return [(prob, turn, True)]
        honest = colours(guess, game.answers[answer])
        options = shown_by_one_lie(honest)
        return [x for shown in options for x in play(answer, history + [(guess, shown)], turn + 1, prob / len(options))]

    outcomes = [x for a in range(game.n_answers) for x in play(a, [], 1, 1.0 / game.n_answers)]
    return sum(p * g for p, g, _ in outcomes), sum(p for p, _, won in outcomes if won)


def test_a_strategys_exact_value_matches_an_enumeration_of_every_lie():
    game = tiny_game()
    solver = LieSolver(game, level=2)
    members, weights = solver.state(range(game.n_answers))
    opener = game.index_of("tread")
    value, win = policy_value(solver, members, weights, 1, opener)
    want_value, want_win = enumerate_value(solver, game, "tread")
    assert value == pytest.approx(want_value, abs=1e-12) and win == pytest.approx(want_win, abs=1e-12)
    assert policy_value(solver, members, weights, 1, opener, memo={}) == pytest.approx((value, win), abs=1e-12)
    result = bracket(game, "tread")
    assert result["upper"] == pytest.approx(value, abs=1e-12) and result["win_within_rows"] == pytest.approx(win, abs=1e-12)
    assert 1.0 < result["lower"] <= result["upper"] + 1e-12


def test_rows_split_the_weight_of_a_state():
    game = tiny_game()
    solver = LieSolver(game, level=2)
    members, weights = solver.state(range(game.n_answers))
    parts = rows(solver.matrix, game, members, weights, game.index_of("crane"))
    assert sum(p for _, p, _, _ in parts) == pytest.approx(1.0)
    assert parts[0][0] == game.win_code and parts[0][1] == pytest.approx(1 / 7)


def test_the_seeded_battery_is_reproducible_and_its_lies_are_the_models():
    """Same seed, same games; every shown row is one lie away from the answer's true colours."""
    from termo.analysis.lie_battery import run_lie_battery
    from termo.core.feedback import colours, decode
    from termo.engine.lies import shown_by_one_lie

    game = get_game("fibble")
    a = run_lie_battery(game, n=6, seed=3, level=2)
    assert a == {**run_lie_battery(game, n=6, seed=3, level=2), "seconds": a["seconds"]}
    assert a["wins"] + a["histogram"].get("lost", 0) == 6
    for g in a["games"]:
        answer = game.answers_norm[game.answers.index(g["answer"])]
        for word, code in zip(g["played"], g["shown"]):
            honest = colours(game.probes_norm[game.index_of(word)], answer)
            assert decode(code, game.word_length) in shown_by_one_lie(honest)


def test_the_battery_command(tmp_path, capsys):
    """`termo bench battery --game fibble`: N seeded games at the levels asked, JSON on stdout;
    a strategy of the honest games is refused with one line."""
    import json

    from cli.app import main

    args = ["bench", "battery", "--game", "fibble", "--n", "3", "--seed", "1", "--out", str(tmp_path)]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["level"] for s in data["strategies"]] == [2] and data["strategies"][0]["n"] == 3
    assert main([*args, "--strategies", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "level2 and level3" in err[0]


class _Stopped(Exception):
    pass


class _StopAfter:
    """An executor that runs its chunks here and stops the run after ``n`` of them (a killed run)."""

    def __init__(self, n: int):
        from termo.core.executors import LocalExecutor

        self.n, self.inner = n, LocalExecutor()

    def run(self, tasks):
        for i, done in enumerate(self.inner.run(tasks)):
            if i == self.n:
                raise _Stopped
            yield done


def test_the_bracket_cut_by_rows_equals_the_uncut_walk_and_a_resumed_run_the_fresh_one(tmp_path):
    """Every opener row a chunk, checkpointed, killed after three chunks and resumed: the same
    numbers, bit for bit, as one chunk of every row; its upper bound is the policy's value walked
    from the root in one piece, its lower bound the honest exact optimum row by row."""
    from termo.exact.fibble import row_store
    from termo.exact.search import Problem

    game = tiny_game()
    uncut = bracket(game, "tread", chunk=1000)
    keys = ("lower", "upper", "win_within_rows", "row_values", "policy_states", "lower_nodes")
    with pytest.raises(_Stopped):
        bracket(game, "tread", chunk=1, store=row_store(tmp_path), executor=_StopAfter(3))
    partial = bracket(game, "tread", chunk=1, store=row_store(tmp_path), compute=False)
    assert partial["rows_settled"] == 3 and not partial["complete"] and partial["chunks_missing"] == partial["chunks"] - 3
    info: dict = {}
    resumed = bracket(game, "tread", chunk=1, store=row_store(tmp_path), info=info)
    assert info["resumed"] == 3 and info["computed"] == resumed["chunks"] - 3 and resumed["complete"]
    assert {k: resumed[k] for k in keys} == {k: uncut[k] for k in keys}
    assert partial["lower"] <= resumed["lower"] and partial["upper"] >= resumed["upper"]
    solver = LieSolver(game, level=2)
    members, weights = solver.state(range(game.n_answers))
    value, win = policy_value(solver, members, weights, 1, game.index_of("tread"))
    assert uncut["upper"] == pytest.approx(value, abs=1e-12) and uncut["win_within_rows"] == pytest.approx(win, abs=1e-12)
    assert uncut["lower_rows_proved"] and uncut["rows_of_opener"] == len(uncut["row_values"])
    honest = 1.0
    for code, p, m, w in rows(solver.matrix, game, members, weights, game.index_of("tread")):
        if code != game.win_code:
            problem = Problem(game, weights=[float(w[list(m).index(a)]) if a in m else 1.0
                                             for a in range(game.n_answers)], loss=LOSS)
            honest += p * problem.engine.solve(m, game.max_turns - 1)[0] / problem.weight(m)
    assert uncut["lower"] == pytest.approx(honest, abs=1e-12)


def test_a_tampered_row_checkpoint_is_recomputed(tmp_path):
    from termo.exact.fibble import row_store

    game = tiny_game()
    fresh = bracket(game, "tread", chunk=4, store=row_store(tmp_path))
    path = sorted(tmp_path.glob("*.json"))[0]
    path.write_text(path.read_text().replace("[", "[[", 1))
    said: list = []
    again = bracket(game, "tread", chunk=4, store=row_store(tmp_path), warn=said.append)
    assert len(said) == 1 and "rejected" in said[0] and again["upper"] == fresh["upper"]


def test_the_walks_shortcuts_are_level_twos_decisions_bit_for_bit():
    """`policy_guess` is `decide_state`'s first choice and `best_probes` the probes of the kernel's
    most entropy (rounded to 1e-12), on states of English Fibble of 1 to 160 candidates, equal
    weights (many ties) or not."""
    import numpy as np

    from termo.exact.fibble import best_probes, policy_guess

    game = get_game("fibble")
    solver = LieSolver(game, level=2)
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 4, 5, 7, 8, 12, 13, 40, 160):
        for weights in (np.full(n, 0.1), rng.choice([0.1, 1 / 9, 0.01], n)):
            start = int(rng.integers(0, game.n_answers - 3 * n))
            members = np.arange(start, start + 3 * n, 3, dtype=np.int64)  # neighbours in the list: alike words
            assert policy_guess(solver, members, weights, 2) == solver.decide_state(members, weights, 2).index
            if n > 2:
                key = np.round(np.asarray(solver.entropies(members, weights)), 12)
                assert np.array_equal(best_probes(solver, members, weights), np.flatnonzero(key == key.max()))
