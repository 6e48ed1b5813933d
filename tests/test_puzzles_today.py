"""Nerdle puzzles (docs/puzzles.md): today's official answer against a loopback HTTP server, and
the CLI and the web routes. The archive, difficulty and statistics: tests/test_puzzles.py."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time

import pytest

from termo.core.errors import TermoError
from termo.puzzles import archive, difficulty, stats, today
from termo.puzzles.service import archive_puzzle

from puzzle_fixtures import D, PINNED, game, scale  # noqa: F401 (fixtures)


# ----------------------------------------------------------------------------- today, on loopback


DAY = D(2024, 3, 1)
NUMBER = (DAY - D(2022, 1, 20)).days + 1  # 772
GOOD = "12+35=47"


class _Server:
    """A loopback HTTP server (port 0) serving ``pages``: path -> (status, body)."""

    def __init__(self):
        self.pages: dict[str, tuple[int, str]] = {}
        self.hits = 0
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                owner.hits += 1
                if self.path == "/slow":
                    time.sleep(2)
                status, body = owner.pages.get(self.path, (404, "not found"))
                data = body if isinstance(body, bytes) else body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        class Quiet(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                # a client that gave up (the /slow page outlives its timeout) breaks the pipe of a
                # handler thread that ends after its test: socketserver would print that traceback
                # on the stderr of whichever test runs next (seen in CI: test_cli_archive)
                pass

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def server():
    s = _Server()
    yield s
    s.close()


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    return tmp_path / "nerdle-today"


def _ask(source, day=DAY, **kw):
    return today.todays_nerdle(day, source, today=D(2026, 12, 1), **kw)


def test_good_page_lines_and_json(server, store, scale):
    server.pages["/lines"] = (200, f"# official answers\n2024-02-29 {NUMBER - 1} 9*8-7=65\n{DAY} {NUMBER} {GOOD}\n")
    r = _ask(server.url + "/lines")
    assert (r["status"], r["equation"], r["number"], r["in_model"], r["from_store"]) == ("verified", GOOD, NUMBER, True, False)
    assert r["difficulty"] == scale.of(GOOD) and r["difficulty"]["candidates_after_opener"] >= 1
    assert (store / f"{DAY}.json").exists()
    server.pages["/json"] = (200, json.dumps({"answers": [{"date": str(DAY), "number": NUMBER, "answer": "12 + 35 = 47"}]}))
    r2 = _ask(server.url + "/json", day=DAY)
    assert r2["status"] == "verified" and r2["from_store"] is True  # stored by date and reused
    (store / f"{DAY}.json").unlink()
    r3 = _ask(server.url + "/json")
    assert (r3["status"], r3["equation"], r3["from_store"]) == ("verified", GOOD, False)


@pytest.mark.parametrize("body, reason", [
    (f"2024-02-29 {NUMBER} {GOOD}", "no answer dated 2024-03-01"),
    (f"{DAY} {NUMBER + 1} {GOOD}", f"puzzle number is {NUMBER + 1}, expected {NUMBER}"),
    (f"{DAY} {NUMBER} 1+35=36", "has 7 symbols, not 8"),
    (f"{DAY} {NUMBER} 12+35=48", "not a true equation"),
    (f"{DAY} {NUMBER} 12+3a=47", "not a true equation"),
    (f"{DAY} {NUMBER} 12+35=47\n{DAY} {NUMBER} 13+34=47", "different answers"),
    ("<html>nothing here</html>", "no dated answers"),
    ("{not json", "no dated answers"),
])
def test_malformed_pages_are_being_verified(server, store, body, reason):
    server.pages["/p"] = (200, body)
    r = _ask(server.url + "/p")
    assert r["status"] == "being verified" and r["equation"] is None and r["difficulty"] is None
    assert reason in r["reason"]
    assert not (store / f"{DAY}.json").exists()


def test_equation_outside_the_model(server, store):
    server.pages["/p"] = (200, f"{DAY} {NUMBER} 10*0+5=5")  # true, 8 symbols, but a lone 0 (rules §12.1)
    r = _ask(server.url + "/p")
    assert (r["status"], r["equation"], r["in_model"], r["difficulty"]) == ("verified", "10*0+5=5", False, None)
    assert "lone 0" in r["model_note"]


def test_missing_page_and_refused_connection(server, store):
    r = _ask(server.url + "/missing")
    assert r["status"] == "being verified" and "HTTP 404" in r["reason"]
    server.pages["/500"] = (500, "oops")
    assert "HTTP 500" in _ask(server.url + "/500")["reason"]
    with socket.socket() as sock:  # a port with nobody listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    r = _ask(f"http://127.0.0.1:{port}/x", timeout=2)
    assert r["status"] == "being verified" and "cannot be reached" in r["reason"]
    assert _ask(None)["status"] == "being verified"
    assert "cannot be read" in _ask(str(store / "no-such-file.txt"))["reason"]


def test_slow_huge_and_binary_sources(server, store):
    server.pages["/slow"] = (200, f"{DAY} {NUMBER} {GOOD}")
    r = _ask(server.url + "/slow", timeout=0.3)  # the page answers late: the source's own timeout says so
    assert r["status"] == "being verified" and "timed out" in r["reason"]
    server.pages["/huge"] = (200, f"{DAY} {NUMBER} {GOOD}\n" + "#" * (today.MAX_BYTES + 10))
    assert "larger than" in _ask(server.url + "/huge")["reason"]
    server.pages["/binary"] = (200, b"\xff\xfe\x00garbage")
    assert "not UTF-8" in _ask(server.url + "/binary")["reason"]


def test_any_text_is_refused_or_validated(game):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    line = st.builds(lambda d, n, e: f"{d} {n} {e}", st.sampled_from([str(DAY), "2024-02-30", "x"]),
                     st.sampled_from([str(NUMBER), "#772", "-1", "seven"]), st.text("0123456789+-*/=x ", max_size=12))

    @hypothesis.settings(max_examples=50, deadline=None, database=None)
    @hypothesis.given(st.one_of(st.text(max_size=200), st.lists(line, max_size=4).map("\n".join)))
    def check(text):
        answer, why = today.validate(today.parse_source(text), DAY, game)
        assert (answer is None) != (why is None)
        if answer is not None:
            assert len(answer["equation"]) == 8 and answer["number"] == NUMBER
            assert today.equations.equation_error(answer["equation"], today.ARITHMETIC) is None
            assert answer["in_model"] == (answer["equation"] in game.answers)

    check()


def test_unverified_is_retried_then_stored(server, store):
    url = server.url + "/p"
    assert _ask(url)["attempts"] == 1  # 404 first
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    hits = server.hits
    held = _ask(url, retry_seconds=3600)  # within the retry window: the source is not asked again
    assert held["status"] == "being verified" and server.hits == hits
    r = _ask(url)  # retried (the CLI: every call)
    assert r["status"] == "verified" and server.hits == hits + 1
    assert not (store / f"{DAY}.pending.json").exists()
    server.pages.clear()
    assert _ask(url)["from_store"] is True and server.hits == hits + 1  # reused, not fetched


def test_damaged_store_is_dropped(server, store, tmp_path, capsys):
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    _ask(server.url + "/p")
    record = store / f"{DAY}.json"
    data = json.loads(record.read_text())
    data["equation"] = "13+34=47"  # an edit the seal catches
    record.write_text(json.dumps(data))
    capsys.readouterr()
    r = _ask(server.url + "/p")
    assert (r["equation"], r["from_store"]) == (GOOD, False)
    err = capsys.readouterr().err  # said once, naming the record and why
    assert len(err.splitlines()) == 1 and str(record) in err and "checksum" in err


def test_local_file_source(tmp_path, store):
    f = tmp_path / "answers.txt"
    f.write_text(f"{DAY} {NUMBER} {GOOD}\n")
    assert _ask(str(f))["status"] == "verified"


def test_today_dates_refused():
    with pytest.raises(TermoError, match="Nerdle #1"):
        today.todays_nerdle(D(2022, 1, 19), "x", today=D(2026, 12, 1))
    with pytest.raises(TermoError, match="after today"):
        today.todays_nerdle(D(2026, 12, 2), "x", today=D(2026, 12, 1))
    assert today.expected_number(today.LAUNCH) == 1


# ----------------------------------------------------------------------------- CLI


def _cli(capsys, *args):
    from cli.app import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command, metavars", [
    (["archive"], ["DATE", "--json"]),
    (["today"], ["--today-source URL|FILE", "--date D", "TERMO_TODAY_SOURCE"]),
    (["stats"], ["--month YYYY-MM"]),
])
def test_cli_help(capsys, command, metavars):
    import re

    code, out, err = _cli(capsys, "nerdle", *command, "--help")
    assert code == 0, err
    assert "<bool>" not in out and "[[" not in out
    rows = " ".join(re.sub(r"[│╭╰─╮╯*]", " ", out).split())
    for metavar in metavars:
        assert metavar in rows, (metavar, out)


def test_cli_archive(capsys):
    code, out, _ = _cli(capsys, "nerdle", "archive", "2000-01-01", "--json")
    data = json.loads(out)
    assert code == 0 and data == json.loads(json.dumps(archive_puzzle("2000-01-01")))
    assert data["equation"] == PINNED["2000-01-01"] and data["difficulty_source"]
    code, out, _ = _cli(capsys, "nerdle", "archive", "2026-12-01")
    assert code == 0 and "4+4*9=40" in out and "not the official record" in out
    for bad, msg in (("1999-12-31", "starts on 2000-01-01"), ("2001-02-29", "bad date")):
        code, out, err = _cli(capsys, "nerdle", "archive", bad)
        assert code == 2 and out == "" and msg in err and len(err.strip().splitlines()) == 1


def test_cli_today(capsys, server, store):
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    code, out, _ = _cli(capsys, "nerdle", "today", "--today-source", server.url + "/p", "--date", str(DAY), "--json")
    assert code == 0 and json.loads(out)["equation"] == GOOD
    code, out, _ = _cli(capsys, "nerdle", "today", "--today-source", server.url + "/none", "--date", "2024-03-02")
    assert code == 3 and "being verified" in out
    code, out, err = _cli(capsys, "nerdle", "today", "--date", "2022-01-01")
    assert code == 2 and "Nerdle #1" in err


def _full_disk(*args, **kwargs):
    import errno

    raise OSError(errno.ENOSPC, "No space left on device")


def _read_only(*args, **kwargs):
    import errno

    raise OSError(errno.EROFS, "Read-only file system")


@pytest.mark.parametrize("how", ["full", "read-only", "blocked"])
def test_cli_today_prints_the_answer_a_failed_store_write_loses(capsys, server, store, monkeypatch, how):
    """A verified answer is shown even when the store cannot keep it (a full disk, a read-only
    one, a file where the folder should be); stderr says it was not stored, where and why."""
    import termo.core.cache

    if how == "blocked":
        store.parent.mkdir(parents=True, exist_ok=True)
        store.write_text("a file in the way")
    else:
        monkeypatch.setattr(termo.core.cache, "atomic_write_bytes", _full_disk if how == "full" else _read_only)
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    code, out, err = _cli(capsys, "nerdle", "today", "--today-source", server.url + "/p", "--date", str(DAY))
    assert code == 0 and f"Nerdle #{NUMBER} ({DAY}): {GOOD}" in out
    assert "not stored" in err and str(store) in err and "the output" not in err
    assert {"full": "disk is full", "read-only": "read-only", "blocked": "not a folder"}[how] in err
    code, out, err = _cli(capsys, "nerdle", "today", "--today-source", server.url + "/p", "--date", str(DAY), "--json")
    data = json.loads(out)
    assert code == 0 and (data["status"], data["equation"], data["stored"]) == ("verified", GOOD, False)


def test_cli_stats(capsys):
    code, out, _ = _cli(capsys, "nerdle", "stats", "--month", "2024-02", "--json")
    data = json.loads(out)
    assert code == 0 and data["this_month"]["puzzles"] == 29 and data["last_month"]["puzzles"] == 31
    code, _, err = _cli(capsys, "nerdle", "stats", "--month", "2024-13")
    assert code == 2 and "bad month" in err


# ----------------------------------------------------------------------------- web routes


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("fastapi", reason="fastapi is not installed (pip install -e '.[test]')")
    pytest.importorskip("httpx", reason="httpx (the test client's transport) is not installed")
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from web.routes.puzzles import router

    app = FastAPI()
    app.include_router(router)
    return TestClient(app)


def test_routes_archive(client):
    r = client.get("/api/nerdle/archive/2000-01-01")
    assert r.status_code == 200 and r.json() == json.loads(json.dumps(archive_puzzle("2000-01-01")))
    r = client.get("/api/nerdle/archive/1999-12-31")
    assert r.status_code == 422 and "starts on 2000-01-01" in r.json()["detail"]
    page = client.get("/nerdle/archive", params={"date": "2026-12-01"})
    assert page.status_code == 200 and "4+4*9=40" in page.text and "not the official record" in page.text
    assert "<script" not in page.text and "http" not in page.text.split("</head>")[0]
    bad = client.get("/nerdle/archive", params={"date": "<b>x"})
    assert bad.status_code == 422 and "&lt;b&gt;x" in bad.text and "not the official record" in bad.text


def test_routes_today(client, server, store, monkeypatch):
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    monkeypatch.setenv("TERMO_TODAY_SOURCE", server.url + "/p")
    r = client.get("/api/nerdle/today", params={"date": str(DAY)})
    assert r.status_code == 200 and r.json()["equation"] == GOOD
    assert GOOD in client.get("/nerdle/today", params={"date": str(DAY)}).text
    monkeypatch.setenv("TERMO_TODAY_SOURCE", server.url + "/down")
    r = client.get("/api/nerdle/today")  # today (UTC) is not on the page
    assert r.status_code == 200 and r.json()["status"] == "being verified"
    assert "being verified" in client.get("/nerdle/today").text
    assert client.get("/api/nerdle/today", params={"date": "2021-01-01"}).status_code == 422


def test_routes_stats(client):
    r = client.get("/api/nerdle/stats", params={"month": "2024-02"})
    assert r.status_code == 200 and r.json()["this_month"]["puzzles"] == 29
    assert client.get("/api/nerdle/stats", params={"month": "nope"}).status_code == 422
    page = client.get("/nerdle/stats", params={"month": "2024-02"})
    assert page.status_code == 200 and "2024-02" in page.text and "not the official record" in page.text


def test_routes_in_the_web_app(client):
    """The server's own app includes the router (when the web app exists)."""
    from fastapi.testclient import TestClient

    try:
        from web.app import create_app
    except ImportError as err:
        pytest.skip(f"the web app is not importable here: {err}")
    app_client = TestClient(create_app())
    r = app_client.get("/api/nerdle/archive/2026-12-01")
    assert r.status_code == 200 and r.json()["equation"] == PINNED["2026-12-01"]
    assert app_client.get("/nerdle/stats").status_code == 200
    assert app_client.get("/api/nerdle/archive/2000-02-30").json()["detail"].startswith("bad date")
