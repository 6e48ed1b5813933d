"""What several commands share: the root options carried in typer's context, and option groups.

The root ``--backend`` (``termo --backend NAME COMMAND``) travels in the root context's ``obj``
(`RootOptions`; typer hands it to every subcommand's context), and each command passes the
backend it resolves (`command_backend`) to the library explicitly.

An option group (`OptionGroup`, `with_options`) is a run of typer parameters that several
commands declare alike: written once, it takes the place of one parameter of each command (the
same options, in the same place of its help), and the command gets their values as one object.

Every option that more than one command takes is declared here once (`GameOption`,
`LevelOption`, `TOption`, ...; the games' and modes' names in the help come from the registry),
and so are the Dask cluster options of `termo openers`, `termo robustness` and `termo optimal`
(`SchedulerOption`, ..., `check_cluster`, `cluster_executor`). Numbers are read as text and
checked by the one request module (`termo.interface.requests`): a bad value is one line.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import typer

from cli.limits import BEAM_HELP, DEPTH_HELP
from termo.interface.requests import MAX_TIMEOUT, check_int, check_seconds
from termo.games.registry import DEFAULT_GAME, GAME_NAMES, MODE_NAMES


def _names(names, default: str | None = None) -> str:
    return ", ".join(f"{n} (default)" if n == default else n for n in names)


# ----------------------------------------------------------------------------- the shared options
GameOption = Annotated[
    Optional[str],
    typer.Option(
        "--game", "-g", envvar="TERMO_GAME", metavar="NAME", show_default=False,
        help=f"Game: {_names(GAME_NAMES, DEFAULT_GAME)}; where a command plays several boards (suggest, play, "
             f"bench battery, optimal, review) also a mode: {_names(MODE_NAMES)} (see `termo games`, docs/modes.md).",
    ),
]
def backend_callback(ctx: typer.Context, value: Optional[str]) -> Optional[str]:
    """What a command's ``backend`` parameter receives: the backend it runs on (`command_backend`)."""
    return command_backend(ctx, value)


