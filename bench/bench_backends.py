"""The hot operations side by side on NumPy+numba and JAX (CPU here, GPU with --device gpu).

Usage: python bench/bench_backends.py [--device cpu|gpu] [--ops LIST] [--repeats 5] [--tiny]
                                      [--backends LIST] [--no-cold] [--out NAME] [--timeout S]

Operations (Termo unless --tiny, which uses Nerdle Mini and a closed world of 60 for a quick run
of the plumbing):

* ``matrix``        the pattern matrix build (6,046²); ``matrix_ext`` the 8,629×6,046 one;
* ``sweep_all``     one entropy sweep: every probe over every answer (``probe_entropies``);
* ``sweep_state``   the same over the 223 candidates left after ``tarso:BBBBB``;
* ``topk_batch``    the batched §5.2 top-k sweep (k = 10) of the children of that state under
                    its first 10 probes (the level-3 search's second level, ~260 states);
* ``level3_state``  the level-3 decision for that state (``suggest tarso:BBBBB --level 3``);
* ``level3_opener`` the level-3 opener search from scratch (matrix warm on disk), fresh solver;
* ``fullbeam``      one full-beam column (uniform prior) on the closed world of the 300 most
                    common answers: E of all 300 openers (``GreedyTreeEvaluator``);
* ``nerdle_matrix`` / ``nerdle_sweep`` the Nerdle Classic matrix build and one full sweep.

Each is timed warm (median of ``--repeats`` runs after one warm-up, in this process) and cold:
the first call in a fresh process (set-up not counted). For JAX, cold is measured twice: with
the persistent compilation cache off (compile included) and with it warm (``cold_cached``).
``--device cpu`` (default) compares ``numpy`` and ``jax`` on the CPU (``JAX_PLATFORMS=cpu``) and
writes ``bench/results/backends-cpu.json``; ``--device gpu`` compares ``jax`` on the GPU and
``cupy`` (and NumPy as the reference) and writes ``bench/results/gpu-backends.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CPU_OPS = "matrix,sweep_all,sweep_state,topk_batch,level3_state,level3_opener,fullbeam,nerdle_sweep"
GPU_OPS = "matrix,matrix_ext,sweep_all,sweep_state,topk_batch,level3_state,level3_opener,fullbeam,nerdle_matrix,nerdle_sweep"
TARGETS_GPU = {"matrix": 0.020, "level3_opener": 2.0}  # seconds, H200 (the GPU check's targets)


def _library(name: str) -> str:
    return "jax" if name.startswith("jax") else name


# --------------------------------------------------------------------------------------------
# The operations: set-up (not timed) returns the timed call
# --------------------------------------------------------------------------------------------
def _termo(tiny: bool, extended: bool = False):
    from termo.games.registry import get_game

    return get_game("nerdle-mini" if tiny else "termo", extended=extended)


def _sweeper(game, backend):
    from termo.engine.entropy import Sweeper
    from termo.core.prior import weights_and_form

    prior, _ = weights_and_form(game.icf, 1.0)
    return Sweeper(game, prior, backend)


def _state(game, sweeper):
    """The candidates after the game's opener with the all-absent pattern (Termo: tarso:BBBBB),
    else the largest bucket of the first probe."""
    import numpy as np

    m = np.asarray(sweeper.matrix)
    opener = game.index_of(game.default_opener or "") or 0
    row = m[opener]
    code = 0 if np.any(row == 0) else int(np.bincount(row).argmax())
    return np.flatnonzero(row == code).astype(np.int64), opener, code


def _children(game, sweeper, state, k=10):
    """The non-winning buckets of ``state`` under its first ``k`` probes (segmented)."""
    import numpy as np

    from backends import host

    hb = host()
    top, _ = hb.top_probes(_host_tables(sweeper), state, k)
    members, offsets = [], [0]
    m = np.asarray(sweeper.matrix)
    for g in top.tolist():
        codes = m[g, state]
        for c in sorted(set(codes.tolist())):
            if c == game.win_code:
                continue
            bucket = state[codes == c]
            members += bucket.tolist()
            offsets.append(len(members))
    return np.asarray(members, dtype=np.int64), np.asarray(offsets, dtype=np.int64)


def _host_tables(sweeper):
    from backends.base import SweepTables

    t = sweeper.tables
    return SweepTables(t.matrix_host, t.matrix_host, t.matrix_t, t.prior, t.probe_prior, t.n_bins)


def _sync(backend):
    def sync(result):
        from bench.common import block_until_ready

        block_until_ready(result)
        return result

    return sync


def setup(op: str, backend, tiny: bool):
    """(the timed callable, a short description) of ``op`` on ``backend``."""
    import numpy as np

    if op in ("matrix", "matrix_ext", "nerdle_matrix"):
        from termo.engine.matrix import build_matrix

        if op == "nerdle_matrix":
            from termo.games.registry import get_game

            game = get_game("nerdle-mini" if tiny else "nerdle")
        else:
            game = _termo(tiny, extended=op == "matrix_ext")
        sync = _sync(backend)
        return (lambda: sync(build_matrix(game, backend))), f"{game.n_probes}x{game.n_answers}"
    if op == "nerdle_sweep":
        from termo.games.registry import get_game

        game = get_game("nerdle-mini" if tiny else "nerdle")
        sw = _sweeper(game, backend)
        everything = np.arange(game.n_answers, dtype=np.int64)
        return (lambda: backend.probe_entropies(sw.tables, everything)), f"{game.n_probes} probes x {game.n_answers}"
    game = _termo(tiny)
    if op == "fullbeam":
        from termo.robustness.greedy_tree import GreedyTreeEvaluator
        from termo.robustness.world import World, column_prior, load_game_world, uniform_column

        world = World(size=60 if tiny else 300, game="nerdle-mini" if tiny else None)
        data = load_game_world(world)
        prior = column_prior(data, uniform_column(data))
        openers = list(range(data.matrix.shape[0]))

        def run():  # a fresh evaluator: its state and value caches start empty
            ev = GreedyTreeEvaluator(data.matrix, prior, rounds=world.rounds, loss=world.loss, backend=backend,
                                     n_patterns=data.n_patterns)
            return ev.expected_values(openers)

        return run, f"closed world {world.size}, {len(openers)} openers, uniform column"
    sw = _sweeper(game, backend)
    if op == "sweep_all":
        everything = np.arange(game.n_answers, dtype=np.int64)
        return (lambda: backend.probe_entropies(sw.tables, everything)), f"{game.n_probes} probes x {game.n_answers}"
    state, opener, code = _state(game, sw)
    label = f"{game.probes[opener]}:{code} ({state.shape[0]} candidates)"
    if op == "sweep_state":
        return (lambda: backend.probe_entropies(sw.tables, state)), label
    if op == "topk_batch":
        members, offsets = _children(game, sw, state)
        ids = np.arange(offsets.shape[0] - 1, dtype=np.int64)
        return (lambda: backend.sweep_top_k(sw.tables, members, offsets, ids, 10)), \
            f"{ids.shape[0]} child states of {label}, k=10"
    if op == "level3_state":
        from termo.engine.solver import Solver

        cands = state.tolist()
        return (lambda: Solver(game, level=3, backend=backend).decide(cands, 2).choice), f"{label}, turn 2, fresh solver"
    if op == "level3_opener":
        from termo.book.openers import search_level3
        from termo.engine.solver import Solver

        return (lambda: search_level3(Solver(game, level=3, backend=backend))[0].choice), "from scratch, fresh solver"
    raise SystemExit(f"unknown operation {op!r}")


# --------------------------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------------------------
def child(args) -> None:
    """One fresh process: set up ``args.child`` and time its first call (and maybe the warm runs)."""
    from bench.common import median_seconds

    t0 = time.perf_counter()
    backend = _device_backend(args.backend)
    started = time.perf_counter() - t0
    fn, what = setup(args.child, backend, args.tiny)
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    out = {"first_s": first, "backend_start_s": started, "what": what, "device": backend.describe()}
    if args.repeats:
        out["warm"] = median_seconds(fn, args.repeats, warmup=0)
    print("RESULT " + json.dumps(out))


def _device_backend(name: str):
    from backends import get_backend

    backend = get_backend(_library(name))
    if name == "jax-gpu" and not backend.on_accelerator():
        raise SystemExit("jax-gpu: JAX sees no GPU here")
    return backend


def _run_child(op, name, args, repeats, cache=True):
    env = dict(os.environ)
    if name in ("jax-cpu",):
        env["JAX_PLATFORMS"] = "cpu"
    if not cache:
        env["TERMO_JAX_CACHE"] = "0"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", op, "--backend", name, "--repeats", str(repeats)]
    if args.tiny:
        cmd.append("--tiny")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {args.timeout} s"}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return {"error": f"exit {proc.returncode}: {tail[:300]}"}


def versions() -> dict:
    out = {}
    for mod in ("numpy", "numba", "jax", "jaxlib", "cupy"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001 - not installed or broken
            pass
    return out


def _fmt(seconds) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--ops", default="")
    parser.add_argument("--backends", default="")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--no-cold", action="store_true")
    parser.add_argument("--out", default="")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--child", default="")
    parser.add_argument("--backend", default="")
    args = parser.parse_args()
    if args.child:
        return child(args)
    from bench.common import save

    ops = (args.ops or (GPU_OPS if args.device == "gpu" else CPU_OPS)).split(",")
    names = (args.backends or ("numpy,jax-gpu,cupy" if args.device == "gpu" else "numpy,jax-cpu")).split(",")
    rows = []
    for op in ops:
        for name in names:
            row = {"op": op, "backend": name}
            started = time.perf_counter()
            if not args.no_cold:
                cold = _run_child(op, name, args, 0, cache=False)
                if "error" in cold:
                    row.update(error=cold["error"])
                    rows.append(row)
                    print(f"{op:14} {name:8} failed: {cold['error']}", file=sys.stderr, flush=True)
                    continue
                row["cold_s"] = cold["first_s"]
            if name.startswith("jax"):  # fill the persistent cache, so the next first call finds it
                _run_child(op, name, args, 0, cache=True)
            warm = _run_child(op, name, args, args.repeats, cache=True)
            if "error" in warm:
                row.update(error=warm["error"])
            else:
                row.update(what=warm["what"], device=warm["device"], backend_start_s=warm["backend_start_s"],
                           warm_median_s=warm["warm"]["median_s"], warm_min_s=warm["warm"]["min_s"],
                           warm_runs_s=warm["warm"]["runs_s"])
                if name.startswith("jax"):
                    row["cold_cached_s"] = warm["first_s"]  # a fresh process, persistent cache warm
                elif args.no_cold:
                    row["cold_s"] = warm["first_s"]
                if op in TARGETS_GPU and args.device == "gpu" and name != "numpy":
                    row["target_s"] = TARGETS_GPU[op]
            row["bench_s"] = time.perf_counter() - started
            rows.append(row)
            print(f"{op:14} {name:8} warm {_fmt(row.get('warm_median_s'))}  cold {_fmt(row.get('cold_s'))}"
                  + (f"  cold(cached) {_fmt(row.get('cold_cached_s'))}" if "cold_cached_s" in row else "")
                  + (f"  target <= {_fmt(row['target_s'])}" if "target_s" in row else "")
                  + (f"  ERROR {row['error']}" if "error" in row else ""), file=sys.stderr, flush=True)
    table = _table(rows, names)
    print(table, file=sys.stderr)
    name = args.out or ("gpu-backends" if args.device == "gpu" else "backends-cpu")
    if args.tiny and not args.out:
        name += "-tiny"
    save(name, {"device": args.device, "tiny": args.tiny, "repeats": args.repeats, "versions": versions(),
                "targets_s": TARGETS_GPU if args.device == "gpu" else {}, "results": rows, "table": table})


def _table(rows, names) -> str:
    """A markdown table: one line per operation, warm and cold per backend, and the ratio."""
    by = {(r["op"], r["backend"]): r for r in rows}
    ops = list(dict.fromkeys(r["op"] for r in rows))
    head = ["operation"]
    for n in names:
        head += [f"{n} warm", f"{n} cold"] + ([f"{n} cold (cache)"] if n.startswith("jax") else [])
    if len(names) > 1:
        head.append(f"{names[1]}/{names[0]} warm")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for op in ops:
        cells = [op]
        for n in names:
            r = by.get((op, n), {})
            if "error" in r:
                cells += ["failed", "-"] + (["-"] if n.startswith("jax") else [])
                continue
            cells += [_fmt(r.get("warm_median_s")), _fmt(r.get("cold_s"))]
            if n.startswith("jax"):
                cells.append(_fmt(r.get("cold_cached_s")))
        if len(names) > 1:
            a, b = by.get((op, names[0]), {}), by.get((op, names[1]), {})
            if a.get("warm_median_s") and b.get("warm_median_s"):
                cells.append(f"{b['warm_median_s'] / a['warm_median_s']:.1f}x")
            else:
                cells.append("-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
