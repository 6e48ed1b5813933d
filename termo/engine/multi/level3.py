"""Level 3 for several boards: the best expected objective, searched over product states
(docs/modes-solver.md).

A decision, given the unsolved boards' candidate sets S_1..S_U and r turns left (this one
included):

1. **Forced**: a board with one candidate left is played (level 2's rule).
2. **Exact**: when the joint product Π|S_b| is at most ``exact_product`` the state is solved by
   the exact expectimax (`termo.engine.multi.exact.MultiExact`: every probe class, every joint
   outcome, the objective's own costs), its values memoised per state.
3. **Beam**: otherwise every guess of a beam (the ``beam`` best by level 2's key, plus every
   candidate of the boards with at most ``small`` candidates) gets a one-turn lookahead with a
   leaf value *additive over boards*, so the expectation over joint outcomes is a sum of per-board
   expectations (no product enumeration):

       cost(g) = 1 + Σ_b [ (1 − P_b(g solves b)) + Σ_{buckets β ≠ win} P_b(β) · h(|β|) ]

   The terms: the turn played; a solving turn still owed by every board g does not solve (a
   won game's finish is B plus the turns that solved no board, one guess solving one board at
   most); ``h(n)``, the turns that solve no board which a board of n candidates still costs
   (``h(1) = 0``, ``h(n) = alpha·log2 n + beta``), measured on batteries (see the doc). With
   ``h = alpha·log2 n`` this ranks as level 2 plus a bonus for the chance to solve a board.
   The costs and the decision are host float64, the same on every backend. The expected value
   reported is the objective's: the estimate above for ``finish``; for ``score`` the same turns
   spent solving-info-first (U·N + U(U+1)/2 with N the estimated turns that solve nothing); for
   ``win`` 0 or 1 by whether the estimated turns fit the ones left (exact states give exact
   values for every objective).
"""

from __future__ import annotations

import math

import numpy as np

from termo.core.errors import TermoError
from termo.core.decision import Decision
from termo.core.messages import Message
from termo.engine.multi.level2 import MultiSolver, _host, forced_reason
from termo.engine.multi.exact import EXACT_PRODUCT, MultiExact, joint_product

ALPHA = 1.0  # h(n) = ALPHA·log2 n + BETA for n ≥ 2 (turns that solve nothing, per board; measured)
BETA = 0.0
EST_PER_BIT = 0.2  # reported estimates: turns that solve nothing per bit left (Wordle: 2.4 for 11.2 bits)
BEAM = 40
SMALL = 12
EXACT_SMALL = 16  # the joint product up to which a decision is exact (measured: 32 costs 0.7 s a Quordle game)


