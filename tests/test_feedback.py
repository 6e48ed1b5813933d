"""Feedback rules of docs/rules.md §1: every listed case, codes, parser, plausibility."""

import re

import pytest

from termo.core.errors import TermoError
from termo.core.feedback import (
    colours,
    decode,
    encode,
    feedback,
    feedback_code,
    normalize,
    parse_pattern,
    pattern_possible,
    render_squares,
)

# (secret, guess, pattern) from docs/rules.md §1.2
CASES = [
    ("arara", "ratos", "YYBBB"),
    ("arara", "arara", "GGGGG"),
    ("carro", "rerum", "YBGBB"),
    ("banco", "barra", "GGBBB"),
    ("saúde", "saude", "GGGGG"),
    ("saude", "saúde", "GGGGG"),
    ("açude", "acude", "GGGGG"),
    ("termo", "metro", "YGYYG"),
    ("porta", "oxoxx", "YBBBB"),
    ("porta", "oovxx", "BGBBB"),
    ("ovaxx", "ovoxx", "GGBGG"),
]


@pytest.mark.parametrize("secret, guess, pattern", CASES)
def test_two_pass_cases(secret, guess, pattern):
    assert feedback(guess, secret) == pattern


def test_cedilla_flag():
    assert feedback("acude", "açude") == "GGGGG"
    assert feedback("acude", "açude", fold_cedilla=False) == "GBGGG"
    assert normalize("Açúcar") == "acucar"
    assert normalize("açúcar", fold_cedilla=False) == "açucar"


def test_wrong_length_is_an_error():
    with pytest.raises(TermoError, match="letters"):
        feedback("casa", "termo")


def test_codes():
    assert encode("YGBBB") == 135
    assert encode("BBBBB") == 0
    assert encode("GGGGG") == 242
    assert decode(135) == "YGBBB"
    assert all(encode(decode(c)) == c for c in range(243))
    assert feedback_code("rerum", "carro") == encode("YBGBB")
    with pytest.raises(TermoError):
        decode(243)


@pytest.mark.parametrize("text", ["ygbbb", " Y G B B B ", "🟨🟩⬛⬛⬛", "12000", "agppp", "🟡🟢⬜-.", "AVCCC"])
def test_parser_accepts_every_format(text):
    assert parse_pattern(text) == "YGBBB"


@pytest.mark.parametrize("text, fragment", [("ygbbx", "'x'"), ("🟨🟩⬛⬛⬛\ufe0f", "U+FE0F"), ("ygbb", "4 colours")])
def test_parser_errors_name_the_problem(text, fragment):
    with pytest.raises(TermoError, match=re.escape(fragment)):
        parse_pattern(text)


def test_render_squares():
    assert render_squares("YGBBB") == "🟨🟩⬛⬛⬛"


@pytest.mark.parametrize(
    "guess, pattern, possible",
    [
        ("oovxx", "BYBBB", False),
        ("oovxx", "YBBBB", True),
        ("tarso", "GGGGY", False),
        ("tarso", "YGGGG", False),
        ("tarso", "BBBBB", True),
        ("tarso", "GGGGG", True),
        ("tarso", "GGGGB", True),
        ("arara", "YYYYY", False),
        ("ratos", "YYBBB", True),
        ("aaaaa", "YBBBB", False),
    ],
)
def test_pattern_possible(guess, pattern, possible):
    ok, reason = pattern_possible(guess, pattern)
    assert ok is possible
    assert bool(reason) is not possible


# --- each game's own colour letters (docs/rules.md §1.4) ---------------------------------------
# (game, typed, pattern): the common forms in every game, and each game's letters in its own game
GAME_COLOURS = [
    ("termo", "vapcy", "GYBBY"),
    ("termo", "GYB21", "GYBGY"),
    ("wordle", "gybb0", "GYBBB"),
    ("wordle-ru", "зжсgy", "GYBGY"),
    ("nerdle", "PBBGPGPB", "YBBGYGYB"),  # P is purple (present), never Termo's preto
    ("nerdle", "🟪⬛⬛🟩🟪🟩🟪⬛", "YBBGYGYB"),
    ("nerdle-mini", "pbbpbb", "YBBYBB"),
]
# letters of another game, refused with the reason (no letter is read across games)
FOREIGN = [
    ("wordle", "ppbgy", "'p' is preto in Termo, purple in Nerdle"),
    ("wordle", "vvvvv", "'v' is verde in Termo"),
    ("nerdle", "vbbgbgbb", "'v' is verde in Termo"),
    ("nerdle", "cbbgbgbb", "'c' is cinza in Termo"),
    ("termo", "зbbgy", "'з' is зелёный in Russian Wordle"),
    ("wordle-ru", "pbbgy", "'p' is preto in Termo, purple in Nerdle"),
]


@pytest.mark.parametrize("name, typed, pattern", GAME_COLOURS)
def test_each_game_reads_its_own_colour_letters(name, typed, pattern):
    from termo.games.registry import get_game

    assert get_game(name).parse_colours(typed) == pattern


@pytest.mark.parametrize("name, typed, reason", FOREIGN)
def test_another_games_colour_letter_is_refused_with_the_reason(name, typed, reason):
    from termo.games.registry import get_game

    game = get_game(name)
    with pytest.raises(TermoError, match=re.escape(reason)) as err:
        game.parse_colours(typed)
    assert f"not a colour in {game.title}" in str(err.value) and game.colour_hint in str(err.value)


def test_nerdle_purple_keeps_the_answer_of_the_issue():
    """48-32=16 against 12+35=47 is YBBGYGYB: typed with Nerdle's P it is that pattern (it was
    read as preto, BBBGBGBB, which eliminated the answer)."""
    from termo.games.registry import get_game

    game = get_game("nerdle")
    assert colours("48-32=16", "12+35=47") == game.parse_colours("PBBGPGPB") == "YBBGYGYB"


def test_colour_help_names_every_games_letters():
    from termo.core.feedback import colours_help

    text = colours_help()
    for fragment in ("p=B (preto)", "Nerdle also p=Y (purple)", "v=G (verde)", "з=G"):
        assert fragment in text
