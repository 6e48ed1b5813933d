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
AUTO_ORDER = ("cupy", "jax", "numpy")  # cupy and jax only with an accelerator device
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


def check_name(name: str) -> str:
    """The canonical backend name for ``name`` (``auto`` included, nothing imported);
    `BackendUnavailable` naming the choices when there is no such backend."""
    name = str(name).strip().lower()
    if name in ("strict", "array_api_strict"):
        name = "array-api-strict"
    if name != "auto" and name not in _SPECS:
        raise BackendUnavailable(f"unknown backend '{name}'; choose one of: auto, {', '.join(BACKEND_NAMES)}")
    return name


def get_backend(name=None):
    """The backend called ``name`` (see module doc); ``None`` reads ``$TERMO_BACKEND``, else numpy."""
    from backends.base import Backend

    if isinstance(name, Backend):
        return name
    name = check_name(name or os.environ.get(ENV_VAR) or "numpy")
    if name == "auto":
        return _auto()
    with _lock:
        if name not in _instances:
            _instances[name] = _instantiate(name)
        return _instances[name]


def _auto():
    """CuPy or JAX when they have an accelerator device here, else NumPy: JAX on the CPU runs
    the same sweeps several times slower than NumPy's compiled kernels, so it is never chosen."""
    for candidate in AUTO_ORDER[:-1]:
        if not _may_accelerate(candidate):
            continue
        try:
            backend = get_backend(candidate)
        except BackendUnavailable:
            continue
        if backend.on_accelerator():
            return backend
    return get_backend(AUTO_ORDER[-1])


# Packages through which JAX (>= 0.4.30) finds GPUs and TPUs; without one of them JAX can only
# run on the CPU, and importing it (~1 s) just to learn that is not worth it.
_JAX_ACCELERATOR_MODULES = ("jax_plugins", "jax_cuda12_plugin", "jax_cuda13_plugin", "jax_rocm60_plugin",
                            "jax_rocm7_plugin", "libtpu")


def _may_accelerate(name: str) -> bool:
    """Could backend ``name`` have an accelerator here? A cheap look, without importing it."""
    _, _, import_name, _ = _SPECS[name]
    if not _library_installed(import_name):
        return False
    if name != "jax":
        return True  # CupyBackend itself refuses to start without a CUDA device
    platforms = os.environ.get("JAX_PLATFORMS", "").strip().lower()
    if platforms:
        return any(p.strip() not in ("", "cpu") for p in platforms.split(","))
    if any(_library_installed(module) for module in _JAX_ACCELERATOR_MODULES):
        return True
    try:
        from importlib.metadata import entry_points

        return bool(entry_points(group="jax_plugins"))
    except Exception:  # noqa: BLE001 - a broken metadata store: look for real
        return True


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


def load_kernels() -> None:
    """Bind the compiled host kernels now (numba: compiled first on a cold kernel cache) rather
    than at the first kernel call; nothing without numba or with TERMO_NO_NUMBA."""
    from backends import numba_shim

    numba_shim.load()
