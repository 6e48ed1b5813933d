"""Share texts (termo.games.share, `termo review --share`, `--share-text`): written in each game's
own format, read back to the same game, and every grid that breaks the rules refused in one line."""

from __future__ import annotations

import json
import random

import pytest

from cli.app import main
from termo.core.errors import TermoError
from termo.games import GAME_NAMES, MODE_NAMES, get_game, get_mode
from termo.games.share import read_grid, read_header, write_share

GREEN, YELLOW, BLACK = "🟩", "🟨", "⬛"


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def shape(name):
    """(boards, tiles, tries) of a game or mode."""
    if name in MODE_NAMES:
        mode = get_mode(name)
        return mode.boards, mode.game.word_length, mode.max_turns
    game = get_game(name)
    return 1, game.word_length, game.max_turns


def random_rows(boards, length, tries, seed):
    """A finished game's rows: each board solved on a turn of its own (or, for one, never)."""
    rng = random.Random(seed)
    lost = rng.random() < 0.3
    turns = tries if lost else None
    solve = rng.sample(range(1, tries + 1), boards) if boards <= tries else list(range(1, boards + 1))
    if lost:
        solve[rng.randrange(boards)] = None
    played = tries if lost else max(solve)
    rows = []
    for t in range(1, played + 1):
        row = []
        for b in range(boards):
            if solve[b] is not None and t > solve[b]:
                row.append(None)
            elif t == solve[b]:
                row.append("G" * length)
            else:
                while True:
                    p = "".join(rng.choice("GYB") for _ in range(length))
                    if p != "G" * length and not (p.count("Y") == 1 and p.count("G") == length - 1):
                        break
                row.append(p)
        rows.append(tuple(row))
    return rows, turns


def _honest(name: str) -> bool:
    """A game or mode whose colours are one honest secret's (Absurdle's and Fibble's are not: no
    share text, their review refused; docs/review.md)."""
    from termo.games.registry import get_mode

    return get_mode(name).game.feedback.honest


SHARED = [name for name in GAME_NAMES + MODE_NAMES if _honest(name)]


@pytest.mark.parametrize("name", SHARED)
def test_every_game_and_mode_reads_back_what_it_writes(name):
    boards, length, tries = shape(name)
    for seed in range(6):
        rows, _ = random_rows(boards, length, tries, seed)
        hard = seed % 2 == 1 and boards == 1
        text = write_share(name, rows, tries, hard=hard, number=1302 + seed)
        assert read_header(text).name is not None
        grid = read_grid(text, boards, length, tries, name)
        assert grid.rows == tuple(rows), (name, text)
        assert grid.header.hard == hard and grid.header.number == 1302 + seed


def test_the_formats_of_the_games():
    assert write_share("termo", [("BYBBB",), ("GGGGG",)], 6, number=1302) == \
        "joguei term.ooo #1302 2/6\n\n⬛🟨⬛⬛⬛\n🟩🟩🟩🟩🟩"
    assert write_share("wordle", [("BBBBB",)] * 6, 6, hard=True, number=1234).splitlines()[0] == "Wordle 1,234 X/6*"
    assert write_share("nerdle", [("GGGGGGGG",)], 6, number=245).splitlines()[0] == "nerdlegame 245 1/6"
    assert "🟪" in write_share("nerdle-mini", [("YBBBBB",), ("GGGGGG",)], 6)
    dueto = write_share("dueto", [("BBBBB", "YBBBB"), ("GGGGG", "BBBBB"), (None, "GGGGG")], 7, number=9)
    assert dueto.splitlines()[:3] == ["joguei term.ooo/2 #9 3/7", "", "2️⃣3️⃣"]
    assert dueto.splitlines()[-1] == "⬛⬛⬛⬛⬛ 🟩🟩🟩🟩🟩"
    dordle = write_share("dordle", [("GGGGG", "BBBBB")] + [(None, "BBBBB")] * 6, 7)
    assert dordle.splitlines()[0] == "Daily Dordle 1&X/7" and dordle.splitlines()[2] == "1️⃣🟥"


@pytest.mark.parametrize("text,name,number,hard", [
    ("joguei term.ooo #1302 3/6 🔥 12\n\n⬛🟨⬛⬛⬛\n⬛🟩⬛🟩⬛\n🟩🟩🟩🟩🟩", "termo", 1302, False),
    ("Wordle 1,234 3/6*\r\n\r\n⬜🟨⬜⬜⬜\r\n⬜🟩⬜🟩⬜\r\n🟩🟩🟩🟩🟩\r\n", "wordle", 1234, True),
    ("Wordle 1.234 3/6\n\n⬛🟦⬛⬛⬛\n⬛🟧⬛🟧⬛\n🟧🟧🟧🟧🟧\n\nhttps://www.nytimes.com/games/wordle", "wordle", 1234, False),
    ("⬛🟨⬛⬛⬛\n⬛🟩⬛🟩⬛\n🟩🟩🟩🟩🟩", None, None, False),
])
def test_what_players_paste_is_read(text, name, number, hard):
    header = read_header(text)
    assert (header.name, header.number, header.hard) == (name, number, hard)
    grid = read_grid(text, 1, 5, 6)
    assert grid.rows == (("BYBBB",), ("BGBGB",), ("GGGGG",)) and grid.solved_on == (3,)


