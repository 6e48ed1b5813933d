"""The backend object: an array-API namespace plus the operations the domain needs.

The domain (``termo``) reaches every compiled or vectorised operation as a method of a
:class:`Backend`; it never asks which library a backend is and never imports a kernel module.
It carries only what differs by array library (einops' backends are the model: every framework
difference is a method of its backend class, nothing else). The methods come in two groups:

* conversions and two array primitives the standard lacks (``row_histogram``, ``stable_top_k``),
  here with standard array-API calls only;
* the hot search operations (:class:`backends.array_api_ops.ArrayApiOps`): the batched §5.2
  top-k sweep, one set's entropies and first probes, the full-beam best probe per state and a
  state's probe entropies. One shared array-API implementation serves JAX, CuPy and
  array-api-strict (the arrays stay on the device; the host gets one small result per batch);
  :class:`backends.numpy_backend.NumpyBackend` overrides them with the compiled host kernels.

The exact host bookkeeping of the level-3 search and the greedy tree (state registries,
partitions into children, value reductions, the §5.2 order of host entropies) and the exact
solver's engine are the same compiled host code whichever backend sweeps: they are plain
functions of :mod:`backends.host_ops` (``search``, ``exact``), not methods.

The tests check every method against a plain-Python oracle and every backend against NumPy
(integers and decisions identical, floats within 1e-12).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from backends.array_api_ops import ArrayApiOps


@dataclass(frozen=True)
class SweepTables:
    """What the entropy sweeps of one game under one prior read, prepared once by the caller.

    ``matrix`` is the (probes × answers) pattern matrix on the backend (the host array itself on
    NumPy), ``matrix_host`` the same on the host (read-only), ``matrix_t`` the host answers-major
    copy (answers × probes, C-contiguous); ``prior`` one float64 weight per answer,
    ``probe_prior`` one per probe (the §5.2 tie-break), ``n_bins`` the number of feedback codes;
    ``extra`` holds what a backend derives from them once (device copies, the §5.2 rank key).
    """

    matrix: Any
    matrix_host: Any
    matrix_t: Any
    prior: Any
    probe_prior: Any
    n_bins: int
    extra: dict = field(default_factory=dict, compare=False, repr=False)  # device arrays a backend derives

    @property
    def n_probes(self) -> int:
        return int(self.matrix_host.shape[0])

    def layouts(self):
        """The two host layouts as one :class:`backends.file_rows.Layouts` (made once): what the
        whole-array NumPy sweeps and :meth:`Backend.table_probe_entropy` read a state's codes
        from, a mapped layout's rows read from its file rather than through the map."""
        got = self.extra.get("layouts")
        if got is None:
            from backends.file_rows import Layouts

            got = self.extra["layouts"] = Layouts(self.matrix_host, self.matrix_t)
        return got


@dataclass
class Backend(ArrayApiOps):
    name: str
    xp: Any  # array-API namespace
    device: Any = None
    version: str = ""

    # --- conversions ------------------------------------------------------------------------
    def asarray(self, obj, dtype=None):
        """``obj`` as an array of this backend, on its device."""
        if isinstance(dtype, str):
            dtype = getattr(self.xp, dtype)
        if self.device is None:
            return self.xp.asarray(obj, dtype=dtype)
        return self.xp.asarray(obj, dtype=dtype, device=self.device)

    def to_numpy(self, arr):
        """A host NumPy copy (or view) of ``arr``."""
        import numpy as np

        return np.asarray(arr)

    def dtype(self, name: str):
        return getattr(self.xp, name)

    def table_probe_entropy(self, tables, members, probe: int) -> float:
        """H (bits) of one probe over ``members`` (ascending) under the prior of ``tables``
        (:class:`SweepTables`), in the reference's exact float order: the host's
        :func:`backends.host_ops.search.probe_entropy` on the answers-major matrix (NumPy without
        numba: the probe's codes read from the cached files)."""
        from backends.host_ops import search

        return search.probe_entropy(tables.matrix_t, members, tables.prior, int(probe), tables.n_bins)

    def take_rows(self, matrix, rows):
        """``matrix[rows]`` on this backend: ``rows`` host int64 indices of a 2-D ``matrix``
        (NumPy: a memory-mapped matrix is read from its file, :mod:`backends.file_rows`)."""
        return self.xp.take(matrix, self.asarray(rows, dtype="int64"), axis=0)

    def compile(self, func, static_argnames=()):
        """``func`` compiled for this backend where that helps (JAX: ``jax.jit``); else unchanged."""
        return func

    def describe(self) -> dict:
        # NumPy has no device object: its arrays live in host memory, "cpu"
        return {"name": self.name, "version": self.version,
                "device": "cpu" if self.device is None else str(self.device)}

    def on_accelerator(self) -> bool:
        """Does this backend compute on a GPU/TPU (what ``--backend auto`` looks for)?"""
        return False

    # Does the level-3 search sweep its frontier with the host's pruned tree sweep
    # (:func:`backends.host_ops.search.tree_sweep_top_k`, whose lists equal this backend's ``sweep_top_k``
    # bit for bit)? True only where the sweeps run on the host anyway (NumPy).
    host_tree_sweeps = False

    def sweeps_one_set_apart(self, n: int) -> bool:
        """Does this backend sweep a lone set of ``n`` candidates on a path of its own, apart from
        its batched sweep of many states (``sweep_top_k``)? Callers that batch states then ask such
        sets on their own, and the level-3 search sweeps such a lone set with this backend's own
        sweep. False here: every set goes through the batched sweep."""
        return False

    def bucket(self, n: int) -> int:
        """The padded size of an axis of ``n`` entries in the batched device computations: a
        power of two, so a compiling backend sees few distinct shapes (padding has weight 0)."""
        return 1 << max(0, int(n) - 1).bit_length()

    # --- array primitives the array API standard lacks --------------------------------------
    def row_histogram(self, codes, weights, n_bins: int):
        """``out[r, b] = Σ_j weights[(r,) j] · [codes[r, j] == b]`` as float64, shape (R, n_bins)."""
        xp = self.xp
        codes = xp.asarray(codes)
        weights = xp.asarray(weights, dtype=xp.float64)
        if weights.ndim == 1:
            weights = xp.broadcast_to(weights[None, :], codes.shape)
        rows = codes.shape[0]
        bins = xp.arange(n_bins, dtype=codes.dtype, device=_device_of(xp, codes))
        out = []
        chunk = max(1, 4_000_000 // max(1, codes.shape[1] * n_bins))
        for start in range(0, rows, chunk):
            stop = min(rows, start + chunk)
            c = codes[start:stop, :]
            w = weights[start:stop, :]
            onehot = c[:, :, None] == bins[None, None, :]
            out.append(xp.sum(xp.where(onehot, w[:, :, None], 0.0), axis=1))
        if not out:
            return xp.zeros((0, n_bins), dtype=xp.float64)
        return xp.concat(out, axis=0)

    def stable_top_k(self, keys, k: int):
        """Indices of the ``k`` largest keys along the last axis, in descending order, ties to the
        lowest index (1-D keys, or a batch of rows). The device §5.2 top-k of the batched sweeps
        is this over one integer key per probe (:mod:`backends.array_api_ops`)."""
        xp = self.xp
        order = xp.argsort(xp.asarray(keys), axis=-1, descending=True, stable=True)
        return xp.astype(order[..., : min(k, order.shape[-1])], xp.int64)


def _device_of(xp, arr):
    try:
        return arr.device
    except AttributeError:
        return None
