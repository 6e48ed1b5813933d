"""``termo robustness --scheduler``: a cluster that cannot do the work never makes the CLI wait
forever or speak in tracebacks. Everything runs on loopback (127.0.0.1) and every wait is bounded.
The tests wait on what happens (a line said, a worker joined, the process ended), never on how
fast: each bound (a subprocess timeout, a join) is a safety net a healthy run never approaches.

Fast: no worker at all (waiting line, then a timeout), unsupported or malformed addresses, a
refused connection, a port that answers but is no scheduler, the options in ``--help``.
Slow (a real worker process): every worker lost mid-run, then ``--resume`` with the printed
command; a chunk whose worker dies (``KilledWorker``).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[1]
FAST = ["--world", "60", "--columns", "T=1"]
# a run long enough to kill a worker in the middle of it (24 chunks of 4 openers)
LONG = ["--openers", "all", "--world", "96", "--columns", "T=1", "--chunk", "4"]


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TERMO_DATA_DIR", str(REPO / "data"))
    env.pop("TERMO_DEBUG", None)
    env.pop("TERMO_DASK_WORKER_TIMEOUT", None)
    env.pop("TERMO_DASK_CONNECT_TIMEOUT", None)
    env.update(extra)
    return env


def _cli(args, timeout=300, **env):
    """Run ``termo robustness ARGS`` to its end; returns (rc, stdout, stderr). ``timeout`` only
    stops a hung process (a safety net: the cases below end by themselves)."""
    proc = subprocess.run([sys.executable, "-m", "cli", "robustness", *args], cwd=REPO, env=_env(**env),
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def _cli_popen(args):
    return subprocess.Popen([sys.executable, "-m", "cli", "robustness", *args], cwd=REPO, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def no_worker_scheduler():
    """A scheduler on loopback that never gets a worker."""
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert lines and all(line.startswith("termo: ") for line in lines), err
    assert lines[-1].startswith("termo: error: ")
    return lines[-1]


# -- fast ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["option", "env"])
def test_no_worker_says_so_then_times_out(no_worker_scheduler, tmp_path, how):
    args = FAST + ["--out", str(tmp_path), "--scheduler", no_worker_scheduler]
    extra = {}
    if how == "option":
        args += ["--worker-timeout", "1"]
    else:
        extra["TERMO_DASK_WORKER_TIMEOUT"] = "1"
    rc, out, err = _cli(args, **extra)
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert lines[0] == (f"termo: waiting for Dask workers at {no_worker_scheduler} (0 connected; giving up after "
                        "1 s, see --worker-timeout)")
    assert _one_error_line(err) == (f"termo: error: no Dask worker joined the scheduler at {no_worker_scheduler} "
                                    f"within 1 s: start some (dask worker {no_worker_scheduler}) or wait longer "
                                    "(--worker-timeout SECONDS)")
    assert len(lines) == 2
    assert not (tmp_path / "robustness.json").exists()


@pytest.mark.parametrize(
    "address, expected",
    [
        ("tls://127.0.0.1:8786", "tls:// needs Dask's TLS settings"),
        ("wss://127.0.0.1:8786", "wss:// needs Dask's TLS settings"),
        ("ucx://127.0.0.1:8786", "unsupported Dask scheduler address 'ucx://127.0.0.1:8786': UCX is not supported"),
        ("foo://127.0.0.1:8786", "unsupported Dask scheduler address 'foo://127.0.0.1:8786': use tcp://HOST:PORT"),
        ("inproc://127.0.0.1/1/2", "unsupported Dask scheduler address"),
        ("127.0.0.1", "bad Dask scheduler address '127.0.0.1': no port"),
        ("tcp://127.0.0.1", "bad Dask scheduler address 'tcp://127.0.0.1': no port"),
        ("tcp://127.0.0.1:http", "the port must be a number"),
        ("tcp://:8786", "bad Dask scheduler address"),
    ],
)
def test_bad_scheduler_address_is_one_line(tmp_path, address, expected):
    rc, out, err = _cli(FAST + ["--out", str(tmp_path), "--scheduler", address])
    assert rc == 2
    line = _one_error_line(err)
    assert expected in line
    if "unsupported" in expected or "no port" in expected or "TLS" in expected:
        assert "tcp://" in line  # says what works
    assert len(err.strip().splitlines()) == 1


def test_refused_connection_fails_fast(tmp_path):
    """A refusal is the answer itself: the CLI stops on it, not when a timeout runs out (it used
    to retry for 20 s). With a connect timeout far beyond the test's own bound, a run that waited
    for the timeout could not end with this line."""
    port = _free_port()  # nothing listens there any more
    rc, out, err = _cli(FAST + ["--out", str(tmp_path), "--scheduler", f"127.0.0.1:{port}",
                                "--connect-timeout", "86400"])
    assert rc == 2
    assert _one_error_line(err) == (f"termo: error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: "
                                    "connection refused (is `dask scheduler` running there?)")
    assert len(err.strip().splitlines()) == 1


def test_refused_connection_is_not_retried(monkeypatch):
    """One connection attempt, refused: the probe raises at once with the reason."""
    from termo.core.errors import TermoError
    from termo.core import executors as dist

    attempts = []
    real = dist.socket.create_connection

    def counting(address, *args, **kwargs):
        attempts.append(address)
        return real(address, *args, **kwargs)

    monkeypatch.setattr(dist.socket, "create_connection", counting)
    port = _free_port()
    with pytest.raises(TermoError, match="connection refused"):
        dist._probe(f"tcp://127.0.0.1:{port}", "127.0.0.1", port, 86400.0)
    assert attempts == [("127.0.0.1", port)]


def test_port_that_is_no_scheduler_fails_within_connect_timeout(tmp_path):
    class Quiet(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        address = f"tcp://127.0.0.1:{server.server_address[1]}"
        rc, out, err = _cli(FAST + ["--out", str(tmp_path), "--scheduler", address, "--connect-timeout", "1"])
    finally:
        server.shutdown()
        server.server_close()
    assert rc == 2  # was: waited forever
    assert _one_error_line(err) == (f"termo: error: cannot reach the Dask scheduler at {address}: no Dask "
                                    "scheduler answered within 1 s (--connect-timeout)")


def test_help_names_the_timeouts_and_their_defaults(capsys):
    from cli.app import main

    code = main(["robustness", "--help"])
    text = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert code == 0
    for piece in ("--worker-timeout", "TERMO_DASK_WORKER_TIMEOUT", "[default: 60.0]", "--connect-timeout",
                  "TERMO_DASK_CONNECT_TIMEOUT", "[default: 5.0]", "--verbose"):
        assert piece in text


def test_workers_that_arrive_while_waiting_are_used():
    from termo.core.executors import DaskExecutor, run_task
    from termo.robustness.world import ChunkTask as Task, Column, World

    tasks = [Task(World(size=30), Column("T=1", 1.0, 30), tuple(range(i, i + 10)), "numpy", f"wait-{i}")
             for i in (0, 10, 20)]
    lines = []
    waiting = threading.Event()

    def notify(line):
        lines.append(line)
        if line.startswith("termo: waiting for Dask workers"):
            waiting.set()

    def add_worker_once_waiting():  # the worker arrives after the line, however slow the machine
        if waiting.wait(600):
            cluster.scale(1)

    with distributed.LocalCluster(n_workers=0, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        executor = DaskExecutor(cluster.scheduler_address, worker_timeout=600, notify=notify)
        helper = threading.Thread(target=add_worker_once_waiting, daemon=True)
        helper.start()
        try:
            got = {task.key: values for task, values in executor.run(tasks)}
        finally:
            waiting.set()  # lets the helper end if the run failed before saying it waits
            helper.join(600)
            executor.close()
    address = cluster.scheduler_address
    assert lines == [f"termo: waiting for Dask workers at {address} (0 connected; giving up after 600 s, see "
                     "--worker-timeout)", f"termo: 1 Dask worker connected at {address}"]
    assert got == {task.key: run_task(task) for task in tasks} and executor.delivered == 3


def test_address_check_unit():
    from termo.core.errors import TermoError
    from termo.core.executors import check_address

    assert check_address("tcp://127.0.0.1:8786") == ("tcp", "127.0.0.1", 8786)
    assert check_address("127.0.0.1:8786") == ("tcp", "127.0.0.1", 8786)
    assert check_address("ws://[::1]:8786/") == ("ws", "::1", 8786)
    for bad in ("", "tcp://", "[::1]", "tcp://h:0", "tcp://h:70000", "ucxx://h:1"):
        with pytest.raises(TermoError):
            check_address(bad)


def test_distributed_loggers_are_restored():
    import logging

    from termo.core.executors import quiet_distributed_logs

    before = logging.getLogger("distributed.client").level
    restore = quiet_distributed_logs(False)
    assert logging.getLogger("distributed.client").level > logging.CRITICAL
    assert logging.getLogger("distributed").level > logging.CRITICAL
    restore()
    assert logging.getLogger("distributed.client").level == before
    assert quiet_distributed_logs(True)() is None


STOPPED_RUN = """
import signal, sys, time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Long:
    key: str
    started: str

    def run(self):
        Path(self.started + self.key).touch()
        time.sleep(120)
        return 0


