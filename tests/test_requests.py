"""`termo.interface.requests`, the one module where both front ends turn a user's values into a
request: a number and its text are the same request, and a bad value gets one message, whichever
front end it came through."""

from __future__ import annotations

import math

import pytest

from termo.core.errors import TermoError
from termo.interface import requests


def test_an_integer_and_its_text_are_one_value():
    assert requests.parse_int("beam", 7, 1) == requests.parse_int("beam", " 7 ", 1) == 7
    with pytest.raises(TermoError, match=r"^--beam takes an integer, not '2\.5'$"):
        requests.parse_int("beam", "2.5", 1)
    with pytest.raises(TermoError, match=r"^--beam takes an integer, not 'true'$"):
        requests.parse_int("beam", True, 1)  # a JSON true is no integer
    with pytest.raises(TermoError, match=r"^--list must be at least 1, not 0$"):
        requests.parse_int("list", 0, 1)


def test_a_temperature_and_its_text_are_one_value():
    assert requests.parse_t(2) == requests.parse_t(2.0) == requests.parse_t("2") == 2.0
    assert requests.parse_t("inf") == requests.parse_t(math.inf) == math.inf
    assert requests.parse_t(10**400) == float("1" + "0" * 400) == math.inf  # as its text reads
    messages = set()
    for value in (0, 0.0, "0"):
        with pytest.raises(TermoError) as err:
            requests.parse_t(value)
        messages.add(str(err.value))
    assert len(messages) == 1


def test_a_configuration_from_numbers_equals_the_one_from_text():
    as_text = requests.parse_config("2", "0.5", "10", "1", "default")
    as_numbers = requests.parse_config(2, 0.5, 10, 1, "default")
    assert as_text == as_numbers
    with pytest.raises(TermoError, match=r"^--level must be 1, 2 or 3, not 4$"):
        requests.parse_config(4, 1, 10, 1)


def test_tree_options():
    assert requests.tree_spec(None, False) == "auto" and requests.tree_spec(None, True) is None
    with pytest.raises(TermoError, match="exclude each other"):
        requests.tree_spec("t.json", True)
