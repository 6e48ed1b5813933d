"""What a long preparation step is doing, told to whoever shows progress: one line on stderr
when it starts, and its name while it runs.

Two kinds of step take long once and then never again: numba compiling the search kernels
(:mod:`backends.numba_shim`) and a game's pattern matrix being built and written to the cache
(:mod:`termo.engine.matrix`). Each says so in one line on stderr (:func:`say`: terminal or not, so a
piped run is not silent for a minute) and names itself for its duration (:func:`step`), so that
a spinner can show "compiling the search kernels" instead of "searching".

A progress display that draws on stderr (a rich live bar) registers itself with :func:`display`
for as long as it is shown: the lines then go through it (printed above the bar instead of
into it), and it hears each step's name as the step starts and ends. Without one, a line goes
straight to file descriptor 2 (it shows whatever wraps ``sys.stderr``).
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

_lock = threading.RLock()
_displays: list = []  # (write_line, on_step), innermost last
_steps: list = []  # names of the steps running now, innermost last


def say(line: str) -> None:
    """Write one line on stderr: through the display that is shown, else straight to fd 2."""
    with _lock:
        shown = _displays[-1] if _displays else None
    if shown is not None:
        try:
            shown[0](line)
            return
        except Exception:  # noqa: BLE001 - a display that cannot print: write it plainly
            pass
    try:
        os.write(2, (line + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


def current_step() -> str | None:
    """The name of the innermost step running now, or None."""
    with _lock:
        return _steps[-1] if _steps else None


def _tell() -> None:
    with _lock:
        name = _steps[-1] if _steps else None
        listeners = [on_step for _, on_step in _displays]
    for on_step in listeners:
        try:
            on_step(name)
        except Exception:  # noqa: BLE001 - showing progress never breaks the work
            pass


def begin(name: str) -> None:
    """A step named ``name`` starts (pair with :func:`end`; :func:`step` does both)."""
    with _lock:
        _steps.append(name)
    _tell()


def end(name: str) -> None:
    """The innermost step named ``name`` ended."""
    with _lock:
        for i in range(len(_steps) - 1, -1, -1):
            if _steps[i] == name:
                del _steps[i]
                break
    _tell()


@contextmanager
def step(name: str):
    """The block is the step ``name`` (see the module doc)."""
    begin(name)
    try:
        yield
    finally:
        end(name)


@contextmanager
def display(write_line, on_step=None):
    """Register a progress display for the block: ``write_line(text)`` prints a line without
    breaking it; ``on_step(name or None)`` hears each change of the running step (it is also
    called once at once with the step running now, if any)."""
    entry = (write_line, on_step or (lambda name: None))
    with _lock:
        _displays.append(entry)
        name = _steps[-1] if _steps else None
    if name is not None:
        try:
            entry[1](name)
        except Exception:  # noqa: BLE001
            pass
    try:
        yield
    finally:
        with _lock:
            if entry in _displays:
                _displays.remove(entry)
