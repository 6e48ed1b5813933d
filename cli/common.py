"""Shared CLI plumbing: one-line errors, JSON output, the backend option, progress bars."""

from __future__ import annotations

import errno
import functools
import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from termo.core.errors import TermoError
from termo.core.plain_data import jsonable
from termo.core.safe_text import escape_text, one_line
from termo.interface.requests import USER_ERRORS


def _plain_help_types() -> None:
    """Help without type labels that say nothing. typer's rich help prints a parameter's
    ``display_type_rich`` next to it for every option, flags included (``--json <bool>``,
    ``--help <bool>``), and ``<list[str]>`` next to an argument already named by its metavar;
    a flag takes no value and the name is its metavar, so both show nothing here. Options with
    a value keep their metavar (N, T, DIR, ...) or typer's label. The usage line names a
    required argument plainly (``GUESS``, not ``{GUESS}``)."""
    try:
        from typer.core import TyperArgument, TyperOption
    except ImportError:  # another typer: nothing to patch
        return
    if getattr(TyperOption, "_termo_plain_types", False):
        return
    option_type = TyperOption.display_type_rich

    def option_display(self, ctx):
        if getattr(self, "is_flag", False) and not getattr(self, "count", False):
            return None
        return option_type(self, ctx)

    argument_type = TyperArgument.display_type_rich

    def argument_display(self, ctx):
        return None if self.metavar is not None else argument_type(self, ctx)

    usage_name = getattr(TyperArgument, "_usage_display_name", None)
    if usage_name is not None:  # typer writes a required argument {GUESS}; the usual style is GUESS

        def plain_usage_name(self):
            name = usage_name(self)
            return name[1:].replace("}", "", 1) if name.startswith("{") else name

        TyperArgument._usage_display_name = plain_usage_name
    TyperOption.display_type_rich = option_display
    TyperArgument.display_type_rich = argument_display
    TyperOption._termo_plain_types = True


_plain_help_types()

# ----------------------------------------------------------------------------- one-line errors


def echo_error(text: str) -> None:
    """Write one line on stderr; a stderr that cannot be written to is ignored (nowhere to say it)."""
    try:
        typer.echo(one_line(text), err=True)
    except (OSError, ValueError):  # closed or full stderr, or a closed file object
        pass


def warn(line: str) -> None:
    """A library's warning (a damaged checkpoint, another run's files...) as one line on stderr."""
    echo_error(f"termo: {line}")


def fail(message: str, code: int = 2) -> None:
    """Print one line on stderr and exit with ``code``."""
    echo_error(f"termo: error: {message}")
    raise typer.Exit(code)


# ----------------------------------------------------------------------------- files and streams

from termo.core.cache import OS_REASONS as _OS_REASONS, os_reason  # noqa: E402  (one table: the library says it too)
_WRITE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE)


def os_error_message(err: OSError) -> str:
    """One line for a file-system error: the path (when known) and the reason in words."""
    reason = os_reason(err)
    paths = [str(p) for p in (err.filename, getattr(err, "filename2", None)) if p is not None]
    if paths:
        return f"{' -> '.join(paths)}: {reason}"
    if err.errno in _WRITE_ERRNOS:
        return f"cannot write the output: {reason}"
    return reason


def default_out(name: str) -> Path:
    """The default ``--out`` of a command: ``<cache dir>/<name>`` (`termo.core.paths.cache_dir`), never
    a folder of the current directory, so that a run inside a checkout cannot overwrite its files."""
    from termo.core.paths import cache_dir

    return cache_dir() / name


def out_folder(path, option: str = "--out", default: str | None = None) -> Path:
    """The output folder of a command, created when missing and checked writable *before* the
    work starts (TermoError with the reason otherwise); ``path`` None with ``default`` given:
    `default_out` of it."""
    folder = default_out(default) if path is None and default is not None else Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not folder.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(folder))
        import tempfile

        with tempfile.TemporaryFile(dir=folder):
            pass
    except FileExistsError:
        raise TermoError(f"{option} {folder}: a file of that name is in the way (give a folder)") from None
    except OSError as err:
        reason = _OS_REASONS.get(err.errno) or (err.strerror or str(err)).lower()
        raise TermoError(f"{option} {folder}: cannot write there: {reason}") from None
    return folder


