"""Library calls off the event loop: a bounded worker pool with coalescing of identical requests.

Every library call of a request runs in `Jobs`' thread pools (`WORKERS` threads in each of two
lanes: ``long`` for level-3 searches, openers and partitions, ``short`` for the rest), never on
the event loop, so a level-3 search or a partition of a big game never stops the server from
answering other requests, and quick questions do not queue behind long searches. At most `MAX_WAITING` calls wait for a worker; one more is refused
(`Busy`, HTTP 503) instead of queueing without bound. Identical requests that arrive while the
first one is still being computed share its result (one computation, every waiter gets the same
answer or the same error). Finished answers are kept in a bounded LRU (at most `MAX_RESULTS`
entries and `MAX_RESULT_BYTES` bytes of their JSON, keyed by the whole request; a refused request
is kept as its error alone, without the traceback and the frames it would hold): every answer is a pure function of the request (the library is
deterministic, the history travels in the request), so a repeated question is answered on the
event loop in microseconds; a refused request (a user error) is kept too, any other failure is
not. The cache is memory only (derived data: a restart starts empty and loses nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Hashable

from web.limits import MAX_RESULT_BYTES, MAX_RESULTS, MAX_WAITING, WORKERS

PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_POLL = 1.0  # seconds between two looks at the server's pid from a worker process
STOP_WAIT = 5.0  # seconds a worker process is given to end after SIGTERM at shutdown, then SIGKILL


def kernels_threadsafe() -> bool:
    """Whether two worker threads may run the library's parallel numba kernels at once: numba's
    ``tbb`` and ``omp`` threading layers are thread-safe, its fallback ``workqueue`` is not (two
    concurrent parallel calls abort the process). Without numba: True."""
    import importlib
    import os

    try:
        importlib.import_module("numba")
    except ImportError:
        return True
    layer = os.environ.get("NUMBA_THREADING_LAYER", "default").lower()
    if layer == "workqueue":
        return False
    for module in ("numba.np.ufunc.tbbpool", "numba.np.ufunc.omppool"):
        try:
            importlib.import_module(module)
            return True
        except Exception:  # noqa: BLE001 - a layer that cannot load is a layer we do not have
            continue
    return False


def _load_kernels() -> None:
    """Import numba and bind the compiled kernels (nothing without numba or with TERMO_NO_NUMBA)."""
    try:
        from backends import load_kernels

        load_kernels()
    except Exception:  # noqa: BLE001 - the NumPy paths keep answering
        pass


def _user_error(error: BaseException) -> bool:
    from termo.interface.requests import USER_ERRORS

    return isinstance(error, USER_ERRORS)


class Busy(Exception):
    """Too many calls are waiting for a worker (or a worker process died: asked again later)."""


def _worker_started(parent: int = 0, warm: Callable[[], Any] | None = None) -> None:
    """In a ``long``-lane worker process: Ctrl-C is the server's to handle (the pool is shut down
    with it), not a traceback per worker; the worker ends when its server ends, even when
    the server is killed (SIGKILL) and cannot stop it (`_end_with`); then ``warm()``
    (`Jobs.worker_warm`), if given."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent:
        _end_with(parent)
    if warm is not None:
        warm()


def _end_with(parent: int) -> None:
    """End this process when ``parent`` (the server's pid) is gone: on Linux at once (the
    kernel's parent-death signal, ``prctl(PR_SET_PDEATHSIG)``), elsewhere and as a fallback
    within `PARENT_POLL` seconds (a thread that watches the parent pid).

    The parent-death signal is SIGUSR1 with a handler that checks the parent is really gone:
    the kernel also sends it when the *thread* that started the worker ends while the server
    lives on, and that must not end the worker."""
    import os
    import signal
    import sys

    def check(*_):
        if os.getppid() != parent:
            os._exit(1)

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            signal.signal(signal.SIGUSR1, check)
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGUSR1), 0, 0, 0)
        except (OSError, AttributeError, ValueError):  # no prctl here: the thread below does it
            pass
    check()  # the server died before the signal was asked for

    def watch():
        import time

        while True:
            time.sleep(PARENT_POLL)
            check()

    threading.Thread(target=watch, name="termo-parent-watch", daemon=True).start()


