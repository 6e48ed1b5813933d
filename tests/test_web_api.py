"""The HTTP API and the board pages of `termo serve` (`web.app`), through FastAPI's test client.

The oracle of every endpoint is the CLI itself: the same arguments run in-process through
`cli.app.main` must print exactly the JSON the endpoint answers, and a refused value must give
the CLI's one-line message (``termo: error: <detail>``) as the 422 ``detail``. Then the limits
(body size, history length), the worker pool (identical requests share one computation, a slow
search does not block the event loop, a full queue is 503), `termo serve`'s options, and the
pages (one per game, in the game's language, nothing loaded from outside).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time

import warnings

import pytest

with warnings.catch_warnings():  # this starlette asks for the httpx2 fork; the test client works with httpx
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from cli.app import main
from web import service
from web.app import create_app
from web.jobs import Busy, Jobs
from web.limits import MAX_BODY, MAX_HISTORY


@pytest.fixture(autouse=True)
def _no_game_env(monkeypatch):
    monkeypatch.delenv("TERMO_GAME", raising=False)
    monkeypatch.delenv("TERMO_BACKEND", raising=False)


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def cli(capsys, args):
    """Run ``termo ARGS`` in-process: (exit code, stdout, stderr lines)."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if line]


def cli_json(capsys, args):
    code, out, err = cli(capsys, args + ["--json"])
    assert code == 0, err
    return json.loads(out), [line[len("warning: "):] for line in err if line.startswith("warning: ")]


def cli_error(capsys, args):
    code, out, err = cli(capsys, args)
    assert code == 2 and out == "" and len(err) == 1, (code, out, err)
    assert err[0].startswith("termo: error: ")
    return err[0][len("termo: error: "):]


def suggest_args(body: dict) -> list[str]:
    args = ["suggest", *body.get("history", []), "--game", body.get("game", "termo")]
    for key in ("level", "t", "beam", "depth", "opener", "list"):
        if key in body:
            args += [f"--{key}", str(body[key])]
    for flag in ("extended", "strict", "hard", "no_tree"):
        if body.get(flag):
            args.append(f"--{flag.replace('_', '-')}")
    return args


def in_api_terms(message: str) -> str:
    """The CLI's message as the API words it: an option is named by its field (``level``), not
    by its flag (``--level``)."""
    return re.sub(r"(?<![\w'-])--(level|t|beam|depth|list|opener)(?![\w-])", r"\1", message)


# the keys the API adds after the command's own: the board's languages (tests/test_messages.py)
ADDED = ("reason_messages", "warning_messages")


def cli_keys(data: dict) -> dict:
    """An answer without the added keys: the command's ``--json``."""
    return {key: value for key, value in data.items() if key not in ADDED}


def detail_of(response) -> dict:
    """An error body's CLI line (its code and renderings are tests/test_messages.py's)."""
    return {"detail": response.json()["detail"]}


def warnings_of(response) -> list[str]:
    header = response.headers.get("X-Termo-Warnings")
    return json.loads(header) if header else []


# ----------------------------------------------------------------------------- same JSON as the CLI

SUGGEST_CASES = [
    {"game": "termo", "history": [], "level": 1},
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 1, "list": 5},
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 2},
    {"game": "termo", "history": ["tarso:BBBBB", "filme:BBBYY"], "level": 2, "t": "inf"},
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 2, "hard": True, "list": 3},
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 2, "extended": True},
    {"game": "termo", "history": ["xyzzy:BBBBB"], "level": 1},  # a word outside the list: a warning
    {"game": "termo", "history": ["tarso:BBBBB"], "level": 3, "list": 10},  # filme, the transcript
    {"game": "wordle", "history": [], "level": 2},
    {"game": "wordle", "history": ["salet:BYBYB"], "level": 1},
    {"game": "wordle", "history": ["salet:BYBYB"], "level": 2, "t": 0.5},
    {"game": "nerdle-mini", "history": [], "level": 1},
    {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 2, "list": 4},
    {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 1, "strict": True},
    {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 3},  # a stored tree answers (source)
    {"game": "nerdle-mini", "history": ["4*7=28:YBBYBB"], "level": 3, "no_tree": True},
    {"game": "wordle", "history": ["salet:BYBYB"], "level": 3},
    {"game": "termo", "history": ["tarso:BBBBB", "filme:GGGGG"], "level": 2},  # solved
]


