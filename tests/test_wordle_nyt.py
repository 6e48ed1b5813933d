"""English Wordle on the New York Times lists: the games ``wordle-nyt`` (3,158 answers of
2023-07-01) and ``wordle-nyt-2022`` (2,309 answers of 2022-08-30), both with the 14,855 guesses.

Oracles: the shipped files read line by line (counts, answers inside the guesses), the plain
two-pass colouring (`termo.core.feedback.colours`) for a suggestion's candidates and entropy, the
CLI's own listing for the API's, and Selby's published totals from ``tarse`` for the exact solver.
Only one default test builds a pattern matrix (14,855 x 3,158, a few seconds); the proofs are slow.
"""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from cli.app import main
from termo.core.feedback import colours
from termo.core.paths import data_dir
from termo.games import GAME_NAMES, get_game
from web_helpers import _no_game_env, client  # noqa: F401 - fixtures

GUESSES = "wordle_nyt_allowed_20220830.txt"
LISTS = {  # game -> (answers file, answers)
    "wordle-nyt": ("wordle_nyt_answers_20230701.txt", 3158),
    "wordle-nyt-2022": ("wordle_nyt_answers_20220830.txt", 2309),
}
SELBY = {"wordle-nyt": (11219, 3.5526), "wordle-nyt-2022": (7883, 3.4140)}  # from tarse, normal mode


def _lines(name: str) -> list[str]:
    return (data_dir() / name).read_text(encoding="utf-8").splitlines()


def test_the_shipped_lists():
    guesses = _lines(GUESSES)
    assert len(guesses) == len(set(guesses)) == 14855
    assert all(len(w) == 5 and w.isascii() and w.isalpha() and w.islower() for w in guesses)
    for answers_file, count in LISTS.values():
        answers = _lines(answers_file)
        assert len(answers) == len(set(answers)) == count
        assert set(answers) <= set(guesses)  # every answer is a guess
    original = set(_lines("wordle_en_answers.txt"))
    nyt_2022 = set(_lines(LISTS["wordle-nyt-2022"][0]))
    assert nyt_2022 < original and len(original - nyt_2022) == 6  # the NYT's 2022 list: the original less six


@pytest.mark.parametrize("name", list(LISTS))
def test_the_games(name):
    answers_file, count = LISTS[name]
    g = get_game(name)
    assert name in GAME_NAMES and g.label == name
    assert (g.n_answers, g.n_probes) == (count, 14855)
    assert g.answers == tuple(_lines(answers_file))
    assert g.probes[: g.n_answers] == g.answers  # answers first in the probe list
    assert set(g.probes) == set(_lines(GUESSES))
    assert g.uniform_prior and set(g.icf) == {0.0} and g.max_turns == 6 and g.language == "en"
    assert g.win_rule == get_game("wordle").win_rule and g.default_opener == "tarse"


def test_each_list_has_its_own_matrix_and_cache_file(tmp_path, monkeypatch):
    from termo.engine.matrix import cache_paths, matrix_signature

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    names = ("wordle", "wordle-nyt", "wordle-nyt-2022")
    signatures = {matrix_signature(get_game(n)) for n in names}
    files = {cache_paths(get_game(n))[0].name for n in names}
    assert len(signatures) == len(files) == 3
    assert matrix_signature(get_game("wordle-nyt")).startswith("14855x3158:")


def _cli_json(capsys, args):
    capsys.readouterr()
    code = main(args + ["--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_games_json_and_the_api_list_them(capsys, client):  # noqa: F811 - the fixture
    rows = {row["name"]: row for row in _cli_json(capsys, ["games"])}
    for name, (_, count) in LISTS.items():
        assert (rows[name]["answers"], rows[name]["probes"], rows[name]["opener"]) == (count, 14855, "tarse")
    api = {row["name"]: row for row in client.get("/api/games").json()}
    assert {name: api[name] for name in LISTS} == {name: rows[name] for name in LISTS}


def test_a_suggestion(capsys):
    """``termo suggest --game wordle-nyt --level 2 tarse:BBBBB``: the candidates and the entropy of
    the word it suggests, recomputed by the plain colouring (this test builds the game's matrix)."""
    data = _cli_json(capsys, ["suggest", "--game", "wordle-nyt", "--level", "2", "tarse:BBBBB"])
    game = get_game("wordle-nyt")
    left = [w for w in game.answers if colours("tarse", w) == "BBBBB"]
    assert data["candidates"] == len(left) == 319
    assert data["word"] in game.probes
    sizes = Counter(colours(data["word"], w) for w in left).values()
    bits = -sum(n / len(left) * math.log2(n / len(left)) for n in sizes)
    assert abs(data["bits"] - bits) <= 1e-12
    assert all(alt["bits"] <= data["bits"] for alt in data["alternatives"])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SELBY))
def test_tarse_reproduces_selbys_optimum(name):
    """Selby's proven optima for the NYT lists from ``tarse`` (docs/exact.md), within termo
    optimal's default budget on the 2-core machine (bench/results/exact-wordle-nyt.json)."""
    from termo.exact import solve

    total, mean = SELBY[name]
    result = solve(get_game(name), opener="tarse", time_limit=1800)
    assert result.proved and result.total == total
    assert round(result.mean, 4) == mean
    assert result.stats["losses"] == 0
