"""English Wordle on the original lists (before the 2022 list changes): 2,315 answers, 12,972
accepted guesses (answers included), 5 letters, 6 tries, uniform prior, exact win rule.

The probe space is every accepted guess (answers first); ``extended`` changes nothing.
"""

from __future__ import annotations

from functools import lru_cache

from termo.games.base import Game
from termo.games.words import answers_then_probes, dedupe, letters_only, read_words
from termo.paths import data_dir

NAME = "wordle"
ANSWERS_FILE = "wordle_en_answers.txt"
ALLOWED_FILE = "wordle_en_allowed.txt"
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
OPENER = "salet"  # Selby's proven optimal opener for the original lists


def normalize(word: str) -> str:
    return word.lower()


@lru_cache(maxsize=None)
def wordle_game() -> Game:
    answers = dedupe(read_words(data_dir() / ANSWERS_FILE), normalize)
    allowed = dedupe(read_words(data_dir() / ALLOWED_FILE), normalize)
    answers, probes = answers_then_probes(answers, allowed, normalize)
    return Game(
        name=NAME,
        key=NAME,
        word_length=5,
        answers=answers,
        probes=probes,
        icf=(0.0,) * len(answers),
        max_turns=6,
        title="Wordle",
        language="en",
        symbols=ALPHABET,
        normalizer=normalize,
        guess_error=letters_only,
        default_opener=OPENER,
        uniform_prior=True,
        description="English Wordle, original lists, uniform prior",
    )


def make(extended: bool = False, strict: bool = False) -> Game:
    """Registry factory: one probe space (all accepted guesses), the exact win rule."""
    return wordle_game()
