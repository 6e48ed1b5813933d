"""The server under test for bench/bench_server.py (and the browser tests, bench/screenshots.py):
`termo serve` as a child process in its own process group on a free loopback port, and one
keep-alive HTTP/1.1 connection's requests (``http.client``: no dependency)."""

from __future__ import annotations

import http.client
import json
import os
import shlex
import signal
import socket
import subprocess
import time
from pathlib import Path

HOST = "127.0.0.1"
DEFAULT_SERVER_CMD = "termo serve --host {host} --port {port}"


def free_port() -> int:
    """A TCP port nobody listens on right now (loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class Server:
    """The server under test, as a child process in its own process group (killed as a whole)."""

    def __init__(self, command: str, port: int, log_path: Path, env: dict | None = None):
        self.command = command
        self.port = port
        self.log_path = log_path
        self.env = env
        self.proc: subprocess.Popen | None = None
        self._log = None
        self.started_s: float | None = None
        self.ready_s: float | None = None

    def start(self, timeout: float = 180.0, ready: bool = False) -> float:
        """Start the server and wait until ``GET /api/games`` answers 200 (with ``ready``, also
        until ``GET /api/health`` says ``"ready": true``, where it has the key: every game warm,
        `ready_s`); returns the seconds until it answered."""
        argv = shlex.split(self.command.format(host=HOST, port=self.port))
        self._log = open(self.log_path, "ab")
        begin = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=self.env, start_new_session=True)
        deadline = begin + timeout
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode} before answering; "
                                   f"log: {self.log_path}\n{self.log_text()[-2000:]}")
            try:
                status, _, _ = request(connect(self.port, timeout=5), "GET", "/api/games")
                if status == 200:
                    self.started_s = time.perf_counter() - begin
                    if ready:
                        self.ready_s = self._wait_ready(begin, deadline)
                    return self.started_s
            except OSError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"the server did not answer within {timeout:.0f} s; log: {self.log_path}")

    def _wait_ready(self, begin: float, deadline: float) -> float | None:
        """Seconds from the start until ``/api/health`` reports ready (None: it has no such key)."""
        while time.perf_counter() < deadline:
            try:
                status, data, _ = request(connect(self.port, timeout=10), "GET", "/api/health")
            except (OSError, http.client.HTTPException):
                status, data = None, None
            if status is not None and (status != 200 or not isinstance(data, dict) or "ready" not in data):
                return None  # no health endpoint, or one without the key: nothing to wait for
            if status == 200 and data["ready"]:
                return time.perf_counter() - begin
            time.sleep(0.2)
        self.kill()
        raise RuntimeError(f"the server was not ready within the time allowed; log: {self.log_path}")

    def kill(self) -> bool:
        """SIGKILL the server's whole process group (no clean shutdown) and reap it; returns
        whether any process of the group was still alive 2 s later (it should not be)."""
        if self.proc is None:
            return False
        children = []
        try:
            import psutil

            children = psutil.Process(self.proc.pid).children(recursive=True)
        except Exception:  # noqa: BLE001 - no psutil, or already gone
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)
        self._close_log()
        deadline = time.perf_counter() + 2
        while time.perf_counter() < deadline:
            alive = [c for c in children if c.is_running() and c.status() != "zombie"]
            if not alive:
                return False
            time.sleep(0.05)
        for child in alive:  # a worker that left the group: do not leave it running
            child.kill()
        return True

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        if self.proc is None or self.proc.poll() is not None:
            self._close_log()
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
        except ProcessLookupError:
            pass
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def rss_mb(self) -> float | None:
        """Resident memory of the server and its children, MB (None without psutil)."""
        try:
            import psutil
        except ImportError:
            return None
        try:
            proc = psutil.Process(self.proc.pid)
            total = proc.memory_info().rss
            for child in proc.children(recursive=True):
                try:
                    total += child.memory_info().rss
                except psutil.Error:
                    pass
            return round(total / 2**20, 1)
        except psutil.Error:
            return None

    def cpu_s(self) -> float | None:
        """CPU seconds (user + system) of the server and its live children so far."""
        try:
            import psutil

            proc = psutil.Process(self.proc.pid)
            total = sum(proc.cpu_times()[:2])
            for child in proc.children(recursive=True):
                try:
                    total += sum(child.cpu_times()[:2])
                except psutil.Error:
                    pass
            return total
        except (ImportError, Exception):  # noqa: BLE001 - a figure we cannot take is left out
            return None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""



def connect(port: int, timeout: float = 120.0) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(HOST, port, timeout=timeout)


def request(conn: http.client.HTTPConnection, method: str, path: str, body=None):
    """One request on ``conn``: (status, decoded JSON or text, seconds)."""
    payload = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if payload is not None else {}
    start = time.perf_counter()
    conn.request(method, path, body=payload, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    seconds = time.perf_counter() - start
    try:
        data = json.loads(raw)
    except ValueError:
        data = raw.decode("utf-8", errors="replace")
    return response.status, data, seconds
