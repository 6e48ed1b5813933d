"""The levels as strategy objects: how a solver decides a candidate set at a turn.

A strategy is built for one :class:`termo.engine.solver.Solver` (its configuration and building
blocks: game, sweeper, level-3 tree, ``choice``) by the composition root
:mod:`termo.engine.factory`, and answers two questions:

* ``decide(cands, turn, hard)``: the `Decision` (with alternatives) for one valid set, ``hard``
  the hard-mode filter (`termo.engine.hard_mode.Filter`) or None;
* ``decide_many(states, turns)``: just the probe index of each state, batched.

``rebases_alone(cands, turn)`` tells the solver's ``decide_many`` whether a state of tiny prior
mass must be decided alone by its re-based solver (only where the prior matters to the pick).

Levels: :class:`LetterFrequency` (1, rules "Levels"), :class:`Entropy` (2, §5.3),
:class:`ExpectedGuesses` (3, §6.4, which hands the endgame and hard-mode dead ends to an
`Entropy`). Hard mode is a filter each strategy applies to its own candidates for the guess.
"""

from __future__ import annotations

import dataclasses

from termo.core.decision import Choice, Decision
from termo.core.messages import Message, with_note
from termo.engine import level1, level2, level3, tree_search


def expected_reason(value: float) -> Message:
    """Level 3's reason: the lowest expected number of guesses, ``value``, coded for the catalogue."""
    return Message(f"lowest expected number of guesses ({value:.3f})", "reason.expected", expected=float(value))


class Strategy:
    """The base: a level deciding for ``solver``."""

    level = 0

    def __init__(self, solver):
        self.solver = solver

    def decide(self, cands, turn: int, hard=None) -> Decision:  # pragma: no cover - abstract
        raise NotImplementedError

    def decide_many(self, states, turns) -> list[int]:  # pragma: no cover - abstract
        raise NotImplementedError

    def rebases_alone(self, cands, turn: int) -> bool:
        """Is a state of tiny prior mass decided alone, by its re-based solver, in ``decide_many``?"""
        return False


class LetterFrequency(Strategy):
    """Level 1: the candidate with the most frequent letters (prior-free; candidates are legal in
    hard mode, so the filter changes nothing)."""

    level = 1

    def __init__(self, solver):
        super().__init__(solver)
        self._letters = None

    @property
    def letters(self):
        """The game's (answers × symbols) letter table, built on first use."""
        if self._letters is None:
            self._letters = level1.letter_table(self.solver.game)
        return self._letters

    def decide(self, cands, turn: int, hard=None) -> Decision:
        members = set(cands)
        return level1.decide(self.letters, cands, lambda i: self.solver.choice(i, cands, members=members),
                             self.solver.alternatives, unit=self.solver.game.unit)

    def decide_many(self, states, turns) -> list[int]:
        return [level1.best(self.letters, s) for s in states]


class Entropy(Strategy):
    """Level 2: the §5.3 endgame rules, else the first probe of the §5.2 entropy order."""

    level = 2

    def endgame(self, cands, turn: int):
        """The §5.3 rule that decides (`termo.engine.level2.endgame_kind`), or None (entropy)."""
        solver = self.solver
        return level2.endgame_kind(len(cands), turn, solver.game.max_turns, solver.endgame)

    def rebases_alone(self, cands, turn: int) -> bool:
        return self.endgame(cands, turn) is None  # the endgame rules play by ICF, whatever the prior

    def decide(self, cands, turn: int, hard=None) -> Decision:
        if hard is not None:
            return self.decide_hard(cands, turn, hard)
        return self.plain(cands, turn)

    def plain(self, cands, turn: int) -> Decision:
        """The level-2 decision without a filter."""
        solver = self.solver
        return level2.decide(solver.sweeper, solver.game, cands, turn, solver.alternatives, solver.endgame)

    def decide_hard(self, cands, turn: int, hard) -> Decision:
        """Level 2 in hard mode: the endgame rules as usual (candidates are legal), else the
        first allowed probes of the §5.2 order, bits in the engine's float convention."""
        if self.endgame(cands, turn) is not None:
            return self.plain(cands, turn)
        solver = self.solver
        top = hard.top(solver.sweeper, cands, 1 + solver.alternatives)
        members = set(cands)
        choices = [solver.choice(i, cands, members=members) for i in top]
        m, legal = len(cands), hard.count
        reason = Message(f"maximum entropy over {m} candidates (hard mode: among the {legal} legal guesses)",
                         "reason.entropy_hard", m=m, legal=legal)
        return Decision(choices[0], reason, len(cands), tuple(choices[1:]))

    def decide_many(self, states, turns) -> list[int]:
        solver = self.solver
        out = [None] * len(states)
        todo = []
        for i, (s, t) in enumerate(zip(states, turns)):
            if self.endgame(s, t) is None:
                todo.append(i)
            else:
                out[i] = level2.by_icf(s, solver.game.icf)[0]
        if todo:
            tree = solver.tree
            ids = tree.register([states[i] for i in todo])
            tree.ensure_sweeps(ids, 1)
            for i, sid in zip(todo, ids):
                out[i] = int(tree.top_idx[int(sid), 0])
        return out


