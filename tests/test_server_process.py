"""`termo serve` as a real process on loopback: idle and slow connections, the bound on open
connections, the log under a flood, and the worker processes after SIGTERM and SIGKILL.

Each test starts its own server (``python -m cli serve --port 0``), reads the port from its
first stderr line and talks to it over TCP. Waits are bounded (a healthy run is far from the
bounds); nothing asserts an elapsed time except the bounded wait for ``/api/health``'s answer
under 3,000 idle connections, which the issue states as "answers within a second".
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="walks /proc (Linux)")

ROOT = Path(__file__).resolve().parents[1]
SERVING = re.compile(r"serving the board on http://127\.0\.0\.1:(\d+)/")
START_BOUND = 240.0  # seconds a loaded machine may take to import the app and bind (a safety net)


class Server:
    """One ``termo serve`` process on a free loopback port, its stderr in a file."""

    def __init__(self, tmp_path: Path, nofile: int | None = None, args=()) -> None:
        self.log = tmp_path / "serve.log"
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        env.pop("TERMO_GAME", None)

        def limit():  # in the child, before exec: the server's own descriptor limit
            os.setpgrp()  # its own process group: the test finds (and can clean up) all of it
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        with open(self.log, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", "0", "--workers", "1", "--warm", "none",
                                          *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err, preexec_fn=limit)
        deadline = time.monotonic() + START_BOUND
        while True:
            match = SERVING.search(self.log.read_text(errors="replace"))
            if match:
                self.port = int(match.group(1))
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                pytest.fail(f"termo serve did not start: {self.log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)
        self.wait_for_health()

    def get(self, path: str, timeout: float = 30.0, headers: dict | None = None):
        """``GET path`` over a fresh connection: (status, headers, body bytes)."""
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path, headers=headers or {})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def wait_for_health(self, bound: float = START_BOUND) -> None:
        deadline = time.monotonic() + bound
        while True:
            try:
                if self.get("/api/health", timeout=5)[0] == 200:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("termo serve never answered /api/health")
            time.sleep(0.2)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(30)


@pytest.fixture
def server(tmp_path):
    made = []

    def start(**kwargs):
        made.append(Server(tmp_path, **kwargs))
        return made[-1]

    yield start
    for s in made:
        s.close()


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One server for the tests that leave it running as it was."""
    s = Server(tmp_path_factory.mktemp("serve"))
    yield s
    s.close()


