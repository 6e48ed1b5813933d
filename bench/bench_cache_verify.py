"""Benchmark: what verifying the cached pattern matrix on every load costs a one-shot command.

Each load of a cached layout reads the whole file once and checks its crc32 (no file metadata
vouches for bytes that can change below the file system). Measured:

* **per command**, whole processes, paired: this checkout against ``--compare PATH`` (another
  checkout, e.g. the commit before the change unpacked with ``git archive``, which trusted a
  ``.verified.json`` stamp and skipped the read), taken in turn (new, old, new, old, ...),
  median of ``--repeat`` pairs, wall and CPU seconds, for ``termo suggest tarso:BBBBB`` (Termo,
  two 36 MB layouts) and a level-2 Nerdle suggestion (two 628 MB layouts); each checkout has
  its own cache folder, warmed first;
* **the check itself**, in this process: crc32 of each cached layout, median of 5.

The load average is recorded before and after (the machine is shared: compare the paired ratio).

Usage: python bench/bench_cache_verify.py --compare /tmp/old [--repeat 7] [--name cache_verify]
Writes bench/results/<name>.json.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import machine, save  # noqa: E402

COMMANDS = {
    "termo suggest tarso:BBBBB": ["suggest", "tarso:BBBBB"],
    "termo suggest -g nerdle 48-32=16:BBBBYGBY --level 2": ["suggest", "-g", "nerdle", "48-32=16:BBBBYGBY",
                                                             "--level", "2"],
}


def run_once(repo: Path, args: list[str], cache: str) -> tuple[float, float, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "TERMO_BACKEND")}
    env.update(PYTHONPATH=str(repo), TERMO_DATA_DIR=str(repo / "data"), TERMO_CACHE_DIR=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cli", *args], cwd=repo, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{repo}: {' '.join(args)} failed: {proc.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stderr


def check_cost(cache: str) -> dict:
    """crc32 of each cached layout in ``cache``, median of 5 (the page cache warm)."""
    from termo.engine.matrix import file_checksum

    out = {}
    for path in sorted(Path(cache).glob("matrix-*.npy")):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            file_checksum(path)
            times.append(time.perf_counter() - start)
        out[path.name] = {"bytes": path.stat().st_size, "median_s": statistics.median(times)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--name", default="cache_verify")
    args = parser.parse_args()
    caches = {"new": tempfile.mkdtemp(prefix="termo-bench-new-"), "old": tempfile.mkdtemp(prefix="termo-bench-old-")}
    repos = {"new": ROOT, "old": args.compare.resolve()}
    load_before = os.getloadavg()
    results = {}
    for label, cmd in COMMANDS.items():
        for side in ("new", "old"):  # build the caches, warm numba and the page cache
            run_once(repos[side], cmd, caches[side])
            run_once(repos[side], cmd, caches[side])
        runs = {"new": {"wall": [], "cpu": []}, "old": {"wall": [], "cpu": []}}
        for _ in range(args.repeat):
            for side in ("new", "old"):
                wall, cpu, _ = run_once(repos[side], cmd, caches[side])
                runs[side]["wall"].append(wall)
                runs[side]["cpu"].append(cpu)
        med = {side: {k: statistics.median(v) for k, v in r.items()} for side, r in runs.items()}
        ratios = [n / o for n, o in zip(runs["new"]["wall"], runs["old"]["wall"])]
        results[label] = {
            "new_median_wall_s": med["new"]["wall"], "old_median_wall_s": med["old"]["wall"],
            "new_median_cpu_s": med["new"]["cpu"], "old_median_cpu_s": med["old"]["cpu"],
            "median_paired_wall_ratio": statistics.median(ratios),
            "added_wall_s": med["new"]["wall"] - med["old"]["wall"],
            "added_cpu_s": med["new"]["cpu"] - med["old"]["cpu"],
            "runs": runs,
        }
        print(label, {k: v for k, v in results[label].items() if k != "runs"}, flush=True)
    payload = {
        "benchmark": "cache verification per command (whole processes, paired new/old)",
        "machine": machine(),
        "compare": str(args.compare),
        "repeat": args.repeat,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "commands": results,
        "check_cost": check_cost(caches["new"]),
    }
    save(args.name, payload)


if __name__ == "__main__":
    main()
