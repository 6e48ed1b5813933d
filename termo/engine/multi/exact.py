"""Exact expectimax over product states of several boards (docs/modes-solver.md).

The model is the solvers' (`termo.engine.multi.level2`): every unsolved board hides one answer drawn from
its candidates with the prior renormalised over them, the boards independently. A state is the
tuple of the unsolved boards' candidate sets and the turns left; its value under an `Objective`
is the expected cost still to pay::

    V(∅, r) = 0;   V(S, 0) = loss_cost(|S|);
    V(S, r) = min over probes g of  turn_cost(|S|) + Σ_outcomes P(o) · V(S_o, r − 1)

where an outcome is one bucket per board (the win bucket solves that board), its probability the
product of the buckets' masses.

`MultiExact.prove` (and `solve`, which insists on a proof) runs the compiled branch and bound of
`backends.host_ops.multi_exact` over *every* probe of the game: a canonical state (the boards' candidate
sets as a multiset: no objective tells the boards apart), a memo, one probe per class of probes
that split every board alike, proved lower bounds (each board's own exact optimum, the count of
solving turns, a board's known answer played first) and the best strategy found as the upper
bound. The root is driven from here: its probes in ascending bound, each proved below the cutoff
(the best value found, or the sixth best when alternatives are asked) or proved not below it, in
slices of states so that a time or state budget stops it with the bracket reached.

With ``probes`` (a function of the boards giving the probes to try, as level 3's search passes),
the recursion is the plain Python expectimax over that pool at every state: level 3's decision
for small products, not a proof.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from termo.core.errors import TermoError
from termo.core.keys import candidate_key

EXACT_PRODUCT = 5_000  # joint answer tuples (Π |S_b|) above which level 3's pool search refuses a state
SLICE_NODES = 20_000  # states expanded per engine call between budget checks and progress lines
ALTERNATIVES = 5
POLICY_PRODUCT = 2_000_000  # joint tuples up to which the root first values the greedy strategy (the incumbent)


@dataclass
class JointResult:
    """What `MultiExact.prove` found for one state: values are the expected cost still to pay."""

    lower: float
    upper: float
    guess: int | None
    ranked: list = field(default_factory=list)  # [(probe, exact cost)] ascending, the best first
    proved: bool = False
    nodes: int = 0
    seconds: float = 0.0
    forced: bool = False
    counters: dict = field(default_factory=dict)

    @property
    def value(self) -> float:
        return self.upper

    @property
    def gap(self) -> float:
        return 0.0 if self.proved else self.upper - self.lower


class MultiExact:
    """Exact values of product states for one game (``stats``: a `BoardStats`) and objective."""

    def __init__(self, stats, objective, node_limit: int = 2_000_000, progress=None, probes=None,
                 memo_slots: int | None = None, max_boards: int = 8):
        self.stats = stats
        self.probes = probes  # None: every probe (proved); else boards -> the probes to try
        self.objective = objective
        self.memo: dict = {}
        self.nodes = 0
        self.node_limit = int(node_limit)
        self.progress = progress
        self.memo_slots = memo_slots
        self.max_boards = int(max_boards)
        self._engine = None
        self._rounds = 0

    # ----------------------------------------------------------------- the engine
    def engine(self, rounds: int = 0):
        """The compiled joint search (`backends.host_ops.multi_exact.MultiExactEngine`), built on first use."""
        if self._engine is None or rounds > self._rounds:
            self._engine = build_engine(self.stats, self.objective.name, max(int(rounds), 13), self.max_boards,
                                        self.memo_slots)
            self._rounds = max(int(rounds), 13)
        return self._engine

    # ----------------------------------------------------------------- values
    @staticmethod
    def state_key(boards, r: int):
        return (tuple(sorted(candidate_key(c) for c in boards)), int(r))

    def value(self, boards, r: int) -> float:
        """V(boards, r): the expected cost still to pay (see the module docstring)."""
        return self.solve(boards, r)[0]

    def solve(self, boards, r: int, alternatives: int = ALTERNATIVES):
        """(V, best probe or None, [(probe, cost)] ascending) for ``boards`` with ``r`` turns left:
        proved over every probe (the ranked list holds the ``alternatives + 1`` best), or over the
        pool of ``probes`` when one was given. TermoError when the state budget runs out."""
        if self.probes is not None:
            return self._pool_solve(tuple(np.asarray(c, dtype=np.int64) for c in boards), r)
        result = self.prove(boards, r, node_limit=self.node_limit, alternatives=alternatives)
        if not result.proved:
            raise TermoError(f"the exact search passed {self.node_limit:,} states: the state is too large",
                             "exact.joint_limit", {"nodes": self.node_limit})
        return result.upper, result.guess, result.ranked

    def prove(self, boards, r: int, time_limit: float | None = None, node_limit: int | None = None,
              alternatives: int = 0) -> JointResult:
        """The proved value of a state over every probe, or the bracket reached within
        ``time_limit`` seconds / ``node_limit`` expanded states (`JointResult`)."""
        started = time.monotonic()
        boards = [np.unique(np.asarray(c, dtype=np.int64)) for c in boards]
        boards = [c for c in boards if c.shape[0]]
        if not boards:
            return JointResult(0.0, 0.0, None, [], True)
        if r <= 0:
            v = self.objective.loss_cost(len(boards))
            return JointResult(v, v, None, [], True)
        root = _Root(self.engine(r), boards, int(r), alternatives, self.progress, started, time_limit, node_limit)
        return root.run()

    # ----------------------------------------------------------------- level 3's pool
    def probe_classes(self, boards) -> list[int]:
        """One probe per class of probes that split every board alike (among ``self.probes``
        when a subset was given, else every probe), classes that change nothing left out,
        ascending index."""
        members = np.concatenate([np.asarray(c, dtype=np.int64) for c in boards])
        codes = np.asarray(self.stats.matrix_t[members])  # N × probes
        pool = None if self.probes is None else self.probes(boards)
        if pool is not None:
            pool = np.asarray(pool, dtype=np.int64)
            codes = codes[:, pool]
        useful = np.any(codes == self.stats.win_code, axis=0)
        start = 0
        for cands in boards:
            n = int(len(cands))
            if n > 1:
                seg = codes[start:start + n]
                useful |= np.any(seg != seg[0], axis=0)
            start += n
        cols = np.flatnonzero(useful)
        if cols.shape[0] == 0:
            return []
        rows = np.ascontiguousarray(codes[:, cols].T)
        keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
        _, first = np.unique(keys, return_index=True)
        chosen = cols[np.sort(first)]
        return sorted(int(i) for i in (chosen if pool is None else pool[chosen]))

    def known(self, boards, r: int):
        """``(V, best, costs)`` of a state settled without a search (no board left, no turn
        left) or already in the memo; else None."""
        if not boards:
            return 0.0, None, []
        if r <= 0:
            return self.objective.loss_cost(len(boards)), None, []
        return self.memo.get(self.state_key(boards, r))

    def _pool_solve(self, boards, r: int):
        hit = self.known(boards, r)
        if hit is not None:
            return hit
        key = self.state_key(boards, r)
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise TermoError(f"the exact search passed {self.node_limit:,} states: the state is too large",
                             "exact.joint_limit", {"nodes": self.node_limit})
        costs = [(g, self.probe_cost(boards, g, r)) for g in self.probe_classes(boards)]
        costs.sort(key=lambda gc: (gc[1], gc[0]))
        out = (costs[0][1], costs[0][0], costs)
        self.memo[key] = out
        return out

    def probe_cost(self, boards, g: int, r: int) -> float:
        """turn_cost + the expectation over joint outcomes of the value after ``g`` (the pool's)."""
        win = self.stats.win_code
        per_board = [self.stats.split(c, g) for c in boards]
        total = 0.0
        for combo in itertools.product(*per_board):
            p = 1.0
            nxt = []
            for code, members, mass in combo:
                p *= mass
                if code != win:
                    nxt.append(members)
            if p > 0.0:
                total += p * self._pool_solve(tuple(nxt), r - 1)[0]
        return self.objective.turn_cost(len(boards)) + total


class _Root:
    """The root of a proof, driven probe by probe (see `MultiExact.prove`)."""

    def __init__(self, engine, boards, r, alternatives, progress, started, time_limit, node_limit):
        self.engine, self.boards, self.r = engine, boards, r
        self.keep = 1 + max(int(alternatives), 0)
        self.progress, self.started = progress, started
        self.deadline = None if time_limit is None else started + float(time_limit)
        self.node_end = None if node_limit is None else engine.nodes + int(node_limit)
        self.nodes0 = engine.nodes
        self.exact: dict = {}  # probe -> exact cost
        self.incumbent = None  # (probe, value) of the greedy strategy: an upper bound
        self.last_report = 0

    def out_of_budget(self) -> bool:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return True
        return self.node_end is not None and self.engine.nodes >= self.node_end

    def cutoff(self) -> float:
        values = sorted(self.exact.values())
        cut = values[self.keep - 1] if len(values) >= self.keep else math.inf
        if self.keep == 1 and self.incumbent is not None:
            cut = min(cut, self.incumbent[1])
        return cut

    def order(self):
        """The probes to try, one per class, in ascending (bound, split, index); the forced answer
        first when a board has one candidate left."""
        lbs, tie, hsh, valid = self.engine.probe_bounds(self.boards, self.r)
        idx = np.flatnonzero(valid)
        idx = idx[np.lexsort((idx, tie[idx], lbs[idx]))]
        _, first = np.unique(hsh[idx], return_index=True)
        idx = idx[np.sort(first)]
        forced = self.engine.forced(self.boards)
        if forced >= 0:
            idx = np.concatenate([[forced], idx[idx != forced]])
        return [int(g) for g in idx], lbs, forced

    def run(self) -> JointResult:
        order, lbs, forced = self.order()
        if self.keep == 1 and joint_product(self.boards) <= POLICY_PRODUCT:
            value, guess = self.engine.policy_value(self.boards, self.r)  # a known answer first, if any
            self.incumbent = (guess, value)
        if forced >= 0 and self.keep == 1:
            order = [forced]  # a board's known answer first is optimal (docs/modes-solver.md)
        order = self.refine(order, lbs)
        for pos, (g, bound) in enumerate(order):
            if bound >= self.cutoff():
                break
            done, v = self.settle(g, bound, self.cutoff(), pos, len(order))
            self.report(pos, len(order))
            if not done:
                rest = [b for _, b in order[pos + 1:]]
                return self.result(forced, min([v] + rest))
            if self.out_of_budget():  # checked between probes too: most are settled within a slice
                rest = [b for _, b in order[pos + 1:] if b < self.cutoff()]
                if rest:
                    return self.result(forced, min(rest))
        return self.result(forced, None)

    def refine(self, order, lbs):
        """The probes below the cutoff by their one-pass bound, each bounded one level down (in the
        kernel, no state expanded; exact ones kept): [(probe, bound)] ascending, ties by the
        one-pass order."""
        cut = self.cutoff()
        todo = [g for g in order if lbs[g] < cut]
        bounds, exact = self.engine.refined_bounds(self.boards, self.r, todo, limit=cut)
        out = []
        for pos, (g, v, ex) in enumerate(zip(todo, bounds.tolist(), exact.tolist())):
            if ex:
                self.exact[g] = v
            elif v < cut:
                out.append((v, pos, g))
        out.sort()
        return [(g, v) for v, _, g in out]

    def settle(self, g, bound, cut, pos, total):
        """Prove probe ``g``'s cost below ``cut`` or not below it, a slice at a time (never past the
        state budget): (done, bound)."""
        while True:
            left = SLICE_NODES if self.node_end is None else min(SLICE_NODES, self.node_end - self.engine.nodes)
            if left <= 0:
                return False, bound
            v, ex = self.engine.probe_cost(self.boards, self.r, g, limit=cut, budget=left)
            if ex:
                self.exact[g] = v
                return True, v
            if not self.engine.aborted:
                return True, v
            self.report(pos, total, force=True)
            if self.out_of_budget():
                return False, max(v, bound)

    def report(self, pos, total, force: bool = False) -> None:
        if self.progress is None or (not force and pos - self.last_report < 64):
            return
        self.last_report = pos
        _, upper = self.best()
        self.progress(f"{pos + 1:,} of {total:,} first guesses, {self.engine.nodes - self.nodes0:,} states, "
                      f"best so far {upper:.6f}")

    def best(self):
        """(probe, value) of the best strategy found (None, inf when none)."""
        ranked = sorted(self.exact.items(), key=lambda gc: (gc[1], gc[0]))
        best = ranked[0] if ranked else (None, math.inf)
        if self.incumbent is not None and self.incumbent[1] < best[1]:
            best = self.incumbent
        return best

    def result(self, forced, pending) -> JointResult:
        ranked = sorted(self.exact.items(), key=lambda gc: (gc[1], gc[0]))
        guess, upper = self.best()
        if self.keep == 1:
            ranked = [(guess, upper)] if guess is not None else []
        if pending is None:
            lower = upper
        elif forced >= 0 and forced in self.exact:
            lower = self.exact[forced]
        else:
            lower = min(upper, pending)
        proved = pending is None or lower >= upper
        return JointResult(lower, upper, guess, ranked[: self.keep], proved, self.engine.nodes - self.nodes0,
                           time.monotonic() - self.started, forced >= 0, self.engine.counters())


def build_engine(stats, objective: str, max_rounds: int, max_boards: int, memo_slots=None):
    """The compiled joint search over ``stats``' game, prior and probes-major matrix."""
    from backends.host_ops.multi_exact import MultiExactEngine
    from termo.games.base import EXACT

    game = stats.game
    prior = np.asarray(stats.prior, dtype=np.float64)[: game.n_answers]
    uniform = bool(np.all(prior == prior[0]))
    weights = np.ones_like(prior) if uniform else prior
    classes = np.arange(game.n_answers, dtype=np.int64)
    if game.win_rule != EXACT:
        keys = game.probe_win_keys[: game.n_answers]
        ids: dict = {}
        classes = np.asarray([ids.setdefault(k, len(ids)) for k in keys], dtype=np.int64)
    probes_major = np.ascontiguousarray(np.asarray(stats.matrix)[:, : game.n_answers])
    answers_major = np.ascontiguousarray(np.asarray(stats.matrix_t)[: game.n_answers])
    options = {} if memo_slots is None else {"memo_slots": int(memo_slots)}
    return MultiExactEngine(probes_major, answers_major, weights, classes, win_code=game.win_code, n_codes=game.n_patterns,
                            objective=objective, max_rounds=max_rounds, max_boards=max_boards,
                            exact_rule=game.win_rule == EXACT, **options)


def joint_product(boards) -> int:
    out = 1
    for c in boards:
        out *= max(int(len(c)), 1)
    return out
