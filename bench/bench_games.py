"""Every game on the engine: matrix builds, whole-process suggestions with their peak memory, and
the level-3 opener search of the smaller games.

Usage: python bench/bench_games.py [--repeats 5] [--games termo,nerdle,nerdle-mini,wordle,wordle-ru]
       [--no-openers]
Writes bench/results/games.json. Each whole-process figure is the median of ``--repeats`` runs of
``termo suggest --game G HISTORY --level L --json`` in a fresh process with the caches warm, and
its peak resident memory (the largest ``ru_maxrss`` of those runs). The history is the game's
default opener followed by the feedback of the answer whose group after it is the median-sized
one (a typical second turn). The opener search is a level-3 search from scratch (no cache).
"""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backends import host  # noqa: E402
from bench.common import median_seconds, repeats_parser, save  # noqa: E402
from termo.core.feedback import decode  # noqa: E402
from termo.games import GAME_NAMES, get_game  # noqa: E402
from termo.engine.matrix import build_info, build_matrix, pattern_matrix  # noqa: E402


def typical_history(game) -> list[str]:
    """The default opener and the colours of the answer in its median-sized group."""
    np = host().xp
    opener = game.index_of(game.default_opener)
    row = np.asarray(host().to_numpy(pattern_matrix(game, host()))[opener])
    counts = np.bincount(row, minlength=game.n_patterns)
    sizes = counts[row]
    order = np.argsort(sizes, kind="stable")
    answer = int(order[len(order) // 2])
    return [f"{game.probes[opener]}:{decode(int(row[answer]), game.word_length)}"]


# A small launcher reports its child's peak memory: a child forked from this (big) process would
# start its high-water mark at this process's size.
_LAUNCHER = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
             "t = time.perf_counter() - t; "
             "print(r.returncode, t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
             "sys.stderr.write(r.stderr.decode(errors='replace')[-500:])")


def whole_process(args: list[str], repeats: int, env: dict) -> dict:
    """Median wall time and peak RSS of ``termo ARGS`` run ``repeats`` times (one warm-up)."""
    times, peaks = [], []
    for i in range(repeats + 1):
        out = subprocess.run([sys.executable, "-c", _LAUNCHER, "termo", *args], capture_output=True,
                             text=True, env=env)
        code, elapsed, peak_kb = out.stdout.split()
        if int(code) != 0:
            raise SystemExit(f"termo {' '.join(args)} failed: {out.stderr}")
        if i:  # the first run is the warm-up
            times.append(float(elapsed))
            peaks.append(int(peak_kb) / 1024)
    return {"median_s": statistics.median(times), "min_s": min(times), "peak_rss_mb": max(peaks)}


def opener_search(game) -> dict:
    from termo.book import openers
    from termo.engine.solver import Solver

    solver = Solver(game, level=3)
    decision, costs, seconds = openers.search_level3(solver)
    return {"word": decision.word, "expected": decision.choice.expected, "seconds": seconds,
            "beam": [w for w, _ in costs]}


def main() -> None:
    parser = repeats_parser(__doc__, 5)
    parser.add_argument("--games", default=",".join(GAME_NAMES))
    parser.add_argument("--no-openers", action="store_true", help="skip the level-3 opener searches")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="termo-bench-games-")  # its own caches, warmed below
    atexit.register(shutil.rmtree, cache, ignore_errors=True)
    os.environ["TERMO_CACHE_DIR"] = cache
    env = dict(os.environ)
    rows = []
    for name in args.games.split(","):
        game = get_game(name)
        row = {"game": name, "answers": game.n_answers, "probes": game.n_probes,
               "patterns": game.n_patterns, "dtype": game.code_dtype}
        build = median_seconds(lambda: build_matrix(game, host()), max(1, min(args.repeats, 3)))
        row["matrix_build_s"] = build["median_s"]
        info = build_info(game, host())  # writes the cache the processes below load
        row["matrix_mb"] = round(game.n_probes * game.n_answers * (1 if game.code_dtype == "uint8" else 2) / 1e6, 1)
        history = typical_history(game)
        row["history"] = history
        for level in (2, 3):
            if level == 3 and game.n_answers > 10_000:
                continue  # Nerdle Classic's level 3 beyond turn 1 is measured by the level-3 benches
            cmd = ["suggest", "--game", name, *history, "--level", str(level), "--json"]
            row[f"suggest_level{level}"] = whole_process(cmd, args.repeats, env)
        print(f"{name:12} build {row['matrix_build_s']:.2f} s, level-2 suggest "
              f"{row['suggest_level2']['median_s']:.2f} s ({row['suggest_level2']['peak_rss_mb']:.0f} MB)",
              file=sys.stderr)
        if not args.no_openers and name in ("nerdle-mini", "wordle", "wordle-ru"):
            row["level3_opener"] = opener_search(game)
            print(f"{name:12} level-3 opener {row['level3_opener']['word']} "
                  f"E {row['level3_opener']['expected']:.4f} in {row['level3_opener']['seconds']:.1f} s",
                  file=sys.stderr)
        del info
        rows.append(row)
    baseline = whole_process(["--version"], args.repeats, env)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    save("games", {"repeats": args.repeats, "termo_version_process": baseline,
                   "python_pass_s": time.perf_counter() - start, "results": rows})


if __name__ == "__main__":
    main()
