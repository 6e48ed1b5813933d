"""``termo openers``: the full-game opener table of a game (docs/openers.md)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import default_out, print_json, progress_bar, user_errors
from cli.options import BackendOption, CheckpointDirOption, GameOption, ResumeOption, TOption, WorkersOption
from cli.options import (ConnectTimeoutOption, SchedulerOption, check_cluster, cluster_executor,
                         value_option, worker_timeout_option)
from termo.interface.requests import check_int
from termo.core.errors import TermoError
from termo.core.messages import counted

DEFAULT_DIR = "openers"  # checkpoints under <cache dir>/openers/<game>/checkpoints
TOP_SHOWN = 20
WorkerTimeoutOption = worker_timeout_option("")


@user_errors
def openers_command(
    ctx: typer.Context,
    game_name: GameOption = None,
    t: TOption = "1",
    out: value_option("--out", "FILE", "Also write the whole table with its metadata (game, prior, rounds, method) as JSON to FILE.", Optional[Path]) = None,
    resume: ResumeOption = False,
    checkpoint_dir: CheckpointDirOption = None,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    limit: value_option("--limit", "N", "Only the first N answers (in the game's answer order) as openers: a partial table.", Optional[int]) = None,
    only: Annotated[
        Optional[list[str]],
        typer.Option("--only", metavar="WORD", show_default=False,
                     help="Only these openers (answers of the game; repeat the option or list the words after it): "
                     "ranks are among them."),
    ] = None,
    follow_up: Annotated[
        str,
        typer.Option("--follow-up", metavar="entropy|candidates-remaining",
                     help="The greedy follow-up: entropy (the §5.2 first probe over every probe; the default) or "
                     "candidates-remaining (a candidate leaving the fewest answers unsolved; NerdleBuddy's table)."),
    ] = "entropy",
    chunk: Annotated[int, typer.Option("--chunk", metavar="N", help="Openers per checkpointed chunk.")] = 32,
    worker_timeout: WorkerTimeoutOption = 60.0,
    connect_timeout: ConnectTimeoutOption = 5.0,
    backend: BackendOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the table as JSON on stdout: a list of "
                                           "{word, expected, rank}, by rank then word.")] = False,
) -> None:
    """Every answer as the opener, a greedy follow-up against every answer: the full-game
    expected guesses, to 4 decimals, ties sharing a rank."""
    from termo.core.chunks import CheckpointStore

    check_cluster(scheduler, worker_timeout, connect_timeout, workers)
    config = _table_config(game_name, t, chunk, limit, backend, _words(ctx, only), follow_up)
    folder = checkpoint_dir if checkpoint_dir is not None else default_out(DEFAULT_DIR) / config.game / "checkpoints"
    _writable_folder(folder, "--checkpoint-dir")
    if out is not None:
        _writable_file(out)
    store = CheckpointStore(folder, reuse=resume)
    executor = cluster_executor(scheduler, worker_timeout, connect_timeout, workers)
    info: dict = {}
    table = _run_table(config, store, executor, info, folder, out)
    typer.echo(
        f"openers: {counted(table['n_openers'], 'opener', grouped=True)}, {counted(info.get('chunks_computed', 0), 'chunk')} computed, "
        f"{info.get('chunks_resumed', 0)} resumed, {info.get('seconds', 0.0):.1f} s"
        + (f"; wrote {out}" if out is not None else ""),
        err=True,
    )
    if json_out:
        print_json(table["openers"])
        return
    from termo.interface.robustness import summary

    _print_table(table, summary(table, TOP_SHOWN))


def _words(ctx: typer.Context, only: Optional[list[str]]) -> Optional[tuple]:
    """``--only A B C`` and ``--only A --only B``: the words given to --only, and the words left
    over after the options (click collects them as extra arguments), in order."""
    if only is None:
        if ctx.args:
            raise TermoError(f"unexpected argument {ctx.args[0]!r} (openers are named with --only)")
        return None
    return tuple(only) + tuple(ctx.args)


def _table_config(game_name: Optional[str], t: Optional[str], chunk: int, limit: Optional[int], backend,
                  only: Optional[tuple] = None, follow_up: str = "entropy"):
    """The table's `termo.robustness.opener_table.TableConfig`, its options checked."""
    from backends import get_backend
    from termo.core.prior import parse_temperature
    from termo.games import resolve_name
    from termo.interface.robustness import TableConfig

    name = resolve_name(game_name)
    temperature = 1.0 if t is None else parse_temperature(t)
    if temperature <= 0:
        raise TermoError(f"--t must be positive (or inf), got {t}")
    check_int("chunk", chunk, 1, 100_000)
    if limit is not None:
        check_int("limit", limit, 1)
    if only is not None and limit is not None:
        raise TermoError("give --only or --limit, not both")
    from termo.interface.robustness import FOLLOW_UPS

    if follow_up not in FOLLOW_UPS:
        raise TermoError(f"--follow-up must be one of {', '.join(FOLLOW_UPS)}, not {follow_up!r}")
    return TableConfig(game=name, t=temperature, limit=limit, chunk_size=chunk, backend=get_backend(backend).name,
                       only=only, follow_up=follow_up)