def _import_library() -> None:
    """A worker process's first task (`Jobs.warm`): import the library while nobody waits."""
    from termo.interface.suggest import import_solvers

    import_solvers()
    import web.service  # noqa: F401


def answer_bytes(key, value) -> int:
    """What an answer kept costs, in bytes: its JSON (an error: its line) and its key; the Python
    objects take a small multiple of it (`MAX_RESULT_BYTES` says the bound)."""
    import json

    try:
        text = json.dumps(value, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(value)
    return len(text.encode("utf-8", "surrogatepass")) + len(repr(key))


class Jobs:
    """A bounded thread pool with coalescing (see the module docstring)."""

    def __init__(self, workers: int = WORKERS, max_waiting: int = MAX_WAITING, max_results: int = MAX_RESULTS,
                 keep=None, processes: bool = True, max_result_bytes: int = MAX_RESULT_BYTES) -> None:
        """``keep(exception)``: whether a failure is kept like an answer (default: user errors,
        `termo.interface.requests.USER_ERRORS`); ``processes``: the ``long`` lane runs in worker processes
        (default) rather than threads."""
        from collections import OrderedDict

        self.processes = bool(processes)
        # one worker when the kernels' threading layer is not thread-safe (see kernels_threadsafe)
        self.workers = workers if workers <= 1 or kernels_threadsafe() else 1
        self.max_waiting = max_waiting
        self.max_results = max_results
        self.max_result_bytes = max_result_bytes
        self._results: OrderedDict = OrderedDict()  # key -> (ok, value or exception, bytes)
        self.result_bytes = 0  # the bytes of the answers kept (`answer_bytes`)
        self._keep = keep or _user_error
        self._executors: dict[str, ThreadPoolExecutor] = {}
        self._inflight: dict[Hashable, asyncio.Future] = {}
        self._pending = 0
        self._lock = threading.Lock()
        self.computed = 0  # calls actually run (for tests and the stats endpoint)
        self.shared = 0  # requests answered by another request's computation
        self.remembered = 0  # requests answered from the results kept
        # run in each long-lane worker process as it starts (`web.warmup`); picklable
        self.worker_warm: Callable[[], Any] | None = None

    def executor(self, lane: str = "short"):
        """The pool of a lane: ``long`` (level-3 searches, openers, partitions) or ``short``
        (everything else), so that quick questions are not queued behind long searches.

        The ``long`` lane is a pool of worker *processes* (spawned, each with its own solvers):
        a long search holds Python's GIL in stretches of up to ~0.7 s (measured: Termo level 3
        over thousands of candidates), which in a thread would stall the event loop. The
        ``short`` lane is threads (an answer in milliseconds, the caches shared). Without
        processes and with one worker (kernels that are not thread-safe) both lanes share one
        thread."""
        if lane == "long" and self.processes:
            if "long" not in self._executors:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                import os

                self._executors["long"] = ProcessPoolExecutor(
                    max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_worker_started, initargs=(os.getpid(), self.worker_warm))
            return self._executors["long"]
        lane = lane if self.workers > 1 else "short"
        if lane not in self._executors:
            self._executors[lane] = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=f"termo-{lane}")
        return self._executors[lane]

    def stats(self) -> dict:
        return {"workers": self.workers, "waiting": self._pending, "in_flight": len(self._inflight),
                "computed": self.computed, "shared": self.shared, "remembered": self.remembered,
                "results_kept": len(self._results), "results_bytes": self.result_bytes}

    def _remember(self, key, ok: bool, value) -> None:
        if self.max_results <= 0:
            return
        if not ok:  # a copy of the error alone: the raised one's traceback keeps every frame's locals alive
            import copy

            value = copy.copy(value).with_traceback(None)
            value.__context__ = value.__cause__ = None
        size = answer_bytes(key, value)
        if size > self.max_result_bytes:
            return
        old = self._results.pop(key, None)
        if old is not None:
            self.result_bytes -= old[2]
        self._results[key] = (ok, value, size)
        self.result_bytes += size
        while len(self._results) > self.max_results or self.result_bytes > self.max_result_bytes:
            self.result_bytes -= self._results.popitem(last=False)[1][2]

    async def run(self, key: Hashable | None, func: Callable[[], Any], lane: str = "short") -> Any:
        """``func()`` in a worker of ``lane``; with ``key``, shared with an identical call still
        running, or answered from the results kept."""
        if key is not None:
            kept = self._results.get(key)
            if kept is not None:
                self._results.move_to_end(key)
                self.remembered += 1
                ok, value, _ = kept
                if ok:
                    return value
                raise value.with_traceback(None)  # no traceback piling up over repeated raises
            running = self._inflight.get(key)
            if running is not None:
                self.shared += 1
                return await asyncio.shield(running)
        if self._pending >= self.max_waiting:
            raise Busy(f"the server is busy: {self._pending} requests are waiting for a worker; try again shortly")
        loop = asyncio.get_running_loop()
        self._pending += 1
        self.computed += 1
        from concurrent.futures.process import BrokenProcessPool

        try:
            future = loop.run_in_executor(self.executor(lane), func)
        except (BrokenProcessPool, RuntimeError):  # a worker process died: a fresh pool next time
            self._pending -= 1
            self._executors.pop(lane, None)
            raise Busy("a search worker stopped; it is being restarted: try again") from None
        if key is not None:
            self._inflight[key] = future

        def finished(done: asyncio.Future) -> None:  # on the loop, even when every waiter left
            self._pending -= 1
            if key is not None and self._inflight.get(key) is done:
                del self._inflight[key]
            if done.cancelled():
                return
            error = done.exception()  # retrieved: no "exception was never retrieved" when nobody waits
            if isinstance(error, BrokenProcessPool):
                self._executors.pop(lane, None)  # killed (out of memory?): the next call starts a new pool
            if key is None:
                return
            if error is None:
                self._remember(key, True, done.result())
            elif self._keep(error):
                self._remember(key, False, error)

        future.add_done_callback(finished)
        return await asyncio.shield(future)

    def warm(self, kernels: bool = True) -> None:
        """Start the ``long`` lane's worker processes now (at server start), each importing the
        library, so that the first long search does not also pay for a process start; and, with
        ``kernels``, load the compiled kernels in this process in the background (a one-process
        CLI answers a level-2 question without them, to spare their ~2 s load; a server answers
        many: one fresh Termo level-2 suggestion takes ~1.4 ms with them against ~11 ms without,
        the same answer bit for bit). `web.warmup` loads them itself, then calls this."""
        if kernels:
            threading.Thread(target=_load_kernels, name="termo-kernels", daemon=True).start()
        if not self.processes:
            return
        pool = self.executor("long")
        for _ in range(self.workers):
            pool.submit(_import_library)

    def shutdown(self) -> None:
        """Stop the pools: queued calls are cancelled, and the worker processes are ended now
        (a search in progress is abandoned: its answer has nobody left to go to), so that none
        outlives the server (SIGTERM, then SIGKILL after `STOP_WAIT` seconds)."""
        processes = []
        for executor in self._executors.values():
            processes += list((getattr(executor, "_processes", None) or {}).values())
            executor.shutdown(wait=False, cancel_futures=True)
        self._executors.clear()
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(STOP_WAIT)
                if process.is_alive():
                    process.kill()
                    process.join(STOP_WAIT)