class ExpectedGuesses(Strategy):
    """Level 3: the lowest expected number of guesses over the root beam; tiny sets and the last
    turns go to ``fallback`` (level 2, §6.4), as does a search that finds no finite cost."""

    level = 3

    def __init__(self, solver, fallback: Entropy):
        super().__init__(solver)
        self.fallback = fallback

    def delegates(self, cands, turn: int) -> bool:
        """Does level 3 hand this state to level 2 (`termo.engine.level3.delegates_to_level2`)?"""
        solver = self.solver
        return level3.delegates_to_level2(len(cands), turn, solver.game.max_turns, solver.endgame)

    def rebases_alone(self, cands, turn: int) -> bool:
        return self.fallback.rebases_alone(cands, turn)

    def decide(self, cands, turn: int, hard=None) -> Decision:
        if self.delegates(cands, turn):
            return self._delegated(cands, turn)
        if hard is not None:
            return self.decide_hard(cands, turn, hard)
        decision, _ = self.root_search(cands, turn)
        return decision

    def _delegated(self, cands, turn: int) -> Decision:
        """Level 2's decision (hard mode changes nothing there: candidates are played), with
        the exact expected value of a set of at most two."""
        solver = self.solver
        d = self.fallback.plain(cands, turn)
        if len(cands) <= 2:
            value = solver.expected_value(cands, level3.rounds_left(turn, solver.game.max_turns))
            d = Decision(Choice(d.choice.index, d.choice.word, d.choice.bits, value, d.choice.is_candidate),
                         d.reason, d.candidates, d.alternatives)
        return d

    def root_search(self, cands, turn: int, progress=None):
        """The level-3 search of a state's root beam: ``(Decision, [(probe, cost)] finite costs
        ranked)``, or None where level 3 hands the state to level 2; ``progress`` as for
        `termo.engine.tree_search.TreeSearch.run` (default: the tree's own)."""
        solver = self.solver
        tree = solver.tree
        _, jobs = level3.root_jobs(tree, [cands], [turn], solver.game.max_turns, solver.depth, solver.endgame)
        job = jobs[0]
        if job is None:
            return None
        tree.run([job], progress=progress)
        return self.decision(job, cands), level3.ranked_costs(job)

    def decision(self, job, cands) -> Decision:
        """The `Decision` of an evaluated root job (level 2's at turn 1 if no cost is finite)."""
        solver = self.solver
        ranked = level3.ranked_costs(job)
        m = len(cands)
        if not ranked:
            return self.fallback.plain(cands, 1)
        members = set(cands)
        choices = [solver.choice(g, cands, None, c, members) for g, c in ranked[: 1 + solver.alternatives]]
        return Decision(choices[0], expected_reason(ranked[0][1]), m, tuple(choices[1:]))

    def decide_hard(self, cands, turn: int, hard) -> Decision:
        """Level 3 in hard mode: the root beam is the first K allowed probes of the §5.2 order
        plus the most probable candidate (legal), each evaluated by the normal level-3 search;
        the turns below the root are searched without the restriction, so E is an estimate."""
        solver = self.solver
        tree = solver.tree
        sid = int(tree.register([cands])[0])
        tree.ensure_sweeps([sid], tree.beam)  # the state's most probable candidate (tree.best)
        guesses = hard.top(solver.sweeper, cands, tree.beam)
        best = int(tree.best[sid])
        if best not in guesses:
            guesses.append(best)
        job = tree_search.PairJob(sid, guesses, level3.rounds_left(turn, solver.game.max_turns), solver.depth)
        tree.run([job])
        if not level3.ranked_costs(job):
            return self.fallback.decide_hard(cands, 1, hard)
        d = self.decision(job, cands)
        note = Message(f"hard mode: this guess among the {hard.count} legal ones; later turns searched without "
                       "the restriction, so E is an estimate", "note.hard_level3", legal=hard.count)
        return dataclasses.replace(d, reason=with_note(d.reason, note))

    def decide_many(self, states, turns) -> list[int]:
        solver = self.solver
        tree = solver.tree
        max_turns = solver.game.max_turns
        _, jobs = level3.root_jobs(tree, states, turns, max_turns, solver.depth, solver.endgame)
        live = [j for j in jobs if j is not None]
        if live:
            tree.run(live)
        out = []
        for s, t, job in zip(states, turns, jobs):
            ranked = level3.ranked_costs(job) if job is not None else []
            if ranked:
                out.append(int(ranked[0][0]))
            else:
                out.append(level2.choose_index(solver.sweeper, solver.game.icf, s, t, max_turns, solver.endgame))
        return out
