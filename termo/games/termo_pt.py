"""Termo (term.ooo): Portuguese, 5 letters, 6 tries, accents ignored by the colours, ICF prior.

6,046 answers; 6,046 probes, or 8,629 with the conjugated forms when ``extended``. ``ç`` folds
to ``c`` unless ``fold_cedilla=False`` (the lists are then regrouped from the raw sources).
"""

from __future__ import annotations

from functools import lru_cache, partial

from termo.games import lexicon
from termo.core.errors import TermoError
from termo.core.feedback import TERMO_LETTERS, normalize
from termo.games.base import Game
from termo.games.parsed import ParsedLists, cached_lists
from termo.games.words import letters_only
from termo.core.paths import data_dir

NAME = "termo"
OPENER = "tarso"


def parse_lists(fold_cedilla: bool = True) -> ParsedLists:
    """Termo's answers, extra probes (the conjugated forms), ICF scores and normal forms, parsed
    from the shipped files (``fold_cedilla=False``: regrouped from the raw sources)."""
    if fold_cedilla:
        answers = lexicon.load_word_list(data_dir() / lexicon.LEXICON_FILE)
        extras = lexicon.load_word_list(data_dir() / lexicon.EXTRA_PROBES_FILE)
    else:  # the shipped lists are grouped with the cedilla folded: regroup from the raw sources
        build = lexicon.rebuild(fold_cedilla=False)
        answers, extras = build.answers, build.extra_probes
    scores = lexicon.load_icf(data_dir() / lexicon.ICF_FILE)
    missing = [w for w in answers if w not in scores]
    if missing and fold_cedilla:  # the shipped clip covers every answer: a gap means a damaged file
        raise TermoError(f"no ICF score for {len(missing)} answers (first: {missing[0]!r})")
    unknown = max(scores.values()) + 1.0  # spellings only the cedilla split creates: rarest of all
    return ParsedLists.parse(answers, extras, (scores.get(w, unknown) for w in answers),
                             partial(normalize, fold_cedilla=fold_cedilla))


def _lists(fold_cedilla: bool) -> ParsedLists:
    """The parsed lists, from the parsed-game cache (`termo.games.parsed`) when they are shipped ones."""
    if not fold_cedilla:  # rare, and read from the raw sources: parsed each time
        return parse_lists(fold_cedilla=False)
    sources = [data_dir() / name for name in (lexicon.LEXICON_FILE, lexicon.EXTRA_PROBES_FILE, lexicon.ICF_FILE)]
    return cached_lists(NAME, sources, parse_lists)


@lru_cache(maxsize=None)
def termo_game(extended: bool = False, fold_cedilla: bool = True) -> Game:
    """The Termo game (memoised)."""
    lists = _lists(fold_cedilla)
    name = NAME + ("-extended" if extended else "") + ("" if fold_cedilla else "-cedilla")
    return Game(
        name=name,
        word_length=lexicon.WORD_LENGTH,
        answers=lists.answers,
        probes=lists.probes(extended),
        icf=lists.icf,
        normal_forms=lists.normal_forms(extended),
        max_turns=6,
        title="Termo",
        language="pt",
        normalizer=partial(normalize, fold_cedilla=fold_cedilla),
        guess_error=letters_only,
        default_opener=OPENER,
        fold_cedilla=fold_cedilla,
        colour_letters=TERMO_LETTERS,
        extended=extended,
        key=NAME,
        description="term.ooo, Portuguese Wordle: accents ignored by the colours, word-frequency prior",
    )


def make(extended: bool = False, strict: bool = False, fold_cedilla: bool = True) -> Game:
    """Registry factory (``strict`` is the exact win rule, which Termo always uses)."""
    return termo_game(extended=extended, fold_cedilla=fold_cedilla)


def termo_like(name: str, answers, probes, icf, **changes) -> Game:
    """A game with Termo's rules over other lists (closed worlds, small test games)."""
    import dataclasses

    return dataclasses.replace(termo_game(), name=name, answers=tuple(answers), probes=tuple(probes),
                               icf=tuple(icf), **changes)
