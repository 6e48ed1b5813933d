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
    workers): on a fresh clone the first kernel call compiles every command's kernels (minutes),
    which would land in whichever test came first. Later runs only load the cached kernels, in a
    few seconds and silently; a compile says so at once and then how far it has gone
    (:func:`prepare_kernels`)."""
    config.addinivalue_line("markers", "skip_backend(*names, reason): skip the backend parameters named, "
                                       "saying why")
    config.addinivalue_line("markers", "xfail_backend(*names, reason, strict=True): expect the backend "
                                       "parameters named to fail, saying why")
    if hasattr(config, "workerinput") or os.environ.get("TERMO_NO_NUMBA"):
        return
    prepare_kernels(lambda line: _say(config, line))


PREPARE_SAYS_AFTER = 8.0  # seconds: a preparation still running then says what it does (a warm one is done by then)
PREPARE_EVERY = 30.0  # seconds between the lines of a compile's progress


def prepare_kernels(say, quiet_for: float = PREPARE_SAYS_AFTER, every: float = PREPARE_EVERY,
                    command: list | None = None) -> float:
    """Run the quick start's first command (``termo suggest tarso:BBBBB --level 3``, or ``command``)
    in a child process, which compiles every command's kernels on a cold kernel cache; its seconds. Silent
    when it finishes within ``quiet_for`` seconds without compiling (a warm cache); otherwise
    ``say(line)`` at once when the child starts compiling (its notice gives the estimate) or
    ``quiet_for`` seconds in, then every ``every`` seconds how long it has run, and a last line when
    it is done (with the child's stderr if it failed)."""
    import re
    import subprocess
    import sys
    import threading
    import time

    from backends.numba_shim import COMPILE_NOTICE

    notice = COMPILE_NOTICE.split("{")[0].strip()
    start = time.monotonic()
    command = command or [sys.executable, "-c", "from cli.app import run; run()", "suggest", "tarso:BBBBB",
                          "--level", "3"]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    lines: list = []
    compiling = threading.Event()

    def read() -> None:
        for line in child.stderr:
            lines.append(line.rstrip("\n"))
            if line.startswith(notice):
                compiling.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    spoke = False
    next_line = quiet_for
    while True:
        try:
            child.wait(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            pass
        elapsed = time.monotonic() - start
        if not spoke and (compiling.is_set() or elapsed >= quiet_for):
            estimate = next((m.group(0) for m in map(re.compile(r"about \d+ s|a few seconds").search, lines) if m), None)
            say("termo tests: compiling the search kernels once, before the first test"
                + (f" ({estimate}; later runs reuse them)" if estimate else " (a fresh clone's first run: minutes)")
                if compiling.is_set() else "termo tests: preparing the search kernels before the first test…")
            spoke, next_line = True, elapsed + every
        elif spoke and elapsed >= next_line:
            say(f"termo tests: {'compiling' if compiling.is_set() else 'preparing'} the search kernels… "
                f"{elapsed:.0f} s so far")
            next_line = elapsed + every
        if elapsed > 1800:  # a safety net: the tests run all the same (each compiles what it needs)
            child.kill()
    reader.join(timeout=5)
    seconds = time.monotonic() - start
    if child.returncode != 0:
        say(f"termo tests: preparing the search kernels failed (exit {child.returncode}) after {seconds:.0f} s; "
            "the tests compile what they need:\n" + "\n".join(lines[-20:]))
    elif spoke:
        say(f"termo tests: the search kernels are ready after {seconds:.0f} s; running the tests")
    return seconds


def _say(config, line: str) -> None:
    """One line on the terminal now, past pytest's output capture."""
    import sys

    capture = config.pluginmanager.getplugin("capturemanager")
    if capture is None:
        print(line, file=sys.stderr, flush=True)
        return
    with capture.global_and_fixture_disabled():
        print(line, file=sys.stderr, flush=True)


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
