"""NumPy backend: the default, on the CPU.

Its namespace is ``array_api_compat.numpy``, loaded on first need: importing that module touches
every NumPy submodule (f2py, testing, random, ma ... ~0.1 s), which a short process need not pay.
:class:`HostNamespace` serves the names that ``array_api_compat.numpy`` takes unchanged from
NumPy straight from NumPy (the very same objects; a test checks the list against the installed
version), ``asarray``/``arange``/``zeros``/``ones``/``full``/``empty``/``astype`` and the
``unique_values``/``nonzero``/``argsort`` the searches ask for by thin wrappers with the compat
module's semantics for the host device, ``cumulative_sum`` by NumPy's own (the same values and
dtypes), and everything else from the compat module itself, imported the first time such a name
is asked for: a level-3 suggestion never imports it.
"""

from __future__ import annotations

import io

import numpy as np

from backends.array_api_ops import flat_bins
from backends.base import Backend
from backends.host_ops.search import numba_loaded, order_top_k
from backends.numba_shim import HAVE_NUMBA

# Names array_api_compat.numpy re-exports from NumPy unchanged (``compat.name is numpy.name``),
# for NumPy >= 2.1; tests/test_startup.py checks the list against the installed packages.
SAME_AS_NUMPY = frozenset("""
    abs acos acosh add all any argmax argmin asin asinh atan atan2 atanh bitwise_and
    bitwise_invert bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor bool
    broadcast_arrays broadcast_shapes broadcast_to can_cast concat copysign cos cosh
    cumprod cumsum diff divide dtype e equal exp expand_dims expm1 flip float16 float32 float64
    floor_divide greater greater_equal hypot imag inf int16 int32 int64 int8 isdtype isfinite
    isin isinf isnan less less_equal lexsort log log10 log1p log2 logaddexp logical_and
    logical_not logical_or logical_xor max maximum mean min minimum moveaxis multiply nan
    ndarray negative nextafter not_equal pi positive pow prod real reciprocal remainder
    repeat reshape result_type rint round searchsorted signbit sin sinh sqrt square squeeze
    stack subtract sum take tan tanh tile uint16 uint32 uint64 uint8 unstack where bincount
    flatnonzero ascontiguousarray
""".split())


def _check_host(device) -> None:
    if device not in (None, "cpu"):
        raise ValueError(f"Unsupported device for NumPy: {device!r}")


def asarray(obj, /, *, dtype=None, device=None, copy=None, **kwargs):
    """``array_api_compat.numpy.asarray`` for the host."""
    _check_host(device)
    return np.array(obj, copy=copy, dtype=dtype, **kwargs)  # NumPy 2: None = only if needed


def arange(start, /, stop=None, step=1, *, dtype=None, device=None, **kwargs):
    _check_host(device)
    return np.arange(start, stop=stop, step=step, dtype=dtype, **kwargs)


def zeros(shape, *, dtype=None, device=None, **kwargs):
    _check_host(device)
    return np.zeros(shape, dtype=dtype, **kwargs)


def empty(shape, *, dtype=None, device=None, **kwargs):
    _check_host(device)
    return np.empty(shape, dtype=dtype, **kwargs)


def full(shape, fill_value, *, dtype=None, device=None, **kwargs):
    _check_host(device)
    return np.full(shape, fill_value, dtype=dtype, **kwargs)


def astype(x, dtype, /, *, copy=True, device=None):
    _check_host(device)
    return x.astype(dtype=dtype, copy=copy)


def ones(shape, *, dtype=None, device=None, **kwargs):
    _check_host(device)
    return np.ones(shape, dtype=dtype, **kwargs)


def unique_values(x, /):
    """The distinct values of ``x``, flattened and sorted (NaNs kept apart, as the standard says)."""
    return np.unique(x, equal_nan=False)


def nonzero(x, /):
    if x.ndim == 0:
        raise ValueError("nonzero() takes an array of at least one dimension")
    return np.nonzero(x)