def check_arguments(args) -> None:
    """Reject command-line arguments that are not valid text (bytes that are not UTF-8 reach
    Python as surrogate escapes): TermoError naming the argument and the first bad byte."""
    for number, arg in enumerate(args, start=1):
        bad = next((ch for ch in arg if 0xD800 <= ord(ch) <= 0xDFFF), None)
        if bad is not None:
            raise TermoError(f"argument {number} ('{escape_text(arg)}') is not valid UTF-8 text: "
                             f"byte {escape_text(bad)} (use UTF-8)")


def discard_stdout() -> None:
    """After stdout failed (closed pipe, full disk): point file descriptor 1 at the null device,
    so that Python's last flush at exit neither fails nor prints "Exception ignored"."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # captured or replaced in tests: nothing to do
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass


def user_errors(func):
    """Turn a user-facing error raised by the library into one stderr line and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except USER_ERRORS as err:
            fail(str(err))

    return wrapper


def print_json(value: Any) -> None:
    typer.echo(json.dumps(jsonable(value), ensure_ascii=False, indent=2))


PROGRESS_INTERVAL = 5.0  # seconds between two plain progress lines ($TERMO_PROGRESS_INTERVAL overrides)
FINAL_PHASE = "writing the report…"


def _seconds(value: float) -> str:
    value = max(0, int(round(value)))
    return f"{value} s" if value < 120 else f"{value // 60} min {value % 60:02d} s"


class _Tracker:
    """What a progress report knows: done/total, the start time, an optional phase text.
    Called as ``update(done, total=None)``; ``update.phase(text)`` names a last step (the
    report/plots being written); reaching the total starts `FINAL_PHASE` by itself."""

    def __init__(self, description: str, total: int | None, on_change=None, unit: str = "") -> None:
        import threading
        import time

        self.description = description
        self.unit = f" {unit}" if unit else ""
        self.total = total
        self.done = 0
        self.phase_text: str | None = None
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.on_change = on_change or (lambda: None)

    def __call__(self, done: int, total: int | None = None) -> None:
        with self.lock:
            if total is not None:
                self.total = total
            self.done = done
            if self.total and done >= self.total and self.phase_text is None:
                self.phase_text = FINAL_PHASE
        self.on_change()

    def phase(self, text: str = FINAL_PHASE) -> None:
        with self.lock:
            self.phase_text = text
        self.on_change()

    def line(self) -> str:
        """One plain line: ``termo: battery realistic: 600/1500 (40%), 12 s elapsed, about 18 s left``."""
        import time

        with self.lock:
            done, total, phase = self.done, self.total, self.phase_text
        from backends import status

        elapsed = time.monotonic() - self.started
        head = f"termo: {self.description}: "
        step = status.current_step()  # numba compiling, a matrix being built: not the work itself
        if phase is None and step is not None:
            return f"{head}{step} (once; {_seconds(elapsed)} elapsed)"
        if phase is not None:
            return f"{head}{phase} ({_seconds(elapsed)} elapsed)"
        if not total:
            return f"{head}{done}{self.unit} done, {_seconds(elapsed)} elapsed"
        share = min(done / total, 1.0)
        left = f", about {_seconds(elapsed * (1 - share) / share)} left" if done > 0 else ""
        return f"{head}{done}/{total}{self.unit} ({share:.0%}), {_seconds(elapsed)} elapsed{left}"


def progress_interval() -> float:
    """Seconds between plain progress lines: ``$TERMO_PROGRESS_INTERVAL``, else `PROGRESS_INTERVAL`."""
    try:
        value = float(os.environ.get("TERMO_PROGRESS_INTERVAL", ""))
    except ValueError:
        return PROGRESS_INTERVAL
    return value if value > 0 else PROGRESS_INTERVAL


def say_checkpointed(what: str, computed: int, resumed: int, seconds: float, folder, unit=("chunk", "chunks"),
                     extra: str = "") -> None:
    """The one line on stderr after a checkpointed run of ``termo optimal``: what it covered
    (``what``, e.g. "12,972 first words, "), the chunks computed and resumed, the time and where
    the checkpoints are."""
    from termo.core.messages import counted

    typer.echo(f"optimal: {what}{counted(computed, *unit)} computed, {resumed} resumed, {seconds:.1f} s{extra}; "
               f"checkpoints in {folder}", err=True)


