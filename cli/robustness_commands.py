"""``termo robustness``: opener robustness across priors (rules §8), beam or all openers."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import out_folder, print_json, progress_bar, user_errors
from cli.options import BackendOption, ExtendedOption, GameOption, JsonOption, ResumeOption
from cli.options import (ConnectTimeoutOption, SchedulerOption, check_cluster, cluster_executor,
                         value_option, worker_timeout_option)
from cli.limits import MAX_COLUMNS
from termo.interface.requests import check_int
from termo.core.errors import TermoError
from termo.core.messages import counted

DEFAULT_OUT = "robustness"  # under the cache dir (cli.common.default_out)
WorkerTimeoutOption = worker_timeout_option(" (at the start, or after every worker was lost)")


def _parse_columns(text: str | None, data):
    """``--columns``: comma-separated effective sizes of the grid (300, 600, ...), ``T=x`` for a
    temperature over every answer, or ``project`` (T = 1). None → the grid of docs/robustness.md."""
    from termo.core.prior import parse_temperature
    from termo.interface.robustness import size_at, temperature_for
    from termo.interface.robustness import Column, grid_columns

    if not text:
        return grid_columns(data)
    n = len(data.icf)
    cols = []
    for raw in text.split(","):
        token = raw.strip().lower()
        if not token:
            continue
        if token in ("project", "t1", "447"):
            cols.append(Column("T=1", 1.0, n))
        elif token.startswith("t="):
            t = parse_temperature(token[2:])
            cols.append(Column(f"T={t:g}", t, n))
        else:
            try:
                target = float(token.removeprefix("m="))
            except ValueError:
                raise TermoError(f"bad column {raw.strip()!r}: use an effective size (e.g. 1200), T=<temperature> "
                                 "or project") from None
            if not (1 < target <= n):  # nan and inf included
                raise TermoError(f"bad column {raw.strip()!r}: the effective size must be a number above 1 "
                                 f"and at most {n} (the answers; T=inf weighs them all equally)")
            cols.append(Column(f"M={target:g}", temperature_for(data.icf, target, n), n, target))
    if not cols:
        raise TermoError("--columns selected no column")
    unique = list({(c.t, c.n_cut): c for c in cols}.values())
    check_int("columns", len(unique), 1, MAX_COLUMNS, "each column is a whole sweep")
    return sorted(unique, key=lambda c: size_at(data.icf, c.t, c.n_cut))


def _scale_section(data, world, backend: str) -> dict:
    from termo.interface.robustness import SCALE_TEMPERATURES, collapse_test, scale_table, temperature_for

    n = len(data.icf)
    targets = [t for t in (300, 600, 1200, 2400, 4800, 6046) if t <= n] or [n]
    section = {
        "temperatures": [{"M": float(m), "T": temperature_for(data.icf, m, n)} for m in targets],
        "scale_table": scale_table(data.icf, SCALE_TEMPERATURES),
    }
    if world.size is None:
        collapse = collapse_test(data.matrix, data.icf, n_patterns=data.n_patterns, backend=backend)
        for row in collapse["rows"]:
            row["word"] = data.probes[row["opener"]]
        collapse["winners"] = [data.probes[g] for g in collapse["winners"]]
        section["collapse"] = collapse
    return section


@user_errors
def robustness_command(
    ctx: typer.Context,
    openers: Annotated[
        str, typer.Option("--openers", metavar="beam|all", help="beam: the reference's candidate openers; all: every probe in every column.")
    ] = "beam",
    columns: Annotated[
        Optional[str],
        typer.Option("--columns", metavar="LIST", help="Comma-separated columns: effective sizes (300,600,1200,2400,4800,6046), "
                     f"T=<temperature>, or project (T=1); at most {MAX_COLUMNS}. Default: the seven columns of the grid."),
    ] = None,
    out: value_option("--out", "DIR", "Folder for robustness.json/.md, the heatmap and checkpoints (default: "
                      "<cache dir>/robustness, outside the repository).", Optional[Path]) = None,
    resume: ResumeOption = False,
    scheduler: SchedulerOption = None,
    worker_timeout: WorkerTimeoutOption = 60.0,
    connect_timeout: ConnectTimeoutOption = 5.0,
    verbose: Annotated[
        bool, typer.Option("--verbose", help="Show the Dask cluster's own log messages on stderr (also TERMO_DEBUG=1).")
    ] = False,
    past: Annotated[
        Optional[Path], typer.Option("--past", metavar="FILE", help="File of past secrets, one a line: adds the empirical floor.")
    ] = None,
    chunk: Annotated[int, typer.Option("--chunk", min=1, metavar="N", help="Openers per checkpointed chunk (at most the world's probes).")] = 32,
    world_size: Annotated[
        Optional[int],
        typer.Option("--world", metavar="N", help="Closed world of the N most common answers (quick runs; 2 to the game's answers); "
                     "default: the whole game."),
    ] = None,
    extended: ExtendedOption = False,
    game_name: GameOption = None,
    backend: BackendOption = None,
    json_out: JsonOption = False,
) -> None:
    """Expected guesses of openers under seven priors, regrets and the robust opener (rules §8)."""
    from backends import get_backend
    from termo.games import resolve_name
    from termo.core.chunks import CheckpointStore
    from termo.interface.robustness import SweepConfig
    from termo.interface.robustness import World, load_world

    if openers not in ("beam", "all"):
        raise TermoError(f"--openers must be beam or all, got {openers!r}")
    check_cluster(scheduler, worker_timeout, connect_timeout)
    backend_name = get_backend(backend).name
    world = World(extended=extended, size=world_size, game=resolve_name(game_name))
    data = load_world(world)
    check_int("chunk", chunk, 1, len(data.probes), f"the world has {len(data.probes):,} probes")
    cols = _parse_columns(columns, data)
    past_words = None if past is None else _past_secrets(past)
    out = out_folder(out, default=DEFAULT_OUT)  # created (or refused) before the sweep starts
    # chunks are keyed by a hash of their inputs, so reusing one is always sound; without --resume
    # the run still starts from scratch (and overwrites), it never deletes anything
    store = _CountingStore(CheckpointStore(out / "checkpoints", reuse=resume))
    executor = cluster_executor(scheduler, worker_timeout, connect_timeout, verbose=verbose)
    info: dict = {}
    sweep = _Sweep(SweepConfig(world=world, columns=cols, mode=openers, chunk_size=chunk, backend=backend_name),
                   data, past_words, out)
    doc, paths = sweep.run(store, executor, info, resume_command=lambda: _resume_command(ctx))
    typer.echo(
        f"robustness: {counted(info.get('chunks_computed', 0), 'chunk')} computed, {info.get('chunks_resumed', 0)} resumed, "
        f"{info.get('seconds', 0.0):.1f} s; wrote {paths['json']}",
        err=True,
    )
    if json_out:
        print_json(doc)
        return
    _print_summary(doc)


def _past_secrets(past: Path) -> list[str]:
    """``--past FILE``: the past secrets, one a line (TermoError when it cannot be read as text)."""
    try:
        return past.read_bytes().decode("utf-8").splitlines()
    except OSError as err:
        raise TermoError(f"cannot read {past}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise TermoError(f"cannot read {past}: not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset "
                         f"{err.start}); give a text file of past secrets, one a line") from None


@dataclass(frozen=True)
class _Sweep:
    """One robustness sweep and its report: the configuration, the world's data, the past
    secrets (or None) and the output folder."""

    config: "SweepConfig"  # termo.robustness.sweep
    data: "WorldData"  # termo.robustness.world
    past_words: Optional[list[str]]
    out: Path

    def run(self, store, executor, info: dict, resume_command) -> tuple[dict, dict]:
        """``(document, paths written)``, progress on stderr; the executor is closed. A cluster
        that stops is one TermoError, saying how to resume (``resume_command()``) when chunks finished."""
        from termo.core.executors import ClusterStopped
        from termo.interface.robustness import run_sweep

        try:
            with progress_bar(f"robustness ({self.config.mode})", unit="openers") as update:
                result = run_sweep(self.config, store=store, executor=executor,
                                   progress=lambda done, total, note="": update(done, total), info=info)
                update.phase("writing the report…")  # the bar covers the report and heatmap too
                return self.report(result)
        except ClusterStopped as err:  # every chunk that finished is checkpointed already
            if not store.finished:
                raise TermoError(err.reason) from None
            raise TermoError(f"{err.reason}; {counted(store.finished, 'chunk')} finished and checkpointed in "
                             f"{self.out / 'checkpoints'}; resume with: {resume_command()}") from None
        finally:
            executor.close()

    def report(self, result) -> tuple[dict, dict]:
        """The sweep's document (with the scale section and the empirical floor) and its files."""
        from termo.interface.robustness import document, write_all
        from termo.interface.robustness import empirical_floor

        doc = document(result, _scale_section(self.data, self.config.world, self.config.backend))
        if self.past_words is not None:
            doc["empirical_floor"] = empirical_floor(self.data.answers, self.data.icf, self.past_words)
        return doc, write_all(self.out, doc)


