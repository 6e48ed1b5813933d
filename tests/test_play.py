"""The interactive session (`termo.interface.play.Play`, `termo play`), driven by scripted input.

Most tests use the fake solver (tests/fake_solver.py) on the real Termo lexicon; the last one
plays a short game with the real engine (skipped until it exists)."""

from __future__ import annotations

import contextlib
import re

import pytest
from typer.testing import CliRunner

from fake_solver import install
from termo.interface.console import lines_reader, render_row
from termo.interface.play import Play
from termo.interface.suggest import Advisor, Config

ANSI = re.compile(r"\x1b\[")


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch)


def run_play(game, lines, width=None, **kwargs):
    """Run a scripted session; `text` is stdout and stderr interleaved, `play.err` stderr only."""
    out, err = [], []

    def error(text):
        out.append(text)
        err.append(text)

    play = Play(game, Advisor(game, Config(**kwargs)), lines, out.append, error=error, width=width)
    code = play.run()
    play.err = "".join(err)
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
    assert code == 2  # piped, and some lines were rejected
    assert "impossible colours GGGGY for filme:" in play.err
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
    from termo.core.feedback import feedback

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
    assert result.exit_code == 2, result.output  # a rejected line in a piped session
    out = result.stdout
    assert not ANSI.search(out)
    assert "impossible colours GGGGY" in result.stderr and "warning: 'xyzzy'" in result.stderr
    assert "impossible colours" not in out and "warning" not in out
    assert "solved in 3/6: nuvem!" in out and out.rstrip().endswith("bye")


def test_cli_play_bad_option(fake):
    from cli.app import app

    result = CliRunner().invoke(app, ["play", "--level", "5"])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_real_engine_game(game):
    pytest.importorskip("termo.engine.solver", reason="the engine (termo/engine/solver.py) is not there yet")
    _, text, play = run_play(game, ["tarso BBBBB", "filme BBBYY"], level=3)
    assert "suggestion:      filme" in text  # after tarso BBBBB (223 candidates, level 3)
    assert "suggestion:      nuvem" in text


# ---------------------------------------------------------------- "what a player and a reader see"
def test_full_line_at_the_colours_prompt(fake, game):
    # item 1: after a rejected colours line, retyping the whole line is one full round
    code, text, play = run_play(game, ["tarso BBBBB", "filme GGGGY", "filme BBBYY", "nuvem GGGGG"])
    assert "impossible colours GGGGY for filme" in play.err
    assert "colours for filme> filme BBBYY" in text
    assert "is not a colour" not in text
    assert [r.guess for r in play.session.rounds] == ["tarso", "filme", "nuvem"] and play.session.won
    assert code == 2


def test_bad_line_does_not_shift_later_lines(fake, game):
    # a word alone at the colours prompt starts that guess; later lines stay in step
    _, text, play = run_play(game, ["tarso", "XXXXX", "filme", "BBBYY"])
    assert "taken as a new guess: filme" in text
    assert [(r.guess, r.pattern) for r in play.session.rounds] == [("filme", "BBBYY")]


def test_colours_alone_mean_the_suggested_word(fake, game):
    # item 2: BBBBB is colours for the suggestion (tarso), not the word "bbbbb"
    _, text, play = run_play(game, ["BBBBB", "BBBYY"])
    assert "taken as colours for tarso" in text and "taken as colours for filme" in text
    assert [r.item for r in play.session.rounds] == ["tarso:BBBBB", "filme:BBBYY"]
    assert "bbbbb" not in play.err


def test_word_that_is_also_colours(fake, game):
    # "apaga" spells colours (a=Y p=B g=G) and is a word of the list
    _, text, play = run_play(game, ["apaga"])
    assert "taken as colours for tarso" in text and "'apaga'" in text  # echoed, with the way out
    assert not play.session.rounds or play.session.rounds[0].guess == "tarso"
    _, text, play = run_play(game, ["apaga BBBBB"])  # with colours after it: the word
    assert play.session.rounds[0].item == "apaga:BBBBB" and "taken as colours" not in text


def test_board_redrawn_each_round(fake, game):
    # item 3: the whole board so far after each round
    _, text, _ = run_play(game, ["tarso BBBBB", "filme BBBYY"])
    assert text.count("TARSO  ⬛⬛⬛⬛⬛") == 2 and text.count("FILME  ⬛⬛⬛🟨🟨") == 1
    after = text.split("guess 2> filme BBBYY")[1]
    assert after.index("TARSO") < after.index("FILME")