def test_digits_of_long_games_are_read():
    rows = [tuple("GGGGG" if t == s else ("BBBBB" if t < s else None) for s in (10, 11, 12, 13, 1, 2, 3, 4))
            for t in range(1, 14)]
    text = write_share("octordle", rows, 13)
    assert "🔟🕚" in text and "🕛🕐" in text
    assert read_grid(text, 8, 5, 13, "octordle").solved_on == (10, 11, 12, 13, 1, 2, 3, 4)
    keycaps = text.replace("\ufe0f", "")  # keycaps pasted without the variation selector
    assert read_grid(keycaps, 8, 5, 13).solved_on == (10, 11, 12, 13, 1, 2, 3, 4)


@pytest.mark.parametrize("text,fragment", [
    ("joguei term.ooo #3 2/6\n\n🟩🟩🟩🟩🟨\n🟩🟩🟩🟩🟩", "no answer can produce"),
    ("Wordle 5 3/6\n\n⬛⬛⬛⬛⬛\n🟩🟩🟩🟩🟩", "does not match the grid"),
    ("Wordle 5 2/6\n\n🟩🟩🟩🟩🟩\n🟩🟩🟩🟩🟩", "a row after the board was solved"),
    ("Wordle 5 1/6\n\n🟩🟩🟩🟩🟩\n⬛⬛⬛⬛⬛", "every board was solved by turn 1"),
    ("Wordle 5 1/6\n\n⬛⬛⬛⬛⬛⬛\n", "squares"),
    ("Wordle 5 1/6\n\n🟩🟩🟩🟩🟩 note\n", "mixes squares"),
    ("Wordle 5 X/6\n\n⬛⬛⬛⬛⬛\n⬛⬛⬛⬛⬛\n", "does not match"),
    ("Wordle 5 X/5\n\n" + "⬛⬛⬛⬛⬛\n" * 5, "out of 5 tries"),
    ("Wordle 5\n\n" + "⬛⬛⬛⬛⬛\n" * 7, "7 rows"),
    ("Wordle 5 1/6\n\n", "no grid"),
    ("Hello there 4/6\n\n🟩🟩🟩🟩🟩", "names no game"),
])
def test_a_grid_that_breaks_the_rules_is_refused(text, fragment):
    with pytest.raises(TermoError, match=fragment):
        read_grid(text, 1, 5, 6)


@pytest.mark.parametrize("text,fragment", [
    ("Daily Quordle 5\n2️⃣3️⃣\n4️⃣3️⃣\n\n🟩🟩🟩🟩🟩 ⬛⬛⬛⬛⬛\n⬛⬛⬛⬛⬛ 🟩🟩🟩🟩🟩\n\n"
     "⬛⬛⬛⬛⬛ ⬛⬛⬛⬛⬛\n🟩🟩🟩🟩🟩 ⬛⬛⬛⬛⬛\n⬛⬛⬛⬛⬛ 🟩🟩🟩🟩🟩", "board 1: the digits say solved on turn 2"),
    ("Daily Quordle 5\n\n🟩🟩🟩🟩🟩 ⬛⬛⬛⬛⬛\n⬛🟨⬛⬛⬛ 🟩🟩🟩🟩🟩\n\n🟩🟩🟩🟩🟩 ⬛⬛⬛⬛⬛\n⬛⬛⬛⬛⬛ 🟩🟩🟩🟩🟩",
     "board 1, row 2: a row after the board was solved"),
    ("Daily Quordle 5\n\n🟩🟩🟩🟩🟩 ⬛⬛⬛⬛⬛\n⬛⬛⬛⬛⬛ 🟩🟩🟩🟩🟩", "2 boards; this game has 4"),
])
def test_a_mode_grid_that_breaks_the_rules_is_refused(text, fragment):
    with pytest.raises(TermoError, match=fragment):
        read_grid(text, 4, 5, 9, "quordle")


# ----------------------------------------------------------------------------- the command line

SIXTEEN = ("aptly arbor ardor arena argue arise armor aroma arose array arrow arson artsy ascot ashen "
           "aside").split()
THIRTY_TWO = ("bulky bully bunch bunny burly burnt burst bused bushy butch butte buxom buyer bylaw cabal cabby "
              "cabin cable cacao cache cacti caddy cadet cagey cairn camel cameo canal candy canny canoe "
              "canon").split()