class MultiSearch(MultiSolver):
    """Level-3 decisions for one mode (the interface of `termo.engine.multi.level2.MultiSolver`)."""

    level = 3

    def __init__(self, mode, objective="finish", backend=None, beam: int = BEAM, small: int = SMALL,
                 alpha: float = ALPHA, beta: float = BETA, gamma: float = 0.0, exact_product: int = EXACT_SMALL, progress=None,
                 **options):
        super().__init__(mode, objective=objective, backend=backend, **options)
        if int(beam) < 1:
            raise TermoError(f"beam must be at least 1, not {beam!r}")
        self.beam, self.small = int(beam), int(small)
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        self.exact_product = min(int(exact_product), EXACT_PRODUCT)
        self.progress = progress
        self.exact = MultiExact(self.stats, self.objective, probes=self.exact_pool)

    # ----------------------------------------------------------------- the leaf
    def h(self, counts):
        counts = np.asarray(counts, dtype=np.float64)
        safe = np.maximum(counts, 1.0)
        return np.where(counts >= 2, self.alpha * np.maximum(np.log2(safe) - self.gamma, 0.0) + self.beta, 0.0)

    def beam_probes(self, boards) -> np.ndarray:
        """The beam: level 2's best ``beam`` probes and the candidates of the small boards."""
        top, _, _ = self.ranked(boards, self.beam)
        extra = [np.asarray(c, dtype=np.int64) for c in boards if int(len(c)) <= self.small]
        return np.unique(np.concatenate([np.asarray(top, dtype=np.int64)] + extra))

    def beam_costs(self, boards, probes):
        """(cost per probe, expected solves per probe, expected non-solving turns per probe)."""
        win = self.stats.win_code
        solves = np.zeros(probes.shape[0])
        rest = np.zeros(probes.shape[0])
        for cands in boards:
            counts, masses = self.stats.bucket_stats(np.asarray(cands, dtype=np.int64), probes)
            p_win = masses[:, win]
            counts[:, win] = 0
            solves += p_win
            rest += (masses * self.h(counts)).sum(axis=1)
        cost = 1.0 + (len(boards) - solves) + rest
        return cost, solves, rest

    def ranked_beam(self, boards):
        """The beam's probes and costs, best first (ties: higher solve chance, lower index)."""
        probes = self.beam_probes(boards)
        cost, solves, rest = self.beam_costs(boards, probes)
        order = np.lexsort((probes, -solves, np.round(cost, 12)))
        return probes[order], cost[order], rest[order]

    def exact_pool(self, boards):
        """The probes the search's exact states try: the beam and every candidate."""
        top, _, _ = self.ranked(boards, self.beam)
        return np.unique(np.concatenate([np.asarray(top, dtype=np.int64)] + [np.asarray(c) for c in boards]))

    # ----------------------------------------------------------------- decisions
    def rounds(self, turn: int) -> int:
        return max(self.mode.max_turns - int(turn) + 1, 1)

    def is_exact(self, boards) -> bool:
        return joint_product(boards) <= self.exact_product

    def choose(self, boards, turn: int = 0) -> int:
        """The probe level 3 plays on ``boards`` (candidate arrays of the unsolved boards) at
        1-based ``turn`` (turn 0: as many turns left as the mode has)."""
        boards = [np.asarray(_host().to_numpy(c), dtype=np.int64) for c in boards]
        if self.is_exact(boards):
            return int(self.exact.solve(boards, self.rounds(turn if turn else 1))[1])
        forced = self.forced(boards)
        if forced is not None:
            return forced
        probes, _, _ = self.ranked_beam(boards)
        return int(probes[0])

    def choose_many(self, states, turns) -> list[int]:
        out = []
        total = len(states)
        for done, (boards, turn) in enumerate(zip(states, turns)):
            out.append(self.choose(boards, turn))
            if self.progress is not None:
                self.progress(done + 1, total)
        return out

    def estimate(self, unsolved: int, rest: float, r: int) -> float:
        """The objective's cost still to pay after a beam turn (see the module docstring)."""
        name = self.objective.name
        u, n = float(unsolved), float(rest)
        if name == "finish":
            return u + n
        if name == "score":
            return u * n + u * (u + 1.0) / 2.0
        return 0.0 if u + n <= r else 1.0

    def estimated(self, cost, rest, r: int) -> list[float]:
        """The objective's cost still to pay after this turn (``r`` turns left, this one
        included), estimated from the beam's costs ``cost`` and non-solving turns ``rest``
        (`beam_costs`)."""
        out = []
        for c, n in zip(np.asarray(cost).tolist(), np.asarray(rest).tolist()):
            u_after = float(c - 1.0 - n)  # the boards still unsolved after it, expected
            n_est = EST_PER_BIT * n / self.alpha if self.alpha > 0 else n  # leaf bits as turns
            out.append(self.estimate(u_after, n_est, r - 1))
        return out

    def estimates(self, boards, probes, r: int) -> list[float]:
        """The objective's cost still to pay from this turn (its own cost included) after each
        of ``probes`` (any guesses, not only the beam's) at ``boards``, by the beam's estimate."""
        probes = np.asarray(probes, dtype=np.int64)
        cost, _, rest = self.beam_costs(boards, probes)
        turn = self.objective.turn_cost(len(boards))
        return [turn + e for e in self.estimated(cost, rest, r)]

    def decide(self, state) -> Decision:
        """The suggestion for ``state`` with ``expected`` the objective's value (Objective.base
        included) for it and for every alternative."""
        if state.over:
            raise TermoError("the game is over: nothing to suggest", "boards.over_suggest")
        boards = [np.asarray(_host().to_numpy(c), dtype=np.int64) for c in self.unsolved_sets(state)]
        base = self.objective.base(state.turns, state.solved_on)
        r = self.rounds(state.turns + 1)
        bits, chance = self.scores(boards)
        if self.is_exact(boards):
            value, best, costs = self.exact.solve(boards, r)
            picks = [(g, base + c) for g, c in costs[: self.alternatives + 1]]
            tuples = joint_product(boards)
            reason = Message(f"exact: the best expected {self.objective.name} over every guess ({tuples} joint "
                             f"answer tuples)", "reason.boards_exact", objective=self.objective.name, tuples=tuples)
        else:
            probes, cost, rest = self.ranked_beam(boards)
            k = self.alternatives + 1
            rests = self.estimated(cost[:k], rest[:k], r)
            picks = [(g, base + self.objective.turn_cost(len(boards)) + e) for g, e in zip(probes[:k].tolist(), rests)]
            n_probes, n = len(probes), len(boards)
            reason = Message(f"search: a one-turn lookahead over {n_probes} guesses, {n} unsolved boards (an estimate)",
                             "reason.boards_search", guesses=n_probes, n=n)
        forced = None if self.is_exact(boards) else self.forced(boards)
        if forced is not None and picks[0][0] != forced:
            board = next(b for b in state.unsolved if int(len(state.candidates[b])) == 1)
            reason = forced_reason(board)
            picks = [(forced, None)] + [p for p in picks if p[0] != forced]
        choices = [self._choice(g, bits[g], chance[g], None if e is None else float(e)) for g, e in picks]
        return self._decision(choices[: self.alternatives + 1], reason)
