"""Shared fixtures: one ``backend`` fixture parametrised over every array backend.

Every kernel test takes ``backend`` and so runs on NumPy, JAX, array-api-strict and CuPy; a
backend that is not installed (or has no GPU) is skipped with the reason.
"""

from __future__ import annotations

import os
import tempfile

import pytest

from backends import BackendUnavailable, get_backend

BACKENDS = ("numpy", "jax", "array-api-strict", "cupy")

# Tests never touch the user's cache: one fresh cache folder per test session (per xdist worker).
os.environ["TERMO_CACHE_DIR"] = tempfile.mkdtemp(prefix="termo-test-cache-")
os.environ.pop("TERMO_BACKEND", None)


def pytest_configure(config):
    """Compile the kernels once before any test runs (in the controller, before xdist starts its
    workers): on a fresh clone the first kernel call compiles for ~45 s and says so on stderr,
    which would land in whichever test came first. Later runs only load the cached kernels."""
    import subprocess
    import sys

    if hasattr(config, "workerinput") or os.environ.get("TERMO_NO_NUMBA"):
        return
    subprocess.run([sys.executable, "-c", "from cli.app import run; run()", "suggest", "tarso:BBBBB", "--level", "3"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800, check=False)


def load_backend(name: str):
    try:
        return get_backend(name)
    except BackendUnavailable as err:
        pytest.skip(f"{name} backend unavailable here: {err}")


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Each array backend in turn (skipped with a reason where it cannot run)."""
    return load_backend(request.param)


@pytest.fixture(params=[b for b in BACKENDS if b != "numpy"])
def other_backend(request):
    """Every backend but NumPy, to compare against the NumPy result."""
    return load_backend(request.param)


@pytest.fixture(scope="session")
def game():
    from termo.games import termo_game

    return termo_game()


@pytest.fixture(scope="session")
def extended_game():
    from termo.games import termo_game

    return termo_game(extended=True)
