"""NumPy backend: the default, on the CPU.

Its namespace is ``array_api_compat.numpy``, loaded on first need: importing that module touches
every NumPy submodule (f2py, testing, random, ma ... ~0.1 s), which a short process need not pay.
:class:`HostNamespace` serves the names that ``array_api_compat.numpy`` takes unchanged from
NumPy straight from NumPy (the very same objects; a test checks the list against the installed
version), ``asarray``/``arange``/``zeros``/``full``/``empty``/``astype`` by thin wrappers with
the compat module's semantics for the host device, and everything else from the compat module
itself, imported the first time such a name is asked for.
"""

from __future__ import annotations

import io

import numpy as np

from backends.base import Backend

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


_WRAPPERS = {"asarray": asarray, "arange": arange, "zeros": zeros, "empty": empty, "full": full,
             "astype": astype}
_FAST = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 1)


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

    def row_histogram(self, codes, weights, n_bins: int):
        codes = np.asarray(codes)
        rows, m = codes.shape
        weights = np.asarray(weights, dtype=np.float64)
        flat = (codes.astype(np.int64) + (np.arange(rows, dtype=np.int64) * n_bins)[:, None]).ravel()
        w = np.broadcast_to(weights, (rows, m)).ravel()
        return np.bincount(flat, weights=w, minlength=rows * n_bins).reshape(rows, n_bins)

    def stable_top_k(self, keys, k: int):
        keys = np.asarray(keys)
        n = keys.shape[0]
        if k < n:
            # Only keys at least as large as the k-th largest can be selected.
            threshold = np.partition(keys, n - k)[n - k]
            pool = np.flatnonzero(keys >= threshold)
        else:
            pool = np.arange(n)
        sub = keys[pool]
        sub = sub.astype(np.float64) if sub.dtype.kind == "f" else sub.astype(np.int64)
        return pool[np.argsort(-sub, kind="stable")][:k].astype(np.int64)
