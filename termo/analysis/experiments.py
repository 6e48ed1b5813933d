"""Battery-based experiments (rules §7.2–7.3): strategy battery, temperature sweep, extended space.

Each ``*_experiment`` function runs the games, writes ``<name>.json``, ``<name>.md`` and its PNG
plots into ``out`` and returns ``(rows, markdown, paths)``; ``rows`` is the JSON-ready data the
CLI prints with ``--json``. The opener studies of §7.4–7.6 (``worlds``, ``areio``, ``catalog``)
are computed in :mod:`termo.analysis.openers` and rendered by
:mod:`termo.analysis.opener_reports`; their ``*_experiment`` wrappers are here too.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Sequence

from termo.core import plots
from termo.analysis.battery import battery_secrets, evaluate, run_battery, summarize
from termo.analysis.report import battery_markdown, write_report
from termo.analysis.strategies import build_policy, t_label
from termo.analysis.worlds import full_world

Progress = Callable[[str, int, int], None]

SWEEP_TEMPERATURES = (0.5, 1.0, 2.0, 5.0, 10.0, math.inf)


def battery_experiment(strategies: Sequence[str], battery: str = "realistic", *, n=None, t: float = 1.0,
                       extended: bool = False, seed: int = 0, beam: int = 10, depth: int = 1, backend=None,
                       out: str | Path = "results", progress: Progress | None = None, game=None,
                       hard: bool = False):
    """Each strategy on one battery of ``game`` (default: the registry's); turn-distribution plot.
    ``hard``: hard mode (levels 1 and 2); the report's name ends in ``-hard``."""
    rows = run_battery(strategies, battery, n=n, t=t, extended=extended, seed=seed, beam=beam, depth=depth,
                       backend=backend, progress=progress, game=game, hard=hard)
    other = game is not None and game.label != "termo"  # Termo's reports keep their published names
    prefix = f"{game.label}-" if other else ""
    name = f"{prefix}battery-{battery}" + (f"-n{n}" if n is not None else "") + ("-extended" if extended else "")
    if t != 1.0:
        name += f"-t{t_label(t)}"
    if hard:
        name += "-hard"
    size = rows[0]["games"] if rows else 0
    title = f"{(game.shown) + ': ' if other else ''}Battery {battery} ({size} secrets, T={t_label(t)}{', extended probes' if extended else ''}{', hard mode' if hard else ''})"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    png = plots.turn_distribution(rows, out / f"{name}.png", title)
    markdown = battery_markdown(rows, title)
    lost = [f"- {r['label']}: " + ", ".join(r["lost"][:50]) for r in rows if r["lost"]]
    if lost:
        markdown += "\n\nLost words (first 50 per strategy):\n\n" + "\n".join(lost)
    paths = write_report(out, name, rows, markdown, [png])
    return rows, markdown, paths


def sweep_t_experiment(temperatures: Sequence[float] = SWEEP_TEMPERATURES, battery: str = "realistic", *, n=None,
                       backend=None, out: str | Path = "results", progress: Progress | None = None):
    """§7.3 ``--varredura-t``: the entropy strategy at several T on the same secrets.

    Each T has its own prior and therefore its own optimal opener; the secrets are defined by
    ICF, so they do not move with T.
    """
    rows = []
    for t in temperatures:
        (row,) = run_battery(["entropy"], battery, n=n, t=t, backend=backend, progress=progress)
        row = {"t": t_label(t), **row}
        row["label"] = f"T={t_label(t)}"
        rows.append(row)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    labels = [r["t"] for r in rows]
    pngs = [
        plots.line_plot(labels, {"penalised mean": [r["penalised_mean"] for r in rows],
                                 "mean over wins": [r["mean"] for r in rows]},
                        out / "sweep-t.png", f"Entropy strategy vs prior temperature ({rows[0]['games']} secrets)",
                        "temperature T", "guesses per game"),
        plots.turn_distribution(rows, out / "sweep-t-turns.png", "Turn distribution per temperature"),
    ]
    table = battery_markdown(rows, f"Temperature sweep, battery {battery}")
    table += "\n\nOpeners: " + ", ".join(f"T={r['t']}: {r['first_guess']}" for r in rows)
    value = prior_value(rows)
    if value is not None:
        table += (f"\n\nValue of the prior: penalised mean at T=inf − at T=1 = {value:.3f} guesses per game "
                  "(0.207 under the current endgame rule; the older published 0.31 predates that rule).")
    paths = write_report(out, "sweep-t", rows, table, pngs)
    return rows, table, paths


def prior_value(rows: Sequence[dict]) -> float | None:
    """Penalised mean at T = ∞ minus at T = 1 (what knowing word frequencies is worth)."""
    by_t = {r["t"]: r["penalised_mean"] for r in rows}
    if "inf" in by_t and "1" in by_t:
        return by_t["inf"] - by_t["1"]
    return None


def extended_experiment(levels: Sequence[int] = (2, 3), *, n2=None, n3=None, t: float = 1.0, beam: int = 10,
                        depth: int = 1, backend=None, out: str | Path = "results", progress: Progress | None = None):
    """§7.3 ``--ampliado``: level 2 (realistic battery) and level 3 (its 300-word battery) with
    6,046 vs 8,629 probes, the same secrets in both spaces."""
    rows = []
    for level in levels:
        strategy = "entropy" if level == 2 else "level3"
        battery = "realistic" if level == 2 else "level3"
        size = n2 if level == 2 else n3
        for extended in (False, True):
            (row,) = run_battery([strategy], battery, n=size, t=t, extended=extended, beam=beam, depth=depth,
                                 backend=backend, progress=progress)
            row = {"probes": row["probes"], "level": level, "set": battery, **row}
            row["label"] = f"level {level}, {row['probes']:,} probes"
            rows.append(row)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    png = plots.turn_distribution(rows, out / "extended.png", f"Answers-only vs extended probe space (T={t_label(t)})")
    table = battery_markdown(rows, "Extended probe space")
    table += "\n\nOpeners: " + ", ".join(f"{r['label']}: {r['first_guess']}" for r in rows)
    paths = write_report(out, "extended", rows, table, [png])
    return rows, table, paths


def worlds_experiment(*, t: float = 1.0, world_t: float = math.inf, word: str = "serão", beam: int = 10,
                      depth: int = 1, backend=None, out: str | Path = "results", progress: Progress | None = None):
    """§7.4 (``--serao``): the six steps, report ``worlds.*``. Returns (result, markdown, paths)."""
    from termo.analysis.opener_reports import worlds_report
    from termo.analysis.openers import Lab, worlds_study

    result = worlds_study(Lab(backend, beam, depth, progress), t=t, world_t=world_t, word=word)
    markdown, paths = worlds_report(result, out)
    return result, markdown, paths


def areio_experiment(*, beam: int = 10, depth: int = 1, backend=None, out: str | Path = "results",
                     progress: Progress | None = None):
    """§7.5 (``--areio``), report ``areio.*``. Returns (result, markdown, paths)."""
    from termo.analysis.opener_reports import areio_report
    from termo.analysis.openers import Lab, areio_study

    result = areio_study(Lab(backend, beam, depth, progress))
    markdown, paths = areio_report(result, out)
    return result, markdown, paths


def catalog_experiment(*, level3: bool = True, beam: int = 10, depth: int = 1, backend=None,
                       out: str | Path = "results", progress: Progress | None = None):
    """§7.6 (``--catalogo``), report ``catalog.*``. Returns (result, markdown, paths)."""
    from termo.analysis.opener_reports import catalog_report
    from termo.analysis.openers import Lab, catalog_study

    result = catalog_study(Lab(backend, beam, depth, progress), level3=level3)
    markdown, paths = catalog_report(result, out)
    return result, markdown, paths


def play_opener(world, opener: int, secrets=None, *, backend=None, solver=None) -> dict:
    """Impose ``opener`` on turn 1, then level 2, on ``secrets`` (default: the world's answers)."""
    from termo.analysis.strategies import FixedOpener

    inner = build_policy("entropy", world, backend=backend, solver=solver)
    policy = FixedOpener(opener, inner)
    secrets = world.candidates() if secrets is None else secrets
    result = evaluate(policy, world, secrets, backend=backend)
    game = world.load_game()
    return summarize(result, game, "fixed opener", opener=game.probes[opener], world=world.name)


__all__ = [
    "SWEEP_TEMPERATURES",
    "areio_experiment",
    "battery_experiment",
    "battery_secrets",
    "catalog_experiment",
    "extended_experiment",
    "full_world",
    "play_opener",
    "prior_value",
    "sweep_t_experiment",
    "worlds_experiment",
]
