"""The Termo word lists (rules §2): rebuilding them from the raw fserb/pt-br sources, and loading them.

The shipped files in ``data/`` are what the game uses; :func:`rebuild` recomputes them from the
raw sources so a test can show that they are exactly derived, and ``termo lexicon`` reports the counts.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from termo.core.errors import TermoError
from termo.core.feedback import normalize
from termo.core.paths import data_dir

WORD_LENGTH = 5
# a-z plus Latin-1 letters U+00E0..U+00F6 and U+00F8..U+00FF (everything but the division sign).
FIVE_LETTERS = re.compile("[a-z\u00e0-\u00f6\u00f8-\u00ff]{5}")
MANUAL_PROBES = ("areio",)

LEXICON_FILE = "lexicon.txt"
ICF_FILE = "icf.csv"
EXTRA_PROBES_FILE = "probes_extra.txt"
RAW_LEXICON_FILE = "fserb_lexico.txt"
RAW_CONJUGATIONS_FILE = "fserb_conjugacoes.txt"


def _read_lines(path: Path) -> list[str]:
    """The lines of a file (a shipped one checked against the data manifest, `termo.core.manifest`)."""
    from termo.core.manifest import read_checked

    try:
        return read_checked(path).decode("utf-8").splitlines()
    except OSError as err:
        raise TermoError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise TermoError(f"{path} is damaged: not UTF-8 text") from None


def five_letter_words(lines) -> set[str]:
    """Stripped, lower-cased lines that are exactly five Latin-1 letters."""
    out = set()
    for line in lines:
        word = line.strip().lower()
        if len(word) == WORD_LENGTH and FIVE_LETTERS.fullmatch(word):
            out.add(word)
    return out


def load_icf(path: Path | None = None) -> dict[str, float]:
    """ICF score per display word (low = common); the first occurrence of a word wins."""
    path = path or data_dir() / ICF_FILE
    scores: dict[str, float] = {}
    for number, line in enumerate(_read_lines(path), 1):
        if not line.strip():
            continue
        word, sep, value = line.rpartition(",")
        try:
            score = float(value)
        except ValueError:
            score = math.nan
        if not sep or not word or math.isnan(score):
            raise TermoError(f"{path}:{number}: expected 'word,score', got {line!r}")
        scores.setdefault(word.strip(), score)
    return scores


def _pick_variant(variants: list[str], icf: dict[str, float], missing: float) -> str:
    """Lowest ICF wins (missing = ``missing``); ties go to the first in code-point order."""
    return min(sorted(variants), key=lambda w: icf.get(w, missing))


def _group(words, fold_cedilla: bool) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for word in sorted(words):
        groups[normalize(word, fold_cedilla)].append(word)
    return groups


@dataclass(frozen=True)
class LexiconBuild:
    """The result of rebuilding the lists from raw sources, with the counts of rules §2."""

    answers: tuple[str, ...]
    extra_probes: tuple[str, ...]
    five_letter_words: int
    groups: int
    colliding_groups: int
    colliding_words: int
    cedilla_before_dedupe: int
    cedilla_after_dedupe: int

    def counts(self) -> dict[str, int]:
        return {
            "five_letter_words": self.five_letter_words,
            "groups": self.groups,
            "colliding_groups": self.colliding_groups,
            "colliding_words": self.colliding_words,
            "cedilla_before_dedupe": self.cedilla_before_dedupe,
            "cedilla_after_dedupe": self.cedilla_after_dedupe,
            "answers": len(self.answers),
            "probes_extended": len(self.answers) + len(self.extra_probes),
        }


def rebuild(source_dir: Path | None = None, fold_cedilla: bool = True) -> LexiconBuild:
    """Recompute the answer list and the extra probes from the raw fserb/pt-br sources."""
    source_dir = source_dir or data_dir()
    icf = load_icf(source_dir / ICF_FILE)
    missing = max(icf.values()) + 1.0
    words = five_letter_words(_read_lines(source_dir / RAW_LEXICON_FILE))
    groups = _group(words, fold_cedilla)
    ordered_keys = sorted(groups)
    answers = tuple(_pick_variant(groups[key], icf, missing) for key in ordered_keys)
    colliding = [g for g in groups.values() if len(g) > 1]

    extra_words = five_letter_words(_read_lines(source_dir / RAW_CONJUGATIONS_FILE)) | set(MANUAL_PROBES)
    extra_groups = {k: v for k, v in _group(extra_words, fold_cedilla).items() if k not in groups}
    extras = tuple(_pick_variant(extra_groups[key], icf, missing) for key in sorted(extra_groups))
    return LexiconBuild(
        answers=answers,
        extra_probes=extras,
        five_letter_words=len(words),
        groups=len(groups),
        colliding_groups=len(colliding),
        colliding_words=sum(len(g) for g in colliding),
        cedilla_before_dedupe=sum("ç" in w for w in words),
        cedilla_after_dedupe=sum("ç" in w for w in answers),
    )


def load_word_list(path: Path, fold_cedilla: bool = True) -> tuple[str, ...]:
    """A shipped word list, checked: five Latin-1 letters per line and no duplicate normalised form."""
    words: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(_read_lines(path), 1):
        word = line.strip()
        if not word:
            continue
        if not FIVE_LETTERS.fullmatch(word):
            raise TermoError(f"{path}:{number}: {word!r} is not a five-letter word")
        key = normalize(word, fold_cedilla)
        if key in seen:
            raise TermoError(
                f"{path}:{number}: {word!r} duplicates line {seen[key]} after normalisation "
                "(a stale, pre-dedupe list?)"
            )
        seen[key] = number
        words.append(word)
    return tuple(words)
