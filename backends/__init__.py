"""The array compute layer: an array-API namespace per library, plus the operations the domain needs.

The domain reaches every compiled or vectorised operation as a method of a :class:`Backend`
(see :mod:`backends.base`): the sweeps and picks (one array-API implementation for JAX, CuPy and
array-api-strict, compiled host kernels on NumPy) and the exact host bookkeeping of the searches.

``get_backend("numpy" | "jax" | "cupy" | "array-api-strict" | "auto")``; nothing heavy is imported
until a backend is asked for.
"""

from backends.base import Backend
from backends.registry import (
    BACKEND_NAMES,
    ENV_VAR,
    BackendUnavailable,
    available_backends,
    get_backend,
    host,
)

__all__ = [
    "BACKEND_NAMES",
    "ENV_VAR",
    "Backend",
    "BackendUnavailable",
    "available_backends",
    "get_backend",
    "host",
]
