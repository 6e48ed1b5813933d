"""NumPy backend: the default, on the CPU."""

from __future__ import annotations

import io

import numpy as np
from array_api_compat import numpy as xp_numpy

from backends.base import Backend


class NumpyBackend(Backend):
    def __init__(self) -> None:
        super().__init__(name="numpy", xp=xp_numpy, device=None, version=np.__version__)

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
