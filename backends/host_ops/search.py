"""The exact host bookkeeping of the searches: plain functions, the same on every backend.

The level-3 search (``termo.engine.tree_search``) and the greedy tree of the full-beam
experiments (``termo.robustness.greedy_tree``) keep their states on the host: hash registries of
member lists, partitions of states into children with their probabilities, and value reductions
in a fixed float order (the order that reproduces the published values bit for bit). Those steps
are the same compiled host code whichever backend sweeps (numba, or the interpreted stand-ins of
:mod:`backends.numba_shim`), so they are functions of this module, not methods of a
:class:`backends.base.Backend` (which carries only what differs by array library); only the
entropy sweeps change with the backend. The functions take and return host NumPy arrays; the
kernel modules are imported on first use.
"""

from __future__ import annotations

import numpy as np


def _entropy_kernels():
    from backends.kernels import entropy

    return entropy


def _tree_kernels():
    from backends.kernels import tree

    return tree


def _registry_kernels():
    from backends.kernels import registry

    return registry


def _tree_sweep_kernels():
    from backends.kernels import tree_sweep

    return tree_sweep


def _fullbeam_kernels():
    from backends.kernels import fullbeam

    return fullbeam


def numba_loaded() -> bool:
    """Has this process loaded numba (then the compiled kernels are the cheap way)?"""
    from backends import numba_shim

    return numba_shim.loaded()


# --- one state on the host ----------------------------------------------------------------
def state_weights(prior, members):
    """The prior over ``members`` renormalised (uniform when it sums to 0), float64."""
    members = np.asarray(members, dtype=np.int64)
    return _entropy_kernels().state_weights(np.asarray(prior, dtype=np.float64), members, 0, members.shape[0])


def probe_entropy(matrix_t, members, prior, probe: int, n_bins: int) -> float:
    """H (bits) of one probe over ``members`` in the reference's exact float order;
    ``matrix_t`` is answers-major (answers × probes). Whole-array NumPy until numba is
    loaded in this process, then the compiled kernel (the same floats)."""
    members = np.asarray(members, dtype=np.int64)
    if numba_loaded():
        return float(_entropy_kernels().entropy_row(matrix_t, members, prior, int(probe), int(n_bins)))
    from backends import numpy_sweep

    return numpy_sweep.entropy_row(matrix_t, members, prior, int(probe), int(n_bins))


def order_top_k(entropies, members, probe_prior, k: int):
    """The first ``k`` probes of the §5.2 order given every probe's entropy (host):
    (indices, entropies). ``members`` ascending: the candidate set."""
    h = np.asarray(entropies, dtype=np.float64)
    members = np.asarray(members, dtype=np.int64)
    probe_prior = np.asarray(probe_prior, dtype=np.float64)
    if numba_loaded():
        idx, ent = _entropy_kernels().top_k_from_entropies(h, members, probe_prior, int(k))
        keep = idx >= 0
        return idx[keep], ent[keep]
    from backends import numpy_sweep

    return numpy_sweep.top_k(h, members, probe_prior, int(k))


# --- the level-3 search: registries ----------------------------------------------------------
def id_table(capacity: int = 1024):
    """A fresh hash table from non-negative int64 keys to ids (state and node registries)."""
    return _registry_kernels().IdTable(capacity)


def register_states(table, store_members, store_offsets, n_old, cand_members, cand_offsets, cand_ids,
                    min_size):
    """Ids of candidate member lists (new ones appended after ``n_old``); writes ``cand_ids``
    (-1 below ``min_size``) and returns the candidate index of each new state's first copy."""
    return _registry_kernels().register_states(table, store_members, store_offsets, n_old, cand_members,
                                           cand_offsets, cand_ids, min_size)


def register_nodes(table, n_old, state_ids, rests):
    """Node ids of (state, rest) pairs and the first occurrence of each new node."""
    return _registry_kernels().register_nodes(table, n_old, state_ids, rests)


def gather_segments(cand_members, cand_offsets, firsts):
    """The segments ``firsts`` of a segmented array, concatenated: (members, sizes)."""
    return _tree_kernels().gather_segments(cand_members, cand_offsets, firsts)


def most_probable_many(members, offsets, state_ids, prior):
    """The most probable member of each state (lowest index on ties)."""
    return _tree_kernels().most_probable_many(members, offsets, state_ids, prior)


def level_pairs(nodes, node_states, node_rests, top_idx, best):
    """The (state, guess) pairs of one search level: (states, guesses, rests, pairs per node)."""
    return _tree_kernels().level_pairs(nodes, node_states, node_rests, top_idx, best)


