"""Shared fixtures: one ``backend`` fixture parametrised over every array backend.

Parameters (ids), in the spirit of array-api-extra's ``xp`` fixture:

* ``numpy``: the default backend (compiled host kernels);
* ``array-api-strict``: the standard and nothing else;
* ``array-api-strictest``: array-api-strict with boolean indexing and data-dependent shapes
  turned off (``set_array_api_strict_flags(boolean_indexing=False, data_dependent_shapes=False)``,
  restored after the test), what a compiling backend accepts inside a traced function;
* ``jax-cpu``: JAX on its CPU device (a non-default device where JAX sees a GPU);
* ``jax-gpu``: JAX on its first GPU, skipped with the reason where there is none;
* ``cupy``: CuPy on GPU 0, skipped with the reason where it is not installed or has no GPU.

A test that compares a backend with NumPy takes ``other_backend`` (every parameter but
``numpy``: no test compares NumPy with itself); one that checks a backend against a plain-Python
oracle takes ``backend``. Per-backend markers, each with its reason::

    @pytest.mark.skip_backend("array-api-strictest", reason="needs nonzero (data-dependent shape)")
    @pytest.mark.xfail_backend("jax-gpu", reason="...", strict=False)

``TERMO_TEST_BACKENDS`` (comma-separated ids) limits the parameters that run, e.g.
``TERMO_TEST_BACKENDS=numpy,cupy,jax-gpu`` on a GPU machine.
"""

from __future__ import annotations

import atexit
import copy
import os
import shutil
import tempfile

import pytest

from backends import BackendUnavailable, get_backend

BACKENDS = ("numpy", "array-api-strict", "array-api-strictest", "jax-cpu", "jax-gpu", "cupy")
SELECT_VAR = "TERMO_TEST_BACKENDS"

# Tests never touch the user's cache: one fresh cache folder per test session (per xdist worker).
# It is removed when the process ends (each holds a Termo matrix, over 1 GB with the extended one).
os.environ["TERMO_CACHE_DIR"] = tempfile.mkdtemp(prefix="termo-test-cache-")
atexit.register(shutil.rmtree, os.environ["TERMO_CACHE_DIR"], ignore_errors=True)
os.environ.pop("TERMO_BACKEND", None)


def pytest_configure(config):
    """Compile the kernels once before any test runs (in the controller, before xdist starts its
    workers): on a fresh clone the first kernel call compiles every command's kernels (~4 min) and says so on stderr,
    which would land in whichever test came first. Later runs only load the cached kernels."""
    import subprocess
    import sys

    config.addinivalue_line("markers", "skip_backend(*names, reason): skip the backend parameters named, "
                                       "saying why")
    config.addinivalue_line("markers", "xfail_backend(*names, reason, strict=True): expect the backend "
                                       "parameters named to fail, saying why")
    if hasattr(config, "workerinput") or os.environ.get("TERMO_NO_NUMBA"):
        return
    subprocess.run([sys.executable, "-c", "from cli.app import run; run()", "suggest", "tarso:BBBBB", "--level", "3"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800, check=False)


def _selected(name: str) -> bool:
    chosen = os.environ.get(SELECT_VAR, "").strip()
    return not chosen or name in {part.strip() for part in chosen.split(",")}


def load_backend(name: str):
    """The backend of a fixture id (see the module doc), or a skip with the reason."""
    if not _selected(name):
        pytest.skip(f"{name}: not in ${SELECT_VAR}")
    library = {"array-api-strictest": "array-api-strict", "jax-cpu": "jax", "jax-gpu": "jax"}.get(name, name)
    try:
        backend = get_backend(library)
    except BackendUnavailable as err:
        pytest.skip(f"{name} backend unavailable here: {err}")
    if name.startswith("jax-"):
        return _jax_on(backend, "cpu" if name == "jax-cpu" else "gpu")
    return backend


def _jax_on(backend, platform: str):
    """The JAX backend on its first ``platform`` device (a copy when that is not its default)."""
    import jax

    try:
        devices = jax.devices(platform)
    except RuntimeError:
        devices = []
    if not devices:
        pytest.skip(f"jax-{platform}: JAX sees no {platform.upper()} here")
    if backend.device == devices[0]:
        return backend
    other = copy.copy(backend)  # same library, another device: its own compiled ops and caches
    other.__dict__.pop("_compiled_ops", None)
    other.device = devices[0]
    other.name = f"jax-{platform}"  # caches keyed by the backend's name keep the devices apart
    return other


def _apply_markers(request, name: str) -> None:
    for mark in request.node.iter_markers("skip_backend"):
        if name in mark.args:
            reason = mark.kwargs.get("reason")
            if not reason:
                raise ValueError(f"skip_backend({name!r}) needs a reason")
            pytest.skip(f"{name}: {reason}")
    for mark in request.node.iter_markers("xfail_backend"):
        if name in mark.args:
            reason = mark.kwargs.get("reason")
            if not reason:
                raise ValueError(f"xfail_backend({name!r}) needs a reason")
            request.applymarker(pytest.mark.xfail(reason=f"{name}: {reason}", strict=mark.kwargs.get("strict", True)))


def _strictest():
    """Turn array-api-strict's boolean indexing and data-dependent shapes off; returns the undo."""
    import array_api_strict

    before = array_api_strict.get_array_api_strict_flags()
    array_api_strict.set_array_api_strict_flags(boolean_indexing=False, data_dependent_shapes=False)
    return lambda: array_api_strict.set_array_api_strict_flags(
        boolean_indexing=before["boolean_indexing"], data_dependent_shapes=before["data_dependent_shapes"])


def _backend_param(request):
    name = request.param
    _apply_markers(request, name)
    backend = load_backend(name)
    if name != "array-api-strictest":
        yield backend
        return
    undo = _strictest()
    try:
        yield backend
    finally:
        undo()


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Each array backend in turn (skipped with a reason where it cannot run)."""
    yield from _backend_param(request)


@pytest.fixture(params=[b for b in BACKENDS if b != "numpy"])
def other_backend(request):
    """Every backend but NumPy, to compare against the NumPy result."""
    yield from _backend_param(request)


@pytest.fixture(scope="session")
def game():
    from termo.games.termo_pt import termo_game

    return termo_game()


@pytest.fixture(scope="session")
def extended_game():
    from termo.games.termo_pt import termo_game

    return termo_game(extended=True)
