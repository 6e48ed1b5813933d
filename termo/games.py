"""A game is data: word length, normalisation, answers, probes, prior scores and the turn limit.

The engine only sees a :class:`Game`; Termo is the first instance. An equation game (8 tiles,
3**8 patterns, uint16 codes) or another language's Wordle is another ``Game`` value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from termo import lexicon
from termo.errors import TermoError
from termo.feedback import normalize as _normalize
from termo.paths import data_dir


@dataclass(frozen=True)
class Game:
    name: str
    word_length: int
    answers: tuple[str, ...]  # display forms, in canonical (normalised ascending) order
    probes: tuple[str, ...]  # display forms; the answers first, then extra typeable words
    icf: tuple[float, ...]  # prior score per answer (low = common)
    max_turns: int = 6
    fold_cedilla: bool = True
    extended: bool = False
    _index: dict = field(default=None, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.probes[: len(self.answers)] != self.answers:
            raise TermoError(f"{self.name}: the probe list must start with the answer list")
        if len(self.icf) != len(self.answers):
            raise TermoError(f"{self.name}: {len(self.icf)} prior scores for {len(self.answers)} answers")
        index: dict[str, int] = {}
        for i, word in enumerate(self.probes_norm):
            if len(word) != self.word_length:
                raise TermoError(f"{self.name}: probe {self.probes[i]!r} has length {len(word)}")
            if word in index:
                raise TermoError(f"{self.name}: probe {self.probes[i]!r} is listed twice after normalisation")
            index[word] = i
        object.__setattr__(self, "_index", index)

    # --- sizes and codes -------------------------------------------------------------------
    @property
    def n_answers(self) -> int:
        return len(self.answers)

    @property
    def n_probes(self) -> int:
        return len(self.probes)

    @property
    def n_patterns(self) -> int:
        return 3**self.word_length

    @property
    def win_code(self) -> int:
        return self.n_patterns - 1

    @property
    def code_dtype(self) -> str:
        return "uint8" if self.n_patterns <= 256 else "uint16"

    # --- words ------------------------------------------------------------------------------
    def normalize(self, word: str) -> str:
        return _normalize(word, self.fold_cedilla)

    @cached_property
    def answers_norm(self) -> tuple[str, ...]:
        return tuple(self.normalize(w) for w in self.answers)

    @cached_property
    def probes_norm(self) -> tuple[str, ...]:
        return tuple(self.normalize(w) for w in self.probes)

    def index_of(self, word: str) -> int | None:
        """Probe index of ``word`` (accents optional), or None when it is not typeable here."""
        return self._index.get(self.normalize(word.strip()))

    def is_answer_index(self, probe_index: int) -> bool:
        return 0 <= probe_index < self.n_answers


@lru_cache(maxsize=None)
def termo_game(extended: bool = False, fold_cedilla: bool = True) -> Game:
    """Termo: 6,046 answers; 6,046 probes, or 8,629 with the conjugated forms when ``extended``."""
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
    probes = answers + extras if extended else answers
    name = "termo" + ("-extended" if extended else "") + ("" if fold_cedilla else "-cedilla")
    return Game(
        name=name,
        word_length=lexicon.WORD_LENGTH,
        answers=answers,
        probes=probes,
        icf=tuple(scores.get(w, unknown) for w in answers),
        fold_cedilla=fold_cedilla,
        extended=extended,
    )
