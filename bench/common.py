"""Benchmark plumbing shared by every script in bench/: timing, machine details, JSON output."""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def load() -> list[float]:
    """The load average (1, 5 and 15 minutes), rounded: how busy the machine was."""
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict:
    """What the numbers were measured on, and how busy it was when they were saved."""
    info = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "load_average": load(),
    }
    try:
        model = [l for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")]
        info["cpu_model"] = model[0].split(":", 1)[1].strip() if model else ""
    except OSError:
        pass
    try:
        gpu = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=10
        )
        if gpu.returncode == 0:
            info["gpu"] = gpu.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return info


def median_seconds(func, repeats: int = 5, warmup: int = 1, sync=None) -> dict:
    """Run ``func`` ``warmup`` times, then time ``repeats`` runs; ``sync(result)`` waits for devices."""
    for _ in range(warmup):
        result = func()
        if sync:
            sync(result)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        if sync:
            sync(result)
        times.append(time.perf_counter() - start)
    return {"median_s": statistics.median(times), "min_s": min(times), "runs_s": times}


def timed_run(cmd, **kwargs) -> tuple[subprocess.CompletedProcess, float, float]:
    """``subprocess.run(cmd, **kwargs)`` with its wall seconds and the CPU seconds (user + system)
    of the child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, **kwargs)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def script_parser(doc: str, **options) -> argparse.ArgumentParser:
    """A script's command line: its description (the first line of ``doc``) and one option per
    keyword (``no_numba=False`` is ``--no-numba``), its default the value, or ``(default, help)``:
    an int default takes an int, False a flag, None or a text a text."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    for name, value in options.items():
        default, help_text = value if isinstance(value, tuple) else (value, None)
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action="store_true", help=help_text)
        elif isinstance(default, int):
            parser.add_argument(flag, type=int, default=default, help=help_text)
        else:
            parser.add_argument(flag, default=default, help=help_text)
    return parser


def repeats_parser(doc: str, repeats: int, **options) -> argparse.ArgumentParser:
    """The command line of a script timed over repeats: `script_parser` with ``--repeats``
    (default ``repeats``) first."""
    return script_parser(doc, repeats=repeats, **options)


def save(name: str, payload: dict, note: str | None = None) -> Path:
    """Write ``bench/results/<name>.json`` with the machine details (and ``note``: how the figures
    were taken), and print it."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": name, "machine": machine(), **payload, **({"note": note} if note else {})}
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(payload, indent=1, ensure_ascii=False))
    return path


def block_until_ready(result):
    """Wait for asynchronous backends (JAX dispatch, CUDA streams) to finish ``result``."""
    if hasattr(result, "block_until_ready"):
        result.block_until_ready()
    elif type(result).__module__.startswith("cupy"):
        import cupy

        cupy.cuda.Stream.null.synchronize()
    return result