@pytest.mark.parametrize("body", SUGGEST_CASES, ids=lambda b: f"{b['game']}-{len(b['history'])}-l{b['level']}")
def test_suggest_equals_the_cli(client, capsys, body):
    expected, warned = cli_json(capsys, suggest_args(body))
    response = client.post("/api/suggest", json=body)
    assert response.status_code == 200, response.text
    assert cli_keys(response.json()) == expected
    assert list(cli_keys(response.json())) == list(expected)  # the same keys, in the same order
    assert warnings_of(response) == warned


def test_the_transcript_through_the_api(client):
    data = client.post("/api/suggest", json={"history": ["tarso:BBBBB"], "level": 3}).json()
    assert data["candidates"] == 223 and data["word"] == "filme"
    assert [a["word"] for a in data["alternatives"][:3]] == ["cline", "linde", "lince"]


def test_numbers_as_text_like_the_command_line(client):
    a = client.post("/api/suggest", json={"history": ["tarso:BBBBB"], "level": 2, "t": 1}).json()
    b = client.post("/api/suggest", json={"history": ["tarso:BBBBB"], "level": "2", "t": "1.0"}).json()
    assert a == b


def test_games_equals_the_cli(client, capsys):
    expected, _ = cli_json(capsys, ["games"])
    assert client.get("/api/games").json() == expected


@pytest.mark.parametrize("body", [
    {"guess": "tarso", "answer": "filme"},
    {"guess": "saude", "answer": "saúde"},
    {"guess": "salet", "answer": "crane", "game": "wordle"},
    {"guess": "4*7=28", "answer": "7*4=28", "game": "nerdle-mini"},
    {"guess": "4*7=28", "answer": "7*4=28", "game": "nerdle-mini", "strict": True},
])
def test_feedback_equals_the_cli(client, capsys, body):
    args = ["feedback", body["guess"], body["answer"], "--game", body.get("game", "termo")]
    if body.get("strict"):
        args.append("--strict")
    expected, _ = cli_json(capsys, args)
    response = client.post("/api/feedback", json=body)
    assert response.status_code == 200, response.text
    assert response.json() == expected


@pytest.mark.parametrize("body", [
    {"guess": "filme", "history": ["tarso:BBBBB"]},
    {"guess": "xyzzy", "history": ["tarso:BBBBB"], "t": "inf"},
    {"guess": "crane", "game": "wordle"},
])
def test_partition_equals_the_cli(client, capsys, body):
    args = ["partition", body["guess"], *body.get("history", []), "--game", body.get("game", "termo")]
    if "t" in body:
        args += ["--t", str(body["t"])]
    expected, warned = cli_json(capsys, args)
    response = client.post("/api/partition", json=body)
    assert response.status_code == 200, response.text
    assert cli_keys(response.json()) == expected
    assert warnings_of(response) == warned


@pytest.mark.parametrize("params", [
    {"game": "wordle", "level": "2"},
    {"game": "nerdle-mini", "level": "3"},
    {"game": "termo", "level": "2", "t": "inf"},
])
def test_opener_equals_the_cli(client, capsys, params):
    args = ["opener", "--game", params["game"], "--level", params["level"]]
    if "t" in params:
        args += ["--t", params["t"]]
    expected, _ = cli_json(capsys, args)
    response = client.get("/api/opener", params=params)
    assert response.status_code == 200, response.text
    assert cli_keys(response.json()) == expected


def test_candidates_after_a_history(client):
    data = client.post("/api/candidates", json={"history": ["tarso:BBBBB"], "list": 3}).json()
    suggestion = client.post("/api/suggest", json={"history": ["tarso:BBBBB"], "level": 1, "list": 3}).json()
    assert cli_keys(data) == {"candidates": 223, "won": False, "turn": 2, "remaining": suggestion["remaining"]}
    six = ["tarso:BBBBB", "filme:BBBBB", "nuvem:BBBBB", "pudim:BBBBB", "beijo:BBBBB", "chefe:BBBBB"]
    code = client.post("/api/candidates", json={"history": six[:2]}).status_code
    assert code == 200
    won = client.post("/api/candidates", json={"history": ["tarso:GGGGG"], "list": 2}).json()
    assert cli_keys(won) == {"candidates": 1, "won": True, "turn": 2, "remaining": ["tarso"]}


# ----------------------------------------------------------------------------- the CLI's errors

