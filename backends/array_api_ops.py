"""The hot search operations in standard array-API calls: one implementation for JAX, CuPy and
array-api-strict (a mixin of :class:`backends.base.Backend`; NumPy overrides it with compiled
host kernels).

Every batched operation keeps its work on the backend's device and sends the host one small
result per batch: the codes of the states are gathered from the device matrix, bucket weights
come from :meth:`Backend.row_histogram`, entropies and the §5.2 decision are reduced on the
device, and only the chosen probes (and their entropies) come back. States are padded to a
bucketed size (:meth:`Backend.bucket`, padding weight 0: it adds exact zeros) and batches to a
bucketed count, so a compiling backend (:meth:`Backend.compile`) sees few shapes.

The §5.2 order on the device: one int64 key per probe,
``rint(H/1e-9) · 2^(B+1) + member · 2^B + (2^B − 1 − rank)``, with ``rank`` the probe's place in
(prior descending, index ascending), taken once per prior on the host, and ``B`` bits enough for
every rank; the first k probes are then :meth:`Backend.stable_top_k` of that key. Entropies
agree with NumPy's to ~1e-15 (summation order), integers and ties exactly.
"""

from __future__ import annotations

import functools

import numpy as np

from backends.constants import ROUND_STEP
from backends.host_ops import search as host_search

FLOOR_SLACK = 1e-9  # probes_at_least: kept below the floor as well (rounding of another summation order)
CELLS = 24_000_000  # (state, probe, member-or-bin) cells per device call of the batched sweeps


def flat_bins(xp, codes, weights, n_bins: int):
    """A (rows × m) batch of codes as indices into one flat (rows · n_bins) histogram, with their
    float64 weights (a weight vector serves every row): ``(indices, weights, rows)``, both flat.
    NumPy, CuPy and JAX build their ``row_histogram`` on it (a bincount or a scatter-add)."""
    codes = xp.asarray(codes)
    rows, m = codes.shape
    weights = xp.broadcast_to(xp.asarray(weights, dtype=xp.float64), (rows, m))
    flat = (codes.astype(xp.int64) + (xp.arange(rows, dtype=xp.int64) * n_bins)[:, None]).ravel()
    return flat, weights.ravel(), rows


def _rank_key(probe_prior):
    """(rank per probe under prior descending then index ascending, bits B of the rank field)."""
    probe_prior = np.asarray(probe_prior, dtype=np.float64)
    n = probe_prior.shape[0]
    order = np.lexsort((np.arange(n), -probe_prior))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    bits = max(1, int(n).bit_length())
    return (1 << bits) - 1 - rank, bits


def _check_key_room(n_bins: int, bits: int) -> None:
    top = int(np.rint(np.log2(max(2, n_bins)) / ROUND_STEP)) + 1
    if top.bit_length() + bits + 1 > 62:
        raise ValueError(f"the §5.2 key of {n_bins} codes and 2^{bits} probes does not fit in int64")


def _entropy_rows(xp, row_histogram, matrix, idx_flat, wts, n_rows, width, n_probes, n_bins):
    """H (n_rows, n_probes) of ``n_rows`` padded states and their codes (n_rows, n_probes, width)."""
    codes = xp.take(matrix, idx_flat, axis=1)  # (probes, rows*width)
    codes = xp.permute_dims(xp.reshape(codes, (n_probes, n_rows, width)), (1, 0, 2))
    flat = xp.reshape(codes, (n_rows * n_probes, width))
    weights = xp.broadcast_to(xp.reshape(wts, (n_rows, 1, width)), (n_rows, n_probes, width))
    table = row_histogram(flat, xp.reshape(weights, (n_rows * n_probes, width)), n_bins)
    safe = xp.where(table > 0.0, table, xp.ones_like(table))
    return xp.reshape(-xp.sum(table * xp.log2(safe), axis=1), (n_rows, n_probes)), codes


