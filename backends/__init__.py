"""The array compute layer: an array-API namespace per library, plus the kernels the standard lacks.

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