def _run_table(config, store, executor, info: dict, folder: Path, out: Optional[Path]) -> dict:
    """Compute the table (progress on stderr), write it to ``out`` if given; the executor is closed."""
    from termo.core.executors import ClusterStopped
    from termo.interface.robustness import run_table

    try:
        with progress_bar(f"openers ({config.game})", unit="openers") as update:
            table = run_table(config, store=store, executor=executor, progress=_fresh_work(update), info=info)
            update.phase("writing the table…")
            if out is not None:
                from termo.core.cache import atomic_write_json
                from termo.core.plain_data import jsonable

                atomic_write_json(out, jsonable(table))
    except ClusterStopped as err:
        raise TermoError(f"{err.reason}; the finished chunks are checkpointed in {folder}; rerun with --resume") from None
    finally:
        executor.close()
    return table


def _fresh_work(update):
    """Progress of the openers still to compute: the chunks resumed from checkpoints (all
    reported before the first computed one) are left out, so the time left is estimated from
    the work of this run only."""
    base: dict = {}

    def report(done: int, total: int, note: str = "") -> None:
        resumed = base.setdefault("resumed", done)
        update(done - resumed, total - resumed)

    return report


def _writable_folder(folder: Path, option: str) -> None:
    from cli.common import out_folder

    out_folder(folder, option=option)


def _writable_file(path: Path) -> None:
    """``--out FILE`` must be a file we can write, checked before the work starts."""
    if path.is_dir():
        raise TermoError(f"--out {path}: is a folder (give a file name)")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise TermoError(f"--out {path}: the folder {parent} does not exist")
    import os

    if not os.access(parent, os.W_OK):
        raise TermoError(f"--out {path}: cannot write in {parent}")


def _print_table(table: dict, info: dict) -> None:
    prior = table["prior"]
    over = (f"over {table['n_probes']:,} probes" if table.get("follow_up", "entropy") == "entropy"
            else "among the candidates (fewest answers left unsolved)")
    typer.echo(f"{table['title']}: opener table ({table['n_openers']:,} of {table['n_answers']:,} answers as openers, "
               f"greedy follow-up {over}, prior {prior}, {table['rounds']} rounds)")
    if not table["complete"]:
        typer.echo("partial table (--limit or --only): ranks are among the openers evaluated only")
    typer.echo(f"{'rank':>5}  {'opener':<12} {'expected':>9}")
    for row in info["top"]:
        value = row["expected"]
        shown = "inf" if not math.isfinite(value) else f"{value:.4f}"
        typer.echo(f"{row['rank']:>5}  {row['word']:<12} {shown:>9}")
    best = info["best"]
    if best is not None:
        tied = info["tied_at_top"]
        ties = f" ({tied} openers tied at 4 decimals)" if tied > 1 else ""
        typer.echo(f"best: {best['word']} {best['expected']:.4f}{ties}; worst: {info['worst']['word']} "
                   f"{info['worst']['expected']:.4f}; mean over openers {info['mean']:.4f}")
    sys.stdout.flush()


def register(app) -> None:
    """Add ``termo openers`` to the root app."""
    app.command("openers", context_settings={"allow_extra_args": True})(openers_command)


__all__ = ["openers_command", "register"]
