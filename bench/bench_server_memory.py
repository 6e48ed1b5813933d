"""Benchmark: what a server's caches cost in memory -> bench/results/<name>.json.

A `termo serve` is started (warm, every game ready), then asked ten configurations of the modes of
several boards one after another (mode × level × objective), each with a few questions never asked
before (two turns, coloured by a tuple of distinct answers), so that each configuration's solver
and its per-board memos are built and filled. The resident memory of the server and its worker
processes is read when ready and after each configuration; then the answer cache is filled by a
stream of distinct level-2 Termo and Quordle questions and the memory read again. Recorded: the
memory per configuration, the growth over the ten, the answer cache's own count of its bytes
(``GET /api/health``: ``jobs.results_bytes``), the load average.

Targets (issue "Trust under damage"): a mode configuration at most 50 MB, the answer cache under
its stated cap (`web.limits.MAX_RESULT_BYTES`).

Usage: python bench/bench_server_memory.py [--questions 6] [--answers 3000] [--name server-memory]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import save  # noqa: E402
from bench.server_http import DEFAULT_SERVER_CMD, Server, connect, free_port, request  # noqa: E402
from bench.server_load import fresh_pool, mode_body, mode_pool, suggest_body  # noqa: E402

CONFIGURATIONS = [("dueto", 2, "finish"), ("dueto", 3, "finish"), ("quarteto", 2, "finish"),
                  ("quarteto", 3, "win"), ("dordle", 2, "finish"), ("dordle", 3, "score"),
                  ("quordle", 2, "finish"), ("quordle", 3, "finish"), ("octordle", 2, "finish"),
                  ("octordle", 3, "finish")]


def ask(port: int, path: str, body: dict) -> int:
    status, _, _ = request(connect(port, timeout=600), "POST", path, body)
    return status


def health(port: int) -> dict:
    status, data, _ = request(connect(port, timeout=60), "GET", "/api/health")
    return data if status == 200 and isinstance(data, dict) else {}


NOTE = ("rss: the server and its worker processes (psutil); a configuration's growth includes its solver in "
        "the process that answered (short lane: level 2; worker processes: level 3)")


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=6, help="fresh questions per configuration")
    parser.add_argument("--answers", type=int, default=3000, help="distinct answers streamed into the answer cache")
    parser.add_argument("--server-cmd", default=DEFAULT_SERVER_CMD)
    parser.add_argument("--name", default="server-memory")
    opts = parser.parse_args(argv)
    log = Path(tempfile.mkdtemp(prefix="server-memory-")) / "server.log"
    server = Server(opts.server_cmd, free_port(), log, dict(os.environ))
    rows = []
    try:
        server.start(timeout=1800, ready=True)
        ready = server.rss_mb()
        before = ready
        for mode, level, objective in CONFIGURATIONS:
            statuses = [ask(server.port, "/api/mode/suggest", {**mode_body(h, level, mode), "objective": objective})
                        for h in mode_pool(opts.questions, mode, seed=level * 31 + len(objective))]
            after = server.rss_mb()
            rows.append({"mode": mode, "level": level, "objective": objective, "answered": statuses.count(200),
                         "rss_mb": after, "grew_mb": None if None in (after, before) else round(after - before, 1)})
            before = after
        configured = server.rss_mb()
        termo = fresh_pool(opts.answers // 2)
        quordle = mode_pool(opts.answers - len(termo), "quordle", seed=5)
        statuses = [ask(server.port, "/api/suggest", suggest_body(h, 2)) for h in termo]
        statuses += [ask(server.port, "/api/mode/suggest", mode_body(h, 2, "quordle")) for h in quordle]
        filled = server.rss_mb()
        jobs = health(server.port).get("jobs", {})
    finally:
        server.kill()
    growth = [r["grew_mb"] for r in rows if r["grew_mb"] is not None]
    payload = {"configurations": rows, "rss_ready_mb": ready, "rss_after_configurations_mb": configured,
               "largest_configuration_mb": max(growth) if growth else None,
               "answers_streamed": len(statuses), "answers_ok": statuses.count(200),
               "rss_after_answers_mb": filled, "answer_cache": {k: jobs.get(k) for k in ("results_kept", "results_bytes")}}
    save(opts.name, payload, NOTE)
    return payload


if __name__ == "__main__":
    main()