def _sweep_chunk(xp, row_histogram, top_k, n_probes, n_bins, bits, k,
                 matrix, idx, wts, valid, rank_key, probe_index, n_rows, width):
    """The first ``k`` probes (§5.2) of each padded state of a chunk and their entropies."""
    h, _ = _entropy_rows(xp, row_histogram, matrix, xp.reshape(idx, (-1,)), wts, n_rows, width, n_probes, n_bins)
    member = xp.any((idx[:, :, None] == probe_index[None, None, :]) & valid[:, :, None], axis=1)
    key_h = xp.astype(xp.round(xp.maximum(h, 0.0) / ROUND_STEP), xp.int64)
    key = key_h * (1 << (bits + 1)) + xp.astype(member, xp.int64) * (1 << bits) + rank_key[None, :]
    top = top_k(key, k)  # (n_rows, k)
    rows = xp.arange(n_rows, dtype=xp.int64)[:, None] * n_probes
    top_h = xp.reshape(xp.take(xp.reshape(h, (-1,)), xp.reshape(rows + top, (-1,))), (n_rows, k))
    return top, top_h


def _batch_pick(xp, row_histogram, per_batch, size, n_probes, win_code, n_bins,
                matrix, flat, wts, valid, probe_prior, probe_index):
    """For a batch of equal-size states: every probe's entropy and each state's §5.2 first probe."""
    codes = xp.astype(xp.take(matrix, flat, axis=1), xp.int64)  # (probes, batch*size)
    codes = xp.permute_dims(xp.reshape(codes, (n_probes, per_batch, size)), (1, 0, 2))
    codes2 = xp.reshape(codes, (per_batch * n_probes, size))
    weights = xp.reshape(xp.broadcast_to(wts[:, None, :], (per_batch, n_probes, size)), (per_batch * n_probes, size))
    hist = row_histogram(codes2, weights, n_bins)  # (batch*probes, n_bins)
    safe = xp.where(hist > 0.0, hist, 1.0)
    h = -xp.sum(xp.where(hist > 0.0, safe * xp.log2(safe), 0.0), axis=1)
    h = xp.reshape(h, (per_batch, n_probes))
    inc = xp.any((codes == win_code) & valid[:, None, :], axis=2)  # (batch, probes)
    key = xp.round(h / ROUND_STEP)
    top = key == xp.max(key, axis=1, keepdims=True)
    top = top & (inc | ~xp.any(top & inc, axis=1, keepdims=True))
    masked = xp.where(top, probe_prior[None, :], -1.0)
    top = top & (masked == xp.max(masked, axis=1, keepdims=True))
    pick = xp.min(xp.where(top, probe_index[None, :], n_probes), axis=1)
    pick_h = xp.sum(xp.where(probe_index[None, :] == pick[:, None], h, 0.0), axis=1)
    return pick, pick_h


