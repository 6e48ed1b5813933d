"""What `termo serve` prepares at start, before it says it is ready: every game warm.

A first question used to pay for everything at once: numba compiling the search kernels (a
minute or more after a fresh install, once per game whose matrices have another code type),
a game's pattern matrices being built (Nerdle's take tens of seconds and about 1 GB of cache),
a worker process loading all of it again. The server now does that work in the background as
soon as it starts, game after game (`GAMES`), and says how far it got:

* in this process (the threads that answer level 1-2 questions, candidates, feedback): the
  kernels are loaded (`backends.load_kernels`, which compiles them on a cold kernel cache),
  then for each game its matrices and the common kernel paths on it
  (`termo.interface.warm_up.warm_up_kernels`) and the default level-2 answer path (an opener request);
* then in each worker process of the ``long`` lane (level-3 searches, openers, partitions):
  the same per game, reported back through a queue as each game is done (the compiled kernels
  and the cached matrices are on disk by then: the workers only load them).

`Warmup.state` is what ``GET /api/health`` adds: ``ready`` (every step done) and ``warming``
(the games still being prepared, in order). Requests are answered all along, the same answers
(the warm-up only fills caches that a request would fill itself); a request for a game still
warming just waits for what it needs. A step that fails (a full disk, say) is reported on stderr
and skipped: its game is then prepared by its first request, as before.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from typing import Callable, Iterable, Sequence

from termo.games import GAME_NAMES

GAMES: tuple[str, ...] = tuple(GAME_NAMES)  # every game the board serves, warmed in this order


def load_kernels() -> None:
    """Import the library's kernel users (their warm-ups register) and load numba's kernels
    (`backends.load_kernels`: compiled on a cold kernel cache, loaded otherwise)."""
    import termo.interface.warm_up  # noqa: F401 - registers the kernel warm-ups
    from termo.interface.suggest import import_solvers

    import_solvers()
    from backends import load_kernels as load

    load()


def warm_game(name: str, level: str = "2") -> None:
    """One game in this process: its matrices and the common kernel paths on it
    (`termo.interface.warm_up.warm_up_kernels`; an honest game's only), then the advisor of the default configuration at
    ``level`` (the opener request the board makes first), kept in `web.service.ADVISORS`."""
    from termo.interface.warm_up import warm_up_kernels
    from web import service

    game = service.load_game(name)
    if game.feedback.honest:  # the adversary's and the lying rows' solvers run kernels of their own
        warm_up_kernels(game)
    service.suggest(game=name, level=level)


def _say(text: str) -> None:
    try:
        os.write(2, (text + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


def warm_worker(queue, games: Sequence[str] = GAMES) -> None:
    """In a ``long``-lane worker process as it starts (`web.jobs.Jobs` ``worker_warm``): the
    kernels, then each game at level 3, ``queue.put((pid, game))`` as each is done
    (``(pid, None)`` at the end). Never raises: a worker whose warm-up failed still serves."""
    pid = os.getpid()
    try:
        load_kernels()
    except Exception:  # noqa: BLE001 - the NumPy paths still answer
        pass
    for name in games:
        try:
            warm_game(name, level="3")
        except Exception as err:  # noqa: BLE001 - reported; the game's first request prepares it
            _say(f"termo: warning: a search worker could not prepare {name}: {err}")
        queue.put((pid, name))
    queue.put((pid, None))


class Warmup:
    """The background warm-up of one server (see the module doc).

    ``steps``: ``(game, callable)`` pairs run in order in this process (default: the kernels,
    then `warm_game` for each of ``games``); a game leaves ``warming`` when its last step here
    is done and, where the server runs worker processes, when each of them has reported it
    (``worker_warm(queue, games)`` runs in each as it starts; default `warm_worker`; None: the
    workers are not awaited). ``on_ready(seconds)`` is called once, when every game is warm."""

    def __init__(self, games: Iterable[str] = GAMES, steps: Sequence[tuple[str, Callable[[], None]]] | None = None,
                 on_ready: Callable[[float], None] | None = None, worker_warm: Callable | None = warm_worker) -> None:
        self.games = list(games)
        if steps is None:
            steps = ([(self.games[0], load_kernels)] if self.games else []) + [
                (name, functools.partial(warm_game, name)) for name in self.games]
        self.steps = list(steps)
        self.on_ready = on_ready
        self.worker_warm = worker_warm
        self._lock = threading.Lock()
        self._local_pending = {name for name, _ in self.steps} | set(self.games)
        self._worker_done: dict[str, set] = {name: set() for name in self.games}
        self.workers = 0  # worker processes whose reports are awaited (set by `start`)
        self._started_at: float | None = None
        self.seconds: float | None = None  # from start to ready
        self.failures: list[str] = []
        self.ready_event = threading.Event()

    # ------------------------------------------------------------------ what health reports
    def warming(self) -> list[str]:
        """The games not warm yet, in warm-up order."""
        with self._lock:
            return [name for name in self.games
                    if name in self._local_pending or len(self._worker_done[name]) < self.workers]

    @property
    def ready(self) -> bool:
        return self.ready_event.is_set()

    def state(self) -> dict:
        """``{"ready": bool, "warming": [games], "warm_seconds": seconds or None}``."""
        ready = self.ready
        return {"ready": ready, "warming": [] if ready else self.warming(),
                "warm_seconds": None if self.seconds is None else round(self.seconds, 2)}

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until ready (at most ``timeout`` seconds); whether it is."""
        return self.ready_event.wait(timeout)

    # ------------------------------------------------------------------ running it
    def start(self, jobs=None) -> None:
        """Run the warm-up in a background thread. With ``jobs`` (`web.jobs.Jobs`) that runs
        worker processes, they are told to warm up as they start (``Jobs.worker_warm``), are
        started once this process is warm (the kernels compiled and the matrices built: they
        only load them) and are awaited too."""
        self._started_at = time.perf_counter()
        queue = None
        if jobs is not None and getattr(jobs, "processes", False) and self.worker_warm is not None:
            import multiprocessing

            # a one-way pipe, not a Queue: no semaphores left to the resource tracker at exit
            # (each report is one small write, atomic however many workers share the pipe)
            queue, sender = multiprocessing.get_context("spawn").Pipe(duplex=False)
            jobs.worker_warm = functools.partial(self.worker_warm, _Reports(sender), tuple(self.games))
            self.workers = jobs.workers
        threading.Thread(target=self._run, args=(jobs, queue), name="termo-warm-up", daemon=True).start()

    def _run(self, jobs, queue) -> None:
        last = {name: i for i, (name, _) in enumerate(self.steps)}
        for i, (name, step) in enumerate(self.steps):
            try:
                step()
            except Exception as err:  # noqa: BLE001 - the game's first request prepares it instead
                self.failures.append(f"{name}: {err}")
                _say(f"termo: warning: could not prepare {name} at start ({err}); its first request will")
            if last[name] == i:
                with self._lock:
                    self._local_pending.discard(name)
        with self._lock:
            self._local_pending.clear()
        if jobs is not None:
            try:
                jobs.warm(kernels=False)  # the worker processes, now that kernels and matrices are on disk
            except Exception as err:  # noqa: BLE001 - the workers start with the first long search
                _say(f"termo: warning: could not start the search workers ({err})")
                self.workers = 0
        if self.workers:
            self._await_workers(jobs, queue)
        self.seconds = time.perf_counter() - self._started_at
        if self.on_ready is not None:  # before health says ready: the line comes first
            try:
                self.on_ready(self.seconds)
            except Exception:  # noqa: BLE001 - a report that fails changes nothing served
                pass
        self.ready_event.set()

    def _await_workers(self, jobs, queue) -> None:
        """Count the workers' reports until each worker has finished; stop waiting if the pool
        broke (a worker killed: its replacement warms itself up, unawaited)."""
        finished: set = set()
        while len(finished) < self.workers:
            if not queue.poll(1.0):
                pool = jobs._executors.get("long")
                if pool is None or getattr(pool, "_broken", False):
                    with self._lock:
                        self.workers = 0
                    return
                continue
            pid, name = queue.recv()
            with self._lock:
                if name is None:
                    finished.add(pid)
                elif name in self._worker_done:
                    self._worker_done[name].add(pid)
        threading.Thread(target=_drain, args=(queue,), name="termo-warm-up-reports", daemon=True).start()


class _Reports:
    """The workers' end of the report pipe: ``put((pid, game))``."""

    def __init__(self, connection) -> None:
        self.connection = connection

    def put(self, item) -> None:
        self.connection.send(item)


def _drain(queue) -> None:
    """Read the reports of worker processes started later (a pool restarted after a crash)."""
    while True:
        try:
            queue.recv()
        except (EOFError, OSError):
            return


def say_ready(games: Sequence[str] = GAMES) -> Callable[[float], None]:
    """The ``on_ready`` of `termo serve`: one stderr line with the time it took."""

    def report(seconds: float) -> None:
        _say(f"termo: ready, every game warm ({', '.join(games)}) {seconds:.1f} s after start")

    return report


__all__ = ["GAMES", "Warmup", "load_kernels", "say_ready", "warm_game", "warm_worker"]
