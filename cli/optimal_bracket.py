"""``termo optimal --game MODE --opener WORD --bracket``: a proved bracket for a whole two-board game
from a fixed first guess (`termo.engine.multi.bracket`, docs/modes-solver.md), its chunks
checkpointed and run here, on local Dask workers or on a cluster (the options of ``--rank``)."""

from __future__ import annotations

import sys

import typer

from cli.common import default_out, fail, out_folder, print_json, progress_bar, say_checkpointed, warn
from cli.limits import check_int
from termo.interface.requests import parse_int
from cli.options import check_cluster, cluster_executor
from termo.core.errors import TermoError

DEFAULT_DIR = "optimal"  # checkpoints under <cache dir>/optimal/<mode>-<opener>-bracket/checkpoints
MAX_CHUNK = 100_000
MAX_BUDGET = 10**12


def optimal_bracket(mode, opener, history, objective, t, cluster, json_out: bool, nodes=None) -> None:
    """Bracket ``mode`` from ``opener`` (progress on stderr), print ``lower``, ``upper`` and ``gap``
    (with ``--status``: how far the checkpointed run has gone); ``nodes``: the states each item may
    expand per 1,000 joint tuples (`DEFAULT_BUDGET`)."""
    from termo.core.executors import ClusterStopped
    from termo.core.prior import parse_temperature
    from termo.interface.exact import DEFAULT_BUDGET, DEFAULT_CHUNK, bracket_game, bracket_store, check_objective

    if mode.boards != 2:
        fail(f"--bracket is for a mode of two boards; {mode.label} has {mode.boards}")
    if history:
        fail("--bracket brackets a whole game from its first guess: give --opener, not a history")
    if check_objective(objective).name != "finish":
        fail("--bracket proves the objective finish only")
    if opener is None:
        fail("--bracket needs the first guess: --opener WORD")
    index = mode.game.index_of(opener)
    if index is None:
        fail(f"{opener!r} is not a guess of {mode.game.label}")
    chunk = DEFAULT_CHUNK if cluster.chunk == 64 else cluster.chunk  # 64: the option's default, --rank's
    check_int("chunk", chunk, 1, MAX_CHUNK)
    budget = DEFAULT_BUDGET if nodes is None else parse_int("nodes", nodes, 0, MAX_BUDGET)
    check_cluster(cluster.scheduler, cluster.worker_timeout, cluster.connect_timeout, cluster.workers)
    folder = cluster.checkpoint_dir or default_out(DEFAULT_DIR) / f"{mode.label}-{opener}-bracket" / "checkpoints"
    out_folder(folder, option="--checkpoint-dir")
    store = bracket_store(folder, reuse=cluster.resume or cluster.status)
    temperature = parse_temperature(t)
    if cluster.status:
        result = bracket_game(mode, index, t=temperature, budget=budget, chunk=chunk, store=store, warn=warn, compute=False)
        _print(result, json_out, folder)
        return
    executor = cluster_executor(cluster.scheduler, cluster.worker_timeout, cluster.connect_timeout, cluster.workers)
    info: dict = {}
    try:
        with progress_bar(f"bracketing {mode.label} from {opener}", unit="tuples") as update:
            result = bracket_game(mode, index, t=temperature, budget=budget, chunk=chunk, store=store, executor=executor,
                                  progress=update, warn=warn, info=info)
    except ClusterStopped as err:
        raise TermoError(f"{err.reason}; the finished chunks are checkpointed in {folder}; rerun with --resume") from None
    finally:
        executor.close()
    say_checkpointed(f"{result['items']:,} answer-set pairs, ", info["computed"], info["resumed"], info["seconds"],
                     folder)
    _print(result, json_out, folder)


def _print(result: dict, json_out: bool, folder) -> None:
    if json_out:
        print_json(result)
        return
    state = "proved" if result["proved"] else (
        "every pair settled" if result["items_settled"] == result["items"] else
        f"{result['items_settled']:,} of {result['items']:,} answer-set pairs settled "
        f"({result['chunks_missing']} chunks not checkpointed yet; --resume goes on)")
    typer.echo(f"{result['mode']} from {result['opener']}, objective finish (distinct answers, every pair): {state}")
    typer.echo(f"  lower {result['lower']:.6f}  (proved)")
    typer.echo(f"  upper {result['upper']:.6f}  (the best strategy found, valued over every answer pair)")
    typer.echo(f"  gap   {result['gap']:.6f}")
    part = result["settled"]
    if result["items_settled"] < result["items"] and part["weight"]:
        typer.echo(f"  settled so far: {part['weight']:.2%} of the answer pairs' probability; given those, "
                   f"lower {part['lower']:.6f}, upper {part['upper']:.6f}")
    typer.echo(f"  {result['items_proved']:,} of {result['items']:,} pairs of the opener's answer sets solved "
               f"exactly; {result['states']:,} states expanded")
    sys.stdout.flush()


__all__ = ["optimal_bracket"]
