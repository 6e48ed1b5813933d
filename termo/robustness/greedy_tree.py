"""Exact expected number of guesses of many openers at once, greedy level-2 tail (rules §6.1–§6.2).

For an opener ``g`` the value is ``E(g) = cost(g, A, rounds - 1)`` with every later guess the
first probe of the level-2 ordering (§5.2) under the column's prior (``follow_up="entropy"``; the
``"candidates-remaining"`` follow-up picks ``top(S)`` among the candidates instead, see
``FOLLOW_UPS``):

    V(S, r) = loss                      if r ≤ 0
            = 1                         if |S| = 1
            = 1 + f · w_min / Σw          if |S| = 2   (f = 1 if r ≥ 2 else loss)
            = cost(top(S), S, r - 1)     otherwise
    cost(g, S, r) = ∞ if g leaves S whole, else 1 + Σ_{b ≠ win} P(b|S) · V(S_b, r)

The evaluation is level-synchronous (performance notes §3): all states of one depth, over all
openers of the batch, are expanded together; states are deduplicated; the entropy sweeps of a
depth run as one batched backend call (``Backend.best_probes``: compiled host kernels on NumPy,
the picks reduced on the device on JAX/CuPy); partitions and values are the exact host
bookkeeping of ``backends.host_ops.search``, reduced bottom-up.
Two caches live as long as the evaluator (one evaluator per prior): the chosen probe of a state
(independent of the rounds left) and ``V(S, r)``. They only save time: results never depend on
what is cached.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from backends import get_backend, host
from backends.host_ops import search as host_search
from termo.core.keys import candidate_key
from termo.engine.tree_search import LOSS_COST
from termo.worlds.world import termo_defaults
from termo.robustness import win_rule

LOSS = LOSS_COST  # value of running out of rounds, on top of the guesses already counted (§6.1)

# The follow-up's guess in a state of three or more candidates. "entropy" (the default): the first
# probe of the §5.2 order over the whole probe space. "candidates-remaining": a candidate only,
# the one that leaves the fewest answers unsolved on average (Σ n_b² over its non-winning
# buckets, counts), then the §5.2 chain (entropy, prior, index): the follow-up of NerdleBuddy's
# published Nerdle opener table (docs/openers.md).
FOLLOW_UPS = ("entropy", "candidates-remaining")

# numba's default threading layer must not be entered by two threads at once (a threaded Dask
# worker, say): evaluations in one process take turns; each one is parallel inside.
_KERNEL_LOCK = threading.Lock()


@dataclass
class TreeStats:
    """Counters of the last evaluations (for benchmarks and progress)."""

    states: int = 0  # internal states met (after deduplication within a batch)
    value_hits: int = 0  # internal states whose value came from the cache
    choice_hits: int = 0  # new states whose chosen probe came from the cache
    swept: int = 0  # states whose chosen probe needed a kernel call
    levels: int = 0


@dataclass
class GreedyTreeEvaluator:
    """Evaluates ``E(opener)`` exactly, many openers per call, for one prior.

    ``matrix`` is the (probes × answers) pattern matrix (host NumPy array); ``prior`` the answer
    weights (the root set is every answer with its weight; zero weights are allowed);
    ``probe_prior`` the tie-break prior per probe (default: ``prior`` padded with zeros, as the
    rules §11 notes: the column's own prior). ``backend`` runs the entropy sweeps.
    """

    matrix: object
    prior: object
    probe_prior: object = None
    rounds: int | None = None  # None: Termo's turn limit (6)
    loss: float = LOSS
    backend: object = None
    cache_limit: int = 4_000_000
    n_patterns: int | None = None  # None: Termo's pattern count (243)
    follow_up: str = "entropy"  # one of FOLLOW_UPS
    stats: TreeStats = field(default_factory=TreeStats)

    def __post_init__(self) -> None:
        self.rounds, self.n_patterns = termo_defaults(self.rounds, self.n_patterns)
        if self.follow_up not in FOLLOW_UPS:
            raise ValueError(f"follow_up must be one of {', '.join(FOLLOW_UPS)}, not {self.follow_up!r}")
        xp = host().xp
        self._xp = xp
        self.matrix = host().to_numpy(self.matrix)
        n_probes, n_answers = self.matrix.shape
        self.prior = xp.asarray(self.prior, dtype=xp.float64)
        if self.prior.shape[0] != n_answers:
            raise ValueError(f"prior has {self.prior.shape[0]} weights for {n_answers} answers")
        if self.probe_prior is None:
            pad = xp.zeros((n_probes - n_answers,), dtype=xp.float64)
            self.probe_prior = xp.concat([self.prior, pad])
        self.probe_prior = xp.asarray(self.probe_prior, dtype=xp.float64)
        self.backend = get_backend(self.backend)
        self.n_bins = int(self.n_patterns)
        self.win_code = self.n_bins - 1
        self._values: dict = {}
        self._choices: dict = {}
        self._plan = None  # what the backend's best_probes reads for this prior, built on first use
        self._host_plan = None  # the same for the host's probes_at_least (the win rule), on first use
        # a win rule beyond the exact one (Nerdle's commutative rule): some probe wins against an
        # answer other than itself, so a two-member state may be won by its first guess
        self._equivalent_wins = win_rule.has_equivalent_wins(self.matrix, n_answers, self.win_code)

    # ------------------------------------------------------------------------------------------

    def expected_values(self, openers) -> list[float]:
        """``E(g)`` for every probe index in ``openers`` (a list), in that order."""
        with _KERNEL_LOCK:
            return self._expected_values(openers)

    def _expected_values(self, openers) -> list[float]:
        xp = self._xp
        openers = [int(g) for g in openers]
        if not openers:
            return []
        n_answers = self.matrix.shape[1]
        root = xp.arange(n_answers, dtype=xp.int32)
        members = xp.concat([root] * len(openers))
        offsets = xp.asarray([i * n_answers for i in range(len(openers) + 1)], dtype=xp.int64)
        guesses = xp.asarray(openers, dtype=xp.int64)
        levels = []  # per depth: (n_parents, child_parent, child_prob, child_values, single, pending)
        n_parents = len(openers)
        r = self.rounds - 1
        while True:
            cm, co, cparent, cprob, single = host_search.partition_states(
                self.matrix, members, offsets, guesses, self.prior, self.win_code, self.n_bins
            )
            values = host_search.leaf_values(cm, co, self.prior, r, self.loss)
            if self._equivalent_wins and r >= 1:
                win_rule.won_pairs(self.matrix, self.prior, cm, co, values, self.win_code)
            internal = xp.nonzero(xp.isnan(values))[0]
            node_keys: list[bytes] = []
            node_index: dict = {}
            pending = []  # (child position, node id) whose value comes from the next depth
            node_first = []  # child position of each node's first occurrence
            cm_bytes = candidate_key(cm)  # every child's key at once: its slice is candidate_key(child)
            co_list = co.tolist()
            for k in internal.tolist():
                key = cm_bytes[8 * co_list[k] : 8 * co_list[k + 1]]
                cached = self._values.get((key, r))
                if cached is not None:
                    values[k] = cached
                    self.stats.value_hits += 1
                    continue
                nid = node_index.get(key)
                if nid is None:
                    nid = len(node_keys)
                    node_index[key] = nid
                    node_keys.append(key)
                    node_first.append(k)
                pending.append((k, nid))
            levels.append((n_parents, cparent, cprob, values, single, pending, node_keys, r))
            self.stats.states += len(node_keys)
            if not node_keys:
                break
            # members of the new nodes, in node order
            first = xp.asarray(node_first, dtype=xp.int64)
            sizes = co[first + 1] - co[first]
            offsets = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(sizes)])
            members = host_search.segment_positions(co, first, offsets)
            members = cm[members]
            guesses = self._choose(node_keys, members, offsets)
            n_parents = len(node_keys)
            r -= 1
        self.stats.levels = len(levels)
        # bottom-up
        node_values = None
        for n_par, cparent, cprob, values, single, pending, node_keys, r_level in reversed(levels):
            if node_values is not None:
                for k, nid in pending:
                    values[k] = node_values[nid]
            if len(self._values) > self.cache_limit:
                self._values.clear()
            if node_values is not None:
                for nid, key in enumerate(node_keys):
                    self._values[(key, r_level)] = float(node_values[nid])
            node_values = host_search.reduce_values(n_par, cparent, cprob, values, single)
        return [float(v) for v in node_values]

    def _choose(self, node_keys, members, offsets):
        """Chosen probe of every node: from the cache, else one batched kernel call."""
        xp = self._xp
        out = xp.empty((len(node_keys),), dtype=xp.int64)
        todo = []
        for i, key in enumerate(node_keys):
            g = self._choices.get(key)
            if g is None:
                todo.append(i)
            else:
                out[i] = g
                self.stats.choice_hits += 1
        if todo:
            t = xp.asarray(todo, dtype=xp.int64)
            sizes = offsets[t + 1] - offsets[t]
            sub_off = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(sizes)])
            sub = members[host_search.segment_positions(offsets, t, sub_off)]
            pick = self._candidate_picks if self.follow_up == "candidates-remaining" else self._entropy_picks
            best = pick(sub, sub_off)
            self.stats.swept += len(todo)
            if len(self._choices) > self.cache_limit:
                self._choices.clear()
            for j, i in enumerate(todo):
                g = int(best[j])
                out[i] = g
                self._choices[node_keys[i]] = g
        return out

    def _candidate_picks(self, sub, sub_off):
        """The candidates-only follow-up: one host kernel (its picks are members: no win-rule fix)."""
        best, _ = host_search.candidate_picks(self.matrix, sub, sub_off, self.prior, self.probe_prior, self.win_code,
                                            self.n_bins)
        return best

    def _entropy_picks(self, sub, sub_off):
        """The §5.2 first probe of every state: the backend's batched sweep, then the win rule's fix."""
        if self._plan is None:
            self._plan = self.backend.best_probe_plan(self.matrix, self.probe_prior)
        best, best_h = self.backend.best_probes(self._plan, sub, sub_off, self.prior, self.win_code, self.n_bins)
        if self._equivalent_wins:  # §5.2's candidates under the game's win rule (win_rule module)
            best = win_rule.candidates_first(self.matrix, sub, sub_off, self.prior, self.probe_prior, best,
                                             self.win_code, self.n_bins, best_h, self._near_top)
        return best

    def _near_top(self, state, floor_h):
        """Every probe with an entropy of at least ``floor_h`` over ``state`` (and maybe a few
        more), on the host (the win rule's recomputation is host work)."""
        ops = host()  # the NumPy backend's plan and picks
        if self._host_plan is None:
            same = self.backend is ops and self._plan is not None
            self._host_plan = self._plan if same else ops.best_probe_plan(self.matrix, self.probe_prior)
        return ops.probes_at_least(self._host_plan, state, self.prior, floor_h, self.win_code, self.n_bins)


def expected_value(matrix, prior, opener: int, rounds: int | None = None, backend=None) -> float:
    """Convenience: ``E`` of one opener (a fresh evaluator; ``rounds`` None: Termo's turn limit)."""
    return GreedyTreeEvaluator(matrix, prior, rounds=rounds, backend=backend).expected_values([opener])[0]


__all__ = ["GreedyTreeEvaluator", "TreeStats", "LOSS", "FOLLOW_UPS", "expected_value"]
