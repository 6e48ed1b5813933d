"""The values of a mode of several boards for the review (`termo.analysis.review`).

Per turn the joint state (the unsolved boards' candidate sets, the turns left) is valued under
the mode's objective (`termo.engine.multi.level2.Objective`: finish, score or win), in the
solvers' model (every unsolved board hides one answer drawn from its candidates with the prior
renormalised over them, the boards independently; docs/modes-solver.md). A value is the
objective's cost still to pay from the state, this turn's cost included:

* **exact**: `termo.engine.multi.exact.MultiExact` over *every* probe of the game (proved for the
  model) when the search stays within a budget of work per turn (`WORK`: joint outcomes
  evaluated, one probe class against one joint answer tuple each; a count, so deterministic);
* a lone board left under ``finish`` or ``score`` (one turn, one unit of cost, a loss one more)
  is one board's expected guesses with a loss cost of 1: `termo.exact`'s search proves it
  (`termo.analysis.review_board.BoardValues`), the same values, found far faster;
* **level3**: otherwise `termo.engine.multi.level3.MultiSearch`'s estimate (its one-turn
  lookahead over its beam, `MultiSearch.estimates`), the player's guess by the same estimate; the
  best is the least over the beam and the player's guess.
"""

from __future__ import annotations

import numpy as np

from termo.analysis.review_board import TurnValue
from termo.core.errors import TermoError
from termo.engine.multi.exact import EXACT_PRODUCT, MultiExact, joint_product

WORK = 300_000  # joint outcomes the exact search may evaluate per turn (about a second)
TIE = 1e-12


class _Proved(MultiExact):
    """`MultiExact`'s values (every probe class, every joint outcome), with the classes that
    cannot beat the best found left out by an admissible bound, and a budget of work: it stops
    (`TermoError` ``exact.joint_limit``) past ``work_limit`` joint outcomes evaluated.

    The bound: when no probe can solve two boards at once (the boards' candidates apart, as they
    are in the real games once two boards differ), each turn solves one board at most, so ``U``
    unsolved boards with ``r`` turns left cost at least `floor_cost` (finish: ``U``, or ``r + 1``
    once the turns cannot suffice; score: ``U + (U − 1) + …``; win: 1 when the turns cannot
    suffice). A probe solving a board with probability ``p`` costs at least this turn's cost plus
    ``p·floor(U − 1) + (1 − p)·floor(U)``. Classes are tried in ascending bound; one whose bound
    is above the best value found cannot reach it, nor can any after it. Without that condition
    the bound is this turn's cost alone."""

    def __init__(self, stats, objective):
        super().__init__(stats, objective, node_limit=10**12)
        self.work = 0
        self.work_limit = 0

    def probe_cost(self, boards, g: int, r: int) -> float:
        self.work += joint_product(boards)
        if self.work > self.work_limit:
            raise TermoError("the exact search passed its budget of joint outcomes", "exact.joint_limit",
                             {"nodes": self.work_limit})
        return super().probe_cost(boards, g, r)

    def floor_cost(self, unsolved: int, r: int) -> float:
        """The least cost still to pay with ``unsolved`` boards, ``r`` turns, one solve a turn."""
        name, u = self.objective.name, int(unsolved)
        if u == 0:
            return 0.0
        if name == "win":
            return 1.0 if u > r else 0.0
        if name == "finish":
            return float(u) if u <= r else float(r + 1)
        played = min(u, r)  # score: U, U − 1, ... for the turns played, then the loss
        return float(sum(u - i for i in range(played)) + max(u - r, 0))

    def bounds(self, boards, classes, r: int) -> np.ndarray:
        """A lower bound of each class's cost at ``boards`` (see the class docstring)."""
        u = len(boards)
        turn = self.objective.turn_cost(u)
        classes = np.asarray(classes, dtype=np.int64)
        p = np.zeros(classes.shape[0])
        solves = np.zeros(classes.shape[0], dtype=np.int64)
        for cands in boards:
            cands = np.asarray(cands, dtype=np.int64)
            wins = self.stats.matrix_t[cands][:, classes] == self.stats.win_code  # n × classes
            p += self.stats.weights(cands) @ wins
            solves += wins.any(axis=0)
        if classes.shape[0] and int(solves.max()) > 1:
            return np.full(classes.shape[0], turn)
        return turn + p * self.floor_cost(u - 1, r - 1) + (1.0 - p) * self.floor_cost(u, r - 1)

    def solve(self, boards, r: int):
        boards = tuple(np.asarray(c, dtype=np.int64) for c in boards)
        hit = self.known(boards, r)
        if hit is not None:
            return hit
        key = self.state_key(boards, r)
        classes = self.probe_classes(boards)
        lower = self.bounds(boards, classes, r)
        best = np.inf
        costs = []
        for i in np.lexsort((np.asarray(classes), lower)).tolist():
            if lower[i] > best + TIE:
                break
            c = self.probe_cost(boards, classes[i], r)
            costs.append((classes[i], c))
            best = min(best, c)
        costs.sort(key=lambda gc: (gc[1], gc[0]))
        out = (costs[0][1], costs[0][0], costs)
        self.memo[key] = out
        return out


