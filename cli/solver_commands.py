"""`termo suggest`, `termo opener` and `termo play`: thin typer wrappers over `termo.interface.suggest`
and `termo.interface.play`.

`register(app)` adds the three commands to the root typer app. Options are read as text and
checked here, so a bad value gives one line on stderr and exit code 2 (no usage box, no
traceback). Progress (spinner or bar) goes to stderr, only on a terminal, and only for work
that lasts more than about a second.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Annotated, Optional

import typer

from cli.common import fail, play_streams, print_json, run_game
from termo.interface.requests import USER_ERRORS, load_game
from termo.interface.requests import parse_int
from cli.options import (BackendOption, BeamOption, DepthOption, ExtendedOption, GameOption, HardOption, JsonOption,
                         LevelOption, ObjectiveOption, OptionGroup, StrictOption, TOption, value_option, with_options)
from termo.core.feedback import colours_help
from termo.interface.requests import load_mode, parse_config, tree_spec

# ----------------------------------------------------------------------------- helpers

OpenerOpt = Annotated[
    str,
    typer.Option("--opener", metavar="default|optimal",
                 help="First guess: the game's interface opener (default; Termo: tarso) or the configuration's optimum."),
]
TreeOpt = value_option("--tree", "FILE", "Walk this strategy tree (`termo tree build`) while the rounds follow it "
                       "(default: a stored tree made for this exact configuration, if any).")
NoTreeOpt = Annotated[
    bool, typer.Option("--no-tree", metavar="", help="Never walk a stored tree: always the live search."),
]
HISTORY_HELP = ("Rounds played, as guess:colours (e.g. tarso:BBGBY; Nerdle 52-34=18:GBBPBBGB). " + colours_help()
                + " A mode of several boards takes one pattern per board in board order, '-' for a board already "
                  "solved: tarso:BBBBB/BYBBB; once board 1 is solved, bicho:-/GGBYB (docs/modes.md).")


@dataclass(frozen=True)
class Search:
    """The search options of `suggest`, `opener` and `play` (`SEARCH_OPTIONS`, `OPTIMUM_OPTIONS`)."""

    level: str
    t: str
    beam: str
    depth: str
    extended: bool
    strict: bool
    opener: str = "default"
    hard: bool = False
    objective: str = "finish"

    def prepare(self, game_name: Optional[str], backend: Optional[str], boards: bool = False):
        """``(game, config)``: the game told (``--game``, its word lists; with ``boards`` a mode of
        several boards too, `termo.interface.requests.load_mode`) and the checked configuration."""
        load = load_mode if boards else load_game
        game = load(game_name, extended=self.extended, strict=self.strict)
        return game, parse_config(self.level, self.t, self.beam, self.depth, self.opener, backend, hard=self.hard,
                                  game=game, objective=self.objective)


_SEARCH = dict(level=(LevelOption, "3"), t=(TOption, "1.0"), beam=(BeamOption, "10"), depth=(DepthOption, "1"),
               extended=(ExtendedOption, False), strict=(StrictOption, False))
SEARCH_OPTIONS = OptionGroup.of(lambda ctx, **values: Search(**values), **_SEARCH, opener=(OpenerOpt, "default"),
                                hard=(HardOption, False), objective=(ObjectiveOption, "finish"))
OPTIMUM_OPTIONS = OptionGroup.of(lambda ctx, **values: Search(opener="optimal", **values), **_SEARCH,
                                 hard=(HardOption, False))  # `termo opener`: the configuration's optimum


@contextlib.contextmanager
def progress_display(label: str, delay: float = 0.8):
    """Yields a progress callback ``(done, total)``; shows a rich bar/spinner on stderr.

    Nothing is shown unless stderr is a terminal and the work lasts more than `delay` seconds.
    While a preparation step runs (numba compiling the kernels, a pattern matrix being built:
    :mod:`backends.status`) the spinner names that step instead of ``label``, and the step's
    stderr line is printed above the spinner, not into it.
    """
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

    from backends import status

    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    lock = threading.Lock()
    state = {"task": None, "done": 0, "total": None, "closed": False, "step": None}
    started_at = time.monotonic()

    def shown_label() -> str:
        return label if state["step"] is None else f"{state['step']} (once)"

    def start() -> None:
        with lock:
            if state["task"] is None and not state["closed"]:
                progress.start()
                state["task"] = progress.add_task(shown_label(), total=state["total"], completed=state["done"])

    def on_step(name) -> None:
        with lock:
            state["step"] = name
            if state["task"] is not None and not state["closed"]:
                progress.update(state["task"], description=shown_label())

    def write_line(text: str) -> None:
        progress.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def callback(done: int, total: int) -> None:
        state["done"], state["total"] = done, total
        if state["task"] is None:
            if time.monotonic() - started_at >= delay:
                start()
            return
        progress.update(state["task"], completed=done, total=total)

    timer = threading.Timer(delay, start)
    timer.daemon = True
    with status.display(write_line, on_step):
        timer.start()
        try:
            yield callback
        finally:
            timer.cancel()
            with lock:
                state["closed"] = True
                if state["task"] is not None:
                    progress.stop()


# ----------------------------------------------------------------------------- commands


@with_options("search", SEARCH_OPTIONS)
def suggest_command(
    ctx: typer.Context,
    history: Annotated[
        Optional[list[str]],
        typer.Argument(metavar="HISTORY", help=HISTORY_HELP, show_default=False),
    ] = None,
    search: Search = None,
    list_n: value_option("--list", "N", "Also show the N most likely candidates left (JSON key 'remaining'; at most the candidate count).") = None,
    game_name: GameOption = None,
    json_out: JsonOption = False,
    backend: BackendOption = None,
    tree: TreeOpt = None,
    no_tree: NoTreeOpt = False,
) -> None:
    """Suggest the next guess after the rounds played so far (none: the opener).

    'expected' counts the guesses still to play, this one included (level 3). A mode of several
    boards (--game and one of the modes `termo games` lists, docs/modes.md) takes one pattern per
    board: tarso:BBBBB/BYBBB, '-' for a board already solved."""
    from termo.interface.suggest import Advisor, suggest
    from termo.interface.text import format_answer

    try:
        game, config = search.prepare(game_name, backend, boards=True)
        remaining = None if list_n is None else parse_int("list", list_n, 1)
        advisor = Advisor(game, config, tree=tree_spec(tree, no_tree))
        for flag, given, key in (("--no-tree", no_tree, "trees"), ("--list", remaining is not None, "candidate_list")):
            if given and not getattr(advisor.supports, key):
                raise advisor.refused(flag)
        if tree is not None:
            advisor.tree  # a bad --tree file: one line, even before any round
        with progress_display("searching") as progress:
            data = suggest(
                game,
                history or [],
                advisor=advisor,
                progress=progress,
                on_warning=lambda w: typer.echo(f"warning: {w}", err=True),
                remaining=remaining,
            )
    except USER_ERRORS as err:
        fail(str(err))
    if json_out:
        print_json(data)
    else:
        for line in format_answer(data, uniform=advisor.game.uniform_prior, title=advisor.mode.title):
            typer.echo(line)


@with_options("search", OPTIMUM_OPTIONS)
def opener_command(
    ctx: typer.Context,
    search: Search = None,
    game_name: GameOption = None,
    json_out: JsonOption = False,
    backend: BackendOption = None,
) -> None:
    """The best first guess of a configuration and its alternatives (searched and cached when missing).

    This is the configuration's own best (level 3: its search's), not the game's interface opener
    that `termo suggest` plays first (Termo: tarso; `termo suggest --opener optimal` plays this
    one), nor the proven optimum of `termo optimal` (docs/exact.md). 'expected' counts the guesses
    to solve the game, this one included (level 3)."""
    from termo.interface.suggest import Advisor, opener_report
    from termo.interface.text import format_decision

    try:
        game, config = search.prepare(game_name, backend)
        with progress_display("searching the opener") as progress:
            data = opener_report(game, advisor=Advisor(game, config), progress=progress)
    except USER_ERRORS as err:
        fail(str(err))
    if json_out:
        print_json(data)
    else:
        typer.echo(f"best opener of {game.shown} by this configuration ({config.describe(game)}{', extended' if game.extended else ''}):")
        interface = getattr(game, "default_opener", None)
        if interface and interface != data.get("word"):
            typer.echo(f"(the game's interface opener, played first by `termo suggest`, is {interface}; "
                       f"`termo suggest --opener optimal` plays {data.get('word')})")
        for line in format_decision(data):
            typer.echo(line)


def _use_color() -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM", "") in ("", "dumb"):
        return False
    return sys.stdout.isatty() and sys.stdin.isatty()


@with_options("search", SEARCH_OPTIONS)
def play_command(
    ctx: typer.Context,
    search: Search = None,
    game_name: GameOption = None,
    color: Annotated[
        Optional[bool], typer.Option("--color/--no-color", help="Coloured tiles (default: when stdout is a terminal).")
    ] = None,
    backend: BackendOption = None,
    tree: TreeOpt = None,
    no_tree: NoTreeOpt = False,
) -> None:
    from termo.interface.play import Play
    from termo.interface.suggest import Advisor

    try:
        game, config = search.prepare(game_name, backend, boards=True)
        advisor = Advisor(game, config, tree=tree_spec(tree, no_tree))
        if no_tree and not advisor.supports.trees:
            raise advisor.refused("--no-tree")
        if tree is not None:
            advisor.tree  # a bad --tree file: one line now, before the game starts
    except USER_ERRORS as err:
        fail(str(err))
    interactive, reader, write, error = play_streams()
    play = Play(
        game,
        advisor,
        reader,
        write,
        color=_use_color() if color is None else color,
        busy=progress_display if interactive else None,
        error=error,
        piped=not interactive,  # echoes the prompts; the exit status is the same either way
    )
    run_game(play, write)


def _play_help() -> str:
    from termo.games.registry import MODE_NAMES
    from termo.interface.console import EXIT_STATUS

    return ("Solve a game interactively: type each guess and its colours, get the next suggestion.\n\n"
            + colours_help() + f"\n\nA mode of several boards (--game {', '.join(MODE_NAMES)}; docs/modes.md): "
            "type the guess and one pattern per board, tarso BBBBB/BYBBB, or the guess and then each board's "
            "colours.\n\n" + EXIT_STATUS)


play_command.__doc__ = _play_help()


def register(app: typer.Typer) -> None:
    """Add `suggest`, `opener` and `play` to the root app."""
    app.command("suggest")(suggest_command)
    app.command("opener")(opener_command)
    app.command("play")(play_command)
