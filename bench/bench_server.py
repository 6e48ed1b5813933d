"""Benchmark: the HTTP server (`termo serve`) under bounded concurrent load, and a kill mid-load.

The server is started as its own process on loopback (a free port) and driven by ``--clients``
client threads over keep-alive HTTP/1.1 connections (``http.client``: no dependency), each
sending its next request as soon as the last one is answered (a closed loop):

1. **warm-up**: every history of the pool once at level 2 (the caches the server keeps fill);
2. **level 2**: ``--clients`` clients for ``--seconds`` of ``POST /api/suggest`` at level 2 with
   histories drawn from a seeded pool (Termo, one or two rounds, the second guess random, every
   pattern taken from a real answer, so no history is impossible): questions the server has
   answered before (its answer cache, if it keeps one, answers them);
   **level 2 fresh**: the same, but every request a history never asked before (two rounds),
   so every answer is computed: the cost of a real search under load;
3. **level 3**: the same at level 3, each request a history not asked before (so every one is a
   search), while one more client asks ``GET /api/games`` every 50 ms: its latency shows whether
   a search ever blocks the server's event loop;
4. **level 2, then level 3 again** (shorter runs): the resident memory after them against after
   the first level-3 phase, when both workloads had run once (no growth);
5. **kill**: a mixed level-2/level-3 load, the server killed with SIGKILL (its whole process
   group) in the middle of it, started again; the answers to a reference set of histories asked
   before the kill are asked again (stateless: the same JSON), the restarted server's log must not
   report a cache that was ignored or rebuilt, and a fresh `termo suggest --json` process reading
   the same cache directory neither.

Figures per phase: requests, requests per second, p50/p90/p99/max latency in ms, errors by kind
(HTTP status or exception), server RSS (the process and its children) before and after.
Targets: level-2 suggest p99 <= 100 ms under 32 clients, zero errors, no RSS growth, the
trivial endpoint answered promptly while level-3 searches run.

The client threads run in this process on the same machine as the server: on a 2-core machine
they take part of the CPU the server could use (the client's own CPU seconds are recorded).

Usage: python bench/bench_server.py [--clients 32] [--seconds 30] [--name server]
       [--server-cmd 'termo serve --host {host} --port {port}'] [--quick]
Writes bench/results/<name>.json. The server reads ``$TERMO_CACHE_DIR`` like every command.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import shlex
import signal
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

from bench.common import machine, save  # noqa: E402

HOST = "127.0.0.1"
DEFAULT_SERVER_CMD = "termo serve --host {host} --port {port}"
# what a damaged or stale cache makes the library say on stderr (termo.core.cache.warn callers)
CACHE_WARNINGS = ("ignored", "rebuilding", "corrupt", "checksum")


# ----------------------------------------------------------------------------- the server process
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


# ----------------------------------------------------------------------------- the clients
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


def history_pool(size: int, seed: int = 20260101, game: str = "termo") -> list[list[str]]:
    """``size`` distinct histories of one or two rounds (the opener, then a random probe), each
    pattern that of a random answer (never impossible, never already won)."""
    from termo.core.feedback import feedback
    from termo.games import get_game

    g = get_game(game)
    rng = random.Random(seed)
    opener = g.default_opener
    pool, seen = [], set()
    attempts = 0
    while len(pool) < size and attempts < size * 50:
        attempts += 1
        answer = g.answers_norm[rng.randrange(len(g.answers_norm))]
        first = feedback(opener, answer)
        if first == g.win_pattern:
            continue
        history = [f"{opener}:{first}"]
        if rng.random() < 0.6:
            probe = g.probes_norm[rng.randrange(len(g.probes_norm))]
            second = feedback(probe, answer)
            if second == g.win_pattern:
                continue
            history.append(f"{probe}:{second}")
        key = tuple(history)
        if key not in seen:
            seen.add(key)
            pool.append(history)
    return pool


def fresh_pool(size: int, exclude=(), seed: int = 99, game: str = "termo") -> list[list[str]]:
    """``size`` distinct two-round histories (the opener, then a random probe), none in ``exclude``."""
    from termo.core.feedback import feedback
    from termo.games import get_game

    g = get_game(game)
    rng = random.Random(seed)
    seen = {tuple(h) for h in exclude}
    out = []
    while len(out) < size:
        answer = g.answers_norm[rng.randrange(len(g.answers_norm))]
        probe = g.probes_norm[rng.randrange(len(g.probes_norm))]
        first, second = feedback(g.default_opener, answer), feedback(probe, answer)
        if g.win_pattern in (first, second):
            continue
        history = (f"{g.default_opener}:{first}", f"{probe}:{second}")
        if history not in seen:
            seen.add(history)
            out.append(list(history))
    return out


def suggest_body(history: list[str], level: int, game: str = "termo") -> dict:
    return {"game": game, "history": history, "level": level, "t": 1, "extended": False, "hard": False}


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank) of ``values``."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


def latency_summary(latencies: list[float]) -> dict:
    ms = [x * 1000 for x in latencies]
    if not ms:
        return {"p50_ms": None, "p90_ms": None, "p99_ms": None, "max_ms": None, "mean_ms": None}
    return {"p50_ms": round(percentile(ms, 50), 2), "p90_ms": round(percentile(ms, 90), 2),
            "p99_ms": round(percentile(ms, 99), 2), "max_ms": round(max(ms), 2),
            "mean_ms": round(statistics.fmean(ms), 2)}


def run_load(port: int, seconds: float, clients: int, make_body, *, probe_interval: float | None = None,
             during=None, request_timeout: float = 120.0) -> dict:
    """``clients`` closed-loop clients for ``seconds``, each POSTing ``make_body(rng)`` to
    /api/suggest; with ``probe_interval`` one more client GETs /api/games that often;
    ``during(elapsed)`` is called from the main thread every 0.1 s (the kill phase uses it); when
    it returns a number, the load runs until at least that many seconds from its start.
    Requests still in flight at the end are awaited and counted."""
    stop = threading.Event()
    lock = threading.Lock()
    latencies: list[float] = []
    errors: dict[str, int] = {}
    error_times: list[float] = []
    probe_latencies: list[float] = []
    probe_errors: dict[str, int] = {}
    begin = time.perf_counter()

    def note_error(table, kind):
        with lock:
            table[kind] = table.get(kind, 0) + 1
            error_times.append(time.perf_counter() - begin)

    def client(index: int):
        rng = random.Random(1000 + index)
        conn = connect(port, timeout=request_timeout)
        while not stop.is_set():
            body = make_body(rng)
            try:
                status, data, secs = request(conn, "POST", "/api/suggest", body)
            except (OSError, http.client.HTTPException) as err:
                note_error(errors, type(err).__name__)
                conn.close()
                time.sleep(0.05)
                conn = connect(port, timeout=request_timeout)
                continue
            if status == 200 and isinstance(data, dict) and "word" in data:
                with lock:
                    latencies.append(secs)
            else:
                note_error(errors, f"HTTP {status}")
        conn.close()

    def probe():
        conn = connect(port, timeout=request_timeout)
        while not stop.is_set():
            try:
                status, _, secs = request(conn, "GET", "/api/games")
            except (OSError, http.client.HTTPException) as err:
                note_error(probe_errors, type(err).__name__)
                conn.close()
                time.sleep(0.05)
                conn = connect(port, timeout=request_timeout)
                continue
            if status == 200:
                with lock:
                    probe_latencies.append(secs)
            else:
                note_error(probe_errors, f"HTTP {status}")
            stop.wait(probe_interval)
        conn.close()

    cpu0 = time.process_time()
    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    if probe_interval:
        threads.append(threading.Thread(target=probe, daemon=True))
    for thread in threads:
        thread.start()
    deadline = seconds
    while (elapsed := time.perf_counter() - begin) < deadline:
        if during is not None:
            later = during(elapsed)
            if later is not None:
                deadline = max(deadline, later)
        time.sleep(0.1)
    stop.set()
    for thread in threads:
        thread.join(timeout=request_timeout + 10)
    wall = time.perf_counter() - begin
    result = {"clients": clients, "seconds": round(wall, 2), "requests": len(latencies),
              "requests_per_s": round(len(latencies) / wall, 1), **latency_summary(latencies),
              "errors": dict(errors), "error_count": sum(errors.values()),
              "client_cpu_s": round(time.process_time() - cpu0, 2)}
    if probe_interval:
        result["probe"] = {"endpoint": "GET /api/games", "interval_s": probe_interval,
                           "requests": len(probe_latencies), **latency_summary(probe_latencies),
                           "errors": dict(probe_errors)}
    result["_error_times"] = error_times
    return result


def jobs_stats(port: int) -> dict | None:
    """The server's own counters (``GET /api/health``: computed, shared, remembered), if it has them."""
    try:
        status, data, _ = request(connect(port, timeout=10), "GET", "/api/health")
    except (OSError, http.client.HTTPException):
        return None
    jobs = data.get("jobs") if status == 200 and isinstance(data, dict) else None
    return jobs if isinstance(jobs, dict) else None