ERROR_CASES = [
    {"history": ["tarso:GGGGY"]},  # impossible colours
    {"history": ["tarso:BBBBB", "filme:GGGGB"]},  # no candidate left
    {"history": ["tarso"]},  # not guess:colours
    {"history": ["tars:BBBBB"]},  # too short
    {"history": ["ta1so:BBBBB"]},  # not letters
    {"history": ["tarso:BBQBB"]},  # bad colours
    {"history": ["tarso:GGGGG", "filme:BBBBB"]},  # after a win
    {"history": ["tarso:BBBBB"] * 7},  # more rounds than tries
    {"history": ["tarso:BBBYB", "filme:BBBBB"], "hard": True, "level": 1},  # drops a revealed letter
    {"history": ["tarso:BGBBB", "filme:BBBBB"], "hard": True, "level": 1},  # drops a green
    {"level": 4},
    {"level": "x"},
    {"t": 0},
    {"t": "hot"},
    {"beam": 101},
    {"beam": 0},
    {"depth": 6},
    {"opener": "best"},
    {"list": 0},
    {"game": "scrabble"},
    {"game": "nerdle-mini", "history": ["1+1=2:BBBBB"]},
    {"game": "nerdle-mini", "history": ["1+1=3a:BBBBBB"]},
]


@pytest.mark.parametrize("body", ERROR_CASES, ids=lambda b: json.dumps(b, ensure_ascii=True)[:60])
def test_refused_like_the_cli(client, capsys, body):
    message = in_api_terms(cli_error(capsys, suggest_args(body)))
    response = client.post("/api/suggest", json=body)
    assert response.status_code == 422
    assert response.json()["detail"] == message


@pytest.mark.parametrize("body", [
    {"guess": "tars", "answer": "filme"},
    {"guess": "tarso", "answer": "xy"},
    {"guess": "4*7=29", "answer": "7*4=28", "game": "nerdle-mini"},
    {"guess": "tarso", "answer": "filme", "game": "chess"},
])
def test_feedback_refused_like_the_cli(client, capsys, body):
    message = cli_error(capsys, ["feedback", body["guess"], body["answer"], "--game", body.get("game", "termo")])
    response = client.post("/api/feedback", json=body)
    assert response.status_code == 422
    assert detail_of(response) == {"detail": message}


@pytest.mark.parametrize("body", [
    {"guess": "filme", "history": ["tarso:GGGGG"]},
    {"guess": "fil", "history": []},
    {"guess": "filme", "t": "-1"},
])
def test_partition_refused_like_the_cli(client, capsys, body):
    args = ["partition", body["guess"], *body.get("history", [])]
    if "t" in body:
        args += ["--t", body["t"]]
    message = cli_error(capsys, args)
    response = client.post("/api/partition", json=body)
    assert response.status_code == 422
    assert detail_of(response) == {"detail": message}


def test_opener_refused_like_the_cli(client, capsys):
    message = in_api_terms(cli_error(capsys, ["opener", "--game", "wordle", "--beam", "500"]))
    assert message.startswith("beam must be at most ")
    response = client.get("/api/opener", params={"game": "wordle", "beam": "500"})
    assert response.status_code == 422 and response.json()["detail"] == message
    response = client.get("/api/opener", params={"extended": "maybe"})
    assert response.status_code == 422 and response.json()["detail"] == "extended must be true or false, not 'maybe'"


def test_echoed_input_is_escaped_like_the_cli(client, capsys):
    body = {"history": ["\x1b[31m" + "z" * 40 + "\u202e:BBBBB"]}
    message = cli_error(capsys, suggest_args(body))
    response = client.post("/api/suggest", json=body)
    assert detail_of(response) == {"detail": message}
    assert "\\x1b[31m" in message and "\\u202e" in message
    assert "\x1b" not in response.json()["detail"] and "\u202e" not in response.json()["detail"]


# ----------------------------------------------------------------------------- malformed bodies, limits

