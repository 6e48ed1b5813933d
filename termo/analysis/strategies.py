"""The benchmark's strategies (rules §4), as policies the lockstep evaluator can drive.

* ``random``: the reference re-creates ``numpy.random.default_rng(seed)`` at the start of every
  game and plays ``rng.choice(C)`` each turn, so its choice depends on the *history* (how many
  draws of which sizes came before), not only on the candidate set. :class:`BranchRandom` keeps
  the generator state per branch of the game tree (a branch policy, see
  :mod:`termo.analysis.lockstep`), which reproduces the sequential games draw for draw.
* ``letters``, ``likely``, ``entropy`` (level 2), ``level3``: the engine's policies
  (``termo.book.policies.make_policy``), asked for all distinct states of a turn at once
  (``choose_many``, which batches the engine's sweeps / level-3 search); on turn 1 with every
  answer as a candidate their answer is the optimal opener of their level (rules §4), searched
  once and cached by the engine.
* :class:`FixedOpener`: an imposed first word, then another policy (the "fixed opener" probe).
"""

from __future__ import annotations

import math
from typing import Sequence

from termo.analysis.worlds import World
from termo.core.errors import TermoError

STRATEGIES = ("random", "letters", "likely", "entropy", "level3")
LABELS = {
    "random": "random",
    "letters": "letter frequency",
    "likely": "most probable",
    "entropy": "entropy (level 2)",
    "level3": "level 3",
}


class BranchRandom:
    """The reference's random strategy: a fresh ``default_rng(seed)`` per game, ``choice(C)`` per turn.

    Its NumPy generator (the draws must match NumPy's PCG64 stream to reproduce the published
    numbers) is host bookkeeping, not array work.
    """

    branch_dependent = True

    def __init__(self, seed: int = 0) -> None:
        import numpy  # the reference's generator; nothing array-valued is computed with it

        self._np = numpy
        self.seed = seed

    def start(self):
        return self._np.random.default_rng(self.seed).bit_generator.state

    def choose_branches(self, states, turns, tokens):
        rng = self._np.random.default_rng(self.seed)
        choices, out = [], []
        for state, token in zip(states, tokens):
            rng.bit_generator.state = token
            choices.append(int(rng.choice(state)))
            out.append(rng.bit_generator.state)
        return choices, out

    # the sequential interface, for one game at a time
    def reset(self) -> None:
        self._rng = self._np.random.default_rng(self.seed)

    def choose(self, candidates, turn: int) -> int:
        return int(self._rng.choice(candidates))


def _engine_sweeps_apart():
    """Does the engine sweep a set of this size on its own? (``Backend.sweeps_one_set_apart``)"""
    from backends import host

    return host().sweeps_one_set_apart


class Batched:
    """Any policy with ``choose(C, t)`` (and optionally ``choose_many``) as a state policy.

    The engine runs one parallel kernel over a batch of sets only when none of them is larger
    than its ``BIG_SET`` (``Backend.sweeps_one_set_apart``); otherwise it falls back to one set
    at a time. So the states of a turn are asked in two size classes (small ones together, big
    ones together): same answers, and the many small sets of a turn keep their batched kernel.
    """

    def __init__(self, policy) -> None:
        self.policy = policy
        self.split = _engine_sweeps_apart()

    def _ask(self, states, turns) -> list[int]:
        many = getattr(self.policy, "choose_many", None)
        if many is not None:
            return [int(c) for c in many(list(states), list(turns))]
        return [int(self.policy.choose(s, t)) for s, t in zip(states, turns)]

    def choose_many(self, states: Sequence, turns: Sequence[int]) -> list[int]:
        if self.split is None:
            return self._ask(states, turns)
        out: list[int] = [0] * len(states)
        small = [i for i, s in enumerate(states) if not self.split(len(s))]
        big = [i for i, s in enumerate(states) if self.split(len(s))]
        for group in (small, big):
            if group:
                for i, c in zip(group, self._ask([states[i] for i in group], [turns[i] for i in group])):
                    out[i] = c
        return out


class FixedOpener:
    """Play ``opener`` on turn 1, then ask ``then`` (a state policy)."""

    def __init__(self, opener: int, then) -> None:
        self.opener = int(opener)
        self.then = then

    def choose_many(self, states: Sequence, turns: Sequence[int]) -> list[int]:
        out: list[int | None] = [self.opener if t == 1 else None for t in turns]
        rest = [i for i, c in enumerate(out) if c is None]
        if rest:
            answers = self.then.choose_many([states[i] for i in rest], [turns[i] for i in rest])
            for i, a in zip(rest, answers):
                out[i] = int(a)
        return out  # type: ignore[return-value]


def make_solver(world: World, level: int = 2, beam: int = 10, depth: int = 1, backend=None, prior=None):
    """The engine's solver for ``world`` (its game, temperature and prior: ``prior``, the world's
    `World.answer_prior` when the caller has it, else made here)."""
    from termo.engine.solver import Solver

    prior = world.answer_prior() if prior is None else prior
    return Solver(world.load_game(), level=level, t=world.t, beam=beam, depth=depth, backend=backend, prior=prior)


def build_policy(name: str, world: World, *, seed: int = 0, beam: int = 10, depth: int = 1, backend=None,
                 solver=None, hard: bool = False):
    """A lockstep-ready policy for strategy ``name`` in ``world``.

    ``random`` is :class:`BranchRandom`; the others are the engine's policies
    (``termo.book.policies.make_policy``) with the world's game, temperature and prior. ``hard``:
    hard mode (``termo.analysis.hard_policy``); random, letters and likely play candidates, which
    are legal, so only entropy changes; level3 has no hard-mode battery (TermoError).
    """
    if name not in STRATEGIES:
        raise TermoError(f"unknown strategy {name!r} (choose from {', '.join(STRATEGIES)})")
    if hard and name == "level3":
        raise TermoError("--hard: the level3 strategy has no hard-mode battery (levels 1 and 2 only)")
    if name == "random":
        return BranchRandom(seed)
    from termo.book.policies import make_policy

    needs_prior = name == "likely" or (name in ("entropy", "level3") and solver is None)
    prior = world.answer_prior() if needs_prior else None  # made once, for the policy and its solver
    if name in ("entropy", "level3") and solver is None:
        solver = make_solver(world, level=2 if name == "entropy" else 3, beam=beam, depth=depth, backend=backend,
                             prior=prior)
    policy = Batched(make_policy(name, world.load_game(), t=world.t, seed=seed, backend=backend, beam=beam, depth=depth,
                                 prior=prior, solver=solver))
    if name == "entropy" and world.initial is None and solver.level == 2:
        from termo.analysis.opener_cache import level2_opener

        policy = FixedOpener(level2_opener(solver), policy)  # the same word, read from the disk cache
    if hard and name == "entropy":
        from termo.analysis.hard_policy import HardPolicy

        return HardPolicy(policy, solver, world.load_game())  # the first guess is unconstrained
    return policy


def parse_strategies(text: str) -> list[str]:
    """``"random,entropy"`` → ``["random", "entropy"]`` (one-line error on an unknown name)."""
    names = [s.strip().lower() for s in text.split(",") if s.strip()]
    aliases = {"level2": "entropy", "l2": "entropy", "l3": "level3", "frequency": "letters", "probable": "likely"}
    names = [aliases.get(n, n) for n in names]
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown or not names:
        raise TermoError(f"unknown strategy {unknown[0] if unknown else text!r}; choose from {', '.join(STRATEGIES)}")
    return names


def t_label(t: float) -> str:
    return "inf" if math.isinf(t) else f"{t:g}"
