"""`termo play --game MODE` (`termo.interface.play.Play` on several boards), driven by piped lines.

One guess a turn, one pattern per board (on one line, or board by board at its own prompt), the
boards side by side, the solved ones marked, the suggestion after each turn.
"""

from __future__ import annotations

import io
import re
import sys

import pytest

from termo.core.feedback import feedback
from termo.engine.multi.factory import multi_solver
from termo.games import get_mode
from termo.interface.play import Play
from termo.interface.suggest import Advisor, Config

SECRETS = ("muito", "sobre")


class FakeDecision:
    def __init__(self, word):
        self.word = word

    def as_dict(self):
        return {"level": 2, "objective": "finish", "word": self.word, "bits": 1.0, "p_solve": 0.0,
                "expected": None, "reason": "a fake", "alternatives": []}


class FakeSolver:
    """Always suggests ``word`` (no engine work: layout tests)."""

    level = 2

    class objective:
        name = "finish"

    def __init__(self, word="tarso"):
        self.word = word

    def decide(self, state):
        return FakeDecision(self.word)


@pytest.fixture(scope="module")
def dueto():
    mode = get_mode("dueto")
    return mode, multi_solver(mode, level=2)


def session(mode, solver, lines, width=200, color=False):
    out, err = [], []
    config = Config(level=solver.level, objective=solver.objective.name)
    advisor = Advisor(mode, config, solver_factory=lambda m, level, c: solver)
    play = Play(mode, advisor, lines, out.append, error=err.append, width=width, color=color)
    return play, out, err


def patterns(word, secrets, solved=()):
    return "/".join("-" if b in solved else feedback(word, s) for b, s in enumerate(secrets))


def test_a_whole_game_to_the_win(dueto):
    mode, solver = dueto

    def lines():  # plays each suggestion, coloured by the secrets
        while not play.position.state.over:
            word = play.suggested
            yield f"{word} " + patterns(word, SECRETS, [b for b in range(2) if play.position.state.solved[b]])

    play, out, err = session(mode, solver, lines())
    code = play.run()
    text = "".join(out)
    assert code == 0 and err == []
    assert play.position.state.won and "all 2 boards solved in" in text and text.rstrip().endswith("bye")
    assert re.search(r"board 1 ✓ \d+ +board 2 ✓ \d+", text)  # side by side, both marked solved
    assert "✓ MUITO" in text and "✓ SOBRE" in text
    assert "for guess 1/7:" in text


def test_the_guess_alone_asks_each_board_and_rejects_bad_colours(dueto):
    mode, solver = dueto
    lines = ["tarso", feedback("tarso", "muito"), "GGGGX", feedback("tarso", "sobre"), "quit"]
    play, out, err = session(mode, solver, lines)
    assert play.run() == 2  # a line was rejected
    text = "".join(out)
    assert "board 1 colours for tarso> " in text and "board 2 colours for tarso> GGGGX" in text
    assert len(err) == 1 and err[0].startswith("! board 2:")
    assert play.position.state.turns == 1 and "for guess 2/7:" in text


def test_colours_alone_are_for_the_suggested_word_and_undo_and_new(dueto):
    mode, _ = dueto
    play, out, err = session(mode, FakeSolver("tarso"), [patterns("tarso", SECRETS), "undo", "undo", "new", "q"])
    assert play.run() == 0 and err == []
    text = "".join(out)
    assert "taken as colours for tarso" in text and "undid tarso" in text and "nothing to undo" in text
    assert "new game" in text and play.position.state.turns == 0


def test_a_solved_board_may_be_left_out_or_dashed(dueto):
    mode, _ = dueto
    first = f"sobre {feedback('sobre', 'muito')} GGGGG"  # board 2 solved at once
    for later in (f"tarso {feedback('tarso', 'muito')}", f"tarso:{feedback('tarso', 'muito')}/-"):
        play, out, err = session(mode, FakeSolver(), [first, later])
        assert play.run() == 0 and err == [], err
        assert play.position.state.turns == 2 and play.position.state.solved_on == (None, 1)
        assert "board 2 ✓ 1" in "".join(out)


@pytest.mark.parametrize("line, fragment", [
    ("tarso BBBBB", "1 colour patterns for 2 boards"),
    ("tarso BBBBB/BBBBB/BBBBB", "3 colour patterns"),
    ("tarso GGGGG/GGGGG", "cannot solve boards 1, 2 at once"),
    ("tarso GGGGY/BBBBB", "board 1: impossible colours"),
    ("tarso BBBBB/BBQBB", "board 2:"),
    ("tarso -/BBBBB", "board 1 is not solved"),
    ("BBBBB/BYBBB", "no suggested word"),
])
def test_a_wrong_turn_is_one_error_and_changes_nothing(dueto, line, fragment):
    mode, _ = dueto
    solver = FakeSolver(None)  # no suggestion: colours alone are refused
    play, out, err = session(mode, solver, [line])
    assert play.run() == 2
    assert len(err) == 1 and fragment in err[0], err
    assert play.position.state.turns == 0


def test_eight_boards_wrap_to_the_width():
    mode = get_mode("octordle")
    play, out, _ = session(mode, FakeSolver("salet"), ["salet " + "/".join(["BBBBB"] * 8)], width=80)
    play.run()
    headers = [line for line in "".join(out).splitlines() if re.match(r"\s+board [15]\s{2,}board", line)]
    assert len(headers) == 2 and all(len(line) <= 80 for line in headers)
    assert "board 4" in headers[0] and "board 8" in headers[1]


def test_coloured_tiles_on_a_terminal(dueto):
    mode, _ = dueto
    play, out, _ = session(mode, FakeSolver(), [f"tarso {patterns('tarso', SECRETS)}"], color=True)
    play.run()
    text = "".join(out)
    assert "\x1b[1;97;42m" in text or "\x1b[1;30;43m" in text  # the single-board tiles


def test_termo_play_reads_piped_lines(monkeypatch, capsys):
    from cli.app import main

    script = f"tarso {patterns('tarso', SECRETS)}\nlist\ntarso BBBBB\nquit\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    code = main(["play", "--game", "dueto", "--level", "2", "--no-color"])
    out, err = capsys.readouterr()
    assert code == 2  # the third line was rejected
    assert "termo play Dueto (2 boards of Termo, 7 tries; level 2, objective finish)" in out
    assert "board 1" in out and "board 2" in out and "bye" in out
    assert err.count("\n") == 1 and "1 colour patterns for 2 boards" in err


def test_termo_play_refuses_a_one_board_option_for_a_mode(capsys):
    from cli.app import main

    assert main(["play", "--game", "quarteto", "--hard"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--hard is for one board" in err


def test_the_progress_callback_reaches_a_solver_that_takes_one():
    from termo.interface.suggest import _boards_decision

    heard = []

    class ByCall(FakeSolver):
        def decide(self, state, progress=None):
            progress(1, 2)
            return FakeDecision("tarso")

    class ByAttribute(FakeSolver):
        progress = None

        def decide(self, state):
            self.progress(2, 2)
            return FakeDecision("tarso")

    attribute = ByAttribute()
    for solver in (ByCall(), attribute, FakeSolver()):
        assert _boards_decision(solver, None, lambda done, total: heard.append((done, total))).as_dict()["word"] == "tarso"
    assert heard == [(1, 2), (2, 2)] and attribute.progress is None
