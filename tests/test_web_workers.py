"""The worker pool behind the API (`web.jobs.Jobs`) and the solver cache (`web.service.ADVISORS`):
identical requests share one computation, answers are kept (bounded), a full queue is 503, quick
questions do not queue behind long searches, long searches run in worker processes that restart,
a slow search does not block the event loop, and the answers under concurrency equal those one
at a time.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from web import service
from web.jobs import Busy, Jobs
from web_helpers import TestClient, _no_game_env, create_app  # noqa: F401 - the fixture


# ----------------------------------------------------------------------------- workers

def test_identical_requests_share_one_computation():
    jobs = Jobs(workers=2)
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.3)
        return len(calls)

    async def scenario():
        return await asyncio.gather(*(jobs.run("same", slow) for _ in range(5)), jobs.run("other", slow))

    results = asyncio.run(scenario())
    jobs.shutdown()
    assert len(calls) == 2 and results[:5] == [results[0]] * 5
    assert jobs.computed == 2 and jobs.shared == 4
    assert jobs.stats()["in_flight"] == 0 and jobs.stats()["waiting"] == 0
    again = asyncio.run(jobs.run("same", slow))  # a finished answer is kept: not computed again
    assert again == results[0] and len(calls) == 2 and jobs.remembered == 1


def test_kept_answers_are_bounded_and_user_errors_kept():
    jobs = Jobs(workers=1, max_results=2)
    calls = []

    def fail(text):
        calls.append(text)
        raise service.TermoError(text)

    def crash():
        calls.append("crash")
        raise RuntimeError("bug")

    async def scenario():
        out = []
        for key in ("a", "b", "a", "c", "a"):
            out.append(await jobs.run(key, lambda k=key: calls.append(k) or k.upper()))
        for _ in range(2):
            with pytest.raises(service.TermoError):
                await jobs.run("bad", lambda: fail("bad"))
            with pytest.raises(RuntimeError):
                await jobs.run("crash", crash)
        return out

    assert asyncio.run(scenario()) == ["A", "B", "A", "C", "A"]
    jobs.shutdown()
    # a, b computed; a kept; c pushes b out; a still kept; the user error is kept, the crash is not
    assert calls == ["a", "b", "c", "bad", "crash", "crash"]


def test_kept_answers_are_bounded_in_bytes_and_errors_kept_without_their_frames():
    """The answer cache's second bound (web.limits.MAX_RESULT_BYTES): the bytes of the answers'
    JSON; a refused request is kept as its error alone (its traceback held every frame's locals)."""
    jobs = Jobs(workers=1, max_results=1000, max_result_bytes=10_000)

    def fail():
        raise service.TermoError("refused")

    async def scenario():
        for i in range(100):
            await jobs.run(f"k{i}", lambda i=i: {"word": "x" * 500, "i": i})
        with pytest.raises(service.TermoError):
            await jobs.run("bad", fail)

    asyncio.run(scenario())
    jobs.shutdown()
    assert jobs.result_bytes <= 10_000 and 10 < jobs.stats()["results_kept"] < 30
    assert jobs.result_bytes == sum(entry[2] for entry in jobs._results.values())
    kept = jobs._results["bad"][1]
    # a copy of the error without its traceback: nothing it keeps reaches the failing frame's objects
    assert isinstance(kept, service.TermoError) and str(kept) == "refused"
    assert kept.__traceback__ is None and kept.__context__ is None and kept.__cause__ is None


def test_shared_errors_reach_every_waiter():
    jobs = Jobs(workers=1)

    def bad():
        time.sleep(0.1)
        raise service.TermoError("no")

    async def scenario():
        return await asyncio.gather(*(jobs.run("k", bad) for _ in range(3)), return_exceptions=True)

    results = asyncio.run(scenario())
    jobs.shutdown()
    assert [str(r) for r in results] == ["no"] * 3


def test_a_full_queue_is_refused():
    jobs = Jobs(workers=1, max_waiting=2)
    gate = threading.Event()

    async def scenario():
        first = asyncio.ensure_future(jobs.run(1, gate.wait))
        second = asyncio.ensure_future(jobs.run(2, gate.wait))
        await asyncio.sleep(0.05)
        with pytest.raises(Busy):
            await jobs.run(3, gate.wait)
        gate.set()
        await asyncio.gather(first, second)

    asyncio.run(scenario())
    jobs.shutdown()


def test_quick_questions_do_not_queue_behind_long_searches():
    jobs = Jobs(workers=2, processes=False)
    gate = threading.Event()

    async def scenario():
        long = [asyncio.ensure_future(jobs.run(i, gate.wait, lane="long")) for i in range(4)]
        await asyncio.sleep(0.05)
        quick = await asyncio.wait_for(jobs.run("q", lambda: "answered", lane="short"), 5)
        waiting = jobs.stats()["waiting"]
        gate.set()
        await asyncio.gather(*long)
        return quick, waiting

    quick, waiting = asyncio.run(scenario())
    jobs.shutdown()
    assert quick == "answered" and waiting == 4  # the four long ones still queued or running


def test_long_searches_run_in_worker_processes_that_restart():
    import functools
    import os

    jobs = Jobs(workers=1)

    async def scenario():
        pid = await jobs.run("pid", os.getpid, lane="long")
        with pytest.raises(service.TermoError, match="unknown game"):
            await jobs.run("bad", functools.partial(service.load_game, "chess"), lane="long")
        from concurrent.futures.process import BrokenProcessPool

        with pytest.raises(BrokenProcessPool):  # the worker killed mid-search
            await jobs.run(None, functools.partial(os._exit, 1), lane="long")
        again = await jobs.run("pid again", os.getpid, lane="long")  # a fresh pool
        return pid, again

    pid, again = asyncio.run(scenario())
    jobs.shutdown()
    assert pid != os.getpid() and again not in (pid, os.getpid())


def test_a_slow_search_does_not_block_the_event_loop(monkeypatch):
    import httpx

    release = threading.Event()
    entered = threading.Event()
    real = service.suggest

    def slow_suggest(**kwargs):
        entered.set()
        release.wait(600)  # held until the test has its other answers (a safety bound only)
        return real(**kwargs)

    monkeypatch.setattr(service, "suggest", slow_suggest)
    app = create_app(Jobs(workers=2))

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            search = asyncio.ensure_future(http.post("/api/suggest", json={"history": ["tarso:BBBBB"], "level": 1}))
            assert await asyncio.get_running_loop().run_in_executor(None, entered.wait, 600)  # it is searching
            health = await http.get("/api/health")
            page = await http.post("/api/feedback", json={"guess": "tarso", "answer": "filme"})
            assert not search.done()  # still searching (held by the event) while the others were answered
            release.set()
            return health, page, await search

    health, page, search = asyncio.run(scenario())
    assert health.status_code == 200 and health.json()["jobs"]["in_flight"] == 1
    assert page.status_code == 200 and search.status_code == 200


def test_advisors_are_cached_per_configuration():
    cache = service.AdvisorCache(size=2, per_config=2)
    from termo.interface.requests import parse_config
    from termo.games import get_game

    termo = get_game("termo")
    level2 = parse_config("2", "1", "10", "1")
    with cache.use(termo, level2) as a:
        with cache.use(termo, parse_config("2", "1.0", "10", "1")) as b:  # busy: a second one
            assert b is not a
    with cache.use(termo, level2) as again:
        assert again is a  # free again: reused
    assert cache.advisors() == 2
    with cache.use(termo, parse_config("1", "1", "10", "1")):
        pass
    with cache.use(termo, parse_config("3", "1", "10", "1")):
        pass
    assert len(cache) == 2
    with cache.use(termo, level2) as c:
        assert c is not a  # evicted, built again


def test_a_full_pool_waits_for_its_first_advisor():
    cache = service.AdvisorCache(size=4, per_config=1)
    from termo.interface.requests import parse_config
    from termo.games import get_game

    termo, config = get_game("termo"), parse_config("1", "1", "10", "1")
    order = []

    def second():
        with cache.use(termo, config) as advisor:
            order.append(("second", advisor))

    with cache.use(termo, config) as first:
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.1)
        order.append(("first", first))
    thread.join(5)
    assert [name for name, _ in order] == ["first", "second"] and order[1][1] is first


