"""``termo optimal`` for a game whose colours are not one honest answer's (docs/rules.md §13).

* Absurdle (the adversary, docs/absurdle.md): the fewest guesses that force a win, proved, with
  the number of winning sequences, of first words and of final words; ``--challenge``: for every
  target, the fewest guesses that force the game to end on it (a table of how many need 3, 4, 5,
  ...). Both are cut into chunks, checkpointed (``--resume``, ``--status``, ``--checkpoint-dir``)
  and run here, on local Dask workers (``--workers``) or a cluster (``--scheduler``), as ``--rank``.
* Fibble (rows that lie, docs/fibble.md): from a fixed opener (``--opener``, default the game's),
  the best expected number of guesses bracketed (an exact strategy's value above, the honest
  relaxation below; ``--nodes``: the exact solver's states per 100 candidates of a row of the
  opener) and the chance of a win within the rows, cut by the opener's rows (``--chunk`` rows a
  chunk, default 1), checkpointed and run as Absurdle's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cli.common import (default_out, fail, out_folder, print_json, progress_bar, resumed_left_out, say_checkpointed,
                        warn)
from cli.options import check_cluster, cluster_executor
from termo.core.errors import TermoError

DEFAULT_DIR = "optimal"  # checkpoints under <cache dir>/optimal/<game>[-hard]/checkpoints, as --rank's


def optimal_feedback(game, *, hard: bool, challenge: bool, opener, nodes, rank, cluster, json_out: bool,
                     progress) -> None:
    """The ``optimal`` answer of ``game`` by its feedback model (see the module doc)."""
    if rank is not None:
        fail(f"--rank ranks first words by their expected guesses; {game.label}'s colours are "
             f"{game.feedback.describe()} (see docs/rules.md §13)")
    if game.feedback.adversary:
        if opener is not None or nodes is not None:
            fail(f"--opener and --nodes are not taken by {game.label}: every first guess is searched")
        _absurdle(game, hard, challenge, cluster, json_out)
        return
    if challenge or hard:
        fail(f"{'--challenge' if challenge else '--hard'} is not taken by {game.label}")
    _fibble(game, opener, nodes, cluster, json_out)


def _absurdle(game, hard: bool, challenge: bool, cluster, json_out: bool) -> None:
    from termo.interface.exact import challenge_store, forced_store, prove_minimum, solve_challenge

    check_cluster(cluster.scheduler, cluster.worker_timeout, cluster.connect_timeout, cluster.workers)
    folder = cluster.checkpoint_dir or default_out(DEFAULT_DIR) / (game.label + ("-hard" if hard else "")) / "checkpoints"
    if not Path(folder).is_file():
        out_folder(folder, option="--checkpoint-dir")
    reuse = cluster.resume or cluster.status
    executor = None if cluster.status else cluster_executor(cluster.scheduler, cluster.worker_timeout,
                                                            cluster.connect_timeout, cluster.workers)
    info: dict = {}
    try:
        with progress_bar(f"forcing {game.label}", unit="first words") as update:
            result = prove_minimum(game, hard=hard, chunk=cluster.chunk, store=forced_store(folder, reuse),
                                   executor=executor, progress=resumed_left_out(update), warn=warn, info=info,
                                   compute=not cluster.status)
        if challenge and result.get("proved"):
            with progress_bar(f"challenge mode of {game.label}", unit="targets") as update:
                table = solve_challenge(game, result, hard=hard, chunk=cluster.chunk,
                                        store=challenge_store(folder, reuse), executor=executor,
                                        progress=resumed_left_out(update), warn=warn, compute=not cluster.status)
            result = {**result, "challenge": table}
    finally:
        if executor is not None:
            executor.close()
    if info:
        say_checkpointed("", info["chunks_computed"], info["chunks_resumed"], info["seconds"], folder)
    print_json(result) if json_out else _print_absurdle(game, result)


def _print_absurdle(game, result: dict) -> None:
    title = game.shown
    mode = "hard mode" if result["hard"] else "normal mode"
    if not result.get("proved") and "searching" in result:
        typer.echo(f"{title}, {mode}: no win in fewer than {result['searching']} guesses (proved); "
                   f"{result['first_words_done']:,} of {result['first_words']:,} first words searched for "
                   f"{result['searching']} ({result['chunks_missing']} chunks not checkpointed yet; --resume goes on)")
        return
    if result["minimum"] is None:
        typer.echo(f"{title}, {mode}: no forced win in {result['searched_up_to']} guesses or fewer (proved)")
        return
    typer.echo(f"{title}, {mode}: the fewest guesses that force a win: {result['minimum']} (proved: no sequence "
               f"of fewer wins against every guess's kept group)")
    typer.echo(f"  winning sequences of {result['minimum']} guesses: {result['sequences']:,} "
               f"(all of them), from {result['first_words']:,} first words, ending on "
               f"{result['final_words']:,} distinct final words")
    if result["wins"]:
        typer.echo(f"  e.g. {' '.join(result['wins'][0])}")
    table = result.get("challenge")
    if table:
        _print_challenge(table)
    sys.stdout.flush()


def _print_challenge(table: dict) -> None:
    typer.echo(f"  challenge mode, every target ({table['done']:,} of {table['targets']:,}"
               f"{'' if table['complete'] else ', not finished: --resume goes on'}): guesses needed")
    for key, count in table["table"].items():
        typer.echo(f"    {key:>5}: {count:,} targets")
    more = table["more_than"].get(str(table["minimum"]), [])
    typer.echo(f"  targets that need more than {table['minimum']}: {len(more):,}"
               + (f" ({', '.join(more[:12])}{', ...' if len(more) > 12 else ''})" if more else ""))
    if table["open"]:
        typer.echo(f"  bracketed (not proved): {', '.join(table['open'][:20])}")


def _fibble(game, opener, nodes, cluster, json_out: bool) -> None:
    from termo.core.executors import ClusterStopped
    from termo.interface.exact import FIBBLE_NODES, fibble_bracket, fibble_store
    from termo.interface.requests import parse_int

    limit = FIBBLE_NODES if nodes is None else parse_int("nodes", nodes, 1, 10**9)
    chunk = 1 if cluster.chunk == 64 else parse_int("chunk", cluster.chunk, 1, 100_000)  # 64: --rank's default
    check_cluster(cluster.scheduler, cluster.worker_timeout, cluster.connect_timeout, cluster.workers)
    word = opener or game.default_opener
    folder = cluster.checkpoint_dir or default_out(DEFAULT_DIR) / f"{game.label}-{word}" / "checkpoints"
    if not Path(folder).is_file():
        out_folder(folder, option="--checkpoint-dir")
    store = fibble_store(folder, cluster.resume or cluster.status)
    executor = None if cluster.status else cluster_executor(cluster.scheduler, cluster.worker_timeout,
                                                            cluster.connect_timeout, cluster.workers)
    info: dict = {}
    try:
        with progress_bar(f"bracketing {game.label} from {word}", unit="candidates") as update:
            result = fibble_bracket(game, opener, nodes=limit, chunk=chunk, store=store, executor=executor,
                                    progress=resumed_left_out(update), warn=warn, info=info,
                                    compute=not cluster.status)
    except ClusterStopped as err:
        fail(f"{err.reason}; the finished rows are checkpointed in {folder}; rerun with --resume")
    except TermoError as err:
        fail(str(err))
    finally:
        if executor is not None:
            executor.close()
    if not cluster.status:
        say_checkpointed("", info["computed"], info["resumed"], info["seconds"], folder,
                         unit=("chunk of rows", "chunks of rows"), extra=f" ({info['cpu_seconds']:.1f} s CPU here)")
    print_json(result) if json_out else _print_fibble(game, result)


def _print_fibble(game, result: dict) -> None:
    title = game.shown
    if not result["complete"]:
        part = result["settled"]
        typer.echo(f"{title}, opener {result['opener']}: {result['rows_settled']} of {result['rows_of_opener']} rows "
                   f"of the opener settled ({result['chunks_missing']} chunks not checkpointed yet; --resume goes on)")
        typer.echo(f"  so far: between {result['lower']:.4f} and {result['upper']:.4f} (unsettled rows at their "
                   f"widest); given a settled row ({part['chance']:.2%} of the chance), between "
                   f"{part['lower'] or 0:.4f} and {part['upper'] or 0:.4f}")
        return
    status = "proved" if result["proved"] else f"bracketed, gap {result['gap']:.4f}"
    typer.echo(f"{title}, opener {result['opener']}, {result['rows']} rows: the best expected number of guesses "
               f"is between {result['lower']:.4f} and {result['upper']:.4f} ({status})")
    typer.echo(f"  above: the level-{result['policy_level']} strategy's exact value ({result['policy_states']:,} states "
               f"walked), which wins within the rows with chance {result['win_within_rows']:.12f}")
    how = "each proved" if result["lower_rows_proved"] else \
        (f"{result['rows_lower_proved']} proved, the others the exact solver's own lower bound after "
         f"{result['lower_nodes_per_100']:,} states per 100 candidates")
    typer.echo(f"  below: honest colours after the opener's row (the exact solver on each of its "
               f"{result['rows_of_opener']} rows, {how})")
