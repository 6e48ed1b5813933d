"""The web API of the modes of several boards (Dueto, Quarteto, ...): /api/modes,
/api/mode/suggest, /api/mode/boards, with the test client (their pages, /dueto ... /quad-nerdle:
tests/test_web_pages.py, one renderer for every board). The
library's own answer (`termo.interface.suggest.suggest`) is the oracle."""

from __future__ import annotations

import re

import pytest

from web_helpers import client  # noqa: F401 - the fixture

MODES = {"dueto": (2, 7, "pt"), "quarteto": (4, 9, "pt"), "dordle": (2, 7, "en"), "quordle": (4, 9, "en"),
         "octordle": (8, 13, "en"), "binerdle": (2, 7, "en"), "quad-nerdle": (4, 10, "en"),
         "sedecordle": (16, 21, "en"), "duotrigordle": (32, 37, "en")}


def suggest(client, history, mode="dueto", **options):
    return client.post("/api/mode/suggest", json={"mode": mode, "history": history, "level": 2, **options})


def test_modes_listed(client):
    answer = client.get("/api/modes")
    assert answer.status_code == 200
    got = {m["name"]: (m["boards"], m["turns"], m["language"]) for m in answer.json()}
    assert got == MODES


def test_dueto_suggestion_is_the_library_s(client):
    from termo.games import get_mode
    from termo.interface.suggest import suggest as library_suggest

    history = ["tarso:BBBBB/BYBBB"]
    answer = suggest(client, history)
    assert answer.status_code == 200
    data = answer.json()
    expected = library_suggest(get_mode("dueto"), history, level=2)
    # one door: the games' own endpoint answers a mode the same (the mode's path is its alias)
    same = client.post("/api/suggest", json={"game": "dueto", "history": history, "level": 2})
    assert same.status_code == 200 and same.json() == data
    for key in ("mode", "turn", "turns", "level", "objective", "word", "reason", "boards"):
        assert data[key] == expected[key], key
    assert [b["candidates"] for b in data["boards"]] == [223, 599]
    assert all(not b["solved"] and len(b["sample"]) == 10 for b in data["boards"])
    # the reason in the board's language, with a decimal comma
    pt = data["reason_messages"]["pt"]
    assert pt.startswith("a maior entropia conjunta nos 2 tabuleiros") and re.search(r"\d,\d{3} bits$", pt)


def test_bad_history_is_422_in_the_board_s_language(client):
    answer = suggest(client, ["tarso:BBBBB"])
    assert answer.status_code == 422
    body = answer.json()
    assert body["code"] == "boards.count" and "2 boards" in body["detail"]
    assert "tabuleiros" in body["messages"]["pt"] and "BBBBB" not in body["messages"]["pt"]
    # a pattern for a board already solved
    answer = suggest(client, ["tarso:GGGGG/BBBBB", "termo:GGGGG/BBBBB"])
    assert answer.status_code == 422 and answer.json()["code"] == "boards.solved_pattern"
    assert answer.json()["messages"]["pt"] == "o tabuleiro 1 já foi resolvido: ele não recebe cores"
    # one guess cannot solve two boards (each board has its own answer)
    answer = suggest(client, ["tarso:GGGGG/GGGGG"])
    assert answer.status_code == 422 and answer.json()["code"] == "boards.same_answer"


@pytest.mark.parametrize("body,code", [
    ({"mode": "nope"}, "game.unknown"),
    ({"mode": "dueto", "level": 1}, "level.mode"),
    ({"mode": "dueto", "level": 0}, "option.at_least"),
    ({"mode": "dueto", "level": "x"}, "option.integer"),
    ({"mode": "dueto", "objective": "fast"}, None),
    ({"mode": "dueto", "speed": 1}, "request.field"),
])
def test_bad_options(client, body, code):
    answer = client.post("/api/mode/suggest", json=body)
    assert answer.status_code == 422
    data = answer.json()
    assert isinstance(data["detail"], str) and "\n" not in data["detail"]
    if code:
        assert data["code"] == code


def test_a_solved_board_takes_no_colours(client):
    # board 1 solved by tarso: later rounds give '-' for it
    answer = suggest(client, ["tarso:GGGGG/BYBBB"])
    assert answer.status_code == 200
    boards = answer.json()["boards"]
    assert boards[0] == {"board": 1, "solved": True, "solved_on": 1, "candidates": 1, "sample": ["tarso"]}
    assert boards[1]["candidates"] == 599 and not boards[1]["solved"]
    word = answer.json()["word"]
    assert word and word != "tarso"
    answer = suggest(client, ["tarso:GGGGG/BYBBB", f"{word}:-/BBBBB"])
    assert answer.status_code in (200, 422)  # the colours may leave no candidate; the slot is accepted
    if answer.status_code == 422:
        assert answer.json()["code"] == "boards.empty"


def test_the_win(client):
    from termo.core.feedback import feedback
    from termo.games import get_game

    game = get_game("termo")
    first = feedback(game.word_of("porta"), game.word_of("nuvem"), length=5)
    history = [f"nuvem:GGGGG/{first}", "porta:-/GGGGG"]
    answer = suggest(client, history)
    assert answer.status_code == 200
    data = answer.json()
    assert data["solved"] is True and data["word"] is None
    assert [b["solved_on"] for b in data["boards"]] == [1, 2]
    assert data["reason_messages"]["pt"] == "os 2 tabuleiros resolvidos em 2/7"
    # the board's last look: /api/mode/boards says won
    boards = client.post("/api/mode/boards", json={"mode": "dueto", "history": history}).json()
    assert boards["won"] is True and boards["over"] is True


def test_boards_after_the_last_try(client):
    history = ["tarso:BBBBB/BBBBB"] * 7
    answer = client.post("/api/mode/boards", json={"mode": "dueto", "history": history})
    assert answer.status_code == 200
    data = answer.json()
    assert data["over"] is True and data["won"] is False and data["turn"] == 8
    # a suggestion after the last try is refused, in the board's language
    refused = suggest(client, history)
    assert refused.status_code == 422 and refused.json()["messages"]["pt"].startswith("o jogo acabou")


def test_quarteto_forced_move_reason(client):
    from termo.core.feedback import feedback
    from termo.games import get_game

    game = get_game("termo")
    secrets = ["nuvem", "porta", "canto", "livro"]
    patterns = [feedback("tarso", game.word_of(s), length=5) for s in secrets]
    answer = suggest(client, ["tarso:" + "/".join(patterns)], mode="quarteto")
    assert answer.status_code == 200
    data = answer.json()
    assert len(data["boards"]) == 4 and data["turns"] == 9
    assert data["reason_messages"]["pt"]  # every reason the board shows in Portuguese
