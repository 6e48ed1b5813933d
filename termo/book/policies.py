"""Playing strategies with one interface (rules §4): ``reset()`` at the start of every game,
``choose(candidates, turn) -> probe index``, ``choose_many(states, turns) -> [probe index]``.

=========  ==============================================================================
random     ``numpy.random.default_rng(seed)`` re-created at every ``reset()``, then
           ``rng.choice(candidates)`` each turn (so the first guess is the same every game)
letters    level 1: score = Σ over the word's distinct letters of the number of candidates
           holding that letter; the best candidate, first index on ties (opener ``oreia``)
likely     the candidate with the highest prior, first index on ties
entropy    level 2, its own optimal opener (not the game's fixed interface opener)
level3     level 3 (§6.4), opener = the searched level-3 optimum (cached)
=========  ==============================================================================

None of random/letters/likely has an endgame rule: they always guess a candidate.
"""

from __future__ import annotations

import sys

from termo.engine import level1
from termo.book import openers
from termo.core.errors import TermoError

POLICY_NAMES = ("random", "letters", "likely", "entropy", "level3")
_MEMO_LIMIT = 500_000


class Policy:
    """Base: ``choose_many`` loops over ``choose``; subclasses batch when they can."""

    name = "policy"

    def reset(self) -> None:
        pass

    def choose(self, candidates, turn: int) -> int:
        raise NotImplementedError

    def choose_many(self, states, turns) -> list[int]:
        return [self.choose(s, t) for s, t in zip(states, turns)]


class RandomPolicy(Policy):
    name = "random"

    def __init__(self, seed: int = 0):
        self.seed = int(seed)
        self.reset()

    def reset(self) -> None:
        import numpy  # the reference's generator, for identical draws (not array work)

        self._rng = numpy.random.default_rng(self.seed)

    def choose(self, candidates, turn: int) -> int:
        return int(self._rng.choice([int(c) for c in candidates]))


class LettersPolicy(Policy):
    name = "letters"

    def __init__(self, game):
        self.table = level1.letter_table(game)

    def choose(self, candidates, turn: int) -> int:
        return level1.best(self.table, [int(c) for c in candidates])


class LikelyPolicy(Policy):
    """The candidate with the highest prior, first index on ties. ``icf`` (the scores of a
    prior given by T, which orders them the same way): when the best prior is subnormal or 0 (a
    small T: the candidates' priors underflowed, and ties may be rounding), the lowest ICF among
    the tied, first index on ties, which is what the unrounded prior says. Normal priors (every
    published T) are compared as they are."""

    name = "likely"

    def __init__(self, prior, icf=None):
        self.prior = [float(p) for p in prior]
        self.icf = None if icf is None else [float(s) for s in icf]

    def choose(self, candidates, turn: int) -> int:
        cands = [int(c) for c in candidates]
        best = cands[0]
        for c in cands[1:]:
            if self.prior[c] > self.prior[best]:
                best = c
        if self.icf is not None and self.prior[best] < sys.float_info.min:
            tied = [c for c in cands if self.prior[c] == self.prior[best]]
            best = min(tied, key=lambda c: (self.icf[c], c))
        return best


class SolverPolicy(Policy):
    """Level 2 or 3 through a `Solver`, memoised by (turn class, candidate set) like the
    reference's cached chooser; level 3 takes its opener from the opener cache."""

    def __init__(self, solver):
        self.solver = solver
        self.name = "entropy" if solver.level == 2 else "level3"
        self._memo: dict = {}
        self._n = solver.game.n_answers

    def _key(self, cands, turn):
        # Level 2 depends on the turn only in its endgame turns (the last two): earlier turns
        # share one memo class. Level 3 looks ahead, so every turn is its own class.
        endgame = turn >= self.solver.game.max_turns - 1
        t = turn if (self.solver.level == 3 or endgame) else 0
        return (t, tuple(cands))

    def choose(self, candidates, turn: int) -> int:
        return self.choose_many([candidates], [turn])[0]

    def choose_many(self, states, turns) -> list[int]:
        states = [[int(c) for c in s] for s in states]
        out = [None] * len(states)
        todo, keys = [], []
        for i, (s, t) in enumerate(zip(states, turns)):
            key = self._key(s, t)
            hit = self._memo.get(key)
            if hit is not None:
                out[i] = hit
            elif self.solver.level == 3 and t == 1 and len(s) == self._n:
                out[i] = openers.opener(self.solver, optimal=True).index
            else:
                todo.append(i)
                keys.append(key)
        if todo:
            picks = self.solver.decide_many([states[i] for i in todo], [int(turns[i]) for i in todo])
            for i, key, p in zip(todo, keys, picks):
                out[i] = int(p)
                if len(self._memo) < _MEMO_LIMIT:
                    self._memo[key] = int(p)
        return out


def make_policy(name: str, game=None, t: float = 1.0, seed: int = 0, backend=None, beam: int = 10,
                depth: int = 1, prior=None, solver=None) -> Policy:
    """A strategy by name (``random|letters|likely|entropy|level3``); ``solver`` may be given
    for entropy/level3 to share an existing one. ``prior``: custom weights, or the question's
    `termo.core.prior.Prior` (one made at T is that prior, not built again)."""
    if name not in POLICY_NAMES:
        raise TermoError(f"unknown policy {name!r}; choose one of: {', '.join(POLICY_NAMES)}")
    if name == "random":
        return RandomPolicy(seed)
    if game is None:
        raise TermoError(f"policy {name!r} needs a game")
    if name == "letters":
        return LettersPolicy(game)
    if name == "likely":
        from termo.core.prior import Prior

        if prior is None or (isinstance(prior, Prior) and prior.t is not None):
            return LikelyPolicy(Prior.at(game.icf, t, prior).weights, icf=game.icf)
        return LikelyPolicy(prior.weights if isinstance(prior, Prior) else prior)
    if solver is None:
        from termo.engine.solver import Solver

        solver = Solver(game, level=2 if name == "entropy" else 3, t=t, beam=beam, depth=depth,
                        backend=backend, prior=prior)
    return SolverPolicy(solver)
