"""Hard mode (termo/engine/hard_mode.py): the rule, its vectorised mask against the plain-Python rule,
the session that enforces it, the decisions that respect it (levels 1-3), the CLI.

The rule (Selby; docs/rules.md §12.2): greens stay in place; a symbol that got n positive marks (green
or yellow) in one guess appears at least n times in every later guess; greys may be reused;
repeating a guess is legal."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from termo.engine import hard_mode as hm
from termo.core.errors import TermoError
from termo.core.feedback import colours
from termo.games import get_game
from termo.engine.session import Session

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def wordle():
    return get_game("wordle")


def _nerdle():
    try:
        return get_game("nerdle")
    except (ImportError, TermoError) as err:  # the plugin may not be there yet
        pytest.skip(f"nerdle is not available: {err}")


def _plain_mask(game, constraint):
    return [hm.is_legal(constraint, w, game.unit)[0] for w in game.probes_norm]


def _history(game, answer: int, guesses):
    """(guess_norm, pattern) rounds of the guesses against one answer (the game's own colours)."""
    a = game.answers_norm[answer]
    return [(game.probes_norm[g], colours(game.probes_norm[g], a)) for g in guesses]


# ------------------------------------------------------------------------ the rule itself


def test_constraint_of_a_round_counts_greens_and_yellows():
    c = hm.from_round("eerie", "GYYBB")  # against "ether": e green, e yellow, r yellow, greys
    assert c.greens == ("e", None, None, None, None)
    assert c.minimum == (("e", 2), ("r", 1))
    assert not c.free and hm.free(5).free


def test_merge_takes_the_maximum_and_unites_greens():
    a = hm.from_round("eerie", "GYYBB")
    b = hm.from_round("enter", "GBBYG")
    m = a.merge(b)
    assert m.greens == ("e", None, None, None, "r")
    assert dict(m.minimum) == {"e": 2, "r": 1}
    assert hm.from_rounds([("eerie", "GYYBB"), ("enter", "GBBYG")], 5) == m
    with pytest.raises(TermoError, match="position 1"):
        hm.from_round("abcde", "GBBBB").merge(hm.from_round("xbcde", "GBBBB"))


def test_reasons_a_player_understands():
    c = hm.from_rounds([("eerie", "GYYBB")], 5)
    assert hm.is_legal(c, "enter") == (True, "")
    assert hm.is_legal(c, "eking") == (False, "needs at least 2 'e'")
    assert hm.is_legal(c, "tepee") == (False, "the 1st letter must be 'e'")
    assert hm.is_legal(c, "eevee") == (False, "must contain 'r'")
    c2 = hm.from_round("tarso", "BGBBB")
    assert hm.is_legal(c2, "casal") == (True, "")
    assert hm.is_legal(c2, "cisal") == (False, "the 2nd letter must be 'a'")
    assert hm.is_legal(hm.from_round("52-34=18", "BBBBBGBB"), "1+2=3", "symbols")[1].startswith("a guess has 8")
    assert hm.is_legal(hm.from_round("52-34=18", "BBBBBGBB"), "99+1=100", "symbols") == (
        False, "the 6th symbol must be '='")
    assert [hm.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]


def test_greys_may_be_reused_and_repeating_a_guess_is_legal():
    c = hm.from_round("salet", "BYBYB")
    assert hm.is_legal(c, "salet")[0]  # the same guess again
    assert hm.is_legal(c, "tales")[0]  # greys s, l, t reused
    assert not hm.is_legal(c, "crony")[0]
    # not "only remaining candidates": 'aback' has no e
    assert hm.is_legal(c, "ahead")[0] and not hm.is_legal(c, "aback")[0]


def test_termo_reads_normalised_forms(game):
    s = Session(game, hard=True)
    s.play("saúde", "GBBBB")
    assert s.check_guess("sábio").word == "sábio"  # accents do not matter
    assert s.check_guess("sabio").probe == s.check_guess("sábio").probe
    with pytest.raises(TermoError, match="the 1st letter must be 's'"):
        s.check_guess("tarso")


def test_english_wordle_examples(wordle):
    s = Session(wordle, hard=True)
    s.play("eerie", "GYYBB")
    mask = s.allowed_probes()
    assert bool(mask[wordle.index_of("enter")]) and not bool(mask[wordle.index_of("eking")])
    with pytest.raises(TermoError, match="needs at least 2 'e'"):
        s.play("eking", "BBBBB")
    assert len(s.rounds) == 1
    assert all(bool(mask[c]) for c in s.candidate_list())


# --------------------------------------------------------------- mask == the plain rule


@SETTINGS
@given(st.data())
def test_mask_equals_plain_rule_on_termo(game, data):
    answer = data.draw(st.integers(0, game.n_answers - 1))
    guesses = data.draw(st.lists(st.integers(0, game.n_probes - 1), min_size=1, max_size=4))
    c = hm.from_rounds(_history(game, answer, guesses), game.word_length)
    mask = hm.allowed_probes(game, c)
    assert [bool(v) for v in mask] == _plain_mask(game, c)
    assert bool(mask[answer])  # the answer itself is always legal


@SETTINGS
@given(st.data())
def test_mask_equals_plain_rule_any_single_round(game, data):
    """Any pattern at all (not only ones an answer gives), one round."""
    g = data.draw(st.integers(0, game.n_probes - 1))
    pattern = data.draw(st.text(alphabet="GYB", min_size=5, max_size=5))
    c = hm.from_round(game.probes_norm[g], pattern)
    assert [bool(v) for v in hm.allowed_probes(game, c)] == _plain_mask(game, c)


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_mask_equals_plain_rule_on_wordle(data):
    wordle = get_game("wordle")
    answer = data.draw(st.integers(0, wordle.n_answers - 1))
    guesses = data.draw(st.lists(st.integers(0, wordle.n_probes - 1), min_size=1, max_size=3))
    c = hm.from_rounds(_history(wordle, answer, guesses), 5)
    assert [bool(v) for v in hm.allowed_probes(wordle, c)] == _plain_mask(wordle, c)


@settings(max_examples=8, deadline=None)
@given(st.data())
def test_mask_equals_plain_rule_on_nerdle(data):
    nerdle = _nerdle()
    answer = data.draw(st.integers(0, nerdle.n_answers - 1))
    guesses = data.draw(st.lists(st.integers(0, nerdle.n_probes - 1), min_size=1, max_size=3))
    c = hm.from_rounds(_history(nerdle, answer, guesses), nerdle.word_length)
    mask = hm.allowed_probes(nerdle, c)
    assert [bool(v) for v in mask] == _plain_mask(nerdle, c)
    assert bool(mask[answer])


def test_nerdle_example():
    nerdle = _nerdle()
    c = hm.from_round("52-34=18", "BBBBBGBB")
    mask = hm.allowed_probes(nerdle, c)
    assert all(nerdle.probes_norm[i][5] == "=" for i in range(nerdle.n_probes) if mask[i])
    ok = [nerdle.probes_norm[i] for i in range(nerdle.n_probes) if mask[i]]
    assert ok and len(ok) < nerdle.n_probes


def test_unknown_symbols_allow_nothing(game):
    c = hm.from_round("xyzzw", "GBBBB")  # 'w' greys; 'x' green: some Termo probes may lack x
    assert [bool(v) for v in hm.allowed_probes(game, c)] == _plain_mask(game, c)
    odd = hm.Constraint(5, ("@", None, None, None, None), (("@", 1),))
    assert not any(bool(v) for v in hm.allowed_probes(game, odd))


def test_tables_are_cached_per_game(game, wordle):
    assert hm.tables(game) is hm.tables(game)
    assert hm.tables(game) is not hm.tables(wordle)
    t = hm.tables(game)
    assert t.codes.shape == (game.n_probes, 5) and int(t.counts.sum()) == 5 * game.n_probes


# ------------------------------------------------------- candidates are always legal


@SETTINGS
@given(st.data())
def test_every_consistent_candidate_is_legal(game, data):
    answer = data.draw(st.integers(0, game.n_answers - 1))
    guesses = data.draw(st.lists(st.integers(0, game.n_probes - 1), min_size=1, max_size=3))
    s = Session(game, hard=False)  # the history need not be a hard-mode one
    for guess_norm, pattern in _history(game, answer, guesses):
        if pattern == game.win_pattern:
            break
        s.play(guess_norm, pattern)
    c = s.constraint()
    mask = hm.allowed_probes(game, c)
    for cand in s.candidate_list():
        assert bool(mask[cand]) and hm.is_legal(c, game.answers_norm[cand])[0]


# -------------------------------------------------------------------------- the session


def test_session_rejects_an_illegal_guess_and_applies_nothing(game):
    s = Session(game, hard=True)
    assert s.allowed_probes() is not None and all(bool(v) for v in s.allowed_probes())
    s.play("tarso", "GBBBB")
    before = (s.n_candidates, len(s.rounds))
    with pytest.raises(TermoError, match="hard mode: 'fumei' is not allowed: the 1st letter must be 't'"):
        s.play("fumei", "BBBBB")
    assert (s.n_candidates, len(s.rounds)) == before
    with pytest.raises(TermoError, match=r"^round 2 \(fumei:BBBBB\): hard mode"):
        Session(game, hard=True).replay(["tarso:GBBBB", "fumei:BBBBB"])
    s.play("tarso", "GBBBB")  # the same guess again is legal
    s.undo()
    s.undo()
    s.check_guess("fumei")  # undo relaxes the rule


def test_normal_session_has_no_mask(game):
    s = Session(game)
    s.play("tarso", "GBBBB")
    assert s.allowed_probes() is None
    s.check_guess("fumei")  # legal outside hard mode


def test_unknown_word_is_checked_too(game):
    s = Session(game, hard=True)
    s.play("tarso", "GBBBB")
    with pytest.raises(TermoError, match="1st letter must be 't'"):
        s.check_guess("xyzzy")
    assert s.check_guess("tyzzy").warnings  # outside the word list, but legal


# ------------------------------------------------------------------------- decisions


@pytest.fixture(scope="module")
def solvers(game):
    from termo.engine.solver import Solver

    return {lvl: Solver(game, level=lvl) for lvl in (1, 2, 3)}


def _best_allowed(solver, cands, mask):
    """The §5.2 order by a direct computation (full_order), first allowed probe."""
    from termo.engine.ordering import full_order

    order = full_order(solver.sweeper.entropies(cands), cands, solver.sweeper.probe_prior)
    return [int(g) for g in order if bool(mask[int(g)])]


@pytest.mark.parametrize("history", [["tarso:BYBBB"], ["tarso:GBBBB"], ["tarso:BYYBB", "rinca:YYBBG"]])
def test_level2_plays_the_best_allowed_probe(game, solvers, history):
    s = Session(game, hard=True)
    s.replay(history)
    mask = s.allowed_probes()
    cands = s.candidate_list()
    d = solvers[2].decide(cands, s.turn, allowed=mask)
    ranked = _best_allowed(solvers[2], cands, mask)
    assert [d.index] + [a.index for a in d.alternatives] == ranked[: 1 + len(d.alternatives)]
    assert hm.is_legal(s.constraint(), game.probes_norm[d.index])[0]
    assert d.choice.bits == solvers[2].sweeper.entropy_of(d.index, cands)
    assert "hard mode" in d.reason


def test_a_mask_that_rules_nothing_out_changes_nothing(game, solvers):
    s = Session(game)
    s.replay(["tarso:BBBBB"])
    cands = s.candidate_list()
    everything = hm.allowed_probes(game, hm.free(5))
    for lvl in (1, 2):
        assert solvers[lvl].decide(cands, 2, allowed=everything) == solvers[lvl].decide(cands, 2)


def test_level1_and_endgames_play_candidates(game, solvers):
    s = Session(game, hard=True)
    s.replay(["tarso:GBBBB"])
    mask = s.allowed_probes()
    cands = s.candidate_list()
    d1 = solvers[1].decide(cands, 2, allowed=mask)
    assert d1 == solvers[1].decide(cands, 2) and d1.index in cands
    last = solvers[2].decide(cands, 6, allowed=mask)
    assert last == solvers[2].decide(cands, 6) and last.reason == "last turn: the most common candidate"


def test_level3_root_beam_is_legal(game, solvers):
    s = Session(game, hard=True)
    s.replay(["tarso:BYBBG"])  # 257 candidates; the unrestricted choice (picum) is not legal
    mask = s.allowed_probes()
    cands = s.candidate_list()
    d = solvers[3].decide(cands, 2, allowed=mask)
    free_choice = solvers[3].decide(cands, 2)
    assert not bool(mask[free_choice.index])
    assert bool(mask[d.index]) and all(bool(mask[a.index]) for a in d.alternatives)
    assert "later turns searched without the restriction, so E is an estimate" in d.reason
    beam = _best_allowed(solvers[3], cands, mask)[: solvers[3].beam]
    assert all(a.index in beam or a.index in cands for a in (d.choice,) + d.alternatives)
    assert d.choice.expected <= min(a.expected for a in d.alternatives)


# ------------------------------------------------------------------ suggest and the CLI


def _app():
    from cli.app import app

    return app


def test_suggest_hard_is_legal_and_the_best_allowed_probe(game, solvers):
    result = CliRunner().invoke(_app(), ["suggest", "--hard", "tarso:BYBBB", "--level", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    c = hm.from_round("tarso", "BYBBB")
    assert hm.is_legal(c, game.normalize(data["word"]))[0]
    s = Session(game)
    s.replay(["tarso:BYBBB"])
    best = _best_allowed(solvers[2], s.candidate_list(), hm.allowed_probes(game, c))[0]
    assert data["word"] == game.probes[best] and data["candidates"] == s.n_candidates
    normal = json.loads(CliRunner().invoke(_app(), ["suggest", "tarso:BYBBB", "--level", "2", "--json"]).stdout)
    assert not hm.is_legal(c, game.normalize(normal["word"]))[0]  # hard mode changed the answer


def test_suggest_hard_illegal_history_exits_2_with_one_line():
    result = CliRunner().invoke(_app(), ["suggest", "--hard", "tarso:GBBBB", "fumei:BBBYB", "--level", "2"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "hard mode: 'fumei' is not allowed: the 1st letter must be 't'" in lines[0]
    assert "Traceback" not in result.output
    ok = CliRunner().invoke(_app(), ["suggest", "tarso:GBBBB", "fumei:BBBYB", "--level", "2", "--json"])
    assert ok.exit_code == 0, ok.output  # the same history is fine outside hard mode


def test_suggest_and_opener_hard_first_guess_is_unchanged(game):
    from termo.interface.suggest import opener_report, suggest

    hard = suggest(game, [], level=2, hard=True)
    normal = suggest(game, [], level=2)
    assert hard["word"] == normal["word"] and "every first guess is legal" in hard["reason"]
    rep = opener_report(game, level=2, hard=True)
    assert rep["word"] == opener_report(game, level=2)["word"]
    assert "hard mode changes nothing here" in rep["reason"]
    result = CliRunner().invoke(_app(), ["opener", "--hard", "--level", "2", "--json"])
    assert result.exit_code == 0 and "every first guess is legal" in json.loads(result.stdout)["reason"]


def test_cli_play_hard_rejects_an_illegal_guess():
    script = "tarso GBBBB\nfumei BBBYB\ntumba GBBBB\nquit\n"
    result = CliRunner().invoke(_app(), ["play", "--hard", "--level", "2"], input=script)
    assert result.exit_code == 2, result.output  # a piped session with a rejected line
    out = result.stdout
    assert "hard mode" in out.splitlines()[0]
    assert "! hard mode: 'fumei' is not allowed: the 1st letter must be 't'" in result.stderr
    assert "FUMEI" not in out  # nothing applied
    assert "TUMBA" in out  # the next legal guess is played


def test_play_hard_with_the_fake_solver(monkeypatch, game):
    from fake_solver import install
    from termo.interface.play import Play
    from termo.interface.suggest import Advisor, Config

    install(monkeypatch)
    out = []
    play = Play(game, Advisor(game, Config(level=2, hard=True)), ["tarso GBBBB", "fumei BBBBB"], out.append)
    assert play.session.hard
    play.run()
    text = "".join(out)
    assert "is not allowed" in text and len(play.session.rounds) == 1


# ------------------------------------------------------------------- the battery (levels 1, 2)


def _sequential_hard_game(game, solver, opener: int, secret: int) -> int:
    """One hard-mode game played through `Session(hard=True)` (which rejects an illegal guess):
    the turn the secret is found, 0 when lost."""
    s = Session(game, hard=True)
    for turn in range(1, game.max_turns + 1):
        g = opener if turn == 1 else solver.decide(s.candidates, turn, allowed=s.allowed_probes()).index
        if g == secret:
            return turn
        s.play(game.probes[g], colours(game.probes_norm[g], game.answers_norm[secret]))
    return 0


def test_hard_battery_equals_sequential_hard_games(game, solvers):
    from termo.analysis.battery import battery_secrets, evaluate
    from termo.analysis.strategies import build_policy
    from termo.analysis.worlds import full_world

    world = full_world(game=game)
    secrets = battery_secrets(game, "realistic", 40)
    policy = build_policy("entropy", world, hard=True)
    result = evaluate(policy, world, secrets)
    opener = solvers[2].decide(range(game.n_answers), 1).index
    assert result.first_guess == opener
    want = [_sequential_hard_game(game, solvers[2], opener, s) for s in secrets]
    assert result.solved_turn == want
    normal = evaluate(build_policy("entropy", world), world, secrets)
    assert normal.solved_turn != want  # hard mode changed some games


def test_hard_battery_keys_decisions_by_constraint(game):
    from termo.analysis.strategies import build_policy
    from termo.analysis.worlds import full_world

    policy = build_policy("entropy", full_world(game=game), hard=True)
    s = Session(game)
    s.replay(["tarso:BBBBB"])
    state = s.candidates
    rule_z = hm.Constraint(5, minimum=(("z", 1),))
    choices, tokens = policy.choose_branches([state, state], [2, 2], [(hm.free(5), None), (rule_z, None)])
    assert choices[0] != choices[1] and "z" in game.probes_norm[choices[1]]
    assert tokens == [(hm.free(5), choices[0]), (rule_z, choices[1])]


def test_hard_battery_candidate_strategies_unchanged_and_level3_refused(game):
    from termo.analysis.battery import run_battery

    hard = run_battery(["letters", "likely"], "realistic", n=60, game=game, hard=True)
    normal = run_battery(["letters", "likely"], "realistic", n=60, game=game)
    for h, n in zip(hard, normal):
        assert h.pop("hard") is True and "hard" not in n
        assert h["histogram"] == n["histogram"] and h["lost"] == n["lost"]
    with pytest.raises(TermoError, match="level3 strategy has no hard-mode battery"):
        run_battery(["level3"], "realistic", n=5, game=game, hard=True)


def test_cli_bench_battery_hard(tmp_path):
    args = ["bench", "battery", "--hard", "--n", "20", "--strategies", "letters,entropy", "--out", str(tmp_path)]
    result = CliRunner().invoke(_app(), args + ["--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["strategy"] for r in rows] == ["letters", "entropy"] and all(r["hard"] for r in rows)
    assert (tmp_path / "battery-realistic-n20-hard.json").exists()
    bad = CliRunner().invoke(_app(), ["bench", "battery", "--hard", "--n", "5", "--strategies", "level3",
                                      "--out", str(tmp_path)])
    assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1
