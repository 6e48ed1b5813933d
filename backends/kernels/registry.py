"""The hash registries of the level-3 search: state ids by member list (deduplication by hash,
verified member by member) and node ids by (state, rounds left), in :class:`IdTable` arrays the
kernels fill. Part of the opener cache signature with the tree's other kernels
(:mod:`backends.kernels.tree`)."""

from __future__ import annotations

import numpy as np

from backends.numba_shim import njit


@njit(cache=True)
def _hash_members(arr, lo, n):
    h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(n)
    for j in range(lo, lo + n):
        x = h ^ np.uint64(arr[j])
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        h = x ^ (x >> np.uint64(31))
    return np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))


@njit(cache=True)
def _same(a, alo, b, blo, n):
    for j in range(n):
        if a[alo + j] != b[blo + j]:
            return False
    return True


EMPTY_KEY = -1  # a free slot of an IdTable (keys are non-negative)


class IdTable:
    """int64 keys (non-negative) → int64 ids, open addressing over two NumPy arrays.

    The kernels read and fill the arrays; the Python side grows them before each batch
    (``reserve``), so a kernel never runs out of slots (the load factor stays at most 1/2).
    It replaces numba's typed dict, whose creation compiles for ~0.8 s in every process."""

    def __init__(self, capacity: int = 1024):
        cap = 16
        while cap < capacity:
            cap *= 2
        self.keys = np.full(cap, EMPTY_KEY, np.int64)
        self.ids = np.zeros(cap, np.int64)
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def reserve(self, extra: int) -> None:
        """Room for ``extra`` more entries."""
        need = 2 * (self.count + int(extra))
        cap = self.keys.shape[0]
        if need <= cap:
            return
        while cap < need:
            cap *= 2
        keys = np.full(cap, EMPTY_KEY, np.int64)
        ids = np.zeros(cap, np.int64)
        _table_rehash(self.keys, self.ids, keys, ids)
        self.keys, self.ids = keys, ids

    def put(self, key: int, value: int) -> None:
        """Add an entry (a duplicate key gets a second slot; lookups see both, in probe order)."""
        self.reserve(1)
        _table_put(self.keys, self.ids, int(key), int(value))
        self.count += 1


@njit(cache=True)
def _slot(key, mask):
    """The home slot of a key: state keys are hashes already; node keys are small and distinct."""
    return (key ^ (key >> 32)) & mask


@njit(cache=True)
def _table_put(keys, ids, key, value):
    mask = keys.shape[0] - 1
    slot = _slot(key, mask)
    while keys[slot] != EMPTY_KEY:
        slot = (slot + 1) & mask
    keys[slot] = key
    ids[slot] = value


@njit(cache=True)
def _table_rehash(old_keys, old_ids, keys, ids):
    for i in range(old_keys.shape[0]):
        if old_keys[i] != EMPTY_KEY:
            _table_put(keys, ids, old_keys[i], old_ids[i])


@njit(cache=True)
def _add_entry(keys, ids, slot, key, new_id, firsts, n_new, first):
    """Put ``key -> new_id`` in the free ``slot`` and note the candidate ``first`` that made it;
    returns the number of new entries so far."""
    keys[slot] = key
    ids[slot] = new_id
    firsts[n_new] = first
    return n_new + 1


@njit(cache=True)
def _register_states(keys, ids, store_members, store_offsets, n_old, cand_members, cand_offsets, cand_ids, min_size):
    n = cand_offsets.shape[0] - 1
    mask = keys.shape[0] - 1
    firsts = np.empty(n, np.int64)
    n_new = 0
    for i in range(n):
        lo = cand_offsets[i]
        size = cand_offsets[i + 1] - lo
        if size < min_size:
            cand_ids[i] = -1
            continue
        h = _hash_members(cand_members, lo, size)
        slot = _slot(h, mask)
        found = -1
        while keys[slot] != EMPTY_KEY:
            if keys[slot] == h:
                sid = ids[slot]
                if sid < n_old:
                    slo = store_offsets[sid]
                    if store_offsets[sid + 1] - slo == size and _same(store_members, slo, cand_members, lo, size):
                        found = sid
                        break
                else:
                    flo = cand_offsets[firsts[sid - n_old]]
                    fsize = cand_offsets[firsts[sid - n_old] + 1] - flo
                    if fsize == size and _same(cand_members, flo, cand_members, lo, size):
                        found = sid
                        break
            slot = (slot + 1) & mask
        if found < 0:
            found = n_old + n_new
            n_new = _add_entry(keys, ids, slot, h, found, firsts, n_new, i)
        cand_ids[i] = found
    return firsts[:n_new]


def register_states(table, store_members, store_offsets, n_old, cand_members, cand_offsets, cand_ids, min_size):
    """Map each candidate member list to a state id, creating ids for unseen ones.

    ``table`` (an :class:`IdTable`) maps a state's hash to its id; equal hashes are told apart
    by comparing members, so equality is always verified. Old states live in
    ``store_members``/``store_offsets`` (``n_old`` of them); candidate ``i`` is
    ``cand_members[cand_offsets[i]:cand_offsets[i+1]]``. Candidates smaller than ``min_size``
    get -1. Writes the ids into ``cand_ids`` and returns the candidate index of the first
    occurrence of each new state (in id order).
    """
    table.reserve(cand_offsets.shape[0] - 1)
    firsts = _register_states(table.keys, table.ids, store_members, store_offsets, n_old, cand_members,
                              cand_offsets, cand_ids, min_size)
    table.count += int(firsts.shape[0])
    return firsts


@njit(cache=True)
def _register_nodes(keys, ids, n_old, state_ids, rests):
    n = state_ids.shape[0]
    mask = keys.shape[0] - 1
    out = np.empty(n, np.int64)
    firsts = np.empty(n, np.int64)
    n_new = 0
    for i in range(n):
        s = state_ids[i]
        if s < 0:
            out[i] = -1
            continue
        key = s * 8 + rests[i]
        slot = _slot(key, mask)
        while keys[slot] != EMPTY_KEY and keys[slot] != key:
            slot = (slot + 1) & mask
        if keys[slot] == key:
            out[i] = ids[slot]
        else:
            out[i] = n_old + n_new
            n_new = _add_entry(keys, ids, slot, key, out[i], firsts, n_new, i)
    return out, firsts[:n_new]


def register_nodes(table, n_old, state_ids, rests):
    """Map (state id, rest) pairs to node ids (key ``state*8 + rest`` in the :class:`IdTable`);
    -1 states stay -1. Returns (node ids, index of the first occurrence of each new node, in
    id order)."""
    table.reserve(state_ids.shape[0])
    out, firsts = _register_nodes(table.keys, table.ids, n_old, state_ids, rests)
    table.count += int(firsts.shape[0])
    return out, firsts
