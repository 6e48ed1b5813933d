"""Lockstep evaluation (termo.analysis.lockstep) against a plain-Python, one-game-at-a-time oracle.

The oracle plays each secret separately with the scalar feedback rule (``termo.core.feedback``),
exactly as docs/rules.md §7.1 describes; the lockstep evaluator must give the same turn for every secret,
on every backend, for state policies and for the history-dependent random strategy.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from termo.analysis.lockstep import play_lockstep
from termo.analysis.strategies import BranchRandom, FixedOpener
from termo.core.errors import TermoError
from termo.core.feedback import colours, encode
from termo.engine.matrix import pattern_matrix
from termo.core.prior import prior_weights


# --- small policies (plain Python, no engine needed) -------------------------------------------
class MostProbable:
    """argmax prior over the candidates, first index on ties (docs/rules.md §4 'most probable')."""

    def __init__(self, prior):
        self.prior = list(prior)

    def choose(self, candidates, turn):
        best = None
        for c in candidates:
            c = int(c)
            if best is None or self.prior[c] > self.prior[best]:
                best = c
        return best

    def choose_many(self, states, turns):
        return [self.choose(s, t) for s, t in zip(states, turns)]


class Hashy:
    """A deterministic but irregular state policy that sometimes plays a non-candidate probe."""

    def __init__(self, n_probes):
        self.n_probes = n_probes

    def choose(self, candidates, turn):
        cs = [int(c) for c in candidates]
        h = (sum(cs) * 31 + len(cs) * 7 + turn) % 97
        if h % 3 == 0:
            return (h * 61 + cs[0]) % self.n_probes  # any probe, candidate or not
        return cs[h % len(cs)]

    def choose_many(self, states, turns):
        return [self.choose(s, t) for s, t in zip(states, turns)]


def oracle_games(game, policy, secrets, initial=None, max_turns=6):
    """Spec §7.1, one game at a time, colours from the plain-Python rule."""
    out = []
    for secret in secrets:
        if hasattr(policy, "reset"):
            policy.reset()
        cands = list(range(game.n_answers)) if initial is None else sorted(initial)
        solved = 0
        for turn in range(1, max_turns + 1):
            g = policy.choose(np.asarray(cands, dtype=np.int64), turn)
            if g == secret:
                solved = turn
                break
            code = encode(colours(game.probes_norm[g], game.answers_norm[secret]))
            cands = [c for c in cands if encode(colours(game.probes_norm[g], game.answers_norm[c])) == code]
            assert cands, "the secret always stays a candidate"
        out.append(solved)
    return out


@pytest.fixture(scope="module")
def prior(game):
    return np.asarray(prior_weights(game.icf, 1.0))


@pytest.fixture(scope="module")
def some_secrets(game):
    rng = np.random.default_rng(7)
    return sorted(rng.choice(game.n_answers, size=40, replace=False).tolist())


@pytest.fixture(scope="module")
def most_probable_oracle(game, prior, some_secrets):
    return oracle_games(game, MostProbable(prior), some_secrets)


@pytest.fixture(scope="module")
def random_oracle(game, some_secrets):
    return oracle_games(game, BranchRandom(seed=3), some_secrets)


def test_most_probable_matches_the_oracle_on_every_backend(game, prior, some_secrets, most_probable_oracle, backend):
    policy = MostProbable(prior)
    matrix = pattern_matrix(game, backend)
    result = play_lockstep(policy, matrix, some_secrets, backend=backend)
    assert result.solved_turn == most_probable_oracle
    assert result.secrets == some_secrets


def test_random_branch_policy_reproduces_sequential_games(game, some_secrets, random_oracle, backend):
    expected = random_oracle
    result = play_lockstep(BranchRandom(seed=3), pattern_matrix(game, backend), some_secrets, backend=backend)
    assert result.solved_turn == expected
    # the generator is re-created every game, so the first guess is shared by all of them
    assert result.nodes_per_turn[0] == 1


def test_non_candidate_probes_and_open_world_start(game, backend):
    initial = list(range(100, 400, 3))
    secrets = initial[::4]
    policy = Hashy(game.n_probes)
    expected = oracle_games(game, policy, secrets, initial=initial)
    result = play_lockstep(policy, pattern_matrix(game, backend), secrets, initial, backend=backend)
    assert result.solved_turn == expected


def test_fixed_opener_plays_the_opener_first(game, prior):
    opener = game.index_of("tarso")
    policy = FixedOpener(opener, MostProbable(prior))
    secrets = [opener, game.index_of("muito"), game.index_of("termo")]
    result = play_lockstep(policy, pattern_matrix(game), secrets)
    assert result.first_guess == opener
    assert result.solved_turn[0] == 1  # the opener itself is won on turn 1
    assert all(t >= 2 for t in result.solved_turn[1:])


def test_loss_after_max_turns_and_win_rule(game):
    class Stubborn:  # always plays probe 0 ('ababá'), never anything else
        def choose_many(self, states, turns):
            return [0] * len(states)

    secrets = [0, 1, 2]
    result = play_lockstep(Stubborn(), pattern_matrix(game), secrets, max_turns=6)
    assert result.solved_turn[0] == 1
    assert result.solved_turn[1:] == [0, 0]  # never guessed: lost after 6 turns
    assert len(result.nodes_per_turn) == 6


def test_states_are_deduplicated_per_turn(game, prior):
    calls = []

    class Recorder(MostProbable):
        def choose_many(self, states, turns):
            keys = [s.tobytes() for s in states]
            assert len(set(keys)) == len(keys), "a state was asked twice in one turn"
            assert all(np.all(np.diff(s) > 0) for s in states), "states are ascending"
            calls.append(len(states))
            return super().choose_many(states, turns)

    secrets = list(range(0, 6046, 37))
    result = play_lockstep(Recorder(prior), pattern_matrix(game), secrets)
    assert calls == result.decisions_per_turn[: len(calls)]
    assert calls[0] == 1


def test_errors(game, prior):
    with pytest.raises(TermoError):
        play_lockstep(MostProbable(prior), pattern_matrix(game), [5], initial=[1, 2, 3])
    with pytest.raises(TermoError):
        play_lockstep(MostProbable(prior), pattern_matrix(game), [5], initial=[])
    class OutOfRange:
        def choose_many(self, states, turns):
            return [game.n_probes] * len(states)

    with pytest.raises(TermoError):
        play_lockstep(OutOfRange(), pattern_matrix(game), [5])
    empty = play_lockstep(MostProbable(prior), pattern_matrix(game), [])
    assert empty.solved_turn == [] and empty.games == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_property_lockstep_equals_oracle(game, data):
    """Random worlds (initial sets), random secrets inside them, an irregular policy."""
    initial = data.draw(st.lists(st.integers(0, game.n_answers - 1), min_size=1, max_size=60, unique=True))
    secrets = data.draw(st.lists(st.sampled_from(sorted(initial)), min_size=1, max_size=20))
    max_turns = data.draw(st.integers(1, 6))
    policy = Hashy(game.n_probes)
    expected = oracle_games(game, policy, secrets, initial=initial, max_turns=max_turns)
    result = play_lockstep(policy, pattern_matrix(game), secrets, initial, max_turns=max_turns)
    assert result.solved_turn == expected


def test_engine_entropy_policy_lockstep_equals_sequential_games(game):
    """The engine's level-2 policy, lockstep (deduplicated states, size classes, cached opener)
    versus one game at a time through its plain ``choose``, in an open world."""
    pytest.importorskip("termo.engine.solver")
    from termo.analysis.strategies import build_policy
    from termo.analysis.worlds import full_world, open_world
    from termo.book.policies import make_policy

    for world in (full_world(t=1.0), open_world(400, t=2.0)):
        secrets = world.candidates()[::23][:25]
        prior = None if world.prior is None else world.weights()
        sequential = make_policy("entropy", world.load_game(), t=world.t, prior=prior)
        expected = oracle_games(game, sequential, secrets, initial=world.initial)
        result = play_lockstep(build_policy("entropy", world), pattern_matrix(game), secrets, world.initial)
        assert result.solved_turn == expected
