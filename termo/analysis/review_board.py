"""One board's values for the review (`termo.analysis.review`): exact where proved, level 3 otherwise.

For a state (the candidates ``S`` before a turn, ``r`` rounds left, hard mode's allowed guesses)
and the guess played, `BoardValues.turn` returns a `TurnValue`: the best expected guesses from
the state, the expected guesses after the player's guess (both counting this guess, under the
game's turn limit, prior and loss cost: docs/exact.md's ``C(S, r)/W(S)``, level 3's ``V(S, r)``),
the best guess(es), and the best value of the state the colours left, all by one method:

* **exact**: `termo.exact`'s search proves ``C(S, r)`` and ``C(S_b, r − 1)`` of every group of
  the player's guess within a budget of states expanded (a count, not seconds: the same review
  is the same on every machine); the first turn's best is the proved optimum of the game when
  `FIRST_GUESSES` holds it (docs/exact.md: Selby's 7920 from salet, Termo's tarso, ...);
* **level3**: when the budget runs out, level 3's values (`termo.engine.solver.Solver`, the
  game's default beam and depth): its root beam (turn 1: the level-3 opener cache where shipped,
  the proved opener, the exact search's best guess found), the player's guess evaluated by the
  same search; the best is the least of them (so the cost is never negative);
* **unrated**: a guess outside the word list (no row of the matrix) whose groups cannot be
  proved in the budget: level 3 cannot evaluate it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from termo.engine.tree_search import LOSS_COST

# states expanded per turn by the exact search (a budget, deterministic): the first turn's big
# state and every later one (docs/review.md: the budget and the two-second review)
FIRST_NODES = 2_000
NODES = 50_000
MEMO_SLOTS = 1 << 20
MAX_LAST_TURN = 64  # level 3 on a state it hands to level 2: its most probable candidates tried

# The proved optimum of a whole game (its best first guess and value, expected guesses per game),
# by (game, hard mode, loss cost, temperature, win rule): docs/exact.md, bench/results/rank-*.json.
# A uniform game's value is total / answers, as the exact search computes it.
FIRST_GUESSES = {
    ("wordle", False, 7.0, None, "exact"): ("salet", 7920 / 2315),
    ("wordle", False, math.inf, None, "exact"): ("salet", 7920 / 2315),
    ("wordle", True, 7.0, None, "exact"): ("salet", 8122 / 2315),
    ("wordle", True, math.inf, None, "exact"): ("salet", 8122 / 2315),
    ("termo", False, 7.0, 1.0, "exact"): ("tarso", 2.731637718416328),
    ("nerdle", False, 7.0, None, "commutative"): ("54-38=16", 52317 / 17723),
    ("nerdle", False, 7.0, None, "exact"): ("54-36=18", 53512 / 17723),
    ("nerdle-mini", False, 7.0, None, "commutative"): ("4*7=28", 525 / 206),
}


@dataclass
class TurnValue:
    """One turn's values by one method (expected guesses, this guess included)."""

    method: str  # "exact", "level3" or "unrated"
    best_value: float | None
    guess_value: float | None
    best: tuple  # probe indices of the best guesses known (the solver's first)
    next_value: float | None  # the best value of the state the colours left (0: won)