class _CountingStore:
    """A checkpoint store that counts the chunks of this run it found or wrote."""

    def __init__(self, store):
        self.store = store
        self.finished = 0

    def get(self, key, openers):
        values = self.store.get(key, openers)
        self.finished += values is not None
        return values

    def put(self, *args, **kwargs):
        self.store.put(*args, **kwargs)
        self.finished += 1

    def __getattr__(self, name):
        return getattr(self.store, name)


def _resume_command(ctx) -> str:
    """This command line again, with every option given (on the command line or from the
    environment) and ``--resume``."""
    import shlex

    if ctx is None or not hasattr(ctx, "get_parameter_source"):
        return "the same command with --resume"

    def text(value) -> str:
        if isinstance(value, float):
            return str(int(value)) if value.is_integer() else repr(value)
        return str(getattr(value, "value", value))

    words = ["termo", ctx.info_name or "robustness"]
    for param in ctx.command.params:
        if getattr(param, "param_type_name", None) != "option" or param.name == "resume":
            continue
        source = ctx.get_parameter_source(param.name)
        given = source is not None and source.name != "DEFAULT"
        value = ctx.params.get(param.name)
        if param.name == "backend":  # its callback put a root --backend there: this command's backend
            given = given or value is not None
        if not given:
            continue
        if getattr(param, "is_flag", False):
            flag = param.opts[0] if value else (param.secondary_opts or [None])[0]
            if flag:
                words.append(flag)
        elif value is not None:
            for item in value if getattr(param, "multiple", False) else [value]:
                words += [param.opts[0], text(item)]
    return shlex.join(words + ["--resume"])


