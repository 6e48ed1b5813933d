"""``termo nerdle archive|today|stats``: Nerdle's dated archive, today's official answer and the
monthly statistics (thin wrappers over :mod:`termo.puzzles`; docs/puzzles.md).

Exit codes: 0 done (``today``: the answer is verified); 2 bad input (a malformed date or month, a
date before the archive's 2000-01-01 or Nerdle's launch, a future date), one line on stderr;
3 ``today`` only: the answer is still being verified (the source is down, has no entry for the
day, or failed validation); the reason is printed (and is in the JSON, exit code still 3).
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cli.common import print_json, user_errors
from cli.options import JsonOption

BEING_VERIFIED_EXIT = 3
SOURCE_ENV = "TERMO_TODAY_SOURCE"

DateArg = Annotated[str, typer.Argument(metavar="DATE", help="A UTC date, YYYY-MM-DD (2000-01-01 or later).")]
SourceOpt = Annotated[Optional[str], typer.Option(
    "--today-source", metavar="URL|FILE", envvar=SOURCE_ENV, show_default=False,
    help="Where the dated official answers are read: an http(s) address or a file, lines "
         "'YYYY-MM-DD NUMBER EQUATION' or JSON (docs/puzzles.md).")]


def _difficulty_line(d: dict | None) -> str:
    if d is None:
        return "difficulty: withheld"
    tree = "" if d["guesses_on_tree"] is None else f", {d['guesses_on_tree']} guesses on the tree"
    return (f"difficulty: {d['quintile_label']} (percentile {d['percentile']:.2f}, rank {d['rank']} of {d['of']}"
            f"{tree}); {d['candidates_after_opener']} candidates after {d['opener']}")


@user_errors
def archive_command(date: DateArg, json_out: JsonOption = False) -> None:
    """The archive's equation for DATE, with its difficulty (retroactive, not the official record)."""
    from termo.interface.puzzles import archive_puzzle

    data = archive_puzzle(date)
    if json_out:
        print_json(data)
        return
    typer.echo(f"Nerdle archive {data['date']}: {data['equation']}")
    typer.echo(f"  {_difficulty_line(data['difficulty'])}")
    typer.echo(f"  archive #{data['archive_number']} (cycle {data['cycle']}, {data['position_in_cycle']} of "
               f"{data['cycle_length']})")
    typer.echo(f"  difficulty source: {data['difficulty_source']}")
    typer.echo(f"  {data['note']}")


@user_errors
def today_command(
    today_source: SourceOpt = None,
    date: Annotated[Optional[str], typer.Option("--date", metavar="D", show_default=False,
                                                help="Another UTC day (YYYY-MM-DD, from 2022-01-20 to today).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Today's official Nerdle (UTC), read from --today-source and validated; stored once verified."""
    from termo.interface.puzzles import VERIFIED, todays_nerdle

    data = todays_nerdle(date, today_source, retry_seconds=0.0)
    if json_out:
        print_json(data)
    elif data["status"] == VERIFIED:
        typer.echo(f"Nerdle #{data['number']} ({data['date']}): {data['equation']}"
                   f"{' (stored)' if data['from_store'] else ''}")
        if data["in_model"]:
            typer.echo(f"  {_difficulty_line(data['difficulty'])}")
            typer.echo(f"  difficulty source: {data['difficulty_source']}")
        else:
            typer.echo(f"  {data['model_note']}; difficulty and candidate counts withheld")
    else:
        typer.echo(f"Nerdle #{data['number']} ({data['date']}): being verified ({data['reason']})")
    if data["status"] != VERIFIED:
        raise typer.Exit(BEING_VERIFIED_EXIT)


@user_errors
def stats_command(
    month: Annotated[Optional[str], typer.Option(
        "--month", metavar="YYYY-MM", show_default=False,
        help="The month to summarise (default: this UTC month), with the month before.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Archive statistics: puzzle counts, mean difficulty, hardest day of a month and the month before."""
    from termo.interface.puzzles import archive_stats, month_sections

    data = archive_stats(month)
    if json_out:
        print_json(data)
        return
    typer.echo(f"Nerdle archive: {data['archive_puzzles']} puzzles from 2000-01-01 to {data['today']} "
               f"(cycles of {data['cycle_length']})")
    for label, m in month_sections(data, current=month is None):
        if m is None:
            typer.echo(f"  {label}: none (before the archive)")
            continue
        h = m["hardest_day"]
        counts = " ".join(f"{q}:{n}" for q, n in m["quintile_counts"].items())
        plural = "" if m["puzzles"] == 1 else "s"
        typer.echo(f"  {m['month']} ({label}): {m['puzzles']} puzzle{plural}{'' if m['complete'] else ' so far'}, "
                   f"mean percentile {m['mean_percentile']:.2f} (mean quintile {m['mean_quintile']:.2f}); "
                   f"quintiles {counts}; hardest {h['date']} {h['equation']} ({h['quintile_label']}, "
                   f"percentile {h['percentile']:.2f})")
    typer.echo(f"  difficulty source: {data['difficulty_source']}")
    typer.echo(f"  {data['note']}")


def register(app) -> None:
    """Add the ``nerdle`` sub-app (archive, today, stats) to the root app."""
    nerdle = typer.Typer(name="nerdle", help="Nerdle puzzles: dated archive, today's official answer, statistics.",
                         no_args_is_help=True)
    nerdle.command("archive")(archive_command)
    nerdle.command("today")(today_command)
    nerdle.command("stats")(stats_command)
    app.add_typer(nerdle, name="nerdle")
