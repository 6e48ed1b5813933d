"""Benchmark: every board's first answer from a server just started, fresh and after a restart ->
bench/results/<name>.json.

What a player meets who opens a board as soon as `termo serve` answers: for each board name (every
game and every mode of several boards), a server is started on its own (``termo serve``, which
warms every game in the background), and the board's first question is asked as soon as the
server answers ``GET /api/games``: ``POST /api/suggest {"game": NAME, "history": [], "level": 3}``,
the one the page asks (level 3 is the default of the CLI and of the pages). Recorded per board:
the seconds until the server answered at all, and the seconds the first question took.

- **fresh**: a new empty cache folder (the pattern matrices and parsed lists are built by the
  first questions; the numba kernels are compiled beforehand, as after any first command);
- **restart**: the same folder again, every cache warm (the target: every board within 2 s).

Usage: python bench/bench_first_answer.py [--boards termo,dueto,...] [--name first-answer]
       [--server-cmd 'termo serve --host {host} --port {port}'] [--skip-fresh]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import load, save  # noqa: E402
from bench.server_http import DEFAULT_SERVER_CMD, Server, connect, free_port, request  # noqa: E402

TARGET_S = 2.0  # a warm restart: every board's first answer within this


def first_answer(command: str, board: str, cache: Path, log: Path) -> dict:
    """Start a server on ``cache``, ask ``board``'s first question as soon as it answers."""
    env = dict(os.environ, TERMO_CACHE_DIR=str(cache))
    env.pop("TERMO_GAME", None)
    server = Server(command, free_port(), log, env)
    try:
        started = server.start(timeout=600)
        status, data, seconds = request(connect(server.port, timeout=900), "POST", "/api/suggest",
                                        {"game": board, "history": [], "level": 3})
        word = data.get("word") if isinstance(data, dict) else None
        return {"server_answers_s": round(started, 2), "first_answer_s": round(seconds, 3), "status": status,
                "word": word, "load_average": load()}
    finally:
        server.kill()


NOTE = ("numba kernels compiled beforehand; fresh: an empty TERMO_CACHE_DIR; restart: the same folder, warm; "
        "each board on a server of its own, asked as soon as the server answers")


def main(argv=None) -> dict:
    from termo.games.registry import GAME_NAMES, MODE_NAMES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default=",".join(GAME_NAMES + MODE_NAMES))
    parser.add_argument("--server-cmd", default=DEFAULT_SERVER_CMD)
    parser.add_argument("--name", default="first-answer")
    parser.add_argument("--skip-fresh", action="store_true", help="only the restart (a cache warmed by one run)")
    opts = parser.parse_args(argv)
    boards = [b for b in opts.boards.split(",") if b]
    scratch = Path(tempfile.mkdtemp(prefix="first-answer-"))
    rows = {}
    try:
        for board in boards:
            cache = scratch / f"cache-{board}"
            cache.mkdir()
            row = {}
            fresh = first_answer(opts.server_cmd, board, cache, scratch / f"{board}-fresh.log")
            if not opts.skip_fresh:
                row["fresh"] = fresh
            row["restart"] = first_answer(opts.server_cmd, board, cache, scratch / f"{board}-restart.log")
            rows[board] = row
            print(f"{board:<16} " + "  ".join(f"{k}: {v['first_answer_s']:.2f} s ({v['word']})" for k, v in row.items()),
                  flush=True)
            shutil.rmtree(cache, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    worst = max(row["restart"]["first_answer_s"] for row in rows.values())
    payload = {"server_cmd": opts.server_cmd, "question": {"history": [], "level": 3}, "boards": rows,
               "restart_worst_s": worst, "restart_target_s": TARGET_S, "restart_met": worst <= TARGET_S}
    save(opts.name, payload, NOTE)
    return payload


if __name__ == "__main__":
    main()
