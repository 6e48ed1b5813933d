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
kernels behind ``backends.host_ops.search`` and ``docs/solver.md``): bucket probabilities
``sum(prior[S_b]) / sum(prior[S])`` with NumPy's pairwise sums over ascending members; buckets in
ascending pattern code; the cost accumulated sequentially from 0 and then added to 1; the
two-candidate value ``1 + f·(w_min/(w_0+w_1))``.
The exact minimum over the beam is taken, so the reference's pruning does not change any value.

Every step but the sweeps is exact host bookkeeping, the functions of
:mod:`backends.host_ops.search` (the same on every backend); the sweeps are the solver's backend's own (on JAX or
CuPy the frontier's sweeps and their §5.2 top-k run on the device, one result per batch).

The engine itself (``TreeSearch``, its jobs ``PairJob`` and ``NodeJob``, ``LOSS_COST``) lives in
:mod:`termo.engine.tree_search`; this module holds the level-3 decision built on it (§6.4).
"""

from __future__ import annotations

from termo.engine.tree_search import PairJob, TreeSearch


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
        jobs[i] = PairJob(sid, tree.guesses(sid, 1), rounds_left(turns[i], max_turns), depth)
    return ids, jobs


def ranked_costs(job: PairJob):
    """(guess, cost) of a root job, finite costs only, stable ascending (ties keep beam order)."""
    pairs = [(g, c) for g, c in zip(job.guesses, job.costs) if c != float("inf")]
    return sorted(pairs, key=lambda gc: gc[1])
