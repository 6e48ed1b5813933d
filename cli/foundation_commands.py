"""Foundation commands: backends, games, feedback, lexicon, matrix."""

from __future__ import annotations

from typing import Annotated

import typer

from backends import available_backends, get_backend
from cli.common import print_json, user_errors
from termo.interface.requests import load_game
from cli.options import BackendOption, ExtendedOption, GameOption, JsonOption, StrictOption


@user_errors
def backends_command(json_out: JsonOption = False) -> None:
    """List the array backends: installed or not, version and device."""
    rows = available_backends()
    if json_out:
        print_json(rows)
        return
    typer.echo(f"{'backend':<18} {'version':<10} device")
    for row in rows:
        if row.get("usable"):
            typer.echo(f"{row['name']:<18} {row['version']:<10} {row['device']}")
        else:
            typer.echo(f"{row['name']:<18} unavailable: {row['reason']}")


@user_errors
def games_command(json_out: JsonOption = False) -> None:
    """List the games (name, answers, probes after normalisation, tiles, tries, prior, win rule),
    then the modes of several boards (boards, shared tries, base game; docs/modes.md)."""
    from termo.games.registry import listing

    everything = listing()  # the games first, as before; a mode's row has "boards"
    if json_out:
        print_json(everything)
        return
    rows = [row for row in everything if "boards" not in row]
    modes = [row for row in everything if "boards" in row]
    width = max(len(row["name"]) for row in everything)
    for row in rows:
        typer.echo(f"{row['name']:<{width}} {row['answers']:>6,} answers {row['probes']:>6,} probes  "
                   f"{row['length']} tiles, {row['turns']} tries, {row['prior']} prior, {row['win_rule']} wins"
                   + (f"; colours: {row['feedback']['description']}" if "feedback" in row else ""))
    typer.echo("modes (several boards, one guess for all; --game in suggest and play):")
    for row in modes:
        typer.echo(f"{row['name']:<{width}} {row['boards']:>2} boards of {row['game']:<7} {row['turns']:>2} tries, "
                   f"{row['answers']:>6,} answers {row['probes']:>6,} probes")


def _game_word(game, text: str, label: str) -> str:
    """A normalised word of ``game`` typed on the command line (TermoError when invalid)."""
    return game.word_of(text, label)


@user_errors
def feedback_command(
    guess: Annotated[str, typer.Argument(metavar="GUESS", help="The word (or equation) played; accents optional in Termo.")],
    answer: Annotated[str, typer.Argument(metavar="ANSWER", help="The secret word (or equation).")],
    game_name: GameOption = None,
    strict: StrictOption = False,
    json_out: JsonOption = False,
) -> None:
    """The colours the game shows for GUESS when the secret is ANSWER (G green, Y yellow/purple, B absent)."""
    from termo.core.feedback import colours, render_squares

    game = load_game(game_name, strict=strict)
    g, a = _game_word(game, guess, "guess"), _game_word(game, answer, "answer")
    gi, ai = game.index_of(g), game.index_of(a)
    if gi is not None and ai is not None and game.is_answer_index(ai) and game.wins(gi, ai):
        pattern = game.win_pattern
    else:
        pattern = colours(g, a)
    if json_out:
        print_json({"guess": guess, "answer": answer, "pattern": pattern, "squares": render_squares(pattern)})
    else:
        typer.echo(f"{pattern} {render_squares(pattern)}")


@user_errors
def lexicon_command(game_name: GameOption = None, json_out: JsonOption = False) -> None:
    """Report the game's list sizes (Termo: rebuilt from the raw fserb/pt-br sources, every count)."""
    from termo.games import lexicon
    from termo.games import resolve_name

    name = resolve_name(game_name)
    if name != "termo":
        game = load_game(name)
        counts = {"game": name, "answers": game.n_answers, "probes": game.n_probes,
                  "patterns": game.n_patterns, "length": game.word_length}
        if json_out:
            print_json(counts)
        else:
            for key, value in counts.items():
                typer.echo(f"{key:<10} {value:>8,}" if isinstance(value, int) else f"{key:<10} {value:>8}")
        return
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
    ctx: typer.Context,
    game_name: GameOption = None,
    extended: ExtendedOption = False,
    strict: StrictOption = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Ignore the cache and rebuild the matrix.")] = False,
    backend: BackendOption = None,
    json_out: JsonOption = False,
) -> None:
    """Build (or load from the cache) the pattern matrix; report shape, signature, time, cache path."""
    from termo.interface.matrix import build_info

    info = build_info(load_game(game_name, extended=extended, strict=strict), get_backend(backend), rebuild=rebuild)
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
    app.command("games")(games_command)
    app.command("feedback")(feedback_command)
    app.command("lexicon")(lexicon_command)
    app.command("matrix")(matrix_command)
