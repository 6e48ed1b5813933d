"""Hard mode, the games' real rule (Selby; docs/rules.md §12.2).

In hard mode every later guess must

* keep every green in place: a position that was green for symbol ``s`` must hold ``s``;
* reuse every revealed symbol: a symbol that got ``n`` positive marks (green or yellow) in one
  guess must appear at least ``n`` times in every later guess.

Grey symbols may be reused, and repeating a guess is legal. "Guess only remaining candidates"
is a different, stricter rule and is *not* hard mode. The rule reads normalised forms, so on
Termo accents do not matter; on Nerdle it reads symbols (``=`` and the operators included).

A history's rule is a :class:`Constraint`: the required symbol of each position and the minimum
count of each symbol, merged over the rounds by taking the maximum. :func:`is_legal` is the
plain-Python rule (with a reason a player understands); :func:`allowed_probes` is its
vectorised form over a game's probe list (one boolean per probe), tested against it.

Every candidate consistent with the history is legal: its colours against each past guess are
exactly the ones shown, so it holds each green and at least as many copies of each symbol as it
got positive marks. The level-2 order restricted to the allowed probes is :func:`top_allowed`.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from backends import host
from termo.core.errors import TermoError
from termo.core.messages import Message


@dataclass(frozen=True)
class Constraint:
    """What hard mode demands of the next guess.

    ``greens[i]`` is the symbol position ``i`` must hold (None: free); ``minimum`` holds
    ``(symbol, n)`` pairs, ``n >= 1``, sorted by symbol: the guess needs ``n`` copies or more.
    """

    length: int
    greens: tuple = ()
    minimum: tuple = ()

    def __post_init__(self):
        if not self.greens:
            object.__setattr__(self, "greens", (None,) * self.length)
        if len(self.greens) != self.length:
            raise TermoError(f"hard mode: {len(self.greens)} green slots for {self.length} tiles")

    @property
    def free(self) -> bool:
        """True when nothing is required (every guess is legal)."""
        return not self.minimum and all(g is None for g in self.greens)

    def merge(self, other: "Constraint") -> "Constraint":
        """Both constraints at once: greens united, minimum counts by maximum."""
        if other.length != self.length:
            raise TermoError(f"hard mode: cannot merge {self.length}- and {other.length}-tile rules")
        greens = []
        for i, (a, b) in enumerate(zip(self.greens, other.greens)):
            if a is not None and b is not None and a != b:
                raise TermoError(f"hard mode: position {i + 1} cannot be green for both {a!r} and {b!r}")
            greens.append(a if a is not None else b)
        counts = dict(self.minimum)
        for sym, n in other.minimum:
            counts[sym] = max(counts.get(sym, 0), n)
        return Constraint(self.length, tuple(greens), tuple(sorted(counts.items())))

    def as_dict(self) -> dict:
        return {"greens": list(self.greens), "minimum": {s: n for s, n in self.minimum}}


def free(length: int) -> Constraint:
    """The constraint of an empty history (every guess is legal)."""
    return Constraint(int(length))


def from_round(guess_norm: str, pattern: str) -> Constraint:
    """The constraint one round adds: its greens, and per symbol its number of G/Y marks."""
    if len(guess_norm) != len(pattern):
        raise TermoError(f"hard mode: guess {guess_norm!r} and colours {pattern!r} differ in length")
    greens = tuple(ch if p == "G" else None for ch, p in zip(guess_norm, pattern))
    marks = Counter(ch for ch, p in zip(guess_norm, pattern) if p in "GY")
    return Constraint(len(guess_norm), greens, tuple(sorted(marks.items())))


def from_rounds(rounds: Iterable[tuple[str, str]], length: int) -> Constraint:
    """The constraint of a history of ``(guess_norm, pattern)`` rounds (merged by maximum)."""
    out = free(length)
    for guess_norm, pattern in rounds:
        out = out.merge(from_round(guess_norm, pattern))
    return out


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def is_legal(constraint: Constraint, guess_norm: str, unit: str = "letters") -> tuple[bool, str]:
    """The plain-Python rule: ``(True, "")`` or ``(False, reason)`` for a normalised guess.

    The first broken requirement is reported: greens by position, then counts by symbol.
    ``unit`` is the game's word for a tile ("letters", "symbols"), for the message.
    """
    tile = unit[:-1] if unit.endswith("s") else unit
    if len(guess_norm) != constraint.length:
        return False, Message(f"a guess has {constraint.length} {unit}, not {len(guess_norm)}", "hard.why.length",
                              n=constraint.length, unit=unit, got=len(guess_norm))
    for i, sym in enumerate(constraint.greens):
        if sym is not None and guess_norm[i] != sym:
            return False, Message(f"the {ordinal(i + 1)} {tile} must be {sym!r}", "hard.why.position", pos=i + 1,
                                  symbol=sym)
    counts = Counter(guess_norm)
    for sym, n in constraint.minimum:
        if counts[sym] < n:
            if n == 1:
                return False, Message(f"must contain {sym!r}", "hard.why.contain", symbol=sym)
            return False, Message(f"needs at least {n} {sym!r}", "hard.why.at_least", n=n, symbol=sym)
    return True, ""


# ------------------------------------------------------------------ the vectorised rule
_TABLES: dict = {}
_MAX_TABLES = 16


@dataclass(frozen=True)
class _Tables:
    index: dict  # symbol -> column
    codes: object  # (probes × positions) int16 symbol codes
    counts: object  # (probes × symbols) uint8 copies of each symbol


def _signature(game) -> tuple:
    digest = hashlib.sha256("\n".join(game.probes_norm).encode("utf-8")).hexdigest()[:16]
    return (game.name, game.n_probes, game.word_length, digest)


def tables(game) -> _Tables:
    """The game's (probes × positions) code array and (probes × symbols) count array, built once
    per game (cached by name and a hash of the normalised probe list)."""
    key = _signature(game)
    found = _TABLES.get(key)
    if found is not None:
        return found
    xp = host().xp
    alphabet = sorted(set("".join(game.probes_norm)))
    index = {s: i for i, s in enumerate(alphabet)}
    codes = xp.asarray([[index[ch] for ch in word] for word in game.probes_norm], dtype=xp.int16)
    codes = xp.reshape(codes, (game.n_probes, game.word_length))
    symbols = xp.arange(len(alphabet), dtype=xp.int16)
    onehot = codes[:, :, None] == symbols[None, None, :]  # (probes, positions, symbols)
    counts = xp.astype(xp.sum(xp.astype(onehot, xp.uint8), axis=1), xp.uint8)
    if len(_TABLES) >= _MAX_TABLES:
        _TABLES.clear()
    found = _TABLES[key] = _Tables(index, codes, counts)
    return found


def allowed_probes(game, constraint: Constraint):
    """Boolean array over ``game.probes``: may the probe be played under ``constraint``?"""
    xp = host().xp
    t = tables(game)
    if constraint.length != game.word_length:
        raise TermoError(f"hard mode: a {constraint.length}-tile rule for a {game.word_length}-tile game")
    mask = xp.ones(game.n_probes, dtype=xp.bool)
    for i, sym in enumerate(constraint.greens):
        if sym is None:
            continue
        col = t.index.get(sym)
        if col is None:  # no probe has this symbol at all
            return xp.zeros(game.n_probes, dtype=xp.bool)
        mask = mask & (t.codes[:, i] == col)
    for sym, n in constraint.minimum:
        col = t.index.get(sym)
        if col is None:
            return xp.zeros(game.n_probes, dtype=xp.bool)
        mask = mask & (t.counts[:, col] >= n)
    return mask


# ----------------------------------------------------------- the level-2 order, restricted
def restrictive(allowed) -> bool:
    """Does the mask rule anything out? (None or all-True: no, the normal path decides.)"""
    if allowed is None:
        return False
    xp = host().xp
    return not bool(xp.all(xp.asarray(allowed, dtype=xp.bool)))


def n_allowed(allowed) -> int:
    """How many probes the mask allows."""
    xp = host().xp
    return int(xp.sum(xp.asarray(allowed, dtype=xp.bool)))


def top_allowed(sweeper, candidates, allowed, k: int) -> list[int]:
    """The first ``k`` allowed probes of the §5.2 order over ``candidates``.

    The entropies are the sweeper's full sweep (``Sweeper.entropies``); the mask is applied
    before the top-k, and the order (rounded entropy, members first, prior, index) is the
    engine's ``termo.engine.ordering.top_k`` over the allowed probes only.
    """
    from termo.engine.ordering import top_k

    xp = host().xp
    mask = xp.asarray(allowed, dtype=xp.bool)
    keep = xp.nonzero(mask)[0]
    if keep.shape[0] == 0:
        raise TermoError("hard mode: no guess of the word list satisfies the rule", "hard.no_guess")
    cand = xp.asarray(list(candidates), dtype=xp.int64)
    h = sweeper.entropies(cand)
    members = xp.searchsorted(keep, cand[mask[cand]])  # candidates, in the allowed coordinates
    idx, _ = top_k(h[keep], members, sweeper.probe_prior[keep], int(k))
    return [int(keep[int(i)]) for i in idx]


@dataclass(frozen=True, eq=False)
class Filter:
    """Hard mode as a filter on a strategy's guesses: a mask over the probes that rules
    something out (`termo.engine.strategies`)."""

    allowed: object

    @classmethod
    def of(cls, allowed, n_probes: int) -> "Filter | None":
        """The filter of a mask over ``n_probes`` probes; None when it rules nothing out (None,
        or all True: the normal decision). TermoError for a mask of another length."""
        if not restrictive(allowed):
            return None
        if len(allowed) != n_probes:
            raise TermoError(f"the hard-mode mask has {len(allowed)} entries for {n_probes} probes")
        return cls(allowed)

    @property
    def count(self) -> int:
        """How many probes the filter allows."""
        return n_allowed(self.allowed)

    def top(self, sweeper, candidates, k: int) -> list[int]:
        """The first ``k`` allowed probes of the §5.2 order over ``candidates`` (:func:`top_allowed`)."""
        return top_allowed(sweeper, candidates, self.allowed, k)
