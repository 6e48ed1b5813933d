"""`termo serve`'s warm-up (`web.warmup`): ``/api/health`` says which games are still warming and
when every game is ready; requests are answered meanwhile, with the same answers.

The warm-ups here are small or gated by events (the real one compiles kernels and builds every
game's matrices); waits are bounded only as a safety net that a healthy run never approaches.
"""

from __future__ import annotations

import threading
import time
import warnings

import pytest

with warnings.catch_warnings():  # this starlette asks for the httpx2 fork; the test client works with httpx
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from termo.games import GAME_NAMES
from web import service, warmup
from web.app import create_app
from web.jobs import Jobs


def cli_keys(data: dict) -> dict:
    """An answer without the keys the API adds for the board's languages: the command's ``--json``."""
    return {key: value for key, value in data.items() if key not in ("reason_messages", "warning_messages")}

SAFETY = 120  # seconds: a healthy run is far below this


def poll(client, predicate, timeout: float = SAFETY) -> dict:
    """``GET /api/health`` until ``predicate(body)``; the body (fails after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        body = client.get("/api/health").json()
        if predicate(body):
            return body
        if time.monotonic() > deadline:  # a safety net: the gated steps answer at once
            pytest.fail(f"health never reached the state: {body}")
        time.sleep(0.01)


def gated_warmup(games=("termo", "nerdle")):
    """A warm-up whose step for each game waits for that game's event."""
    gates = {name: threading.Event() for name in games}
    started = {name: threading.Event() for name in games}

    def step(name):
        started[name].set()
        assert gates[name].wait(SAFETY)

    steps = [(name, (lambda name=name: step(name))) for name in games]
    return warmup.Warmup(games=games, steps=steps, worker_warm=None), gates, started


def test_health_reports_warming_then_ready():
    warm, gates, started = gated_warmup()
    with TestClient(create_app(Jobs(processes=False), warmup=warm)) as client:
        assert started["termo"].wait(SAFETY)
        body = client.get("/api/health").json()
        assert body["ok"] is True and "jobs" in body and "advisors" in body  # the keys it always had
        assert body["ready"] is False and body["warming"] == ["termo", "nerdle"]
        assert body["warm_seconds"] is None
        gates["termo"].set()
        assert started["nerdle"].wait(SAFETY)
        assert poll(client, lambda b: b["warming"] == ["nerdle"])["ready"] is False
        gates["nerdle"].set()
        body = poll(client, lambda b: b["ready"])
        assert body["warming"] == [] and body["warm_seconds"] >= 0


def test_without_a_warm_up_health_is_ready_at_once():
    with TestClient(create_app(Jobs(processes=False))) as client:
        body = client.get("/api/health").json()
        assert body["ready"] is True and body["warming"] == []


def test_a_request_during_warming_gets_the_same_answer():
    warm, gates, started = gated_warmup(("termo",))
    body = {"game": "termo", "history": ["tarso:BBBBB", "filme:BBBYY"], "level": 2}
    expected, _ = service.suggest(**body)
    with TestClient(create_app(Jobs(processes=False), warmup=warm)) as client:
        assert started["termo"].wait(SAFETY)
        during = client.post("/api/suggest", json=body)
        assert client.get("/api/health").json()["warming"] == ["termo"]  # still warming when answered
        gates["termo"].set()
        poll(client, lambda b: b["ready"])
        after = client.post("/api/suggest", json=dict(body, t=1))  # not the kept answer: computed again
    assert during.status_code == 200 and after.status_code == 200
    assert cli_keys(during.json()) == expected == cli_keys(after.json())


def test_a_request_while_the_real_warm_up_runs(monkeypatch):
    """The real per-game step (kernels, matrices, the level-2 advisor) running while a request of
    the same game is answered: the answer is the one computed without any warm-up."""
    body = {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 2, "list": 4}
    expected, _ = service.suggest(**body)
    service.ADVISORS.clear()
    running = threading.Event()

    def step():
        running.set()
        warmup.warm_game("nerdle-mini")

    warm = warmup.Warmup(games=["nerdle-mini"], steps=[("nerdle-mini", step)], worker_warm=None)
    with TestClient(create_app(Jobs(processes=False), warmup=warm)) as client:
        assert running.wait(SAFETY)
        during = client.post("/api/suggest", json=body)
        poll(client, lambda b: b["ready"])
    assert during.status_code == 200 and cli_keys(during.json()) == expected
    assert service.ADVISORS.advisors() >= 1


def test_a_failed_step_is_reported_and_skipped(capfd):
    def broken():
        raise OSError("no space left on device")

    warm = warmup.Warmup(games=["termo", "wordle"], steps=[("termo", broken), ("wordle", lambda: None)],
                         worker_warm=None)
    warm.start()
    assert warm.wait(SAFETY)
    assert warm.state()["ready"] is True and warm.failures == ["termo: no space left on device"]
    assert "could not prepare termo at start (no space left on device)" in capfd.readouterr().err


def test_the_ready_line_says_the_time(capfd):
    warm = warmup.Warmup(games=["termo"], steps=[("termo", lambda: None)], worker_warm=None,
                         on_ready=warmup.say_ready(["termo"]))
    warm.start()
    assert warm.wait(SAFETY)
    err = capfd.readouterr().err
    assert err.startswith("termo: ready, every game warm (termo) ") and err.rstrip().endswith("s after start")


def test_termo_serve_warms_every_game():
    app = create_app(Jobs(processes=False), warm=True)  # what termo serve builds (not started here)
    assert app.state.warmup.games == list(GAME_NAMES)
    assert [name for name, _ in app.state.warmup.steps][1:] == list(GAME_NAMES)  # after the kernels
    assert app.state.warmup.on_ready is not None


@pytest.mark.slow
def test_the_worker_processes_warm_up_and_are_awaited():
    """A real worker process runs `warm_worker` as it starts; the server is ready only once it
    has reported the game, and a level-3 answer from it equals the in-process one."""
    import asyncio

    jobs = Jobs(workers=1)
    warm = warmup.Warmup(games=["nerdle-mini"], steps=[])
    try:
        warm.start(jobs)
        assert warm.workers == 1
        assert warm.wait(600)
        assert len(warm._worker_done["nerdle-mini"]) == 1 and warm.warming() == []
        fields = {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": "3", "no_tree": True}
        import functools

        answer = asyncio.run(jobs.run(None, functools.partial(service.suggest, **fields), lane="long"))
        assert answer == service.suggest(**fields)
    finally:
        jobs.shutdown()


def test_serve_warm_option_names_the_games():
    """``termo serve --warm``: all (the default), none, or a list in the board's order; anything else
    is one line and exit 2."""
    import pytest
    import typer

    from cli import serve_commands
    from web.warmup import GAMES

    assert serve_commands._warm_games("all") == GAMES
    assert serve_commands._warm_games("none") == ()
    assert serve_commands._warm_games("wordle, termo") == ("termo", "wordle")
    for bad in ("", "chess", "termo,chess"):
        with pytest.raises(typer.Exit) as err:
            serve_commands._warm_games(bad)
        assert err.value.exit_code == 2


def test_serve_warms_the_games_named():
    """``--warm GAME,...``: only those games are prepared, and the ready line names them."""
    app = create_app(Jobs(processes=False), warm=("termo", "wordle"))
    assert app.state.warmup.games == ["termo", "wordle"]
    assert create_app(Jobs(processes=False), warm=()).state.warmup is None
