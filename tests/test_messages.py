"""The message catalogue (termo/core/messages.py) and the board's languages in the API's answers.

Every code has an en, pt and ru template with the same fields; every error, reason and warning
the API can be made to send carries a code, and its pt and ru renderings hold no English sentence
and no command-line notation (no ``--flag``, no ``GGGGY``, no ``inf``, no decimal point).
"""

from __future__ import annotations

import json
import pickle
import re

import pytest
from fastapi.testclient import TestClient

from termo.core.errors import TermoError
from termo.core.messages import (CATALOGUE, LANGS, Message, format_number, messages, messages_of, placeholders,
                                 plural, render, with_note)
from web.app import create_app


@pytest.fixture(autouse=True)
def _no_game_env(monkeypatch):
    monkeypatch.delenv("TERMO_GAME", raising=False)


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


# ----------------------------------------------------------------------------- the catalogue


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_code_has_the_three_languages_with_the_same_fields(code):
    entry = CATALOGUE[code]
    assert set(entry) == set(LANGS), code
    fields = {lang: placeholders(entry[lang]) for lang in LANGS}
    assert fields["pt"] == fields["en"] == fields["ru"], (code, fields)
    words = re.sub(r"\{[^}]*\}", "", entry["en"])
    if any(ch.isalpha() for ch in words):  # a template of words (not only "{reason} ({note})") is translated
        assert entry["pt"] != entry["en"] and entry["ru"] != entry["en"], code


def test_numbers_in_each_language():
    assert format_number(3.142, "en", ".3f") == "3.142"
    assert format_number(3.142, "pt", ".3f") == "3,142"
    assert format_number(3.142, "ru", ".3f") == "3,142"
    assert format_number(12345, "pt", ",") == "12.345"
    assert format_number(12345, "ru", ",") == "12\u00a0345"
    assert format_number(float("inf"), "pt") == "∞"
    assert format_number(0.5, "ru") == "0,5"
    assert [plural(n, ("буква", "буквы", "букв"), "ru") for n in (1, 2, 5, 11, 21, 22, 25)] == \
        ["буква", "буквы", "букв", "букв", "буква", "буквы", "букв"]
    assert [plural(n, ("letter", "letters"), "en") for n in (0, 1, 2)] == ["letters", "letter", "letters"]


def test_a_russian_thousands_space_is_shown_not_escaped():
    """The no-break space that groups Russian thousands reaches a board as a space (escaping kept
    the line breaks and controls of echoed input visible, and wrote it as ``\\xa0``)."""
    from termo.core.messages import render
    from termo.core.safe_text import escape_data, escape_text

    line = render("history.too_long", {"n": 8111, "max": 1000}, "ru")
    assert "8\u00a0111" in line
    assert escape_text(line) == line and escape_data({"ru": line}) == {"ru": line}
    assert escape_text("a\u2028b\nc\x1b") == "a\\u2028b\\nc\\x1b"


def test_codes_travel_through_pickle():
    """The long searches run in worker processes: their errors and warnings come back pickled."""
    err = pickle.loads(pickle.dumps(TermoError("line", "game.won")))
    assert (str(err), err.code, err.params) == ("line", "game.won", {})
    why = Message("the yellow letters have no other free position to go to", "colours.why.no_room")
    warning = pickle.loads(pickle.dumps(Message("w", "colours.impossible", word="tarso", pattern="GGGGY", why=why)))
    assert isinstance(warning, Message) and isinstance(warning.params["why"], Message)
    assert str(warning) == "w" and warning.code == "colours.impossible"


def test_every_level2_reason_is_coded():
    from termo.engine.level2 import _REASONS, endgame_reason

    for uniform in (False, True):  # the uniform-prior games' wording too
        for kind in _REASONS:
            reason = endgame_reason(kind, 5, 3, uniform)
            assert isinstance(reason, Message) and reason.code in CATALOGUE, reason
            for lang in ("pt", "ru"):
                _assert_board_terms(messages_of(reason)[lang], lang)


