"""The whole opener table of a game (`termo openers`), timed in CPU seconds: Nerdle Classic's
17,723 openers by default.

Usage: python bench/bench_opener_table_full.py [--game nerdle] [--parts 2] [--threads 1] [--chunk 32]
                                               [--checkpoint-dir DIR] [--out NAME]
                                               [--follow-up entropy|candidates-remaining]

The openers are cut into ``--parts`` contiguous ranges of whole chunks, each run by its own
process (``--threads`` numba threads each) into one checkpoint folder, the one `termo openers`
uses by default (``<cache dir>/openers/<game>/checkpoints``): the chunks are the very chunks of
`termo openers --game G`, so that command with ``--resume`` reads the table from them. When
the parts are done this script assembles the table the same way (every chunk resumed) and writes

* ``bench/results/<out>.json``: CPU seconds (every part's process, threads included, summed over
  every attempt), wall seconds, the load average sampled every 30 s, the machine, the top 20;
* ``bench/results/<out>.tsv``: the table itself, one line per opener: word, value (4 decimals),
  rank (ties share a rank), sorted by rank then word.

Interrupted (a kill, a reboot)? Run the same command again: finished chunks are reused and the
CPU seconds already spent are kept (each part records its own after every chunk).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import RESULTS, save  # noqa: E402
from termo.core.chunks import CheckpointStore  # noqa: E402
from termo.robustness.opener_table import TableConfig, run_table, summary  # noqa: E402
from termo.robustness.world import World, load_game_world  # noqa: E402

LOAD_EVERY_S = 30


def default_folder(game: str) -> Path:
    from cli.common import default_out

    return Path(default_out("openers")) / game / "checkpoints"


def part_range(n: int, chunk: int, part: int, parts: int) -> tuple[int, int]:
    """Openers ``[lo, hi)`` of one part: whole chunks, so that they are the full table's chunks."""
    n_chunks = -(-n // chunk)
    return (part * n_chunks // parts) * chunk, min(n, ((part + 1) * n_chunks // parts) * chunk)


def record_prefix(follow_up: str) -> str:
    """The CPU records' file prefix: one per follow-up (the chunks of both share the folder)."""
    return "cpu-part" if follow_up == "entropy" else f"cpu-{follow_up}-part"


def run_part(game: str, part: int, parts: int, chunk: int, folder: Path, follow_up: str = "entropy") -> None:
    """One part, its CPU and wall seconds so far written after every chunk (one file per attempt)."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    data = load_game_world(World(game=game))
    lo, hi = part_range(len(data.answers), chunk, part, parts)
    record_file = folder / f"{record_prefix(follow_up)}{part}of{parts}-{os.getpid()}-{int(time.time())}.json"

    def record(done: int, total: int, note: str = "") -> None:
        payload = {"part": part, "parts": parts, "openers": [lo, hi], "done": done, "total": total,
                   "cpu_s": time.process_time() - cpu0, "wall_s": time.perf_counter() - wall0,
                   "threads": os.environ.get("NUMBA_NUM_THREADS")}
        record_file.write_text(json.dumps(payload) + "\n", encoding="utf-8")

    config = TableConfig(game=game, only=tuple(data.answers[lo:hi]), chunk_size=chunk, follow_up=follow_up)
    info: dict = {}
    run_table(config, store=CheckpointStore(folder, reuse=True), progress=record, info=info)
    record(hi - lo, hi - lo)
    print(f"part {part}/{parts}: openers {lo}..{hi - 1}, {info.get('chunks_computed')} chunks computed, "
          f"{info.get('chunks_resumed')} resumed", file=sys.stderr)


def run_parts(args, folder: Path) -> tuple[float, list]:
    """Start every part, sample the load average until they end; (wall seconds, load samples)."""
    env = dict(os.environ, NUMBA_NUM_THREADS=str(args.threads))
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, __file__, "--game", args.game, "--part", f"{i}/{args.parts}",
                               "--chunk", str(args.chunk), "--checkpoint-dir", str(folder),
                               "--follow-up", args.follow_up], env=env)
             for i in range(args.parts)]
    loads = []
    while any(p.poll() is None for p in procs):
        loads.append(os.getloadavg()[0])
        for _ in range(LOAD_EVERY_S):
            if all(p.poll() is not None for p in procs):
                break
            time.sleep(1)
    if any(p.returncode != 0 for p in procs):
        raise SystemExit(f"a part failed (exit codes {[p.returncode for p in procs]}); rerun to resume")
    return time.perf_counter() - start, loads


def attempts(folder: Path, parts: int, follow_up: str = "entropy") -> list[dict]:
    files = sorted(folder.glob(f"{record_prefix(follow_up)}*of{parts}-*.json"))
    return [json.loads(f.read_text(encoding="utf-8")) for f in files]


def write_tsv(path: Path, rows: list[dict]) -> None:
    lines = ["word\texpected\trank"] + [f"{r['word']}\t{r['expected']:.4f}\t{r['rank']}" for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="nerdle")
    parser.add_argument("--parts", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=32)
    parser.add_argument("--checkpoint-dir", type=Path, default=None)
    parser.add_argument("--out", default=None)
    parser.add_argument("--follow-up", default="entropy", help="entropy (default) or candidates-remaining")
    parser.add_argument("--part", default=None, help=argparse.SUPPRESS)  # "I/P": run one part (internal)
    args = parser.parse_args()
    folder = args.checkpoint_dir or default_folder(args.game)
    folder.mkdir(parents=True, exist_ok=True)
    if args.part is not None:
        part, parts = (int(x) for x in args.part.split("/"))
        run_part(args.game, part, parts, args.chunk, folder, args.follow_up)
        return
    wall, loads = run_parts(args, folder)
    done = attempts(folder, args.parts, args.follow_up)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    info: dict = {}
    table = run_table(TableConfig(game=args.game, chunk_size=args.chunk, follow_up=args.follow_up), store=CheckpointStore(folder, reuse=True),
                      info=info)
    assemble_cpu, assemble_wall = time.process_time() - cpu0, time.perf_counter() - wall0
    if info.get("chunks_computed"):
        raise SystemExit(f"{info['chunks_computed']} chunks were not checkpointed by the parts")
    name = args.out or f"opener_table_{args.game}" + ("" if args.follow_up == "entropy" else f"_{args.follow_up}")
    write_tsv(RESULTS / f"{name}.tsv", table["openers"])
    top = summary(table, 20)
    cpu_parts = sum(a["cpu_s"] for a in done)
    save(name, {
        "game": table["game"], "method": table["method"], "follow_up": args.follow_up, "n_openers": table["n_openers"], "n_probes": table["n_probes"],
        "complete": table["complete"], "parts": args.parts, "numba_threads_per_part": args.threads,
        "chunk": args.chunk, "cpu_s": cpu_parts + assemble_cpu, "cpu_h": (cpu_parts + assemble_cpu) / 3600,
        "cpu_s_per_opener": (cpu_parts + assemble_cpu) / table["n_openers"],
        "wall_s_last_run": wall + assemble_wall, "assemble_cpu_s": assemble_cpu,
        "attempts": done, "load_avg_1min": {"samples": len(loads), "min": min(loads, default=None),
                                            "median": statistics.median(loads) if loads else None,
                                            "max": max(loads, default=None)},
        "best": top["best"], "tied_at_top": top["tied_at_top"], "worst": top["worst"], "mean": top["mean"],
        "distinct_values": len({r["expected"] for r in table["openers"]}), "top20": top["top"],
        "table_file": f"bench/results/{name}.tsv",
    })


if __name__ == "__main__":
    main()