@pytest.mark.parametrize("body, detail", [
    (b"{bad", "the body is not valid JSON"),
    (b"[1, 2]", "the body must be a JSON object"),
    (b'{"levl": 2}', "unknown field 'levl'"),
    (b'{"level": [2]}', "level must be an integer, not a list"),
    (b'{"history": "tarso:BBBBB"}', "history must be a list of texts guess:colours, not a text"),
    (b'{"history": [5]}', "history item 1 must be a text (guess:colours), not a number"),
    (b'{"hard": "very"}', "hard must be true or false, not a text"),
])
def test_malformed_bodies_are_one_line(client, body, detail):
    response = client.post("/api/suggest", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422
    assert response.json()["detail"] == detail and response.json()["loc"][0] == "body"


def test_missing_field(client):
    response = client.post("/api/feedback", json={"guess": "tarso"})
    assert response.status_code == 422
    assert {k: response.json()[k] for k in ("detail", "loc")} == {"detail": "missing field 'answer'",
                                                                   "loc": ["body", "answer"]}
    assert response.json()["code"] == "request.field"  # its languages: tests/test_messages.py


def test_body_size_limit(client):
    big = {"history": ["tarso:BBBBB"], "game": "termo", "pad": "x" * MAX_BODY}
    response = client.post("/api/suggest", json=big)
    assert response.status_code == 413
    assert response.json()["detail"] == f"the request body is larger than {MAX_BODY:,} bytes"
    assert response.json()["code"] == "request.too_large"


def test_streamed_body_over_the_limit(client):
    def chunks():
        for _ in range(40):
            yield b" " * 1024

    response = client.post("/api/suggest", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413


def test_history_length_limit(client):
    response = client.post("/api/suggest", json={"history": ["tarso:BBBBB"] * (MAX_HISTORY + 1)})
    assert response.status_code == 422
    assert response.json()["detail"].startswith(f"history has {MAX_HISTORY + 1} items; at most {MAX_HISTORY}")
    response = client.post("/api/partition", json={"guess": "filme", "history": ["t" * 70 + ":BBBBB"]})
    assert response.status_code == 422
    assert response.json()["detail"] == "history item 1 is too long: 76 characters, at most 64"


def test_text_field_limit(client):
    response = client.post("/api/feedback", json={"guess": "a" * 100, "answer": "filme"})
    assert response.status_code == 422
    assert response.json()["detail"] == "guess is too long: 100 characters, at most 64"


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


# ----------------------------------------------------------------------------- termo serve

def test_serve_warns_off_loopback_and_checks_the_port(monkeypatch, capsys):
    import uvicorn

    ran = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: ran.append(sockets))
    code, _, err = cli(capsys, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert code == 0 and len(ran) == 1
    assert err[0].startswith("warning: listening on 0.0.0.0, not on loopback")
    code, _, err = cli(capsys, ["serve", "--port", "0"])
    assert code == 0 and not any(line.startswith("warning") for line in err)
    assert cli_error(capsys, ["serve", "--port", "-1"]) == "--port must be at least 0, not -1"
    assert cli_error(capsys, ["serve", "--port", "70000"]) == "--port must be at most 65,535, not 70,000"
    assert cli_error(capsys, ["serve", "--workers", "0"]) == "--workers must be at least 1, not 0"


def test_serve_reports_a_taken_port(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        message = cli_error(capsys, ["serve", "--port", str(port)])
    assert message.startswith(f"cannot listen on 127.0.0.1:{port}: ")


# ----------------------------------------------------------------------------- pages

PAGES = {
    "termo": ("pt", "Registrar rodada"),
    "nerdle": ("en", "Register round"),
    "nerdle-mini": ("en", "Register round"),
    "wordle": ("en", "Register round"),
    "wordle-ru": ("ru", "Записать ход"),
}
XMLNS = re.compile(r'xmlns(?::\w+)?="[^"]*"')  # an XML namespace names, it loads nothing
EXTERNAL = re.compile(r"""(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}|@import|url\(\s*['"]?(?:https?:|//)""", re.I)


@pytest.mark.parametrize("game", PAGES)
def test_a_page_per_game_in_its_language(client, game):
    language, register = PAGES[game]
    response = client.get(f"/{game}")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    html = response.text
    assert f'<html lang="{language}">' in html and register in html
    config = json.loads(re.search(r'<script type="application/json" id="board-config">(.*?)</script>', html, re.S)
                        .group(1))
    assert config["game"] == game and config["language"] == language
    for hook in ('id="board"', 'id="register"', 'id="undo"', 'id="new-game"', 'id="suggestion"',
                 'id="candidates-count"', 'id="candidates-list"', 'id="alternatives"', 'id="opt-level"',
                 'id="opt-hard"', 'id="game-switcher"', 'data-row="5"',
                 f'data-col="{config["length"] - 1}"'):
        assert hook in html, hook
    # the prior temperature only where the game has word frequencies (a uniform prior: T changes nothing)
    assert ('id="opt-t"' in html) == (not config["uniform_prior"]), game
    assert not EXTERNAL.search(html), EXTERNAL.search(html)
    policy = response.headers["Content-Security-Policy"]  # the browser refuses anything from outside
    assert "default-src 'self'" in policy and "script-src 'self'" in policy and "http" not in policy


def test_the_index_is_termo(client):
    assert client.get("/").text == client.get("/termo").text


def test_game_colours(client):
    termo, nerdle = client.get("/termo").text, client.get("/nerdle").text
    for colour in ("#3AA394", "#DDB56E", "#6E5C62"):  # the gold a shade lighter: 3.2:1 on the page
        assert colour in termo
    for colour in ("#398874", "#820458", "#161803"):
        assert colour in nerdle


def test_assets_are_served_and_local(client):
    html = client.get("/wordle").text
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert "/static/board.js" in assets and "/static/board.css" in assets
    for path in assets:
        assert path.startswith("/"), path
        if path.startswith("/static/"):
            response = client.get(path)
            assert response.status_code == 200, path
            text = XMLNS.sub("", response.text)
            assert not EXTERNAL.search(text), (path, EXTERNAL.search(text))


def test_unknown_page_is_404(client):
    response = client.get("/chess")
    assert response.status_code == 404 and "/termo" in response.text


def test_openapi_lists_the_endpoints(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/games", "/api/suggest", "/api/feedback", "/api/opener", "/api/partition"):
        assert path in paths


def test_static_assets_are_package_data():
    """Every file the pages load is shipped by a non-editable install (pyproject's package-data)."""
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text())
    assert "web" in config["tool"]["setuptools"]["packages"]
    patterns = config["tool"]["setuptools"]["package-data"]["web"]
    files = [p.relative_to(root / "web").as_posix() for p in (root / "web" / "static").rglob("*") if p.is_file()]
    assert files
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) and "/" not in name[len("static/"):] for pattern in patterns), name


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


def test_docs_page_is_served_offline(client):
    page = client.get("/docs")
    assert page.status_code == 200
    assert "/api/suggest" in page.text and "JSON body" in page.text
    assert "http://" not in page.text and "https://" not in page.text and "<script" not in page.text


# ----------------------------------------------------------------------------- the server's own edges

def test_a_deeply_nested_body_is_422(client):
    for body in (b"[" * 5000 + b"]" * 5000, b'{"history": ' + b"[" * 3000 + b"]" * 3000 + b"}"):
        response = client.post("/api/suggest", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 422, response.text
        assert response.headers["content-type"] == "application/json"
        assert isinstance(response.json()["detail"], str) and "\n" not in response.json()["detail"]


@pytest.mark.parametrize("value", [1, 0, "yes", "true", "on", "maybe", None, [True]])
def test_booleans_are_strict_json_booleans(client, value):
    for path, body in (("/api/suggest", {"level": 1}), ("/api/candidates", {}),
                       ("/api/feedback", {"guess": "tarso", "answer": "filme"})):
        key = "strict" if path == "/api/feedback" else "hard"
        response = client.post(path, json={**body, key: value})
        assert response.status_code == 422, (path, value, response.text)
        assert response.json()["detail"].startswith(f"{key} must be true or false, not ")


def test_opener_query_booleans_are_true_or_false(client):
    for value in ("1", "yes", "on", "maybe"):
        response = client.get("/api/opener", params={"game": "wordle", "level": "1", "hard": value})
        assert response.status_code == 422, (value, response.text)
        assert response.json()["detail"] == f"hard must be true or false, not {value!r}"
    assert client.get("/api/opener", params={"game": "wordle", "level": "1", "hard": "true"}).status_code == 200


def test_api_errors_name_the_fields_not_the_flags(client):
    cases = [({"level": 4}, "level must be 1, 2 or 3, not 4"),
             ({"beam": 101}, "beam must be at most 100 "),
             ({"list": 0}, "list must be at least 1, not 0"),
             ({"opener": "best"}, "opener must be 'default' or 'optimal', not 'best'"),
             ({"history": ["--level:BBBBB"]}, None)]  # echoed input is left as typed
    for body, detail in cases:
        response = client.post("/api/suggest", json=body)
        assert response.status_code == 422
        if detail is not None:
            assert response.json()["detail"].startswith(detail), response.json()
        else:
            assert "'--level" in response.json()["detail"]
    response = client.get("/api/opener", params={"level": "7"})
    assert response.status_code == 422 and response.json()["detail"] == "level must be 1, 2 or 3, not 7"


def test_validation_errors_say_where(client):
    response = client.post("/api/suggest", json={"hard": "very"})
    assert response.json()["loc"] == ["body", "hard"]


def test_head_is_answered_on_pages_and_gets(client):
    for path in ("/", "/wordle", "/docs", "/api/health", "/static/board.js", "/favicon.ico"):
        get, head = client.get(path), client.head(path)
        assert head.status_code == 200 == get.status_code, path
        assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"], path


def test_favicon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    assert response.content == client.get("/static/favicon.svg").content


def test_text_answers_are_compressed(client):
    for path in ("/wordle", "/static/board.js", "/api/games"):
        plain = client.get(path, headers={"Accept-Encoding": "identity"})
        packed = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert "content-encoding" not in plain.headers, path
        assert packed.headers.get("content-encoding") == "gzip", path
        assert packed.content == plain.content  # decoded by the client: the same bytes
        assert int(packed.headers["content-length"]) < len(plain.content) / 2, path
    small = client.post("/api/feedback", json={"guess": "tarso", "answer": "filme"}, headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers  # under ~1 KB: sent as is
    big = {"history": ["tarso:BBBBB"], "pad": "x" * MAX_BODY}  # the body limit still answers first
    response = client.post("/api/suggest", json=big, headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 413


SECURITY = {"x-content-type-options": "nosniff", "x-frame-options": "DENY"}


def test_security_headers_on_every_answer(client):
    answers = [client.get(p) for p in ("/", "/nerdle", "/nerdle/today", "/nerdle/archive", "/nerdle/stats",
                                        "/chess", "/no/such/page", "/static/board.js", "/static/nothing",
                                        "/api/games", "/api/health", "/docs", "/openapi.json", "/favicon.ico")]
    answers += [client.post("/api/suggest", json={"level": 9}), client.put("/api/suggest"),
                client.post("/api/suggest", content=b"x" * (MAX_BODY + 1))]
    for response in answers:
        where = (response.request.method, response.request.url.path, response.status_code)
        for name, value in SECURITY.items():
            assert response.headers.get(name) == value, where
        policy = response.headers.get("content-security-policy", "")
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy, where


def test_only_the_bound_host_names_are_served():
    app = create_app(allowed_hosts=["127.0.0.1", "localhost", "[::1]"])
    with TestClient(app, base_url="http://127.0.0.1") as local:
        assert local.get("/api/health").status_code == 200
        assert local.get("/api/health", headers={"Host": "localhost"}).status_code == 200
        assert local.get("/api/health", headers={"Host": "[::1]"}).status_code == 200
        for host in ("attacker.example", "127.0.0.1.attacker.example", "localhost.", ""):
            response = local.get("/wordle", headers={"Host": host})
            assert response.status_code == 400, host
            assert response.headers["content-type"] == "application/json"
            assert "not served" in response.json()["detail"]
            assert response.headers.get("x-frame-options") == "DENY"
    with TestClient(create_app()) as anything:  # no list: every name (the tests' "testserver")
        assert anything.get("/api/health").status_code == 200


def test_the_openapi_error_schema_is_the_real_body(client):
    spec = client.get("/openapi.json").json()
    ref = spec["paths"]["/api/suggest"]["post"]["responses"]["422"]["content"]["application/json"]["schema"]["$ref"]
    schema = spec["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert schema["properties"]["detail"]["type"] == "string" and schema["required"] == ["detail"]
    assert {"code", "params", "messages", "loc"} <= set(schema["properties"])
    assert "ValidationError" not in spec["components"]["schemas"]
    real = client.post("/api/suggest", json={"level": 9}).json()
    assert set(real) <= set(schema["properties"]) and isinstance(real["detail"], str)


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


def test_serve_calls_all_of_127_loopback(monkeypatch, capsys):
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    for host in ("127.0.0.2", "127.1.2.3", "localhost"):
        code, _, err = cli(capsys, ["serve", "--host", host, "--port", "0"])
        assert code == 0 and not any(line.startswith("warning") for line in err), (host, err)


def test_nerdle_purple_p_through_the_api(client):
    """The API parses colours with the game's own letters, as the CLI does: Nerdle's P is purple."""
    body = {"game": "nerdle-mini", "level": 2}
    purple = client.post("/api/suggest", json={**body, "history": ["4*7=28:PBBPBB"]})
    yellow = client.post("/api/suggest", json={**body, "history": ["4*7=28:YBBYBB"]})
    assert purple.status_code == yellow.status_code == 200
    assert purple.json() == yellow.json()
    refused = client.post("/api/suggest", json={**body, "history": ["4*7=28:VBBVBB"]})
    assert refused.status_code == 422 and "'v' is verde in Termo" in refused.json()["detail"]
