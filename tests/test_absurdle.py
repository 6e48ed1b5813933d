"""Absurdle (docs/absurdle.md, docs/rules.md §13.1): the adversary's compiled rule against its
plain-Python oracle on every guess of sampled games, the session that colours guesses itself, and
the forced-win search and challenge mode against brute force on a small closed word list."""

from __future__ import annotations

import dataclasses
import random
from functools import lru_cache

import pytest

from termo.core.errors import TermoError
from termo.core.feedback import decode
from termo.engine.adversary import Adversary, AdversarySession, reference_choice
from termo.engine.adversary_search import AdversarySolver, ForcedSearch
from termo.engine.hard_mode import from_rounds, is_legal
from termo.exact.absurdle import prove_minimum
from termo.exact.absurdle_challenge import solve_challenge
from termo.games import get_game

FAMILY = ("eight fight light might night right sight tight wight batch catch hatch latch match patch watch "
          "bound found hound mound pound round sound wound").split()
EXTRA = "flows champ brown swift plumb wreck hymns gawky tempo drink clasp fresh".split()


@lru_cache(maxsize=None)
def small_game():
    """A closed game of the adversary's model: 24 answers of three families, 36 guesses."""
    base = get_game("absurdle")
    answers = tuple(sorted(FAMILY))
    probes = answers + tuple(sorted(EXTRA))
    return dataclasses.replace(base, name="absurdle-small", key="absurdle-small", answers=answers, probes=probes,
                               icf=(0.0,) * len(answers), default_opener="champ")


def brute(game, hard: bool = False, max_left: int = 3):
    """Every shortest sequence of guesses that leaves one answer, by plain Python over every
    guess at every step (hard mode: the legal ones, `is_legal`): ``(left, [(guesses, final)])``."""
    def walk(state, left, rounds):
        out = []
        for g in range(game.n_probes):
            word = game.probes_norm[g]
            if hard and not is_legal(from_rounds(rounds, game.word_length), word)[0]:
                continue
            pattern, kept = reference_choice(game, state, word)
            if len(kept) == 1:
                if left == 1:
                    out.append(((g,), kept[0]))
                continue
            if left > 1:
                out += [((g,) + seq, f) for seq, f in walk(tuple(kept), left - 1, rounds + [(word, pattern)])]
        return out

    root = tuple(range(game.n_answers))
    for left in range(1, max_left + 1):
        found = walk(root, left, [])
        if found:
            return left, found
    return None, []


def test_the_adversary_matches_its_oracle_on_every_guess_of_sampled_games():
    game = get_game("absurdle")
    adv = Adversary(game)
    rng = random.Random(38)
    checked = 0
    for _ in range(12):
        state = adv.root()
        while state.shape[0] > 1:
            probe = rng.randrange(game.n_probes) if rng.random() < 0.7 else int(state[rng.randrange(state.shape[0])])
            code, kept = adv.choose(state, probe)
            pattern, ref_kept = reference_choice(game, state.tolist(), game.probes_norm[probe])
            assert decode(code, 5) == pattern and kept.tolist() == ref_kept
            codes, sizes = adv.pick(state, [probe])
            assert (int(codes[0]), int(sizes[0])) == (code, len(ref_kept))
            state = kept
            checked += 1
    assert checked > 40


def test_ties_keep_the_fewest_greens_then_yellows_then_the_leftmost():
    game = small_game()
    # two answers left, either guessed: the other's group wins the tie (fewer greens than the win)
    state = [FAMILY.index("eight") if False else sorted(FAMILY).index(w) for w in ("light", "might")]
    pattern, kept = reference_choice(game, state, "light")
    assert pattern == "BGGGG" and [game.answers[a] for a in kept] == ["might"]
    pattern, kept = reference_choice(game, state, "might")
    assert [game.answers[a] for a in kept] == ["light"]


def test_the_session_colours_the_guesses_itself():
    game = get_game("absurdle")
    session = AdversarySession(game)
    session.replay(["tyler", "munis:BBBBB"])
    assert [r.pattern for r in session.rounds] == ["BBBBB", "BBBBB"]
    with pytest.raises(TermoError) as err:
        session.play("batch", "GGGGG")
    assert err.value.code == "adversary.colours"
    outcome = session.play("batch")
    assert outcome.round.after == 1
    last = session.candidate_list()[0]
    assert session.play(game.answers[last]).status == "won"


@pytest.mark.parametrize("hard", [False, True])
def test_the_minimum_and_every_winning_sequence_match_brute_force(hard):
    game = small_game()
    left, found = brute(game, hard)
    result = prove_minimum(game, hard=hard, local_game=True)
    assert result["proved"] and result["minimum"] == left + 1
    expected = sorted([game.probes[g] for g in seq] + [game.answers[f]] for seq, f in found)
    assert sorted(result["wins"]) == expected
    assert result["sequences"] == len(found) and result["final_words"] == len({f for _, f in found})


