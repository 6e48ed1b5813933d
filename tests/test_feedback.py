"""Feedback rules of spec §1: every listed case, codes, parser, plausibility."""

import re

import pytest

from termo.errors import TermoError
from termo.feedback import (
    decode,
    encode,
    feedback,
    feedback_code,
    normalize,
    parse_pattern,
    pattern_possible,
    render_squares,
)

# (secret, guess, pattern) from spec §1.2
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