def stop(signum, frame):
    raise SystemExit(143)


if __name__ == "__main__":
    from termo.core.executors import LocalClusterExecutor

    signal.signal(signal.SIGTERM, stop)  # as the command line turns it into an exit
    executor = LocalClusterExecutor(2)
    try:
        for _ in executor.run([Long("a", sys.argv[1]), Long("b", sys.argv[1])]):
            pass
    finally:
        executor.close()
"""


def test_a_run_stopped_mid_chunk_says_nothing_of_dask(tmp_path):
    """Local Dask workers stopped while their chunks run (SIGTERM, Ctrl-C) used to print
    distributed's warnings ("Async instruction ... ended with CancelledError", a heartbeat's
    traceback) and, with port 8787 taken, the scheduler's port warning: nothing now."""
    script = tmp_path / "stopped_run.py"
    script.write_text(STOPPED_RUN, encoding="utf-8")
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))  # the scheduler's default HTTP port, taken (when it is free here)
        held.listen()
    except OSError:
        pass  # taken already
    try:
        proc = subprocess.Popen([sys.executable, str(script), str(tmp_path / "started-")], cwd=REPO, env=_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120  # a safety net: the workers start in seconds
        while len(list(tmp_path.glob("started-*"))) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(list(tmp_path.glob("started-*"))) == 2, proc.communicate(timeout=60)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        held.close()
    assert proc.returncode == 143 and err == "", err


# -- slow: a real worker process -----------------------------------------------------------------

def _start_worker(address, nanny=False):
    args = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--host", "127.0.0.1",
            "--no-dashboard", "--nanny" if nanny else "--no-nanny", "--death-timeout", "60"]
    return subprocess.Popen(args, cwd=REPO, env=_env(NUMBA_NUM_THREADS="1"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def _stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


def _wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _checkpoints(out: Path) -> int:
    return len(list((out / "checkpoints").glob("*.json")))


def _finish(proc, seconds):
    try:
        out, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"the CLI did not stop by itself:\n{err}")
    return proc.returncode, out, err


@pytest.mark.slow
def test_every_worker_lost_stops_with_resume_command(tmp_path):
    out = tmp_path / "run"
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=":0") as cluster:
        address = cluster.scheduler_address
        worker = _start_worker(address)
        try:
            cli = _cli_popen(LONG + ["--out", str(out), "--scheduler", address, "--worker-timeout", "3"])
            _wait_for(lambda: _checkpoints(out) >= 2 or cli.poll() is not None, 240, "two checkpoints")
            assert cli.poll() is None, "the run ended before its worker could be killed"
            worker.send_signal(signal.SIGKILL)  # the only worker, lost mid-run
            worker.wait(timeout=15)
            rc, stdout, err = _finish(cli, 90)
        finally:
            _stop(worker)
        assert rc == 2, err
        line = _one_error_line(err)
        kept = _checkpoints(out)
        assert 2 <= kept < 24
        match = re.fullmatch(
            rf"termo: error: every Dask worker was lost at {re.escape(address)} \(none back within 3 s\); "
            rf"(\d+) chunks finished and checkpointed in {re.escape(str(out / 'checkpoints'))}; "
            r"resume with: (termo robustness .*)", line)
        assert match, line
        assert int(match.group(1)) == kept
        command = shlex.split(match.group(2))
        assert command[:2] == ["termo", "robustness"] and command[-1] == "--resume"
        given = LONG + ["--out", str(out), "--scheduler", address, "--worker-timeout", "3"]
        assert sorted(zip(command[2:-1:2], command[3:-1:2])) == sorted(zip(given[::2], given[1::2]))
        assert "termo: every Dask worker was lost" in err  # said while it waited for one to come back
        assert not (out / "robustness.json").exists()
        # the printed command, with a worker again, reuses every kept chunk
        worker = _start_worker(address)
        try:
            rc, stdout, err2 = _cli(command[2:])
        finally:
            _stop(worker)
    assert rc == 0, err2
    assert f"{kept} resumed" in err2 and f"{24 - kept} chunks computed" in err2
    rc, stdout, err3 = _cli(LONG + ["--out", str(tmp_path / "local")])
    assert rc == 0, err3
    assert (out / "robustness.json").read_bytes() == (tmp_path / "local" / "robustness.json").read_bytes()