class ModeValues:
    """The review's values for one mode and objective (a fresh exact memo per review)."""

    def __init__(self, mode, objective: str = "finish", t: float = 1.0, backend=None, nodes: int | None = None):
        from termo.engine.multi.factory import multi_solver

        self.mode = mode
        self.search = multi_solver(mode, level=3, objective=objective, backend=backend, t=t)
        self.objective = self.search.objective
        self.nodes = WORK if nodes is None else int(nodes)
        self.exact = _Proved(self.search.stats, self.objective)
        self.t, self.backend = t, backend
        self._board = None

    @property
    def board(self):
        """The one-board exact values of a lone board left (loss cost 1: the objective's)."""
        if self._board is None:
            from termo.analysis.review_board import NODES as BOARD_NODES, BoardValues

            self._board = BoardValues(self.mode.game, t=self.t, loss=1.0, backend=self.backend, nodes=BOARD_NODES)
        return self._board

    def turn(self, boards, turn: int, guess, after, codes=None) -> TurnValue:
        """The values of ``turn`` (1-based) at ``boards`` (the unsolved boards' candidate arrays)
        for the player's ``guess`` (a probe index; None: a word outside the list), ``after``
        (the unsolved boards' candidates once the colours came; None: not known) and ``codes``
        (the colours' codes on those boards)."""
        r = self.mode.max_turns - turn + 1
        if guess is None:
            return TurnValue("unrated", None, None, (), None)
        if (len(boards) == 1 and self.objective.name in ("finish", "score") and r <= self.mode.game.max_turns
                and codes is not None):
            found, _ = self.board.exact(np.asarray(boards[0], dtype=np.int64), 0, r, int(guess), codes[0])
            if found is not None:
                return found
        if joint_product(boards) <= EXACT_PRODUCT and self._affordable(boards):
            found = self._exact(boards, r, int(guess), after)
            if found is not None:
                return found
        return self._level3(boards, r, int(guess), after)

    def _affordable(self, boards) -> bool:
        """Can the state's own probes be tried within the budget (its children aside)?"""
        key = self.exact.state_key(boards, 1)
        if any(k[0] == key[0] for k in self.exact.memo):
            return True
        return len(self.exact.probe_classes(boards)) * joint_product(boards) <= self.nodes

    def _exact(self, boards, r: int, guess: int, after):
        exact = self.exact
        exact.work_limit = exact.work + self.nodes
        try:
            value, _, costs = exact.solve(boards, r)
            guess_value = exact.probe_cost(boards, guess, r)
            next_value = None if after is None else exact.solve(after, r - 1)[0]
        except TermoError as err:
            if err.code != "exact.joint_limit":
                raise
            return None
        best = [g for g, c in costs if c <= value + TIE]
        if guess_value <= value + TIE and guess not in best:
            best.insert(0, guess)
        return TurnValue("exact", value, guess_value, tuple(best[:5]), next_value)

    def _level3(self, boards, r: int, guess: int, after) -> TurnValue:
        search = self.search
        probes, _, _ = search.ranked_beam(boards)
        pool = [int(g) for g in probes.tolist()]
        if guess not in pool:
            pool.append(guess)
        values = search.estimates(boards, pool, r)
        best_value = min(values)
        best = tuple(g for g, v in sorted(zip(pool, values), key=lambda gv: (gv[1], gv[0])) if v == best_value)
        next_value = None if after is None else self.level3_best(after, r - 1)
        return TurnValue("level3", best_value, values[pool.index(guess)], best[:5], next_value)

    def level3_best(self, boards, r: int) -> float:
        """The search's best estimate at ``boards`` with ``r`` turns left (0 when every board is
        solved; the loss cost when no turn is left)."""
        if not boards:
            return 0.0
        if r <= 0:
            return self.objective.loss_cost(len(boards))
        probes, _, _ = self.search.ranked_beam(boards)
        return min(self.search.estimates(boards, probes, r))


def expected_left(stats, boards, guess: int) -> float:
    """The candidates the unsolved ``boards`` keep after ``guess``, expected under the model
    (per board, the mass-weighted size of its groups; a solved board keeps none)."""
    total = 0.0
    for cands in boards:
        for code, members, mass in stats.split(np.asarray(cands, dtype=np.int64), guess):
            if code != stats.win_code:
                total += mass * len(members)
    return total
