"""The board pages and the HTTP server's edges: one page per game in its language, nothing loaded
from outside, the API description, HEAD, compression, the security headers, the host names
answered, and `termo serve`'s options.
"""

from __future__ import annotations

import os
import json
import re

import pytest

from web.limits import MAX_BODY
from web_helpers import TestClient, _no_game_env, cli, cli_error, client, create_app  # noqa: F401 - fixtures


# ----------------------------------------------------------------------------- termo serve

def serve_in_this_process(monkeypatch) -> None:
    """`termo serve` ends by replacing its process with the web program (``os.execve``); here the
    program runs in this process instead, so that a test can stand in for uvicorn's loop."""
    import cli.serve_commands
    import web.__main__

    def run_web_program(executable, argv, environment):
        monkeypatch.setattr(os, "environ", dict(environment))
        web.__main__.main(argv[3:])  # [python, -c, program, *options]

    monkeypatch.setattr(cli.serve_commands.os, "execve", run_web_program)


def test_serve_warns_off_loopback_and_checks_the_port(monkeypatch, capsys):
    import uvicorn

    ran = []
    serve_in_this_process(monkeypatch)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: ran.append(sockets))
    code, _, err = cli(capsys, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert code == 0 and len(ran) == 1
    assert err[0].startswith("warning: listening on 0.0.0.0, not on loopback") and "reach port 0 " not in err[0]
    assert cli_error(capsys, ["serve", "--host", "999.1.1.1", "--port", "0"]) == \
        "cannot listen on 999.1.1.1:0: unknown address"  # one line: no warning before the error
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


def test_the_games_whose_colours_lie_or_are_chosen_have_a_page_and_answer(client):
    """Absurdle and Fibble enter through the registry and the one board page: the page renders with
    their tries and only the options their solvers take (Fibble: no hard mode), and a suggestion
    comes back (Absurdle's adversary colours a bare guess itself, docs/absurdle.md)."""
    for game, tries, hard in (("absurdle", 10, True), ("fibble", 9, False)):
        html = client.get(f"/{game}").text
        config = page_config(html)
        assert (config["game"], config["tries"]) == (game, tries)
        assert ('id="opt-hard"' in html) == hard and 'id="register"' in html
        assert not EXTERNAL.search(html)
    first = client.post("/api/suggest", json={"game": "absurdle", "history": []}).json()
    assert (first["word"], first["expected"], first["candidates"]) == ("tyler", 4.0, 2311)
    after = client.post("/api/suggest", json={"game": "absurdle", "history": ["crane"]}).json()
    assert after["rounds"] == ["crane:BBBBB"] and after["expected"] == 3.0
    lied = client.post("/api/suggest", json={"game": "fibble", "history": ["raise:01000"], "level": 2})
    assert lied.status_code == 200 and lied.json()["candidates"] > 1


MODES = {"dueto": (2, 7, "pt", "termo"), "quarteto": (4, 9, "pt", "termo"), "dordle": (2, 7, "en", "wordle"),
         "quordle": (4, 9, "en", "wordle"), "octordle": (8, 13, "en", "wordle"), "binerdle": (2, 7, "en", "nerdle"),
         "quad-nerdle": (4, 10, "en", "nerdle"), "sedecordle": (16, 21, "en", "wordle"),
         "duotrigordle": (32, 37, "en", "wordle")}


def page_config(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="board-config">(.*?)</script>', html, re.S)
                      .group(1).replace("<\\/", "</"))


@pytest.mark.parametrize("name", list(MODES))
def test_a_page_per_mode_from_the_one_renderer(client, name):
    """A mode's page is the games' page drawn for B boards: the same config block, scripts, style
    sheet, hooks and labels, plus each board, the large view of the board being coloured, a
    segment per board on each key, the goal; the options its solvers do not take are not shown."""
    boards, turns, language, base = MODES[name]
    response = client.get("/" + name)
    assert response.status_code == 200
    html = response.text
    assert f'<html lang="{language}">' in html and f'class="game-{base} modes-page"' in html
    config = page_config(html)
    assert (config["game"], config["boards"], config["tries"], config["base"]) == (name, boards, turns, base)
    assert config["columns"] == {2: 2, 4: 2, 8: 4, 16: 4, 32: 4}[boards]
    assert "opener" not in config and "list" not in config  # the API lists no candidates for several boards
    length = config["length"]
    assert html.count('class="mboard" data-board=') == boards
    assert html.count('class="tile" data-board=') == boards * turns * length
    assert html.count('class="tile" data-zrow=') == turns * length and 'id="zoom"' in html
    assert html.count('class="seg"') == boards * sum(len(row) for row in config["keyboard"])
    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert scripts == ["/static/board-state.js", "/static/board-layout.js", "/static/board.js",
                       "/static/board-after.js"]
    assert re.findall(r'rel="stylesheet" href="([^"]+)"', html) == ["/static/board.css"]
    for hook in ('id="board"', 'id="register"', 'id="undo"', 'id="new-game"', 'id="suggestion"', 'id="notice"',
                 'id="compact"', 'id="boards-info"', 'id="alternatives"', 'id="opt-level"', 'id="opt-objective"',
                 'id="opt-contrast"', 'id="game-switcher"', 'id="keyboard-help"'):
        assert hook in html, hook
    # level 3 by default, as the CLI and the one-board pages; 1 is not a level of several boards
    assert re.search(r'<select id="opt-level"><option value="3" selected>[^<]*</option><option value="2">', html)
    assert 'value="1"' not in html.split('id="opt-level"')[1].split("</select>")[0]
    assert 'id="opt-hard"' not in html  # hard mode is for one board
    assert ('id="opt-t"' in html) == (not config["uniform_prior"])
    assert ('id="opt-extended"' in html) == (base == "termo") and ('id="opt-strict"' in html) == (base == "nerdle")
    assert f'<option value="{name}" selected>' in html  # the switcher names this page
    text = config["text"]
    assert text["subtitle"] != page_config(client.get("/" + base).text)["text"]["subtitle"]  # said for several boards
    assert text["board"] and "boards_subtitle" not in text
    if language == "pt":
        assert "Tabuleiro 1" in html and "Registrar rodada" in html and text["level_2"] == "2 · entropia conjunta"
    assert not EXTERNAL.search(html), EXTERNAL.search(html)


def test_every_board_name_has_a_page_and_the_switcher_lists_them(client):
    from termo.games.registry import GAME_NAMES, MODE_NAMES
    from web.pages import PAGE_GAMES, board_names

    assert set(PAGE_GAMES) <= set(GAME_NAMES) and board_names() == PAGE_GAMES + MODE_NAMES
    html = client.get("/wordle").text
    switcher = html.split('id="game-switcher">')[1].split("</select>")[0]
    assert re.findall(r'value="([^"]+)"', switcher) == list(board_names())
    for name in board_names():
        assert client.get("/" + name).status_code == 200, name
    assert client.get("/DUETO").text == client.get("/dueto").text  # as /TERMO is /termo
    assert client.get("/wordle-nyt").status_code == 404  # a game without a page


def test_one_text_table_per_language():
    from web.i18n import SEVERAL, STRINGS, VARIANTS, page_text

    keys = list(STRINGS["en"])
    for language, table in STRINGS.items():
        assert list(table) == keys, language  # the same keys, in the same order, in every language
        one, several = page_text(language, 1), page_text(language, 4)
        assert not set(one) & SEVERAL and set(one) | SEVERAL == set(keys)
        assert not set(several) & set(VARIANTS.values())
        for key, variant in VARIANTS.items():
            assert several[key] == table[variant] and one[key] == table[key]
        for text in table.values():  # every template fills from the keys it names
            assert "{" not in re.sub(r"\{\w+\}", "", text), text


def test_the_index_is_termo(client):
    assert client.get("/").text == client.get("/termo").text


def test_game_colours(client):
    termo, nerdle = client.get("/termo").text, client.get("/nerdle").text
    for colour in ("#3AA394", "#DDB56E", "#6E5C62"):  # the gold a shade lighter: 3.2:1 on the page
        assert colour in termo
    for colour in ("#398874", "#820458", "#161803"):
        assert colour in nerdle


def test_assets_are_served_and_local(client):
    html = client.get("/wordle").text + client.get("/quordle").text
    assets = sorted(set(re.findall(r'(?:src|href)="([^"]+)"', html)))
    assert "/static/board.js" in assets and "/static/board.css" in assets and "/static/board-layout.js" in assets
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


def test_docs_page_is_served_offline(client):
    page = client.get("/docs")
    assert page.status_code == 200
    assert "/api/suggest" in page.text and "JSON body" in page.text
    assert "http://" not in page.text and "https://" not in page.text and "<script" not in page.text


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


def test_serve_calls_all_of_127_loopback(monkeypatch, capsys):
    import uvicorn

    serve_in_this_process(monkeypatch)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    for host in ("127.0.0.2", "127.1.2.3", "localhost"):
        code, _, err = cli(capsys, ["serve", "--host", host, "--port", "0"])
        assert code == 0 and not any(line.startswith("warning") for line in err), (host, err)
