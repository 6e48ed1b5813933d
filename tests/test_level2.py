"""Level 2 (docs/rules.md §5): published entropies, the §5.2 order, the §5.3 endgame rule, batching."""

from __future__ import annotations

import math

import pytest

from termo.book import openers
from termo.engine.solver import Solver

from transcripts import decide_after, filtered


@pytest.fixture(scope="module")
def s2(game):
    return Solver(game, level=2)


def test_published_opener_ranking_bit_exact(game, s2):
    d = openers.opener(s2, optimal=True)
    got = [(c.word, c.bits) for c in (d.choice,) + d.alternatives]
    assert got == [
        ("tarso", 5.9748166899580495),
        ("tirão", 5.966022295973092),
        ("tória", 5.951875244762977),
        ("sertã", 5.937733558842206),
        ("teira", 5.923875107004805),
        ("tosar", 5.906771015269017),
    ]
    assert d.reason == "maximum entropy over 6046 candidates"


def test_uniform_prior_opener_is_cairo(game):
    s = Solver(game, level=2, t=math.inf)
    d = openers.opener(s, optimal=True)
    assert d.word == "cairo"
    assert d.choice.bits == 6.202837886904743


def test_interface_opener_is_tarso(game):
    s = Solver(game, level=2, t=math.inf)
    d = openers.opener(s)
    assert d.word == "tarso"
    assert d.alternatives[0].word == "cairo"
    assert all(a.word != "tarso" for a in d.alternatives)


def test_mid_game_miude(game, s2):
    _, d = decide_after(game, s2, range(game.n_answers), "tarso", "BBGBB", size=51, turn=2)
    assert d.word == "miúde"
    assert round(d.choice.bits, 3) == 2.006


def test_endgame_rules(game, s2):
    cands = filtered(game, range(game.n_answers), "tarso", "BBBBB")
    assert len(cands) == 223
    icf = game.icf
    last = s2.decide(cands, 6)
    assert last.reason == "last turn: the most common candidate"
    assert last.index == min(cands, key=lambda c: (icf[c], c))
    three = [int(c) for c in cands[:3]]
    late = s2.decide(three, 5)
    assert late.index == min(three, key=lambda c: (icf[c], c))
    assert [a.index for a in late.alternatives] == sorted(three, key=lambda c: (icf[c], c))[1:]
    two = [int(c) for c in cands[10:12]]
    d = s2.decide(two, 2)
    assert d.reason == "only two candidates left: the more common one"
    assert d.index == min(two, key=lambda c: (icf[c], c))
    assert s2.decide([int(cands[0])], 3).index == int(cands[0])


def test_lowest_icf_not_max_prior_at_infinite_t(game):
    s = Solver(game, level=2, t=math.inf)
    cands = filtered(game, range(game.n_answers), "tarso", "BBBBB")[:40]
    assert s.decide(cands, 6).word == "civil"


def test_decide_many_matches_decide(game, s2):
    base = range(game.n_answers)
    states = [filtered(game, base, "tarso", p) for p in ("BBBBB", "BBGBB", "YBBBB", "GBBBB")]
    states.append(states[0][:3])
    turns = [2, 2, 3, 6, 5]
    assert s2.decide_many(states, turns) == [s2.decide(c, t).index for c, t in zip(states, turns)]


# --- policies (docs/rules.md §4) ---------------------------------------------------------------------
def test_policies_openers_and_rules(game):
    from termo.book.policies import make_policy

    everything = list(range(game.n_answers))
    assert game.probes[make_policy("letters", game).choose(everything, 1)] == "oreia"
    assert game.probes[make_policy("likely", game).choose(everything, 1)] == "muito"
    assert game.probes[make_policy("entropy", game).choose(everything, 1)] == "tarso"
    rnd = make_policy("random", seed=0)
    first = rnd.choose(everything, 1)
    rnd.choose(everything, 2)
    rnd.reset()
    assert rnd.choose(everything, 1) == first  # the generator restarts every game
    import numpy

    assert first == int(numpy.random.default_rng(0).choice(everything))


def test_policy_choose_many_equals_choose(game):
    from termo.book.policies import make_policy

    states = [filtered(game, range(game.n_answers), "tarso", p) for p in ("BBBBB", "BBGBB", "YBBBB")]
    turns = [2, 3, 5]
    for name in ("letters", "likely", "entropy"):
        pol = make_policy(name, game)
        assert pol.choose_many(states, turns) == [pol.choose(s, t) for s, t in zip(states, turns)]
    with pytest.raises(ValueError):
        make_policy("nope", game)


def test_level1_solver_decision(game):
    s = Solver(game, level=1)
    d = s.decide(range(game.n_answers), 1)
    assert d.word == "oreia"
    assert d.reason == "most frequent letters among 6046 candidates"
    assert s.decide_many([list(range(game.n_answers))], [1]) == [d.index]