BackendOption = Annotated[
    Optional[str],
    typer.Option(
        "--backend", envvar="TERMO_BACKEND", metavar="NAME", show_default=False,
        help="Array backend: numpy (default), jax, cupy, array-api-strict or auto (best installed).",
        callback=backend_callback,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", metavar="", help="Print machine-readable JSON on stdout.")]
LevelOption = Annotated[
    str, typer.Option("--level", "-l", metavar="1|2|3",
                      help="1 letter frequency, 2 entropy, 3 expected guesses (a mode of several boards: 2 or 3).")
]
TOption = Annotated[
    str, typer.Option("--t", "-t", metavar="T",
                      help="Prior temperature: softmax(-ICF/T), a positive number; 'inf' = uniform (games with a "
                           "uniform prior, Nerdle and Wordle, ignore it).")
]
BeamOption = Annotated[str, typer.Option("--beam", metavar="K", help=f"Level 3: guesses tried per search node (1 to {BEAM_HELP}).")]
DepthOption = Annotated[str, typer.Option("--depth", metavar="P", help=f"Level 3: search depth below the root (0 to {DEPTH_HELP}).")]
ExtendedOption = Annotated[
    bool, typer.Option("--extended", metavar="", help="Termo: also guess the 2,583 conjugated forms (other games: no change).")
]
StrictOption = Annotated[
    bool, typer.Option("--strict", metavar="", help="Nerdle: only the written form wins (default: commutative answers win).")
]
HardOption = Annotated[
    bool, typer.Option("--hard", metavar="", help="Hard mode: greens stay in place and revealed letters are reused "
                                                  "(the game's real rule).")
]
ObjectiveOption = Annotated[
    str, typer.Option("--objective", metavar="finish|score|win",
                      help="Modes of several boards: what the solver optimises: finish (expected guesses to finish, "
                           "default), score (the share card's sum of solve turns) or win (the chance to solve every "
                           "board). One board: finish.")
]

LossOption = Annotated[
    str, typer.Option("--loss", metavar="COST",
                      help="One board: an answer not found within the tries costs the tries plus COST guesses; inf: "
                           "every answer must be found (Selby's question). Default 7, as level 3 charges.")
]


def value_option(flag: str, metavar: str, help_text: str, kind=Optional[str]):
    """An option that takes a value (``--out FILE``) and is off unless given: no default shown."""
    return Annotated[kind, typer.Option(flag, metavar=metavar, show_default=False, help=help_text)]


def count_option(flag: str, help_text: str):
    """A positive count (``--n N``), off (None: the command's default) unless given."""
    return Annotated[Optional[int], typer.Option(flag, metavar="N", help=help_text, min=1)]


def nodes_option(help_text: str):
    """``--nodes N``: an exact search's budget in states expanded (``termo optimal``: the whole
    search's; ``termo review``: each turn's); ``help_text`` says which."""
    return value_option("--nodes", "N", help_text)


@dataclass(frozen=True)
class RootOptions:
    """The root options of one ``termo`` run (``ctx.obj``)."""

    backend: Optional[str] = None


def root_backend(ctx) -> Optional[str]:
    """The root ``--backend`` of the run ``ctx`` belongs to (None: not given, or no context)."""
    obj = getattr(ctx, "obj", None)
    return obj.backend if isinstance(obj, RootOptions) else None


def command_backend(ctx, backend: Optional[str]) -> Optional[str]:
    """The backend a command runs on: its own ``--backend`` typed on its command line, else the
    root ``--backend``, else its option's value from ``$TERMO_BACKEND`` (None: NumPy). The
    ``--backend`` option's callback, so every command's ``backend`` parameter holds it already.

    ``ctx`` is None on the direct path (`cli.app.direct_call`), which has chosen ``backend`` in
    the same order already."""
    if ctx is None:
        return backend
    source = ctx.get_parameter_source("backend")
    if source is not None and source.name == "COMMANDLINE":
        return backend
    return root_backend(ctx) or backend


@dataclass(frozen=True)
class OptionGroup:
    """Typer parameters declared once for several commands (`with_options`): ``parameters``
    in their help order; ``make(ctx, **values)`` is what a command gets for them (``ctx``: the
    command's typer context, None on the direct path)."""

    parameters: tuple[inspect.Parameter, ...]
    make: Callable[..., Any]

    @classmethod
    def of(cls, make: Callable[..., Any], **declared: tuple[Any, Any]) -> "OptionGroup":
        """``declared``: parameter name -> ``(annotation, default)`` (an ``Annotated`` typer option)."""
        return cls(tuple(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                                           annotation=annotation)
                         for name, (annotation, default) in declared.items()), make)


def with_options(name: str, group: OptionGroup):
    """A command whose parameter ``name`` stands for the parameters of ``group``, in its place:
    typer (and `cli.app.direct_call`) sees those, the command gets ``group.make(ctx, **values)``
    (a value not passed, as on the direct path: its default)."""

    def decorate(func):
        signature = inspect.signature(func, eval_str=True)
        contexts = [p.name for p in signature.parameters.values() if is_context(p.annotation)]
        parameters = []
        for parameter in signature.parameters.values():
            parameters.extend(group.parameters if parameter.name == name else (parameter,))

        @functools.wraps(func)
        def command(*args, **kwargs):
            values = {p.name: kwargs.pop(p.name, p.default) for p in group.parameters}
            ctx = kwargs.get(contexts[0]) if contexts else None
            return func(*args, **kwargs, **{name: group.make(ctx, **values)})

        command.__signature__ = signature.replace(parameters=parameters)
        return command

    return decorate


def is_context(annotation) -> bool:
    """Whether a parameter's annotation is typer's context (filled by typer, not an option)."""
    return isinstance(annotation, type) and issubclass(annotation, typer.Context)


# ----------------------------------------------------------------------------- Dask cluster options
# `termo openers` and `termo robustness` run their chunks here, on a Dask scheduler, or (openers)
# on local Dask workers; the options and their checks are the same.

MAX_WORKERS = 64  # --workers: local Dask worker processes

SchedulerOption = Annotated[
    Optional[str], typer.Option("--scheduler", metavar="ADDRESS", help="Dask scheduler address (tcp://host:8786); default: run here.")
]
ConnectTimeoutOption = Annotated[
    float, typer.Option("--connect-timeout", envvar="TERMO_DASK_CONNECT_TIMEOUT", min=0.1, metavar="SECONDS",
                        help=f"With --scheduler: seconds to reach the scheduler (at most {MAX_TIMEOUT:g}).")
]


ResumeOption = Annotated[bool, typer.Option(
    "--resume", help="Reuse the finished chunks checkpointed by an earlier run of the same inputs (a changed "
                     "input is computed again).")]
CheckpointDirOption = Annotated[Optional[Path], typer.Option(
    "--checkpoint-dir", metavar="DIR", show_default=False,
    help="The folder of the checkpointed chunks (default: under <cache dir>, by command and game), or a finished "
         "run's archive of them (.tar.gz, read-only).")]
WorkersOption = Annotated[Optional[int], typer.Option(
    "--workers", metavar="N", show_default=False,
    help=f"Run on N local Dask worker processes (1 to {MAX_WORKERS}; each holds the game's matrix).")]


def worker_timeout_option(no_worker: str):
    """``--worker-timeout``: give up when no Dask worker is there (``no_worker`` says when) for that long."""
    return Annotated[float, typer.Option(
        "--worker-timeout", envvar="TERMO_DASK_WORKER_TIMEOUT", min=0, metavar="SECONDS",
        help=f"With --scheduler: give up when no Dask worker is there{no_worker} for this long (at most {MAX_TIMEOUT:g}).")]


def check_cluster(scheduler: Optional[str], worker_timeout: float, connect_timeout: float,
                  workers: Optional[int] = None) -> None:
    """The cluster options' bounds, and a scheduler address that can be used, before any work."""
    from termo.core.errors import TermoError
    from termo.core.executors import check_address

    check_seconds("worker-timeout", worker_timeout)
    check_seconds("connect-timeout", connect_timeout, low=0.1)
    if scheduler and workers is not None:
        raise TermoError("give --scheduler or --workers, not both")
    if workers is not None:
        check_int("workers", workers, 1, MAX_WORKERS)
    if scheduler:
        check_address(scheduler)  # a bad address fails before any input is loaded


def cluster_executor(scheduler: Optional[str], worker_timeout: float, connect_timeout: float,
                     workers: Optional[int] = None, **options):
    """Where the chunks run: ``workers`` local Dask worker processes, the Dask ``scheduler``, or
    this process; the cluster's notices go to stderr."""
    from termo.core.executors import LocalClusterExecutor, make_executor

    def notify(line: str) -> None:
        typer.echo(line, err=True)

    if workers is not None:
        return LocalClusterExecutor(workers, worker_timeout=worker_timeout, connect_timeout=connect_timeout,
                                    notify=notify, **options)
    return make_executor(scheduler, worker_timeout=worker_timeout, connect_timeout=connect_timeout, notify=notify,
                         **options)
