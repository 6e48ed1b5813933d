"""Benchmark: where a one-shot `termo suggest` spends its time, part by part, inside one process.

Each run is a fresh Python process that times, with ``time.perf_counter``, the steps of
``termo suggest tarso:BBBBB --level 2`` (or the command given after ``--``): importing ``cli.app``,
typer, NumPy (with termo's BLAS setting, ``cli.app.BLAS_THREADS``) and the engine's modules, in
that order, then the command itself, with the game's loading (``load_game``), the session's
creation, the rounds replayed (the filter) and the decision (``Advisor.move``) timed on the way
by wrapping those functions; the process ends as the console script does (``cli.app.exit_now``).
The whole process is timed from outside too; what it spent outside all the parts (the
interpreter's start, the exit) is the rest.

Importing ahead changes the order of a real run (there, NumPy loads when the session is made, while
the cached layouts are checked on another core): the parts are a breakdown, not a replay. The
whole-process figures to compare with a peer are `bench/bench_startup.py`'s.

Usage: python bench/bench_startup_phases.py [--repeats 9] [--name startup-phases] [-- ARGS...]
Writes bench/results/<name>.json (median of the runs, machine and backend recorded).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_startup import child_env  # noqa: E402 - bytecode on, no TERMO_BACKEND, as there
from bench.common import repeats_parser, save, timed_run  # noqa: E402
from cli.app import BLAS_THREADS  # noqa: E402

DEFAULT_ARGS = ["suggest", "tarso:BBBBB", "--level", "2"]

CHILD = r"""
import time
T0 = time.perf_counter()
import json, sys
parts, at = [], [T0]

def part(name):
    now = time.perf_counter()
    parts.append((name, now - at[0]))
    at[0] = now

def timed(owner, attr, name):
    inner = getattr(owner, attr)
    def wrapper(*a, **k):
        part("before " + name)
        try:
            return inner(*a, **k)
        finally:
            part(name)
    setattr(owner, attr, wrapper)

import cli.app as app
part("import cli.app")
import typer
part("import typer")
import numpy
part("import numpy")
import termo.interface.suggest, termo.engine.session, termo.engine.solver, termo.engine.level2
import termo.engine.matrix, termo.engine.entropy, termo.interface.requests, termo.book.openers
part("import the engine")
timed(termo.interface.requests, "load_game", "load the game")
timed(termo.engine.session.Session, "__init__", "make the session")
timed(termo.engine.session.Session, "replay", "replay the rounds (filter)")
timed(termo.interface.suggest.Advisor, "move", "decide")
code = 0
try:
    code = app.main(json.loads(sys.argv[1]))
finally:
    part("print and return")
    sys.stderr.write("PARTS " + json.dumps(parts) + "\n")
app.exit_now(code)  # as the console script ends (cli.app.run)
"""


def one_run(args: list[str]) -> tuple[dict, float, float]:
    proc, wall, cpu = timed_run([sys.executable, "-c", CHILD, json.dumps(args)], cwd=ROOT, env=child_env(**BLAS_THREADS),
                                capture_output=True, text=True)
    line = next((ln for ln in proc.stderr.splitlines() if ln.startswith("PARTS ")), None)
    if proc.returncode != 0 or line is None:
        raise SystemExit(f"the instrumented run failed (exit {proc.returncode}): {proc.stderr.strip()[-400:]}")
    parts: dict = {}
    for name, seconds in json.loads(line[len("PARTS "):]):
        if name.startswith("before "):  # the time up to a timed step belongs to what ran before it
            name = "other steps of the command"
        parts[name] = parts.get(name, 0.0) + seconds
    return parts, wall, cpu


def main() -> int:
    parser = repeats_parser(__doc__, 9)
    parser.add_argument("--name", default="startup-phases", help="results file bench/results/<name>.json")
    parser.add_argument("args", nargs="*", help="the termo command line (after --); default: " + " ".join(DEFAULT_ARGS))
    opts = parser.parse_args()
    args = opts.args or DEFAULT_ARGS
    one_run(args)  # warm-up: caches, bytecode, page cache
    runs = [one_run(args) for _ in range(opts.repeats)]
    names = list(runs[0][0])
    walls = [w for _, w, _ in runs]
    medians = {n: statistics.median(r[0].get(n, 0.0) for r in runs) for n in names}
    whole = statistics.median(walls)
    medians["the rest (interpreter start, exit)"] = statistics.median(w - sum(p.values()) for p, w, _ in runs)
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    print(f"termo {' '.join(args)}: whole process {whole:.3f} s wall (median of {opts.repeats})")
    for name, seconds in medians.items():
        print(f"  {name:<40} {1000 * seconds:7.1f} ms")
    save(opts.name, {"command": ["termo", *args], "backend": "numpy", "repeats": opts.repeats,
                     "median_wall_s": whole, "median_cpu_s": statistics.median(c for _, _, c in runs),
                     "parts_median_s": medians, "runs_wall_s": walls, "load_average_after": load,
                     "note": "parts timed inside one process, imports ahead of the command (a breakdown, not"
                             " a replay of a real run's order)"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
