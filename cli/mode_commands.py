"""`termo suggest` and `termo play` for modes of several boards (``--game dueto``, docs/modes.md).

`cli.solver_commands` hands a command over here when ``--game`` (or ``$TERMO_GAME``) names a
mode (`termo.games.registry.mode_name`). The options that make sense for one board only are
refused with one line (exit 2); the rest are checked as for one board.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cli.common import USER_ERRORS, fail, play_streams, print_json, run_game
from termo.core.errors import TermoError

HISTORY_HELP = ("Turns played, one guess for every board with one colour pattern per board in board order, "
                "'-' for a board already solved: tarso:BBBBB/BYBBB; once board 1 is solved, bicho:-/GGBYB (docs/modes.md).")
ObjectiveOpt = Annotated[
    Optional[str], typer.Option("--objective", metavar="finish|score|win", show_default=False,
                      help="Modes of several boards (--game dueto, ...): what the solver optimises: finish "
                           "(expected guesses to finish, default), score (the share card's sum of solve turns) or "
                           "win (the chance to solve every board).")
]


def no_objective(objective: Optional[str]) -> None:
    """One board: ``--objective`` is refused (it says what a mode of several boards optimises)."""
    if objective is not None:
        raise TermoError("--objective applies to a mode of several boards (--game dueto, quordle, ...)")


def mode_options(search, game_key: str, backend: Optional[str], *, tree=None, no_tree=False, list_n=None):
    """``(mode, level, t)`` for a mode: the search options checked, the one-board ones refused."""
    from termo.games import get_mode
    from termo.interface.requests import parse_config

    refused = [name for name, given in (("--hard", search.hard), ("--tree", tree is not None),
                                        ("--no-tree", no_tree), ("--list", list_n is not None),
                                        ("--opener optimal", search.opener != "default"),
                                        ("--beam", search.beam != "10"), ("--depth", search.depth != "1"))
               if given]
    if refused:
        raise TermoError(f"{refused[0]} is for one board; {game_key} has several (see docs/modes.md)")
    mode = get_mode(game_key, extended=search.extended, strict=search.strict)
    config = parse_config(search.level, search.t, search.beam, search.depth, search.opener, backend, game=mode.game)
    if config.level not in (2, 3):
        raise TermoError(f"--level for a mode of several boards is 2 or 3, not {config.level}", "level.mode",
                         {"level": str(config.level)})
    return mode, config.level, config.t


def suggest_mode_command(game_key: str, history, search, objective: str, json_out: bool, backend, progress_display,
                         **one_board) -> None:
    """`termo suggest --game MODE HISTORY...`: the next guess for every board at once
    (``progress_display(label)``: the progress shown while the solver works)."""
    from termo.interface.modes import format_mode_decision, suggest_mode

    try:
        mode, level, t = mode_options(search, game_key, backend, **one_board)
        with progress_display("searching") as progress:
            data = suggest_mode(mode, history or [], level=level, objective=objective or "finish", backend=backend,
                                progress=progress, t=t,
                                on_warning=lambda w: typer.echo(f"warning: {w}", err=True))
    except USER_ERRORS as err:
        fail(str(err))
    if json_out:
        print_json(data)
        return
    for line in format_mode_decision(data, title=mode.title):
        typer.echo(line)


def play_mode_command(game_key: str, search, objective: str, color: bool, backend, progress_display,
                      **one_board) -> None:
    """`termo play --game MODE`: the boards side by side, the suggestion after each turn
    (``color``: coloured tiles; ``progress_display(label)``: progress on a terminal)."""
    from termo.engine.joint_factory import joint_solver
    from termo.interface.mode_play import ModePlay

    try:
        mode, level, t = mode_options(search, game_key, backend, **one_board)
        solver = joint_solver(mode, level=level, objective=objective or "finish", backend=backend, t=t)
    except USER_ERRORS as err:
        fail(str(err))
    interactive, reader, write, error = play_streams()
    play = ModePlay(mode, solver, reader, write, color=color,
                    busy=progress_display if interactive else None, error=error, piped=not interactive)
    run_game(play, write)
