"""Benchmark: `termo suggest` as a whole process — the first run, the second, and every run after.

Measured, each as a whole process started from scratch (interpreter start, imports, caches read
from disk, the answer printed), in the order a new user meets them:

* **first run**: a fresh ``TERMO_CACHE_DIR`` (the pattern matrix is built) and an empty numba
  cache (``NUMBA_CACHE_DIR`` pointed at a new temporary folder, so the repository's own
  ``__pycache__`` is left alone): ``termo suggest tarso:BBBBB --json`` (level 3, the default),
  with what it printed on stderr;
* **second run**: the same command with the same two caches, and whether it compiled again
  (kernel signatures numba wrote); then a few other common commands once each, likewise;
* **warm runs**: ``termo suggest tarso:BBBBB --level 2``, ``--level 3`` and ``python -c pass``,
  taken in turn (A B C A B C ...), median of ``--repeat`` runs each, wall and CPU seconds; the
  caches are the benchmark's own (warmed first), so no other process can rewrite them.

The children run with bytecode caching on (as an installed package has it), even when the
calling shell sets ``PYTHONDONTWRITEBYTECODE``. ``--compare PATH`` also measures another
checkout of the project (for example the commit before a change, unpacked with ``git archive``)
with this interpreter, its warm runs interleaved with this one's.

Usage: python bench/bench_startup.py [--repeat 7] [--skip-first] [--compare PATH] [--name startup]
Writes bench/results/<name>.json (median of several runs, machine and backend recorded).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import save, timed_run  # noqa: E402

HISTORY = ["tarso:BBBBB"]
NOTICE = "compiling the search kernels"
# other common commands run once each after the first two, with the same caches: did they compile?
LATER = [
    ["suggest", "tarso:YBBBB"],
    ["suggest", "tarso:BBBBB", "filme:BBBYY"],
    ["suggest", "arara:BBBBB", "--level", "2"],
    ["suggest", "xyzzy:BBBBB"],
]


def termo_command(repo: Path) -> list[str]:
    """How to start `termo` from ``repo``: the console script next to this interpreter when the
    installed package is that checkout, else ``python -m cli`` run from the checkout."""
    script = Path(sys.executable).with_name("termo")
    if script.exists():
        probe = subprocess.run([sys.executable, "-c", "import cli; print(cli.__file__)"], cwd="/",
                               capture_output=True, text=True)
        installed = Path(probe.stdout.strip() or "/").resolve()
        if probe.returncode == 0 and repo.resolve() in installed.parents:
            return [str(script)]
    return [sys.executable, "-m", "cli"]


def child_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "TERMO_BACKEND")}
    env.update(extra)
    return env


def run_once(cmd: list[str], repo: Path, env: dict) -> dict:
    """One whole process: wall seconds, CPU seconds (user + system of the child), exit code,
    and what it wrote on stderr."""
    proc, wall, cpu = timed_run(cmd, cwd=repo, env=env, capture_output=True, text=True)
    return {"wall_s": wall, "cpu_s": cpu, "returncode": proc.returncode, "stderr": proc.stderr.strip(),
            "stdout_bytes": len(proc.stdout)}


def _compiled_files(folder: Path) -> int:
    """How many compiled kernel signatures numba has written under ``folder``."""
    return sum(1 for _ in folder.rglob("*.nbc")) if folder.exists() else 0


def first_and_second(repo: Path, termo: list[str]) -> dict:
    """The first run with empty caches, then the second with the caches it left; for each,
    how many kernel signatures numba compiled (files it wrote) and whether the notice showed."""
    scratch = Path(tempfile.mkdtemp(prefix="termo-bench-startup-"))
    numba_cache = scratch / "numba-cache"
    try:
        env = child_env(TERMO_CACHE_DIR=str(scratch / "termo-cache"), NUMBA_CACHE_DIR=str(numba_cache))
        cmd = termo + ["suggest", *HISTORY, "--json"]
        rows = []
        for args in [cmd, cmd] + [termo + later for later in LATER]:
            before = _compiled_files(numba_cache)
            row = run_once(args, repo, env)
            row["compiled_signatures"] = _compiled_files(numba_cache) - before
            row["notice"] = NOTICE in row["stderr"]
            row["command"] = "termo " + " ".join(args[len(termo):])
            rows.append(row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"command": "termo suggest " + " ".join(HISTORY) + " --json", "first": rows[0], "second": rows[1],
            "later": rows[2:]}


def warm_runs(checkouts: dict, repeat: int, scratch: Path) -> dict:
    """Whole processes with every cache warm, every command of every checkout taken in turn
    (so that a drift of the machine's speed touches them all alike). Each checkout gets its own
    cache folders under ``scratch`` (the matrix and numba's kernels), warmed first: other
    processes on the machine cannot rewrite them between two runs."""
    cases = {"python -c pass": (ROOT, [sys.executable, "-c", "pass"], child_env())}
    for label, repo in checkouts.items():
        termo = termo_command(repo)
        prefix = "" if label == "this" else f"[{label}] "
        env = child_env(TERMO_CACHE_DIR=str(scratch / label / "termo-cache"),
                        NUMBA_CACHE_DIR=str(scratch / label / "numba-cache"))
        cases[prefix + "termo suggest tarso:BBBBB --level 2"] = (repo, termo + ["suggest", *HISTORY, "--level", "2"], env)
        cases[prefix + "termo suggest tarso:BBBBB --level 3"] = (repo, termo + ["suggest", *HISTORY, "--level", "3"], env)
    for repo, cmd, env in cases.values():  # warm-up: caches, compiled kernels, bytecode, page cache
        for _ in range(2):
            run_once(cmd, repo, env)
    samples = {name: [] for name in cases}
    for _ in range(repeat):
        for name, (repo, cmd, env) in cases.items():
            samples[name].append(run_once(cmd, repo, env))
    out = {}
    for name, runs in samples.items():
        walls = [r["wall_s"] for r in runs]
        cpus = [r["cpu_s"] for r in runs]
        out[name] = {
            "median_wall_s": statistics.median(walls),
            "min_wall_s": min(walls),
            "max_wall_s": max(walls),
            "median_cpu_s": statistics.median(cpus),
            "runs_wall_s": walls,
            "returncodes": sorted({r["returncode"] for r in runs}),
            "notice": any(NOTICE in r["stderr"] for r in runs),
        }
    base = out["python -c pass"]["median_wall_s"]
    for row in out.values():
        row["minus_python_start_s"] = row["median_wall_s"] - base
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="warm runs of each command (median)")
    parser.add_argument("--skip-first", action="store_true", help="skip the first/second-run measurement")
    parser.add_argument("--compare", metavar="PATH", default=None,
                        help="also measure this other checkout (e.g. an older commit from `git archive`)")
    parser.add_argument("--compare-label", default="before", help="its name in the table and the JSON")
    parser.add_argument("--name", default="startup", help="results file bench/results/<name>.json")
    parser.add_argument("--note", default="", help="free text kept in the JSON (which commits were measured)")
    args = parser.parse_args()
    checkouts = {"this": ROOT}
    if args.compare:
        checkouts[args.compare_label] = Path(args.compare).resolve()

    payload: dict = {"checkouts": {k: str(v) for k, v in checkouts.items()}, "backend": "numpy",
                     "repeat": args.repeat, "command": termo_command(ROOT), "note": args.note}
    try:
        payload["load_average_before"] = os.getloadavg()
    except OSError:
        pass
    if not args.skip_first:
        payload["cold"] = {}
        for label, repo in checkouts.items():
            cold = first_and_second(repo, termo_command(repo))
            payload["cold"][label] = cold
            for which in ("first", "second"):
                row = cold[which]
                print(f"{'[' + label + '] ' + which + ' run':<44} {row['wall_s']:8.2f} s wall {row['cpu_s']:8.2f} s cpu"
                      f"  {row['compiled_signatures']:3d} kernels compiled, notice {'shown' if row['notice'] else 'none'}"
                      f"  (exit {row['returncode']})")
            if cold["first"]["stderr"]:
                print("    first run's stderr: " + cold["first"]["stderr"].replace("\n", "\n" + " " * 24))
            for row in cold["later"]:
                print(f"    later: {row['command']:<40} {row['wall_s']:7.2f} s  {row['compiled_signatures']:3d} kernels compiled")
    scratch = Path(tempfile.mkdtemp(prefix="termo-bench-warm-"))
    try:
        warm = warm_runs(checkouts, args.repeat, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    payload["warm"] = warm
    print(f"{'warm, whole process (median of ' + str(args.repeat) + ')':<48} {'wall s':>8} {'cpu s':>8} "
          f"{'min':>8} {'max':>8} {'- python':>9}")
    for name, row in warm.items():
        print(f"{name:<48} {row['median_wall_s']:8.3f} {row['median_cpu_s']:8.3f} {row['min_wall_s']:8.3f} "
              f"{row['max_wall_s']:8.3f} {row['minus_python_start_s']:9.3f}")
    try:
        payload["load_average_after"] = os.getloadavg()
    except OSError:
        pass
    payload["numba_threads_env"] = os.environ.get("NUMBA_NUM_THREADS")
    save(args.name, payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
