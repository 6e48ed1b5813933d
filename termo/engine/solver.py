"""The solver facade: one object per (game, level, prior, beam, depth, backend).

>>> s = Solver(game, level=3)          # doctest: +SKIP
>>> s.decide(candidates, turn)          # a termo.core.decision.Decision
>>> s.decide_many(states, turns)        # probe index per state, batched

Openers (the interface opener and the cached level-3 optimum) live one layer up, in
:mod:`termo.book.openers`, which calls the solver; the solver never imports it.

Levels: 1 = letter frequency (§4), 2 = entropy with the §5.3 endgame rule, 3 = expected number of
guesses over a beam (§6); each is a strategy object (:mod:`termo.engine.strategies`) that the
composition root :mod:`termo.engine.factory` builds for the solver's level, hard mode a filter
they apply to their guesses. The solver holds the configuration and the building blocks they
share (prior, sweeper, level-3 tree, ``choice``). The heavy entropy sweeps run on the chosen
backend; the level-3 value recursion is float64 on the host, so every backend gives the same
decisions and values.

Small temperatures: a candidate set whose mass under the global prior is at most
`termo.core.prior.REBASE_MASS` (1e-290; at a small T a rare set's mass underflows to 0, and §5.1 would
then weigh it uniformly, the T = ∞ answer) is decided by the same configuration with the prior
re-based on the set (:meth:`Solver.rebased`), so every positive T gives its own answer.
"""

from __future__ import annotations

import contextlib
import math

from backends import get_backend, host
from termo.core.decision import Choice, Decision
from termo.core.errors import TermoError
from termo.core.prior import REBASE_MASS, Prior, rebased_prior
from termo.engine import factory, hard_mode, level2, tree_search
from termo.engine.entropy import Sweeper

REBASED_KEPT = 8  # re-based solvers memoised per solver (least recently used dropped)


