"""Foundation commands: backends, feedback, lexicon, matrix."""

from __future__ import annotations

from typing import Annotated

import typer

from backends import available_backends, get_backend
from cli.common import BackendOption, JsonOption, print_json, user_errors
from termo import lexicon
from termo.feedback import feedback, render_squares
from termo.games import termo_game
from termo.matrix import build_info

ExtendedOption = Annotated[
    bool, typer.Option("--extended", help="Use the 8,629 typeable words (answers + conjugations) as probes.")
]


@user_errors
def backends_command(json_out: JsonOption = False) -> None:
    """List the array backends: installed or not, version and device."""
    rows = available_backends()
    if json_out:
        print_json(rows)
        return
    for row in rows:
        if row.get("usable"):
            typer.echo(f"{row['name']:<18} {row['version']:<10} {row['device']}")
        else:
            typer.echo(f"{row['name']:<18} unavailable: {row['reason']}")


@user_errors
def feedback_command(
    guess: Annotated[str, typer.Argument(help="The word played (accents optional).")],
    answer: Annotated[str, typer.Argument(help="The secret word.")],
    json_out: JsonOption = False,
) -> None:
    """The colours Termo shows for GUESS when the secret is ANSWER (G green, Y yellow, B absent)."""
    pattern = feedback(guess, answer)
    if json_out:
        print_json({"guess": guess, "answer": answer, "pattern": pattern, "squares": render_squares(pattern)})
    else:
        typer.echo(f"{pattern} {render_squares(pattern)}")


@user_errors
def lexicon_command(json_out: JsonOption = False) -> None:
    """Rebuild the word lists from the raw fserb/pt-br sources and report every count."""
    counts = lexicon.rebuild().counts()
    if json_out:
        print_json(counts)
        return
    labels = {
        "five_letter_words": "five-letter words in the source",
        "groups": "groups after accent folding",
        "colliding_groups": "groups with several spellings",
        "colliding_words": "words in those groups",
        "cedilla_before_dedupe": "words with ç before dedupe",
        "cedilla_after_dedupe": "words with ç after dedupe",
        "answers": "answers",
        "probes_extended": "probes in the extended space",
    }
    for key, label in labels.items():
        typer.echo(f"{label:<34} {counts[key]:>6,}")


@user_errors
def matrix_command(
    extended: ExtendedOption = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Ignore the cache and rebuild the matrix.")] = False,
    backend: BackendOption = None,
    json_out: JsonOption = False,
) -> None:
    """Build (or load from the cache) the pattern matrix; report shape, signature, time, cache path."""
    info = build_info(termo_game(extended=extended), get_backend(backend), rebuild=rebuild)
    report = {k: info[k] for k in ("shape", "signature", "seconds", "cache", "source", "backend")}
    if json_out:
        print_json(report)
        return
    rows, cols = report["shape"]
    typer.echo(f"shape      {rows:,} x {cols:,}")
    typer.echo(f"signature  {report['signature']}")
    typer.echo(f"seconds    {report['seconds']:.3f} ({report['source']}, backend {report['backend']})")
    typer.echo(f"cache      {report['cache']}")


def register(app: typer.Typer) -> None:
    app.command("backends")(backends_command)
    app.command("feedback")(feedback_command)
    app.command("lexicon")(lexicon_command)
    app.command("matrix")(matrix_command)