@pytest.mark.slow
def test_killed_worker_stops_with_resume_command(tmp_path):
    import dask

    out = tmp_path / "run"
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                           dashboard_address=":0")
    with cluster:
        address = cluster.scheduler_address
        nanny = _start_worker(address, nanny=True)  # restarts its worker: workers stay, the chunk is killed
        try:
            cli = _cli_popen(LONG + ["--out", str(out), "--scheduler", address, "--worker-timeout", "30"])
            _wait_for(lambda: _checkpoints(out) >= 1 or cli.poll() is not None, 240, "a checkpoint")
            assert cli.poll() is None, "the run ended before its worker could be killed"
            pids = [ws.pid for ws in cluster.scheduler.workers.values()]
            assert pids
            os.kill(pids[0], signal.SIGKILL)
            rc, stdout, err = _finish(cli, 90)
        finally:
            _stop(nanny)
    assert rc == 2, err  # was: internal error: KilledWorker
    line = _one_error_line(err)
    kept = _checkpoints(out)
    assert f"a chunk killed its Dask worker 1 time at {address} (KilledWorker" in line
    assert f"; {kept} chunks finished and checkpointed in {out / 'checkpoints'}; resume with: termo robustness " in line
    assert f" --scheduler {address} " in line and " --worker-timeout 30 " in line and line.endswith(" --resume")


@pytest.mark.slow
def test_scheduler_lost_stops_with_resume_command(tmp_path):
    out = tmp_path / "run"
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", str(port), "--no-dashboard"], cwd=REPO, env=_env(),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    worker = None
    try:
        _wait_for(lambda: _listening(port), 60, "the scheduler")
        worker = _start_worker(address)
        cli = _cli_popen(LONG + ["--out", str(out), "--scheduler", address, "--worker-timeout", "3"])
        _wait_for(lambda: _checkpoints(out) >= 2 or cli.poll() is not None, 240, "two checkpoints")
        assert cli.poll() is None, "the run ended before its scheduler could be killed"
        scheduler.send_signal(signal.SIGKILL)
        rc, stdout, err = _finish(cli, 90)
    finally:
        _stop(scheduler)
        if worker is not None:
            _stop(worker)
    assert rc == 2, err
    line = _one_error_line(err)
    assert line.startswith(f"termo: error: lost the connection to the Dask scheduler at {address}")
    assert f"; {_checkpoints(out)} chunks finished and checkpointed in {out / 'checkpoints'}; resume with: " in line


def _listening(port) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