def _reasons():
    """Every kind of reason a suggestion gives, built as the library builds it."""
    from termo.engine.multi.level2 import forced_reason
    from termo.engine.strategies import expected_reason
    from termo.interface.suggest import _opener_note

    expected = expected_reason(3.009)
    default = Message("default opener (the fixed first word)", "reason.default_opener")
    entropy = Message("maximum entropy over 2315 candidates", "reason.entropy", m=2315)
    hard_note = Message("hard mode changes nothing here: every first guess is legal", "note.hard_opener")

    class Game:
        default_opener = "tarso"

    return [
        Message("solved in 2/6", "reason.solved", turn=2, tries=6),
        entropy,
        Message("maximum entropy over 223 candidates (hard mode: among the 40 legal guesses)", "reason.entropy_hard",
                m=223, legal=40),
        Message("most frequent letters among 10 candidates", "reason.letters", m=10),
        Message("most frequent symbols among 10 candidates", "reason.symbols", m=10),
        expected,
        with_note(expected, Message("hard mode: this guess among the 17 legal ones; later turns searched without "
                                    "the restriction, so E is an estimate", "note.hard_level3", legal=17)),
        Message("the stored level3 tree's move (instant, no search): 1.667 guesses expected from here on its path",
                "reason.tree", expected=1.667),
        Message("default opener, also the optimum (lowest expected number of guesses (3.009))",
                "reason.default_is_optimum", reason=expected),
        _opener_note(Game, {"reason": default, "alternatives": [{"word": "salet"}]}, optimal=False),
        _opener_note(Game, {"reason": default, "alternatives": []}, optimal=False),
        _opener_note(Game, {"reason": with_note(default, hard_note), "alternatives": [{"word": "tosar"}]}, optimal=False),
        _opener_note(Game, {"reason": with_note(entropy, hard_note), "word": "salet"}, optimal=True),
        forced_reason(1),
        Message("x", "reason.boards_entropy", n=2, bits=11.95), Message("x", "reason.boards_entropy", n=1, bits=3.5),
        Message("x", "reason.boards_entropy_late", n=3, bits=9.0),
        Message("x", "reason.boards_won", n=4, turn=8, tries=9),
        Message("x", "reason.boards_exact", objective="score", tuples=1234),
        Message("x", "reason.boards_search", guesses=40, n=3),
        Message("x", "reason.boards_rollout", objective="finish", tuples=1234),
        Message("x", "reason.boards_sampled", objective="win", tuples=512),
        Message("x", "reason.boards_too_large"), Message("x", "reason.boards_first_given"),
        Message("x", "reason.boards_first_level2"), Message("x", "reason.boards_first_table", mode="Quordle"),
        Message("x", "reason.boards_forced_valued", board=2,
                reason=Message("x", "reason.boards_rollout", objective="score", tuples=90)),
    ]


@pytest.mark.parametrize("reason", _reasons(), ids=lambda r: r.code)
def test_reasons_are_coded_and_rendered_without_cli_notation(reason):
    assert isinstance(reason, Message) and reason.code in CATALOGUE, reason
    for lang in ("pt", "ru"):
        _assert_board_terms(render(reason.code, reason.params, lang), lang)
    # the opener's notes never repeat their first clause nor point to an option the board lacks
    english = render(reason.code, reason.params, "en")
    assert "opener" not in english.lower() and english.count("usual first word") <= 1, english


# ----------------------------------------------------------------------------- the API

ENGLISH = re.compile(r"\b(the|is|not|must|has|have|guess|guesses|letters?|colou?rs?|candidates?|"
                     r"expected|number|only|answer|word|list|tries|round|left|right|side|hard mode|"
                     r"level|beam|depth|opener|temperature|and|or|of|with|to|there)\b", re.I)
CLI = [re.compile(r"--"), re.compile(r"\b[GYBgyb]{4,}\b"), re.compile(r"\binf\b"), re.compile(r"\d\.\d"),
       re.compile(r"`"), re.compile(r"termo (opener|suggest)")]


def _assert_board_terms(text: str, lang: str, allowed=()) -> None:
    """No English word and no command-line notation in a pt/ru rendering (``allowed``: the
    player's own words echoed back, which may look English)."""
    shown = text
    for word in allowed:
        shown = shown.replace(word, " ")
    assert not ENGLISH.search(shown), (lang, text, ENGLISH.search(shown).group(0))
    for pattern in CLI:
        assert not pattern.search(shown), (lang, text, pattern.pattern)