def argsort(x, /, *, axis=-1, descending=False, stable=True, **kwargs):
    """The standard's argsort: stable by default; descending keeps equal keys in their order."""
    if stable:
        kwargs["kind"] = "stable"
    if not descending:
        return np.argsort(x, axis=axis, **kwargs)
    # sort the reversed keys ascending, then read that order backwards: equal keys stay in order
    last = x.shape[axis] - 1
    return last - np.flip(np.argsort(np.flip(x, axis=axis), axis=axis, **kwargs), axis=axis)


_FAST = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 1)
_WRAPPERS = {"asarray": asarray, "arange": arange, "zeros": zeros, "empty": empty, "full": full,
             "astype": astype, "ones": ones, "unique_values": unique_values, "nonzero": nonzero,
             "argsort": argsort}
if _FAST:
    # NumPy >= 2.1 has the standard's cumulative_sum itself: the compat module's (a cumsum with a
    # zero put first for include_initial) gives the same values and dtypes (tests/test_startup.py),
    # and asking the compat module for it would import all of it for one call of the level-3 search
    _WRAPPERS["cumulative_sum"] = np.cumulative_sum


class HostNamespace:
    """``array_api_compat.numpy``, imported only when a name it changes is first asked for."""

    __slots__ = ("__dict__",)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if _FAST and name in SAME_AS_NUMPY:
            value = getattr(np, name)
        elif _FAST and name in _WRAPPERS:
            value = _WRAPPERS[name]
        else:
            value = getattr(compat_namespace(), name)
        self.__dict__[name] = value
        return value

    def __dir__(self):
        return dir(compat_namespace())

    def __repr__(self) -> str:
        return "<array_api_compat.numpy (loaded on first need)>"


def compat_namespace():
    """The ``array_api_compat.numpy`` module itself."""
    from array_api_compat import numpy as xp_numpy

    return xp_numpy