def measured(server: Server, *args, **kwargs) -> dict:
    """`run_load`, with how the server answered (its counters' increase over the phase) and the
    CPU seconds the server (and its worker processes) spent per answer."""
    port = server.port
    before, cpu = jobs_stats(port), server.cpu_s()
    result = run_load(port, *args, **kwargs)
    after, cpu_after = jobs_stats(port), server.cpu_s()
    if cpu is not None and cpu_after is not None:
        result["server_cpu_s"] = round(cpu_after - cpu, 2)
        if result["requests"]:
            result["server_cpu_ms_per_request"] = round(1000 * (cpu_after - cpu) / result["requests"], 3)
    if before and after:
        result["server_jobs"] = {key: after[key] - before[key] for key in ("computed", "shared", "remembered")
                                 if isinstance(after.get(key), int) and isinstance(before.get(key), int)}
    return result


def warm_up(port: int, pool: list[list[str]], level: int) -> dict:
    """Every history once, one after another (first answers: the server's cold costs)."""
    conn = connect(port)
    latencies, errors = [], 0
    for history in pool:
        status, data, secs = request(conn, "POST", "/api/suggest", suggest_body(history, level))
        if status == 200:
            latencies.append(secs)
        else:
            errors += 1
    conn.close()
    return {"requests": len(pool), "errors": errors, "total_s": round(sum(latencies), 2), **latency_summary(latencies)}


