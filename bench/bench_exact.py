"""The exact solver's benchmarks -> bench/results/exact.json.

* English Wordle, opener salet, normal mode: the proof of Selby's optimum (total 7920), each
  run a fresh ``termo optimal --json`` process (kernels loaded from numba's cache, the matrix
  from termo's), wall and CPU seconds (the CPU time says what the search costs when other
  processes share the machine), median of ``--repeats`` runs;
* Doddle (PyPI ``doddle``, Python + numba) building its SALET tree in the same run, alternated
  with ours, when a virtual environment holding it is given (``--doddle-python``; it is never a
  dependency of this project: install it apart, e.g. ``python -m venv /tmp/doddle-venv &&
  /tmp/doddle-venv/bin/pip install doddle``);
* Termo, opener tosar, T = 1: ``lower``/``upper``/``proved`` next to level 3's 3.0094161966572304;
* Nerdle Mini (every first guess, commutative wins).

Usage: ``python -m bench.bench_exact [--repeats 3] [--doddle-python /tmp/doddle-venv/bin/python]``
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from bench.common import repeats_parser, save, timed_run

DODDLE_SCRIPT = r"""
import json, time
t0 = time.perf_counter(); c0 = time.process_time()
import numpy as np
if not hasattr(np, "bool8"):  # doddle 1.6 predates NumPy 2, which dropped this alias of np.bool_
    np.bool8 = np.bool_
from doddle import Doddle
d = Doddle(size=5, solver_type="ENTROPY", lazy_eval=False)
b = d.tree_search("SALET")
import resource
usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu_seconds": sum(u.ru_utime + u.ru_stime for u in usage),
                  "games": b.num_games(), "guesses": b.num_guesses(), "mean": b.mean(),
                  "histogram": {str(k): v for k, v in sorted(b.histogram.items())}}))
"""


def _run(cmd, env=None) -> dict:
    """Run ``cmd``; its JSON stdout, with wall and CPU seconds of the child process."""
    done, wall, cpu = timed_run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    data = json.loads(done.stdout)
    return {"process_wall_s": wall, "process_cpu_s": cpu, "result": data}


def _start(cmd, env=None):
    """Start ``cmd`` in the background; :func:`_finish` collects it like :func:`_run`."""
    start = time.perf_counter()
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env), start


def _finish(handle) -> dict:
    proc, start = handle
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"background run failed ({proc.returncode}): {err.strip()[-400:]}")
    data = json.loads(out)
    return {"process_wall_s": wall, "process_cpu_s": data.get("cpu_seconds"), "result": data}


def _termo(args) -> list[str]:
    return [sys.executable, "-m", "cli", "optimal", *args, "--json"]


def _summary(runs, key) -> dict:
    values = [r[key] for r in runs]
    return {"median_s": statistics.median(values), "min_s": min(values), "runs_s": values}


def main(argv=None) -> None:
    parser = repeats_parser(__doc__, 3)
    parser.add_argument("--doddle-python", default=None, help="a Python with doddle installed")
    parser.add_argument("--skip-termo", action="store_true", help="leave out the Termo tosar run")
    parser.add_argument("--termo-openers", type=float, default=None, metavar="SECONDS",
                        help="only rank Termo's level-3 opener candidates exactly (issue item 3) within "
                             "SECONDS and add the result to an existing exact.json")
    opts = parser.parse_args(argv)
    if opts.termo_openers is not None:
        return _termo_openers(opts.termo_openers)
    env = dict(os.environ)
    load_before = os.getloadavg()
    ours, doddle = [], []
    # Doddle (one run: many minutes) runs in the background while ours repeat, on the same
    # machine at the same time; each side's CPU seconds are its own process's
    handle = _start([opts.doddle_python, "-c", DODDLE_SCRIPT], env) if opts.doddle_python else None
    for _ in range(opts.repeats):
        ours.append(_run(_termo(["--game", "wordle", "--opener", "salet"]), env))
    tosar = None if opts.skip_termo else _run(_termo(["--game", "termo", "--opener", "tosar"]), env)
    mini = _run(_termo(["--game", "nerdle-mini"]), env)
    if handle is not None:
        doddle.append(_finish(handle))
    salet = ours[-1]["result"]
    payload = {
        "backend": salet.get("backend", "numpy"),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "wordle_salet": {
            "total": salet["total"], "mean": salet["mean"], "proved": salet["proved"],
            "lower": salet["lower"], "upper": salet["upper"], "nodes": salet["nodes"],
            "solver_seconds": _summary([r["result"] for r in ours], "seconds"),
            "process_wall": _summary(ours, "process_wall_s"),
            "process_cpu": _summary(ours, "process_cpu_s"),
            "published_total": 7920,
        },
    }
    if doddle:
        d = doddle[0]
        payload["doddle_salet"] = {"version": _doddle_version(opts.doddle_python), **d["result"],
                                   "process_wall_s": d["process_wall_s"], "process_cpu_s": d["process_cpu_s"],
                                   "note": "Doddle's tree_search('SALET') (entropy-ordered tree search), one run "
                                           "in the background while ours ran, same machine; np.bool8 aliased "
                                           "to np.bool_ for NumPy 2; process_cpu_s is its own process time"}
    else:
        payload["doddle_salet"] = {"note": "not run (no --doddle-python given)"}
    if tosar is not None:
        keys = ("lower", "upper", "proved", "gap", "mean", "beam", "nodes", "seconds", "losses", "groups")
        payload["termo_tosar"] = {k: tosar["result"].get(k) for k in keys}
        payload["termo_tosar"].update(process_wall_s=tosar["process_wall_s"], process_cpu_s=tosar["process_cpu_s"])
    payload["nerdle_mini"] = {k: mini["result"].get(k) for k in ("total", "mean", "proved", "first_guess", "nodes",
                                                                   "seconds")}
    from bench.common import RESULTS

    path = RESULTS / "exact.json"  # keep a ranking of openers saved by --termo-openers
    if path.exists():
        before = json.loads(path.read_text(encoding="utf-8"))
        if before.get("termo_openers") is not None:
            payload["termo_openers"] = before["termo_openers"]
        if not doddle and "process_cpu_s" in before.get("doddle_salet", {}):  # Doddle's last run, kept as it was
            payload["doddle_salet"] = {**before["doddle_salet"], "from_an_earlier_run": before.get("machine", {}).get("when")}
    save("exact", payload)


def _termo_openers(seconds: float) -> None:
    from bench.common import RESULTS
    from termo.exact.openers import rank_openers
    from termo.games import get_game

    cpu = time.process_time()
    out = rank_openers(get_game("termo"), t=1.0, time_limit=seconds,
                       progress=lambda line: print(line, file=sys.stderr, flush=True))
    out["cpu_seconds"] = time.process_time() - cpu
    path = RESULTS / "exact.json"
    payload = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    payload.pop("benchmark", None)
    payload.pop("machine", None)
    payload["termo_openers"] = out
    save("exact", payload)


def _doddle_version(python) -> str:
    done = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('doddle'))"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip()


if __name__ == "__main__":
    main()
