"""Hard mode in the lockstep battery (docs/rules.md §12.2): the entropy policy (level 2) asked
for a legal guess at every node.

In hard mode a decision depends on the history's constraint (`termo.engine.hard_mode.Constraint`), not
only on the candidate set: two histories can leave the same candidates under different rules.
:class:`HardPolicy` is therefore a *branch* policy (``termo.analysis.lockstep``): each node's
token is ``(constraint before the node's guess, the guess)``. A child recovers the colours its
parent's guess got from any of its members (they all share that bucket's code), so its
constraint is the parent's merged with that round. Questions are keyed by (candidate set, turn,
constraint):

* states whose mask rules nothing out (the first turn, or only greys so far) go to the inner
  state policy in one batch, exactly as in the normal battery;
* the others are asked one by one, ``solver.decide(state, turn, allowed=mask)``: the best
  allowed probe of the §5.2 order (the endgame rules play candidates).

The strategies that play candidates (random, letters, likely) are legal in hard mode as they
are, so the battery does not wrap them.
"""

from __future__ import annotations

from typing import Sequence

from backends import host
from termo.engine import hard_mode
from termo.core.feedback import decode
from termo.core.keys import candidate_key

_MAX_MASKS = 100_000


class HardPolicy:
    """A level-2 solver's policy under hard mode (see the module docstring)."""

    branch_dependent = True

    def __init__(self, inner, solver, game, matrix=None) -> None:
        from termo.engine.matrix import pattern_matrix

        hb = host()
        self.inner = inner  # state policy for the unrestricted states (batched)
        self.solver = solver
        self.game = game
        self.matrix = hb.to_numpy(pattern_matrix(game, backend=hb) if matrix is None else matrix)
        self._masks: dict = {}

    def start(self):
        return (hard_mode.free(self.game.word_length), None)

    def constraint(self, state, token) -> hard_mode.Constraint:
        """The rule at a node: the parent's, merged with the round its guess made."""
        rule, guess = token
        if guess is None:
            return rule
        code = int(self.matrix[int(guess), int(state[0])])
        pattern = decode(code, self.game.word_length)
        return rule.merge(hard_mode.from_round(self.game.probes_norm[int(guess)], pattern))

    def mask(self, rule: hard_mode.Constraint):
        """The allowed probes of ``rule``, or None when it rules nothing out (memoised)."""
        if rule.free:
            return None
        if rule not in self._masks:
            if len(self._masks) >= _MAX_MASKS:
                self._masks.clear()
            m = hard_mode.allowed_probes(self.game, rule)
            self._masks[rule] = m if hard_mode.restrictive(m) else None
        return self._masks[rule]

    def choose_branches(self, states: Sequence, turns: Sequence[int], tokens):
        rules = [self.constraint(s, tok) for s, tok in zip(states, tokens)]
        choices: list = [None] * len(states)
        free: dict = {}  # (state key, turn) -> node indices (the inner policy decides)
        keyed: dict = {}  # (state key, turn, rule) -> node indices
        for i, (state, rule) in enumerate(zip(states, rules)):
            key = candidate_key(state)
            if self.mask(rule) is None:
                free.setdefault((key, int(turns[i])), []).append(i)
            else:
                keyed.setdefault((key, int(turns[i]), rule), []).append(i)
        if free:
            groups = list(free.values())
            answers = self.inner.choose_many([states[g[0]] for g in groups], [int(turns[g[0]]) for g in groups])
            for g, a in zip(groups, answers):
                for i in g:
                    choices[i] = int(a)
        for (_, turn, rule), group in keyed.items():
            d = self.solver.decide(states[group[0]], turn, allowed=self.mask(rule))
            for i in group:
                choices[i] = int(d.index)
        return choices, [(rule, c) for rule, c in zip(rules, choices)]