GAMES = [  # (game, answer(s), guesses): finished games
    ("termo", "fardo", ["tarso", "termo", "fardo"]),
    ("wordle", "caper", ["salet", "crane", "caper"]),
    ("nerdle-mini", "4*7=28", ["1+9=10", "4*7=28"]),
    ("dueto", "fardo,termo", ["tarso", "termo", "fardo"]),
    ("quordle", "crimp,vouch,lapse,tangy", ["salet", "crony", "vouch", "lapse", "crimp", "tangy"]),
]
SLOW_GAMES = [
    ("nerdle", "54-38=16", ["52-34=18", "54-38=16"]),
    ("wordle-ru", "карта", ["норка", "карта"]),
    ("wordle-nyt", "caper", ["tarse", "crane", "caper"]),
    ("wordle-nyt-2022", "caper", ["tarse", "crane", "caper"]),
    ("quarteto", "fardo,termo,sobre,muito", ["tarso", "termo", "fardo", "sobre", "muito"]),
    ("dordle", "caper,crane", ["salet", "crane", "caper"]),
    ("octordle", "crimp,vouch,lapse,tangy,plumb,badge,sworn,fjord",
     ["salet", "crony", "vouch", "lapse", "crimp", "tangy", "plumb", "badge", "sworn", "fjord"]),
    ("sedecordle", ",".join(SIXTEEN), ["salet", *SIXTEEN]),
    ("duotrigordle", ",".join(THIRTY_TWO), ["salet", *THIRTY_TWO]),
    ("binerdle", "54-38=16,52-34=18", ["52-34=18", "54-38=16"]),
    ("quad-nerdle", "54-38=16,52-34=18,12+35=47,9*8-1=71", ["52-34=18", "54-38=16", "12+35=47", "9*8-1=71"]),
]


def round_trip(capsys, tmp_path, name, answer, guesses):
    code, text, err = run(capsys, "review", "--game", name, "--answer", answer, *guesses, "--share", "--number", "77")
    assert code == 0, err
    path = tmp_path / f"{name}.txt"
    path.write_text(text, encoding="utf-8")
    # the NYT lists' texts read "Wordle" as the game's own: the header names English Wordle, the
    # player names the list
    named = ["--game", name] if name.startswith("wordle-nyt") else []
    code, again, err = run(capsys, "review", "--share-text", str(path), *named, *guesses, "--share", "--json")
    assert code == 0, err
    data = json.loads(again)
    assert data["game"] == name and data["share"] == text.rstrip("\n")
    return text


@pytest.mark.parametrize("name,answer,guesses", GAMES)
def test_review_share_round_trips(capsys, tmp_path, name, answer, guesses):
    round_trip(capsys, tmp_path, name, answer, guesses)


@pytest.mark.slow
@pytest.mark.parametrize("name,answer,guesses", SLOW_GAMES)
def test_review_share_round_trips_for_every_other_game_and_mode(capsys, tmp_path, name, answer, guesses):
    round_trip(capsys, tmp_path, name, answer, guesses)


def test_every_game_and_mode_has_a_round_trip_test():
    assert {g for g, _, _ in GAMES + SLOW_GAMES} == set(SHARED)
    assert set(GAME_NAMES) - set(SHARED) == {"absurdle", "fibble", "fibble-termo"}


@pytest.mark.parametrize("grid,guesses,fragment", [
    ("Wordle 9 3/6\n\n🟩🟩🟩🟩🟨\n⬛⬛⬛⬛⬛\n🟩🟩🟩🟩🟩", ["salet", "crane", "caper"], "no answer can produce"),
    ("Wordle 9 2/6\n\n⬛🟨⬛⬛⬛\n🟩🟩🟩🟩🟩", ["eerie", "caper"], "impossible colours"),
    ("Wordle 9 2/6\n\n🟩🟩🟩🟩⬛\n🟩🟩🟩🟩🟩", ["salet", "caper"], "leaves no candidate"),
    ("Wordle 9 2/6\n\n⬛⬛⬛⬛⬛\n🟩🟩🟩🟩🟩", ["salet", "crane", "caper"], "3 guesses for a grid of 2 rows"),
])
def test_a_hand_made_invalid_grid_is_one_line_and_exit_2(capsys, tmp_path, grid, guesses, fragment):
    path = tmp_path / "grid.txt"
    path.write_text(grid, encoding="utf-8")
    code, out, err = run(capsys, "review", "--share-text", str(path), *guesses)
    assert code == 2 and out == "" and err.count("\n") == 1 and fragment in err, err


def test_a_share_text_checked_against_the_answer(capsys, tmp_path):
    path = tmp_path / "grid.txt"
    path.write_text("Wordle 9 3/6\n\n⬛🟩⬛🟩⬛\n🟩🟨🟨⬛🟨\n🟩🟩🟩🟩🟩", encoding="utf-8")
    code, out, err = run(capsys, "review", "--share-text", str(path), "--answer", "caper", "salet", "crane", "caper",
                         "--share")
    assert code == 0 and out.startswith("Wordle 9 3/6"), err
    code, out, err = run(capsys, "review", "--share-text", str(path), "--answer", "paper", "salet", "crane", "paper")
    assert code == 2 and out == "" and "the grid shows" in err


def test_share_of_an_unfinished_game_is_refused(capsys):
    code, out, err = run(capsys, "review", "--game", "wordle", "salet:BGBGB", "--share")
    assert code == 2 and out == "" and "not over" in err
