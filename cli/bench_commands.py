"""``termo bench ...``: strategy batteries and the experiments of the analysis suite (spec §7).

Every command prints a table (or, with ``--json``, plain JSON on stdout), writes JSON, a markdown
table and PNG plots into ``--out`` (default ``results/``), and shows a progress bar on stderr
while it runs. The work is done by :mod:`termo.analysis`; these are thin wrappers.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Callable, Optional

import typer

from cli.common import BackendOption, JsonOption, print_json, progress_bar, user_errors
from termo.errors import TermoError

OutOption = Annotated[
    Path, typer.Option("--out", help="Folder for the JSON, markdown and PNG results (created if missing).")
]
TOption = Annotated[str, typer.Option("--t", help="Prior temperature: a positive number or inf (uniform).")]
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of the random strategy (re-created every game).")]
BeamOption = Annotated[int, typer.Option("--beam", help="Level 3: probes searched per node (K).", min=1)]
DepthOption = Annotated[int, typer.Option("--depth", help="Level 3: search depth before the greedy tail (P).", min=0)]
DEFAULT_OUT = Path("results")


def _parse_t(text: str) -> float:
    from termo.prior import parse_temperature

    return parse_temperature(text)


class _Progress:
    """Adapts the library's ``progress(label, done, total)`` callbacks to one rich bar."""

    def __init__(self, update: Callable, total: int) -> None:
        self.update = update
        self.total = total
        self.base = 0
        self.current = 0

    def __call__(self, label: str, done: int, total: int) -> None:
        self.update(min(self.base + done, self.total), self.total)
        if done >= total:
            self.base += total

    def step(self, label: str = "", done: int = 1, total: int = 1) -> None:
        self(label, done, total)


def _echo_table(markdown: str) -> None:
    typer.echo(markdown)


def _written(paths: dict) -> None:
    typer.echo(f"\nwritten: {paths['json']}, {paths['markdown']}" + (f", {len(paths['plots'])} plot(s)" if paths["plots"] else ""),
               err=True)


@user_errors
def battery_command(
    set_name: Annotated[str, typer.Option("--set", help="Battery: realistic (1,500 commonest), full (6,046) or level3 (300).")] = "realistic",
    strategies: Annotated[
        Optional[str],
        typer.Option("--strategies", help="Comma list of random, letters, likely, entropy, level3 "
                     "(default: the first four; entropy,level3 for --set level3).", show_default=False),
    ] = None,
    n: Annotated[Optional[int], typer.Option("--n", help="Battery size: the n commonest (realistic/level3) or n evenly spaced (full).", min=1)] = None,
    t: TOption = "1",
    extended: Annotated[bool, typer.Option("--extended", help="Probe with the 8,629 typeable words (answers + conjugations).")] = False,
    seed: SeedOption = 0,
    beam: BeamOption = 10,
    depth: DepthOption = 1,
    out: OutOption = DEFAULT_OUT,
    backend: BackendOption = None,
    json_out: JsonOption = False,
) -> None:
    """Play every strategy against a battery of secrets; report mean, penalised mean, wins, histogram."""
    from termo.analysis.battery import BATTERIES, battery_secrets
    from termo.analysis.experiments import battery_experiment
    from termo.analysis.strategies import parse_strategies
    from termo.games import termo_game

    if set_name not in BATTERIES:
        raise TermoError(f"unknown battery {set_name!r} (choose from {', '.join(BATTERIES)})")
    default = "entropy,level3" if set_name == "level3" else "random,letters,likely,entropy"
    names = parse_strategies(strategies or default)
    temperature = _parse_t(t)
    games = len(battery_secrets(termo_game(extended=extended), set_name, n))
    with progress_bar(f"battery {set_name}", total=games * len(names)) as update:
        rows, markdown, paths = battery_experiment(
            names, set_name, n=n, t=temperature, extended=extended, seed=seed, beam=beam, depth=depth,
            backend=backend, out=out, progress=_Progress(update, games * len(names)))
    if json_out:
        print_json(rows)
    else:
        _echo_table(markdown)
        _written(paths)


def register(app: typer.Typer) -> None:
    """Add the ``bench`` sub-app (battery and the §7 experiments) to the root app."""
    bench = typer.Typer(name="bench", help="Strategy batteries and the analysis experiments (results in --out).",
                        no_args_is_help=True)
    bench.command("battery")(battery_command)
    app.add_typer(bench, name="bench")