def test_challenge_mode_matches_brute_force_for_every_target():
    game = small_game()
    minimum = prove_minimum(game, local_game=True)
    table = solve_challenge(game, minimum, local_game=True, budget=10**6)
    best: dict = {}
    for left in range(1, 4):
        for seq, final in brute_all(game, left):
            best.setdefault(final, left + 1)
    for row in table["rows"]:
        a = game.answers.index(row["target"])
        assert row["proved"] and row["lower"] == best.get(a, row["lower"]), row
        if a in best:
            assert row["lower"] == best[a]
        replay = AdversarySession(game, hard=False)
        replay.replay(row["guesses"])
        assert replay.won and replay.rounds[-1].guess == row["target"]


def brute_all(game, left):
    """Every sequence of exactly ``left`` guesses that leaves one answer (none sooner)."""
    def walk(state, k):
        out = []
        for g in range(game.n_probes):
            _, kept = reference_choice(game, state, game.probes_norm[g])
            if len(kept) == 1:
                if k == 1:
                    out.append(((g,), kept[0]))
            elif k > 1:
                out += [((g,) + s, f) for s, f in walk(tuple(kept), k - 1)]
        return out

    return walk(tuple(range(game.n_answers)), left)


def test_level3_forces_the_fastest_win_and_level2_the_smallest_group():
    game = small_game()
    adv = Adversary(game)
    search = ForcedSearch(adv)
    depth, wins = search.fastest(adv.root())
    solver = AdversarySolver(game, level=3)
    decision = solver.decide(list(range(game.n_answers)), 1)
    assert decision.choice.expected == depth + 1
    assert decision.index in {w.guesses[0] for w in wins}
    level2 = AdversarySolver(game, level=2).decide(list(range(game.n_answers)), 1)
    _, sizes = adv.pick(adv.root())
    assert round(2 ** -level2.choice.bits * game.n_answers) == int(sizes.min())


def test_optimal_status_reads_the_checkpoints_only(tmp_path, capsys):
    """`termo optimal --game absurdle --status` computes nothing: with no checkpoint it says the
    first round has every chunk to go (and how to go on); --rank and --opener are refused."""
    from cli.app import main

    assert main(["optimal", "--game", "absurdle", "--status", "--checkpoint-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "no win in fewer than 2 guesses (proved); 0 of 12,927 first words" in out and "--resume" in out
    assert list(tmp_path.iterdir()) == []
    for extra in (["--rank", "5"], ["--opener", "tyler"]):
        assert main(["optimal", "--game", "absurdle", *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("termo: error: "), err


def test_the_chunks_are_checkpointed_and_resumed(tmp_path):
    """A round's chunks are written as they finish; a second run reuses every one (none computed),
    a damaged file is said and recomputed; --status (compute off) counts what is missing."""
    from dataclasses import dataclass

    from termo.exact.absurdle import ChunkRunner, forced_store

    calls = []

    @dataclass(frozen=True)
    class Task:
        items: tuple
        key: str

        def run(self):
            calls.append(self.key)
            return [[w + 1, [[w, 0]]] for w in self.items]

    tasks = [Task((0, 1), "k0"), Task((2, 3), "k1")]
    first = ChunkRunner(forced_store(tmp_path), None)
    first.total = 4
    got = first.run(tasks, {}, "round")
    assert got == {0: [1, [[0, 0]]], 1: [2, [[1, 0]]], 2: [3, [[2, 0]]], 3: [4, [[3, 0]]]}
    assert (first.computed, first.resumed, calls) == (2, 0, ["k0", "k1"])
    again = ChunkRunner(forced_store(tmp_path), None)
    assert again.run(tasks, {}, "round") == got and (again.computed, again.resumed, len(calls)) == (0, 2, 2)
    forced_store(tmp_path).path("k1").write_text("{not json")
    warned = []
    third = ChunkRunner(forced_store(tmp_path), None, warn=warned.append)
    assert third.run(tasks, {}, "round") == got and third.computed == 1 and calls[-1] == "k1"
    assert len(warned) == 1 and "k1.json rejected" in warned[0]
    forced_store(tmp_path).path("k0").unlink()
    status = ChunkRunner(forced_store(tmp_path), None, compute=False)
    assert status.run(tasks, {}, "round") == {2: got[2], 3: got[3]} and status.missing == 1


def test_a_review_is_refused_where_the_colours_are_not_honest(capsys):
    """`termo review` weighs guesses against honest colours: Absurdle and Fibble are refused in one
    line, with their own catalogue code."""
    from cli.app import main
    from termo.interface.review import review_request

    for game, item in (("absurdle", "tyler:BBBBB"), ("fibble", "raise:BYBBB")):
        assert main(["review", "--game", game, item]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "review weighs each guess against honest colours" in err[0], err
        with pytest.raises(TermoError) as caught:
            review_request(game, [item])
        assert caught.value.code == "review.feedback_model"
