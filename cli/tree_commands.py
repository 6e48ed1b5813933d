"""`termo tree build|eval|show`: thin wrappers over `termo.trees`.

``build`` writes a complete strategy tree (progress with ETA on stderr) to ``--out`` or, by
default, to the cache of built trees that ``termo suggest``/``play`` walk; ``eval`` replays a
tree file against every answer (``--json`` keys ``mean``, ``histogram``, ``worst``, ``losses``,
``answers``); ``show`` prints its top levels or the path of one answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import fail, print_json, progress_bar
from termo.interface.requests import USER_ERRORS, load_game
from cli.options import (BackendOption, BeamOption, DepthOption, ExtendedOption, GameOption, HardOption, JsonOption,
                         StrictOption, TOption)
from termo.interface.requests import parse_int, parse_seconds
from termo.core.errors import TermoError

FileArg = Annotated[str, typer.Argument(metavar="FILE", help="A tree file written by `termo tree build`.", show_default=False)]


def build_command(
    ctx: typer.Context,
    method: Annotated[str, typer.Option("--method", metavar="exact|level3|practical",
                                        help="exact: the exact solver's strategy; level3: today's level-3 policy "
                                             "played out; practical: the practical builder of docs/trees.md (candidates + sampled probes, "
                                             "64 evaluated exactly).")] = "practical",
    opener: Annotated[Optional[str], typer.Option("--opener", metavar="WORD", show_default=False,
                                                  help="The root guess (default: the game's interface opener).")] = None,
    out: Annotated[Optional[str], typer.Option("--out", metavar="FILE", show_default=False,
                                               help="Where to write it (.gz: compressed); default: the cache of "
                                                    "built trees, which suggest and play walk.")] = None,
    t: TOption = "1.0",
    beam: BeamOption = "10",
    depth: DepthOption = "1",
    hard: HardOption = False,
    extended: ExtendedOption = False,
    strict: StrictOption = False,
    time_limit: Annotated[Optional[str], typer.Option("--time", metavar="SECONDS", show_default=False,
                                                      help="exact: the solver's time budget, up to 86,400 s (default: its own).")] = None,
    samples: Annotated[Optional[str], typer.Option("--samples", metavar="N", show_default=False,
                                                   help="practical: exploratory probes added at a node of 500 answers or "
                                                        "fewer (default 2,000).")] = None,
    remaining: Annotated[str, typer.Option("--remaining", metavar="all|unsolved",
                                           help="practical: the shortlist's expected remaining answers count every "
                                                "group (all) or leave out the answers the guess solves (unsolved; "
                                                "docs/trees.md).")] = "all",
    game_name: GameOption = None,
    json_out: JsonOption = False,
    backend: BackendOption = None,
) -> None:
    """Build a complete strategy tree: every branch by feedback until every answer is solved."""
    from termo.core.prior import parse_temperature
    from termo.interface.trees import build_tree, check_method
    from termo.interface.trees import evaluate
    from termo.interface.trees import write_tree
    from termo.interface.trees import cache_path

    try:
        check_method(method)
        game = load_game(game_name, extended=extended, strict=strict)
        temperature = parse_temperature(t)
        k, p = parse_int("beam", beam, 1, 100), parse_int("depth", depth, 0, max(game.max_turns - 1, 0))
        seconds = parse_seconds("time", time_limit)  # finite, at most a day, as in `optimal --time`
        practical = {"remaining": remaining}
        if samples is not None:
            practical["samples"] = parse_int("samples", samples, 0, game.n_probes)
        if method != "practical" and (samples is not None or remaining != "all"):
            raise TermoError("--samples and --remaining are options of --method practical")
        with progress_bar(f"tree build {game.label} {method}", total=game.n_answers, unit="answers") as update:
            tree = build_tree(game, method, opener, t=temperature, hard=hard, beam=k, depth=p, backend=backend,
                              progress=lambda done, total: update(done, total), time_limit=seconds,
                              practical=practical if method == "practical" else None)
        path = cache_path(tree) if out is None else out
        try:
            write_tree(tree, game, path)
        except OSError as err:  # named: a full disk's error carries no path (--out writes elsewhere)
            from termo.core.cache import os_reason

            raise TermoError(f"cannot write the tree in {Path(path).parent}: {os_reason(err)}; "
                             f"--out FILE writes it elsewhere") from None
        summary = tree.info.get("eval") or evaluate(tree, game)
    except USER_ERRORS as err:
        fail(str(err))
    data = {"file": str(path), "game": game.label, "method": method, "opener": tree.opener, "nodes": tree.nodes,
            "seconds": tree.seconds, "mean": summary["mean"], "worst": summary["worst"],
            "losses": summary["losses"], "answers": game.n_answers, "info": tree.info}
    if json_out:
        print_json(data)
    else:
        typer.echo(f"wrote {path}")
        typer.echo(f"{game.shown}, {method} tree from {tree.opener}: {tree.nodes:,} nodes in "
                   f"{tree.seconds:.1f} s; mean {summary['mean']:.4f} guesses, worst {summary['worst']}, "
                   f"{summary['losses']} losses over {game.n_answers:,} answers")


def _read(file: str):
    from termo.interface.trees import read_tree

    return read_tree(file)


def eval_command(file: FileArg, json_out: JsonOption = False) -> None:
    """Replay a tree against every answer: mean guesses, histogram, worst case, losses."""
    from termo.interface.trees import evaluate

    try:
        tree, game = _read(file)
        data = evaluate(tree, game)
    except USER_ERRORS as err:
        fail(str(err))
    if json_out:
        print_json(data)
        return
    typer.echo(f"{game.shown}, {data['method']} tree from {data['opener']} ({data['nodes']:,} nodes):")
    if data["missing"]:
        typer.echo(f"  INCOMPLETE: {data['missing']} answers have no branch (e.g. {', '.join(data['missing_examples'])})")
    else:
        typer.echo(f"  mean {data['mean']:.6f} guesses over {data['answers']:,} answers (total {data['total']:,})")
    if "mean_uniform" in data and data["mean_uniform"] is not None:
        typer.echo(f"  uniform mean {data['mean_uniform']:.6f} (the mean above weighs the answers by the prior, T={data['t']})")
    typer.echo(f"  worst {data['worst']}, losses {data['losses']} (more than {data['max_turns']} guesses)")
    typer.echo("  histogram: " + ", ".join(f"{k + 1}: {n}" for k, n in enumerate(data["histogram"])))


def show_command(
    file: FileArg,
    depth: Annotated[str, typer.Option("--depth", metavar="N", help="Guesses shown from the root.")] = "2",
    answer: Annotated[Optional[str], typer.Option("--answer", metavar="A", show_default=False,
                                                  help="Show the path of this answer instead.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Print a tree's top levels, or the guesses it plays against one answer."""
    from termo.interface.trees import answer_path, format_levels, format_path, top_levels

    try:
        levels = parse_int("depth", depth, 1, 64)
        tree, game = _read(file)
        data = answer_path(tree, game, answer) if answer is not None else top_levels(tree, game, levels)
    except USER_ERRORS as err:
        fail(str(err))
    if json_out:
        print_json(data)
        return
    for line in (format_path(data) if answer is not None else format_levels(data)):
        typer.echo(line)


def register(app) -> None:
    """Add the ``tree`` sub-app (build, eval, show) to the root app."""
    tree = typer.Typer(name="tree", help="Stored strategy trees: build, evaluate, show.", no_args_is_help=True)
    tree.command("build")(build_command)
    tree.command("eval")(eval_command)
    tree.command("show")(show_command)
    app.add_typer(tree, name="tree")
