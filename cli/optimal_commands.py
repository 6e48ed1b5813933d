"""``termo optimal``: the exact solver (:mod:`termo.exact`), a thin wrapper.

Options are read as text and checked here or by the library: a bad value is one line on stderr
and exit code 2. Progress goes to stderr (a plain line every few seconds at most); the result to
stdout, as text or, with ``--json``, as the plain data of ``ExactResult.as_dict`` plus ``beam``
(level 3's E for the same opener) when an opener is fixed.
"""

from __future__ import annotations

import sys
import time
from typing import Annotated, Optional

import typer

from cli.common import BackendOption, GameOption, JsonOption, load_game, one_line, print_json, progress_interval, user_errors
from cli.options import command_backend
from cli.limits import parse_int, parse_seconds

MAX_NODES = 10**12


def _stderr_progress():
    """A progress callback writing at most one line per progress interval to stderr."""
    last = {"t": time.monotonic()}
    interval = progress_interval()

    def report(text: str) -> None:
        now = time.monotonic()
        if now - last["t"] < interval:
            return
        last["t"] = now
        try:
            sys.stderr.write(one_line(f"termo: optimal: {text}") + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    return report


def _parse_time(text: Optional[str]) -> Optional[float]:
    return parse_seconds("time", text)


@user_errors
def optimal_command(
    ctx: typer.Context,
    game: GameOption = None,
    opener: Annotated[Optional[str], typer.Option("--opener", metavar="WORD",
                                                  help="Fix the first guess (default: search every first guess).",
                                                  show_default=False)] = None,
    hard: Annotated[bool, typer.Option("--hard", help="Hard mode: greens kept, revealed symbols reused.")] = False,
    t: Annotated[str, typer.Option("--t", "-t", metavar="T", help="Prior temperature: softmax(-ICF/T); 'inf' = uniform (ignored by uniform games).")] = "1",
    time_limit: Annotated[Optional[str], typer.Option("--time", metavar="SECONDS",
                                                      help="Stop after this many seconds with the bounds reached (default 540 when --nodes is not given).",
                                                      show_default=False)] = None,
    nodes: Annotated[Optional[str], typer.Option("--nodes", metavar="N",
                                                 help="Stop after expanding N states (1 to 10^12).",
                                                 show_default=False)] = None,
    backend: BackendOption = None,
    json_out: JsonOption = False,
) -> None:
    """The minimum expected number of guesses, proved by branch and bound (or the bounds reached)."""
    from termo.exact import beam_value, solve
    from termo.core.prior import parse_temperature

    backend = command_backend(ctx, backend)
    g = load_game(game)
    temperature = parse_temperature(t)
    seconds = _parse_time(time_limit)
    node_limit = None if nodes is None else parse_int("nodes", nodes, 1, MAX_NODES)
    result = solve(g, opener=opener, hard=hard, t=temperature, time_limit=seconds, node_limit=node_limit,
                   backend=backend, progress=_stderr_progress())
    data = result.as_dict()
    data["first_guess"] = g.probes[int(result.tree()["guess"])]
    data["backend"] = _backend_name(backend)
    if result.opener is not None and not hard:
        data["beam"] = beam_value(g, result.opener, temperature, backend)
    if json_out:
        print_json(data)
        return
    _print_text(g, data)


def _backend_name(backend) -> str:
    from backends import get_backend

    return get_backend(backend).name


def _print_text(game, data: dict) -> None:
    title = game.title or game.label
    mode = "hard mode" if data["hard"] else "normal mode"
    prior = "uniform prior" if not data["weighted"] else f"prior T={data['t']:g}" if data["t"] is not None else "uniform prior"
    head = f"{title}, {'opener ' + data['opener'] if data['opener'] else 'every first guess'}, {mode}, {prior}:"
    if not data["opener"]:
        head += f" best first guess {data['first_guess']}"
    typer.echo(head)
    if data["proved"]:
        status = "proved optimal"
    else:
        status = f"not proved: gap {data['gap']:.6f} (budget spent)"
    if not data["weighted"]:
        typer.echo(f"  best strategy: {int(data['total'])} guesses over {data['answers']:,} answers, "
                   f"mean {data['mean']:.6f} ({status})")
        if not data["proved"]:
            typer.echo(f"  lower bound:   {data['lower_total']:.0f} (mean {data['lower']:.6f})")
    else:
        typer.echo(f"  best strategy: expected {data['mean']:.10f} guesses ({status})")
        if not data["proved"]:
            typer.echo(f"  lower bound:   {data['lower']:.10f}")
    if "beam" in data:
        typer.echo(f"  level 3 (beam) for the same opener: {data['beam']:.10f}")
    if data["losses"]:
        typer.echo(f"  answers lost (not found within {data['turns']} guesses): {data['losses']:,}")
    typer.echo(f"  {data['nodes']:,} states expanded in {data['seconds']:.1f} s")


def register(app) -> None:
    """Add ``optimal`` to the root typer app."""
    app.command("optimal")(optimal_command)