# ----------------------------------------------------------------------------- slow: concurrency oracles

def _histories(n: int, seed: int = 1) -> list[dict]:
    import random

    from termo.core.feedback import colours
    from termo.games import get_game

    game = get_game("termo")
    rng = random.Random(seed)
    bodies = []
    while len(bodies) < n:
        answer, second = rng.choice(game.answers_norm), rng.choice(game.answers_norm)
        first, then = colours("tarso", answer), colours(second, answer)
        if "GGGGG" in (first, then):
            continue
        history = ["tarso:" + first] + (["%s:%s" % (second, then)] if rng.random() < 0.5 else [])
        bodies.append({"history": history, "level": rng.choice([1, 2, 2, 3]), "hard": rng.random() < 0.3,
                       "list": 20})
    return bodies


@pytest.mark.slow
def test_concurrent_answers_equal_one_at_a_time():
    """Many different questions at once (both lanes, several configurations, shared solvers)
    get exactly the answers they get one at a time."""
    import httpx

    bodies = _histories(60)

    def answers(workers: int, processes: bool):
        service.ADVISORS.clear()
        app = create_app(Jobs(workers=workers, max_results=0, processes=processes))

        async def scenario():
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=600) as http:
                if workers == 1:
                    return [await http.post("/api/suggest", json=b) for b in bodies]
                return await asyncio.gather(*(http.post("/api/suggest", json=b) for b in bodies))

        out = [(r.status_code, r.json()) for r in asyncio.run(scenario())]
        app.state.jobs.shutdown()
        return out

    alone = answers(1, False)
    assert sum(code == 200 for code, _ in alone) > 30  # the rest: hard-mode refusals (422), compared too
    assert answers(2, False) == alone
    assert answers(2, True) == alone