# (endpoint, request, the player's own texts echoed in the message) -> the code reached
ERRORS = [
    ("suggest", {"history": ["tarso:GGGGY"]}, ["tarso"]),
    ("suggest", {"history": ["tarso:BBBBB", "filme:GGGGB"]}, ["tarso", "filme"]),
    ("suggest", {"history": ["tarso"]}, ["tarso"]),
    ("suggest", {"history": ["tars:BBBBB"]}, ["tars"]),
    ("suggest", {"history": ["a:BBBBB"]}, []),
    ("suggest", {"history": ["ta1so:BBBBB"]}, ["ta1so"]),
    ("suggest", {"history": ["tarso:BBQBB"]}, ["tarso"]),
    ("suggest", {"history": ["tarso:BBBB"]}, ["tarso"]),
    ("suggest", {"history": ["tarso:BYYBB"]}, ["tarso"]),  # fine: a round that is possible
    ("suggest", {"history": ["assim:YBBBB"]}, ["assim"]),  # fine
    ("suggest", {"history": ["ossos:BBBBY"]}, ["ossos"]),  # absent then present
    ("suggest", {"history": ["tarso:GGGGG", "filme:BBBBB"]}, ["tarso", "filme"]),
    ("suggest", {"history": ["tarso:BBBBB"] * 7}, ["tarso"]),
    ("suggest", {"history": ["tarso:BBBYB", "filme:BBBBB"], "hard": True, "level": 1}, ["tarso", "filme"]),
    ("suggest", {"history": ["tarso:BGBBB", "filme:BBBBB"], "hard": True, "level": 1}, ["tarso", "filme"]),
    ("suggest", {"history": ["assar:BYYBB", "pasto:BBBBB"], "hard": True, "level": 1}, ["assar", "pasto"]),
    ("suggest", {"level": 4}, []),
    ("suggest", {"level": "x"}, []),
    ("suggest", {"t": 0}, []),
    ("suggest", {"t": "hot"}, ["hot"]),
    ("suggest", {"t": "1e-400"}, ["1e-400"]),
    ("suggest", {"beam": 101}, []),
    ("suggest", {"beam": 0}, []),
    ("suggest", {"depth": 6}, []),
    ("suggest", {"opener": "best"}, ["best"]),
    ("suggest", {"list": 0}, []),
    ("suggest", {"game": "scrabble"}, ["scrabble", "termo", "nerdle", "nerdle-mini", "wordle", "wordle-ru"]),
    ("suggest", {"game": "nerdle-mini", "history": ["1+1=2:BBBBB"]}, []),
    ("suggest", {"game": "nerdle-mini", "history": ["1+1=3a:BBBBBB"]}, ["1+1=3a", "Nerdle Mini"]),
    ("suggest", {"game": "nerdle", "history": ["48-32=17:BBBBBBBB"]}, []),
    ("suggest", {"game": "nerdle", "history": ["48-32=16:GGGGGGGY"]}, []),
    ("suggest", {"game": "nerdle", "history": ["1/0+5=55:BBBBBBBB"]}, []),
    ("suggest", {"game": "wordle-ru", "history": ["кoшка:BBBBB"]}, ["кoшка"]),
    ("suggest", {"game": "wordle-ru", "history": ["кqшка:BBBBB"]}, ["кqшка"]),
    ("suggest", {"history": ["tars\u043e:BBBBB"]}, ["tars\u043e"]),  # a Cyrillic о in Termo
    ("suggest", {"history": ["tarso:BBBBB"] * 40}, []),
    ("suggest", {"history": ["x" * 500]}, []),
    ("suggest", {"opener": "x" * 500}, []),
    ("feedback", {"guess": "tars", "answer": "filme"}, ["tars"]),
    ("feedback", {"guess": "tarso", "answer": "nuvens"}, ["nuvens"]),
    ("feedback", {"guess": "4*7=29", "answer": "7*4=28", "game": "nerdle-mini"}, []),
    ("feedback", {"guess": "4*7=28", "answer": "7*4=29", "game": "nerdle-mini"}, []),
    ("partition", {"guess": "filme", "history": ["tarso:GGGGG"]}, ["filme", "tarso"]),
    ("partition", {"guess": "tarso:BBBBB", "history": []}, []),
    ("partition", {"guess": "filme", "t": "-1"}, []),
    ("opener", {"game": "wordle", "beam": "500"}, []),
    ("review", {"game": "wordle", "history": ["salet:BYBBB"], "share": True}, []),
    ("review", {"game": "wordle", "guesses": ["salet"], "share_text": "Wordle 1/6\n\n🟩🟩🟩🟨🟩"}, []),
    ("review", {"game": "wordle", "guesses": ["salet"], "share_text": "Wordle 1/6\n\n🟩🟩🟩🟩"}, []),
    ("review", {"game": "wordle", "guesses": ["salet"], "share_text": "Scrabble 1/6\n\n🟩🟩🟩🟩🟩"}, ["Scrabble 1/6"]),
    ("review", {"game": "wordle", "guesses": ["salet", "cigar"], "share_text": "Wordle 1/6\n\n🟩🟩🟩🟩🟩"}, []),
    ("review", {"game": "wordle", "guesses": ["salet", "cigar"], "answer": "salet"}, ["salet"]),
    ("review", {"game": "dueto", "guesses": ["tarso"], "answer": "tarso"}, []),
    ("review", {"game": "dueto", "history": ["tarso:BBBBB/BBBBB"], "hard": True}, ["dueto"]),
    ("review", {"game": "wordle", "guesses": ["salet"]}, []),
    ("review", {"game": "wordle", "history": ["salet:BBBBB"], "guesses": ["salet"]}, []),
    ("review", {"game": "wordle", "guesses": ["salet"], "share_text": "Wordle 1/6 " + "x" * 8_100}, []),
]


