"""What the Nerdle puzzle tests share (tests/test_puzzles.py, tests/test_puzzles_today.py): the
pinned archive dates and the fixtures of Nerdle Classic and its difficulty scale."""

from __future__ import annotations

import datetime as dt

import pytest

from termo.puzzles import archive, difficulty

D = dt.date

PINNED = {
    "2000-01-01": "24-14=10",
    "2000-01-02": "89-29=60",
    "2022-01-20": "71-9*7=8",
    "2026-12-01": "4+4*9=40",
    "2048-07-10": "86-10=76",  # day 17,723: the first day of the second cycle
    "2048-07-11": "21+75=96",
    "2099-12-31": "4/1+9=13",
}


@pytest.fixture(scope="module")
def game():
    return archive.nerdle_game()


@pytest.fixture(scope="module")
def scale(game):
    return difficulty.scale_for(game)
