"""`termo games`, `termo suggest` and the one-board commands with a mode of several boards (docs/modes.md).

The history of a mode is ``guess:p1/.../pB``, one pattern per board, ``-`` for a board already
solved; every wrong history is one line on stderr and exit 2, nothing on stdout.
"""

from __future__ import annotations

import json

import pytest

from cli.app import main
from termo.core.feedback import feedback, render_squares
from termo.games import GAME_NAMES, MODE_NAMES, get_game

MODES = {"dueto": (2, 7, "termo"), "quarteto": (4, 9, "termo"), "dordle": (2, 7, "wordle"),
         "quordle": (4, 9, "wordle"), "octordle": (8, 13, "wordle"), "binerdle": (2, 7, "nerdle"),
         "quad-nerdle": (4, 10, "nerdle"), "sedecordle": (16, 21, "wordle"), "duotrigordle": (32, 37, "wordle")}
SECRETS = ("muito", "sobre")  # Dueto's answers in these tests
# two turns of Dueto: board 2 is solved by the second guess
HISTORY = [f"tarso:{feedback('tarso', 'muito')}/{feedback('tarso', 'sobre')}",
           f"sobre:{feedback('sobre', 'muito')}/GGGGG"]


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args):
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def assert_one_line_error(capsys, args, fragment=""):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "", (code, out, err)
    assert err.count("\n") == 1 and err.startswith("termo: error: "), err
    assert fragment in err, err
    return err


# ----------------------------------------------------------------------------- termo games


def test_games_json_lists_the_modes_after_the_games_unchanged(capsys):
    rows = run_json(capsys, "games")
    games, modes = rows[:len(GAME_NAMES)], rows[len(GAME_NAMES):]
    assert games == [get_game(name).summary() for name in GAME_NAMES]  # the public contract as it was
    assert all("boards" not in row for row in games)
    assert [row["name"] for row in modes] == list(MODE_NAMES)
    for row in modes:
        assert (row["boards"], row["turns"], row["game"]) == MODES[row["name"]]
        assert {"title", "answers", "probes", "length", "description"} <= set(row)
    answers = {row["name"]: row["answers"] for row in modes}
    assert (answers["quordle"], answers["dordle"], answers["octordle"]) == (2305, 2315, 2315)


