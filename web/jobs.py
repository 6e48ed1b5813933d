"""Library calls off the event loop: a bounded worker pool with coalescing of identical requests.

Every library call of a request runs in `Jobs`' thread pool (`WORKERS` threads), never on the
event loop, so a level-3 search or a partition of a big game never stops the server from
answering other requests. At most `MAX_WAITING` calls wait for a worker; one more is refused
(`Busy`, HTTP 503) instead of queueing without bound. Identical requests that arrive while the
first one is still being computed share its result (one computation, every waiter gets the same
answer or the same error); a finished result is not kept here (the library's caches and the
cached solvers make the next identical request cheap).
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Hashable

from web.limits import MAX_WAITING, WORKERS


class Busy(Exception):
    """Too many calls are waiting for a worker."""


class Jobs:
    """A bounded thread pool with coalescing (see the module docstring)."""

    def __init__(self, workers: int = WORKERS, max_waiting: int = MAX_WAITING) -> None:
        self.workers = workers
        self.max_waiting = max_waiting
        self._executor: ThreadPoolExecutor | None = None
        self._inflight: dict[Hashable, asyncio.Future] = {}
        self._pending = 0
        self._lock = threading.Lock()
        self.computed = 0  # calls actually run (for tests and the stats endpoint)
        self.shared = 0  # requests answered by another request's computation

    @property
    def executor(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="termo-web")
        return self._executor

    def stats(self) -> dict:
        return {"workers": self.workers, "waiting": self._pending, "in_flight": len(self._inflight),
                "computed": self.computed, "shared": self.shared}

    async def run(self, key: Hashable | None, func: Callable[[], Any]) -> Any:
        """``func()`` in a worker; with ``key``, shared with an identical call still running."""
        if key is not None:
            running = self._inflight.get(key)
            if running is not None:
                self.shared += 1
                return await asyncio.shield(running)
        if self._pending >= self.max_waiting:
            raise Busy(f"the server is busy: {self._pending} requests are waiting for a worker; try again shortly")
        loop = asyncio.get_running_loop()
        self._pending += 1
        self.computed += 1
        future = loop.run_in_executor(self.executor, func)
        if key is not None:
            self._inflight[key] = future

        def finished(done: asyncio.Future) -> None:  # on the loop, even when every waiter left
            self._pending -= 1
            if key is not None and self._inflight.get(key) is done:
                del self._inflight[key]
            if not done.cancelled():
                done.exception()  # retrieved: no "exception was never retrieved" when nobody waits

        future.add_done_callback(finished)
        return await asyncio.shield(future)

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
