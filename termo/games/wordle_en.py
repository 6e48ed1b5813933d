"""English Wordle on the original lists (before the 2022 list changes): 2,315 answers, 12,972
accepted guesses (answers included), 5 letters, 6 tries, uniform prior, exact win rule.

The probe space is every accepted guess (answers first); ``extended`` changes nothing.
"""

from __future__ import annotations

from functools import lru_cache

from termo.games.base import Game
from termo.games.words import letter_game

NAME = "wordle"
ANSWERS_FILE = "wordle_en_answers.txt"
ALLOWED_FILE = "wordle_en_allowed.txt"
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
OPENER = "salet"  # Selby's proven optimal opener for the original lists


def normalize(word: str) -> str:
    return word.lower()


@lru_cache(maxsize=None)
def wordle_game() -> Game:
    return letter_game(name=NAME, title="Wordle", language="en", alphabet=ALPHABET,
                       answers_file=ANSWERS_FILE, allowed_file=ALLOWED_FILE, normalize=normalize,
                       opener=OPENER, description="English Wordle, original lists, uniform prior")


def make(extended: bool = False, strict: bool = False) -> Game:
    """Registry factory: one probe space (all accepted guesses), the exact win rule."""
    return wordle_game()