def _raise_own_nofile(need: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            pytest.skip(f"this test opens {need:,} descriptors; the hard limit is {hard:,}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))


def _open_idle(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that send nothing (connected, then left alone)."""
    socks = []
    for _ in range(count):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        socks.append(s)
    return socks


def _closed_by_server(s: socket.socket, bound: float) -> bool:
    """Whether the server closed ``s`` (EOF or reset, after any answer) within ``bound`` seconds."""
    s.setblocking(True)
    s.settimeout(bound)
    try:
        while s.recv(4096):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


# ----------------------------------------------------------------------------- connections

def _closed_count(socks, at_least: int, bound: float = 120.0) -> int:
    """How many of ``socks`` the server has closed, waiting (up to ``bound`` seconds) until it
    is ``at_least`` and has stopped growing (the server has taken in its listen queue)."""
    import select

    poll = select.poll()
    for sock in socks:
        poll.register(sock, select.POLLIN | select.POLLHUP)
    deadline = time.monotonic() + bound
    last, same = -1, 0
    while time.monotonic() < deadline:
        count = len(poll.poll(0))
        same = same + 1 if count == last and count >= at_least else 0
        if same >= 5:
            break
        last = count
        time.sleep(0.1)
    return last


def _at_rest(pid: int, bound: float = 120.0) -> None:
    """Wait (up to ``bound`` seconds) until the process uses under a tenth of a core: the
    server has finished starting (its kernels load in a background thread)."""
    tick = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        before = cpu()
        time.sleep(0.5)
        if cpu() - before < 0.05:
            return


def test_idle_connections_leave_the_server_answering(server):
    """With 2,048 descriptors the server holds 3,000 idle connections at bay: once it has taken
    them in, /api/health answers within a second, and the log stays a few lines (no traceback
    per refused accept)."""
    from web.connections import max_connections

    _raise_own_nofile(3000 + 256)
    s = server(nofile=2048)
    _at_rest(s.proc.pid)
    bound = max_connections(soft=2048)
    assert bound < 2048 - 128
    before = s.log.stat().st_size
    idle = _open_idle(s.port, 3000)
    try:
        closed = _closed_count(idle, 3000 - bound)  # past the bound, the oldest idle ones are closed
        held = len(os.listdir(f"/proc/{s.proc.pid}/fd"))
        assert held < 2048 - 64 and closed >= 3000 - bound, (held, closed, bound)
        status, _, body = s.get("/api/health", timeout=1.0)  # bounded: the answer must come in a second
        assert status == 200 and json.loads(body)["ok"] is True
    finally:
        for sock in idle:
            sock.close()
    status, _, _ = s.get("/api/health", timeout=10)
    assert status == 200
    grown = s.log.stat().st_size - before
    assert grown < 4096, s.log.read_text(errors="replace")[-3000:]
    assert "Traceback" not in s.log.read_text(errors="replace")


def test_idle_and_slow_header_connections_are_closed(shared):
    """A connection that sends nothing, and one that sends its request head a byte at a time
    and never finishes it, are both closed by the server (bounded wait far above its timeouts)."""
    s = shared
    idle = socket.create_connection(("127.0.0.1", s.port))
    slow = socket.create_connection(("127.0.0.1", s.port))
    slow.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    try:
        deadline = time.monotonic() + 60
        answer = b""
        slow.settimeout(1.0)
        closed = False
        while time.monotonic() < deadline:  # keep trickling header bytes, as a slowloris does
            try:
                slow.sendall(b"X")
                chunk = slow.recv(4096)
                if not chunk:
                    closed = True
                    break
                answer += chunk
            except socket.timeout:
                continue
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed, "a slow request head was kept open for 60 s"
        if answer:  # what it said before closing is JSON
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
            assert b"application/json" in answer
        assert _closed_by_server(idle, 60), "an idle connection was kept open for 60 s"
    finally:
        idle.close()
        slow.close()


@pytest.mark.parametrize("bound", [pytest.param(5.0, id="answered"), pytest.param(1.0, id="within-1s",
                                                                          marks=pytest.mark.timing)])
def test_stalled_bodies_do_not_lock_players_out(server, bound):
    """The audit's flood, scaled to the bound: with 512 descriptors (a bound of 192 connections),
    300 connections that send a POST head and one byte of its body, reopened as soon as they are
    closed, filled every slot with a request "in flight" and /api/health answered a few tries in
    ten. A body that stops arriving is evicted to make room: at least 95 % of the tries answer
    (each try bounded by ``bound`` seconds: 5 s in the default run, which a shared CI machine
    keeps; the issue's 1 s is the ``timing`` case, and bench/bench_slow_bodies.py measures it)."""
    from bench.bench_slow_bodies import SlowBodyFlood, probe
    from web.connections import max_connections

    _raise_own_nofile(300 + 256)
    s = server(nofile=512)
    _at_rest(s.proc.pid)
    assert max_connections(soft=512) < 300
    flood = SlowBodyFlood(s.port, 300)
    try:
        flood.wait_sent()  # every connection has sent its head
        time.sleep(1.0)
        tries = probe(s.port, 60, timeout=bound)  # bounded: an answer within the bound, or None
    finally:
        flood.stop()
    answered = sum(t is not None for t in tries)
    assert flood.sent >= 300
    assert answered >= 0.95 * len(tries), f"/api/health answered {answered} of {len(tries)} tries under the flood"
    assert "Traceback" not in s.log.read_text(errors="replace")


def _post_slowly(port: int, body: bytes, chunk: int, pause: float, bound: float = 60.0) -> bytes:
    """POST ``body`` to /api/suggest ``chunk`` bytes at a time, ``pause`` seconds apart (the head
    at once; ``pause`` None: the first chunk only, then silence); then everything the server says
    until it closes or ``bound`` seconds pass."""
    head = (f"POST /api/suggest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=bound) as sock:
        sock.sendall(head)
        try:
            for start in range(0, len(body), chunk):
                sock.sendall(body[start:start + chunk])
                if pause is None:
                    break
                time.sleep(pause)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        try:
            while data := sock.recv(65536):
                answer += data
        except (ConnectionResetError, socket.timeout):
            pass
    return answer


def test_a_body_that_stops_is_answered_408_and_a_slow_one_is_served(shared):
    """A body that stops after its first byte is closed with a JSON 408 once its grace is over
    (not held for the whole request timeout); one that trickles in at 750 bytes a second, past
    the grace, is answered."""
    from web.limits import BODY_GRACE, BODY_MIN_RATE

    stalled = _post_slowly(shared.port, b'{"level": 1' + b" " * 100 + b"}", chunk=1, pause=None)
    head, _, body = stalled.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408") and b"application/json" in head.lower(), stalled[:300]
    assert "stopped arriving" in json.loads(body)["detail"]
    slow = b'{"level": 1' + b" " * int(BODY_MIN_RATE * (BODY_GRACE + 1) * 1.5) + b"}"  # past the grace
    answer = _post_slowly(shared.port, slow, chunk=150, pause=0.2)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), answer[:300]
    assert json.loads(body)["word"]


def test_bad_requests_are_answered_in_json(shared):
    s = shared
    with socket.create_connection(("127.0.0.1", s.port), timeout=30) as sock:
        sock.sendall(b"NOT A REQUEST\r\n\r\n")
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"application/json" in head.lower(), answer[:300]
    assert json.loads(body)["detail"]
    with socket.create_connection(("127.0.0.1", s.port), timeout=30) as sock:  # a head over the limit
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n")
        answer = b""
        try:
            while chunk := sock.recv(4096):
                answer += chunk
        except ConnectionResetError:
            pass
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] in (b"400", b"431"), answer[:300]
    assert b"application/json" in head.lower() and json.loads(body)["detail"]


def test_a_foreign_host_header_is_refused(shared):
    s = shared
    status, _, body = s.get("/api/health", headers={"Host": "attacker.example"})
    assert status == 400 and "attacker.example" in json.loads(body)["detail"]
    for host in ("127.0.0.1", f"127.0.0.1:{s.port}", f"localhost:{s.port}", "localhost"):
        assert s.get("/api/health", headers={"Host": host})[0] == 200, host
    assert s.get("/api/health", headers={"Host": "127.0.0.1:1"})[0] == 400  # another port


# ----------------------------------------------------------------------------- worker processes

def _descendants(pid: int) -> set[int]:
    """Every live process whose ancestry reaches ``pid``, or that is in its process group."""
    parents: dict[int, int] = {}
    groups: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z":
            continue
        parents[int(entry.name)] = int(fields[1])
        groups[int(entry.name)] = int(fields[2])
    found = {p for p, g in groups.items() if g == pid and p != pid}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                found.add(child)
                frontier.append(child)
    return found


def _alive(pids) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _with_workers(s: Server) -> set[int]:
    """Make the server use its worker pool (an opener search), then its descendants."""
    status, _, body = s.get("/api/opener?game=nerdle-mini&level=3", timeout=START_BOUND)
    assert status == 200, body
    deadline = time.monotonic() + 60
    while True:
        found = _descendants(s.proc.pid)
        if len(found) >= 2:  # a worker process and the resource tracker
            return found
        if time.monotonic() > deadline:  # a safety net: a healthy server has them at once
            pytest.fail(f"no worker process found: {found}")
        time.sleep(0.2)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_no_process_outlives_the_server(server, sig):
    s = server()
    workers = _with_workers(s)
    os.kill(s.proc.pid, sig)
    s.proc.wait(60)
    deadline = time.monotonic() + 15  # "within a few seconds" (the workers poll once a second)
    while _alive(workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _alive(workers)
    for pid in left:  # no stray processes after a failure
        os.kill(pid, signal.SIGKILL)
    assert not left, f"{len(left)} processes outlived termo serve after {signal.Signals(sig).name}"


def test_running_out_of_descriptors_is_one_line(capsys):
    """asyncio reports each refused accept() (EMFILE) with a traceback, up to thousands a
    second; the server's handler says it once per interval, with a count, without a traceback."""
    import asyncio
    import errno
    import logging

    from web.connections import QuietLog, _loop_errors

    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(self.format(record))

    log = logging.getLogger("termo.serve")
    keep = Keep()
    log.addHandler(keep)
    try:
        handler = _loop_errors(QuietLog())
        loop = asyncio.new_event_loop()
        error = OSError(errno.EMFILE, "Too many open files")
        for _ in range(10_000):
            handler(loop, {"message": "socket.accept() out of system resource", "exception": error})
        loop.close()
    finally:
        log.removeHandler(keep)
    assert len(records) == 1 and "Too many open files" in records[0] and "Traceback" not in records[0]
    assert "Traceback" not in capsys.readouterr().err
