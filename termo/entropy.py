"""Entropy sweeps: the information of every probe over candidate sets (rules §5.1), batched.

For a candidate set S with weights ``w_c = prior[c] / Σ_S prior`` (uniform when that sum is 0),
probe g splits S into buckets by feedback code; ``H(g) = −Σ_b P_b log2 P_b`` with ``P_b`` the
bucket weight. A *sweep* computes H for every probe.

:class:`Sweeper` runs sweeps for one game and one prior on a backend:

* NumPy: compiled host kernels (``backends/kernels_entropy.py``): one parallel pass over the
  probes for a big set, or one pass per state (states in parallel) for a batch, each keeping
  only the first k probes of the §5.2 order (no sort, and logarithms skipped for probes whose
  bound ``log2(#buckets)`` cannot reach the k-th key). Until the process has loaded numba
  (``sweep``, the batched API of the level-3 search and ``decide_many``, loads it), questions
  about *one* set (``top``, ``entropies``, ``entropy_of``) are answered by the whole-array
  NumPy versions of the same kernels (``backends/numpy_sweep.py``), bit for bit the same
  floats, so a one-question process never pays the ~2 s of importing and loading numba.
* Any other backend (JAX, CuPy, array-api-strict): the codes ``M[:, S]`` are gathered on the
  device, bucket weights come from ``Backend.row_histogram`` and H from array-API calls; the
  §5.2 top-k is then taken on the host. Values agree with NumPy to ~1e-15 (summation order).
"""

from __future__ import annotations

import functools

from backends import get_backend, host
from backends import kernels_entropy as kern
from backends import numba_shim
from backends import numpy_sweep as npsweep
from termo.ordering import top_k as _top_k

BIG_SET = 256  # above this size a single set is swept probe-parallel on the row-major matrix
ARRAY_API_CELLS = 24_000_000  # histogram cells per device call of the array-API batched sweep

def _chunk_entropies(backend, matrix, idx_flat, wts, n_rows, width, n_probes, n_bins):
    """Entropies (n_rows, n_probes) of ``n_rows`` padded states: gather, histogram, −Σ p log2 p."""
    bx = backend.xp
    codes = bx.take(matrix, idx_flat, axis=1)
    codes = bx.reshape(codes, (n_probes, n_rows, width))
    codes = bx.reshape(bx.permute_dims(codes, (1, 0, 2)), (n_rows * n_probes, width))
    weights = bx.broadcast_to(bx.reshape(wts, (n_rows, 1, width)), (n_rows, n_probes, width))
    table = backend.row_histogram(codes, bx.reshape(weights, (n_rows * n_probes, width)), n_bins)
    safe = bx.where(table > 0, table, bx.ones_like(table))
    return bx.reshape(-bx.sum(table * bx.log2(safe), axis=1), (n_rows, n_probes))


def _matrices(game, backend):
    """(device matrix, host matrix, host transposed matrix) of ``game``; the transposed copy
    (answers × probes, contiguous rows per answer) is cached on disk by ``termo.matrix``."""
    from termo.matrix import answers_major_matrix, pattern_matrix

    hb = host()
    host_m = _read_only(hb.to_numpy(pattern_matrix(game, backend=hb)))
    dev_m = host_m if backend.name == "numpy" else pattern_matrix(game, backend=backend)
    return dev_m, host_m, _read_only(answers_major_matrix(game))


def _read_only(arr):
    """A read-only view: the kernels then see one array type whether the matrix was just built
    (writable) or memory-mapped from the disk cache (read-only). numba compiles one version per
    argument type, so mixing the two compiled every kernel a second time in the second process."""
    if not arr.flags.writeable:
        return arr
    view = arr.view()
    view.flags.writeable = False
    return view


