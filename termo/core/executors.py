"""Where chunks of a long run go: this process, or a Dask distributed cluster.

A *task* is plain frozen data with a ``key`` (its checkpoint's name) and a ``run()`` method that
computes the chunk and returns plain data (the robustness sweep's and the opener tables'
``termo.robustness.world.ChunkTask``; the others a :class:`Chunk` of their items). An
executor takes a list of tasks and yields ``(task, values)`` as chunks finish, in any order. The
caller writes each result to its checkpoint (:mod:`termo.core.chunks`) as it arrives (before it
asks for the next one), so a crash loses at most the chunks in flight.

``DaskExecutor(address)`` connects a ``dask.distributed.Client`` to a running scheduler
(``tcp://host:8786``) and submits one future per chunk; workers import ``termo`` themselves and
run ``task.run()``, which builds (or loads from their disk cache) what the chunk needs and keeps
it for the next chunk that lands on the same worker.

A cluster run never waits forever: the address is checked before anything is sent (supported
schemes, a port, TLS settings for ``tls://``), a refused or silent scheduler fails within
``connect_timeout`` seconds, a scheduler without workers is reported on stderr and given up
after ``worker_timeout`` seconds, and a run whose workers are all lost (none back within
``worker_timeout``) or whose chunk killed its workers (``KilledWorker``) stops with
:class:`ClusterStopped` once every chunk that had finished is handed back (and checkpointed).
distributed's own log records are kept off stderr unless ``verbose`` (or ``TERMO_DEBUG``).
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Protocol

from termo.core.errors import TermoError

DEFAULT_WORKER_TIMEOUT = 60.0  # seconds without any worker before a cluster run gives up
DEFAULT_CONNECT_TIMEOUT = 5.0  # seconds to reach the scheduler
SUPPORTED_ADDRESSES = ("tcp://HOST:PORT (or HOST:PORT), ws://HOST:PORT, and tls:// or wss:// with Dask's TLS "
                       "settings configured")
_POLL = 0.5  # seconds between looks at the cluster while no chunk finishes


class Task(Protocol):
    """A chunk of work: picklable frozen data, ``key`` names its checkpoint."""

    key: str

    def run(self) -> Any: ...


@dataclass(frozen=True)
class Chunk:
    """The usual task: ``work(*before, items, *after)``, ``work`` a module-level function (a cluster
    ships it by name) and the rest plain data; ``items`` (a tuple) are what its checkpoint holds a
    value for, in order."""

    work: Callable
    items: tuple
    key: str
    before: tuple = ()
    after: tuple = ()

    def run(self) -> Any:
        return self.work(*self.before, list(self.items), *self.after)


class PerProcess:
    """What a process keeps from chunk to chunk of one run (a search and its memo, an adversary):
    one value, for the spec it was built for; a chunk of another spec builds it again in place of
    the old one. Behind a lock: the threads of one worker share it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spec = None
        self._value = None

    def get(self, spec, build: Callable[[], Any]):
        """The value kept for ``spec``, ``build()`` the first time (or after another spec)."""
        with self._lock:
            if self._value is None or self._spec != spec:
                self._value = None  # the old one goes before the new one is built
                self._value, self._spec = build(), spec
            return self._value


def run_task(task: Task):
    """Compute one chunk (the function shipped to cluster workers): ``task.run()``."""
    return task.run()


class LocalExecutor:
    """Runs the chunks one after the other in this process."""

    name = "local"

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Any]]:
        for task in tasks:
            yield task, run_task(task)

    def close(self) -> None:
        pass


class ClusterStopped(TermoError):
    """A cluster run that cannot go on (every worker lost, a chunk that kills its workers).
    Every chunk that finished before was handed back; ``reason`` is one line."""

    def __init__(self, reason: str):
        super().__init__(f"{reason}; rerun with --resume to continue from the checkpointed chunks")
        self.reason = reason


