"""Exact expectimax over product states of several boards (docs/modes-solver.md).

The model is the solvers' (`termo.engine.multi.level2`): every unsolved board hides one answer drawn from
its candidates with the prior renormalised over them, the boards independently. A state is the
tuple of the unsolved boards' candidate sets and the turns left; its value under an `Objective`
is the expected cost still to pay::

    V(∅, r) = 0;   V(S, 0) = loss_cost(|S|);
    V(S, r) = min over probes g of  turn_cost(|S|) + Σ_outcomes P(o) · V(S_o, r − 1)

where an outcome is one bucket per board (the win bucket solves that board), its probability the
product of the buckets' masses. The probes tried are *every* probe of the game, grouped into
classes that split every board the same way (one representative each: the lowest index); a class
that splits no board and solves none is left out (a turn that changes nothing costs at least as
much as not playing it, and every cost here is non-negative). So the value is proved for the
model. Values and the state memo are keyed by the sorted candidate sets (the boards' order does
not change any of the three objectives).
"""

from __future__ import annotations

import itertools

import numpy as np

from termo.core.errors import TermoError
from termo.core.keys import candidate_key

EXACT_PRODUCT = 5_000  # joint answer tuples (Π |S_b|) above which `MultiExact` refuses a state


class MultiExact:
    """Exact values of product states for one game (``stats``: a `BoardStats`) and objective."""

    def __init__(self, stats, objective, node_limit: int = 2_000_000, progress=None, probes=None):
        self.stats = stats
        self.probes = probes  # None: every probe (proved); else boards -> the probes to try
        self.objective = objective
        self.memo: dict = {}
        self.nodes = 0
        self.node_limit = int(node_limit)
        self.progress = progress

    # ----------------------------------------------------------------- probes
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

    # ----------------------------------------------------------------- values
    @staticmethod
    def state_key(boards, r: int):
        return (tuple(sorted(candidate_key(c) for c in boards)), int(r))

    def value(self, boards, r: int) -> float:
        """V(boards, r): the expected cost still to pay (see the module docstring)."""
        return self.solve(boards, r)[0]

    def solve(self, boards, r: int):
        """(V, best probe or None, [(probe, cost)] ascending) for ``boards`` with ``r`` turns left."""
        boards = tuple(np.asarray(c, dtype=np.int64) for c in boards)
        if not boards:
            return 0.0, None, []
        if r <= 0:
            return self.objective.loss_cost(len(boards)), None, []
        key = self.state_key(boards, r)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
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
        """turn_cost + the expectation over joint outcomes of the value after ``g``."""
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
                total += p * self.solve(nxt, r - 1)[0]
        return self.objective.turn_cost(len(boards)) + total


def joint_product(boards) -> int:
    out = 1
    for c in boards:
        out *= max(int(len(c)), 1)
    return out
