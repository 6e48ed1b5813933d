"""Nerdle Classic (8 tiles) and Nerdle Mini (6 tiles): equation Wordle, 6 tries, uniform prior.

The answers are every equation the published rules allow (rules §12.1; the generator and the
rules are in :mod:`termo.games.equations`): 17,723 for Classic, 206 for Mini. They ship as
``data/nerdle_classic.txt`` and ``data/nerdle_mini.txt`` (one equation a line, sorted), which the
tests prove equal to the generator's output, so loading a game never runs the generator. The
probes are the answers: a typed guess must obey the answer rules, and the answer set holds every
such equation, so there is nothing else to type (``extended`` gives the same list). A text
outside the list is rejected with the reason from :func:`~termo.games.equations.equation_error`.

Win rule: ``commutative`` (the official game's "commutative answers" setting, the one the
published numbers are scored under): a guess wins when it is a rearrangement of the answer by
swapping the operands of ``+`` and ``*`` (see :func:`~termo.games.equations.commutative_key`).
``strict=True`` scores the written form only (``exact``).

Typed text: spaces are dropped, and the typographic ``×``, ``÷`` and ``−`` (U+2212) are read as
``*``, ``/`` and ``-``; nothing else is changed (Nerdle has no case or accents).
"""

from __future__ import annotations

from functools import lru_cache, partial

from termo.core.errors import TermoError
from termo.core.feedback import NERDLE_LETTERS
from termo.games import equations
from termo.games.base import EXACT, Game
from termo.games.parsed import ParsedLists, cached_lists
from termo.games.words import read_words
from termo.core.paths import data_dir

CLASSIC_FILE = "nerdle_classic.txt"
MINI_FILE = "nerdle_mini.txt"
COMMUTATIVE = "commutative"
# Classic: the first guess of the exact solver's best proved strategy, the shipped tree
# data/trees/nerdle-exact.tree.gz (52,317 guesses over the 17,723 answers, mean 2.951927, proved
# optimal for this first guess: docs/exact.md), which the default configuration then walks. The
# best first guess by entropy is 48-32=16 (9.7752 bits; maxjiang216/nerdle-solver publishes 9.78),
# what `termo opener --level 2` and --opener optimal play; this one has 9.7198 bits.
CLASSIC_OPENER = "54-38=16"
# Mini: the best opener by entropy over the 206 answers (uniform prior, commutative rule), found
# with the engine: termo.book.openers.optimal_opener(Solver(make(mini=True), level=2)) gives 4*7=28,
# 5.8106 bits in 74 groups (its rearrangement 7*4=28 is in the winning group), ahead of 28/7=4
# (5.8049); also the best under the exact rule (5.8203 bits). A direct entropy count agrees.
MINI_OPENER = "4*7=28"
_TYPOGRAPHIC = str.maketrans({"\u00d7": "*", "\u00f7": "/", "\u2212": "-"})


def normalize(text: str) -> str:
    """Drop whitespace and read ``× ÷ −`` as ``* / -``; everything else as typed."""
    return "".join(text.split()).translate(_TYPOGRAPHIC)


def read_equations(name: str, rules: equations.Rules) -> tuple[str, ...]:
    """A shipped answer list, checked for its tile count and ascending order."""
    path = data_dir() / name
    eqs = read_words(path)
    if any(len(e) != rules.tiles for e in eqs) or any(a >= b for a, b in zip(eqs, eqs[1:])):
        raise TermoError(f"{path} is damaged: expected sorted {rules.tiles}-tile equations")
    return tuple(eqs)


@lru_cache(maxsize=None)
def make(extended: bool = False, strict: bool = False, mini: bool = False) -> Game:
    """Nerdle Classic, or Nerdle Mini when ``mini`` (memoised); ``strict``: the exact win rule."""
    rules = equations.MINI if mini else equations.CLASSIC
    key = "nerdle-mini" if mini else "nerdle"
    file = MINI_FILE if mini else CLASSIC_FILE

    def parse() -> ParsedLists:
        answers = read_equations(file, rules)
        return ParsedLists.parse(answers, (), (0.0,) * len(answers), normalize)

    lists = cached_lists(key, [data_dir() / file], parse)
    answers = lists.answers
    opener = MINI_OPENER if mini else CLASSIC_OPENER
    return Game(
        name=key,
        word_length=rules.tiles,
        answers=answers,
        probes=answers,
        icf=lists.icf,
        normal_forms=lists.normal_forms(),
        max_turns=6,
        title="Nerdle Mini" if mini else "Nerdle",
        language="en",
        symbols=equations.SYMBOLS,
        normalizer=normalize,
        guess_error=partial(equations.equation_error, rules=rules),
        unit="symbols",
        default_opener=opener if opener in answers else None,
        win_rule=EXACT if strict else COMMUTATIVE,
        win_key=None if strict else equations.commutative_key,
        uniform_prior=True,
        colour_letters=NERDLE_LETTERS,  # P is purple (present) here, not Termo's preto
        extended=extended,
        key=key,
        description=(f"Nerdle {'Mini' if mini else 'Classic'}: {rules.tiles}-tile equations, 6 tries, "
                     f"{'exact' if strict else 'commutative'} wins"),
    )
