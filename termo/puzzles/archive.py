"""Nerdle's dated archive (docs/puzzles.md): one Classic equation per UTC date from 2000-01-01.

The dates walk the full answer set cycle by cycle: day ``k`` (0 for 2000-01-01) is position
``k mod N`` of cycle ``k div N``, where ``N`` is the number of answers (17,723 for Classic). Each
cycle is its own permutation of the answers ("reshuffled"), so every form appears exactly once per
cycle.

The permutation of cycle ``c`` is the answers sorted by the key
``sha256(f"{SEED}:{c}:{equation}")`` (hex digest, ties impossible in practice and broken by the
text). SHA-256 is specified bit for bit, so the order is the same on every platform, Python
version and process (no dependence on ``random``'s shuffle algorithm or on hash seeds). The
answer list is the shipped ``data/nerdle_classic.txt``; a different list gives a different archive,
so every entry carries the list's digest (``answers_digest``).

The archive is retroactive: Nerdle launched in January 2022, and these dates are not the official
puzzles of those days (:data:`RETROACTIVE_NOTE`, shown on every archive page).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from functools import lru_cache

from termo.core.errors import TermoError

START = dt.date(2000, 1, 1)
SEED = 20000101  # fixed for good: changing it changes every archive date
RETROACTIVE_NOTE = ("Retroactive archive: an equation chosen for this date by a seeded permutation "
                    "of the modelled answers; it is not the official record of Nerdle puzzles "
                    "(Nerdle launched in 2022).")


def nerdle_game():
    """Nerdle Classic (commutative wins): the game every puzzle module works on."""
    from termo.games import nerdle

    return nerdle.make()


def parse_date(text: str, what: str = "date") -> dt.date:
    """A ``YYYY-MM-DD`` date (TermoError with the reason otherwise)."""
    raw = str(text).strip()
    try:
        if len(raw) != 10:
            raise ValueError
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise TermoError(f"bad {what} '{raw}': use YYYY-MM-DD, a real calendar date") from None


def check_archive_date(day: dt.date) -> dt.date:
    """``day`` itself when the archive has it (from :data:`START` on), else TermoError."""
    if day < START:
        raise TermoError(f"the archive starts on {START.isoformat()}; {day.isoformat()} is before it")
    return day


def utc_today() -> dt.date:
    return dt.datetime.now(dt.timezone.utc).date()


def _key(cycle: int, equation: str) -> str:
    return hashlib.sha256(f"{SEED}:{cycle}:{equation}".encode("ascii")).hexdigest()


@lru_cache(maxsize=8)
def _cycle_order(answers: tuple[str, ...], cycle: int) -> tuple[str, ...]:
    return tuple(sorted(answers, key=lambda eq: (_key(cycle, eq), eq)))


_RECENT: dict = {}  # (id(answers), cycle) -> (answers, order): no re-hashing of the list per date


def cycle_order(answers: tuple[str, ...], cycle: int) -> tuple[str, ...]:
    """The permutation of ``answers`` that cycle ``cycle`` walks (module docstring)."""
    if cycle < 0:
        raise ValueError("cycle must be >= 0")
    hit = _RECENT.get((id(answers), cycle))
    if hit is not None and hit[0] is answers:
        return hit[1]
    order = _cycle_order(answers, cycle)
    if len(_RECENT) >= 8:
        _RECENT.clear()
    _RECENT[(id(answers), cycle)] = (answers, order)
    return order


@lru_cache(maxsize=4)
def answers_digest(answers: tuple[str, ...]) -> str:
    """sha256 of the answer list (one equation a line), the archive's identity."""
    return hashlib.sha256("\n".join(answers).encode("ascii")).hexdigest()


def day_number(day: dt.date) -> int:
    """0 for 2000-01-01, 1 for the day after, ..."""
    return (check_archive_date(day) - START).days


def equation_on(day: dt.date, answers: tuple[str, ...] | None = None) -> str:
    """The archive's equation for ``day``."""
    answers = nerdle_game().answers if answers is None else answers
    k = day_number(day)
    return cycle_order(answers, k // len(answers))[k % len(answers)]


def entry(day: dt.date, answers: tuple[str, ...] | None = None) -> dict:
    """The archive entry for ``day`` as plain data (no difficulty: see :mod:`termo.puzzles.service`)."""
    answers = nerdle_game().answers if answers is None else answers
    k = day_number(day)
    n = len(answers)
    return {
        "date": day.isoformat(),
        "equation": cycle_order(answers, k // n)[k % n],
        "archive_number": k + 1,
        "cycle": k // n + 1,
        "position_in_cycle": k % n + 1,
        "cycle_length": n,
        "seed": SEED,
        "answers_digest": answers_digest(answers),
        "retroactive": True,
        "note": RETROACTIVE_NOTE,
    }
