"""``termo bench ...``: strategy batteries and the experiments of the analysis suite (rules §7).

Every command prints a table (or, with ``--json``, plain JSON on stdout), writes JSON, a markdown
table and PNG plots into ``--out`` (default ``<cache dir>/results``, outside any checkout;
``--out results`` regenerates the committed results), and shows a progress bar on stderr
while it runs. The work is done by :mod:`termo.analysis`; these are thin wrappers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Callable, Optional

import typer

from cli.common import out_folder, print_json, progress_bar, user_errors
from cli.limits import MAX_SEED, check_answers, check_search
from termo.interface.requests import load_game, parse_int
from termo.interface.suggest import Config, objective_refused
from cli.options import (BackendOption, BeamOption, DepthOption, ExtendedOption, GameOption, HardOption, JsonOption,
                         ObjectiveOption, OptionGroup, TOption, count_option, with_options)
from termo.core.errors import TermoError

OutOption = Annotated[
    Optional[Path], typer.Option("--out", metavar="DIR", show_default=False,
                                 help="Folder for the JSON, markdown and PNG results (created if missing; default: "
                                 "<cache dir>/results, outside the repository; --out results regenerates the "
                                 "committed results).")
]
SeedOption = Annotated[int, typer.Option("--seed", metavar="N", help="Seed of the random strategy (re-created every game; 0 to 2^64-1).",
                                         min=0, max=MAX_SEED)]
DEFAULT_OUT = "results"  # under the cache dir (cli.common.default_out)


@dataclass(frozen=True)
class Study:
    """The options every bench command ends with (`REPORT_OPTIONS`; `STUDY_OPTIONS` adds the
    level-3 search's beam and depth), the backend resolved (`cli.options.backend_callback`)."""

    game_name: Optional[str]
    out: Optional[Path]
    backend: Optional[str]
    json_out: bool
    beam: int = 10
    depth: int = 1


def _study_options(ctx, backend: Optional[str] = None, beam="10", depth="1", **values) -> Study:
    return Study(backend=backend, beam=parse_int("beam", beam, 1), depth=parse_int("depth", depth, 0),
                 **values)


_REPORT = dict(game_name=(GameOption, None), out=(OutOption, None), backend=(BackendOption, None),
               json_out=(JsonOption, False))
REPORT_OPTIONS = OptionGroup.of(_study_options, **_REPORT)
STUDY_OPTIONS = OptionGroup.of(_study_options, beam=(BeamOption, "10"), depth=(DepthOption, "1"), **_REPORT)


def _termo_limits(beam: int, depth: int, n: int | None = None, n3: int | None = None, extended: bool = False) -> None:
    """The bounds of a Termo study's options (`cli.limits`), checked before it starts."""
    from termo.games import get_game

    game = get_game("termo", extended=extended)
    check_search(game, beam, depth)
    check_answers(game, n, "n")
    check_answers(game, n3, "n3")


def _termo_study(game_name: str | None, command: str) -> None:
    """The published Termo studies (sweep-t, extended, worlds, areio, catalog) use Termo's lists."""
    from termo.games import resolve_name

    name = resolve_name(game_name)
    if name != "termo":
        raise TermoError(f"bench {command} reproduces a study of Termo's word lists and prior; "
                         f"it does not apply to {name} (bench battery and bench second-guess do)")


def _parse_t(text: str) -> float:
    from termo.core.prior import parse_temperature

    return parse_temperature(text)


class _Progress:
    """Adapts the library's ``progress(label, done, total)`` callbacks (one run after another:
    a strategy, a temperature) to one bar over all of them. A run counts as finished once,
    however often its last count is repeated; the next run is the one whose label changes or
    whose count starts again. (Counting a repeated last report twice made the bar reach its end,
    and say "writing the report…", while the level-3 battery was still playing.)"""

    def __init__(self, update: Callable, total: int) -> None:
        self.update = update
        self.total = total
        self.base = 0  # games of the runs already finished
        self.run: tuple | None = None  # (label, total, finished) of the run being played

    def __call__(self, label: str, done: int, total: int) -> None:
        if self.run is not None:
            run_label, run_total, finished = self.run
            if finished and (label != run_label or done < run_total):
                self.base += run_total  # that run is over: this is the next one
                self.run = None
            elif not finished and label != run_label:  # a run that never reported its end
                self.base += run_total
                self.run = None
        self.run = (label, total, done >= total)
        self.update(min(self.base + min(done, total), self.total), self.total)


def _echo_table(markdown: str) -> None:
    typer.echo(markdown)


def _written(paths: dict) -> None:
    """Say on stderr where the report went (stdout keeps only the table)."""
    plots = f", {len(paths['plots'])} plot(s)" if paths["plots"] else ""
    typer.echo(f"\nwritten: {paths['json']}, {paths['markdown']}{plots}", err=True)


def _finish(json_out: bool, data, markdown: str, paths) -> None:
    """Print the result: JSON data on stdout, or the markdown table and the files written."""
    if json_out:
        print_json(data)
    else:
        _echo_table(markdown)
        _written(paths)


@user_errors
@with_options("study", STUDY_OPTIONS)
def battery_command(
    ctx: typer.Context,
    set_name: Annotated[str, typer.Option("--set", metavar="NAME", help="Battery: realistic (1,500 commonest), full (6,046) or level3 (300).")] = "realistic",
    strategies: Annotated[
        Optional[str],
        typer.Option("--strategies", metavar="LIST", help="Comma list of random, letters, likely, entropy, level3 "
                     "(default: the first four; entropy,level3 for --set level3); for a mode: level2, level3 "
                     "(default both).", show_default=False),
    ] = None,
    n: count_option("--n", "Battery size: the n commonest (realistic/level3) or n evenly spaced (full); "
                        "at most the game's answers; for a mode: N seeded answer tuples (default 100).") = None,
    t: TOption = "1",
    extended: ExtendedOption = False,
    seed: SeedOption = 0,
    study: Study = None,
    hard: HardOption = False,
    objective: ObjectiveOption = "finish",
) -> None:
    """Play every strategy against a battery of secrets; report mean, penalised mean, wins, histogram.

    Hard mode (--hard) plays levels 1 and 2. For a mode of several boards (--game quordle ...): N
    seeded answer tuples, strategies level2 and level3, --objective finish, score or win; win
    rate, mean finish, mean score, histogram (docs/modes-batteries.md)."""
    mode = _mode_named(study.game_name)
    if mode is not None:
        if set_name != "realistic" or extended or hard:
            raise TermoError("a mode's battery is N seeded answer tuples: --set, --extended and --hard do not apply")
        _mode_battery(study, mode, strategies, n, seed, _parse_t(t), objective)
        return
    game = load_game(study.game_name, extended=extended)
    if game.feedback.kind == "lies":  # Fibble: seeded answers and lies (termo.analysis.lie_battery)
        if set_name != "realistic" or hard or objective != "finish":
            raise TermoError(f"{game.label}'s battery is N seeded games: --set, --hard and --objective do not apply")
        _lie_battery(study, game, strategies, n, seed, _parse_t(t))
        return
    if objective != "finish":
        raise objective_refused(objective, study.game_name or "termo")
    from termo.interface.bench import BATTERIES, battery_secrets
    from termo.interface.bench import battery_experiment
    from termo.interface.bench import parse_strategies

    if set_name not in BATTERIES:
        raise TermoError(f"unknown battery {set_name!r} (choose from {', '.join(BATTERIES)})")
    default = "entropy,level3" if set_name == "level3" else "random,letters,likely,entropy"
    names = parse_strategies(strategies or default)
    temperature = _parse_t(t)
    check_search(game, study.beam, study.depth)
    check_answers(game, n)
    out = out_folder(study.out, default=DEFAULT_OUT)
    games = len(battery_secrets(game, set_name, n))
    with progress_bar(f"battery {set_name}", total=games * len(names), unit="games") as update:
        rows, markdown, paths = battery_experiment(
            names, set_name, n=n, t=temperature, extended=extended, seed=seed, beam=study.beam, depth=study.depth,
            backend=study.backend, out=out, progress=_Progress(update, games * len(names)), game=game, hard=hard)
    _finish(study.json_out, rows, markdown, paths)


MODE_BATTERY_GAMES = 100  # the default --n of a mode's battery
MODE_BATTERY_MAX = 1_000_000


def _mode_named(name: Optional[str]):
    """The mode ``--game`` names (None for a single-board game)."""
    import os

    from termo.games import MODE_NAMES, get_mode

    raw = name if name is not None else os.environ.get("TERMO_GAME")
    key = str(raw).strip().lower().replace("_", "-") if raw else None
    return get_mode(key) if key in MODE_NAMES else None


def _mode_battery(study: Study, mode, strategies: Optional[str], n: Optional[int], seed: int, t: float,
                  objective: Optional[str]) -> None:
    """`termo bench battery --game MODE`: level 2 and 3 on the same seeded tuples (termo.analysis.mode_battery)."""
    from termo.interface.bench import mode_markdown, parse_mode_strategies, run_mode_battery
    from termo.interface.bench import write_report

    names = parse_mode_strategies(strategies)
    goal = Config(objective=str(objective).strip().lower()).objective
    n = MODE_BATTERY_GAMES if n is None else n
    if n > MODE_BATTERY_MAX:
        raise TermoError(f"--n is at most {MODE_BATTERY_MAX:,} for a mode's battery, got {n}")
    out = out_folder(study.out, default=DEFAULT_OUT)
    total = n * mode.boards * len(names)
    with progress_bar(f"battery {mode.label}", total=total, unit="boards") as update:
        result = run_mode_battery(mode, names, n=n, seed=seed, objective=goal, t=t, backend=study.backend,
                                  progress=_Progress(update, total))
    markdown = mode_markdown(result)
    name = f"{mode.label}-battery-n{n}-s{seed}" + ("" if goal == "finish" else f"-{goal}")
    paths = write_report(out, name, result, markdown, [])
    _finish(study.json_out, result, markdown, paths)


LIE_BATTERY_GAMES = 1000  # the default --n of a battery of games whose rows lie


def _lie_battery(study: Study, game, strategies: Optional[str], n: Optional[int], seed: int, t: float) -> None:
    """`termo bench battery --game fibble`: N seeded games, answer and lies drawn from the seed, at
    each level asked (level2 by default, level3 too), from the game's opener (docs/fibble.md)."""
    from termo.interface.bench import lie_markdown, run_lie_battery, write_report

    names = [x.strip().lower() for x in (strategies or "level2").split(",") if x.strip()]
    if not names or any(x not in ("level2", "level3") for x in names):
        raise TermoError(f"{game.label}'s battery plays level2 and level3, not {strategies!r}")
    n = LIE_BATTERY_GAMES if n is None else n
    if n > MODE_BATTERY_MAX:
        raise TermoError(f"--n is at most {MODE_BATTERY_MAX:,} for a battery, got {n}")
    out = out_folder(study.out, default=DEFAULT_OUT)
    results = []
    with progress_bar(f"battery {game.label}", total=n * len(names), unit="games") as update:
        progress = _Progress(update, n * len(names))
        for name in names:
            results.append(run_lie_battery(game, n=n, seed=seed, level=int(name[-1]), t=t, progress=progress))
    result = {"game": game.label, "n": n, "seed": seed, "strategies": results}
    markdown = lie_markdown(result)
    paths = write_report(out, f"{game.label}-battery-n{n}-s{seed}", result, markdown, [])
    _finish(study.json_out, result, markdown, paths)


@user_errors
@with_options("study", REPORT_OPTIONS)
def sweep_t_command(
    ctx: typer.Context,
    temperatures: Annotated[str, typer.Option("--temperatures", metavar="LIST", help="Comma list of T values (inf = uniform).")] = "0.5,1,2,5,10,inf",
    set_name: Annotated[str, typer.Option("--set", metavar="NAME", help="Battery: realistic, full or level3.")] = "realistic",
    n: count_option("--n", "Battery size (see bench battery; at most 6,046).") = None,
    study: Study = None,
) -> None:
    """The entropy strategy at several prior temperatures, same secrets, own optimal opener per T."""
    _termo_study(study.game_name, "sweep-t")
    from termo.interface.bench import battery_secrets
    from termo.interface.bench import sweep_t_experiment
    from termo.games import get_game

    temps = [_parse_t(x) for x in temperatures.split(",") if x.strip()]
    if not temps:
        raise TermoError("--temperatures needs at least one value")
    check_answers(get_game("termo"), n)
    out = out_folder(study.out, default=DEFAULT_OUT)
    games = len(battery_secrets(get_game("termo"), set_name, n))
    with progress_bar("temperature sweep", total=games * len(temps), unit="games") as update:
        rows, markdown, paths = sweep_t_experiment(temps, set_name, n=n, backend=study.backend, out=out,
                                                   progress=_Progress(update, games * len(temps)))
    _finish(study.json_out, rows, markdown, paths)


@user_errors
@with_options("study", STUDY_OPTIONS)
def extended_command(
    ctx: typer.Context,
    levels: Annotated[str, typer.Option("--levels", metavar="LIST", help="Comma list of levels to compare: 2 (realistic battery), 3 (300 secrets).")] = "2,3",
    n: count_option("--n", "Level-2 battery size (default 1,500; at most 6,046).") = None,
    n3: count_option("--n3", "Level-3 battery size (default 300; at most 6,046).") = None,
    t: TOption = "1",
    study: Study = None,
) -> None:
    """Answers-only (6,046) vs extended (8,629) probe space, same secrets, level 2 and level 3."""
    _termo_study(study.game_name, "extended")
    from termo.interface.bench import battery_secrets
    from termo.interface.bench import extended_experiment
    from termo.games import get_game

    try:
        wanted = [int(x) for x in levels.split(",") if x.strip()]
    except ValueError:
        raise TermoError(f"--levels takes 2 and/or 3, got {levels!r}") from None
    if not wanted or any(x not in (2, 3) for x in wanted):
        raise TermoError(f"--levels takes 2 and/or 3, got {levels!r}")
    _termo_limits(study.beam, study.depth, n, n3)
    out = out_folder(study.out, default=DEFAULT_OUT)
    game = get_game("termo")
    total = sum(2 * len(battery_secrets(game, "realistic" if lv == 2 else "level3", n if lv == 2 else n3)) for lv in wanted)
    with progress_bar("extended probe space", total=total, unit="games") as update:
        rows, markdown, paths = extended_experiment(wanted, n2=n, n3=n3, t=_parse_t(t), beam=study.beam, depth=study.depth,
                                                    backend=study.backend, out=out, progress=_Progress(update, total))
    _finish(study.json_out, rows, markdown, paths)


def _run_study(study: Study, kind: str, estimate: int, experiment: Callable, extended: bool = False) -> None:
    """One Termo opener study: its bounds checked, then ``experiment`` run into ``--out`` with a
    progress bar (``estimate`` steps), markdown or JSON printed."""
    _termo_limits(study.beam, study.depth, extended=extended)
    out = out_folder(study.out, default=DEFAULT_OUT)
    with progress_bar(kind, total=estimate) as update:
        result, markdown, paths = experiment(beam=study.beam, depth=study.depth, backend=study.backend, out=out,
                                             progress=lambda label, done, total: update(min(done, estimate), estimate))
    _finish(study.json_out, result, markdown, paths)


@user_errors
@with_options("study", STUDY_OPTIONS)
def worlds_command(
    ctx: typer.Context,
    t: TOption = "1",
    world_t: Annotated[str, typer.Option("--world-t", metavar="T", help="Temperature inside the closed/open worlds (default inf = uniform).")] = "inf",
    word: Annotated[str, typer.Option("--word", metavar="WORD", help="The opener under study.")] = "serão",
    study: Study = None,
) -> None:
    """Termo study: is SERÃO a good opener? Rankings, cuts, closed/open worlds, regret, (N, T) grid."""
    _termo_study(study.game_name, "worlds")
    from termo.interface.bench import worlds_experiment

    temperature, inside = _parse_t(t), _parse_t(world_t)
    _run_study(study, "worlds", 100, functools.partial(worlds_experiment, t=temperature, world_t=inside, word=word))


@user_errors
@with_options("study", STUDY_OPTIONS)
def areio_command(ctx: typer.Context, study: Study = None) -> None:
    """Termo study: the conjugated probe AREIO in the extended space: ranks, open grid, games, regret."""
    _termo_study(study.game_name, "areio")
    from termo.interface.bench import areio_experiment

    _run_study(study, "areio", 50, areio_experiment, extended=True)


@user_errors
@with_options("study", STUDY_OPTIONS)
def catalog_command(
    ctx: typer.Context,
    level3: Annotated[bool, typer.Option("--level3/--no-level3", help="Also search the level-3 opener of every world (slow).")] = True,
    study: Study = None,
) -> None:
    """Termo study: the best opener of every world (bits optimum and level-3 optimum with E)."""
    _termo_study(study.game_name, "catalog")
    from termo.interface.bench import catalog_experiment

    _run_study(study, "catalog", 17, functools.partial(catalog_experiment, level3=level3))


def register(app: typer.Typer) -> None:
    """Add the ``bench`` sub-app (battery and the §7 experiments) to the root app."""
    bench = typer.Typer(name="bench", help="Strategy batteries and the analysis experiments (results in --out).",
                        no_args_is_help=True)
    bench.command("battery")(battery_command)
    bench.command("sweep-t")(sweep_t_command)
    bench.command("extended")(extended_command)
    bench.command("worlds")(worlds_command)
    bench.command("areio")(areio_command)
    bench.command("catalog")(catalog_command)
    app.add_typer(bench, name="bench")