def test_errors_on_stderr_and_exit_code(fake, game):
    # item 4
    code, text, play = run_play(game, ["casa", "tarso BBBBB"])
    assert "'casa' has 4 letters" in play.err and code == 2
    code, _, play = run_play(game, ["tarso BBBBB"])
    assert code == 0 and play.err == ""
    out = []
    answers = iter(["casa", None])
    code = Play(game, Advisor(game, Config()), lambda prompt: next(answers), out.append).run()
    assert code == 2  # a terminal session exits as a piped one does (it exited 0)
    answers = iter(["tarso BBBBB", None])
    assert Play(game, Advisor(game, Config()), lambda prompt: next(answers), out.append).run() == 0


def test_exit_status_is_documented():
    from typer.testing import CliRunner

    from cli.app import app
    from termo.interface.console import EXIT_STATUS

    text = " ".join(CliRunner().invoke(app, ["play", "--help"], terminal_width=200).output.split())
    assert "Exit status, the same piped and on a terminal" in text and "130 on Ctrl-C" in text
    assert "2 when some line was rejected" in EXIT_STATUS


def test_list_wraps_by_whole_words(fake, game):
    # item 5
    _, text, _ = run_play(game, ["list 40"], width=40)
    block = text.split("guess 1> list 40\n")[1].split("guess 1>")[0]
    lines = block.splitlines()
    assert len(lines) > 3 and all(len(line) <= 40 for line in lines)
    words = [w for line in lines for w in line.replace(",", " ").split()]
    assert "muito" in words  # no word broken across lines


def test_help_lists_every_command(fake, game):
    from termo.interface.console import COMMANDS
    from termo.interface.play import HELP

    for name in COMMANDS:
        assert re.search(rf"(^|[ ,]){re.escape(name)}([ ,\n]|$)", HELP, re.M), name
    assert "Colours alone" in HELP


def test_ctrl_c_ends_the_line(fake, game):
    out = []

    def read(prompt):
        raise KeyboardInterrupt

    code = Play(game, Advisor(game, Config()), read, out.append).run()
    assert code == 130 and "".join(out).endswith("\n")


def test_cli_play_transcript_subprocess(tmp_path):
    """Done when: a piped session with a bad colours line, a colours-only line, a win and an
    unknown word reads as a person expects, with the errors on stderr (a real subprocess)."""
    import os
    import subprocess
    import sys

    runner = tmp_path / "run.py"
    runner.write_text(
        "import sys\n"
        f"sys.path.insert(0, {os.path.dirname(__file__)!r})\n"
        "import termo.interface.suggest, fake_solver\n"
        "termo.interface.suggest._make_solver = fake_solver.FakeSolver\n"
        "from cli.app import run\n"
        "sys.argv = ['termo', 'play']\n"
        "run()\n"
    )
    script = "xyzzy BBBBB\nundo\nBBBBB\nfilme GGGGY\nfilme BBBYY\nGGGGG\n"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    result = subprocess.run([sys.executable, str(runner)], input=script, capture_output=True,
                            text=True, cwd=root, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    out, err = result.stdout, result.stderr
    assert result.returncode == 2, (out, err)
    assert "warning: 'xyzzy' is not in the word list" in err
    assert "impossible colours GGGGY for filme" in err
    assert "impossible" not in out and "warning" not in out and "Traceback" not in err
    assert "guess 1> BBBBB" in out and "taken as colours for tarso" in out
    assert "colours for filme> filme BBBYY" in out
    assert "taken as colours for nuvem" in out and "solved in 3/6: nuvem!" in out
    assert "TARSO  ⬛⬛⬛⬛⬛   6046 -> 223 candidates" in out
    assert not ANSI.search(out) and out.rstrip().endswith("bye")


def test_nerdle_purple_in_play():
    """`play` reads the colours with the game's own letters: P is purple in Nerdle."""
    from termo.games.registry import get_game

    game = get_game("nerdle-mini")
    code, text, play = run_play(game, ["4*7=28 PBBPBB", "list"], level=2)
    assert code == 0 and "! " not in play.err, play.err
    assert play.session.rounds[0].pattern == "YBBYBB"
    _, _, play = run_play(game, ["4*7=28 ABBABB"], level=2)
    assert "'a' is amarelo in Termo" in play.err and not play.session.rounds


def test_play_refuses_an_impossible_win(game):
    """All green for a word the rounds before ruled out: rejected, the game goes on."""
    code, text, play = run_play(game, ["tarso BGGBG", "filme GGGGG", ""], level=1)
    assert "filme cannot be the answer: round 1 would have coloured tarso BBBBB" in play.err
    assert not play.session.won and len(play.session.rounds) == 1 and "solved" not in text
