"""Worlds: which words can be the secret, which can be typed, and with what prior (rules §7.4).

* the **full** world is Termo itself: every answer can be the secret, prior softmax(−ICF/T);
* an **open** world (``mundo_aberto``) keeps the whole lexicon typeable but only the N most
  common answers can be the secret: the prior is softmax(−ICF/T) *within* those N (uniform at
  T = ∞), zero elsewhere, and the games start from those N;
* a **closed** world (``mundo_restrito``) is a smaller game: the N most common words are both the
  only answers and the only probes (re-indexed in ascending lexicon order), prior softmax within
  the cut.

A world is plain data; the policies are built from it in :mod:`termo.analysis.strategies`.
"""

from __future__ import annotations

import math
import dataclasses
from dataclasses import dataclass
from functools import lru_cache

from termo.core.errors import TermoError
from termo.games import Game, get_game
from termo.core.prior import Prior, most_common


@dataclass(frozen=True)
class World:
    """A game plus the prior and the starting candidates of the experiment.

    ``prior`` is None for the game's own softmax(−ICF/T); otherwise a tuple with one weight per
    answer. ``initial`` is None for every answer, else the ascending answer indices the games
    start from (and the secrets of its exhaustive battery).
    """

    name: str
    game: Game
    t: float
    prior: tuple[float, ...] | None = None
    initial: tuple[int, ...] | None = None
    kind: str = "full"

    @property
    def size(self) -> int:
        return self.game.n_answers if self.initial is None else len(self.initial)

    def candidates(self) -> list[int]:
        return list(range(self.game.n_answers)) if self.initial is None else list(self.initial)

    def weights(self):
        """The answer prior of this world as a host float64 array."""
        if self.prior is None:
            return Prior.from_icf(self.game.icf, self.t).weights
        from backends import host

        return host().xp.asarray(self.prior, dtype=host().xp.float64)

    def describe(self) -> dict:
        return {"world": self.name, "kind": self.kind, "n": self.size, "probes": self.game.n_probes,
                "t": "inf" if math.isinf(self.t) else self.t}


def _t_label(t: float) -> str:
    return "inf" if math.isinf(t) else f"{t:g}"


def full_world(t: float = 1.0, extended: bool = False, game: Game | None = None) -> World:
    """The whole game (``game``, or the registry's default game) as a world."""
    game = game if game is not None else get_game(None, extended=extended)
    return World(name=f"full T={_t_label(t)}" + (" ext" if extended else ""), game=game, t=t, kind="full")


def _cut(game: Game, n: int | None) -> list[int]:
    if n is None or n >= game.n_answers:
        return list(range(game.n_answers))
    if n < 1:
        raise TermoError(f"a world needs at least one word, got N={n}")
    return sorted(most_common(game.icf, n))


def open_world(n: int | None, t: float = math.inf, extended: bool = False) -> World:
    """Whole lexicon typeable; the ``n`` most common answers as secrets, prior within the cut."""
    game = get_game(None, extended=extended)
    cut = _cut(game, n)
    if len(cut) == game.n_answers:  # the whole lexicon: exactly the full world's prior
        return World(name=f"open N=all T={_t_label(t)}" + (" ext" if extended else ""), game=game, t=t,
                     initial=tuple(cut), kind="open")
    inside = Prior.from_icf([game.icf[i] for i in cut], t).weights
    prior = [0.0] * game.n_answers
    for i, w in zip(cut, inside.tolist()):
        prior[i] = float(w)
    label = "all" if len(cut) == game.n_answers else str(len(cut))
    return World(name=f"open N={label} T={_t_label(t)}" + (" ext" if extended else ""), game=game, t=t,
                 prior=tuple(prior), initial=tuple(cut), kind="open")


@lru_cache(maxsize=None)
def _closed_game(n: int) -> Game:
    full = get_game(None)
    cut = _cut(full, n)
    words = tuple(full.answers[i] for i in cut)
    return dataclasses.replace(full, name=f"{full.name}-closed-{len(cut)}", answers=words, probes=words,
                               icf=tuple(full.icf[i] for i in cut), extended=False)


def closed_world(n: int | None, t: float = math.inf) -> World:
    """The ``n`` most common words as the only answers and probes (prior softmax within)."""
    full = get_game(None)
    if n is None or n >= full.n_answers:
        return World(name=f"closed N=all T={_t_label(t)}", game=full, t=t, kind="closed")
    game = _closed_game(n)
    return World(name=f"closed N={n} T={_t_label(t)}", game=game, t=t, kind="closed")