def _ask(client, endpoint: str, body: dict):
    if endpoint == "opener":
        return client.get("/api/opener", params=body)
    return client.post(f"/api/{endpoint}", json=body)


def _codes(message) -> set:
    """The code of a message and of the messages nested in its params."""
    found = {message["code"]}
    for value in message["params"].values():
        if isinstance(value, dict) and "code" in value:
            found |= _codes(value)
    return found


REACHED: set = set()


@pytest.mark.parametrize("endpoint,body,echoed", ERRORS, ids=lambda x: json.dumps(x, ensure_ascii=True)[:50])
def test_errors_come_in_the_board_languages(client, endpoint, body, echoed):
    response = _ask(client, endpoint, body)
    if response.status_code == 200:
        return
    assert response.status_code == 422, response.text
    data = response.json()
    assert list(data)[:4] == ["detail", "code", "params", "messages"], data
    assert set(data["messages"]) == set(LANGS)
    assert data["messages"] == messages(data["code"], data["params"])
    REACHED.update(_codes(data))
    for lang in ("pt", "ru"):
        _assert_board_terms(data["messages"][lang], lang, echoed)
    assert data["messages"]["pt"] != data["detail"]


def test_the_errors_reached_cover_the_catalogue(client):
    """Every error code a request can reach is reached by the cases above (asked again here: the
    test does not depend on how the suite is split between workers)."""
    for endpoint, body, _ in ERRORS:
        data = _ask(client, endpoint, body).json()
        if "code" in data:
            REACHED.update(_codes(data))
    expected = {
        "history.bad_item", "history.round", "history.round_empty", "history.too_long", "history.item_too_long",
        "game.unknown", "game.won", "game.over", "guess.length", "answer.length",
        "guess.not_letters", "guess.symbol", "guess.latin", "guess.latin_lookalike",
        "guess.cyrillic_lookalike", "guess.invalid",
        "answer.invalid", "guess.is_round", "colours.bad_char", "colours.count", "colours.impossible",
        "colours.why.no_room", "colours.why.absent_then_present", "hard.not_allowed", "hard.why.position",
        "hard.why.contain", "hard.why.at_least", "option.integer", "option.at_least", "option.level", "option.opener",
        "option.beam_memory", "option.depth_tries", "option.too_long", "temperature.not_number",
        "temperature.positive", "temperature.underflow", "partition.won", "eq.value", "eq.lone_zero",
        "review.not_over", "share.impossible_row", "share.row_width", "share.unknown_header", "review.guess_count",
        "review.after_win", "review.answer_count", "review.hard_boards", "review.needs_colours", "review.mixed_items",
        "share.too_long",
    }
    assert expected <= REACHED, sorted(expected - REACHED)


