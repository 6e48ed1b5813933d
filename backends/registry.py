"""Lazy registry of array backends: a library is imported only when its backend is asked for."""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading


# name -> (module holding the class, class name, import name of the library, pip extra)
_SPECS = {
    "numpy": ("backends.numpy_backend", "NumpyBackend", "numpy", ""),
    "jax": ("backends.jax_backend", "JaxBackend", "jax", "jax"),
    "cupy": ("backends.cupy_backend", "CupyBackend", "cupy", "cuda"),
    "array-api-strict": ("backends.strict_backend", "StrictBackend", "array_api_strict", "test"),
}
BACKEND_NAMES = tuple(_SPECS)
AUTO_ORDER = ("cupy", "jax", "numpy")
ENV_VAR = "TERMO_BACKEND"

_instances: dict = {}
_lock = threading.Lock()


class BackendUnavailable(ValueError):
    """The backend asked for is not installed or has no device (its message is one line for the user)."""


def _library_installed(import_name: str) -> bool:
    return importlib.util.find_spec(import_name) is not None


def _instantiate(name: str):
    module_name, class_name, import_name, extra = _SPECS[name]
    if not _library_installed(import_name):
        hint = f"pip install 'termo[{extra}]'" if extra else "pip install numpy"
        raise BackendUnavailable(f"backend '{name}' is not installed: {hint}")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
        return cls()
    except BackendUnavailable:
        raise
    except Exception as err:  # a library that imports but cannot run (no GPU, broken driver)
        raise BackendUnavailable(f"backend '{name}' cannot start: {err}") from None


def get_backend(name=None):
    """The backend called ``name`` (see module doc); ``None`` reads ``$TERMO_BACKEND``, else numpy."""
    from backends.base import Backend

    if isinstance(name, Backend):
        return name
    name = (name or os.environ.get(ENV_VAR) or "numpy").strip().lower()
    if name in ("strict", "array_api_strict"):
        name = "array-api-strict"
    if name == "auto":
        for candidate in AUTO_ORDER:
            try:
                return get_backend(candidate)
            except BackendUnavailable:
                continue
    if name not in _SPECS:
        raise BackendUnavailable(f"unknown backend '{name}'; choose one of: auto, {', '.join(BACKEND_NAMES)}")
    with _lock:
        if name not in _instances:
            _instances[name] = _instantiate(name)
        return _instances[name]


def host():
    """The NumPy backend, for host-side bookkeeping."""
    return get_backend("numpy")


def available_backends() -> list[dict]:
    """Every known backend: installed or not, its version and devices, or why it cannot run."""
    rows = []
    for name, (_, _, import_name, extra) in _SPECS.items():
        row = {"name": name, "installed": _library_installed(import_name), "extra": extra}
        if row["installed"]:
            try:
                backend = get_backend(name)
                row.update(usable=True, version=backend.version, device=backend.describe()["device"])
            except BackendUnavailable as err:
                row.update(usable=False, reason=str(err))
        else:
            row.update(usable=False, reason=f"not installed (extra [{extra}])" if extra else "not installed")
        rows.append(row)
    return rows