def reference_answers(port: int, histories: list[tuple[list[str], int]]) -> list:
    conn = connect(port)
    answers = []
    for history, level in histories:
        status, data, _ = request(conn, "POST", "/api/suggest", suggest_body(history, level))
        answers.append({"status": status, "data": data})
    conn.close()
    return answers


def cache_warnings(text: str) -> list[str]:
    return [line for line in text.splitlines() if any(word in line.lower() for word in CACHE_WARNINGS)]


def fresh_process_check(env: dict) -> dict:
    """`termo suggest tarso:BBBBB --level 2 --json` in a new process on the same cache directory."""
    start = time.perf_counter()
    proc = subprocess.run(["termo", "suggest", "tarso:BBBBB", "--level", "2", "--json"], capture_output=True,
                          text=True, env=env, timeout=600)
    return {"returncode": proc.returncode, "seconds": round(time.perf_counter() - start, 2),
            "cache_warnings": cache_warnings(proc.stderr), "word": _word(proc.stdout)}


def _word(stdout: str):
    try:
        return json.loads(stdout).get("word")
    except (ValueError, AttributeError):
        return None


def git_commit() -> str | None:
    """The checkout's commit, with "+changes" when web/, termo/, backends/ or cli/ differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "web", "termo", "backends", "cli"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (head + ("+changes" if dirty else "")) or None


def seeded_cache(folder: Path, source: str | None) -> Path:
    """A new cache folder holding copies of the full Termo matrices (and their stamps) of ``source``."""
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    if source and Path(source).is_dir():
        for path in Path(source).glob("matrix-termo-*-6046x6046-*"):
            shutil.copy2(path, folder / path.name)
    return folder


def kill_during_build(command: str, logdir: Path, env: dict, expected: dict, item) -> dict:
    """An empty cache folder: the first suggestion builds the Termo matrix; SIGKILL the server the
    moment a cache file is being written (a ``*.tmp`` of the atomic write appears; 120 s at most),
    start it again on the same folder and ask again: the same answer as the main server gave, and
    no cache reported damaged (atomic writes leave no half file under the real name)."""
    cold = dict(env, TERMO_CACHE_DIR=str(Path(tempfile.mkdtemp(prefix="cold-cache-", dir=logdir))))
    port = free_port()
    first = Server(command, port, logdir / "cold-1.log", cold)
    first.start()
    history, level = item
    body = json.dumps(suggest_body(history, level)).encode()
    sock = socket.create_connection((HOST, port))
    sock.sendall(b"POST /api/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    folder = Path(cold["TERMO_CACHE_DIR"])
    deadline = time.perf_counter() + 120
    import select

    answered = False
    while time.perf_counter() < deadline:  # kill the moment a file is being written (atomic: *.tmp)
        if any(p.name.endswith(".tmp") for p in folder.rglob("*")):
            break
        if select.select([sock], [], [], 0.005)[0]:  # answered before any write was seen
            answered = True
            break
    files_at_kill = sorted(p.name for p in folder.rglob("*") if p.is_file())
    first.kill()
    sock.close()
    second = Server(command, port, logdir / "cold-2.log", cold)
    try:
        second.start()
        answer = reference_answers(port, [item])[0]
    finally:
        second.stop()
    return {"files_at_kill": files_at_kill, "answered_before_kill": answered, "killed_while_writing": any(n.endswith(".tmp") for n in files_at_kill),
            "same_answer": answer == expected, "cache_warnings": cache_warnings(second.log_text()),
            "files_after_restart": sorted(p.name for p in folder.rglob("*") if p.is_file())}


# ----------------------------------------------------------------------------- the benchmark
def level2_fresh_phase(server: Server, args, pool2) -> dict:
    """``--clients`` clients asking level-2 histories never asked before, one per request."""
    fresh = itertools.cycle(fresh_pool(args.fresh_pool, exclude=pool2))  # repeats only past the pool
    fresh_lock = threading.Lock()

    def level2_fresh(rng):
        with fresh_lock:
            return suggest_body(next(fresh), 2)

    return measured(server, args.seconds, args.clients, level2_fresh)


def only_phase(args, server: Server, pool2, report: dict, logdir: Path) -> dict:
    """``--only PHASE``: the server started (and ready), the level-2 warm-up, that phase."""
    phases = report["phases"]
    try:
        report["start_s"] = round(server.start(ready=True), 2)
        report["ready_s"] = None if server.ready_s is None else round(server.ready_s, 2)
        phases["warmup_level2"] = warm_up(server.port, pool2, 2)
        phases[args.only] = level2_fresh_phase(server, args, pool2)
        report["rss_mb"] = {"after": server.rss_mb()}
    finally:
        server.stop()
    remove_copies(args, logdir)
    for phase in phases.values():
        phase.pop("_error_times", None)
    report["load_average_at_end"] = list(os.getloadavg())
    result = phases[args.only]
    report["checks"] = {f"{args.only}_p99_ms": result["p99_ms"],
                        f"{args.only}_p99_le_100ms": result["p99_ms"] is not None and result["p99_ms"] <= 100,
                        "errors_zero": result["error_count"] == 0 and phases["warmup_level2"]["errors"] == 0}
    payload = {"config": {"clients": args.clients, "seconds": args.seconds, "quick": args.quick, "only": args.only},
               **report}
    name = f"{args.name}-{args.only.replace('_', '-')}"
    if args.out:
        args.out.write_text(json.dumps({"benchmark": name, "machine": machine(), **payload}, indent=1,
                                       ensure_ascii=False) + "\n", encoding="utf-8")
        print(json.dumps(payload["checks"], indent=1))
    else:
        save(name, payload)
    return payload


def remove_copies(args, logdir: Path) -> None:
    """Remove the cache copies and builds of a run (70-160 MB), not a ``--cache-dir`` given."""
    import shutil

    for folder in [logdir / "cache", *logdir.glob("cold-cache-*")]:
        if not args.cache_dir or folder != args.cache_dir:
            shutil.rmtree(folder, ignore_errors=True)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the level-2 and level-3 phases")
    parser.add_argument("--repeat-seconds", type=float, default=10.0, help="length of the second level-2 phase")
    parser.add_argument("--kill-seconds", type=float, default=12.0, help="length of the kill phase")
    parser.add_argument("--pool", type=int, default=300, help="distinct level-2 histories")
    parser.add_argument("--level3-pool", type=int, default=3000,
                        help="distinct level-3 histories, asked in turn (more than a run asks: every one computed)")
    parser.add_argument("--fresh-pool", type=int, default=20000,
                        help="histories never asked before, for the fresh level-2 phase (one per request)")
    parser.add_argument("--server-cmd", default=DEFAULT_SERVER_CMD, help="{host} and {port} are filled in")
    parser.add_argument("--name", default="server")
    parser.add_argument("--out", type=Path, default=None, help="write here instead of bench/results/<name>.json")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 4 clients, 1 s phases")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="the server's TERMO_CACHE_DIR (default: a new folder, seeded with the Termo "
                             "matrices of $TERMO_CACHE_DIR when it has them, so other processes cannot "
                             "change what the server reads)")
    parser.add_argument("--no-cold-kill", action="store_true",
                        help="skip the kill during a first matrix build (an empty cache folder)")
    parser.add_argument("--only", choices=("level2_fresh",), default=None,
                        help="run one phase only (after the level-2 warm-up it follows in a full run); "
                             "written to bench/results/<name>-<phase>.json, never over a full run's file")
    args = parser.parse_args(argv)
    if args.quick:
        args.clients, args.seconds, args.repeat_seconds, args.kill_seconds = 4, 1.0, 0.5, 2.0
        args.pool, args.level3_pool, args.fresh_pool = min(args.pool, 20), min(args.level3_pool, 6), 2000

    env = dict(os.environ)
    logdir = Path(tempfile.mkdtemp(prefix="bench-server-"))
    cache_dir = args.cache_dir or seeded_cache(logdir / "cache", os.environ.get("TERMO_CACHE_DIR"))
    env["TERMO_CACHE_DIR"] = str(cache_dir)
    port = free_port()
    server = Server(args.server_cmd, port, logdir / "server-1.log", env)
    pool2 = history_pool(args.pool)
    pool3 = history_pool(args.level3_pool, seed=7)
    report: dict = {"server_cmd": args.server_cmd, "commit": git_commit(), "cache_dir": env["TERMO_CACHE_DIR"],
                    "load_average_at_start": list(os.getloadavg()),
                    "histories": {"level2": len(pool2), "level3": len(pool3)}, "phases": {}}
    phases = report["phases"]
    if args.only:
        return only_phase(args, server, pool2, report, logdir)
    try:
        report["start_s"] = round(server.start(ready=True), 2)
        report["ready_s"] = None if server.ready_s is None else round(server.ready_s, 2)
        report["rss_mb"] = {"started": server.rss_mb()}
        phases["warmup_level2"] = warm_up(port, pool2, 2)
        report["rss_mb"]["after_warmup"] = server.rss_mb()

        def level2(rng):
            return suggest_body(rng.choice(pool2), 2)

        fresh3 = itertools.cycle(pool3)  # in order: each history asked once before any repeats
        fresh3_lock = threading.Lock()

        def level3(rng):
            with fresh3_lock:
                return suggest_body(next(fresh3), 3)

        phases["level2"] = measured(server, args.seconds, args.clients, level2)
        report["rss_mb"]["after_level2"] = server.rss_mb()
        phases["level2_fresh"] = level2_fresh_phase(server, args, pool2)
        report["rss_mb"]["after_level2_fresh"] = server.rss_mb()
        phases["level3"] = measured(server, args.seconds, args.clients, level3, probe_interval=0.05)
        report["rss_mb"]["after_level3"] = server.rss_mb()
        phases["level2_again"] = measured(server, args.repeat_seconds, args.clients, level2)
        phases["level3_again"] = measured(server, args.repeat_seconds, args.clients, level3)
        report["rss_mb"]["after_repeat"] = server.rss_mb()

        # ---- the kill: reference answers first, then a mixed load with a SIGKILL in its middle
        reference = [(h, 2) for h in pool2[:20]] + [(h, 3) for h in pool3[:5]]
        before = reference_answers(port, reference)
        kill_at = args.kill_seconds / 3
        state = {"killed_at": None, "restarted_at": None, "restart_s": None}
        restarted = Server(args.server_cmd, port, logdir / "server-2.log", env)

        def during(elapsed):
            if state["killed_at"] is None and elapsed >= kill_at:
                state["survivors_after_kill"] = server.kill()
                state["killed_at"] = round(elapsed, 2)
                state["restart_s"] = round(restarted.start(), 2)
                state["restarted_at"] = round(elapsed + state["restart_s"], 2)
                return state["restarted_at"] + args.kill_seconds / 2  # load the restarted server too
            return None

        def mixed(rng):
            return level3(rng) if rng.random() < 0.25 else level2(rng)

        kill = run_load(port, args.kill_seconds, args.clients, mixed, during=during)
        server = restarted
        error_times = kill.pop("_error_times")
        after_restart = [t for t in error_times if state["restarted_at"] is not None and t > state["restarted_at"] + 1]
        after = reference_answers(port, reference)
        log2 = restarted.log_text()
        kill.update(state)
        kill["errors_while_down"] = len(error_times) - len(after_restart)
        kill["errors_after_restart"] = len(after_restart)
        kill["same_answers_after_restart"] = before == after
        kill["differences"] = [{"history": h, "level": lvl, "before": x, "after": y}
                               for (h, lvl), x, y in zip(reference, before, after) if x != y]
        kill["answers_compared"] = len(reference)
        kill["restart_log_cache_warnings"] = cache_warnings(log2)
        kill["fresh_process"] = fresh_process_check(env)
        phases["kill_restart"] = kill
        report["rss_mb"]["restarted"] = server.rss_mb()
    finally:
        server.stop()
    if not args.no_cold_kill:
        phases["kill_during_build"] = kill_during_build(args.server_cmd, logdir, env, before[0], reference[0])
    report["load_average_at_end"] = list(os.getloadavg())
    report["server_log_tail"] = (logdir / "server-1.log").read_text(errors="replace")[-1500:]
    remove_copies(args, logdir)
    report["logs"] = str(logdir)
    for phase in phases.values():
        phase.pop("_error_times", None)

    rss = report["rss_mb"]
    l2, l2f, l3, kill = phases["level2"], phases["level2_fresh"], phases["level3"], phases["kill_restart"]
    growth = None
    if rss.get("after_level3") and rss.get("after_repeat"):
        growth = round(rss["after_repeat"] - rss["after_level3"], 1)
    report["checks"] = {
        "level2_p99_ms": l2["p99_ms"],
        "level2_p99_le_100ms": l2["p99_ms"] is not None and l2["p99_ms"] <= 100,
        "level2_fresh_p99_ms": l2f["p99_ms"],
        "level2_fresh_p99_le_100ms": l2f["p99_ms"] is not None and l2f["p99_ms"] <= 100,
        "errors_zero": all(phases[p]["error_count"] == 0 for p in ("level2", "level2_fresh", "level3", "level2_again", "level3_again"))
        and phases["warmup_level2"]["errors"] == 0,
        "rss_growth_mb_on_repeat": growth,
        "no_rss_growth": growth is not None and growth <= max(20.0, 0.05 * rss["after_level3"]),
        "probe_p99_ms_during_level3": l3["probe"]["p99_ms"],
        "probe_max_ms_during_level3": l3["probe"]["max_ms"],
        "event_loop_not_blocked": l3["probe"]["p99_ms"] is not None and l3["probe"]["p99_ms"] <= 100
        and l3["probe"]["max_ms"] <= 500,
        "kill_same_answers": kill["same_answers_after_restart"],
        "kill_no_errors_after_restart": kill["errors_after_restart"] == 0,
        "kill_no_survivors": kill.get("survivors_after_kill") is False,
        "kill_no_cache_warnings": not kill["restart_log_cache_warnings"] and not kill["fresh_process"]["cache_warnings"],
    }
    if "kill_during_build" in phases:
        cold = phases["kill_during_build"]
        report["checks"]["kill_during_build_ok"] = cold["same_answer"] and not cold["cache_warnings"]
    payload = {"config": {"clients": args.clients, "seconds": args.seconds, "quick": args.quick}, **report}
    if args.out:
        args.out.write_text(json.dumps({"benchmark": args.name, "machine": machine(), **payload}, indent=1,
                                       ensure_ascii=False) + "\n", encoding="utf-8")
        print(json.dumps(payload["checks"], indent=1))
    else:
        save(args.name, payload)
    return payload


if __name__ == "__main__":
    main()
