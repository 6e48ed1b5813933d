"""The level-3 value engine (rules §6): states, their sweeps, and the breadth-first evaluation.

:class:`TreeSearch` keeps the registry of candidate sets (states) and their memoised sweeps;
:meth:`TreeSearch.run` evaluates a batch of jobs together, one round level at a time, through
one :class:`_Expansion` (the nodes, pairs and buckets of that call), and then reduces the
values bottom-up. The recursion, the order of the work and the float conventions are described
in :mod:`termo.engine.level3`, which also holds the level-3 decision built on this engine.

Every step but the sweeps is exact host bookkeeping, the functions of
:mod:`backends.host_ops.search` (the same on every backend); the sweeps are the solver's backend's own.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from backends import host
from backends.host_ops import search as host_search

LOSS_COST = 7.0
SWEEP_CHUNKS = 16  # a big level's sweeps run in this many batches when progress is reported
PROGRESS_STEPS = 100  # progress units per round level

_xp = None


def _np():
    """The host array namespace (NumPy through the host backend)."""
    global _xp
    if _xp is None:
        _xp = host().xp
    return _xp


def _sweeper_backend(sweeper):
    """The backend of ``sweeper`` when it is the bound ``sweep`` of a
    `termo.engine.entropy.Sweeper` (else None)."""
    owner = getattr(sweeper, "__self__", None)
    return getattr(owner, "backend", None)


def _host_sweeper(sweeper) -> bool:
    """Is ``sweeper`` the bound ``sweep`` of a `termo.engine.entropy.Sweeper` whose backend sweeps on
    the host (then the tree's pruned host sweep gives the same lists, faster)?"""
    return bool(getattr(_sweeper_backend(sweeper), "host_tree_sweeps", False))


def _empty(dtype):
    return _np().zeros(0, dtype=dtype)


def _cat(parts, dtype):
    """The concatenation of a list of arrays (an empty one of ``dtype`` for no parts)."""
    return _np().concat(parts) if parts else _empty(dtype)


def _starts(sizes):
    """``[0, cumsum(sizes)...]``: the offsets of consecutive segments of these sizes."""
    xp = _np()
    return xp.concat([xp.zeros(1, dtype=xp.int64), xp.cumulative_sum(sizes)])


@dataclass
class PairJob:
    """Evaluate ``cost(g, S, r−1)`` for each guess g of ``guesses``, children at ``child_rest``."""

    state: int
    guesses: list
    rounds: int
    child_rest: int
    costs: list = field(default_factory=list)


@dataclass
class NodeJob:
    """Evaluate ``V(S, r)`` for the node (S, ``rest``)."""

    state: int
    rest: int
    rounds: int
    value: float = float("nan")


class TreeSearch:
    """The level-3 value engine for one prior (a new prior needs a new engine, rules §6.3).

    ``sweeper(members, offsets, state_ids, k) -> (indices (S,k), entropies (S,k))`` computes the
    first k probes of the §5.2 order of each state (on the solver's backend); everything else
    runs on the host. States and their sweeps persist across calls (a memo) up to ``max_states``.
    """

    def __init__(self, matrix_t, prior, probe_prior, win_code, beam=10, loss=LOSS_COST,
                 sweeper=None, max_states=1_000_000, host_sweeps=None):
        xp = _np()
        self.matrix_t = matrix_t
        self.prior = xp.asarray(prior, dtype=xp.float64)
        self.probe_prior = xp.asarray(probe_prior, dtype=xp.float64)
        self.win_code = int(win_code)
        self.beam = int(beam)
        self.loss = float(loss)
        self.sweeper = sweeper
        self.max_states = int(max_states)
        self.host_sweeps = _host_sweeper(sweeper) if host_sweeps is None else bool(host_sweeps)
        backend = _sweeper_backend(sweeper)
        # does the sweeper's backend sweep a lone set of n candidates apart from its batched sweep?
        self.sweeps_apart = getattr(backend, "sweeps_one_set_apart", host().sweeps_one_set_apart)
        self.progress = None  # the default progress(done, total) of `run` (see `reporting`)
        self.sweeps = 0
        self._reset_states()

    # -- states ---------------------------------------------------------------------------
    def _reset_states(self):
        xp = _np()
        self.table = host_search.id_table()
        self.members = xp.zeros(0, dtype=xp.int64)
        self.offsets = xp.zeros(1, dtype=xp.int64)
        self.n_states = 0
        self.top_idx = xp.zeros((0, self.beam), dtype=xp.int64)
        self.top_h = xp.zeros((0, self.beam), dtype=xp.float64)
        self.swept = xp.zeros(0, dtype=xp.int64)  # k of the sweep done (0: none)
        self.best = xp.zeros(0, dtype=xp.int64)

    def _append_states(self, cand_members, cand_offsets, firsts):
        xp = _np()
        if firsts.shape[0] == 0:
            return
        new_m, new_sizes = host_search.gather_segments(cand_members, cand_offsets, firsts)
        base = self.offsets[-1]
        new_off = base + xp.cumulative_sum(new_sizes)
        self.members = xp.concat([self.members, new_m])
        self.offsets = xp.concat([self.offsets, new_off])
        n = firsts.shape[0]
        self.n_states += n
        self.top_idx = xp.concat([self.top_idx, xp.full((n, self.beam), -1, dtype=xp.int64)])
        self.top_h = xp.concat([self.top_h, xp.zeros((n, self.beam), dtype=xp.float64)])
        self.swept = xp.concat([self.swept, xp.zeros(n, dtype=xp.int64)])
        self.best = xp.concat([self.best, xp.full(n, -1, dtype=xp.int64)])

    def register(self, lists, min_size=1):
        """State ids of candidate sets (each an ascending sequence of answer indices)."""
        xp = _np()
        if self.n_states > self.max_states:
            self._reset_states()
        arrays = [xp.asarray(c, dtype=xp.int64) for c in lists]
        sizes = xp.asarray([a.shape[0] for a in arrays], dtype=xp.int64)
        cand_members = xp.concat(arrays) if arrays else xp.zeros(0, dtype=xp.int64)
        return self.register_segments(cand_members, _starts(sizes), min_size)

    def register_segments(self, cand_members, cand_offsets, min_size=1):
        """State ids of the sets ``cand_members[cand_offsets[i]:cand_offsets[i+1]]`` (new ones
        are appended; sets smaller than ``min_size`` get no state)."""
        xp = _np()
        ids = xp.empty(cand_offsets.shape[0] - 1, dtype=xp.int64)
        firsts = host_search.register_states(self.table, self.members, self.offsets, self.n_states,
                                          cand_members, cand_offsets, ids, min_size)
        self._append_states(cand_members, cand_offsets, firsts)
        return ids

    def state_sizes(self, state_ids):
        """The number of candidates of each state."""
        return self.offsets[state_ids + 1] - self.offsets[state_ids]

    # -- sweeps ---------------------------------------------------------------------------
    def ensure_sweeps(self, state_ids, k=None, report=None):
        """Run the batched sweeps (first ``k`` probes, default the beam) of states lacking them;
        ``report(fraction)`` is called as chunks of a big batch finish."""
        xp = _np()
        k = self.beam if k is None else int(k)
        state_ids = xp.unique_values(xp.asarray(state_ids, dtype=xp.int64))
        todo = state_ids[self.swept[state_ids] < k]
        if todo.shape[0] == 0:
            return
        n = int(todo.shape[0])
        n_chunks = SWEEP_CHUNKS if (report is not None and n >= 16 * SWEEP_CHUNKS) else 1
        bounds = [n * c // n_chunks for c in range(n_chunks + 1)]
        for c in range(n_chunks):
            part = todo[bounds[c]:bounds[c + 1]]
            idx, ent = self._sweep(part, k)
            self.top_idx[part] = -1
            self.top_idx[part, :k] = idx[:, :k]
            self.top_h[part, :k] = ent[:, :k]
            if report is not None:
                report((c + 1) / n_chunks)
        self.swept[todo] = k
        self.best[todo] = host_search.most_probable_many(self.members, self.offsets, todo, self.prior)
        self.sweeps += int(todo.shape[0])

    def _sweep(self, state_ids, k):
        """The first k probes of each state: the tree's pruned host kernel, whose lists equal
        the NumPy sweeper's bit for bit, where the sweeper is the NumPy one (and not on its own
        path for one lone set, `backends.base.Backend.sweeps_one_set_apart`); else the sweeper."""
        if self.host_sweeps and not self._swept_apart(state_ids):
            return host_search.tree_sweep_top_k(self.matrix_t, self.members, self.offsets, state_ids,
                                             self.prior, self.probe_prior, k, self.win_code + 1)
        return self.sweeper(self.members, self.offsets, state_ids, k)

    def _swept_apart(self, state_ids) -> bool:
        """Is the batch one lone state that the sweeper's backend sweeps on a path of its own?"""
        return state_ids.shape[0] == 1 and bool(self.sweeps_apart(int(self.state_sizes(state_ids[0]))))

    def beam_of(self, sid, rest):
        """Guesses tried at a node: top-K + most probable candidate (rest > 0), else the top 1."""
        self.ensure_sweeps([sid])
        return self.guesses(sid, rest)

    def guesses(self, sid, rest):
        """`beam_of` for a state already swept to the beam."""
        top = [int(g) for g in self.top_idx[sid] if g >= 0]
        if rest == 0:
            return top[:1]
        best = int(self.best[sid])
        if best not in top:
            top.append(best)
        return top

    # -- evaluation -----------------------------------------------------------------------
    @contextlib.contextmanager
    def reporting(self, progress):
        """Within the block, `run` calls without a progress callback of their own report to
        ``progress(done, total)`` (None: no report); the previous default is restored after."""
        before = self.progress
        self.progress = progress
        try:
            yield self
        finally:
            self.progress = before

    def run(self, jobs, progress=None):
        """Evaluate a batch of ``PairJob``/``NodeJob`` together (shared expansion); fills them in.
        ``progress(done, total)`` (default: the one set by `reporting`) is called as the round
        levels and the chunks of their sweeps finish."""
        if not jobs:
            return jobs
        if progress is None:
            progress = self.progress
        r_top = max(j.rounds for j in jobs)
        expansion = _Expansion(self, r_top)
        expansion.add_jobs(jobs)
        for done, r in enumerate(range(r_top, 0, -1)):
            expansion.expand(r, *_level_reports(progress, done, r_top))
            if progress is not None:
                progress((done + 1) * PROGRESS_STEPS, r_top * PROGRESS_STEPS)
        expansion.fill(jobs, expansion.values())
        self.last_stats = {"nodes": expansion.n_nodes, "pairs": expansion.n_pairs,
                           "buckets": expansion.n_buckets, "states": self.n_states, "sweeps": self.sweeps}
        return jobs


def _level_reports(progress, done: int, r_top: int):
    """The sweep reports ``(beam, greedy)`` of the round level after ``done`` finished ones:
    fractions of a level's sweeps as progress units (the beam's sweeps the first 40 of the
    level's `PROGRESS_STEPS`, the greedy ones the next 50); (None, None) without progress."""
    if progress is None:
        return None, None
    base = done * PROGRESS_STEPS
    total_units = r_top * PROGRESS_STEPS

    def report_beam(frac):
        progress(base + int(frac * 40), total_units)

    def report_greedy(frac):
        progress(base + 40 + int(frac * 50), total_units)

    return report_beam, report_greedy


class _Expansion:
    """The nodes, pairs and buckets of one `TreeSearch.run` call, grown level by level.

    A node is (state, rest) with the highest round level it is asked at (``rmax``); the nodes
    of three or more candidates are queued on the frontier of that level. Expanding a level
    sweeps its frontier, lists its (node, guess) pairs and the jobs' own pairs, partitions them
    all at once and registers the children (states, then nodes one level down). The pairs and
    buckets are recorded in lists of per-level chunks for the bottom-up reduction."""

    def __init__(self, tree: TreeSearch, r_top: int):
        self.tree = tree
        self.r_top = r_top
        self.node_table = host_search.id_table()
        self.node_state, self.node_rest, self.node_rmax = [], [], []
        self.n_nodes = 0
        self.frontier = {r: [] for r in range(r_top + 1)}
        self.pair_jobs = {r: [] for r in range(r_top + 1)}
        self.pair_single, self.pair_blo, self.pair_bhi = [], [], []
        self.bucket_child, self.bucket_prob = [], []
        self.node_plo = {}  # level -> (frontier nodes, their first pair, one past their last)
        self.n_pairs = 0
        self.n_buckets = 0

    # -- nodes ----------------------------------------------------------------------------
    def add_nodes(self, states, rests, rmax):
        """Node ids of (state, rest) pairs; new nodes are asked at ``rmax`` (queued if >= 3 candidates)."""
        xp = _np()
        states = xp.asarray(states, dtype=xp.int64)
        rests = xp.asarray(rests, dtype=xp.int64)
        ids, firsts = host_search.register_nodes(self.node_table, self.n_nodes, states, rests)
        k = firsts.shape[0]
        if k:
            ns = states[firsts]
            self.node_state.append(ns)
            self.node_rest.append(rests[firsts])
            self.node_rmax.append(xp.full(k, rmax, dtype=xp.int64))
            if rmax >= 1:
                big = xp.nonzero(self.tree.state_sizes(ns) >= 3)[0]
                self.frontier[rmax].append(self.n_nodes + big)
            self.n_nodes += k
        return ids

    def add_jobs(self, jobs):
        """A `NodeJob` becomes a node at its rounds; a `PairJob` waits for its round level."""
        for job in jobs:
            if isinstance(job, NodeJob):
                job._node = int(self.add_nodes([job.state], [job.rest], job.rounds)[0])
            else:
                self.pair_jobs[job.rounds].append(job)

    # -- one round level ------------------------------------------------------------------
    def expand(self, r, report_beam=None, report_greedy=None):
        """Expand the frontier of round level ``r`` (and the pair jobs of that level)."""
        xp = _np()
        tree = self.tree
        fr = _cat(self.frontier[r], xp.int64)
        fr_states = _cat(self.node_state, xp.int64)[fr]
        fr_rests = _cat(self.node_rest, xp.int64)[fr]
        tree.ensure_sweeps(fr_states[fr_rests > 0], tree.beam, report=report_beam)
        tree.ensure_sweeps(fr_states[fr_rests == 0], 1, report=report_greedy)
        pstate, pguess, prest, per_node = self._pairs(r, fr, fr_states, fr_rests)
        self._partition(r, pstate, pguess, prest)
        if fr.shape[0]:  # node -> pair ranges for frontier nodes (pairs were emitted node by node)
            lo = self.n_pairs + _starts(per_node)[:-1]
            self.node_plo[r] = (fr, lo, lo + per_node)
        self.n_pairs += int(pstate.shape[0])

    def _pairs(self, r, fr, fr_states, fr_rests):
        """The level's (state, guess, child rest) pairs: the frontier's beams node by node, then
        each pair job's guesses (the job remembers where its pairs start); and the number of
        pairs of each frontier node."""
        xp = _np()
        tree = self.tree
        ps, pg, owner_rest, per_node = host_search.level_pairs(fr, fr_states, fr_rests, tree.top_idx, tree.best)
        states, guesses, rests = [ps], [pg], [xp.maximum(owner_rest - 1, 0)]
        listed = int(ps.shape[0])
        for job in self.pair_jobs[r]:
            job._pair_lo = self.n_pairs + listed
            gs = xp.asarray(job.guesses, dtype=xp.int64)
            states.append(xp.full(gs.shape[0], job.state, dtype=xp.int64))
            guesses.append(gs)
            rests.append(xp.full(gs.shape[0], job.child_rest, dtype=xp.int64))
            listed += int(gs.shape[0])
        return xp.concat(states), xp.concat(guesses), xp.concat(rests), per_node

    def _partition(self, r, pstate, pguess, prest):
        """Partition every pair at once; register the buckets as states (two or more
        candidates) and as nodes asked at ``r − 1``; record the pairs' bucket ranges."""
        xp = _np()
        tree = self.tree
        nb, single, out_members, out_size, out_prob = host_search.partition_pairs(
            tree.matrix_t, tree.members, tree.offsets, pstate, pguess, tree.win_code, tree.prior)
        bstart = _starts(nb)
        child_states = tree.register_segments(out_members, _starts(out_size), 2)
        child_nodes = self.add_nodes(child_states, xp.repeat(prest, nb), r - 1)
        self.pair_single.append(single)
        self.pair_blo.append(self.n_buckets + bstart[:-1])
        self.pair_bhi.append(self.n_buckets + bstart[1:])
        self.bucket_child.append(child_nodes)
        self.bucket_prob.append(out_prob)
        self.n_buckets += int(bstart[-1])

    # -- values ---------------------------------------------------------------------------
    def values(self):
        """``V(node, r)`` for every node and round level (NaN where not asked), reduced
        bottom-up in ascending state size; with the pair and bucket arrays (for `fill`)."""
        xp = _np()
        tree = self.tree
        node_state = _cat(self.node_state, xp.int64)
        node_rmax = _cat(self.node_rmax, xp.int64)
        node_pair_lo = xp.zeros(self.n_nodes, dtype=xp.int64)
        node_pair_hi = xp.zeros(self.n_nodes, dtype=xp.int64)
        for fr, lo, hi in self.node_plo.values():
            node_pair_lo[fr] = lo
            node_pair_hi[fr] = hi
        node_size = tree.state_sizes(node_state)
        order = xp.argsort(node_size, stable=True)
        vals = xp.full((self.n_nodes, self.r_top + 1), xp.nan, dtype=xp.float64)
        pairs = (_cat(self.pair_single, xp.bool), _cat(self.pair_blo, xp.int64), _cat(self.pair_bhi, xp.int64),
                 _cat(self.bucket_child, xp.int64), _cat(self.bucket_prob, xp.float64))
        host_search.node_values(order, node_size, node_state, node_rmax, node_pair_lo, node_pair_hi, *pairs,
                             tree.members, tree.offsets, tree.prior, tree.loss, self.r_top, vals, tree.matrix_t,
                             tree.win_code)
        return vals, pairs

    def fill(self, jobs, values):
        """Write each job's result: a node job's value, a pair job's costs."""
        xp = _np()
        vals, pairs = values
        for job in jobs:
            if isinstance(job, NodeJob):
                job.value = float(vals[job._node, job.rounds])
            else:
                idx = xp.arange(job._pair_lo, job._pair_lo + len(job.guesses), dtype=xp.int64)
                costs = host_search.pair_costs(idx, job.rounds, *pairs, self.tree.loss, vals)
                job.costs = [float(c) for c in costs]
