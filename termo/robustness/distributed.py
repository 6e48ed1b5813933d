"""Where chunks run: in this process, or on a Dask distributed cluster.

An executor takes a list of :class:`Task` (plain frozen data: world, column, openers, backend)
and yields ``(task, values)`` as chunks finish, in any order. The sweep writes each result to
its checkpoint as it arrives, so a crash loses at most the chunks in flight.

``DaskExecutor(address)`` connects a ``dask.distributed.Client`` to a running scheduler
(``tcp://host:8786``) and submits one future per chunk; workers import ``termo`` themselves,
build (or load from their disk cache) the pattern matrix, and keep one evaluator per column, so
chunks of a column that land on the same worker share its subtree caches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from termo.errors import TermoError
from termo.robustness.world import Column, World, evaluate_chunk


@dataclass(frozen=True)
class Task:
    world: World
    column: Column
    openers: tuple
    backend: str
    key: str


def run_task(task: Task) -> list[float]:
    """Evaluate one chunk (the function shipped to cluster workers)."""
    return evaluate_chunk(task.world, task.column, list(task.openers), task.backend)


class LocalExecutor:
    """Runs the chunks one after the other in this process."""

    name = "local"

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, list[float]]]:
        for task in tasks:
            yield task, run_task(task)

    def close(self) -> None:
        pass


class DaskExecutor:
    """Runs the chunks on a Dask cluster (``address`` of its scheduler, or a ``Client``)."""

    name = "dask"

    def __init__(self, address, max_in_flight: int | None = None):
        try:
            from dask.distributed import Client
        except ImportError:
            raise TermoError("--scheduler needs dask[distributed]: pip install 'termo[cluster]'") from None
        if hasattr(address, "submit"):
            self.client = address
            self._owned = False
        else:
            try:
                self.client = Client(address, timeout="20s")
            except (OSError, TimeoutError, ValueError) as err:
                raise TermoError(f"cannot reach the Dask scheduler at {address}: {err}") from None
            self._owned = True
        self.max_in_flight = max_in_flight

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, list[float]]]:
        from dask.distributed import as_completed

        tasks = list(tasks)
        if not tasks:
            return
        limit = self.max_in_flight or max(4, 4 * max(1, len(self.client.scheduler_info().get("workers", {}))))
        pending = iter(tasks)
        futures = {}

        def submit_next() -> bool:
            task = next(pending, None)
            if task is None:
                return False
            future = self.client.submit(run_task, task, pure=False, key=f"termo-robustness-{task.key}")
            futures[future] = task
            return True

        for _ in range(limit):
            if not submit_next():
                break
        queue = as_completed(list(futures))
        for future in queue:
            task = futures.pop(future)
            values = future.result()
            if submit_next():
                new = next(reversed(futures))
                queue.add(new)
            yield task, [float(v) for v in values]

    def close(self) -> None:
        if self._owned:
            self.client.close()


def make_executor(scheduler: str | None):
    return LocalExecutor() if not scheduler else DaskExecutor(scheduler)