class BoardValues:
    """The review's values for one game, hard mode, prior and loss cost; a fresh exact memo per
    review (so a budget gives the same answer whatever ran before)."""

    def __init__(self, game, hard: bool = False, t: float = 1.0, loss: float = LOSS_COST, backend=None,
                 nodes: int | None = None, first_nodes: int | None = None):
        self.game, self.hard, self.t, self.loss, self.backend = game, bool(hard), float(t), float(loss), backend
        self.nodes = NODES if nodes is None else int(nodes)
        self.first_nodes = min(FIRST_NODES, self.nodes) if first_nodes is None else int(first_nodes)
        self._problem = None
        self._solver = None

    # ------------------------------------------------------------------ the two engines
    @property
    def problem(self):
        if self._problem is None:
            from termo.exact.search import Problem

            self._problem = Problem(self.game, hard=self.hard, t=self.t, backend=self.backend, loss=self.loss,
                                    memo_slots=MEMO_SLOTS)
        return self._problem

    @property
    def solver(self):
        if self._solver is None:
            from termo.engine.solver import Solver

            loss = self.loss if math.isfinite(self.loss) else self.problem.search_loss
            self._solver = Solver(self.game, level=3, t=self.t, backend=self.backend, loss=loss)
        return self._solver

    def value(self, total: float, weight: float) -> float:
        """A total of the exact search as expected guesses (infinite past the loss sentinel)."""
        if total >= self.problem.search_loss * 0.5 and math.isinf(self.loss):
            return math.inf
        return total / weight

    # ------------------------------------------------------------------ one turn
    def turn(self, members, turn: int, guess, code: int | None, allowed=None, constraint=None) -> TurnValue:
        """The values of ``turn`` (1-based) at ``members`` (ascending answer indices) for the
        player's ``guess`` (a probe index, or a normalised word outside the list) and the colours
        ``code`` it got (None: not known, no next value); ``allowed``: hard mode's legal probes
        (an index array), ``constraint`` its rule (for a word outside the list)."""
        rounds = self.game.max_turns - turn + 1
        exact, hint = self.exact(members, turn, rounds, guess, code, allowed, constraint)
        if exact is not None:
            return exact
        if not isinstance(guess, (int, np.integer)):
            return TurnValue("unrated", None, None, (), None)
        return self._level3(members, turn, rounds, int(guess), code, allowed, hint)

    def _budget(self, turn: int) -> int:
        return self.first_nodes if turn == 1 else self.nodes

    def _first(self):
        """(probe, value) of the game's proved first guess for this configuration, or None."""
        game = self.game
        t = None if game.uniform_prior else self.t
        found = FIRST_GUESSES.get((game.label, self.hard, self.loss, t, game.win_rule))
        if found is None or game.extended:
            return None
        index = game.index_of(found[0])
        return None if index is None else (index, found[1])

    def exact(self, members, turn, rounds, guess, code, allowed=None, constraint=None):
        """(the exact `TurnValue`, None) when every value is proved in the budget, else (None,
        the search's best guess found at the state, when it has one). ``turn`` 0: a state of
        ``rounds`` rounds left inside a longer game (a mode's last board)."""
        prob = self.problem
        engine = prob.engine
        start = engine.nodes
        budget = self._budget(turn)
        weight = prob.weight(members)
        first = self._first() if turn == 1 and len(members) == self.game.n_answers else None
        if first is not None:
            best_guess, best_total = first[0], first[1] * weight
        else:
            best_total, proved, best_guess = engine.solve(members, rounds, allowed, budget=budget)
            if not proved:
                return None, (best_guess if best_guess >= 0 else None)
        same = isinstance(guess, (int, np.integer)) and int(guess) == int(best_guess)
        guess_total, next_total = weight, (0.0 if code == self.game.win_code else None)
        for child_code, sub, child_allowed in self._groups(members, guess, allowed, constraint):
            if same and child_code != code:
                continue  # the optimum's value is known: only the state the colours left is solved
            left = max(0, budget - (engine.nodes - start))
            total, proved, _ = engine.solve(sub, rounds - 1, child_allowed, budget=left)
            if not proved:
                return None, int(best_guess)
            guess_total += total
            if child_code == code:
                next_total = self.value(total, prob.weight(sub))
        if same:
            guess_total = best_total  # the same strategy: the same number, whatever the order of a sum
        best_value, guess_value = self.value(best_total, weight), self.value(guess_total, weight)
        best = (int(best_guess),)
        if guess_value == best_value and not same and isinstance(guess, (int, np.integer)):
            best = (int(guess), int(best_guess))
        return TurnValue("exact", best_value, guess_value, best, next_total), None

    def _groups(self, members, guess, allowed, constraint):
        """``[(code, members, allowed), ...]`` of the groups ``guess`` leaves that are not won."""
        prob = self.problem
        if isinstance(guess, (int, np.integer)):
            return prob.children(members, int(guess), allowed)
        from termo.core.feedback import colours, encode

        answers = self.game.answers_norm
        groups: dict = {}
        for a in members.tolist():
            groups.setdefault(encode(colours(guess, answers[a])), []).append(a)
        out = []
        for code in sorted(groups):
            child_allowed = None
            if self.hard:
                from termo.core.feedback import decode
                from termo.engine.hard_mode import allowed_probes, from_round

                rule = constraint.merge(from_round(guess, decode(code, self.game.word_length)))
                child_allowed = np.flatnonzero(allowed_probes(self.game, rule)).astype(np.int64)
            out.append((code, np.asarray(groups[code], dtype=np.int64), child_allowed))
        return out

    # ------------------------------------------------------------------ level 3
    def _level3(self, members, turn, rounds, guess, code, allowed, hint=None) -> TurnValue:
        pool = self._contenders(members, turn, allowed, hint)
        todo = [g for g, c in pool.items() if c is None]
        if pool.get(guess) is None and guess not in todo:
            todo.append(guess)
        costs = {g: c for g, c in pool.items() if c is not None}
        costs.update(self._costs(members, rounds, todo))
        best_value = min(costs.values())
        best = tuple(g for g, c in sorted(costs.items(), key=lambda gc: (gc[1], gc[0])) if c == best_value)[:5]
        next_value = None
        if code is not None:
            next_value = self.level3_best(members, turn, guess, code, allowed)
        return TurnValue("level3", best_value, costs[guess], best, next_value)

    def level3_best(self, members, turn, guess, code, allowed) -> float:
        """Level 3's best value of the state ``guess`` coloured ``code`` leaves (0: won; the loss
        cost when no round is left)."""
        if code == self.game.win_code:
            return 0.0
        rounds = self.game.max_turns - turn
        sub = members[np.asarray(self.problem.engine.A[members, guess] == code)]
        if rounds <= 0:
            return self.solver.loss
        if len(sub) == 1:
            return 1.0
        child_allowed = None if allowed is None else self.problem.engine.allowed_after(allowed, guess, code)
        pool = self._contenders(sub, turn + 1, child_allowed)
        costs = self._costs(sub, rounds, [g for g, c in pool.items() if c is None])
        return min(list(costs.values()) + [c for c in pool.values() if c is not None])

    def _contenders(self, members, turn: int, allowed, hint=None) -> dict:
        """Guesses level 3 ranks at this state with their costs where known (None: not yet):
        its root beam (turn 1: the opener cache and the proved opener), the exact search's best
        guess found (``hint``), the legal ones in hard mode."""
        game = self.game
        out: dict = {}
        legal = None if allowed is None else set(np.asarray(allowed).tolist())
        if turn == 1 and len(members) == game.n_answers:
            from termo.book.openers import lookup

            entry = lookup(self.solver)
            for word, cost in (entry or {}).get("costs", []):
                index = game.index_of(word)
                if index is not None:
                    out[index] = float(cost)
            first = self._first()
            if first is not None:
                out.setdefault(first[0], None)
        if not out or turn > 1 or len(members) != game.n_answers:
            found = self.solver.root_search([int(a) for a in members], turn)
            if found is not None:
                for g, cost in found[1]:
                    out[int(g)] = float(cost)
            else:  # level 3 hands the state to level 2: its most probable candidates
                order = sorted(members.tolist(), key=lambda a: (game.icf[a], a))[:MAX_LAST_TURN]
                out.update({int(a): None for a in order})
        if hint is not None:
            out.setdefault(int(hint), None)
        if legal is not None:
            out = {g: c for g, c in out.items() if g in legal}
            if not out:  # level 3's own pick among the legal guesses
                mask = np.zeros(game.n_probes, dtype=bool)
                mask[np.asarray(allowed, dtype=np.int64)] = True
                out[int(self.solver.decide([int(a) for a in members], turn, allowed=mask).choice.index)] = None
        return out

    def _costs(self, members, rounds: int, probes) -> dict:
        """Level 3's cost of each probe at this state (its search, children at the solver's depth)."""
        from termo.engine.tree_search import PairJob

        probes = [int(p) for p in probes]
        if not probes:
            return {}
        cands = [int(a) for a in members]
        sub = self.solver.rebased(cands)
        sid = int(sub.tree.register([cands])[0])
        job = PairJob(sid, probes, rounds, sub.depth)
        sub.tree.run([job])
        return dict(zip(probes, (float(c) for c in job.costs)))
