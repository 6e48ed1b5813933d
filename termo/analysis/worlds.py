"""Worlds: which words can be the secret, which can be typed, and with what prior (rules §7.4).

* the **full** world is Termo itself: every answer can be the secret, prior softmax(−ICF/T);
* an **open** world (``mundo_aberto``) keeps the whole lexicon typeable but only the N most
  common answers can be the secret: the prior is softmax(−ICF/T) *within* those N (uniform at
  T = ∞), zero elsewhere, and the games start from those N;
* a **closed** world (``mundo_restrito``) is a smaller game: the N most common words are both the
  only answers and the only probes (re-indexed in ascending lexicon order), prior softmax within
  the cut.

A world is plain data, the one :class:`termo.worlds.world.World` of every study; the policies
are built from it in :mod:`termo.analysis.strategies`.
"""

from __future__ import annotations

import math

from termo.worlds.world import World
from termo.games import Game, get_game
from termo.core.prior import Prior


def full_world(t: float = 1.0, extended: bool = False, game: Game | None = None) -> World:
    """The whole game (``game``, or the registry's default game) as a world."""
    return World(extended=extended, game=game, kind="full", t=t)


def open_world(n: int | None, t: float = math.inf, extended: bool = False) -> World:
    """Whole lexicon typeable; the ``n`` most common answers as secrets, prior within the cut."""
    game = get_game(None, extended=extended)
    cut = World(extended=extended, size=n, kind="open").cut()
    if len(cut) == game.n_answers:  # the whole lexicon: exactly the full world's prior
        return World(extended=extended, kind="open", t=t)
    inside = Prior.from_icf([game.icf[i] for i in cut], t).weights
    prior = [0.0] * game.n_answers
    for i, w in zip(cut, inside.tolist()):
        prior[i] = float(w)
    return World(extended=extended, size=len(cut), kind="open", t=t, prior=tuple(prior))


def closed_world(n: int | None, t: float = math.inf) -> World:
    """The ``n`` most common words as the only answers and probes (prior softmax within)."""
    full = get_game(None)
    if n is None or n >= full.n_answers:
        return World(kind="closed", t=t)
    world = World(size=n, kind="closed", t=t)
    world.load_game()  # a size below 1 is refused here, and the smaller game is built once
    return world


__all__ = ["World", "closed_world", "full_world", "open_world"]
