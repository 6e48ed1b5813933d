"""Russian Wordle on the wordle.belousov.one lists: 725 answers, 6,372 accepted guesses (6,241
after folding), 5 letters, 6 tries, uniform prior, exact win rule.

Normalisation lower-cases and folds only ``ё`` to ``е`` (as the game colours them); ``й`` is a
letter of its own. Spellings that fold together are one probe, shown in the ``ё`` spelling.
These are not the lists of the Habr entropy study (wordly.org/ru), so its numbers differ.
"""

from __future__ import annotations

from functools import lru_cache

from termo.core.feedback import RUSSIAN_LETTERS
from termo.games.base import Game
from termo.games.words import letter_game

NAME = "wordle-ru"
ANSWERS_FILE = "wordle_ru_answers.txt"
ALLOWED_FILE = "wordle_ru_allowed.txt"
ALPHABET = "абвгдежзийклмнопрстуфхцчшщъыьэюя"  # after folding ё into е
OPENER = "норка"  # the Habr study's best first guess by entropy (on its own lists)


def normalize(word: str) -> str:
    return word.lower().replace("ё", "е")


def _prefer_yo(word: str) -> tuple:
    return ("ё" not in word, word)


@lru_cache(maxsize=None)
def wordle_ru_game() -> Game:
    return letter_game(name=NAME, title="Вордли", language="ru", alphabet=ALPHABET,
                       answers_file=ANSWERS_FILE, allowed_file=ALLOWED_FILE, normalize=normalize,
                       opener=OPENER, prefer=_prefer_yo, colour_letters=RUSSIAN_LETTERS,
                       description="Russian Wordle (wordle.belousov.one lists), ё folded into е, uniform prior")


def make(extended: bool = False, strict: bool = False) -> Game:
    """Registry factory: one probe space (all accepted guesses), the exact win rule."""
    return wordle_ru_game()
