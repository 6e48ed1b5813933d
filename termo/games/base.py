"""A game describes its own rules: the engine only ever sees a :class:`Game`.

A game states its symbols and length, how typed text is normalised and validated, its answers
and typeable probes (answers first), its prior scores, its turn limit, its win rule, its default
opener and the language of its interface. The engine (matrix, sweeps, levels 1-3, lockstep,
robustness, session, play, suggest) reads these fields and never names a concrete game.

Behaviour is given as plain callables so that a game plugin is one small module
(``termo/games/<name>.py``) that builds a ``Game`` value; see ``termo/games/registry.py``.
"""

from __future__ import annotations

import unicodedata

from dataclasses import InitVar, dataclass, field
from functools import cached_property
from typing import Callable, Optional

from termo.core.errors import TermoError
from termo.core.feedback_model import HONEST, FeedbackModel
from termo.core.messages import unit_count

EXACT = "exact"  # a guess wins when it is the answer, written the same way


def lower(word: str) -> str:
    """The simplest normalisation: lower case, nothing else."""
    return word.lower()


# Latin letters drawn like a Cyrillic one (a Russian word typed with a Latin "o" looks right)
LATIN_LOOKALIKES = {"a": "а", "b": "в", "c": "с", "e": "е", "h": "н", "k": "к", "m": "м", "o": "о",
                    "p": "р", "t": "т", "x": "х", "y": "у"}
# and Cyrillic letters drawn like a Latin one (a Cyrillic keyboard's "о" in a Termo word)
CYRILLIC_LOOKALIKES = {"а": "a", "с": "c", "е": "e", "о": "o", "р": "p", "х": "x", "у": "y", "і": "i", "ј": "j",
                       "ѕ": "s"}

