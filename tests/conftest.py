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