def test_games_text_has_a_modes_section(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0 and "modes" in out and "quarteto" in out and " 4 boards of termo" in out


# ----------------------------------------------------------------------------- termo suggest --game MODE


def test_suggest_dueto_json_has_the_word_the_expected_value_and_every_board(capsys):
    data = run_json(capsys, "suggest", "--game", "dueto", "tarso:BBBBB/BYBBB")
    assert {"word", "expected", "boards", "level", "objective", "reason", "alternatives", "turn", "turns"} <= set(data)
    assert data["level"] == 3 and data["objective"] == "finish" and (data["turn"], data["turns"]) == (2, 7)
    if data["expected"] is not None:
        assert isinstance(data["expected"], float)
    assert isinstance(data["word"], str)
    boards = data["boards"]
    assert [b["board"] for b in boards] == [1, 2] and not any(b["solved"] for b in boards)
    assert all(isinstance(b["candidates"], int) and b["candidates"] > 0 for b in boards)


def test_suggest_dueto_shows_the_value_it_ranked_by(capsys):
    """Level 3 once suggested linde with E 5.028 while listing filme at 4.916. The word
    suggested is the best of the values shown, the alternatives come in the order of their values,
    and the reason names the ranking those values come from."""
    data = run_json(capsys, "suggest", "--game", "dueto", "tarso:BBBBB/BYBBB")
    values = [data["expected"]] + [alt["expected"] for alt in data["alternatives"]]
    assert len(values) > 1 and all(isinstance(v, float) for v in values)
    assert [round(v, 9) for v in values] == sorted(round(v, 9) for v in values)
    assert data["reason"].startswith("search: each guess then level 2")


def test_a_solved_board_is_reported_and_its_slot_is_a_dash(capsys):
    data = run_json(capsys, "suggest", "--game", "dueto", "--level", "2", "--objective", "score", *HISTORY)
    assert data["objective"] == "score" and data["level"] == 2
    first, second = data["boards"]
    assert second["solved"] and second["solved_on"] == 2 and second["candidates"] == 1
    assert not first["solved"] and "muito" in first["sample"] or first["candidates"] > len(first["sample"])
    following = HISTORY + [f"{data['word']}:{feedback(data['word'], 'muito')}/-"]
    later = run_json(capsys, "suggest", "--game", "dueto", "--level", "2", *following)
    assert later["turn"] == 4 and later["boards"][1]["solved_on"] == 2


def test_every_colour_notation_works_per_board(capsys):
    plain = [feedback("tarso", s) for s in SECRETS]
    digits = ["".join({"G": "2", "Y": "1", "B": "0"}[c] for c in p) for p in plain]
    termo_letters = ["".join({"G": "v", "Y": "a", "B": "p"}[c] for c in p) for p in plain]
    forms = ["/".join(plain), "/".join(digits), "/".join(render_squares(p) for p in plain),
             "/".join(termo_letters), f"{plain[0]}/{digits[1]}", f"{plain[0].lower()}/{termo_letters[1]}"]
    seen = set()
    for form in forms:
        data = run_json(capsys, "suggest", "--game", "dueto", "--level", "2", f"tarso:{form}")
        seen.add(tuple(b["candidates"] for b in data["boards"]))
    assert len(seen) == 1


def test_suggest_text_shows_each_board_and_the_alternatives(capsys):
    code, out, _ = run(capsys, "suggest", "--game", "dueto", "--level", "2", *HISTORY)
    assert code == 0
    assert "Dueto, turn 3/7" in out and "board 1:" in out and "board 2: solved on turn 2" in out
    assert "suggestion:" in out and "reason:" in out


def test_termo_game_may_name_a_mode(capsys, monkeypatch):
    monkeypatch.setenv("TERMO_GAME", "dueto")
    data = run_json(capsys, "suggest", "--level", "2", *HISTORY)
    assert data["mode"] == "dueto" and len(data["boards"]) == 2


def test_the_direct_call_and_typer_agree(capsys):
    from typer.testing import CliRunner

    from cli.app import app

    direct = run_json(capsys, "suggest", "--game", "dueto", "--level", "2", *HISTORY)
    result = CliRunner().invoke(app, ["suggest", "--game", "dueto", "--level", "2", *HISTORY, "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout) == direct


@pytest.mark.parametrize("history, fragment", [
    (["tarso:BBBBB"], "1 colour pattern(s) for 2 boards"),  # a wrong count
    (["tarso:BBBBB/BBBBB/BBBBB"], "3 colour pattern(s) for 2 boards"),
    (["tarso:BBBBB/-"], "board 2 is not solved"),  # a solved slot for a board in play
    ([HISTORY[0], "sobre:BBBBB/BBBBB"], "board"),  # colours missing for a board in play: '-' missing
    (HISTORY + ["muito:GGGGG/BBBBB"], "board 2 is already solved"),  # a pattern for a solved board
    (["tarso:GGGGG/GGGGG"], "cannot solve boards 1, 2 at once"),  # an impossible combination
    (["tarso:GGGGY/BBBBB"], "board 1: impossible colours"),
    (["tarso:BBBBB/BBXBB"], "board 2:"),  # no colour notation
    (["tarso:BBBBB/"], "board 2:"),  # an empty slot
    (["tarso:GGGGG/BBBBB", "tarso:-/GGGGG"], "turn 2"),  # colours that contradict an earlier turn
    (["tarso"], "bad history item"),
])
def test_a_wrong_history_is_one_line_and_exit_2(capsys, history, fragment):
    assert_one_line_error(capsys, ["suggest", "--game", "dueto", *history], fragment)


@pytest.mark.parametrize("options, fragment", [
    (["--level", "1"], "--level for a mode of several boards is 2 or 3"),
    (["--level", "x"], "--level"),
    (["--objective", "speed"], "unknown objective 'speed'"),
    (["--hard"], "--hard is for one board"),
    (["--list", "5"], "--list is for one board"),
    (["--tree", "x.tree"], "--tree is for one board"),
    (["--opener", "optimal"], "--opener optimal is for one board"),
])
def test_a_wrong_option_for_a_mode_is_one_line_and_exit_2(capsys, options, fragment):
    assert_one_line_error(capsys, ["suggest", "--game", "dueto", *options, "tarso:BBBBB/BYBBB"], fragment)


@pytest.mark.parametrize("args", [
    ["opener", "--game", "dueto"], ["lexicon", "--game", "quarteto"], ["feedback", "tarso", "sobre", "--game", "dordle"],
    ["matrix", "--game", "octordle"], ["openers", "--game", "quordle"],
])
def test_a_one_board_command_refuses_a_mode_in_one_line(capsys, args):
    assert_one_line_error(capsys, args, "is a mode of")


def test_a_one_board_command_refuses_termo_game_naming_a_mode(capsys, monkeypatch):
    monkeypatch.setenv("TERMO_GAME", "quarteto")
    assert_one_line_error(capsys, ["opener"], "'quarteto' is a mode of 4 Termo boards (9 tries)")


def test_an_unknown_game_names_the_modes_too(capsys):
    err = assert_one_line_error(capsys, ["suggest", "--game", "septeto", "tarso:BBBBB"], "unknown game 'septeto'")
    assert "quarteto" in err


@pytest.mark.parametrize("args", [
    ["suggest", "--objective", "score", "tarso:BBBBB"], ["play", "--objective", "win"],
    ["optimal", "--game", "nerdle-mini", "--objective", "score"], ["bench", "battery", "--objective", "win"],
])
def test_objective_on_one_board_is_refused_in_one_line(capsys, args):
    """--objective says what a mode of several boards optimises: on one board it was accepted and
    ignored; it is refused like bench's."""
    assert_one_line_error(capsys, args, "is for a mode of several boards")
