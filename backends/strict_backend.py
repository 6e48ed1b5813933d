"""array-api-strict backend: the standard and nothing else, to prove the fallbacks portable."""

from __future__ import annotations

from backends.base import Backend


class StrictBackend(Backend):
    def __init__(self) -> None:
        import array_api_strict

        super().__init__(
            name="array-api-strict",
            xp=array_api_strict,
            device=array_api_strict.Device("CPU_DEVICE"),
            version=array_api_strict.__version__,
        )

    def to_numpy(self, arr):
        import numpy as np

        return np.asarray(arr._array) if hasattr(arr, "_array") else np.asarray(arr)