class Sweeper:
    """Entropy sweeps of one game under one prior on one backend."""

    def __init__(self, game, prior, backend=None):
        xp = host().xp
        self.game = game
        self.backend = get_backend(backend)
        self.prior = xp.asarray(prior, dtype=xp.float64)
        n_extra = game.n_probes - game.n_answers
        self.probe_prior = xp.concat([self.prior, xp.zeros(n_extra, dtype=xp.float64)])
        self.n_bins = game.n_patterns
        self.matrix_dev, self.matrix, self.matrix_t = _matrices(game, self.backend)
        self._native = self.backend.name == "numpy"

    # -- one set ------------------------------------------------------------------------------
    def entropies(self, candidates):
        """H (bits) of every probe over ``candidates`` (ascending answer indices), host float64."""
        xp = host().xp
        cand = xp.asarray(candidates, dtype=xp.int64)
        if cand.shape[0] <= 1:
            return xp.zeros(self.game.n_probes, dtype=xp.float64)
        if self._native:
            if self._compiled():
                return kern.entropies_single(self.matrix, cand, self.prior, self.n_bins)
            return npsweep.exact_entropies(self.matrix_t, cand, self.prior, self.n_bins)
        return self._entropies_array_api(cand)

    def _compiled(self) -> bool:
        """Use the compiled kernels for one set? Only once this process has loaded numba."""
        return numba_shim.loaded()

    def _first_k(self, entropies, cand, k: int):
        """The first ``k`` probes of the §5.2 order given their entropies (no numba unless loaded)."""
        if self._compiled():
            return _top_k(entropies, cand, self.probe_prior, k)
        return npsweep.top_k(entropies, cand, self.probe_prior, int(k))

    def _entropies_array_api(self, cand):
        hb = host()
        b = self.backend
        bx = b.xp
        w = npsweep.state_weights(self.prior, cand)
        idx = b.asarray(hb.to_numpy(cand), dtype="int64")
        codes = bx.take(self.matrix_dev, idx, axis=1)
        table = b.row_histogram(codes, b.asarray(w, dtype="float64"), self.n_bins)
        safe = bx.where(table > 0, table, bx.ones_like(table))
        h = -bx.sum(table * bx.log2(safe), axis=1)
        return host().xp.asarray(b.to_numpy(h), dtype=host().xp.float64)

    def entropy_of(self, probe: int, candidates) -> float:
        """H of one probe over ``candidates`` (host, exact same formula as the sweeps)."""
        xp = host().xp
        cand = xp.asarray(candidates, dtype=xp.int64)
        if self._compiled():
            return float(kern.entropy_row(self.matrix_t, cand, self.prior, int(probe), self.n_bins))
        return npsweep.entropy_row(self.matrix_t, cand, self.prior, int(probe), self.n_bins)

    def top(self, candidates, k: int):
        """The first ``k`` probes of the §5.2 order over ``candidates``: (indices, entropies)."""
        xp = host().xp
        cand = xp.asarray(candidates, dtype=xp.int64)
        if self._native and not self._compiled():  # the NumPy sweeps, exact floats, same choice
            top = npsweep.exact_top_k if cand.shape[0] > BIG_SET else npsweep.sweep_top_k
            return top(self.matrix_t, cand, self.prior, self.probe_prior, int(k), self.n_bins)
        if not self._native or cand.shape[0] > BIG_SET:
            return self._first_k(self.entropies(cand), cand, k)
        offsets = xp.asarray([0, cand.shape[0]], dtype=xp.int64)
        idx, ent = self.sweep(cand, offsets, xp.asarray([0], dtype=xp.int64), k)
        keep = idx[0] >= 0
        return idx[0][keep], ent[0][keep]

    # -- many sets ----------------------------------------------------------------------------
    def sweep(self, members, offsets, state_ids, k: int):
        """Batched sweeps: the first ``k`` probes (indices, entropies; -1 padded) of each state
        ``members[offsets[s]:offsets[s+1]]`` for ``s`` in ``state_ids``."""
        xp = host().xp
        state_ids = xp.asarray(state_ids, dtype=xp.int64)
        if not self._native:
            return self._sweep_array_api(members, offsets, state_ids, k)
        if state_ids.shape[0] == 1:
            s = int(state_ids[0])
            cand = members[int(offsets[s]):int(offsets[s + 1])]
            if cand.shape[0] > BIG_SET:  # one big set: parallel over the probes instead of states
                out_i = xp.full((1, k), -1, dtype=xp.int64)
                out_h = xp.zeros((1, k), dtype=xp.float64)
                i, h = self._first_k(self.entropies(cand), cand, k)
                out_i[0, : i.shape[0]] = i
                out_h[0, : h.shape[0]] = h
                return out_i, out_h
        return kern.sweep_top_k(self.matrix_t, members, offsets, state_ids, self.prior, self.probe_prior,
                                int(k), self.n_bins)

    @property
    def _chunk_fn(self):
        """The device part of one batched chunk, compiled when the backend can (JAX)."""
        if getattr(self, "_chunk_compiled", None) is None:
            fn = functools.partial(_chunk_entropies, self.backend, n_probes=self.game.n_probes,
                                   n_bins=self.n_bins)
            compile_ = getattr(self.backend, "compile", None)
            self._chunk_compiled = compile_(fn, static_argnames=("n_rows", "width")) if compile_ else fn
        return self._chunk_compiled

    def _sweep_array_api(self, members, offsets, state_ids, k: int):
        """Batched sweeps on a non-NumPy backend: states of similar size are padded to a common
        width (padding weight 0), their codes gathered in one ``take``, bucket weights from one
        ``row_histogram`` and H from array-API calls; the §5.2 top-k is taken on the host."""
        xp = host().xp
        b = self.backend
        bx = b.xp
        n_states = state_ids.shape[0]
        n_probes = self.game.n_probes
        out_i = xp.full((n_states, k), -1, dtype=xp.int64)
        out_h = xp.zeros((n_states, k), dtype=xp.float64)
        sizes = offsets[state_ids + 1] - offsets[state_ids]
        widths = [1 << max(0, int(m) - 1).bit_length() for m in sizes]
        by_width: dict = {}
        for t, wdt in enumerate(widths):
            by_width.setdefault(wdt, []).append(t)
        for wdt, rows in sorted(by_width.items()):
            per_call = max(1, ARRAY_API_CELLS // (n_probes * max(wdt, self.n_bins)))
            for c0 in range(0, len(rows), per_call):
                chunk = rows[c0 : c0 + per_call]
                n_rows = min(per_call, 1 << max(0, len(chunk) - 1).bit_length())  # few distinct shapes
                idx = xp.zeros((n_rows, wdt), dtype=xp.int64)
                wts = xp.zeros((n_rows, wdt), dtype=xp.float64)
                for r, t in enumerate(chunk):
                    s = int(state_ids[t])
                    lo, hi = int(offsets[s]), int(offsets[s + 1])
                    idx[r, : hi - lo] = members[lo:hi]
                    wts[r, : hi - lo] = npsweep.state_weights(self.prior, members[lo:hi])
                ent = self._chunk_fn(self.matrix_dev, b.asarray(xp.reshape(idx, (-1,)), dtype="int64"),
                                     b.asarray(wts, dtype="float64"), n_rows=n_rows, width=wdt)
                ent = xp.reshape(xp.asarray(b.to_numpy(ent), dtype=xp.float64), (n_rows, n_probes))
                for r, t in enumerate(chunk):
                    s = int(state_ids[t])
                    cand = members[int(offsets[s]):int(offsets[s + 1])]
                    i, h = self._first_k(ent[r], cand, k)
                    out_i[t, : i.shape[0]] = i
                    out_h[t, : h.shape[0]] = h
        return out_i, out_h


# --------------------------------------------------------------------------------------------
# Compiling the kernels once
# --------------------------------------------------------------------------------------------
def warm_up_kernels(game=None) -> None:
    """Run the common commands' kernel paths once on ``game`` (default: Termo), so that numba
    compiles them all in one sitting: the level-3 search of a suggestion and of big sets
    (serial and parallel sweeps and partitions, registry, values), batched level-2 decisions
    (large and small batches)
    and the one-set paths of a process that has loaded numba (big-set entropies, top-k, the
    reported bits). ``backends.numba_shim`` runs it the first time numba loads with a cold
    cache; it takes ~2 s once everything is compiled. (The batched ``Sweeper.sweep`` is left
    out: the level-3 engine sweeps with its own kernels on NumPy.)"""
    from termo.solver import Solver

    if game is None:
        from termo.games import termo_game

        game = termo_game()
    xp = host().xp
    level3 = Solver(game, level=3)
    matrix = level3.sweeper.matrix
    opener = game.index_of(game.default_opener or "") or 0
    codes = xp.asarray(matrix[opener])
    everything = xp.arange(game.n_answers, dtype=xp.int64)
    buckets = sorted((everything[codes == c] for c in set(codes.tolist()) if c != game.win_code),
                     key=lambda s: -s.shape[0])
    mid = next((s for s in buckets if s.shape[0] <= 250), buckets[-1])  # an interactive level-3 set
    level3.decide(mid, 2)
    level3.decide_many(buckets[:10], [2] * len(buckets[:10]))  # big searches: parallel partitions
    level2 = Solver(game, level=2)
    level2.decide_many(buckets, [2] * len(buckets))  # one large batch
    level2.decide_many(buckets[-2:], [2, 2])  # one small batch
    sweeper = level2.sweeper
    sweeper.top(everything, 6)
    sweeper.top(mid, 6)
    sweeper.entropy_of(opener, everything)


def _kernel_sources():
    """The kernel files the warm-up covers, and the modules whose calls decide their argument
    types (an edit to any of them warms up again)."""
    from pathlib import Path

    kernels = Path(kern.__file__).resolve()
    here = Path(__file__).resolve()
    return (kernels, kernels.with_name("kernels_tree.py"), here, here.with_name("level3.py"))


numba_shim.register_warm_up(warm_up_kernels, _kernel_sources())
