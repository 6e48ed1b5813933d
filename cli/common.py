"""Shared CLI plumbing: one-line errors, JSON output, the backend option, progress bars."""

from __future__ import annotations

import functools
import json
import sys
from contextlib import contextmanager
from typing import Annotated, Any, Optional

import typer

from backends import BackendUnavailable
from termo.errors import TermoError
from termo.plain_data import jsonable

USER_ERRORS = (TermoError, BackendUnavailable)

BackendOption = Annotated[
    Optional[str],
    typer.Option(
        "--backend",
        envvar="TERMO_BACKEND",
        help="Array backend: numpy (default), jax, cupy, array-api-strict or auto (best installed).",
        show_default=False,
    ),
]
GameOption = Annotated[
    Optional[str],
    typer.Option(
        "--game",
        "-g",
        envvar="TERMO_GAME",
        metavar="NAME",
        help="Game: termo (default), nerdle, nerdle-mini, wordle, wordle-ru (see `termo games`).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]


def load_game(name: str | None = None, extended: bool = False, strict: bool = False):
    """The game a command was told to play (``--game``/``$TERMO_GAME``, default termo)."""
    from termo.games import get_game

    return get_game(name, extended=extended, strict=strict)


def fail(message: str, code: int = 2) -> None:
    """Print one line on stderr and exit with ``code``."""
    typer.echo(f"termo: error: {message}", err=True)
    raise typer.Exit(code)


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


@contextmanager
def progress_bar(description: str, total: int | None = None, enabled: bool = True):
    """A rich progress bar on stderr; yields ``update(done, total)``. Silent when disabled or piped."""
    if not enabled or not sys.stderr.isatty():
        yield lambda done, total=None: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=total)

        def update(done: int, total: int | None = None) -> None:
            progress.update(task, completed=done, total=total if total is not None else progress.tasks[0].total)

        yield update
