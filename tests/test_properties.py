"""Hypothesis properties of the feedback rules."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from termo.core.feedback import decode, encode, feedback, normalize, parse_pattern, pattern_possible, render_squares

LETTERS = "abcdeorstáçõ"
words = st.text(alphabet=LETTERS, min_size=5, max_size=5)


@given(words, words)
def test_coloured_letter_counts(guess, answer):
    """Greens + yellows of a letter never exceed its copies in the answer (nor in the guess)."""
    pattern = feedback(guess, answer)
    g, a = normalize(guess), normalize(answer)
    coloured = Counter(ch for ch, mark in zip(g, pattern) if mark != "B")
    for letter, count in coloured.items():
        assert count == min(Counter(g)[letter], Counter(a)[letter])


@given(words, words)
def test_green_and_yellow_consistency(guess, answer):
    pattern = feedback(guess, answer)
    g, a = normalize(guess), normalize(answer)
    for i, mark in enumerate(pattern):
        assert (mark == "G") == (g[i] == a[i])
        if mark == "Y":
            assert g[i] in a
    assert pattern_possible(guess, pattern)[0]


@given(words)
def test_self_feedback_is_a_win(word):
    assert feedback(word, word) == "GGGGG"


@given(st.text(alphabet=LETTERS + "ÁÇÃ ", max_size=8))
def test_normalisation_is_idempotent(text):
    once = normalize(text)
    assert normalize(once) == once


@settings(max_examples=200)
@given(st.integers(min_value=0, max_value=242))
def test_parser_round_trip(code):
    pattern = decode(code)
    assert parse_pattern(pattern) == pattern
    assert parse_pattern(render_squares(pattern)) == pattern
    assert parse_pattern(pattern.translate(str.maketrans("GYB", "210"))) == pattern
    assert encode(parse_pattern(" ".join(pattern.lower()))) == code
