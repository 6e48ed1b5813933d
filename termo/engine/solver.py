"""The solver facade: one object per (game, level, prior, beam, depth, backend).

>>> s = Solver(game, level=3)          # doctest: +SKIP
>>> s.decide(candidates, turn)          # a termo.core.decision.Decision
>>> s.decide_many(states, turns)        # probe index per state, batched

Openers (the interface opener and the cached level-3 optimum) live one layer up, in
:mod:`termo.book.openers`, which calls the solver; the solver never imports it.

Levels: 1 = letter frequency (§4), 2 = entropy with the §5.3 endgame rule, 3 = expected number of
guesses over a beam (§6). The heavy entropy sweeps run on the chosen backend; the level-3 value
recursion is float64 on the host, so every backend gives the same decisions and values.

Small temperatures: a candidate set whose mass under the global prior is at most
`termo.core.prior.REBASE_MASS` (1e-290; at a small T a rare set's mass underflows to 0, and §5.1 would
then weigh it uniformly, the T = ∞ answer) is decided by the same configuration with the prior
re-based on the set (:meth:`Solver.rebased`), so every positive T gives its own answer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

from backends import get_backend, host
from termo.engine import hard_mode, level1, level2, level3
from termo.core.decision import Choice, Decision
from termo.engine.entropy import Sweeper
from termo.core.errors import TermoError
from termo.core.prior import REBASE_MASS, Prior, rebased_prior

REBASED_KEPT = 8  # re-based solvers memoised per solver (least recently used dropped)


class Solver:
    """Decisions for one configuration. ``prior`` (float64 over answers, zeros allowed) overrides
    ``softmax(−ICF/t)``; ``backend`` is a Backend, a name, or None (``$TERMO_BACKEND``/NumPy)."""

    def __init__(self, game, level: int = 2, t: float = 1.0, beam: int = 10, depth: int = 1,
                 backend=None, prior=None, alternatives: int = 5, endgame: int = level2.ENDGAME_LIMIT,
                 loss: float = level3.LOSS_COST):
        if level not in (1, 2, 3):
            raise TermoError(f"level must be 1, 2 or 3, not {level!r}")
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
        if prior is None:
            self.custom_prior = False
            value = Prior.from_icf(game.icf, self.t)
            self.prior, self.stable_prior = value.weights, value.stable
        else:
            p = xp.asarray(prior, dtype=xp.float64)
            if p.shape != (game.n_answers,) or bool(xp.any(p < 0)) or not bool(xp.all(xp.isfinite(p))):
                raise TermoError(f"prior must be {game.n_answers} finite non-negative weights")
            self.custom_prior = True
            self.prior = p
        self.sweeper = Sweeper(game, self.prior, self.backend)
        self._tree = None
        self._letters = None
        self._opener = None  # level 1/2 optimum, computed once (a slot kept by termo.book.openers)
        self._rebased: dict = {}  # candidate tuple -> re-based solver (see `rebased`)

    # -- building blocks ----------------------------------------------------------------------
    @property
    def tree(self) -> level3.TreeSearch:
        """The level-3 engine (states and sweeps are memoised inside it)."""
        if self._tree is None:
            self._tree = level3.TreeSearch(self.sweeper.matrix_t, self.prior, self.sweeper.probe_prior,
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
        callback (`termo.engine.level3.TreeSearch.reporting`), if one is set."""
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
        job = level3.NodeJob(sid, self.depth + 1, int(rounds))
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
        job = level3.PairJob(sid, [int(p) for p in probes], int(rounds), 0)
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
        if not hard_mode.restrictive(allowed):
            allowed = None
        elif len(allowed) != self.game.n_probes:
            raise TermoError(f"the hard-mode mask has {len(allowed)} entries for {self.game.n_probes} probes")
        if self.level == 1:
            return self._decide_letters(cands)
        if self.level == 2:
            if allowed is not None:
                return self._decide_level2_hard(cands, turn, allowed)
            return level2.decide(self.sweeper, self.game, cands, turn, self.alternatives, self.endgame)
        return self._decide_level3(cands, turn, allowed)

    def _decide_level2_hard(self, cands, turn, allowed) -> Decision:
        """Level 2 in hard mode: the endgame rules as usual (candidates are legal), else the
        first allowed probes of the §5.2 order, bits in the engine's float convention."""
        if level2.endgame_kind(len(cands), turn, self.game.max_turns, self.endgame) is not None:
            return level2.decide(self.sweeper, self.game, cands, turn, self.alternatives, self.endgame)
        top = hard_mode.top_allowed(self.sweeper, cands, allowed, 1 + self.alternatives)
        members = set(cands)
        choices = [self._choice(i, cands, members=members) for i in top]
        n_ok = hard_mode.n_allowed(allowed)
        reason = f"maximum entropy over {len(cands)} candidates (hard mode: among the {n_ok} legal guesses)"
        return Decision(choices[0], reason, len(cands), tuple(choices[1:]))

    def decide_many(self, states, turns) -> list[int]:
        """The probe index each state plays (batched: one sweep batch / one shared search)."""
        states = [self._candidates(s) for s in states]
        turns = [int(t) for t in turns]
        if len(states) != len(turns):
            raise TermoError("decide_many needs one turn per state")
        if self.level == 1:
            return [self._letters_index(s) for s in states]
        # A set of tiny mass is decided by its re-based solver (`rebased`), one at a time; the
        # endgame rules (§5.3, and level 3's hand-over to them) play by ICF, whatever the prior.
        max_turns = self.game.max_turns
        own = [self._needs_rebase(s) and level2.endgame_kind(len(s), t, max_turns, self.endgame) is None
               for s, t in zip(states, turns)]
        if not any(own):
            return self._decide_many_plain(states, turns)
        out = [None] * len(states)
        plain = [i for i, o in enumerate(own) if not o]
        if plain:
            picks = self._decide_many_plain([states[i] for i in plain], [turns[i] for i in plain])
            for i, p in zip(plain, picks):
                out[i] = p
        for i in (i for i, o in enumerate(own) if o):
            sub = self.rebased(states[i])
            with self._reporting(sub):
                out[i] = sub.decide_many([states[i]], [turns[i]])[0]
        return out

    def _decide_many_plain(self, states, turns):
        if self.level == 2:
            return self._decide_many_level2(states, turns)
        return self._decide_many_level3(states, turns)

    def _decide_many_level2(self, states, turns):
        out = [None] * len(states)
        todo = []
        for i, (s, t) in enumerate(zip(states, turns)):
            if level2.endgame_kind(len(s), t, self.game.max_turns, self.endgame) is None:
                todo.append(i)
            else:
                out[i] = level2.by_icf(s, self.game.icf)[0]
        if todo:
            tree = self.tree
            ids = tree.register([states[i] for i in todo])
            tree.ensure_sweeps(ids, 1)
            for i, sid in zip(todo, ids):
                out[i] = int(tree.top_idx[int(sid), 0])
        return out

    def _decide_many_level3(self, states, turns):
        tree = self.tree
        ids, jobs = level3.root_jobs(tree, states, turns, self.game.max_turns, self.depth, self.endgame)
        live = [j for j in jobs if j is not None]
        if live:
            tree.run(live)
        out = []
        for s, t, job in zip(states, turns, jobs):
            ranked = level3.ranked_costs(job) if job is not None else []
            if ranked:
                out.append(int(ranked[0][0]))
            else:
                out.append(level2.choose_index(self.sweeper, self.game.icf, s, t, self.game.max_turns,
                                               self.endgame))
        return out

    def _choice(self, index, cands, bits=None, expected=None, members=None) -> Choice:
        members = set(cands) if members is None else members
        if bits is None:
            bits = self.sweeper.entropy_of(index, cands)
        return Choice(int(index), self.game.probes[int(index)], bits=float(bits),
                      expected=None if expected is None else float(expected),
                      is_candidate=int(index) in members)

    def _decide_level3_hard(self, cands, turn, allowed) -> Decision:
        """Level 3 in hard mode: the root beam is the first K allowed probes of the §5.2 order
        plus the most probable candidate (legal), each evaluated by the normal level-3 search;
        the turns below the root are searched without the restriction, so E is an estimate."""
        tree = self.tree
        sid = int(tree.register([cands])[0])
        tree.ensure_sweeps([sid], tree.beam)  # the state's most probable candidate (tree.best)
        guesses = hard_mode.top_allowed(self.sweeper, cands, allowed, tree.beam)
        best = int(tree.best[sid])
        if best not in guesses:
            guesses.append(best)
        job = level3.PairJob(sid, guesses, level3.rounds_left(turn, self.game.max_turns), self.depth)
        tree.run([job])
        if not level3.ranked_costs(job):
            return self._decide_level2_hard(cands, 1, allowed)
        d = self._level3_decision(job, cands)
        n_ok = hard_mode.n_allowed(allowed)
        note = (f"hard mode: this guess among the {n_ok} legal ones; later turns searched without "
                "the restriction, so E is an estimate")
        return dataclasses.replace(d, reason=f"{d.reason} ({note})")

    def _decide_level3(self, cands, turn, allowed=None) -> Decision:
        m = len(cands)
        max_turns = self.game.max_turns
        if allowed is not None and not level3.delegates_to_level2(m, turn, max_turns, self.endgame):
            return self._decide_level3_hard(cands, turn, allowed)
        if level3.delegates_to_level2(m, turn, max_turns, self.endgame):
            d = level2.decide(self.sweeper, self.game, cands, turn, self.alternatives, self.endgame)
            if m <= 2:
                value = self.expected_value(cands, level3.rounds_left(turn, max_turns))
                d = Decision(Choice(d.choice.index, d.choice.word, d.choice.bits, value, d.choice.is_candidate),
                             d.reason, d.candidates, d.alternatives)
            return d
        tree = self.tree
        ids, jobs = level3.root_jobs(tree, [cands], [turn], max_turns, self.depth, self.endgame)
        job = jobs[0]
        tree.run([job])
        return self._level3_decision(job, cands)

    def _level3_decision(self, job, cands) -> Decision:
        ranked = level3.ranked_costs(job)
        m = len(cands)
        if not ranked:
            return level2.decide(self.sweeper, self.game, cands, 1, self.alternatives, self.endgame)
        members = set(cands)
        choices = [self._choice(g, cands, None, c, members) for g, c in ranked[: 1 + self.alternatives]]
        reason = f"lowest expected number of guesses ({ranked[0][1]:.3f})"
        return Decision(choices[0], reason, m, tuple(choices[1:]))

    # -- level 1 ------------------------------------------------------------------------------
    @property
    def letters(self):
        if self._letters is None:
            self._letters = level1.letter_table(self.game)
        return self._letters

    def _letters_index(self, cands) -> int:
        return level1.best(self.letters, cands)

    def _decide_letters(self, cands) -> Decision:
        members = set(cands)
        return level1.decide(self.letters, cands, lambda i: self._choice(i, cands, members=members),
                             self.alternatives)

    def describe(self) -> dict:
        t = "inf" if math.isinf(self.t) else self.t
        return {"level": self.level, "t": t, "beam": self.beam, "depth": self.depth,
                "backend": self.backend.name, "custom_prior": self.custom_prior}
