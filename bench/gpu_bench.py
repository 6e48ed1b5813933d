"""The GPU check's whole-command benchmarks (``bench/gpu_check.sh``), and its report.

    python bench/gpu_bench.py batteries --backend jax [--tiny] --out FILE
    python bench/gpu_bench.py fullbeam --backend jax [--tiny] [--columns project] [--limit S] --out FILE
    python bench/gpu_bench.py report --dir DIR

``batteries``: the realistic battery (four strategies) and the level-3 battery on a backend, a
warm-up run (the one-time costs: compiles, the level-3 opener search) and one timed run each.
``fullbeam``: ``termo robustness --openers all`` on a backend, one column (``--columns``) or the
whole grid (default), under ``--limit`` seconds; a run cut short is reported with what it did.
``report``: every ``gpu-*.json`` in DIR as one table, measured figures beside the GPU targets
(6,046² matrix <= 20 ms, level-3 opener <= 2 s, whole full-beam grid <= 5 minutes).
``--tiny`` (the CPU dry run): Nerdle Mini batteries of 20 games, a closed Termo world of 60.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GRID_TARGET_S = 300.0


def _write(path: str, payload: dict) -> None:
    from bench.common import machine

    doc = {"machine": machine(), "device": os.environ.get("GPU_CHECK_DEVICE", ""), **payload}
    Path(path).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(payload, indent=1, ensure_ascii=False))


def batteries(args) -> int:
    from backends import get_backend
    from termo.analysis.battery import run_battery

    backend = get_backend(args.backend)
    from termo.games.registry import get_game

    opts = {"game": get_game("nerdle-mini"), "n": 20} if args.tiny else {}
    strategies = ("random", "letters", "likely", "entropy")
    out = {"benchmark": "gpu-batteries", "backend": backend.describe(), "tiny": args.tiny}
    t0 = time.perf_counter()
    run_battery(strategies, "realistic", backend=backend, **opts)
    out["realistic_warmup_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = run_battery(strategies, "realistic", backend=backend, **opts)
    out["realistic_s"] = time.perf_counter() - t0
    out["realistic"] = {r["strategy"]: {"penalised_mean": r["penalised_mean"], "win_rate": r["win_rate"]} for r in rows}
    t0 = time.perf_counter()
    run_battery(["level3"], "level3", backend=backend, **opts)
    out["level3_first_s"] = time.perf_counter() - t0  # with the level-3 opener search (cached on disk after)
    t0 = time.perf_counter()
    rows = run_battery(["level3"], "level3", backend=backend, **opts)
    out["level3_s"] = time.perf_counter() - t0
    out["level3"] = {"games": rows[0]["games"], "penalised_mean": rows[0]["penalised_mean"]}
    out["targets_s"] = {"realistic_s": 2.0, "level3_s": 10.0}
    _write(args.out, out)
    return 0


def fullbeam(args) -> int:
    """``termo robustness --openers all`` under a time limit; the figures of the finished run,
    or how far a cut-short run got (its finished checkpoint chunks)."""
    folder = Path(tempfile.mkdtemp(prefix="termo-fullbeam-"))
    cmd = [sys.executable, "-c", "from cli.app import run; run()", "robustness", "--openers", "all",
           "--backend", args.backend, "--out", str(folder), "--json"]
    if args.columns:
        cmd += ["--columns", args.columns]
    if args.tiny:
        cmd += ["--world", "60"]
    out = {"benchmark": "gpu-fullbeam", "backend": args.backend, "columns": args.columns or "the whole grid",
           "tiny": args.tiny, "command": " ".join(cmd[3:]), "limit_s": args.limit}
    if not args.columns:
        out["target_s"] = GRID_TARGET_S
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=max(1.0, args.limit - 5), cwd=ROOT)
        out["wall_s"] = time.perf_counter() - t0
        out["exit"] = proc.returncode
        if proc.returncode == 0:
            doc = json.loads(proc.stdout)
            out["columns_done"] = [{k: c.get(k) for k in ("label", "best_word", "best_expected")}
                                   for c in doc.get("columns", [])]
            out["openers"] = len(doc.get("expected", {}))
        else:
            out["error"] = (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]
    except subprocess.TimeoutExpired:
        out["wall_s"] = time.perf_counter() - t0
        out["error"] = f"cut short at {args.limit - 5:.0f} s"
        out["checkpoint_files"] = sum(1 for _ in folder.rglob("*") if _.is_file())
    shutil.rmtree(folder, ignore_errors=True)
    _write(args.out, out)
    return 0 if "error" not in out else 1


def report(args) -> int:
    """One table of the check's results, measured beside the targets."""
    folder = Path(args.dir)
    lines = []
    for path in sorted(folder.glob("gpu-*.json")):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError) as err:
            lines.append(f"{path.name}: unreadable ({err})")
            continue
        for row in doc.get("results", []):
            if "error" in row:
                lines.append(f"{path.name}: {row['op']} on {row['backend']}: failed ({row['error']})")
                continue
            target = f"  target <= {row['target_s'] * 1000:g} ms" if "target_s" in row else ""
            lines.append(f"{path.name}: {row['op']:14} {row['backend']:8} warm {row['warm_median_s'] * 1000:10.1f} ms"
                         f"  first call {row.get('cold_s', row.get('cold_cached_s', 0)) * 1000:10.1f} ms{target}")
        if doc.get("benchmark") == "gpu-fullbeam":
            got = f"{doc.get('wall_s', 0):.1f} s" + (f" ({doc['error']})" if "error" in doc else "")
            target = f"  target <= {doc['target_s']:g} s" if "target_s" in doc else ""
            lines.append(f"{path.name}: full beam, {doc['columns']}: {got}{target}")
        if doc.get("benchmark") == "gpu-batteries":
            lines.append(f"{path.name}: realistic battery {doc['realistic_s']:.2f} s (target <= 2 s), "
                         f"level-3 battery {doc['level3_s']:.2f} s (target <= 10 s)")
        if doc.get("benchmark") == "gpu-summary":
            for step in doc["steps"]:
                lines.append(f"summary: {step['step']:16} {step['status']:8} {step['why']}")
    print("\n".join(lines) if lines else f"no gpu-*.json in {folder}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    b = sub.add_parser("batteries")
    b.add_argument("--backend", default="jax")
    b.add_argument("--tiny", action="store_true")
    b.add_argument("--out", required=True)
    f = sub.add_parser("fullbeam")
    f.add_argument("--backend", default="jax")
    f.add_argument("--tiny", action="store_true")
    f.add_argument("--columns", default="")
    f.add_argument("--limit", type=float, default=300)
    f.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("--dir", required=True)
    args = parser.parse_args(argv)
    return {"batteries": batteries, "fullbeam": fullbeam, "report": report}[args.what](args)


if __name__ == "__main__":
    sys.exit(main())
