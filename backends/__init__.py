"""The array compute layer: an array-API namespace per library, plus the operations the domain needs.

The domain reaches every compiled or vectorised operation that differs by library as a method of
a :class:`Backend` (see :mod:`backends.base`): the sweeps and picks (one array-API implementation
for JAX, CuPy and array-api-strict, compiled host kernels on NumPy). The exact host bookkeeping of
the searches, the same on every backend, is plain functions of :mod:`backends.host_ops`.

``get_backend("numpy" | "jax" | "cupy" | "array-api-strict" | "auto")``; nothing heavy is imported
until a backend is asked for.
"""

_EXPORTS = {
    "Backend": "backends.base",
    "BACKEND_NAMES": "backends.registry",
    "ENV_VAR": "backends.registry",
    "BackendUnavailable": "backends.registry",
    "available_backends": "backends.registry",
    "get_backend": "backends.registry",
    "host": "backends.registry",
    "load_kernels": "backends.registry",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    """The exports load on first use, so that importing a submodule (``backends.host_ops.sources``) or
    the package itself imports no array library."""
    if name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'backends' has no attribute {name!r}")
