"""The load benchmark's harness (bench/bench_server.py) against a tiny stand-in server.

The stand-in answers ``GET /api/games`` and ``POST /api/suggest`` with a JSON answer that depends
only on the request (stateless, like the real API), so the harness's phases, statistics and the
kill-and-restart check run in a few seconds without the real app. The real server's figures come
from running the benchmark itself (bench/results/server.json), never from a timed test.
"""

from __future__ import annotations

import json
import sys
import textwrap

from bench import bench_server

STUB = textwrap.dedent(
    """
    import json, sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body are two writes: no delayed-ACK stall

        def _send(self, status, obj):
            body = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/api/games":
                self._send(200, {"games": ["termo"]})
            else:
                self._send(404, {"detail": "not found"})

        def do_POST(self):
            size = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(size))
            history = body["history"]
            self._send(200, {"candidates": len(history), "word": history[-1].split(":")[0],
                             "level": body["level"]})

        def log_message(self, *args):
            pass

    ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler).serve_forever()
    """
)


def test_harness_against_a_stub_server(tmp_path, monkeypatch):
    stub = tmp_path / "stub.py"
    stub.write_text(STUB)
    out = tmp_path / "server.json"
    monkeypatch.setattr(bench_server, "fresh_process_check",
                        lambda env: {"returncode": 0, "seconds": 0.0, "cache_warnings": [], "word": "filme"})
    payload = bench_server.main(["--clients", "4", "--seconds", "0.5", "--repeat-seconds", "0.3",
                                 "--kill-seconds", "1.2", "--pool", "20", "--level3-pool", "6",
                                 "--fresh-pool", "500", "--server-cmd", f"{sys.executable} {stub} {{host}} {{port}}",
                                 "--out", str(out)])
    saved = json.loads(out.read_text())
    assert saved["checks"] == payload["checks"]
    phases = payload["phases"]
    for name in ("level2", "level3", "level2_again", "level3_again"):
        assert phases[name]["requests"] > 0
        assert phases[name]["error_count"] == 0
        assert phases[name]["p50_ms"] <= phases[name]["p99_ms"] <= phases[name]["max_ms"]
    assert phases["level3"]["probe"]["requests"] > 0
    kill = phases["kill_restart"]
    assert kill["killed_at"] is not None and kill["restarted_at"] > kill["killed_at"]
    assert kill["same_answers_after_restart"] is True
    assert kill["errors_after_restart"] == 0
    checks = payload["checks"]
    assert checks["errors_zero"] and checks["kill_same_answers"] and checks["kill_no_cache_warnings"]


def test_history_pool_is_seeded_and_never_impossible():
    from termo.engine.session import Session
    from termo.games import get_game

    first = bench_server.history_pool(30)
    assert first == bench_server.history_pool(30)
    assert len({tuple(h) for h in first}) == 30
    game = get_game("termo")
    for history in first:
        session = Session(game)
        session.replay(history)  # raises TermoError for an impossible pattern
        assert not session.won


def test_percentiles_nearest_rank():
    values = [i / 1000 for i in range(1, 101)]
    summary = bench_server.latency_summary(values)
    assert summary["p50_ms"] == 50 and summary["p99_ms"] == 99 and summary["max_ms"] == 100
    assert bench_server.percentile([], 50) is None