class NumpyBackend(Backend):
    def __init__(self) -> None:
        super().__init__(name="numpy", xp=HostNamespace(), device=None, version=np.__version__)

    def asarray(self, obj, dtype=None):
        if isinstance(dtype, str):
            dtype = getattr(np, dtype)
        return np.asarray(obj, dtype=dtype)

    def to_numpy(self, arr):
        return np.asarray(arr)

    # --- host storage (the NumPy backend is the host) ----------------------------------------
    def array_bytes(self, arr) -> bytes:
        """``arr`` in ``.npy`` format."""
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(arr), allow_pickle=False)
        return buffer.getvalue()

    def contiguous(self, arr):
        """A C-contiguous copy of ``arr`` (or ``arr`` itself when it already is)."""
        return np.ascontiguousarray(arr)

    def load_array(self, path):
        """A read-only memory map of the ``.npy`` file, or None when it is missing or damaged."""
        try:
            return np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError, EOFError):
            return None

    def npy_header(self, shape, dtype) -> bytes:
        """The ``.npy`` header ``np.save`` writes before a C-ordered array of ``shape`` and ``dtype``."""
        buffer = io.BytesIO()
        np.lib.format.write_array_header_1_0(buffer, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                                                      "fortran_order": False, "shape": tuple(shape)})
        return buffer.getvalue()

    def write_band(self, fd: int, block, offset: int, stride: int) -> None:
        """Write row ``i`` of the 2-D ``block`` at byte ``offset + i * stride`` of the open file
        ``fd``: a band of columns of a row-major matrix on disk (:mod:`backends.file_rows`)."""
        from backends.file_rows import write_band

        write_band(fd, block, offset, stride)

    def take_rows(self, matrix, rows):
        from backends.file_rows import take_rows

        return take_rows(matrix, rows)

    def read_cells(self, arr, rows, cols) -> list[int]:
        """``arr[rows[i], cols[i]]`` as Python ints; a memory-mapped array is read from its file
        (:mod:`backends.file_rows`: no page of the map becomes part of the process)."""
        from backends.file_rows import take_cells

        return take_cells(arr, rows, cols).tolist()

    def row_histogram(self, codes, weights, n_bins: int):
        flat, w, rows = flat_bins(np, codes, weights, n_bins)
        return np.bincount(flat, weights=w, minlength=rows * n_bins).reshape(rows, n_bins)

    def stable_top_k(self, keys, k: int):
        keys = np.asarray(keys)
        if keys.ndim != 1:
            order = np.argsort(-_sort_key(keys), axis=-1, kind="stable")
            return order[..., :k].astype(np.int64)
        n = keys.shape[0]
        if k < n:
            # Only keys at least as large as the k-th largest can be selected.
            threshold = np.partition(keys, n - k)[n - k]
            pool = np.flatnonzero(keys >= threshold)
        else:
            pool = np.arange(n)
        return pool[np.argsort(-_sort_key(keys[pool]), kind="stable")][:k].astype(np.int64)

    # --- the hot search operations: compiled host kernels ------------------------------------
    # (the array-API versions of backends.array_api_ops run where numba is missing or disabled)
    host_tree_sweeps = True  # the level-3 search sweeps with the pruned tree kernel (same lists)

    def sweeps_one_set_apart(self, n: int) -> bool:
        """A lone set of more than `BIG_SET` candidates is swept probe-parallel on the row-major
        matrix, every probe's exact entropy then the §5.2 top-k (`top_probes`, `sweep_top_k`)."""
        return int(n) > BIG_SET

    def probe_entropies(self, tables, members):
        cand = np.asarray(members, dtype=np.int64)
        if cand.shape[0] <= 1:
            return np.zeros(tables.n_probes, dtype=np.float64)
        if numba_loaded():
            from backends.file_rows import file_of
            from backends.kernels import entropy

            if file_of(tables.matrix_host) is None:
                return entropy.entropies_single(tables.matrix_host, cand, tables.prior, tables.n_bins)
            return _entropies_by_blocks(entropy.entropies_single, tables, cand)
        from backends import numpy_sweep

        return numpy_sweep.exact_entropies(tables.layouts(), cand, tables.prior, tables.n_bins)

    def table_probe_entropy(self, tables, members, probe: int) -> float:
        """Until numba is loaded, the whole-array NumPy sweep of one probe, its codes read from the
        smaller side of the cached files (every answer: one probes-major row); then the kernel on
        the answers-major map, as the batched sweeps read it (the same floats)."""
        if numba_loaded():
            return super().table_probe_entropy(tables, members, probe)
        from backends import numpy_sweep

        return numpy_sweep.entropy_row(tables.layouts(), np.asarray(members, dtype=np.int64), tables.prior,
                                       int(probe), int(tables.n_bins))

    def top_probes(self, tables, members, k: int):
        """One set's first ``k`` probes: until numba is loaded the whole-array NumPy sweeps (the
        same floats and choice), then the batched kernel (a small set) or every probe's exact
        entropy and the §5.2 top-k (a big set, probe-parallel on the row-major matrix)."""
        cand = np.asarray(members, dtype=np.int64)
        if not numba_loaded():
            from backends import numpy_sweep

            top = numpy_sweep.exact_top_k if cand.shape[0] > BIG_SET else numpy_sweep.sweep_top_k
            return top(tables.layouts(), cand, tables.prior, tables.probe_prior, int(k), tables.n_bins)
        if cand.shape[0] > BIG_SET:
            return order_top_k(self.probe_entropies(tables, cand), cand, tables.probe_prior, k)
        offsets = np.asarray([0, cand.shape[0]], dtype=np.int64)
        idx, ent = self.sweep_top_k(tables, cand, offsets, np.asarray([0], dtype=np.int64), k)
        keep = idx[0] >= 0
        return idx[0][keep], ent[0][keep]

    def sweep_top_k(self, tables, members, offsets, state_ids, k: int):
        from backends.kernels import sweeps

        state_ids = np.asarray(state_ids, dtype=np.int64)
        if state_ids.shape[0] == 1:
            s = int(state_ids[0])
            cand = members[int(offsets[s]):int(offsets[s + 1])]
            if cand.shape[0] > BIG_SET:  # one big set: parallel over the probes instead of states
                out_i = np.full((1, k), -1, dtype=np.int64)
                out_h = np.zeros((1, k), dtype=np.float64)
                i, h = order_top_k(self.probe_entropies(tables, cand), cand, tables.probe_prior, k)
                out_i[0, :i.shape[0]] = i
                out_h[0, :h.shape[0]] = h
                return out_i, out_h
        return sweeps.sweep_top_k(tables.matrix_t, members, offsets, state_ids, tables.prior,
                                           tables.probe_prior, int(k), tables.n_bins)

    def best_probe_plan(self, matrix, probe_prior):
        if not HAVE_NUMBA:
            return super().best_probe_plan(matrix, probe_prior)
        return {"matrix": np.asarray(matrix), "probe_prior": np.asarray(probe_prior, dtype=np.float64),
                "order": None}  # the full-split scan order, built on first use

    def best_probes(self, plan, members, offsets, prior, win_code: int, n_bins: int, **_):
        if "order" not in plan:
            return super().best_probes(plan, members, offsets, prior, win_code, n_bins)
        from backends.kernels import fullbeam as kf

        if plan["order"] is None:
            plan["order"] = kf.scan_order(plan["matrix"], plan["probe_prior"])
        return kf.best_probes_numba(plan["matrix"], members, offsets, prior, plan["probe_prior"], win_code, n_bins,
                                    order=plan["order"])

    def probes_at_least(self, plan, members, prior, floor_h: float, win_code: int, n_bins: int):
        members = np.ascontiguousarray(members, dtype=np.int32)
        weights = np.asarray(prior, dtype=np.float64)[members]
        from backends.kernels import fullbeam as kf
        from backends.kernels import fullbeam_counts as kc

        if ("order" not in plan or not 2 <= members.shape[0] <= kc.MAX_COUNT
                or np.any(weights != weights[0])):  # the count bound needs equal weights
            return super().probes_at_least(plan, members, prior, floor_h, win_code, n_bins)
        if plan["order"] is None:
            plan["order"] = kf.scan_order(plan["matrix"], plan["probe_prior"])
        probe_order, order_t = plan["order"]
        return kc.near_best(order_t, probe_order, members, floor_h, n_bins)

    def state_entropies(self, matrix, members, prior, win_code: int, n_bins: int):
        if not HAVE_NUMBA:
            return super().state_entropies(matrix, members, prior, win_code, n_bins)
        from backends.kernels import fullbeam as kf

        members = np.ascontiguousarray(members, dtype=np.int32)
        offsets = np.asarray([0, members.shape[0]], dtype=np.int64)
        w, wl, _ = kf.state_weights(np.ascontiguousarray(prior, dtype=np.float64), members, offsets)
        h, inc = kf._entropies_one_state(np.asarray(matrix), members, w, wl, win_code, n_bins)
        return h, inc.astype(bool)


BIG_SET = 256  # above this size one set is swept probe-parallel on the row-major matrix
_BLOCK_BYTES = 32 << 20  # rows of a mapped matrix read at once by _entropies_by_blocks


def _entropies_by_blocks(kernel, tables, cand):
    """``kernel`` (``entropies_single``) over a memory-mapped (probes × answers) matrix, a block
    of rows read from its file at a time (through the map, the whole file became part of the
    process). Each probe's entropy depends on its own row alone: the same floats."""
    from backends.file_rows import take_rows

    matrix = tables.matrix_host
    n_probes, n_answers = matrix.shape
    step = max(64, _BLOCK_BYTES // max(1, n_answers * matrix.dtype.itemsize) // 64 * 64)
    out = np.empty(n_probes, dtype=np.float64)
    for start in range(0, n_probes, step):
        stop = min(n_probes, start + step)
        rows = take_rows(matrix, np.arange(start, stop, dtype=np.int64))
        rows.flags.writeable = False  # the type the kernel was compiled for (a cached layout's)
        out[start:stop] = kernel(rows, cand, tables.prior, tables.n_bins)
    return out


def _sort_key(keys):
    return keys.astype(np.float64) if keys.dtype.kind == "f" else keys.astype(np.int64)
