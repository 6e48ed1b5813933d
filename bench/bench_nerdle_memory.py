"""Benchmark: Nerdle Classic's level-2 questions as whole processes: peak memory, wall and CPU seconds.

Issue 22 set termo's Nerdle Classic against a solver that ranks the openers by entropy in
12 MB. Each command below runs as a whole process (``python -m cli``, the NumPy backend), its
peak resident set size read from the kernel's accounting of that one child (``os.wait4``:
``ru_maxrss``, what ``/usr/bin/time -v`` calls "Maximum resident set size"; in MiB here):

* **warm**: the checkout's own cache folder, filled and read once before (the page cache warm);
* **empty**: a fresh ``TERMO_CACHE_DIR`` per run, so the process builds the 17,723 × 17,723
  pattern matrix and writes both its layouts (1.26 GB) before answering.

``--compare PATH`` measures another checkout too (e.g. ``git archive main | tar -x -C
/tmp/before``), the two taken in turn (this, other, this, other, ...), each with its own cache
folders; every run's stdout is compared with the first one's (``same_output``: the answers did
not change). Medians of ``--repeat`` runs; the load averages before and after are recorded (the
machine may be shared). Numba's kernels are each checkout's own (compiled by the warm-up run
where they are missing; only ``rank`` loads them).

Usage: python bench/bench_nerdle_memory.py [--repeat 3] [--compare /tmp/before] [--skip-empty]
Writes bench/results/<name>.json (default nerdle-memory).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import save  # noqa: E402

COMMANDS = {
    "opener (level 2)": ["opener", "--game", "nerdle", "--level", "2", "--json"],
    "suggest (level 2, no history)": ["suggest", "--game", "nerdle", "--level", "2", "--json"],
    "suggest (level 2, one round, 10 left)": ["suggest", "--game", "nerdle", "--level", "2", "48-32=16:YBBGYGYB",
                                              "--json"],
    "suggest (level 2, one round, 458 left)": ["suggest", "--game", "nerdle", "--level", "2", "10+20=30:BBBYBYBB",
                                               "--json"],
    "rank --by entropy": ["rank", "--by", "entropy", "--game", "nerdle", "--json"],
}


def child_env(repo: Path, cache: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "TERMO_BACKEND")}
    env.update(PYTHONPATH=str(repo), TERMO_DATA_DIR=str(repo / "data"), TERMO_CACHE_DIR=cache)
    return env


def run_once(repo: Path, args: list[str], cache: str) -> dict:
    """One whole process: its peak RSS (MiB), wall and CPU seconds, and what it printed."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=repo, env=child_env(repo, cache),
                                stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read().decode("utf-8", "replace")
    if proc.returncode != 0:
        raise SystemExit(f"{repo}: {' '.join(args)} exited {proc.returncode}: {stderr.strip()[-400:]}")
    return {"peak_rss_mib": usage.ru_maxrss / 1024, "wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "stdout": stdout, "stderr_lines": len(stderr.splitlines())}


def summary(runs: list[dict]) -> dict:
    keys = ("peak_rss_mib", "wall_s", "cpu_s")
    out = {f"median_{k}": statistics.median(r[k] for r in runs) for k in keys}
    out["max_peak_rss_mib"] = max(r["peak_rss_mib"] for r in runs)
    out["runs"] = [{k: round(r[k], 3) for k in keys} for r in runs]
    return out


def measure(repos: dict, repeat: int, empty: bool, scratch: Path) -> dict:
    caches = {side: str(scratch / side / "warm") for side in repos}
    for side, repo in repos.items():  # fill each cache, compile missing kernels, warm the page cache
        for args in COMMANDS.values():
            run_once(repo, args, caches[side])
        run_once(repo, COMMANDS["opener (level 2)"], caches[side])
    results = {}
    for label, args in COMMANDS.items():
        runs = {"warm": {side: [] for side in repos}, "empty": {side: [] for side in repos}}
        for _ in range(repeat):
            for side, repo in repos.items():
                runs["warm"][side].append(run_once(repo, args, caches[side]))
                if empty:
                    fresh = tempfile.mkdtemp(prefix="termo-bench-empty-", dir=scratch)
                    try:
                        runs["empty"][side].append(run_once(repo, args, fresh))
                    finally:
                        shutil.rmtree(fresh, ignore_errors=True)
        outputs = {r["stdout"] for kind in runs.values() for side in kind.values() for r in side}
        results[label] = {"argv": ["termo", *args], "same_output": len(outputs) == 1}
        for kind in ("warm", "empty"):
            if runs[kind][next(iter(repos))]:
                results[label][kind] = {side: summary(r) for side, r in runs[kind].items()}
        print(label, {kind: {side: {k: round(v, 2) for k, v in s.items() if k.startswith("median")}
                             for side, s in results[label].get(kind, {}).items()} for kind in ("warm", "empty")},
              "same output" if results[label]["same_output"] else "OUTPUTS DIFFER", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command per checkout and cache state")
    parser.add_argument("--compare", type=Path, default=None, help="another checkout, measured in turn with this one")
    parser.add_argument("--compare-label", default="before", help="its name in the JSON")
    parser.add_argument("--skip-empty", action="store_true", help="warm caches only (no build per run)")
    parser.add_argument("--name", default="nerdle-memory", help="results file bench/results/<name>.json")
    parser.add_argument("--note", default="", help="free text kept in the JSON (which commits were measured)")
    args = parser.parse_args()
    repos = {"this": ROOT}
    if args.compare:
        repos[args.compare_label] = args.compare.resolve()
    scratch = Path(tempfile.mkdtemp(prefix="termo-bench-nerdle-memory-"))
    load_before = os.getloadavg()
    try:
        results = measure(repos, args.repeat, not args.skip_empty, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    save(args.name, {
        "description": "Nerdle Classic level-2 commands as whole processes: peak RSS (MiB, ru_maxrss of the child), "
                       "wall and CPU seconds (user + system), warm cache and empty cache, median of the runs",
        "backend": "numpy",
        "checkouts": {side: str(repo) for side, repo in repos.items()},
        "note": args.note,
        "repeat": args.repeat,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "commands": results,
    })


if __name__ == "__main__":
    main()
