"""``termo optimal --rank N``: every first word of a game ranked with proof (`termo.exact.ranking`,
docs/exact.md), its chunks checkpointed and run here, on local Dask workers or on a cluster."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import default_out, out_folder, print_json, progress_bar, resumed_left_out, say_checkpointed, warn
from termo.interface.requests import check_int
from cli.options import (CheckpointDirOption, ConnectTimeoutOption, OptionGroup, ResumeOption, SchedulerOption,
                         WorkersOption, check_cluster,
                         cluster_executor, worker_timeout_option)
from termo.core.errors import TermoError

DEFAULT_DIR = "optimal"  # checkpoints under <cache dir>/optimal/<game>[-hard]/checkpoints
MAX_RANK = 1000

RankOption = Annotated[Optional[int], typer.Option(
    "--rank", metavar="N", show_default=False,
    help=f"Rank every first word: prove the best and the exact totals of the N best (1 to {MAX_RANK}), "
         "resumable (--resume), here or on Dask (--workers, --scheduler).")]
ChunkOption = Annotated[int, typer.Option("--chunk", metavar="N", help="With --rank: first words per checkpointed chunk.")]
StatusOption = Annotated[bool, typer.Option(
    "--status", help="With --rank: say how far the checkpointed run has gone (first words settled, the best "
                     "totals so far, the bracket of the best), computing nothing.")]


@dataclass(frozen=True)
class Cluster:
    """Where a ranking's chunks run and are checkpointed (the options of `CLUSTER_OPTIONS`)."""

    resume: bool = False
    checkpoint_dir: Optional[Path] = None
    scheduler: Optional[str] = None
    workers: Optional[int] = None
    chunk: int = 64
    worker_timeout: float = 60.0
    connect_timeout: float = 5.0
    status: bool = False

    def check_unused(self) -> None:
        """These options only mean something with --rank."""
        given = [name for name, on in (("--resume", self.resume), ("--checkpoint-dir", self.checkpoint_dir),
                                       ("--scheduler", self.scheduler), ("--workers", self.workers is not None),
                                       ("--chunk", self.chunk != 64), ("--status", self.status)) if on]
        if given:
            raise TermoError(f"{', '.join(given)}: only with --rank N, or without --opener, --time and --nodes")


def _cluster(ctx, **values) -> Cluster:
    return Cluster(**values)


CLUSTER_OPTIONS = OptionGroup.of(
    _cluster, resume=(ResumeOption, False), checkpoint_dir=(CheckpointDirOption, None),
    scheduler=(SchedulerOption, None), workers=(WorkersOption, None), chunk=(ChunkOption, 64),
    worker_timeout=(worker_timeout_option(""), 60.0), connect_timeout=(ConnectTimeoutOption, 5.0),
    status=(StatusOption, False))


def optimal_rank(game, n: int, hard: bool, t: float, loss: float, cluster: Cluster, json_out: bool) -> None:
    """Rank ``game``'s first words (progress on stderr), print the proven top ``n`` (with
    ``--status``: how far the checkpointed run has gone)."""
    result = rank(game, n, hard, t, loss, cluster)
    if json_out:
        print_json(result)
    elif result["proved"]:
        _print_ranking(game, result)
    else:
        _print_status(game, result)


def rank(game, n: int, hard: bool, t: float, loss: float, cluster: Cluster) -> dict:
    """`termo.exact.ranking.rank_first_words` with the command's checkpoints, executor and progress."""
    from termo.core.executors import ClusterStopped
    from termo.interface.exact import other_runs, rank_first_words, rank_store

    check_int("rank", n, 1, MAX_RANK)
    check_int("chunk", cluster.chunk, 1, 100_000)
    check_cluster(cluster.scheduler, cluster.worker_timeout, cluster.connect_timeout, cluster.workers)
    folder = cluster.checkpoint_dir or default_out(DEFAULT_DIR) / (game.label + ("-hard" if hard else "")) / "checkpoints"
    if not Path(folder).is_file():  # a finished run's archive (.tar.gz) is read as it is
        out_folder(folder, option="--checkpoint-dir")
    store = rank_store(folder, reuse=cluster.resume or cluster.status)
    if cluster.status:
        result = rank_first_words(game, n, hard=hard, t=t, loss=loss, chunk=cluster.chunk, store=store, warn=warn,
                                  compute=False)
        hint = other_runs(store, game, hard=hard, t=t, loss=loss) if not result["proved"] and not result["settled"] \
            else None
        if hint:
            warn(f"none of the {store.count():,} checkpoints in {folder} is of this ranking ({hint})")
        return result
    executor = cluster_executor(cluster.scheduler, cluster.worker_timeout, cluster.connect_timeout, cluster.workers)
    info: dict = {}
    try:
        with progress_bar(f"ranking first words ({game.label})", unit="words") as update:
            result = rank_first_words(game, n, hard=hard, t=t, loss=loss, chunk=cluster.chunk, store=store,
                                      executor=executor,
                                      progress=resumed_left_out(update), warn=warn, info=info)
    except ClusterStopped as err:
        raise TermoError(f"{err.reason}; the finished chunks are checkpointed in {folder}; rerun with --resume") from None
    finally:
        executor.close()
    say_checkpointed(f"{result['first_words']:,} first words, ", info["chunks_computed"], info["chunks_resumed"],
                     info["seconds"], folder)
    return result


def _print_status(game, result: dict) -> None:
    low, high = result["best_bracket"]
    typer.echo(f"{game.shown}: {result['settled']:,} of {result['first_words']:,} first words settled "
               f"({result['chunks_missing']} chunks of the next round not checkpointed yet; --resume goes on)")
    for row in result["best_so_far"]:
        typer.echo(f"  {row['word']:<12} {row['total']:>12g} {row['mean']:>10.6f}")
    typer.echo(f"the best first word's value: between {low:.6f} and {high:.6f} (mean guesses)")
    sys.stdout.flush()


def _print_ranking(game, result: dict) -> None:
    title = game.shown
    weighted = result["t"] is not None
    mode = "hard mode" if result["hard"] else "normal mode"
    loss = result["loss"]
    objective = ("every answer found within the turn limit" if math.isinf(loss) else
                 f"a lost answer costs {loss:g} guesses more")
    typer.echo(f"{title}, {mode}, {objective}: every first word ({result['first_words']:,}) ranked; the best "
               f"{result['rank']} proved")
    typer.echo(f"{'rank':>5}  {'first word':<12} {'total' if not weighted else 'expected':>12} {'mean':>10}")
    place = 0
    last = None
    for i, row in enumerate(result["ranking"]):
        if row["total"] != last:
            place, last = i + 1, row["total"]
        total = f"{row['total']:.0f}" if not weighted else f"{row['total']:.10f}"
        typer.echo(f"{place:>5}  {row['word']:<12} {total:>12} {row['mean']:>10.6f}")
    bound = result["threshold"]
    shown = f"{bound:.0f}" if not weighted and math.isfinite(bound) else f"{bound:.10f}"
    typer.echo(f"every other first word was proved {'above' if not weighted else 'at least'} {shown} "
               f"({result['settled_by_first_pass'] + result['settled_by_bound']:,} by bounds, "
               f"{result['settled_by_search']:,} by a search)")
    sys.stdout.flush()


__all__ = ["CLUSTER_OPTIONS", "Cluster", "RankOption", "optimal_rank", "rank"]