def resumed_left_out(update):
    """A checkpointed run's progress callback ``(done, total, note, resumed)`` for ``update``
    (`progress_bar`'s): the work read from checkpoints (``resumed``) is left out, so the time left
    is estimated from this run's work only (a resumed run used to start at "4,544/17,715 words,
    about 2 min left")."""

    def report(done: int, total: int, note: str = "", resumed: int = 0) -> None:
        update(done - resumed, total - resumed)

    return report


@contextmanager
def progress_bar(description: str, total: int | None = None, enabled: bool = True, interval: float | None = None,
                 unit: str = ""):
    """Progress of a long command on stderr; yields ``update(done, total=None)`` (with
    ``update.phase(text)`` for a last step). On a terminal: a rich bar, then a spinner with
    "writing the report…" once the work is done. Elsewhere (piped, a log file): one plain line
    every `progress_interval` seconds at most, and nothing for a run shorter than that.
    Disabled: silent."""
    if not enabled:
        tracker = _Tracker(description, total, unit=unit)
        yield tracker
        return
    try:
        terminal = sys.stderr.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if not terminal:
        with _plain_progress(description, total, interval if interval is not None else progress_interval(),
                             unit) as tracker:
            yield tracker
        return
    from rich.console import Console
    from rich.progress import (BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    from backends import status

    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=total)
        shown = {"phase": None, "step": None}

        def label() -> str:
            if shown["step"] is not None:  # numba compiling, a matrix being built (backends.status)
                return f"{description}: {shown['step']} (once)"
            return description if shown["phase"] is None else f"{description}: {shown['phase']}"

        def refresh() -> None:
            if tracker.phase_text is not None:
                if shown["phase"] != tracker.phase_text:  # the bar pulses: no more 100% standing still
                    shown["phase"] = tracker.phase_text
                    progress.update(task, description=label(), total=None)
                return
            progress.update(task, completed=tracker.done, total=tracker.total)

        def on_step(name) -> None:
            shown["step"] = name
            progress.update(task, description=label())

        def write_line(text: str) -> None:  # above the bar, not into it
            progress.console.print(text, markup=False, highlight=False, soft_wrap=True)

        tracker = _Tracker(description, total, on_change=refresh, unit=unit)
        with status.display(write_line, on_step):
            yield tracker


@contextmanager
def _plain_progress(description: str, total: int | None, interval: float, unit: str = ""):
    """A daemon thread writes `_Tracker.line` to stderr every ``interval`` seconds until the
    block ends (also while the library is silent, e.g. writing its plots)."""
    import threading

    tracker = _Tracker(description, total, unit=unit)
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(interval):
            try:
                sys.stderr.write(one_line(tracker.line()) + "\n")
                sys.stderr.flush()
            except (OSError, ValueError):  # stderr gone: keep quiet
                return

    thread = threading.Thread(target=tick, name="termo-progress", daemon=True)
    thread.start()
    try:
        yield tracker
    finally:
        stop.set()
        thread.join(timeout=1.0)


def play_streams():
    """The streams of an interactive game, for `termo play` on one board or several:
    ``(interactive, reader, write, error)``. On a terminal the reader edits lines; piped, bytes
    that are not valid text become U+FFFD (such a word is rejected like any other), one line at a
    time, so the rounds before a bad line are played and the game goes on. ``error`` writes
    rejected lines and warnings to stderr after stdout so far, echoed input escaped (no raw
    terminal codes)."""
    from termo.interface.console import decoded_lines, terminal_reader

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    reader = terminal_reader(sys.stdin) if interactive else decoded_lines(sys.stdin)

    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    def error(text: str) -> None:
        sys.stdout.flush()
        sys.stderr.write("".join(one_line(line) + "\n" for line in text.splitlines()))
        sys.stderr.flush()

    return interactive, reader, write, error


def run_game(play, write) -> None:
    """Run an interactive game to its end and exit with its status (130 on Ctrl-C)."""
    try:
        code = play.run()
    except KeyboardInterrupt:
        write("\n")
        code = 130
    except USER_ERRORS as err:
        fail(str(err))
    raise typer.Exit(code)
