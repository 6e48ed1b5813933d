"""The ``termo`` command: a root typer app; each topic registers its commands from its own module."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from cli import bench_commands, foundation_commands, robustness_commands, solver_commands
from cli.common import USER_ERRORS
from termo import __version__

app = typer.Typer(
    name="termo",
    help="Solver suite for Termo (term.ooo, Portuguese Wordle) and other Wordle-family games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"termo {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        Optional[bool],
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit."),
    ] = None,
    backend: Annotated[
        Optional[str],
        typer.Option(
            "--backend",
            help="Array backend for every command: numpy (default), jax, cupy, array-api-strict, auto.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Solver suite for Termo (term.ooo, Portuguese Wordle) and other Wordle-family games."""
    if backend:
        os.environ["TERMO_BACKEND"] = backend


for module in (foundation_commands, solver_commands, bench_commands, robustness_commands, __import__("cli.partition_commands", fromlist=["register"])):
    module.register(app)


# typer vendors click: find its usage-error base class through a public subclass.
_CLICK_ERROR = next(cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "ClickException")


def main(argv: list[str] | None = None) -> int:
    """Entry point: usage errors and library errors become one stderr line and exit code 2."""
    try:
        result = app(args=argv, standalone_mode=False)
        return int(result or 0) if isinstance(result, int) else 0
    except typer.Exit as done:
        return done.exit_code
    except typer.Abort:
        typer.echo("termo: aborted", err=True)
        return 130
    except _CLICK_ERROR as err:  # bad option, missing argument, ...
        if type(err).__name__ != "NoArgsIsHelpError":  # that one has printed the help already
            typer.echo(f"termo: error: {err.format_message()}", err=True)
        return err.exit_code
    except USER_ERRORS as err:
        typer.echo(f"termo: error: {err}", err=True)
        return 2
    except KeyboardInterrupt:
        typer.echo("termo: interrupted", err=True)
        return 130
    except Exception as err:  # noqa: BLE001 - no traceback reaches the user
        if os.environ.get("TERMO_DEBUG"):
            raise
        typer.echo(f"termo: internal error: {type(err).__name__}: {err} (set TERMO_DEBUG=1 for details)", err=True)
        return 1


def run() -> None:
    sys.exit(main())