# --- the level-3 search: sweeps, partitions, values ------------------------------------------
def tree_sweep_top_k(matrix_t, members, offsets, state_ids, prior, probe_prior, k, n_bins):
    """The batched §5.2 top-k sweep of the host, probes pruned by a bucket bound: the very
    lists of the NumPy backend's ``sweep_top_k`` (indices and entropies bit for bit), faster."""
    return _tree_sweep_kernels().sweep_top_k(matrix_t, members, offsets, state_ids, prior, probe_prior, k, n_bins)


def partition_pairs(matrix_t, members, offsets, pair_state, pair_guess, win_code, prior):
    """Every (state, guess) pair split into its non-winning buckets (ascending code, members
    ascending): ``(buckets per pair, single, members, bucket sizes, bucket probabilities)``;
    ``single[p]`` when the guess leaves the state whole (infinite cost)."""
    tk = _tree_kernels()
    nb, nkept, single = tk.partition_counts(matrix_t, members, offsets, pair_state, pair_guess, win_code)
    bstart = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(nb)])
    mstart = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(nkept)])
    total_b = int(bstart[-1])
    out_members = np.empty(int(mstart[-1]), dtype=np.int64)
    out_size = np.empty(total_b, dtype=np.int64)
    out_prob = np.empty(total_b, dtype=np.float64)
    tk.partition_fill(matrix_t, members, offsets, pair_state, pair_guess, win_code, prior, bstart, mstart,
                      out_members, out_size, out_prob)
    return nb, single, out_members, out_size, out_prob


def node_values(order, node_size, node_state, node_rmax, node_pair_lo, node_pair_hi, pair_single,
                pair_blo, pair_bhi, bucket_child, bucket_prob, members, offsets, prior, loss, r_cap, vals,
                matrix_t, win_code):
    """Fill ``vals[node, r]`` bottom-up (nodes in ``order``, ascending size), §6.1; ``matrix_t``
    (answers × probes) and ``win_code`` settle two-candidate states one guess wins outright."""
    _tree_kernels().node_values(order, node_size, node_state, node_rmax, node_pair_lo, node_pair_hi,
                                pair_single, pair_blo, pair_bhi, bucket_child, bucket_prob, members, offsets,
                                prior, loss, r_cap, vals, matrix_t, win_code)


def pair_costs(pairs, r, pair_single, pair_blo, pair_bhi, bucket_child, bucket_prob, loss, vals):
    """``cost(g, S, r−1)`` of the given pairs, summed like ``node_values``."""
    return _tree_kernels().pair_costs(pairs, r, pair_single, pair_blo, pair_bhi, bucket_child, bucket_prob,
                                      loss, vals)


# --- the greedy tree of the full-beam experiments -------------------------------------------
def partition_states(matrix, members, offsets, guesses, prior, win_code, n_bins):
    """Every state split by its guess (probes-major ``matrix``): ``(child members, child
    offsets, child parent, child probability, single)``, non-winning buckets in ascending code."""
    return _fullbeam_kernels().partition_states(matrix, members, offsets, guesses, prior, win_code, n_bins)


def candidate_picks(matrix, members, offsets, prior, probe_prior, win_code, n_bins):
    """The candidates-only follow-up's guess of every state (host int64) and its entropy:
    the member leaving the fewest answers unsolved on average, then the §5.2 chain."""
    return _fullbeam_kernels().candidate_picks(np.asarray(matrix), np.ascontiguousarray(members, dtype=np.int32),
                                               np.ascontiguousarray(offsets, dtype=np.int64),
                                               np.ascontiguousarray(prior, dtype=np.float64),
                                               np.ascontiguousarray(probe_prior, dtype=np.float64),
                                               win_code, n_bins)


def leaf_values(members, offsets, prior, rounds_left, loss):
    """Values of the states that need no guess (NaN for the others), §6.1."""
    return _fullbeam_kernels().leaf_values(members, offsets, prior, rounds_left, loss)


def reduce_values(n_parents, child_parent, child_prob, child_value, single):
    """``1 + Σ P·V`` per parent, summed in child order (``inf`` where ``single``)."""
    return _fullbeam_kernels().reduce_values(n_parents, child_parent, child_prob, child_value, single)


def segment_weights(prior, members, offsets):
    """The normalised weights of every state of a segmented array, member by member (float64;
    uniform in a state whose prior sums to 0): the full-beam kernels' own floats."""
    w, _, _ = _fullbeam_kernels().state_weights(np.ascontiguousarray(prior, dtype=np.float64),
                                                np.ascontiguousarray(members, dtype=np.int32),
                                                np.ascontiguousarray(offsets, dtype=np.int64))
    return w


def segment_positions(offsets, ids, sub_offsets):
    """Positions of the members of segments ``ids`` (``sub_offsets``: their new offsets)."""
    return _fullbeam_kernels()._gather_index_nb(offsets, np.asarray(ids, dtype=np.int64), sub_offsets)
