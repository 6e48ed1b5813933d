"""The interactive session (`termo.play.Play`, `termo play`), driven by scripted input.

Most tests use the fake solver (tests/fake_solver.py) on the real Termo lexicon; the last one
plays a short game with the real engine (skipped until it exists)."""

from __future__ import annotations

import contextlib
import re

import pytest
from typer.testing import CliRunner

from fake_solver import install
from termo.play import Play, lines_reader, render_row
from termo.suggest import Advisor, Config

ANSI = re.compile(r"\x1b\[")


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch)


def run_play(game, lines, **kwargs):
    out = []
    play = Play(game, Advisor(game, Config(**kwargs)), lines, out.append)
    code = play.run()
    return code, "".join(out), play


def test_scripted_session_undo_impossible_unknown_empty_win(fake, game):
    script = [
        "tarso",          # guess, colours on the next line
        "BBBBB",
        "filme:GGGGY",    # impossible colours: rejected with the reason, asked again
        "BBBYY",
        "xyzzy bbbbb",    # not in the word list: warned, accepted (slow path)
        "undo",
        "nuvem BBBBB",    # possible colours, but no candidate left (e and m are in the answer)
        "undo",           # at the colours prompt: cancels the guess and undoes the last round
        "list 3",
        "filme BBBYY",
        "nuvem",
        "ggggg",          # win
    ]
    code, text, play = run_play(game, script)
    assert code == 0
    assert "impossible colours GGGGY for filme:" in text
    assert "colours for filme> BBBYY" in text  # asked again, echoed on one line
    assert "warning: 'xyzzy' is not in the word list" in text
    assert "11 candidates left" in text  # after xyzzy
    assert "undid xyzzy BBBBB" in text
    assert "! no candidate gives BBBBB for nuvem (of 12)" in text
    assert "the round was not applied" in text
    assert "undid filme BBBYY" in text
    assert "the 3 most likely of 223 candidates: filme, nível, feliz" in text
    assert "solved in 3/6: nuvem!" in text
    assert "TARSO  ⬛⬛⬛⬛⬛   6046 -> 223 candidates" in text  # the summary
    assert text.rstrip().endswith("bye")  # end of input ends cleanly
    assert not ANSI.search(text)
    assert play.session.won and [r.guess for r in play.session.rounds] == ["tarso", "filme", "nuvem"]


def test_piped_output_has_one_prompt_per_line(fake, game):
    _, text, _ = run_play(game, ["tarso", "BBBBB", "quit"])
    lines = text.splitlines()
    assert "guess 1> tarso" in lines and "colours for tarso> BBBBB" in lines and "guess 2> quit" in lines


def test_eof_at_any_prompt_ends_cleanly(fake, game):
    for script in ([], ["tarso"], ["tarso", "BBBBB"]):
        code, text, _ = run_play(game, script)
        assert code == 0 and text.rstrip().endswith("bye")


def test_commands(fake, game):
    _, text, play = run_play(game, ["?", "list", "list x", "undo", "tarso BBBBB", "new", "sair"])
    assert "Commands:" in text
    assert "the 20 most likely of 6046 candidates: muito" in text
    assert "list takes a positive number, not 'x'" in text
    assert "nothing to undo" in text
    assert "new game" in text and play.session.rounds == ()


def test_bad_guess_and_bad_colours(fake, game):
    _, text, play = run_play(game, ["casa", "tarso", "BBBB", "", "tarso BBBBB"])
    assert "'casa' has 4 letters" in text
    assert "expected 5" in text
    assert "guess cancelled" in text
    assert len(play.session.rounds) == 1


def test_out_of_tries(fake, game):
    # six consistent rounds that never win (the answer is `muito`)
    from termo.feedback import feedback

    script = [f"{w} {feedback(w, 'muito')}" for w in ("tarso", "sábio", "lendo", "pegar", "cheia", "viúva")]
    _, text, play = run_play(game, script + ["tarso BBBBB"])
    assert play.session.out_of_turns
    assert "out of tries (6)" in text
    assert "this game is over" in text


def test_level3_answers_at_every_size_in_play(fake, game):
    run_play(game, ["xyzzy BBBBB", "tarso BBBBB"], level=3)
    decides = [c for c in fake if c[0] == "decide"]
    assert any(c[2] > 5000 for c in decides)  # thousands of candidates after xyzzy
    assert decides and all(c[1] == 3 for c in decides)  # no ceiling: level 3 answers every time


def test_busy_wraps_each_search(fake, game):
    labels = []

    @contextlib.contextmanager
    def busy(label):
        labels.append(label)
        yield lambda done, total: None

    play = Play(game, Advisor(game, Config()), ["tarso BBBBB"], lambda s: None, busy=busy)
    play.run()
    assert labels == ["searching the opener", "thinking about 223 candidates"]


def test_render_row():
    assert render_row("tarso", "GYBBB") == "TARSO  🟩🟨⬛⬛⬛"
    coloured = render_row("tarso", "GYBBB", color=True)
    assert ANSI.search(coloured) and "T" in coloured and coloured.count("\x1b[0m") == 5


def test_colour_option(fake, game):
    out = []
    Play(game, Advisor(game, Config()), ["tarso BBBBB"], out.append, color=True).run()
    assert ANSI.search("".join(out))


def test_lines_reader_echoes():
    out = []
    read = lines_reader(["a\n", "b"], out.append)
    assert read("p> ") == "a" and read("q> ") == "b" and read("r> ") is None
    assert out == ["p> a\n", "q> b\n"]


def test_cli_play_piped(fake):
    from cli.app import app

    script = "tarso\nBBBBB\nfilme GGGGY\nBBBYY\nxyzzy bbbbb\nundo\nnuvem ggggg\n"
    result = CliRunner().invoke(app, ["play", "--level", "2"], input=script)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert not ANSI.search(out)
    assert "impossible colours GGGGY" in out and "warning: 'xyzzy'" in out
    assert "solved in 3/6: nuvem!" in out and out.rstrip().endswith("bye")


def test_cli_play_bad_option(fake):
    from cli.app import app

    result = CliRunner().invoke(app, ["play", "--level", "5"])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_real_engine_game(game):
    pytest.importorskip("termo.solver", reason="the engine (termo/solver.py) is not there yet")
    _, text, play = run_play(game, ["tarso BBBBB", "filme BBBYY"], level=3)
    assert "suggestion:      filme" in text  # after tarso BBBBB (223 candidates, level 3)
    assert "suggestion:      nuvem" in text
