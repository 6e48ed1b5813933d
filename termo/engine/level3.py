"""Level 3: the expected number of guesses, searched over a beam (rules §6), level by level.

The recursion of §6.1 (``V(S, r)``: loss cost 7 when no round is left, 1 for a single candidate,
the two-candidate formula, else the minimum over the beam of ``1 + Σ_b P(b|S)·V(S_b, r−1)``) is
evaluated *breadth first* instead of depth first:

1. Work is organised by ``r`` (rounds left, including the current one), from the highest down.
   A node is a pair (candidate set S, ``rest`` = remaining search depth); ``rest > 0`` nodes try
   the beam (first K probes of the §5.2 order plus the most probable candidate), ``rest = 0``
   nodes the single top probe (the greedy tail). Children get ``max(rest−1, 0)``.
2. All nodes of one ``r`` are expanded together: their states' entropy sweeps run as one
   batched computation (states deduplicated by a verified hash, sweeps cached across calls),
   every (node, guess) pair is partitioned at once, children are registered (deduplicated)
   and queued at ``r − 1``. A node first met at ``r`` is never needed at a higher ``r`` later,
   because higher levels are finished first.
3. Values are then reduced bottom-up, in ascending state size (children are strict subsets),
   for every ``r`` a node can be asked for, in float64 on the host.

Float conventions (they reproduce the reference's 3.0094161966572304 bit for bit; see the tree
kernels behind ``backends.host_ops`` and ``docs/solver.md``): bucket probabilities
``sum(prior[S_b]) / sum(prior[S])`` with NumPy's pairwise sums over ascending members; buckets in
ascending pattern code; the cost accumulated sequentially from 0 and then added to 1; the
two-candidate value ``1 + f·(w_min/(w_0+w_1))``.
The exact minimum over the beam is taken, so the reference's pruning does not change any value.

Every step but the sweeps is exact host bookkeeping, reached as methods of the host backend
(:class:`backends.host_ops.HostSearchOps`); the sweeps are the solver's backend's own (on JAX or
CuPy the frontier's sweeps and their §5.2 top-k run on the device, one result per batch).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from backends import host
from termo.engine.entropy import BIG_SET

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


def _host_sweeper(sweeper) -> bool:
    """Is ``sweeper`` the bound ``sweep`` of a `termo.engine.entropy.Sweeper` whose backend sweeps on
    the host (then the tree's pruned host sweep gives the same lists, faster)?"""
    owner = getattr(sweeper, "__self__", None)
    return bool(getattr(getattr(owner, "backend", None), "host_tree_sweeps", False))


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
        self.ops = host()  # the exact host bookkeeping (registries, partitions, values)
        self.progress = None  # the default progress(done, total) of `run` (see `reporting`)
        self.sweeps = 0
        self._reset_states()

    # -- states ---------------------------------------------------------------------------
    def _reset_states(self):
        xp = _np()
        self.table = self.ops.id_table()
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
        new_m, new_sizes = self.ops.gather_segments(cand_members, cand_offsets, firsts)
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
        cand_offsets = xp.concat([xp.zeros(1, dtype=xp.int64), xp.cumulative_sum(sizes)])
        cand_members = xp.concat(arrays) if arrays else xp.zeros(0, dtype=xp.int64)
        ids = xp.empty(len(arrays), dtype=xp.int64)
        firsts = self.ops.register_states(self.table, self.members, self.offsets, self.n_states,
                                          cand_members, cand_offsets, ids, min_size)
        self._append_states(cand_members, cand_offsets, firsts)
        return ids

    def state_members(self, sid):
        return self.members[int(self.offsets[sid]):int(self.offsets[sid + 1])]

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
        self.best[todo] = self.ops.most_probable_many(self.members, self.offsets, todo, self.prior)
        self.sweeps += int(todo.shape[0])

    def _sweep(self, state_ids, k):
        """The first k probes of each state: the tree's pruned host kernel, whose lists equal
        the NumPy sweeper's bit for bit, where the sweeper is the NumPy one (and not on its
        exact-order path for one big set); else the sweeper itself."""
        if self.host_sweeps:
            single = state_ids.shape[0] == 1
            if not (single and int(self.offsets[state_ids[0] + 1] - self.offsets[state_ids[0]]) > BIG_SET):
                return self.ops.tree_sweep_top_k(self.matrix_t, self.members, self.offsets, state_ids,
                                                 self.prior, self.probe_prior, k, self.win_code + 1)
        return self.sweeper(self.members, self.offsets, state_ids, k)

    def beam_of(self, sid, rest):
        """Guesses tried at a node: top-K + most probable candidate (rest > 0), else the top 1."""
        self.ensure_sweeps([sid])
        return self._guesses(sid, rest)

    def _guesses(self, sid, rest):
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
        xp = _np()
        if not jobs:
            return jobs
        if progress is None:
            progress = self.progress
        r_top = max(j.rounds for j in jobs)
        ops = self.ops
        node_table = ops.id_table()
        # growing per-call arrays (lists of chunks)
        node_state, node_rest, node_rmax = [], [], []
        n_nodes = 0
        frontier = {r: [] for r in range(r_top + 1)}
        pair_jobs = {r: [] for r in range(r_top + 1)}

        def add_nodes(states, rests, rmax):
            nonlocal n_nodes
            states = xp.asarray(states, dtype=xp.int64)
            rests = xp.asarray(rests, dtype=xp.int64)
            ids, firsts = ops.register_nodes(node_table, n_nodes, states, rests)
            k = firsts.shape[0]
            if k:
                ns = states[firsts]
                node_state.append(ns)
                node_rest.append(rests[firsts])
                node_rmax.append(xp.full(k, rmax, dtype=xp.int64))
                if rmax >= 1:
                    sizes = self.offsets[ns + 1] - self.offsets[ns]
                    big = xp.nonzero(sizes >= 3)[0]
                    frontier[rmax].append(n_nodes + big)
                n_nodes += k
            return ids

        for job in jobs:
            if isinstance(job, NodeJob):
                job._node = int(add_nodes([job.state], [job.rest], job.rounds)[0])
            else:
                pair_jobs[job.rounds].append(job)

        pair_state_l, pair_guess_l, pair_single_l = [], [], []
        pair_blo_l, pair_bhi_l = [], []
        bucket_child_l, bucket_prob_l = [], []
        node_plo = {}
        n_pairs = 0
        n_buckets = 0
        done_levels = 0
        for r in range(r_top, 0, -1):
            fr = xp.concat(frontier[r]) if frontier[r] else xp.zeros(0, dtype=xp.int64)
            states_all = xp.concat(node_state) if node_state else xp.zeros(0, dtype=xp.int64)
            rests_all = xp.concat(node_rest) if node_rest else xp.zeros(0, dtype=xp.int64)
            fr_states = states_all[fr]
            fr_rests = rests_all[fr]
            report_beam = report_greedy = None
            if progress is not None:
                base = done_levels * PROGRESS_STEPS
                total_units = r_top * PROGRESS_STEPS

                def report_beam(frac, base=base, total_units=total_units):
                    progress(base + int(frac * 40), total_units)

                def report_greedy(frac, base=base, total_units=total_units):
                    progress(base + 40 + int(frac * 50), total_units)

            self.ensure_sweeps(fr_states[fr_rests > 0], self.beam, report=report_beam)
            self.ensure_sweeps(fr_states[fr_rests == 0], 1, report=report_greedy)
            # pairs of this level
            ps, pg, owner_rest, per_node = ops.level_pairs(fr, fr_states, rests_all[fr], self.top_idx,
                                                           self.best)
            lvl_pair_state = [ps]
            lvl_pair_guess = [pg]
            lvl_child_rest = [xp.maximum(owner_rest - 1, 0)]
            for job in pair_jobs[r]:
                job._pair_lo = n_pairs + int(sum(int(a.shape[0]) for a in lvl_pair_state))
                gs = xp.asarray(job.guesses, dtype=xp.int64)
                lvl_pair_state.append(xp.full(gs.shape[0], job.state, dtype=xp.int64))
                lvl_pair_guess.append(gs)
                lvl_child_rest.append(xp.full(gs.shape[0], job.child_rest, dtype=xp.int64))
            pstate = xp.concat(lvl_pair_state)
            pguess = xp.concat(lvl_pair_guess)
            prest = xp.concat(lvl_child_rest)
            # partition all pairs at once
            nb, single, out_members, out_size, out_prob = ops.partition_pairs(
                self.matrix_t, self.members, self.offsets, pstate, pguess, self.win_code, self.prior)
            bstart = xp.concat([xp.zeros(1, dtype=xp.int64), xp.cumulative_sum(nb)])
            total_b = int(bstart[-1])
            # children: states then nodes
            cand_offsets = xp.concat([xp.zeros(1, dtype=xp.int64), xp.cumulative_sum(out_size)])
            cand_members = out_members
            child_states = xp.empty(total_b, dtype=xp.int64)
            firsts = ops.register_states(self.table, self.members, self.offsets, self.n_states,
                                         cand_members, cand_offsets, child_states, 2)
            self._append_states(cand_members, cand_offsets, firsts)
            bucket_rest = xp.repeat(prest, nb)
            child_nodes = add_nodes(child_states, bucket_rest, r - 1)
            # record
            pair_state_l.append(pstate)
            pair_guess_l.append(pguess)
            pair_single_l.append(single)
            pair_blo_l.append(n_buckets + bstart[:-1])
            pair_bhi_l.append(n_buckets + bstart[1:])
            bucket_child_l.append(child_nodes)
            bucket_prob_l.append(out_prob)
            # node -> pair ranges for frontier nodes (pairs were emitted node by node)
            if fr.shape[0]:
                lo = n_pairs + xp.concat([xp.zeros(1, dtype=xp.int64), xp.cumulative_sum(per_node)[:-1]])
                node_plo[r] = (fr, lo, lo + per_node)
            n_pairs += int(pstate.shape[0])
            n_buckets += total_b
            done_levels += 1
            if progress is not None:
                progress(done_levels * PROGRESS_STEPS, r_top * PROGRESS_STEPS)

        # bottom-up values
        node_state_a = xp.concat(node_state) if node_state else xp.zeros(0, dtype=xp.int64)
        node_rmax_a = xp.concat(node_rmax) if node_rmax else xp.zeros(0, dtype=xp.int64)
        node_pair_lo = xp.zeros(n_nodes, dtype=xp.int64)
        node_pair_hi = xp.zeros(n_nodes, dtype=xp.int64)
        for fr, lo, hi in node_plo.values():
            node_pair_lo[fr] = lo
            node_pair_hi[fr] = hi
        node_size = self.offsets[node_state_a + 1] - self.offsets[node_state_a]
        order = xp.argsort(node_size, stable=True)
        vals = xp.full((n_nodes, r_top + 1), xp.nan, dtype=xp.float64)
        cat = lambda parts, dt: xp.concat(parts) if parts else xp.zeros(0, dtype=dt)  # noqa: E731
        pair_single = cat(pair_single_l, xp.bool)
        pair_blo = cat(pair_blo_l, xp.int64)
        pair_bhi = cat(pair_bhi_l, xp.int64)
        bucket_child = cat(bucket_child_l, xp.int64)
        bucket_prob = cat(bucket_prob_l, xp.float64)
        ops.node_values(order, node_size, node_state_a, node_rmax_a, node_pair_lo, node_pair_hi,
                        pair_single, pair_blo, pair_bhi, bucket_child, bucket_prob,
                        self.members, self.offsets, self.prior, self.loss, r_top, vals, self.matrix_t, self.win_code)
        for job in jobs:
            if isinstance(job, NodeJob):
                job.value = float(vals[job._node, job.rounds])
            else:
                idx = xp.arange(job._pair_lo, job._pair_lo + len(job.guesses), dtype=xp.int64)
                costs = ops.pair_costs(idx, job.rounds, pair_single, pair_blo, pair_bhi, bucket_child,
                                       bucket_prob, self.loss, vals)
                job.costs = [float(c) for c in costs]
        self.last_stats = {"nodes": n_nodes, "pairs": n_pairs, "buckets": n_buckets,
                           "states": self.n_states, "sweeps": self.sweeps}
        return jobs


# --------------------------------------------------------------------------------------------
# The level-3 decision (rules §6.4)
# --------------------------------------------------------------------------------------------
def rounds_left(turn: int, max_turns: int) -> int:
    """Rounds still available at a 1-based turn, the current one included (at least 1)."""
    return max(max_turns - turn + 1, 1)


def delegates_to_level2(m: int, turn: int, max_turns: int, endgame: int = 3) -> bool:
    """Level 3 hands tiny sets and the last turns to level 2 (§6.4)."""
    return m <= 2 or turn >= max_turns or (turn == max_turns - 1 and m <= endgame)


def root_jobs(tree: TreeSearch, states, turns, max_turns: int, depth: int, endgame: int = 3):
    """One `PairJob` per state that level 3 decides itself (None for the level-2 ones); the
    beams of all those states are swept in one batch."""
    ids = tree.register([list(s) for s in states]) if states else []
    want = [i for i, (s, t) in enumerate(zip(states, turns))
            if not delegates_to_level2(len(s), t, max_turns, endgame)]
    if want:
        tree.ensure_sweeps([int(ids[i]) for i in want], tree.beam)
    jobs = [None] * len(states)
    for i in want:
        sid = int(ids[i])
        jobs[i] = PairJob(sid, tree._guesses(sid, 1), rounds_left(turns[i], max_turns), depth)
    return ids, jobs


def ranked_costs(job: PairJob):
    """(guess, cost) of a root job, finite costs only, stable ascending (ties keep beam order)."""
    pairs = [(g, c) for g, c in zip(job.guesses, job.costs) if c != float("inf")]
    return sorted(pairs, key=lambda gc: gc[1])
