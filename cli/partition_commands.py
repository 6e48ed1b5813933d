"""``termo partition``, ``termo rank`` and ``termo bench second-guess``: thin wrappers over
:mod:`termo.engine.partition` and :mod:`termo.analysis.second_guess`.

Options are read as text and checked by the library, so a bad value is one line on stderr and
exit code 2. ``register(app)`` adds ``partition`` and ``rank`` to the root app and attaches
``second-guess`` to the existing ``bench`` group (registered by :mod:`cli.bench_commands`, found
on the app's registered groups); when no such group is registered it becomes ``termo second-guess``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import out_folder, print_json, progress_bar, user_errors
from termo.interface.requests import load_game
from cli.options import BackendOption, GameOption, JsonOption, TOption
from cli.limits import MAX_PATTERNS, check_top
from termo.interface.requests import parse_int
from termo.core.feedback import colours_help

HistoryArg = Annotated[
    Optional[list[str]],
    typer.Argument(metavar="HISTORY", help="Rounds played, as guess:colours (e.g. tarso:BBGBY). " + colours_help(),
                   show_default=False),
]


def _warn(lines) -> None:
    for line in lines:
        typer.echo(f"warning: {line}", err=True)


def _prior_label(game, t: float) -> str:
    return "uniform prior" if game.uniform_prior or t == float("inf") else f"T={t:g}"


def _fmt_row(r: dict, width: int) -> str:
    answer = "yes" if r["can_be_answer"] else "no"
    return (f"{r['word']:<{width}}  {r['bits']:8.4f}  {r['groups']:6d}  {r['largest_group']:7d}  "
            f"{r['expected_remaining']:12.4f}  {answer}")


@user_errors
def partition_command(
    guess: Annotated[str, typer.Argument(metavar="GUESS", help="The guess to measure (any valid guess of the game).")],
    history: HistoryArg = None,
    game: GameOption = None,
    t: TOption = "1",
    json_out: JsonOption = False,
) -> None:
    """How GUESS splits the candidates left by the history: groups, worst group, expected remaining, bits."""
    from termo.interface.partition import guess_metrics, make_state
    from termo.core.prior import parse_temperature

    g = load_game(game)
    state = make_state(g, history or [], parse_temperature(t))
    data, warnings = guess_metrics(state, guess)
    _warn(warnings)
    if json_out:
        print_json(data)
        return
    typer.echo(f"{data['word']} over {data['candidates']} candidates ({g.shown}, "
               f"{_prior_label(g, state.t)}):")
    typer.echo(f"  groups:               {data['groups']}")
    typer.echo(f"  largest group:        {data['largest_group']} ({data['worst_case_bits_left']:.4f} bits left)")
    weighted = "" if _prior_label(g, state.t) == "uniform prior" else \
        f" (prior-weighted {data['expected_remaining_weighted']:.4f})"
    typer.echo(f"  expected remaining:   {data['expected_remaining']:.4f}{weighted}")
    won = f" (it wins against {data['wins']} of {data['candidates']} candidates)" if data["wins"] else ""
    typer.echo(f"  expected unsolved:    {data['expected_unsolved']:.4f}{won}")
    typer.echo(f"  bits:                 {data['bits']:.4f}")
    typer.echo(f"  can be the answer:    {'yes' if data['can_be_answer'] else 'no'}")


@user_errors
def rank_command(
    ctx: typer.Context,
    history: HistoryArg = None,
    by: Annotated[str, typer.Option("--by", metavar="entropy|minimax|remaining",
                                    help="Order: highest bits, smallest largest group, or lowest expected remaining.")] = "entropy",
    top: Annotated[str, typer.Option("--top", metavar="N", help="How many probes to show (at most the game's probe count).")] = "10",
    game: GameOption = None,
    t: TOption = "1",
    json_out: JsonOption = False,
    backend: BackendOption = None,
) -> None:
    """Rank every probe of the game over the candidates left by the history."""
    from termo.interface.partition import check_criterion, make_state, rank_probes
    from termo.core.prior import parse_temperature

    check_criterion(by)
    k = parse_int("top", top, 1)
    g = load_game(game)
    check_top(g, k)
    state = make_state(g, history or [], parse_temperature(t))
    rows = rank_probes(state, by=by, top=k, backend=backend)
    if json_out:
        print_json(rows)
        return
    width = max([len(r["word"]) for r in rows] + [5])
    typer.echo(f"top {len(rows)} of {g.n_probes} probes by {by} over {state.n} candidates ({g.shown}, "
               f"{_prior_label(g, state.t)}):")
    typer.echo(f"   #  {'word':<{width}}      bits  groups  largest  E[remaining]  can be answer")
    for r in rows:
        typer.echo(f"{r['rank']:4d}  " + _fmt_row(r, width))


@user_errors
def second_guess_command(
    ctx: typer.Context,
    game: GameOption = None,
    opener: Annotated[Optional[str], typer.Option("--opener", metavar="WORD",
                                                  help="First guess (default: the game's default opener).",
                                                  show_default=False)] = None,
    patterns: Annotated[str, typer.Option("--patterns", metavar="K", help="How many of the opener's most probable patterns "
                                          f"(at most {MAX_PATTERNS}: one plot panel each).")] = "5",
    top: Annotated[str, typer.Option("--top", metavar="N", help="Second guesses shown per pattern (at most the game's probe count).")] = "5",
    t: TOption = "inf",
    compare: Annotated[bool, typer.Option("--compare/--no-compare", help="Also rank every opener by the three criteria.")] = True,
    out: Annotated[Optional[Path], typer.Option("--out", metavar="DIR", help="Folder for the JSON, markdown and PNG (default: "
                                                "<cache dir>/results, outside the repository).", show_default=False)] = None,
    json_out: JsonOption = False,
    backend: BackendOption = None,
) -> None:
    """The Russian study's table for any game: H0, the opener's split, the best second guesses."""
    from termo.interface.partition import second_guess_markdown, second_guess_study, write_second_guess
    from termo.core.prior import parse_temperature

    k = parse_int("patterns", patterns, 1, MAX_PATTERNS, "one panel of the plot each")
    n = parse_int("top", top, 1)
    temperature = parse_temperature(t)
    g = load_game(game)
    check_top(g, n)
    if out is not None:
        out = out_folder(out)  # created (or refused) before the study runs
    with progress_bar("second guesses") as update:
        data = second_guess_study(g, opener, patterns=k, top=n, t=temperature, compare=compare, backend=backend,
                                  progress=update)
    _warn(data["warnings"])
    paths = write_second_guess(data, out)
    if json_out:
        print_json(data)
    else:
        typer.echo(second_guess_markdown(data))
    plots = f", {paths['plots'][0]}" if paths["plots"] else ""
    typer.echo(f"\nwritten: {paths['json']}, {paths['markdown']}{plots}", err=True)


def _bench_group(app: typer.Typer):
    """The ``bench`` sub-app registered on ``app`` (by cli.bench_commands), or None."""
    for info in getattr(app, "registered_groups", []):
        if info.name == "bench" and info.typer_instance is not None:
            return info.typer_instance
    return None


def register(app: typer.Typer) -> None:
    """Add ``partition`` and ``rank``; attach ``second-guess`` to ``bench`` (else to the root app)."""
    app.command("partition")(partition_command)
    app.command("rank")(rank_command)
    bench = _bench_group(app)
    (bench if bench is not None else app).command("second-guess")(second_guess_command)
