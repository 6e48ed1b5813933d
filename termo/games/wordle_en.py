"""English Wordle on the original lists (before the 2022 list changes): 2,315 answers, 12,972
accepted guesses (answers included), 5 letters, 6 tries, uniform prior, exact win rule.

The probe space is every accepted guess (answers first); ``extended`` changes nothing.
``answer_list="quordle"`` is the same game with the ten answers the Quordle source blacklists
left out of the answers (they stay typeable guesses): 2,305 answers, 12,972 guesses (docs/modes.md).
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


# the answers Quordle's source never draws (the guesses keep them)
QUORDLE_BLACKLIST = ("gypsy", "gipsy", "mammy", "agora", "slave", "hussy", "junta", "junto", "welch", "moron")
ANSWER_LISTS = ("original", "quordle")


@lru_cache(maxsize=None)
def quordle_game() -> Game:
    """Wordle with the Quordle answers: the blacklisted words move from the answers to the guesses."""
    import dataclasses

    base = wordle_game()
    dropped = set(QUORDLE_BLACKLIST)
    answers = tuple(w for w in base.answers if w not in dropped)
    extras = sorted([w for w in base.answers if w in dropped] + list(base.probes[base.n_answers:]))
    return dataclasses.replace(base, name="wordle-quordle", answers=answers, probes=answers + tuple(extras),
                               icf=(0.0,) * len(answers),
                               description="English Wordle, Quordle's answers (2,315 less 10 blacklisted), uniform prior")


def make(extended: bool = False, strict: bool = False, answer_list: str = "original") -> Game:
    """Registry factory: one probe space (all accepted guesses), the exact win rule;
    ``answer_list`` is ``original`` (2,315 answers) or ``quordle`` (2,305)."""
    if answer_list not in ANSWER_LISTS:
        from termo.core.errors import TermoError

        raise TermoError(f"unknown Wordle answer list {str(answer_list)[:40]!r}; choose one of: {', '.join(ANSWER_LISTS)}")
    return quordle_game() if answer_list == "quordle" else wordle_game()
