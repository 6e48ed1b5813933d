"""`termo suggest` / `termo opener` and the library functions behind them.

The first part runs against a fake solver (tests/fake_solver.py) and checks the plumbing: the
history, level 3 at every size, the JSON contract, warnings and one-line errors. The second part
runs the real engine against the published transcripts (docs/rules.md §10) (skipped until `termo.engine.solver`
exists)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fake_solver import install
from termo.core.errors import TermoError
from termo.interface.suggest import Advisor, Config, opener_report, suggest
from termo.interface.text import format_decision

KEYS = ["candidates", "word", "bits", "expected", "is_candidate", "reason", "alternatives"]
ALT_KEYS = ["word", "bits", "expected", "is_candidate"]


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def app():
    from cli.app import app

    return app


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch)


def invoke(runner, app, args):
    return runner.invoke(app, args, catch_exceptions=False)


# ---------------------------------------------------------------- plumbing (fake solver)


def test_suggest_no_history_is_the_opener(fake, game):
    data = suggest(game, [])
    assert data["word"] == "tarso" and data["candidates"] == 6046
    assert fake == [("opener", 3, False)]
    data = suggest(game, [], opener="optimal")
    assert data["word"] == "tosar"


def test_suggest_after_history_passes_candidates_and_turn(fake, game):
    data = suggest(game, ["tarso:BBBBB", "filme:BBBYY"], level=2)
    assert list(data) == KEYS
    assert data["candidates"] == 12
    assert fake[-1] == ("decide", 2, 12, 3)


def test_level3_answers_at_every_size(fake, game):
    data = suggest(game, ["tarso:BBBBB"], level=3)
    assert fake[-1] == ("decide", 3, 223, 2) and data["reason"] == "fake level 3"
    data = suggest(game, ["xyzzy:BBBBB"], level=3)  # unknown word, thousands of candidates
    n = data["candidates"]
    assert n > 5000
    assert fake[-1] == ("decide", 3, n, 2) and data["reason"] == "fake level 3"
    assert [c for c in fake if c[0] == "decide" and c[1] != 3] == []


def test_suggest_reports_warnings(fake, game):
    seen = []
    suggest(game, ["xyzzy:BBBBB"], level=2, on_warning=seen.append)
    assert len(seen) == 1 and "'xyzzy' is not in the word list" in seen[0]


@pytest.mark.parametrize(
    "history, message",
    [
        (["tarso"], "guess:colours"),
        (["tarso:GGGGY"], "impossible colours GGGGY for tarso"),
        (["tarso:BBBBB", "filme:GGGGB"], "leaves no candidate"),
        (["tarso:BBBBB", "filme:BBBBX"], "not a colour"),
        (["tarso:GGGGG", "termo:BBBBB"], "already won"),
        (["casa:BBBB"], "has 4 letters"),
    ],
)
def test_suggest_bad_histories(fake, game, history, message):
    with pytest.raises(TermoError, match=message):
        suggest(game, history)


def test_config_checks():
    for bad in (dict(level=4), dict(t=0.0), dict(t=float("nan")), dict(beam=0), dict(depth=-1), dict(opener="x")):
        with pytest.raises(TermoError):
            Config(**bad)


def test_opener_report_has_no_candidates_key(fake, game):
    progress = []
    data = opener_report(game, level=3, progress=lambda d, t: progress.append((d, t)))
    assert list(data) == KEYS[1:]
    assert data["word"] == "tosar" and progress == [(1, 1)]
    assert fake == [("opener", 3, True)]


def test_format_decision_marks_candidates():
    data = {"candidates": 3, "word": "verde", "bits": 1.8, "expected": 1.433, "is_candidate": True,
            "reason": "why", "alternatives": [{"word": "linde", "bits": 1.7, "expected": 1.5, "is_candidate": True},
                                              {"word": "filme", "bits": 1.6, "expected": None, "is_candidate": False}]}
    text = "\n".join(format_decision(data))
    assert "candidates left: 3" in text and "verde  (can be the answer)" in text
    assert "E 1.433" not in text.split("alternatives")[1].splitlines()[0]
    assert "linde*" in text and "filme " in text and "filme*" not in text


def test_cli_suggest_json(fake, runner, app):
    result = invoke(runner, app, ["suggest", "tarso:BBBBB", "filme:BBBYY", "--level", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == KEYS and data["candidates"] == 12
    assert all(list(a) == ALT_KEYS for a in data["alternatives"])


def test_cli_suggest_text(fake, runner, app):
    result = invoke(runner, app, ["suggest", "tarso:BBBBB"])
    assert result.exit_code == 0
    assert "candidates left: 223" in result.stdout and "reason:" in result.stdout
    assert "alternatives (* = can be the answer)" in result.stdout


def test_cli_suggest_accepts_inf_and_options(fake, runner, app):
    result = invoke(runner, app, ["suggest", "--t", "inf", "--beam", "5", "--depth", "0", "--level", "3"])
    assert result.exit_code == 0, result.output


def test_cli_unknown_word_warns_on_stderr(fake, runner, app):
    result = invoke(runner, app, ["suggest", "xyzzy:BBBBB", "--json"])
    assert result.exit_code == 0
    assert "warning: 'xyzzy' is not in the word list" in result.stderr
    json.loads(result.stdout)  # stdout stays pure JSON


@pytest.mark.parametrize(
    "args, message",
    [
        (["suggest", "--level", "4"], "--level must be 1, 2 or 3"),
        (["suggest", "--level", "x"], "--level takes an integer"),
        (["suggest", "--t", "0"], "temperature"),
        (["suggest", "--t", "abc"], "temperature"),
        (["suggest", "--beam", "0"], "--beam must be at least 1"),
        (["suggest", "--depth", "-1"], "--depth must be at least 0"),
        (["suggest", "--opener", "best"], "--opener must be"),
        (["suggest", "tarso"], "guess:colours"),
        (["suggest", "tarso:GGGGY"], "impossible colours"),
        (["suggest", "tarso:BBBBB", "filme:GGGGB"], "leaves no candidate"),
        (["suggest", "tarso:GGGGG", "termo:BBBBB"], "already won"),
        (["opener", "--level", "0"], "--level must be"),
        (["play", "--t", "-1"], "temperature"),
    ],
)
def test_cli_errors_are_one_line_exit_2(fake, runner, app, args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.output


def test_cli_opener_json(fake, runner, app):
    result = invoke(runner, app, ["opener", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert list(data) == KEYS[1:] and data["word"] == "tosar"


# ------------------------------------------- what a player and a reader see (items 6-10, 13)


def test_cli_suggest_list_shows_the_candidates_left(fake, runner, app, game):
    from termo.engine.session import candidates_after

    likely = candidates_after(game, ["tarso:BBBBB", "filme:BBBYY"]).most_likely(None)
    args = ["suggest", "tarso:BBBBB", "filme:BBBYY", "--level", "2"]
    data = json.loads(invoke(runner, app, args + ["--json", "--list", "3"]).stdout)
    assert list(data) == KEYS + ["remaining"] and data["remaining"] == likely[:3]
    data = json.loads(invoke(runner, app, args + ["--json", "--list", "500"]).stdout)
    assert data["remaining"] == likely and len(likely) == 12  # bounded by the candidate count
    assert "remaining" not in json.loads(invoke(runner, app, args + ["--json"]).stdout)
    text = invoke(runner, app, args + ["--list", "3"]).stdout.splitlines()
    assert text[0] == "candidates left: 12" and text[2] == "  " + " ".join(likely[:3])
    result = invoke(runner, app, args + ["--list", "0"])
    assert result.exit_code == 2 and "--list must be at least 1" in result.stderr


def test_cli_suggest_reports_a_win(fake, runner, app):
    result = invoke(runner, app, ["suggest", "tarso:BBBBB", "filme:GGGGG", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "solved": True, "turn": 2, "candidates": 1, "word": "filme", "bits": None, "expected": None,
        "is_candidate": True, "reason": "solved in 2/6", "alternatives": []}
    result = invoke(runner, app, ["suggest", "tarso:GGGGG"])
    assert result.exit_code == 0 and result.stdout == "solved in 1/6: tarso\n"
    normal = json.loads(invoke(runner, app, ["suggest", "tarso:BBBBB", "--json"]).stdout)
    assert "solved" not in normal  # the normal contract is unchanged


def test_cli_opener_says_which_one_it_is(fake, runner, app):
    default = json.loads(invoke(runner, app, ["suggest", "--json"]).stdout)
    assert default["word"] == "tarso" and "interface opener" in default["reason"]
    assert "--opener optimal" in default["reason"]
    optimal = json.loads(invoke(runner, app, ["suggest", "--json", "--opener", "optimal"]).stdout)
    assert optimal["word"] == "tosar" and "--opener default plays tarso" in optimal["reason"]
    text = invoke(runner, app, ["opener"]).stdout
    assert text.startswith("best opener of Termo by this configuration") and "interface opener" in text and "tarso" in text


def test_cli_unknown_word_warning_says_what_happens(fake, runner, app):
    result = invoke(runner, app, ["suggest", "xyzzy:BBBBB", "--level", "2"])
    assert result.exit_code == 0
    assert ("warning: 'xyzzy' is not in the word list; its colours are still used to filter the "
            "candidates") in result.stderr


def test_expected_is_labelled():
    lines = format_decision({"candidates": 3, "word": "filme", "bits": 1.0, "expected": 1.886,
                             "is_candidate": True, "reason": "r", "alternatives": []})
    assert "expected:        1.886 guesses (including this one)" in lines


@pytest.mark.parametrize("command", ["suggest", "opener"])
def test_cli_help_reads_clean(runner, app, command):
    text = runner.invoke(app, [command, "--help"], env={"COLUMNS": "120"}).stdout
    assert "<bool>" not in text.replace("--help", "").split("Show this message")[0]
    assert "this one included" in text
    if command == "suggest":
        assert "[HISTORY]..." in text and "[[HISTORY]" not in text and "--list" in text


def test_cli_backend_option_reaches_the_solver(fake, runner, app, monkeypatch):
    monkeypatch.setenv("TERMO_BACKEND", "numpy")  # restored after the test (the root option sets it)
    seen = {}
    import termo.interface.suggest

    original = termo.interface.suggest._make_solver

    def spy(game, level, config):
        seen["backend"] = config.backend
        return original(game, level, config)

    monkeypatch.setattr(termo.interface.suggest, "_make_solver", spy)
    result = invoke(runner, app, ["suggest", "tarso:BBBBB", "--backend", "jax", "--json"])
    assert result.exit_code == 0 and seen["backend"] == "jax"


# ------------------------------------------------------------------- the real engine


@pytest.fixture(scope="module")
def solver_module():
    return pytest.importorskip("termo.engine.solver", reason="the engine (termo/engine/solver.py) is not there yet")


def real(runner, app, args):
    result = invoke(runner, app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def words(data):
    return [a["word"] for a in data["alternatives"]]


def test_real_level3_after_tarso_bbbbb(solver_module, runner, app):
    data = real(runner, app, ["suggest", "tarso:BBBBB", "--json"])
    assert data["candidates"] == 223
    assert data["word"] == "filme" and round(data["expected"], 3) == 1.886
    assert round(data["bits"], 2) == 3.53
    assert words(data)[:3] == ["cline", "linde", "lince"]


def test_real_level3_second_round(solver_module, runner, app):
    data = real(runner, app, ["suggest", "tarso:BBBBB", "filme:BBBYY", "--json"])
    assert data["candidates"] == 12
    assert data["word"] == "nuvem" and round(data["expected"], 3) == 1.414
    assert words(data)[:3] == ["bunda", "bundo", "jundu"]


def test_real_mid_game_levels(solver_module, runner, app):
    two = real(runner, app, ["suggest", "tarso:BBGBB", "--level", "2", "--json"])
    assert two["candidates"] == 51 and two["word"] == "miúde" and round(two["bits"], 3) == 2.006
    three = real(runner, app, ["suggest", "tarso:BBGBB", "--json"])
    assert three["word"] == "verde" and round(three["expected"], 3) == 1.433
    assert round(three["bits"], 3) == 1.831


JAX_CASES = [
    # the level-2 case runs by default; JAX's first compilations make the level-3 ones slow
    pytest.param(["tarso:BBBBB", "filme:BBBYY"], "2", id="level2-12"),
    pytest.param(["tarso:BBBBB", "filme:BBBYY"], "3", id="level3-12", marks=pytest.mark.slow),
    pytest.param(["tarso:BBGBB"], "3", id="level3-51", marks=pytest.mark.slow),
    pytest.param(["tarso:BBBBB"], "3", id="level3-223", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("history, level", JAX_CASES)
def test_real_jax_backend_gives_the_same_answers(solver_module, runner, app, monkeypatch, history, level):
    pytest.importorskip("jax")
    monkeypatch.setenv("TERMO_BACKEND", "numpy")  # the root --backend option writes the variable
    numpy_data = real(runner, app, ["suggest", *history, "--level", level, "--json"])
    jax_data = real(runner, app, ["--backend", "jax", "suggest", *history, "--level", level, "--json"])
    assert jax_data["candidates"] == numpy_data["candidates"]
    assert jax_data["word"] == numpy_data["word"]
    assert words(jax_data) == words(numpy_data)
    if level == "3":
        assert jax_data["expected"] == pytest.approx(numpy_data["expected"], abs=1e-12)
    assert jax_data["bits"] == pytest.approx(numpy_data["bits"], abs=1e-12)
    for a, b in zip(jax_data["alternatives"], numpy_data["alternatives"]):
        assert a["bits"] == pytest.approx(b["bits"], abs=1e-12)


@pytest.mark.slow
def test_real_level3_searches_thousands_of_candidates(solver_module, runner, app):
    data = real(runner, app, ["suggest", "xyzzy:BBBBB", "--json"])  # 5,563 candidates at turn 2
    assert data["candidates"] > 5000 and data["reason"].startswith("lowest expected number of guesses")
    assert data["expected"] is not None and all(a["expected"] is not None for a in data["alternatives"])


def test_real_default_opener_is_tarso(solver_module, runner, app):
    data = real(runner, app, ["suggest", "--level", "2", "--json"])
    assert data["word"] == "tarso" and data["candidates"] == 6046
    assert data["bits"] == pytest.approx(5.9748166899580495, abs=1e-12)


@pytest.mark.slow
def test_real_level3_opener_search(solver_module, runner, app):
    data = real(runner, app, ["opener", "--json"])
    assert "candidates" not in data
    assert data["word"] == "tosar" and data["expected"] == pytest.approx(3.0094161966572304, abs=1e-12)
    assert words(data)[:5] == ["tarso", "sertã", "terso", "tória", "tirão"]


def test_real_openers_level2_inf_and_level1(solver_module, runner, app):
    data = real(runner, app, ["opener", "--level", "2", "--t", "inf", "--json"])
    assert data["word"] == "cairo" and data["bits"] == pytest.approx(6.202837886904743, abs=1e-12)
    assert real(runner, app, ["opener", "--level", "1", "--json"])["word"] == "oreia"


def test_real_extended_probe_space(solver_module, runner, app):
    data = real(runner, app, ["suggest", "tarso:BBBBB", "--level", "2", "--extended", "--json"])
    assert data["candidates"] == 223  # the answers are the same; only the guesses grow


# ---------------------------------------------------------------- each game's colour letters


def test_nerdle_purple_p_is_present_not_absent(runner, app):
    """Nerdle's P is purple (present): 4*7=28:PBBPBB is 4*7=28:YBBYBB, and Termo's v/a/c are refused."""
    purple = invoke(runner, app, ["suggest", "--game", "nerdle-mini", "4*7=28:PBBPBB", "--level", "2", "--json"])
    yellow = invoke(runner, app, ["suggest", "--game", "nerdle-mini", "4*7=28:YBBYBB", "--level", "2", "--json"])
    assert purple.exit_code == yellow.exit_code == 0, purple.output
    assert json.loads(purple.stdout) == json.loads(yellow.stdout)
    refused = invoke(runner, app, ["suggest", "--game", "nerdle-mini", "4*7=28:ABBABB"])
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "'a' is amarelo in Termo" in refused.stderr


def test_termo_p_is_still_preto(runner, app):
    preto = invoke(runner, app, ["suggest", "tarso:ppppp", "--level", "1", "--json"])
    black = invoke(runner, app, ["suggest", "tarso:BBBBB", "--level", "1", "--json"])
    assert json.loads(preto.stdout)["candidates"] == json.loads(black.stdout)["candidates"] == 223


@pytest.mark.slow  # builds the Nerdle Classic pattern matrix (about a minute, 1.3 GB of cache)
def test_nerdle_classic_purple_keeps_the_answer(runner, app):
    result = invoke(runner, app, ["suggest", "--game", "nerdle", "48-32=16:PBBGPGPB", "--level", "2",
                                  "--list", "20", "--json"])
    assert result.exit_code == 0, result.output
    assert "12+35=47" in json.loads(result.stdout)["remaining"]


@pytest.mark.parametrize("args", [
    ["tarso:BGGBG", "filme:GGGGG"],  # filme cannot be the answer after round 1
    ["--game", "nerdle-mini", "4*7=28:YBBYBB", "7*4=28:GGGGGG"],
])
def test_an_impossible_win_is_refused(runner, app, args):
    result = invoke(runner, app, ["suggest", *args, "--level", "1"])
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot be the answer: round 1 would have coloured" in lines[0]


# ---------------------------------------------------------------- uniform priors say so


def test_uniform_prior_games_do_not_claim_likelihood(runner, app):
    """Nerdle's prior is uniform: no 'most likely first' (the order is the list's), no 'more
    common one', no T in the configuration, and no '-0.0000 bits'."""
    result = invoke(runner, app, ["suggest", "--game", "nerdle-mini", "10-2=8:BBBYYG", "--level", "2",
                                  "--list", "5"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "all equally likely, in list order:" in text and "most likely" not in text
    assert "the first one" in text and "more common" not in text
    assert "-0.0000" not in text
    opener = invoke(runner, app, ["opener", "--game", "nerdle-mini", "--level", "2"])
    assert opener.exit_code == 0 and "(level 2)" in opener.stdout and "T=" not in opener.stdout
    termo = invoke(runner, app, ["suggest", "tarso:BBBBB", "--level", "2", "--list", "3"])
    assert "most likely first (the first 3):" in termo.stdout  # Termo's prior is not uniform


def test_fullwidth_letters_are_read_and_foreign_letters_refused(capsys):
    """A fullwidth word is the plain word (NFKC); letters outside the game's alphabet are refused."""
    from cli.app import main

    assert main(["suggest", "ｔａｒｓｏ:BBBBB", "--level", "2", "--json"]) == 0
    wide = json.loads(capsys.readouterr().out)
    assert main(["suggest", "tarso:BBBBB", "--level", "2", "--json"]) == 0
    assert wide == json.loads(capsys.readouterr().out)
    assert main(["suggest", "тарсо:BBBBB"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'т' is not a symbol of Termo" in err