@dataclass(frozen=True)
class Game:
    """One game's rules and data (see the module docstring).

    ``icf`` holds one prior score per answer (low = common): the prior at temperature T is
    ``softmax(-icf / T)``; a game with a uniform prior gives every answer the score 0, so every
    T gives exactly ``1/n``. ``win_keys`` (one key per probe, answers first) implements a win
    rule other than the exact one: a guess wins against an answer whose key is equal to its own.
    A plugin gives either the keys or ``win_key`` (normalised probe -> key); the keys are then
    computed on first use (a matrix build), not every time the game is loaded.

    ``normal_forms`` (not a field: ``dataclasses.replace`` computes them again) gives the normal
    forms of the answers and of the probes when they are known already (a plugin's parsed lists,
    `termo.games.parsed`), so that they are not computed again word by word.
    """

    name: str
    word_length: int
    answers: tuple[str, ...]  # display forms, in canonical (normalised ascending) order
    probes: tuple[str, ...]  # display forms; the answers first, then extra typeable words
    icf: tuple[float, ...]  # prior score per answer (low = common); zeros = uniform
    max_turns: int = 6
    title: str = ""
    language: str = "en"  # interface language: "pt", "en", "ru"
    symbols: str = ""  # the alphabet of a guess, in the game's display order
    normalizer: Callable[[str], str] = lower
    guess_error: Optional[Callable[[str], Optional[str]]] = None  # why a normalised guess is invalid
    unit: str = "letters"  # what a tile holds, for messages ("letters", "symbols")
    default_opener: Optional[str] = None  # the interface's first guess (None: the level's optimum)
    win_rule: str = EXACT
    win_keys: Optional[tuple] = None  # one key per probe when win_rule != EXACT
    win_key: Optional[Callable[[str], object]] = None  # or: the key of one normalised probe
    uniform_prior: bool = False  # the prior does not depend on T
    extended: bool = False  # probes beyond the default probe space are included
    fold_cedilla: bool = True  # Termo's variant flag; other games ignore it
    # the game's own colour letters beside G/Y/B, 2/1/0 and the squares: (character, colour
    # G/Y/B, what it stands for), e.g. Termo's ("p", "B", "preto"), Nerdle's ("p", "Y", "purple")
    colour_letters: tuple = ()
    description: str = ""
    key: str = ""  # the registry name (``--game``); variants such as termo-extended share it
    feedback: FeedbackModel = HONEST  # what a row of colours is (termo.core.feedback_model)
    _index: dict = field(default=None, repr=False, compare=False, hash=False)
    normal_forms: InitVar[Optional[tuple]] = None  # (answers_norm, probes_norm), when known

    def __post_init__(self, normal_forms=None) -> None:
        if normal_forms is not None:
            self._take_normal_forms(*normal_forms)
        if self.probes[: len(self.answers)] != self.answers:
            raise TermoError(f"{self.name}: the probe list must start with the answer list")
        if len(self.icf) != len(self.answers):
            raise TermoError(f"{self.name}: {len(self.icf)} prior scores for {len(self.answers)} answers")
        if self.win_rule != EXACT and self.win_key is None and (
                self.win_keys is None or len(self.win_keys) != len(self.probes)):
            raise TermoError(f"{self.name}: the win rule {self.win_rule!r} needs one key per probe")
        index: dict[str, int] = {}
        for i, word in enumerate(self.probes_norm):
            if len(word) != self.word_length:
                raise TermoError(f"{self.name}: probe {self.probes[i]!r} has length {len(word)}")
            if word in index:
                raise TermoError(f"{self.name}: probe {self.probes[i]!r} is listed twice after normalisation")
            index[word] = i
        object.__setattr__(self, "_index", index)

    def _take_normal_forms(self, answers_norm, probes_norm) -> None:
        """Keep known normal forms as `answers_norm` and `probes_norm` (see the class doc)."""
        answers_norm, probes_norm = tuple(answers_norm), tuple(probes_norm)
        if (len(answers_norm), len(probes_norm)) != (len(self.answers), len(self.probes)) or (
                probes_norm[: len(answers_norm)] != answers_norm):
            raise TermoError(f"{self.name}: the normal forms given do not match the word lists")
        self.__dict__["answers_norm"] = answers_norm  # what the cached properties would compute
        self.__dict__["probes_norm"] = probes_norm

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
    def win_pattern(self) -> str:
        return "G" * self.word_length

    @property
    def code_dtype(self) -> str:
        return "uint8" if self.n_patterns <= 256 else "uint16"

    @property
    def label(self) -> str:
        """What ``--game`` names: the registry name (variants keep it)."""
        return self.key or self.name

    @property
    def shown(self) -> str:
        """The name a player reads: the title, else the label."""
        return self.title or self.label

    # --- words ------------------------------------------------------------------------------
    def normalize(self, word: str) -> str:
        """The game's normal form of typed text; fullwidth and other compatibility forms
        (``ｔａｒｓｏ``) are read as the plain letters first (NFKC)."""
        if not word.isascii():
            word = unicodedata.normalize("NFKC", word)
        return self.normalizer(word)

    @cached_property
    def alphabet(self) -> str:
        """The symbols a guess may use: the game's own, else every one its word lists use."""
        if self.symbols:
            return self.symbols
        return "".join(sorted(set("".join(self.probes_norm))))

    @cached_property
    def answers_norm(self) -> tuple[str, ...]:
        return tuple(self.normalizer(w) for w in self.answers)  # the lists need no NFKC (typed text does)

    @cached_property
    def probes_norm(self) -> tuple[str, ...]:
        n = len(self.answers)  # the probes start with the answers (checked in __post_init__)
        return self.answers_norm + tuple(self.normalizer(w) for w in self.probes[n:])

    def index_of(self, word: str) -> int | None:
        """Probe index of ``word`` (in any spelling the normalisation accepts), or None."""
        return self._index.get(self.normalize(word.strip()))

    def is_answer_index(self, probe_index: int) -> bool:
        return 0 <= probe_index < self.n_answers

    def check_guess_text(self, norm: str) -> None:
        """Raise TermoError when a normalised guess outside the probe list is not a valid guess."""
        if len(norm) != self.word_length:
            raise TermoError(f"{norm!r} has {unit_count(len(norm), self.unit)}; guesses here have {self.word_length}",
                             "guess.length", {"word": norm, "n": len(norm), "expected": self.word_length,
                                              "unit": self.unit})
        if self.alphabet:
            bad = [ch for ch in norm if ch not in self.alphabet]
            if bad:
                raise self._symbol_error(norm, bad[0])
        if self.guess_error is not None:
            reason = self.guess_error(norm)
            if reason:
                from termo.core.messages import nested

                raise TermoError(f"{norm!r} is not a valid guess: {reason}", "guess.invalid",
                                 {"word": norm, "why": nested(reason)})

    def word_of(self, text: str, role: str = "guess") -> str:
        """The normalised form of a typed word (or equation) of this game: a listed one, or one
        `check_guess_text` accepts (TermoError otherwise; ``role="answer"`` names it the answer)."""
        norm = self.normalize(text.strip())
        if self.index_of(norm) is not None:
            return norm
        try:
            self.check_guess_text(norm)
        except TermoError as err:
            if role != "answer" or err.code not in ("guess.length", "guess.invalid"):
                raise
            if err.code == "guess.length":
                raise TermoError(f"the answer {norm!r} has {unit_count(len(norm), self.unit)}; answers here have "
                                 f"{self.word_length}", "answer.length", err.params) from None
            raise TermoError(str(err).replace("is not a valid guess", "is not a valid answer", 1),
                             "answer.invalid", err.params) from None
        return norm

    def _symbol_error(self, norm: str, ch: str) -> TermoError:
        """The error for a symbol outside the game's own: a Latin letter in a Cyrillic game says
        so (and which Cyrillic letter it looks like), any other the symbols to use."""
        title = self.title or self.name
        cyrillic = self.unit == "letters" and any("\u0400" <= c <= "\u04ff" for c in self.alphabet)
        if cyrillic and "a" <= ch.lower() <= "z":
            twin = LATIN_LOOKALIKES.get(ch.lower())
            if twin is not None and twin in self.alphabet:
                return TermoError(f"{norm!r}: {ch!r} is a Latin letter that looks like the Cyrillic {twin!r}; "
                                  f"type the Cyrillic one", "guess.latin_lookalike",
                                  {"word": norm, "char": ch, "cyrillic": twin, "game": self.name})
            return TermoError(f"{norm!r}: {ch!r} is a Latin letter; {title} is played with Cyrillic letters",
                              "guess.latin", {"word": norm, "char": ch, "game": title})
        twin = CYRILLIC_LOOKALIKES.get(ch.lower()) if self.unit == "letters" and not cyrillic else None
        if twin is not None and twin in self.alphabet:
            return TermoError(f"{norm!r}: {ch!r} is a Cyrillic letter that looks like the Latin {twin!r}; "
                              f"type the Latin one", "guess.cyrillic_lookalike",
                              {"word": norm, "char": ch, "latin": twin, "game": self.name})
        if self.unit == "letters":
            return TermoError(f"{norm!r}: {ch!r} is not a symbol of {title} (use {self._symbols_hint()})",
                              "guess.letter", {"word": norm, "char": ch, "game": title})
        return TermoError(f"{norm!r}: {ch!r} is not a symbol of {title} (use {self._symbols_hint()})",
                          "guess.symbol", {"word": norm, "char": ch, "game": title, "symbols": self._symbols_hint()})

    def _symbols_hint(self) -> str:
        if self.unit == "letters":
            return "letters only"
        return " ".join(self.symbols)

    def parse_colours(self, text: str) -> str:
        """The pattern (``GYB...``) typed as ``text`` in this game's colour forms (docs/rules.md §1.4)."""
        from termo.core.feedback import parse_pattern

        return parse_pattern(text, self.word_length, self.colour_letters, self.shown)

    @property
    def colour_hint(self) -> str:
        """The colour forms this game accepts, in words (help texts, errors)."""
        from termo.core.feedback import colour_hint

        return colour_hint(self.colour_letters)

    # --- win rule ---------------------------------------------------------------------------
    @cached_property
    def probe_win_keys(self) -> tuple | None:
        """One win key per probe (None under the exact rule)."""
        if self.win_rule == EXACT:
            return None
        if self.win_keys is not None:
            return self.win_keys
        return tuple(self.win_key(w) for w in self.probes_norm)

    def wins(self, probe_index: int, answer_index: int) -> bool:
        """Does guessing probe ``probe_index`` win when the answer is ``answer_index``?"""
        if self.win_rule == EXACT or probe_index == answer_index:
            return probe_index == answer_index
        if self.win_keys is None and "probe_win_keys" not in self.__dict__:  # two keys, not all
            return self.win_key(self.probes_norm[probe_index]) == self.win_key(self.probes_norm[answer_index])
        keys = self.probe_win_keys
        return keys[probe_index] == keys[answer_index]

    @cached_property
    def win_classes(self) -> tuple[tuple[int, ...], ...]:
        """Groups of probe indices that win against each other, each of size > 1 (exact rule: none)."""
        keys = self.probe_win_keys
        if keys is None:
            return ()
        groups: dict = {}
        for i, key in enumerate(keys):
            groups.setdefault(key, []).append(i)
        return tuple(tuple(g) for g in groups.values() if len(g) > 1)

    def summary(self) -> dict:
        """Plain data for ``termo games``."""
        return {
            "name": self.label,
            "title": self.shown,
            "answers": self.n_answers,
            "probes": self.n_probes,
            "length": self.word_length,
            "turns": self.max_turns,
            "patterns": self.n_patterns,
            "prior": "uniform" if self.uniform_prior else "word frequency (ICF softmax)",
            "win_rule": self.win_rule,
            "opener": self.default_opener,
            "language": self.language,
            "colours": self.colour_hint,
            "description": self.description,
            **({} if self.feedback.honest else {"feedback": self.feedback.summary()}),
        }
