"""Helpers shared by the letter games (Termo, English and Russian Wordle): word lists and checks."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from termo.core.errors import TermoError
from termo.games.base import Game


def letters_only(norm: str) -> str | None:
    """The guess rule of a letter game: every tile a letter."""
    from termo.core.messages import Message

    return None if norm.isalpha() else Message("use letters only", "guess.why.letters_only")


def read_words(path: Path) -> list[str]:
    """Non-empty stripped lines of a shipped word list (its bytes checked against the data
    manifest, `termo.core.manifest`)."""
    from termo.core.manifest import read_checked

    try:
        lines = read_checked(path).decode("utf-8").splitlines()
    except OSError as err:
        raise TermoError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise TermoError(f"{path} is damaged: not UTF-8 text") from None
    return [line.strip() for line in lines if line.strip()]


def dedupe(words, normalize: Callable[[str], str], prefer: Callable[[str], tuple] | None = None):
    """One display form per normalised word (``prefer`` picks among spellings: lowest key wins),
    in ascending normalised order. Returns the display forms."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(normalize(word), []).append(word)
    key = prefer or (lambda w: (w,))
    return [min(groups[k], key=key) for k in sorted(groups)]


def answers_then_probes(answers, allowed, normalize: Callable[[str], str]):
    """(answers, probes): the probe list starts with the answers, then the other allowed words."""
    seen = {normalize(w) for w in answers}
    extras = [w for w in allowed if normalize(w) not in seen]
    return tuple(answers), tuple(answers) + tuple(extras)


def letter_game(*, name: str, title: str, language: str, alphabet: str, answers_file: str,
                allowed_file: str, normalize: Callable[[str], str], opener: str, description: str,
                prefer: Callable[[str], tuple] | None = None, colour_letters: tuple = ()) -> Game:
    """A 5-letter, 6-try game with a uniform prior and the exact win rule from two shipped lists
    (answers; every accepted guess, answers included)."""
    from termo.core.paths import data_dir
    from termo.games.parsed import ParsedLists, cached_lists

    def parse() -> ParsedLists:
        answers = dedupe(read_words(data_dir() / answers_file), normalize, prefer)
        allowed = dedupe(read_words(data_dir() / allowed_file), normalize, prefer)
        answers, probes = answers_then_probes(answers, allowed, normalize)
        return ParsedLists.parse(answers, probes[len(answers):], (0.0,) * len(answers), normalize)

    lists = cached_lists(name, [data_dir() / answers_file, data_dir() / allowed_file], parse)
    return Game(name=name, key=name, word_length=5, answers=lists.answers, probes=lists.probes(),
                icf=lists.icf, normal_forms=lists.normal_forms(), max_turns=6, title=title, language=language,
                symbols=alphabet, normalizer=normalize, guess_error=letters_only,
                default_opener=opener, uniform_prior=True, description=description,
                colour_letters=colour_letters)
