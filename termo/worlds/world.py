"""A world: which game is played, which of its answers can be the secret and which words can be
typed (rules §7.4, §8). One plain, frozen, hashable value serves every study (the opener
experiments of :mod:`termo.analysis` and the robustness sweeps of :mod:`termo.robustness`, whose
cluster workers receive it as plain data).

* ``kind="full"``: the whole game (``size`` is None);
* ``kind="closed"``: a smaller game: the ``size`` most common answers are both the only answers
  and the only probes (re-indexed in ascending lexicon order);
* ``kind="open"``: the whole lexicon stays typeable but only the ``size`` most common answers can
  be the secret, and the games start from them.

``size=None`` keeps every answer; ``kind`` left out is ``"closed"`` when a size is given, else
``"full"``. The game is a registry name (None: ``$TERMO_GAME``, else the default game) or a game
already built (a variant such as strict spelling). The study's own parameters ride along: the
temperature ``t`` of the prior softmax(−ICF/T) over the played answers, or a ``prior`` given
weight by weight (one per answer of the base game; an open world's prior within its cut), the
turn limit ``rounds`` (None: the game's) and the cost ``loss`` of a lost game (rules §6.1).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache

from termo.core.errors import TermoError
from termo.core.prior import Prior, most_common
from termo.engine.tree_search import LOSS_COST
from termo.games import Game, get_game

KINDS = ("full", "open", "closed")
DESCRIBED = ("extended", "size", "rounds", "loss", "game")  # the identity keys and reports record


@dataclass(frozen=True)
class World:
    """A game, the answers that can be the secret and the words that can be typed (module doc)."""

    extended: bool = False
    size: int | None = None  # the `size` most common answers; None = every answer
    rounds: int | None = None  # None: the game's turn limit
    loss: float = LOSS_COST
    game: str | Game | None = None  # registry name (None: $TERMO_GAME, else the default game) or a Game
    kind: str | None = None  # "full" | "open" | "closed"; None: "closed" when `size` is given, else "full"
    t: float = 1.0  # temperature of the prior softmax(−ICF/T) when `prior` is None
    prior: tuple[float, ...] | None = None  # one weight per answer of the base game

    def __post_init__(self):
        if self.kind is None:
            object.__setattr__(self, "kind", "full" if self.size is None else "closed")
        if self.kind not in KINDS:
            raise ValueError(f"unknown world kind {self.kind!r} (one of {', '.join(KINDS)})")
        if self.rounds is None:
            object.__setattr__(self, "rounds", self.base_game().max_turns)

    # --- the games --------------------------------------------------------------------------------
    def base_game(self) -> Game:
        """The game named (or given), with every one of its words."""
        if isinstance(self.game, Game):
            return self.game
        return get_game(self.game, extended=self.extended)

    def cut(self) -> list[int]:
        """Ascending indices (in the base game) of its ``size`` most common answers; every answer
        when ``size`` is None or not below the answer count."""
        return _cut(self.base_game(), self.size)

    def load_game(self) -> Game:
        """The game this world plays: the base game, or for a closed cut the smaller game of its words."""
        base = self.base_game()
        if self.kind != "closed" or self.size is None:
            return base
        return _closed_game(base, self.size)

    # --- the secrets and their prior ----------------------------------------------------------------
    @property
    def initial(self) -> tuple[int, ...] | None:
        """The answers the games start from (an open world's cut), None for every answer."""
        return tuple(self.cut()) if self.kind == "open" else None

    def candidates(self) -> list[int]:
        """The starting candidates (and the secrets of the world's exhaustive battery)."""
        initial = self.initial
        return list(range(self.load_game().n_answers)) if initial is None else list(initial)

    @property
    def n_secrets(self) -> int:
        return len(self.candidates())

    def answer_prior(self) -> Prior:
        """The answer prior of this world as the one `termo.core.prior.Prior` value: ``softmax(−ICF/T)``
        over the played game's answers, or the world's own weights (a custom prior). A study makes
        it once and passes it to what it builds (a solver, a policy)."""
        if self.prior is None:
            return Prior.from_icf(self.load_game().icf, self.t)
        return Prior.custom(self.prior)

    def weights(self):
        """The answer prior of this world as a host float64 array."""
        return self.answer_prior().weights

    # --- labels -------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """``full T=1``, ``open N=300 T=inf ext``, ``closed N=all T=2``…"""
        t = "inf" if math.isinf(self.t) else f"{self.t:g}"
        ext = " ext" if self.extended else ""
        if self.kind == "full":
            return f"full T={t}{ext}"
        return f"{self.kind} N={'all' if self.size is None else self.size} T={t}{ext}"

    def describe(self) -> dict:
        """What keys and reports record of the world: game, word list, cut, turn limit, loss cost
        (the robustness study varies its prior by column, so ``kind``, ``t`` and ``prior`` are not
        part of it)."""
        return {key: getattr(self, key) for key in DESCRIBED}


def _cut(game: Game, size: int | None) -> list[int]:
    if size is None or size >= game.n_answers:
        return list(range(game.n_answers))
    if size < 1:
        raise TermoError(f"a world needs at least one word, got N={size}")
    return sorted(most_common(game.icf, size))


def termo_defaults(max_turns: int | None = None, n_patterns: int | None = None) -> tuple[int, int]:
    """``(max_turns, n_patterns)``, Termo's (``get_game("termo")``: 6 turns, 243 patterns) where
    None: the defaults of the studies' functions that take a bare pattern matrix."""
    if max_turns is None or n_patterns is None:
        termo = get_game("termo")
        max_turns = termo.max_turns if max_turns is None else max_turns
        n_patterns = termo.n_patterns if n_patterns is None else n_patterns
    return int(max_turns), int(n_patterns)


def termo_answers() -> int:
    """How many answers Termo has (6,046): the "every answer" of the studies' Termo grids."""
    return get_game("termo").n_answers


@lru_cache(maxsize=None)
def _closed_game(base: Game, size: int) -> Game:
    cut = _cut(base, size)
    words = tuple(base.answers[i] for i in cut)
    return dataclasses.replace(base, name=f"{base.name}-closed-{len(cut)}", answers=words, probes=words,
                               icf=tuple(base.icf[i] for i in cut), extended=False)


__all__ = ["KINDS", "World", "termo_answers", "termo_defaults"]
