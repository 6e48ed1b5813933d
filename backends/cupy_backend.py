"""CuPy backend (NVIDIA GPU)."""

from __future__ import annotations

from backends.array_api_ops import flat_bins
from backends.base import Backend


class CupyBackend(Backend):
    def __init__(self) -> None:
        import cupy
        from array_api_compat import cupy as xp_cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
        self._cp = cupy
        super().__init__(name="cupy", xp=xp_cupy, device=cupy.cuda.Device(0), version=cupy.__version__)

    def asarray(self, obj, dtype=None):
        if isinstance(dtype, str):
            dtype = getattr(self.xp, dtype)  # the array-API names ("bool", "int64", "float64")
        return self._cp.asarray(obj, dtype=dtype)

    def to_numpy(self, arr):
        return self._cp.asnumpy(arr)

    def on_accelerator(self) -> bool:
        return True  # __init__ refuses to start without a CUDA device

    def describe(self) -> dict:
        props = self._cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        return {"name": self.name, "version": self.version, "device": name}

    def row_histogram(self, codes, weights, n_bins: int):
        cp = self._cp
        flat, w, rows = flat_bins(cp, codes, weights, n_bins)
        return cp.bincount(flat, weights=w, minlength=rows * n_bins).reshape(rows, n_bins)

    def stable_top_k(self, keys, k: int):
        cp = self._cp
        keys = cp.asarray(keys)
        keys = keys.astype(cp.float64) if keys.dtype.kind == "f" else keys.astype(cp.int64)
        return cp.argsort(-keys, axis=-1, kind="stable")[..., :k].astype(cp.int64)