def _print_summary(doc: dict) -> None:
    def t_text(t):
        return "∞" if isinstance(t, float) and math.isinf(t) else f"{t:.3f}"

    typer.echo(f"{'column':<9} {'M':>7} {'T':>7}  {'best bits':<10} {'best E':<10} {'E':>9}")
    for col in doc["columns"]:
        typer.echo(f"{col['label']:<9} {col['M']:>7.1f} {t_text(col['T']):>7}  {col['best_bits_word']:<10} "
                   f"{col['best_word']:<10} {col['best_expected']:>9.6f}")
    if doc["mode"] == "beam":
        typer.echo("")
        typer.echo("worst-case regret: " + ", ".join(f"{w} {x:.4f}" for w, x in
                                                     sorted(doc["worst_regret"].items(), key=lambda kv: kv[1])))
    else:
        for col in doc["columns"]:
            ranks = "".join(f", {w} #{r}" for w, r in col.get("ranks", {}).items())
            typer.echo(f"{col['label']}: best {col['best_word']} {col['best_expected']:.6f}{ranks}")
    if doc.get("robust_opener"):
        typer.echo(f"robust opener: {doc['robust_opener']} (worst regret {doc['robust_worst_regret']:.4f})")
    if doc.get("empirical_floor"):
        floor = doc["empirical_floor"]
        typer.echo(f"empirical floor: {floor['word']} at ICF rank {floor['rank']} ({floor['count']} past secrets)")
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    """Add ``termo robustness`` to the root app."""
    app.command("robustness")(robustness_command)