class Solver:
    """Decisions for one configuration. ``prior`` (float64 over answers, zeros allowed) overrides
    ``softmax(−ICF/t)``; a `termo.core.prior.Prior` made at T is that prior, passed rather than
    built again (a custom one is its weights); ``backend`` is a Backend, a name, or None
    (``$TERMO_BACKEND``/NumPy). ``answer_prior`` is the solver's one `Prior`."""

    def __init__(self, game, level: int = 2, t: float = 1.0, beam: int = 10, depth: int = 1,
                 backend=None, prior=None, alternatives: int = 5, endgame: int = level2.ENDGAME_LIMIT,
                 loss: float = tree_search.LOSS_COST):
        factory.check_level(level)
        if int(beam) < 1:
            raise TermoError(f"beam must be at least 1, not {beam!r}")
        if int(depth) < 0:
            raise TermoError(f"depth must be at least 0, not {depth!r}")
        xp = host().xp
        self.game = game
        self.level = int(level)
        self.t = float(t)
        self.beam = int(beam)
        self.depth = int(depth)
        self.alternatives = int(alternatives)
        self.endgame = int(endgame)
        self.loss = float(loss)
        self.backend = get_backend(backend)
        self.stable_prior = False  # the stable form of the prior (termo.core.prior), not §2.5's formula
        if prior is None or (isinstance(prior, Prior) and prior.t is not None):
            self.custom_prior = False
            value = Prior.at(game.icf, self.t, prior)  # the caller's Prior at this T, else built
            self.prior, self.stable_prior = value.weights, value.stable
        else:
            p = xp.asarray(prior.weights if isinstance(prior, Prior) else prior, dtype=xp.float64)
            if p.shape != (game.n_answers,) or bool(xp.any(p < 0)) or not bool(xp.all(xp.isfinite(p))):
                raise TermoError(f"prior must be {game.n_answers} finite non-negative weights")
            self.custom_prior = True
            self.prior = p
            value = Prior.custom(p)
        self.answer_prior = value  # the one Prior of this solver's questions, passed on to what it calls
        self.sweeper = Sweeper(game, self.prior, self.backend)
        self._tree = None
        self._rebased: dict = {}  # candidate tuple -> re-based solver (see `rebased`)
        self.strategy = factory.strategy_for(self)  # how this level decides (termo.engine.strategies)

    # -- building blocks ----------------------------------------------------------------------
    @property
    def tree(self) -> tree_search.TreeSearch:
        """The level-3 engine (states and sweeps are memoised inside it)."""
        if self._tree is None:
            self._tree = tree_search.TreeSearch(self.sweeper.matrix_t, self.prior, self.sweeper.probe_prior,
                                           self.game.win_code, beam=self.beam, loss=self.loss,
                                           sweeper=self.sweeper.sweep)
        return self._tree

    def _candidates(self, candidates):
        cands = sorted({int(c) for c in candidates})
        if not cands:
            raise TermoError("no candidate left")
        if cands[0] < 0 or cands[-1] >= self.game.n_answers:
            raise TermoError("candidate index out of range")
        return cands

    # -- small temperatures -------------------------------------------------------------------
    def _needs_rebase(self, cands) -> bool:
        """Is the global prior mass of ``cands`` (valid, ascending) at most `REBASE_MASS`?
        Only a prior given by T is re-based (a custom prior is the caller's; T = ∞ gives every
        set a mass of at least 1/n)."""
        if self.custom_prior or math.isinf(self.t):
            return False
        xp = host().xp
        return float(xp.sum(xp.take(self.prior, xp.asarray(cands, dtype=xp.int64)))) <= REBASE_MASS

    def rebased(self, candidates) -> "Solver":
        """The solver that decides ``candidates``: this one, or, when their global prior mass is
        at most `termo.core.prior.REBASE_MASS` (0, or so small that their relative weights lost
        precision), the same configuration with the prior re-based on the set
        (`termo.core.prior.rebased_prior`: ``softmax(−ICF/T)`` restricted to the set, stable form,
        zeros elsewhere), so the set is weighed as at this T instead of by §5.1's uniform
        fallback. Above the threshold nothing changes, bit for bit (the reason is at
        `REBASE_MASS`).

        Inside a level-3 search from the re-based root S, a child bucket whose mass underflows
        relative to S has ``P(b|S) = sum(prior[S_b]) / sum(prior[S]) = 0`` exactly, so its term
        ``0·V(S_b)`` adds exactly nothing: whatever weights its own states fall back to cannot
        change a value or a decision. (A bucket with a subnormal mass adds at most
        (turns + loss)·2^-1022 before the final ``1 +``.) The last `REBASED_KEPT` re-based solvers
        are memoised."""
        cands = self._candidates(candidates)
        if not self._needs_rebase(cands):
            return self
        key = tuple(cands)
        sub = self._rebased.pop(key, None)
        if sub is None:
            sub = Solver(self.game, level=self.level, t=self.t, beam=self.beam, depth=self.depth,
                         backend=self.backend, prior=rebased_prior(self.game.icf, self.t, cands),
                         alternatives=self.alternatives, endgame=self.endgame, loss=self.loss)
        self._rebased[key] = sub  # most recently used last
        while len(self._rebased) > REBASED_KEPT:
            self._rebased.pop(next(iter(self._rebased)))
        return sub

    def _reporting(self, sub):
        """Within the block, ``sub``'s level-3 searches report to this solver's default progress
        callback (`termo.engine.tree_search.TreeSearch.reporting`), if one is set."""
        progress = None if self._tree is None else self._tree.progress
        if progress is None or sub.level != 3:
            return contextlib.nullcontext()
        return sub.tree.reporting(progress)

    def entropies(self, candidates):
        """H (bits) of every probe over ``candidates``: host float64 (n_probes,)."""
        cands = self._candidates(candidates)
        return self.rebased(cands).sweeper.entropies(cands)

    def expected_value(self, candidates, rounds: int) -> float:
        """Level-3 ``V(S, r)`` with ``rest = depth + 1`` (the reference's public ``valor``)."""
        if int(rounds) < 0:
            raise TermoError(f"rounds must not be negative, not {rounds!r}")
        cands = self._candidates(candidates)
        sub = self.rebased(cands)
        if sub is not self:
            with self._reporting(sub):
                return sub.expected_value(cands, rounds)
        tree = self.tree
        sid = int(tree.register([cands])[0])
        job = tree_search.NodeJob(sid, self.depth + 1, int(rounds))
        tree.run([job])
        return job.value

    def greedy_value_with_opener(self, probe: int, candidates, rounds: int) -> float:
        """§6.2 ``valor_com_abertura``: impose ``probe``, then the greedy entropy tail."""
        return self.greedy_values_with_openers([probe], candidates, rounds)[0]

    def greedy_values_with_openers(self, probes, candidates, rounds: int, progress=None) -> list[float]:
        """``greedy_value_with_opener`` for many probes at once (one shared expansion)."""
        if int(rounds) < 1:
            raise TermoError(f"rounds must be at least 1 (the imposed guess uses one), not {rounds!r}")
        bad = [p for p in probes if not 0 <= int(p) < self.game.n_probes]
        if bad:
            raise TermoError(f"probe index out of range: {bad[0]!r}")
        cands = self._candidates(candidates)
        sub = self.rebased(cands)
        if sub is not self:
            with self._reporting(sub):
                return sub.greedy_values_with_openers(probes, cands, rounds, progress)
        tree = self.tree
        sid = int(tree.register([cands])[0])
        job = tree_search.PairJob(sid, [int(p) for p in probes], int(rounds), 0)
        tree.run([job], progress=progress)
        return job.costs

    # -- decisions ----------------------------------------------------------------------------
    def decide(self, candidates, turn: int, allowed=None) -> Decision:
        """The suggestion for ``candidates`` (ascending answer indices) at 1-based ``turn``.

        ``allowed`` (hard mode, `termo.engine.hard_mode.allowed_probes`): a boolean mask over the
        probes the guess may be. Level 1 plays candidates, which are always legal; level 2 takes
        the first allowed probe of the same §5.2 order (the endgame rules play candidates);
        level 3 takes its root beam among the allowed probes, while the turns below the root
        are searched without the restriction, so E is then an estimate. A mask that rules
        nothing out (None, or all True) gives exactly the normal decision.

        A set whose global prior mass is tiny (a small T) is decided with the prior re-based on
        it (:meth:`rebased`), ``allowed`` passed on.
        """
        cands = self._candidates(candidates)
        sub = self.rebased(cands)
        if sub is not self:  # a set of tiny mass: its own prior at this T
            with self._reporting(sub):
                return sub.decide(cands, turn, allowed=allowed)
        return self.strategy.decide(cands, turn, hard_mode.Filter.of(allowed, self.game.n_probes))

    def root_search(self, candidates, turn: int, progress=None):
        """The level-3 search of the root beam of ``candidates`` at ``turn`` (with this
        configuration, whatever the level; the prior is not re-based): ``(Decision, [(probe,
        cost)] finite costs ranked)``, or None where level 3 hands the set to level 2 (§6.4).
        ``progress(done, total)`` as for `termo.engine.tree_search.TreeSearch.run`."""
        strategy = self.strategy if self.strategy.level == 3 else factory.expected_guesses(self)
        return strategy.root_search(self._candidates(candidates), int(turn), progress)

    def decide_many(self, states, turns) -> list[int]:
        """The probe index each state plays (batched: one sweep batch / one shared search)."""
        states = [self._candidates(s) for s in states]
        turns = [int(t) for t in turns]
        if len(states) != len(turns):
            raise TermoError("decide_many needs one turn per state")
        # A set of tiny mass is decided by its re-based solver (`rebased`), one at a time, where
        # the prior matters to the pick (`Strategy.rebases_alone`: not level 1, nor the endgame
        # rules of §5.3 and level 3's hand-over to them, which play by ICF whatever the prior).
        strategy = self.strategy
        own = [strategy.rebases_alone(s, t) and self._needs_rebase(s) for s, t in zip(states, turns)]
        if not any(own):
            return strategy.decide_many(states, turns)
        out = [None] * len(states)
        plain = [i for i, o in enumerate(own) if not o]
        if plain:
            picks = strategy.decide_many([states[i] for i in plain], [turns[i] for i in plain])
            for i, p in zip(plain, picks):
                out[i] = p
        for i in (i for i, o in enumerate(own) if o):
            sub = self.rebased(states[i])
            with self._reporting(sub):
                out[i] = sub.decide_many([states[i]], [turns[i]])[0]
        return out

    def choice(self, index, cands, bits=None, expected=None, members=None) -> Choice:
        """The `Choice` of probe ``index`` over ``cands`` (bits: its entropy there unless given;
        ``members``: ``set(cands)``, when the caller has it)."""
        members = set(cands) if members is None else members
        if bits is None:
            bits = self.sweeper.entropy_of(index, cands)
        return Choice(int(index), self.game.probes[int(index)], bits=float(bits),
                      expected=None if expected is None else float(expected),
                      is_candidate=int(index) in members)

    def describe(self) -> dict:
        t = "inf" if math.isinf(self.t) else self.t
        return {"level": self.level, "t": t, "beam": self.beam, "depth": self.depth,
                "backend": self.backend.name, "custom_prior": self.custom_prior}
