"""English Wordle: 5 letters, 6 tries, uniform prior, exact win rule, on one of its list editions.

``answer_list`` chooses the edition (`LISTS`): ``original``, the lists before the 2022 changes
(2,315 answers, 12,972 accepted guesses); ``nyt``, the New York Times game's 14,855 guesses with
the 3,158 answers of 2023-07-01; ``nyt-2022``, the same guesses with the NYT's 2,309 answers of
2022-08-30 (provenance: data/SOURCES.wordle.txt). ``quordle`` is the original game with the ten
answers the Quordle source blacklists left out of the answers (they stay typeable guesses): 2,305
answers, 12,972 guesses (docs/modes.md). The registry names one game per edition (``wordle``,
``wordle-nyt``, ``wordle-nyt-2022``).

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
NYT_ALLOWED_FILE = "wordle_nyt_allowed_20220830.txt"
# the first guess of Selby's published optima for the NYT lists; the totals from it are proved
# here (docs/exact.md: 11,219 over the 3,158 answers, 7,883 over the 2,309)
NYT_OPENER = "tarse"

# answer list -> (registry name, title, answers file, guesses file, default opener, description)
LISTS = {
    "original": (NAME, "Wordle", ANSWERS_FILE, ALLOWED_FILE, OPENER, "English Wordle, original lists, uniform prior"),
    "nyt": ("wordle-nyt", "Wordle (NYT)", "wordle_nyt_answers_20230701.txt", NYT_ALLOWED_FILE, NYT_OPENER,
            "English Wordle, NYT lists: 3,158 answers of 2023-07-01, 14,855 guesses, uniform prior"),
    "nyt-2022": ("wordle-nyt-2022", "Wordle (NYT 2022)", "wordle_nyt_answers_20220830.txt", NYT_ALLOWED_FILE,
                 NYT_OPENER, "English Wordle, NYT lists: 2,309 answers of 2022-08-30, 14,855 guesses, uniform prior"),
}


def normalize(word: str) -> str:
    return word.lower()


@lru_cache(maxsize=None)
def edition_game(answer_list: str) -> Game:
    """The game on the edition ``answer_list`` of `LISTS`."""
    name, title, answers_file, allowed_file, opener, description = LISTS[answer_list]
    return letter_game(name=name, title=title, language="en", alphabet=ALPHABET,
                       answers_file=answers_file, allowed_file=allowed_file, normalize=normalize,
                       opener=opener, description=description)


def wordle_game() -> Game:
    return edition_game("original")


# the answers Quordle's source never draws (the guesses keep them)
QUORDLE_BLACKLIST = ("gypsy", "gipsy", "mammy", "agora", "slave", "hussy", "junta", "junto", "welch", "moron")
ANSWER_LISTS = (*LISTS, "quordle")


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
    ``answer_list`` is ``original`` (2,315 answers), ``nyt`` (3,158), ``nyt-2022`` (2,309) or
    ``quordle`` (2,305)."""
    if answer_list not in ANSWER_LISTS:
        from termo.core.errors import TermoError

        raise TermoError(f"unknown Wordle answer list {str(answer_list)[:40]!r}; choose one of: {', '.join(ANSWER_LISTS)}")
    return quordle_game() if answer_list == "quordle" else edition_game(answer_list)