def sweep_request(tables, members, offsets, state_ids, k):
    """The host inputs of a batched top-k sweep as int64/float64 arrays, the k actually taken,
    and its (states, k) outputs filled with -1 and 0.0 (rows of states that have fewer probes)."""
    members = np.asarray(members, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    state_ids = np.asarray(state_ids, dtype=np.int64)
    prior = np.asarray(tables.prior, dtype=np.float64)
    n_states = state_ids.shape[0]
    out_i = np.full((n_states, int(k)), -1, dtype=np.int64)
    out_h = np.zeros((n_states, int(k)), dtype=np.float64)
    return members, offsets, state_ids, prior, min(int(k), tables.n_probes), out_i, out_h


def best_probes_request(members, offsets, prior):
    """The host inputs of a best-probe pass as int64/float64 arrays and its per-state outputs
    (best probe, its entropy)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    n_states = offsets.shape[0] - 1
    return (np.asarray(members, dtype=np.int64), offsets, np.asarray(prior, dtype=np.float64),
            np.empty(n_states, np.int64), np.empty(n_states, np.float64))


def _weights(prior, members, lo, hi):
    """The state's normalised weights (the same floats as the host kernels')."""
    buf = prior[members[lo:hi]]
    total = float(buf.sum())
    if total > 0.0:
        return buf / total
    m = hi - lo
    return np.full(m, 1.0 / m) if m else buf


class ArrayApiOps:
    """The batched sweeps and full-beam picks in array-API calls (see the module doc)."""

    def _compiled_op(self, key, build):
        cache = self.__dict__.setdefault("_compiled_ops", {})
        fn = cache.get(key)
        if fn is None:
            fn = cache[key] = build()
        return fn

    def _sweep_arrays(self, tables):
        """Device arrays of a sweep table prepared once: the §5.2 rank key and the probe index."""
        extra = tables.extra
        if "rank_key" not in extra:
            rank_key, bits = _rank_key(tables.probe_prior)
            _check_key_room(tables.n_bins, bits)
            extra["rank_key"] = self.asarray(rank_key, dtype="int64")
            extra["bits"] = bits
            extra["probe_index"] = self.asarray(np.arange(tables.n_probes, dtype=np.int64), dtype="int64")
        return extra["rank_key"], extra["bits"], extra["probe_index"]

    # --- the level-2 engine's sweeps --------------------------------------------------------
    def probe_entropies(self, tables, members):
        """H (bits) of every probe over ``members`` (ascending answer indices): host float64."""
        xp = self.xp
        cand = np.asarray(members, dtype=np.int64)
        if cand.shape[0] <= 1:
            return np.zeros(tables.n_probes, dtype=np.float64)
        w = _weights(np.asarray(tables.prior, dtype=np.float64), cand, 0, cand.shape[0])
        codes = xp.take(tables.matrix, self.asarray(cand, dtype="int64"), axis=1)
        table = self.row_histogram(codes, self.asarray(w, dtype="float64"), tables.n_bins)
        safe = xp.where(table > 0, table, xp.ones_like(table))
        return np.asarray(self.to_numpy(-xp.sum(table * xp.log2(safe), axis=1)), dtype=np.float64)

    def top_probes(self, tables, members, k: int):
        """The first ``k`` probes of the §5.2 order over one set: host (indices, entropies)."""
        cand = np.asarray(members, dtype=np.int64)
        if cand.shape[0] <= 1:
            return host_search.order_top_k(np.zeros(tables.n_probes), cand, tables.probe_prior, k)
        idx, ent = self.sweep_top_k(tables, cand, np.asarray([0, cand.shape[0]]), np.asarray([0]), k)
        keep = idx[0] >= 0
        return idx[0][keep], ent[0][keep]

    def sweep_top_k(self, tables, members, offsets, state_ids, k: int):
        """Batched sweeps: the first ``k`` probes of the §5.2 order (host int64 indices and float64
        entropies, (S, k), -1 padded) of each state ``members[offsets[s]:offsets[s+1]]``,
        ``s`` in ``state_ids``. Each chunk of similar-size states is one device computation
        (gather, histogram, entropies, keys, top-k) whose (rows, k) result comes back."""
        members, offsets, state_ids, prior, kk, out_i, out_h = sweep_request(tables, members, offsets, state_ids, k)
        n_probes = tables.n_probes
        if state_ids.shape[0] == 0 or kk == 0:
            return out_i, out_h
        rank_key, bits, probe_index = self._sweep_arrays(tables)
        lo_all = offsets[state_ids]
        sizes = offsets[state_ids + 1] - lo_all
        w_all = self._state_weights_of(prior, members, offsets, state_ids)  # (states', members) in order
        w_lo = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(sizes)])[:-1]
        widths = np.array([self.bucket(m) for m in range(int(sizes.max()) + 1)], dtype=np.int64)[np.maximum(sizes, 1)]
        for width in sorted(set(widths.tolist())):
            rows = np.flatnonzero(widths == width)
            per_call = max(1, CELLS // (n_probes * max(width, tables.n_bins)))
            per_call = 1 << (per_call.bit_length() - 1)  # a power of two
            slot = np.arange(width, dtype=np.int64)[None, :]
            for c0 in range(0, len(rows), per_call):
                chunk = rows[c0:c0 + per_call]
                n_rows = min(per_call, self.bucket(len(chunk)))
                batch = np.resize(chunk, n_rows)  # padding rows repeat real ones (results ignored)
                valid = slot < sizes[batch][:, None]
                idx = np.where(valid, members[np.where(valid, lo_all[batch][:, None] + slot, 0)], 0)
                wts = np.where(valid, w_all[np.where(valid, w_lo[batch][:, None] + slot, 0)], 0.0)
                fn = self._compiled_op(
                    ("sweep", n_probes, tables.n_bins, bits, kk),
                    lambda: self.compile(functools.partial(_sweep_chunk, self.xp, self.row_histogram,
                                                           self.stable_top_k, n_probes, tables.n_bins, bits, kk),
                                         static_argnames=("n_rows", "width")))
                top, top_h = fn(tables.matrix, self.asarray(idx, dtype="int64"), self.asarray(wts, dtype="float64"),
                                self.asarray(valid, dtype="bool"), rank_key, probe_index, n_rows=n_rows, width=width)
                top = np.asarray(self.to_numpy(top), dtype=np.int64)
                top_h = np.asarray(self.to_numpy(top_h), dtype=np.float64)
                n = len(chunk)
                out_i[chunk, :kk] = top[:n]
                out_h[chunk, :kk] = top_h[:n]
        return out_i, out_h

    def _state_weights_of(self, prior, members, offsets, state_ids):
        """The normalised weights of the states ``state_ids``, one after the other (host float64):
        one segmented host kernel call once this process has loaded numba, else state by state
        (the same floats either way)."""
        if host_search.numba_loaded() and state_ids.shape[0] > 1:
            lo = offsets[state_ids]
            sizes = offsets[state_ids + 1] - lo
            sub_off = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(sizes)])
            pos = np.repeat(lo - sub_off[:-1], sizes) + np.arange(int(sub_off[-1]), dtype=np.int64)
            return host_search.segment_weights(prior, members[pos], sub_off)
        parts = [_weights(prior, members, int(offsets[s]), int(offsets[s + 1])) for s in state_ids.tolist()]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float64)

    # --- the full-beam experiments -----------------------------------------------------------
    def best_probe_plan(self, matrix, probe_prior):
        """What :meth:`best_probes` reads for one (probes × answers) matrix and tie-break prior,
        prepared once: here the matrix, the prior and the probe index on the device."""
        probe_prior = np.asarray(probe_prior, dtype=np.float64)
        n_probes = int(matrix.shape[0])
        return {"matrix": self.asarray(self.to_numpy(matrix)) if not self._on_device(matrix) else matrix,
                "probe_prior": self.asarray(probe_prior, dtype="float64"),
                "probe_index": self.asarray(np.arange(n_probes, dtype=np.int64), dtype="int64"),
                "n_probes": n_probes}

    def _on_device(self, arr) -> bool:
        return not isinstance(arr, np.ndarray)

    def best_probes(self, plan, members, offsets, prior, win_code: int, n_bins: int, max_cells: int = CELLS):
        """(best probe, its entropy) of every state ``members[offsets[s]:offsets[s+1]]``: the
        first probe of the §5.2 order under the plan's tie-break prior (host int64, float64).
        States are padded to :meth:`bucket` sizes (zero-weight copies of their first member)
        and batched by padded size; each batch is one device computation returning its picks."""
        xp = self.xp
        members, offsets, prior, out, out_h = best_probes_request(members, offsets, prior)
        n_probes = plan["n_probes"]
        n_states = out.shape[0]
        if n_states == 0:
            return out, out_h
        sizes = offsets[1:] - offsets[:-1]
        w_all = host_search.segment_weights(prior, members, offsets)  # host, every state at once
        padded = np.array([self.bucket(m) for m in range(int(sizes.max()) + 1)], dtype=np.int64)[np.maximum(sizes, 1)]
        for size in sorted(set(padded.tolist())):
            ids = np.flatnonzero(padded == size)
            per_batch = max(1, min(len(ids), max_cells // max(1, n_probes * max(size, n_bins))))
            per_batch = 1 << (per_batch.bit_length() - 1)  # a power of two
            slot = np.arange(size, dtype=np.int64)[None, :]
            for start in range(0, len(ids), per_batch):
                chunk = ids[start:start + per_batch]
                batch = np.resize(chunk, per_batch)  # pad the batch with repeats (results ignored)
                lo = offsets[batch][:, None]
                valid = slot < sizes[batch][:, None]
                pos = np.where(valid, lo + slot, lo)  # padding: zero-weight copies of the first member
                idx = members[pos]
                wts = np.where(valid, w_all[pos], 0.0)
                fn = self._compiled_op(
                    ("best", per_batch, size, n_probes, win_code, n_bins),
                    lambda: self.compile(functools.partial(_batch_pick, xp, self.row_histogram, per_batch, size,
                                                           n_probes, win_code, n_bins)))
                pick, pick_h = fn(plan["matrix"], self.asarray(idx.reshape(-1), dtype="int64"),
                                  self.asarray(wts, dtype="float64"), self.asarray(valid, dtype="bool"),
                                  plan["probe_prior"], plan["probe_index"])
                pick = np.asarray(self.to_numpy(pick), dtype=np.int64)
                pick_h = np.asarray(self.to_numpy(pick_h), dtype=np.float64)
                out[chunk] = pick[:chunk.shape[0]]
                out_h[chunk] = pick_h[:chunk.shape[0]]
        return out, out_h

    def state_entropies(self, matrix, members, prior, win_code: int, n_bins: int):
        """Entropy (bits) of every probe over the state ``members`` and whether the probe is a
        member (it gives the win code on some member): host float64 and bool arrays."""
        xp = self.xp
        members = np.asarray(members, dtype=np.int64)
        if self._on_device(matrix) is False:
            matrix = self.asarray(matrix)
        w = _weights(np.asarray(prior, dtype=np.float64), members, 0, members.shape[0])
        n_probes = int(matrix.shape[0])
        idx = self.asarray(members, dtype="int64")
        wd = self.asarray(w, dtype="float64")
        chunk = max(1, 2_000_000 // max(1, members.shape[0]))
        hs, incs = [], []
        for start in range(0, n_probes, chunk):
            codes = xp.astype(xp.take(matrix[start:min(n_probes, start + chunk), :], idx, axis=1), xp.int64)
            hist = self.row_histogram(codes, wd, n_bins)
            safe = xp.where(hist > 0.0, hist, 1.0)
            hs.append(self.to_numpy(-xp.sum(xp.where(hist > 0.0, safe * xp.log2(safe), 0.0), axis=1)))
            incs.append(self.to_numpy(xp.any(codes == win_code, axis=1)))
        return np.concatenate(hs).astype(np.float64), np.concatenate(incs).astype(bool)


    def probes_at_least(self, plan, members, prior, floor_h: float, win_code: int, n_bins: int):
        """Every probe whose entropy over the state ``members`` is at least ``floor_h``, and
        possibly a few more (within ``FLOOR_SLACK``, which covers the rounding of another
        summation order): sorted host int64 indices. ``plan`` is :meth:`best_probe_plan`'s. For
        the ties at the top of the §5.2 order, without every probe's exact entropy again."""
        h, _ = self.state_entropies(plan["matrix"], members, prior, win_code, n_bins)
        return np.flatnonzero(h >= floor_h - FLOOR_SLACK).astype(np.int64)


def best_probes_array_api(backend, matrix, members, offsets, prior, probe_prior, win_code, n_bins,
                          max_cells: int = CELLS):
    """The contract of ``kernels.fullbeam.best_probes_numba``, by this shared array-API implementation
    (:meth:`ArrayApiOps.best_probes`) on ``backend``, even NumPy (the tests compare the two)."""
    plan = ArrayApiOps.best_probe_plan(backend, matrix, probe_prior)
    return ArrayApiOps.best_probes(backend, plan, members, offsets, prior, win_code, n_bins, max_cells=max_cells)
