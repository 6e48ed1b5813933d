"""The backend object: an array-API namespace plus the few kernels the standard lacks.

Every kernel here is written with standard array-API calls only; it is the fallback that
array-api-strict runs in the tests. Library backends override a kernel with a faster native
implementation, and the tests check each one against a plain-Python oracle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backends.exact_ops import ExactSearchOps


@dataclass
class Backend(ExactSearchOps):
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

    def compile(self, func, static_argnames=()):
        """``func`` compiled for this backend where that helps (JAX: ``jax.jit``); else unchanged."""
        return func

    def describe(self) -> dict:
        return {"name": self.name, "version": self.version, "device": str(self.device)}

    def on_accelerator(self) -> bool:
        """Does this backend compute on a GPU/TPU (what ``--backend auto`` looks for)?"""
        return False

    # --- kernels the array API standard lacks ----------------------------------------------
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
        """Indices of the ``k`` largest keys, in descending order, ties to the lowest index."""
        xp = self.xp
        order = xp.argsort(xp.asarray(keys), descending=True, stable=True)
        return xp.astype(order[: min(k, order.shape[0])], xp.int64)


def _device_of(xp, arr):
    try:
        return arr.device
    except AttributeError:
        return None
