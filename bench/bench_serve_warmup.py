"""How long `termo serve` takes to say every game is warm, and the cache it leaves -> bench/results/serve-warmup.json.

The kernels are compiled already (run any command once first). For each ``--warm`` set (default:
every game, then every game but the ones named in ``--without``, to show what those cost), a
server starts on a new empty ``TERMO_CACHE_DIR`` (the first start: the pattern matrices are
built and cached) and is killed once ``GET /api/health`` says ready, then starts again on the same
folder (a later start: the matrices are loaded). Recorded: the seconds from the start to ready
for both, the cache's size, the resident memory of the server and its workers when ready, the
load average. The README and docs/web.md quote these figures.

Usage: ``python -m bench.bench_serve_warmup [--without wordle-nyt,wordle-nyt-2022] [--workers 2]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from bench.common import save
from bench.server_http import Server, free_port
from termo.games import GAME_NAMES


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def _start(games: tuple[str, ...], cache: Path, workers: int, log: Path) -> dict:
    env = dict(os.environ, TERMO_CACHE_DIR=str(cache))
    command = f"termo serve --host {{host}} --port {{port}} --workers {workers} --warm {','.join(games)}"
    server = Server(command, free_port(), log, env)
    try:
        server.start(timeout=1800, ready=True)
        return {"ready_s": round(server.ready_s, 1), "rss_mb": server.rss_mb(), "load_average": os.getloadavg()}
    finally:
        server.kill()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--without", default="wordle-nyt,wordle-nyt-2022",
                        help="games left out of the second set (empty: only every game)")
    parser.add_argument("--workers", type=int, default=2)
    opts = parser.parse_args(argv)
    left_out = [name for name in opts.without.split(",") if name]
    sets = [tuple(GAME_NAMES)] + ([tuple(n for n in GAME_NAMES if n not in left_out)] if left_out else [])
    scratch = Path(tempfile.mkdtemp(prefix="serve-warmup-"))
    rows = []
    try:
        for i, games in enumerate(sets):
            cache = scratch / f"cache-{i}"
            cache.mkdir()
            first = _start(games, cache, opts.workers, scratch / f"server-{i}.log")
            size = _size_mb(cache)
            later = _start(games, cache, opts.workers, scratch / f"server-{i}.log")
            rows.append({"games": list(games), "first_start": first, "cache_mb": round(size), "later_start": later})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    save("serve-warmup", {"workers": opts.workers, "note": "kernels compiled beforehand; ready_s: from the "
                          "start until GET /api/health says ready", "rows": rows})


if __name__ == "__main__":
    main()
