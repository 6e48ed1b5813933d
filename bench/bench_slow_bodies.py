"""Benchmark: `termo serve` under a flood of stalled request bodies.

``--connections`` clients (default 1,000) each send a whole POST head (``Content-Length: 1000``)
and one byte of its body, then nothing, and reopen as soon as the server closes them
(`SlowBodyFlood`, on a thread of this process). Meanwhile ``GET /api/health`` is tried
``--tries`` times (default 66, the audit's count), 0.1 s apart, each on a fresh connection with a
1 s timeout: the figure is how many answered 200 within that second, with their median and
largest latency. The server runs with ``--nofile`` descriptors (default 2,048: a bound of 1,000
connections), ``--workers 1 --warm none``, and the flood starts once it has warmed up (20 s).
``--compare PATH`` also measures another checkout (e.g. the commit before, from ``git archive``),
run after run in turn.

Usage: python bench/bench_slow_bodies.py [--connections 1000] [--tries 66] [--runs 3] [--compare PATH]
Writes bench/results/<name>.json (default slow-bodies).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import save  # noqa: E402

SERVING = re.compile(r"serving the board on http://127\.0\.0\.1:(\d+)/")


class SlowBodyFlood:
    """``count`` connections that each send a whole POST head (``Content-Length: 1000``) and one
    byte of the body, then nothing, reopened as soon as the server closes them. Runs on a thread
    until `stop`; ``sent`` counts the heads sent, ``reopened`` the connections reopened."""

    HEAD = (b"POST /api/suggest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n{")

    def __init__(self, port: int, count: int) -> None:
        self.port, self.count = port, count
        self.selector = selectors.DefaultSelector()
        self.reopened = self.sent = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _open(self) -> None:
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        self.selector.register(sock, selectors.EVENT_WRITE, "connecting")

    def _event(self, key) -> bool:
        """Handle one ready socket; False when the server closed it (or it failed)."""
        sock = key.fileobj
        try:
            if key.data == "connecting":
                sock.send(self.HEAD)
                self.sent += 1
                self.selector.modify(sock, selectors.EVENT_READ, "sent")
                return True
            return bool(sock.recv(65536))  # an answer (408, 503): read on until the server closes
        except BlockingIOError:
            return True
        except OSError:
            return False

    def _run(self) -> None:
        for _ in range(self.count):
            self._open()
        while not self._stop.is_set():
            for key, _ in self.selector.select(0.05):
                if not self._event(key):
                    self.selector.unregister(key.fileobj)
                    key.fileobj.close()
                    self.reopened += 1
                    self._open()
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()

    def wait_sent(self, bound: float = 60.0) -> None:
        """Wait (up to ``bound`` seconds) until every connection has sent its head once."""
        deadline = time.monotonic() + bound
        while self.sent < self.count and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(30)


def health(port: int, timeout: float) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/api/health")
        response = conn.getresponse()
        return response.status == 200 and json.loads(response.read())["ok"] is True
    finally:
        conn.close()


def probe(port: int, tries: int, timeout: float = 1.0, pause: float = 0.1) -> list[float | None]:
    """``tries`` health requests: each one's seconds, or None when it did not answer in time."""
    out: list[float | None] = []
    for _ in range(tries):
        start = time.monotonic()
        try:
            out.append(time.monotonic() - start if health(port, timeout) else None)
        except OSError:
            out.append(None)
        time.sleep(pause)
    return out


def start_server(checkout: Path, nofile: int, log: Path) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, PYTHONPATH=str(checkout), TERMO_DATA_DIR=str(checkout / "data"))
    env.pop("TERMO_GAME", None)

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", "0", "--workers", "1", "--warm", "none"],
                                cwd=checkout, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, preexec_fn=limit, start_new_session=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        match = SERVING.search(log.read_text(errors="replace"))
        if match:
            port = int(match.group(1))
            while time.monotonic() < deadline:
                try:
                    if health(port, 5):
                        return proc, port
                except OSError:
                    time.sleep(0.2)
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"termo serve did not start: {log.read_text(errors='replace')[-2000:]}")


def one_run(checkout: Path, args, folder: Path) -> dict:
    proc, port = start_server(checkout, args.nofile, folder / "serve.log")
    try:
        time.sleep(args.settle)  # the server's background warm-up
        flood = SlowBodyFlood(port, args.connections)
        flood.wait_sent()
        time.sleep(1.0)
        times = probe(port, args.tries)
        flood.stop()
    finally:
        proc.kill()
        proc.wait(30)
    answered = sorted(t for t in times if t is not None)
    return {"answered": len(answered), "tries": args.tries, "reopened": flood.reopened,
            "median_ms": round(statistics.median(answered) * 1000, 1) if answered else None,
            "max_ms": round(answered[-1] * 1000, 1) if answered else None,
            "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--tries", type=int, default=66)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nofile", type=int, default=2048, help="the server's descriptor limit")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds between the server's start and the flood")
    parser.add_argument("--compare", type=Path, help="another checkout, measured in turn")
    parser.add_argument("--compare-label", default="before")
    parser.add_argument("--name", default="slow-bodies")
    args = parser.parse_args()
    need = args.connections + 256
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard) if hard != resource.RLIM_INFINITY else need, hard))
    checkouts = {"this": ROOT, **({args.compare_label: args.compare.resolve()} if args.compare else {})}
    runs: dict = {label: [] for label in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for label, checkout in checkouts.items():
                runs[label].append(one_run(checkout, args, Path(tmp)))
                print(label, runs[label][-1], flush=True)
    save(args.name, {"connections": args.connections, "tries": args.tries, "nofile": args.nofile,
                     "timeout_s": 1.0, "runs": runs,
                     "answered_share": {label: sum(r["answered"] for r in rs) / (args.tries * len(rs))
                                        for label, rs in runs.items()}})


if __name__ == "__main__":
    main()