@pytest.mark.slow
@pytest.mark.timing
def test_a_real_long_search_leaves_the_event_loop_free():
    """A level-3 search over thousands of candidates (seconds of work) runs while quick requests
    are answered within a fraction of a second each."""
    import httpx

    import os

    jobs = Jobs(workers=1, max_results=0)
    app = create_app(jobs)

    async def scenario():
        await jobs.run(None, os.getpid, lane="long")  # the worker process started (as termo serve does)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=600) as http:
            search = asyncio.ensure_future(http.post("/api/suggest", json={"history": ["xyzzy:BBBBB"], "level": 3}))
            worst = 0.0
            while not search.done():
                started = time.monotonic()
                response = await http.get("/api/health")
                assert response.status_code == 200
                worst = max(worst, time.monotonic() - started)
                await asyncio.sleep(0.02)
            return (await search), worst

    search, worst = asyncio.run(scenario())
    app.state.jobs.shutdown()
    assert search.status_code == 200 and search.json()["candidates"] > 1000
    assert worst < 0.5, worst  # a search in a thread stalls the loop for up to ~0.7 s (the GIL)


class _LaneSpy(Jobs):
    def __init__(self):
        super().__init__(workers=2, processes=False)
        self.lanes = []

    async def run(self, key, func, lane="short"):
        self.lanes.append(lane)
        return await super().run(key, func, lane=lane)


def test_only_level_3_openers_take_the_long_lane():
    jobs = _LaneSpy()
    with TestClient(create_app(jobs)) as c:
        for params in ({"game": "wordle", "level": "1"}, {"game": "wordle", "level": "2"},
                       {"game": "wordle", "t": "nan"}, {"game": "wordle", "beam": "500"}, {"game": "chess"}):
            jobs.lanes.clear()
            c.get("/api/opener", params=params)
            assert "long" not in jobs.lanes, params
        jobs.lanes.clear()
        assert c.get("/api/opener", params={"game": "nerdle-mini", "level": "3"}).status_code == 200
        assert jobs.lanes[-1] == "long"
    jobs.shutdown()