ANSWERS = [
    ("suggest", {"history": [], "level": 1}),
    ("suggest", {"history": ["tarso:BBBBB"], "level": 1}),
    ("suggest", {"history": ["tarso:BBBBB"], "level": 2}),
    ("suggest", {"history": ["tarso:BBBBB"], "level": 2, "hard": True}),
    ("suggest", {"history": ["tarso:BBBBB", "filme:GGGGG"], "level": 2}),
    ("suggest", {"history": ["xyzzy:BBBBB"], "level": 1}),  # a warning
    ("suggest", {"history": [], "level": 2, "opener": "optimal"}),
    ("suggest", {"history": [], "level": 2, "hard": True}),
    ("suggest", {"game": "wordle", "history": [], "level": 2}),
    ("suggest", {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 3}),
    ("suggest", {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 3, "no_tree": True}),
    ("suggest", {"game": "wordle-ru", "history": [], "level": 2}),
    ("opener", {"game": "wordle", "level": "2"}),
    ("opener", {"game": "nerdle-mini", "level": "3"}),
    ("partition", {"guess": "xyzzy", "history": ["tarso:BBBBB"]}),
    ("candidates", {"history": ["xyzzy:BBBBB"]}),
]


@pytest.mark.parametrize("endpoint,body", ANSWERS, ids=lambda x: json.dumps(x, ensure_ascii=True)[:50])
def test_reasons_and_warnings_come_in_the_board_languages(client, endpoint, body):
    response = _ask(client, endpoint, body)
    assert response.status_code == 200, response.text
    data = response.json()
    header = json.loads(response.headers.get("X-Termo-Warnings", "[]"))
    if "reason" in data:
        assert set(data["reason_messages"]) == set(LANGS), data
        words = [data["word"]] + [a["word"] for a in data.get("alternatives", [])] + ["tarso", "salet", "Вордли"]
        for lang in ("pt", "ru"):
            _assert_board_terms(data["reason_messages"][lang], lang, words)
        assert list(data)[-2:] in (["reason_messages", "warning_messages"], ["reason_messages", "remaining"]) \
            or list(data)[-1] == "reason_messages"
    if endpoint in ("suggest", "partition", "candidates"):
        assert len(data["warning_messages"]) == len(header)
        for rendered, line in zip(data["warning_messages"], header):
            assert set(rendered) == set(LANGS)
            for lang in ("pt", "ru"):
                _assert_board_terms(rendered[lang], lang, ["xyzzy"])


def test_the_cli_json_is_a_prefix_of_the_answer(client):
    """The answer keeps the command's keys, in order, before the added ones."""
    data = _ask(client, "suggest", {"history": ["tarso:BBBBB"], "level": 2}).json()
    keys = list(data)
    assert keys[-2:] == ["reason_messages", "warning_messages"]
    assert data["reason_messages"]["pt"].startswith("entropia máxima sobre 223 candidatas")


# ----------------------------------------------------------------------------- the CLI's hints (English)


def _cli_error(capsys, args) -> str:
    from cli.app import main

    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line]
    assert code == 2 and out == "" and len(lines) == 1, (code, out, lines)
    return lines[0]


def test_a_latin_letter_in_a_russian_word(capsys):
    line = _cli_error(capsys, ["suggest", "кoшка:BBBBB", "--game", "wordle-ru", "--level", "1"])
    assert "'o' is a Latin letter that looks like the Cyrillic 'о'" in line
    assert "is not a symbol" not in line
    line = _cli_error(capsys, ["feedback", "кqшка", "книга", "--game", "wordle-ru"])
    assert "'q' is a Latin letter; Вордли is played with Cyrillic letters" in line