def check_address(address: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a scheduler address we can use, or a one-line TermoError."""
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    scheme = scheme.lower()
    if scheme in ("ucx", "ucxx"):
        raise TermoError(f"unsupported Dask scheduler address {address!r}: UCX is not supported by termo; "
                         f"use {SUPPORTED_ADDRESSES}")
    if scheme not in ("tcp", "ws", "tls", "wss"):
        raise TermoError(f"unsupported Dask scheduler address {address!r}: use {SUPPORTED_ADDRESSES}")
    rest = rest.rstrip("/")
    if rest.startswith("["):  # [IPv6]:port
        host, _, tail = rest[1:].partition("]")
        port_text = tail[1:] if tail.startswith(":") else ""
    else:
        host, _, port_text = rest.rpartition(":") if ":" in rest else (rest, "", "")
    if not host or "/" in host:
        raise TermoError(f"bad Dask scheduler address {address!r}: use {SUPPORTED_ADDRESSES}")
    if not port_text:
        raise TermoError(f"bad Dask scheduler address {address!r}: no port (the scheduler's default is 8786, "
                         f"e.g. tcp://{host}:8786)")
    try:
        port = int(port_text)
    except ValueError:
        port = -1
    if not 0 < port < 65536:
        raise TermoError(f"bad Dask scheduler address {address!r}: the port must be a number from 1 to 65535")
    if scheme in ("tls", "wss") and not _tls_configured():
        raise TermoError(f"{scheme}:// needs Dask's TLS settings (distributed.comm.tls.ca-file, .client.cert and "
                         ".client.key in the Dask config, or the DASK_DISTRIBUTED__COMM__TLS__* variables); "
                         f"without them use tcp://{host}:{port}")
    return scheme, host, port


def _tls_configured() -> bool:
    try:
        from distributed.security import Security

        return Security().get_connection_args("client").get("ssl_context") is not None
    except Exception:  # noqa: BLE001 - unreadable TLS files count as no TLS settings
        return False


def _probe(address: str, host: str, port: int, timeout: float) -> None:
    """Fail fast, with the reason, when nothing answers at ``host:port``."""
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        raise TermoError(f"cannot reach the Dask scheduler at {address}: connection refused "
                         f"(is `dask scheduler` running there?)") from None
    except socket.gaierror:
        raise TermoError(f"cannot reach the Dask scheduler at {address}: unknown host {host!r}") from None
    except (socket.timeout, TimeoutError):
        raise TermoError(f"cannot reach the Dask scheduler at {address}: no answer within {timeout:g} s "
                         "(--connect-timeout)") from None
    except OSError as err:
        raise TermoError(f"cannot reach the Dask scheduler at {address}: {err.strerror or err}") from None


def _handshake(address: str, timeout: float) -> None:
    """Ask ``address`` who it is, all within ``timeout`` seconds: something that accepts
    connections but is no Dask scheduler (a web server, the dashboard's port) fails here with one
    line instead of leaving the client waiting."""
    import asyncio

    from distributed.core import rpc
    from distributed.security import Security

    async def ask():
        args = Security().get_connection_args("client")
        async with rpc(address, timeout=timeout, connection_args=args) as scheduler:
            return await scheduler.identity()

    def run_alone():  # in a thread of its own: works even where an event loop is running already
        return asyncio.run(asyncio.wait_for(ask(), timeout))

    from concurrent.futures import ThreadPoolExecutor

    try:
        with ThreadPoolExecutor(1, thread_name_prefix="termo-dask-handshake") as pool:
            reply = pool.submit(run_alone).result()
    except (asyncio.TimeoutError, TimeoutError):
        raise TermoError(f"cannot reach the Dask scheduler at {address}: no Dask scheduler answered within "
                         f"{timeout:g} s (--connect-timeout)") from None
    except Exception as err:  # noqa: BLE001 - whatever answered, it was no scheduler
        raise TermoError(f"cannot reach the Dask scheduler at {address}: what answers there is not a Dask "
                         f"scheduler ({type(err).__name__})") from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise TermoError(f"cannot reach the Dask scheduler at {address}: what answers there is not a Dask scheduler")


def quiet_distributed_logs(verbose: bool = False) -> Callable[[], None]:
    """Keep distributed's (and tornado's) log records off stderr; returns what restores them."""
    if verbose or os.environ.get("TERMO_DEBUG"):
        return lambda: None
    names = ["distributed", "tornado"] + [name for name in list(logging.root.manager.loggerDict)
                                          if name.startswith(("distributed.", "tornado."))]
    saved = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)

    def restore() -> None:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)

    return restore


def _ignore_gather_exits(client) -> None:
    """When a run stops while a result is being fetched from a worker that is gone, distributed
    leaves an internal task failing with ``AllExit`` (its way to stop a gather early), which asyncio
    would print as a multi-line "Task exception was never retrieved"; drop just that one."""
    try:
        loop = client.loop.asyncio_loop
    except AttributeError:
        return
    previous = loop.get_exception_handler()

    def handler(loop, context):
        if type(context.get("exception")).__name__ == "AllExit":
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


def _stderr_line(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _plural(n: int, word: str) -> str:
    from termo.core.messages import counted

    return counted(n, word)


class DaskExecutor:
    """Runs the chunks on a Dask cluster (``address`` of its scheduler, or a ``Client``).

    ``worker_timeout``: seconds to wait for a first worker, and for one to come back when all are
    lost mid-run; ``connect_timeout``: seconds to reach the scheduler; ``notify``: where the
    one-line notes (waiting for workers, workers back) go, stderr by default."""

    name = "dask"

    def __init__(self, address, max_in_flight: int | None = None, *, worker_timeout: float | None = None,
                 connect_timeout: float | None = None, verbose: bool = False,
                 notify: Callable[[str], None] | None = None):
        self.worker_timeout = DEFAULT_WORKER_TIMEOUT if worker_timeout is None else float(worker_timeout)
        self.connect_timeout = DEFAULT_CONNECT_TIMEOUT if connect_timeout is None else float(connect_timeout)
        self.notify = notify or _stderr_line
        self.max_in_flight = max_in_flight
        self.delivered = 0  # chunks handed back by run() (each checkpointed by the sweep)
        if hasattr(address, "submit"):
            self.client = address
            self.address = getattr(getattr(address, "scheduler", None), "address", None) or "the scheduler"
            self._owned = False
            self._restore_logs = lambda: None
            return
        address = str(address).strip()
        _, host, port = check_address(address)
        try:
            from dask.distributed import Client
        except ImportError:
            raise TermoError("--scheduler needs dask[distributed]: pip install 'termo[cluster]'") from None
        self.address = address if "://" in address else f"tcp://{address}"
        self._restore_logs = quiet_distributed_logs(verbose)
        try:
            _probe(self.address, host, port, self.connect_timeout)
            _handshake(self.address, self.connect_timeout)
            try:
                self.client = Client(self.address, timeout=f"{self.connect_timeout}s", set_as_default=False)
            except Exception as err:  # noqa: BLE001 - one line, whatever went wrong
                raise TermoError(f"cannot reach the Dask scheduler at {self.address}: {_one_line(err)}") from None
            if not (verbose or os.environ.get("TERMO_DEBUG")):
                _ignore_gather_exits(self.client)
        except BaseException:
            self._restore_logs()
            raise
        self._owned = True

    # -- workers -----------------------------------------------------------------------------
    def _n_workers(self) -> int | None:
        """Workers the scheduler knows now; None when the scheduler cannot be asked."""
        if getattr(self.client, "status", "running") not in ("running", "newly-created"):
            return None
        try:
            return len(self.client.nthreads())
        except Exception:  # noqa: BLE001 - a lost scheduler reads as "cannot ask"
            return None

    def _wait_for_workers(self) -> int:
        n = self._n_workers()
        if n:
            return n
        self.notify(f"termo: waiting for Dask workers at {self.address} ({n or 0} connected; giving up after "
                    f"{self.worker_timeout:g} s, see --worker-timeout)")
        deadline = time.monotonic() + self.worker_timeout
        while True:
            n = self._n_workers()
            if n:
                self.notify(f"termo: {_plural(n, 'Dask worker')} connected at {self.address}")
                return n
            left = deadline - time.monotonic()
            if left <= 0:
                if n is None:
                    raise ClusterStopped(f"lost the connection to the Dask scheduler at {self.address}")
                raise ClusterStopped(f"no Dask worker joined the scheduler at {self.address} within "
                                     f"{self.worker_timeout:g} s: start some (dask worker {self.address}) or wait "
                                     "longer (--worker-timeout SECONDS)")
            time.sleep(min(0.2, left))

    # -- the run -----------------------------------------------------------------------------
    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Any]]:
        tasks = list(tasks)
        if not tasks:
            return
        n_workers = self._wait_for_workers()
        limit = self.max_in_flight or max(4, 4 * n_workers)
        pending = iter(tasks)
        futures: dict = {}
        wake = threading.Event()

        def submit_next() -> bool:
            task = next(pending, None)
            if task is None:
                return False
            future = self.client.submit(run_task, task, pure=False, key=f"termo-chunk-{task.key}")
            futures[future] = task
            future.add_done_callback(lambda _f: wake.set())
            return True

        for _ in range(limit):
            if not submit_next():
                break
        alone_since = None  # when the cluster was first seen without workers (or unreachable)
        next_look = time.monotonic()
        try:
            while futures:
                wake.clear()
                finished, failed = [], []
                for future in list(futures):
                    status = future.status
                    if status == "finished":
                        finished.append(future)
                    elif status in ("error", "cancelled"):
                        failed.append(future)
                for future in finished:
                    try:
                        values = future.result(timeout=max(self.connect_timeout, 10.0))
                    except Exception:  # noqa: BLE001 - its data went with a worker: it is recomputed
                        continue
                    task = futures.pop(future)
                    future.release()
                    submit_next()
                    self.delivered += 1
                    yield task, values
                if failed:
                    self._raise_failure(failed[0], futures)
                if finished:
                    continue
                now = time.monotonic()
                if now >= next_look:
                    next_look = now + 1.0
                    n = self._n_workers()
                    if n:
                        if alone_since is not None:
                            self.notify(f"termo: {_plural(n, 'Dask worker')} back at {self.address}, going on")
                        alone_since = None
                    elif alone_since is None:
                        alone_since = now
                        what = "the Dask scheduler stopped answering" if n is None else "every Dask worker was lost"
                        self.notify(f"termo: {what} at {self.address}; waiting up to {self.worker_timeout:g} s "
                                    "(--worker-timeout)")
                    elif now - alone_since > self.worker_timeout:
                        if n is None:
                            raise ClusterStopped(f"lost the connection to the Dask scheduler at {self.address} "
                                                 f"(not back within {self.worker_timeout:g} s)")
                        raise ClusterStopped(f"every Dask worker was lost at {self.address} (none back within "
                                             f"{self.worker_timeout:g} s)")
                wake.wait(_POLL)
        finally:
            if futures:
                try:
                    self.client.cancel(list(futures))
                except Exception:  # noqa: BLE001 - a gone scheduler has nothing to cancel
                    pass

    def _raise_failure(self, future, futures) -> None:
        from distributed import KilledWorker

        if future.status == "cancelled":  # what the client does to every future when the scheduler goes
            if self._n_workers() is None:
                raise ClusterStopped(f"lost the connection to the Dask scheduler at {self.address}")
            raise ClusterStopped(f"a chunk was cancelled on the Dask cluster at {self.address}")
        try:
            exc = future.exception(timeout=max(self.connect_timeout, 10.0))
        except Exception as err:  # noqa: BLE001
            exc = err
        if isinstance(exc, KilledWorker):
            tries = getattr(exc, "allowed_failures", None)
            tries = f" {_plural(tries + 1, 'time')}" if isinstance(tries, int) else ""
            raise ClusterStopped(f"a chunk killed its Dask worker{tries} at {self.address} (KilledWorker: worker "
                                 "out of memory or crashed, see the worker's log)")
        future.result()  # a genuine error in a chunk: re-raised as it is

    def close(self) -> None:
        try:
            if self._owned:
                try:
                    self.client.close(timeout=max(self.connect_timeout, 5.0))
                except Exception:  # noqa: BLE001 - closing a client of a gone scheduler
                    pass
        finally:
            self._restore_logs()


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return text or type(err).__name__


def make_executor(scheduler: str | None, **options):
    """Local executor, or a :class:`DaskExecutor` on ``scheduler`` (``options`` go to it)."""
    return LocalExecutor() if not scheduler else DaskExecutor(scheduler, **options)


class LocalClusterExecutor(DaskExecutor):
    """A :class:`DaskExecutor` on a Dask cluster of ``n_workers`` worker processes on this
    machine (one thread each), started here and shut down by :meth:`close`."""

    name = "dask-local"

    def __init__(self, n_workers: int, verbose: bool = False, **options):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise TermoError("--workers needs dask[distributed]: pip install 'termo[cluster]'") from None
        restore = quiet_distributed_logs(verbose)
        try:
            # the workers' own log records too (a stopped run's cancelled chunks and lost heartbeats)
            quiet = logging.WARN if verbose or os.environ.get("TERMO_DEBUG") else logging.CRITICAL
            # the scheduler's HTTP server on a free port (its default, 8787, taken: a warning)
            self._cluster = LocalCluster(n_workers=int(n_workers), threads_per_worker=1, processes=True,
                                         dashboard_address=None, host="127.0.0.1", silence_logs=quiet,
                                         scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
            client = Client(self._cluster, set_as_default=False)
        except Exception as err:  # noqa: BLE001 - one line, whatever went wrong
            restore()
            raise TermoError(f"cannot start {n_workers} local Dask workers: {_one_line(err)}") from None
        super().__init__(client, **options)
        self._restore_logs = restore

    def close(self) -> None:
        try:
            try:
                self.client.close()
            except Exception:  # noqa: BLE001
                pass
            try:
                self._cluster.close()
            except Exception:  # noqa: BLE001
                pass
        finally:
            self._restore_logs()
