"""Absurdle (qntm): English Wordle against an adversary instead of a secret (docs/rules.md §13.1).

The site's own lists (data/SOURCES.absurdle.txt): 2,311 answers (the original Wordle's 2,315 less
gipsy, gypsy, mammy and paddy) and 12,927 guesses. There is no secret: after each guess the game
keeps the largest group of the answers still possible and shows that group's colours (the feedback
model `termo.core.feedback_model.ADVERSARY`); the player types guesses only. The site sets no
limit on the guesses; termo plays it with 10 rows (a forced win takes 4, docs/absurdle.md).
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

from termo.core.feedback_model import ADVERSARY
from termo.games.base import Game
from termo.games.words import letter_game

NAME = "absurdle"
ANSWERS_FILE = "absurdle_answers.txt"
ALLOWED_FILE = "absurdle_allowed.txt"
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
ROWS = 10  # the site has no limit; the board and the sessions stop after this many guesses
# the first guess of the most four-guess wins (docs/absurdle.md: proved by `termo optimal --game absurdle`)
OPENER = "tyler"


@lru_cache(maxsize=None)
def absurdle_game() -> Game:
    base = letter_game(name=NAME, title="Absurdle", language="en", alphabet=ALPHABET, answers_file=ANSWERS_FILE,
                       allowed_file=ALLOWED_FILE, normalize=str.lower, opener=OPENER,
                       description="Absurdle (qntm): the adversary keeps the largest group of answers, "
                                   "2,311 answers, 12,927 guesses")
    return dataclasses.replace(base, max_turns=ROWS, feedback=ADVERSARY,
                               normal_forms=(base.answers_norm, base.probes_norm))


def make(extended: bool = False, strict: bool = False) -> Game:
    """Registry factory: one probe space (every accepted guess), the exact win rule."""
    return absurdle_game()
