"""Benchmark: how long `termo suggest` takes to answer (library calls, and the CLI end to end).

Measured, each as the median of several runs:
* level 2 after the pattern matrix is cached (in process: the matrix is in memory; the
  advisor is fresh each run, so the solver's own caches start cold) - target < 50 ms;
* level 3 on positions with at most 250 candidates (a fresh solver each run: no memo carried
  over between runs) - target < 1 s;
* the whole `termo suggest ... --json` command in a subprocess (interpreter start, imports,
  matrix loaded from the disk cache) for level 2, for reference.

Usage: python bench/bench_suggest.py [--backend NAME] [--repeat N] [--no-cli]
Writes bench/results/suggest.json (or --out PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = [
    # (name, level, history, target seconds)
    ("level2 tarso:BBBBB (223)", 2, ["tarso:BBBBB"], 0.050),
    ("level2 tarso:BBGBB (51)", 2, ["tarso:BBGBB"], 0.050),
    ("level2 tarso:BBBBB filme:BBBYY (12)", 2, ["tarso:BBBBB", "filme:BBBYY"], 0.050),
    ("level3 tarso:BBBBB (223)", 3, ["tarso:BBBBB"], 1.0),
    ("level3 tarso:BBGBB (51)", 3, ["tarso:BBGBB"], 1.0),
    ("level3 tarso:BBBBB filme:BBBYY (12)", 3, ["tarso:BBBBB", "filme:BBBYY"], 1.0),
]


def machine_info(backend_name: str) -> dict:
    import numpy

    from backends import get_backend

    backend = get_backend(backend_name)
    info = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "backend": backend.name,
    }
    try:
        info["backend_info"] = backend.describe()
    except Exception:  # noqa: BLE001 - informative only
        pass
    try:
        info["load_average"] = os.getloadavg()
    except OSError:
        pass
    return info


def time_library(game, level, history, backend, repeat, reuse=False) -> tuple[list[float], dict]:
    """`repeat` timings of `suggest`: a fresh advisor (cold solver) each run, or one advisor
    reused (`reuse`: what `termo play` does between rounds; its warm-up call is not timed)."""
    from termo.interface.suggest import Advisor, Config, suggest

    samples, data = [], None
    shared = Advisor(game, Config(level=level, backend=backend)) if reuse else None
    if shared is not None:
        suggest(game, history, advisor=shared)
    for _ in range(repeat):
        advisor = shared or Advisor(game, Config(level=level, backend=backend))
        start = time.perf_counter()
        data = suggest(game, history, advisor=advisor)
        samples.append(time.perf_counter() - start)
    return samples, data


def time_cli(level, history, backend, repeat) -> list[float]:
    cmd = [sys.executable, "-m", "cli", "--backend", backend, "suggest", *history, "--level", str(level), "--json"]
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
        samples.append(time.perf_counter() - start)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default=os.environ.get("TERMO_BACKEND", "numpy"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-cli", action="store_true", help="skip the subprocess timings")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "suggest.json"))
    args = parser.parse_args()

    from termo.games.termo_pt import termo_game
    from termo.engine.matrix import build_info

    game = termo_game()
    warm = build_info(game, backend=args.backend)  # the matrix: built or loaded once, then in memory
    build_info(game, backend="numpy")  # the session filters on the host
    results = []
    cases = [(name, level, history, target, False) for name, level, history, target in CASES]
    cases += [(name + " [solver reused]", level, history, target, True)
              for name, level, history, target in CASES if level == 2]
    for name, level, history, target, reuse in cases:
        time_library(game, level, history, args.backend, 1)  # warm-up (JIT, imports)
        samples, data = time_library(game, level, history, args.backend, args.repeat, reuse)
        median = statistics.median(samples)
        row = {
            "case": name,
            "kind": "library, solver reused" if reuse else "library, fresh solver",
            "level": level,
            "history": history,
            "median_s": median,
            "samples_s": samples,
            "target_s": target,
            "meets_target": median < target,
            "answer": {"word": data["word"], "candidates": data["candidates"], "expected": data["expected"]},
        }
        results.append(row)
        print(f"{name:<56} median {median * 1000:9.2f} ms  target {target * 1000:6.0f} ms  "
              f"{'ok' if row['meets_target'] else 'SLOW'}  -> {data['word']}")
    if not args.no_cli:
        for history in (["tarso:BBBBB"],):
            samples = time_cli(2, history, args.backend, max(3, args.repeat // 2))
            median = statistics.median(samples)
            results.append({"case": f"cli level2 {' '.join(history)}", "kind": "subprocess", "level": 2,
                            "history": history, "median_s": median, "samples_s": samples})
            print(f"{'CLI termo suggest ' + ' '.join(history) + ' --level 2':<56} median {median * 1000:9.2f} ms"
                  "  (interpreter start + imports + matrix from disk)")
    report = {
        "benchmark": "suggest",
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "repeat": args.repeat,
        "machine": machine_info(args.backend),
        "matrix": {k: warm.get(k) for k in ("shape", "signature", "seconds", "source") if k in warm},
        "results": results,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