def test_a_cyrillic_letter_in_a_latin_word(capsys):
    """The mirror case: a Cyrillic о typed in Termo (or Wordle) is named as the look-alike of the
    Latin o, not "use letters only" (it is a letter)."""
    line = _cli_error(capsys, ["suggest", "tars\u043e:BBBBB", "--level", "1"])
    assert "'\u043e' is a Cyrillic letter that looks like the Latin 'o'; type the Latin one" in line
    line = _cli_error(capsys, ["feedback", "\u0441rane", "crane", "--game", "wordle"])
    assert "looks like the Latin 'c'" in line
    line = _cli_error(capsys, ["feedback", "tars\u0436", "sorta"])  # no Latin twin: the plain rule
    assert "is not a symbol of Termo (use letters only)" in line


def test_partition_without_its_guess(capsys):
    line = _cli_error(capsys, ["partition", "tarso:BBBBB"])
    assert "the guess to split by is missing" in line and "11 letters" not in line


def test_feedback_names_the_answer(capsys):
    line = _cli_error(capsys, ["feedback", "tarso", "nuvens"])
    assert line == "termo: error: the answer 'nuvens' has 6 letters; answers here have 5"
    line = _cli_error(capsys, ["feedback", "tars", "nuvem"])
    assert line == "termo: error: 'tars' has 4 letters; guesses here have 5"


def test_singular_counts(capsys):
    from termo.core.messages import counted, unit_count

    line = _cli_error(capsys, ["suggest", "a:BBBBB", "--level", "1"])
    assert "'a' has 1 letter;" in line
    line = _cli_error(capsys, ["feedback", "1+1=2", "1+1=2", "--game", "nerdle-mini"])
    assert "has 5 symbols" in line
    assert (counted(1, "chunk"), counted(2, "chunk"), counted(1, "answer")) == ("1 chunk", "2 chunks", "1 answer")
    assert unit_count(1, "symbols") == "1 symbol"


def test_a_one_answer_node_of_a_shown_tree():
    from termo.trees.show import format_levels

    lines = format_levels({"guess": "tarso", "answers": 1, "solved_here": 1,
                           "children": [{"pattern": "GGGGB", "guess": "tarsa", "answers": 2}]})
    assert lines == ["start -> tarso  (1 answer, 1 solved here)", "  GGGGB -> tarsa  (2 answers)"]


def test_the_servers_own_refusals_come_in_the_board_languages(client):
    """A malformed or too large request, an unknown API address, a busy server: the same keys in
    the three languages as a refused value (the board shows messages[lang])."""
    from web.limits import MAX_BODY

    answers = {
        "request.field": client.post("/api/suggest", json={"hard": "very"}),
        "request.body": client.post("/api/suggest", content=b"{not json", headers={"Content-Type": "application/json"}),
        "request.too_large": client.post("/api/suggest", content=b"x" * (MAX_BODY + 1)),
        "request.not_found": client.get("/api/nothing"),
        "request.method": client.put("/api/suggest"),
    }
    for code, response in answers.items():
        body = response.json()
        assert body.get("code") == code, (code, body)
        assert set(body["messages"]) == set(LANGS) and isinstance(body["detail"], str)
        for lang in ("pt", "ru"):
            _assert_board_terms(body["messages"][lang], lang)


def test_a_nerdle_reason_speaks_of_symbols(capsys):
    """Level 1 on Nerdle counts symbols, and its reason says so (it said letters), in each language."""
    from cli.app import main

    from termo.games import get_game
    from termo.interface.suggest import suggest

    capsys.readouterr()
    assert main(["suggest", "--game", "nerdle-mini", "--level", "1", "4*7=28:YBBYBB", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reason"] == "most frequent symbols among 11 candidates"
    reason = suggest(get_game("nerdle-mini"), ["4*7=28:YBBYBB"], level=1)["reason"]  # the library's coded reason
    assert reason == "most frequent symbols among 11 candidates"
    assert messages_of(reason)["pt"] == "símbolos mais frequentes entre 11 candidatas"
