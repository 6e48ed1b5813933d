"""A game's parsed word lists, kept as derived data: read on start instead of parsed again.

A plugin reads its shipped lists (Termo also its ICF scores), checks them and normalises every
word each time a process asks for the game: 10-20 ms a game, a good part of a one-shot
``termo suggest --level 2``. :func:`cached_lists` keeps what a parse gives, a
:class:`ParsedLists` (display forms, prior scores and normal forms), in one checksummed record
per game under ``<cache dir>/games/``: a sealed entry (:mod:`termo.core.entry_store`) whose key is
a signature of everything the parse depends on: the bytes of the source files, of the code that
parses them (every module of this package and ``termo.core.feedback``), the Unicode version that
normalises accents, and :data:`FORMAT`. A record of another key (a list or the code changed: stale),
a damaged one (its checksum or its shape; reported in one stderr line) or none is parsed afresh and
written back atomically; a cache folder that cannot be written only costs the speed-up. The game
built from a record is the game built from a fresh parse (``tests/test_game_cache.py``).
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from termo.core.cache import atomic_write_json, read_json, warn
from termo.core.entry_store import make_record, number_in, open_record
from termo.core.paths import cache_dir

FORMAT = "termo-parsed-game/1"  # bump when what a record holds changes
ENV_VAR = "TERMO_GAME_CACHE"  # "0": parse every time, read and write no record
FOLDER = "games"


@dataclass(frozen=True)
class ParsedLists:
    """What a game's parse gives: its answers and extra probes (display forms, the probes are the
    answers then the extras), one prior score per answer, and the normal form of every word."""

    answers: tuple[str, ...]
    extras: tuple[str, ...]
    icf: tuple[float, ...]
    answers_norm: tuple[str, ...]
    extras_norm: tuple[str, ...]

    @classmethod
    def parse(cls, answers, extras, icf, normalize: Callable[[str], str]) -> "ParsedLists":
        """The lists and their normal forms (``normalize`` as the game's ``Game.normalizer``)."""
        answers, extras = tuple(answers), tuple(extras)
        return cls(answers, extras, tuple(float(x) for x in icf), tuple(normalize(w) for w in answers),
                   tuple(normalize(w) for w in extras))

    def probes(self, with_extras: bool = True) -> tuple[str, ...]:
        return self.answers + self.extras if with_extras else self.answers

    def normal_forms(self, with_extras: bool = True) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``(answers, probes)`` normalised, as `Game` takes them (``normal_forms``)."""
        return self.answers_norm, self.answers_norm + self.extras_norm if with_extras else self.answers_norm

    def to_json(self) -> dict:
        return {"answers": list(self.answers), "extras": list(self.extras), "icf": list(self.icf),
                "answers_norm": list(self.answers_norm), "extras_norm": list(self.extras_norm)}

    @classmethod
    def from_json(cls, value: dict) -> "ParsedLists":
        return cls(*(tuple(value[k]) for k in ("answers", "extras", "icf", "answers_norm", "extras_norm")))


def _problem(value: Any) -> str | None:
    """Why a record's value is not a `ParsedLists` (None when it is one)."""
    keys = ("answers", "extras", "icf", "answers_norm", "extras_norm")
    if not isinstance(value, dict) or sorted(value) != sorted(keys):
        return "not the parsed lists"
    if not all(isinstance(value[k], list) for k in keys):
        return "a field is not a list"
    if not all(set(map(type, value[k])) <= {str} for k in keys if k != "icf"):
        return "a word is not text"
    if not all(number_in(x, -1e300, 1e300) for x in value["icf"]):
        return "a prior score is not a number"
    n, m = len(value["answers"]), len(value["extras"])
    if not n or (len(value["icf"]), len(value["answers_norm"]), len(value["extras_norm"])) != (n, n, m):
        return "the lists have different lengths"
    return None


def code_files() -> list[Path]:
    """The code a parse runs: every module of this package, and the accents' normalisation."""
    from termo.core import feedback

    here = Path(__file__).resolve().parent
    return sorted(here.glob("*.py")) + [Path(feedback.__file__).resolve()]


def signature(variant: str, sources: Iterable[Path]) -> str:
    """The key of a record: ``variant`` (the game and the options that change its lists) and a
    hash of the source files' bytes, the code's bytes, the Unicode version and :data:`FORMAT`.
    Each source's digest is checked against the data manifest (`termo.core.manifest`): a
    damaged shipped list raises `TermoError` naming it, whether or not a record exists."""
    from termo.core.manifest import check

    digest = hashlib.sha256(f"{FORMAT}\n{variant}\n{unicodedata.unidata_version}\n".encode("utf-8"))
    sources = list(sources)
    for number, path in enumerate([*sources, *code_files()]):
        digest.update(f"{Path(path).name}\n".encode("utf-8"))
        own = hashlib.sha256(Path(path).read_bytes())
        if number < len(sources):  # a shipped list: the bytes the manifest lists (TermoError otherwise)
            check(path, sha256=own.hexdigest())
        digest.update(own.digest())
    return f"{variant}:{digest.hexdigest()}"


def record_path(variant: str) -> Path:
    """Where the record of ``variant`` lies (one file per variant: a stale record is replaced)."""
    return cache_dir() / FOLDER / f"{variant}.json"


def enabled() -> bool:
    return os.environ.get(ENV_VAR, "").strip() != "0"


def cached_lists(variant: str, sources: Iterable[Path], parse: Callable[[], ParsedLists]) -> ParsedLists:
    """The parsed lists of ``variant``: its record when the record is sound and of this signature,
    else ``parse()`` (written back). A source file that cannot be read is left to ``parse`` to
    report (no record is read or written)."""
    if not enabled():
        return parse()
    try:
        key = signature(variant, sources)
    except OSError:
        return parse()
    path = record_path(variant)
    data = read_json(path)
    if data is not None:
        value, problem = open_record(data, key, _problem)
        if problem is None:
            return ParsedLists.from_json(value)
        stale = isinstance(data, dict) and isinstance(data.get("key"), str) and data["key"] != key
        if not stale:  # a record of another key (a list or the code changed) is replaced without a word
            warn(f"parsed game lists: ignoring {path} ({problem}); they are parsed again")
    elif path.exists():
        warn(f"parsed game lists: ignoring {path} (unreadable or not JSON); they are parsed again")
    parsed = parse()
    try:
        atomic_write_json(path, make_record(key, parsed.to_json()))
    except (OSError, ValueError):
        pass  # only a speed-up: the next process parses again
    return parsed
