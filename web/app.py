"""The ASGI app behind `termo serve`: the JSON API and the board pages (FastAPI).

The app only calls the library, like the CLI (`web.service` holds the calls), and keeps no game
state: the history travels in each request, so a restart loses nothing and any number of players
share one process. Every library call runs in a worker thread (`web.jobs.Jobs`), never on the
event loop; identical requests in flight share one computation.

Errors: a value the CLI would refuse is HTTP 422 with the CLI's one-line message as
``{"detail": "..."}`` (`termo.core.safe_text.one_line`: escaped, echoed input cut), with its catalogue code
and its renderings in the board languages (`web.messages.catalogued`); a malformed body is 422
with one line too; a body over `web.limits.MAX_BODY` bytes is 413; too many waiting requests is
503. Warnings the CLI prints on stderr (a word outside the list) come in the ``X-Termo-Warnings``
header (a JSON list, ASCII-escaped), so the JSON body has exactly the command's keys.

Pages: ``/`` (Termo) and ``/{game}`` for each game; ``/static/...`` the board's script, style
sheet and icon; ``/docs`` and ``/openapi.json`` the API description (``/docs`` a self-contained page rendered
from the OpenAPI document, no script: it works offline). When
`web.nerdle_routes` exists, its ``router`` is included too.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import re
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from web import service
from web.jobs import Busy, Jobs
from web.limits import MAX_BODY
from web.models import CandidatesBody, ErrorBody, FeedbackBody, PartitionBody, SuggestBody
from web.responses import PAGE_POLICY, SECURITY_HEADERS, error_body, error_response  # noqa: F401 - PAGE_POLICY re-exported

STATIC = Path(__file__).resolve().parent / "static"
PAGE_HEADERS = SECURITY_HEADERS  # every answer carries them (SecurityHeaders); kept for the pages' callers
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")  # the names a loopback server answers to
GZIP_MINIMUM = 1024  # bytes: smaller answers are sent as they are
# the Nerdle puzzle pages (web.nerdle_routes), linked from the Nerdle boards when they exist
PUZZLE_PAGES = (("/nerdle/today", "Today's Nerdle"), ("/nerdle/archive", "Archive"), ("/nerdle/stats", "Statistics"))


def _line(text: str) -> str:
    from termo.core.safe_text import one_line

    return one_line(text)


# the options whose command-line flags (--level) are body fields or query parameters (level)
_FLAGS = re.compile(r"(?<![\w-])--(level|t|beam|depth|list|opener|hard|extended|strict|no-tree|game)(?![\w-])")
_QUOTED = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


def api_line(line: str) -> str:
    """A CLI message in the API's terms: a flag (``--level``) is the field's name (``level``);
    quoted input echoed in the message is left as it was typed."""
    parts = _QUOTED.split(line)
    return "".join(part if i % 2 else _FLAGS.sub(lambda m: m.group(1).replace("-", "_"), part)
                   for i, part in enumerate(parts))


def _user_errors():
    from termo.interface.requests import USER_ERRORS

    return USER_ERRORS


EXPECTED = {"level": "an integer", "beam": "an integer", "depth": "an integer", "list": "an integer",
            "t": "a number (or 'inf')", "history": "a list of texts guess:colours",
            "extended": "true or false", "strict": "true or false", "hard": "true or false",
            "no_tree": "true or false"}


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _validation_line(err: RequestValidationError) -> str:
    """One line for the first problem of a malformed body (pydantic's list made readable)."""
    errors = err.errors()
    if not errors:
        return "the request is not valid"
    first = errors[0]
    loc = [p for p in first.get("loc", ()) if p not in ("body", "query")]
    kind = first.get("type", "")
    if kind == "json_invalid":
        return "the body is not valid JSON"
    if not loc:
        return "the body must be a JSON object"
    field = str(loc[0])
    if kind == "extra_forbidden":
        return f"unknown field {field!r}"
    if kind == "missing":
        return f"missing field {field!r}"
    if field == "history" and len(loc) > 1 and isinstance(loc[1], int):
        return f"history item {loc[1] + 1} must be a text (guess:colours), not {_json_type(first.get('input'))}"
    expected = EXPECTED.get(field, "a text")
    return f"{field} must be {expected}, not {_json_type(first.get('input'))}"


class BodyLimit:
    """Pure ASGI middleware: a request body over ``limit`` bytes is answered 413, whether the
    client said its length (Content-Length) or streams it (chunked), before any parsing."""

    def __init__(self, app, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    size = -1
                if size < 0 or size > self.limit:
                    return await self._too_large(send)
        seen = 0
        refused = False

        async def limited():
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:  # a streamed body: answered here, the app sees the client leave
                    refused = True
                    if not started:
                        await self._too_large(send)
                    return {"type": "http.disconnect"}
            return message

        started = False

        async def guarded_send(message):
            nonlocal started
            if refused:
                return  # the 413 is already on its way
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited, guarded_send)
        except Exception:
            if not refused:
                raise

    async def _too_large(self, send):
        body = json.dumps(error_body(f"the request body is larger than {self.limit:,} bytes", code="request.too_large",
                                     params={"kib": self.limit // 1024})).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Pure ASGI middleware: `web.responses.SECURITY_HEADERS` on every answer (a page that
    sets its own policy keeps it)."""

    def __init__(self, app) -> None:
        self.app = app
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in self.headers if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class AllowedHosts:
    """Pure ASGI middleware: only requests whose ``Host`` names this server (``hosts``, any
    case, with no port or the port it listens on) are answered; any other is 400, so that a
    page of another site cannot reach the server through a name of its own that resolves to
    this machine (DNS rebinding). ``hosts=None``: every name."""

    def __init__(self, app, hosts=None) -> None:
        self.app = app
        self.hosts = None if hosts is None else {h.strip().lower() for h in hosts}

    def allowed(self, scope) -> tuple[bool, str]:
        host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), None)
        if host is None:
            return scope.get("http_version") == "1.0", ""  # HTTP/1.1 requires the header
        name, port = host.strip().lower(), ""
        if name.startswith("["):
            end = name.find("]")
            name, port = (name[:end + 1], name[end + 2:]) if end > 0 and name[end + 1:end + 2] in ("", ":") else (name, "")
        elif name.count(":") == 1:
            name, port = name.split(":")
        if name not in self.hosts:
            return False, host
        server = scope.get("server") or (None, None)
        if port and server[1] is not None and port != str(server[1]):
            return False, host
        return True, host

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or self.hosts is None:
            return await self.app(scope, receive, send)
        ok, host = self.allowed(scope)
        if ok:
            return await self.app(scope, receive, send)
        names = ", ".join(sorted(self.hosts))
        response = error_response(400, _line(f"the host {host!r} is not served here (this server answers to {names})"))
        await response(scope, receive, send)


class HeadAsGet:
    """Pure ASGI middleware: ``HEAD`` is answered like ``GET`` without the body, on every path
    that answers ``GET`` (pages, the API's GETs, static files)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "HEAD":
            return await self.app(scope, receive, send)
        done = False

        async def headers_only(message):
            nonlocal done
            if message["type"] == "http.response.body":
                if done:
                    return
                if message.get("more_body", False):
                    return
                done = True
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


def _answer(data, warnings, name: str = "") -> JSONResponse:
    from termo.core.plain_data import jsonable
    from web.messages import answer_messages

    if isinstance(data, dict):  # the board's languages beside the reason and the warnings
        data = {**data, **answer_messages(name, data, warnings)}
    headers = {"X-Termo-Warnings": json.dumps(warnings, ensure_ascii=True)} if warnings else None
    return JSONResponse(jsonable(data), headers=headers)


def _query_bool(name: str, value: str) -> bool:
    """A query parameter that is a boolean: ``true`` or ``false`` (as JSON spells them)."""
    text = value.strip().lower()
    if text not in ("true", "false"):
        from termo.core.errors import TermoError

        raise TermoError(f"{name} must be true or false, not {value!r}")
    return text == "true"


ERROR_RESPONSES = {413: {"model": ErrorBody, "description": "the request body is over the size limit"},
                   503: {"model": ErrorBody, "description": "busy: too many waiting requests (Retry-After)"}}


def create_app(jobs: Optional[Jobs] = None, warm=False, warmup=None, allowed_hosts=None) -> FastAPI:
    """A fresh app (its own worker pools unless ``jobs`` is given). ``warm``: when the server
    starts, prepare every game (True) or the games named (a sequence; empty: none) in the background (`web.warmup.Warmup`: kernels, matrices, the
    worker processes; one stderr line when ready; `termo serve` does); ``warmup``: that
    `Warmup` instead of the default one (tests). Without either, nothing is warmed ahead and
    ``/api/health`` says ready at once. ``allowed_hosts``: the host names answered
    (`AllowedHosts`; None: every name, as the test client needs)."""
    import termo.interface.warm_up  # noqa: F401 - every kernel warm-up, before a request runs a kernel
    from termo import __version__

    jobs = jobs or Jobs()
    if warmup is None and warm:
        from web.warmup import GAMES, Warmup, say_ready

        games = GAMES if warm is True else tuple(warm)
        warmup = Warmup(games=games, on_ready=say_ready(games))

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if warmup is not None:
            warmup.start(jobs)
        yield
        jobs.shutdown()

    app = FastAPI(title="termo", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Solver suite for Termo and other Wordle-family games: the CLI's JSON "
                              "contract over HTTP (see docs/web.md).")
    app.state.jobs = jobs
    app.state.warmup = warmup
    # outermost last: the headers on everything, then the host check, HEAD, compression, the body limit
    app.add_middleware(BodyLimit)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM)
    app.add_middleware(HeadAsGet)
    app.add_middleware(AllowedHosts, hosts=allowed_hosts)
    app.add_middleware(SecurityHeaders)

    def refusal(err: BaseException):
        """422 for a value the library refuses: the CLI's line, in the API's terms."""
        return error_response(422, api_line(_line(str(err))), error=err)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, err: RequestValidationError):
        line = _validation_line(err)
        kind = request.headers.get("content-type", "")
        if line == "the body must be a JSON object" and "json" not in kind:
            line += f" (sent as {kind or 'no content type'}; send Content-Type: application/json)"
        errors = err.errors()
        loc = [p for p in errors[0].get("loc", ())] if errors else None
        field = next((part for part in reversed(loc or ()) if isinstance(part, str) and part != "body"), "")
        code, params = ("request.field", {"field": field}) if field else ("request.body", {})
        return error_response(422, _line(line), error=err, loc=loc, code=code, params=params)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, err: StarletteHTTPException):
        if err.status_code == 400 and err.__cause__ is not None:  # the framework could not read the body
            deep = isinstance(err.__cause__, RecursionError)
            line = "the body is nested too deeply to be read" if deep else "the body is not valid JSON"
            return error_response(422, line, error=err, loc=["body"], code="request.body")
        if err.status_code in (204, 304):
            return JSONResponse(None, status_code=err.status_code, headers=err.headers)
        detail = err.detail if isinstance(err.detail, str) else json.dumps(err.detail)
        code = {404: "request.not_found", 405: "request.method"}.get(err.status_code)
        return error_response(err.status_code, _line(detail), error=err, headers=err.headers, code=code)

    @app.exception_handler(Exception)
    async def _crashed(request: Request, err: Exception):  # answered outside the middleware: headers here
        return error_response(500, "internal error: the server could not answer this request", error=err,
                              headers=SECURITY_HEADERS, code="server.internal")

    @app.exception_handler(Busy)
    async def _busy(request: Request, err: Busy):
        return error_response(503, str(err), error=err, headers={"Retry-After": "1"}, code="server.busy")

    @app.exception_handler(BrokenProcessPool)
    async def _worker_died(request: Request, err: BrokenProcessPool):
        return error_response(503, "a search worker stopped (out of memory?); it is being restarted: try again",
                              error=err, headers={"Retry-After": "1"}, code="server.worker_stopped")

    async def call(key, func, *args, lane="short", **kwargs):
        """``func(*args, **kwargs)`` in a worker: its JSON, or 422 with the one-line message."""
        try:
            # a partial of a module function: it can travel to a worker process (the long lane)
            data, warnings = await jobs.run(key, functools.partial(func, *args, **kwargs), lane=lane)
        except _user_errors() as err:
            return refusal(err)
        return _answer(data, warnings, key[0])

    async def ask(name: str, func, fields: dict, lane: str = "short"):
        """:func:`call` of ``func(**fields)``, keyed by the command's name and its fields."""
        return await call((name, json.dumps(fields, sort_keys=True, default=str)), func, lane=lane, **fields)

    async def level_of(fields: dict):
        """The level of a request's options, checked on the short lane (a refusal never waits
        behind long searches): an int, or the 422 answer."""
        try:
            return await jobs.run(("options", json.dumps(fields, sort_keys=True, default=str)),
                                  functools.partial(service.check_options, **fields))
        except _user_errors() as err:
            return refusal(err)

    # ------------------------------------------------------------------ API

    @app.get("/api/games", summary="termo games --json")
    async def api_games():
        return await call(("games",), service.games_data)

    @app.post("/api/suggest", summary="termo suggest HISTORY... --json", responses=ERROR_RESPONSES)
    async def api_suggest(body: SuggestBody):
        fields = body.model_dump()
        lane = "short"
        if str(fields.get("level")).strip() == "3":
            options = {k: fields[k] for k in ("game", "level", "t", "beam", "depth", "extended", "strict", "hard",
                                              "opener")}
            level = await level_of(options)
            if not isinstance(level, int):
                return level
            lane = "long"
        return await ask("suggest", service.suggest, fields, lane=lane)

    @app.get("/api/opener", summary="termo opener --json", responses=ERROR_RESPONSES)
    async def api_opener(game: str = "termo", level: str = "3", t: str = "1.0", beam: str = "10",
                         depth: str = "1", extended: str = "false", strict: str = "false", hard: str = "false"):
        """Booleans are ``true`` or ``false``."""
        try:
            flags = {name: _query_bool(name, value)
                     for name, value in (("extended", extended), ("strict", strict), ("hard", hard))}
        except _user_errors() as err:
            return refusal(err)
        fields = dict(game=game, level=level, t=t, beam=beam, depth=depth, **flags)
        checked = await level_of({**fields, "opener": "optimal"})
        if not isinstance(checked, int):
            return checked
        return await ask("opener", service.opener, fields, lane="long" if checked == 3 else "short")

    @app.post("/api/feedback", summary="termo feedback GUESS ANSWER --json", responses=ERROR_RESPONSES)
    async def api_feedback(body: FeedbackBody):
        return await ask("feedback", service.feedback, body.model_dump())

    @app.post("/api/partition", summary="termo partition GUESS HISTORY... --json", responses=ERROR_RESPONSES)
    async def api_partition(body: PartitionBody):
        return await ask("partition", service.partition, body.model_dump(), lane="long")

    @app.post("/api/candidates", summary="the candidates a history leaves (the board's last round)",
              responses=ERROR_RESPONSES)
    async def api_candidates(body: CandidatesBody):
        return await ask("candidates", service.candidates, body.model_dump())

    @app.get("/api/health", summary="the server is up; its worker pool; whether every game is warm")
    async def api_health():
        """``ready``: every game's kernels and matrices are loaded (`termo serve` prepares them
        at start); ``warming``: the games still being prepared (answered meanwhile, the first
        questions more slowly); ``warm_seconds``: how long that took, once ready."""
        state = warmup.state() if warmup is not None else {"ready": True, "warming": [], "warm_seconds": None}
        return {"ok": True, "jobs": jobs.stats(), "configurations": len(service.ADVISORS),
                "advisors": service.ADVISORS.advisors(), **state}

    # ------------------------------------------------------------------ the OpenAPI document

    framework_openapi = app.openapi

    def openapi() -> dict:
        """The framework's document, with the error body the API really sends (`ErrorBody`)."""
        spec = framework_openapi()
        schemas = spec.setdefault("components", {}).setdefault("schemas", {})
        if "ErrorBody" in schemas:
            schemas["HTTPValidationError"] = {**schemas["ErrorBody"], "title": "HTTPValidationError"}
        schemas.pop("ValidationError", None)
        return spec

    app.openapi = openapi

    # ------------------------------------------------------------------ the puzzle routes (when built)
    routes: set = set()
    try:
        nerdle = importlib.import_module("web.nerdle_routes")
    except ModuleNotFoundError as err:
        if err.name != "web.nerdle_routes":
            raise
    else:
        router = getattr(nerdle, "router", None)
        if router is not None:
            app.include_router(router)
            routes = {getattr(route, "path", "") for route in getattr(router, "routes", ())}

    # ------------------------------------------------------------------ pages

    puzzle_links = tuple((path, label) for path, label in PUZZLE_PAGES if path in routes)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    pages: dict[str, str] = {}

    def page(name: str) -> str:
        if name not in pages:
            from termo.games import get_game
            from web.pages import PAGE_GAMES, render_board

            titles = {g: get_game(g).title or g for g in PAGE_GAMES}
            pages[name] = render_board(get_game(name), titles, links=puzzle_links if name.startswith("nerdle") else ())
        return pages[name]

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    def api_docs() -> HTMLResponse:
        from web.api_page import render

        return HTMLResponse(render(app.openapi()), headers=PAGE_HEADERS)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon():
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index():
        return HTMLResponse(await jobs.run(("page", "termo"), lambda: page("termo")), headers=PAGE_HEADERS)

    @app.get("/{game}", response_class=HTMLResponse, include_in_schema=False)
    async def board(game: str):
        from web.pages import PAGE_GAMES

        key = game.strip().lower()
        if key not in PAGE_GAMES:
            from termo.games import get_game
            from web.pages import render_not_found

            def not_found() -> str:
                return render_not_found(game, {g: get_game(g).title or g for g in PAGE_GAMES})

            return HTMLResponse(await jobs.run(None, not_found), status_code=404, headers=PAGE_HEADERS)
        return HTMLResponse(await jobs.run(("page", key), lambda: page(key)), headers=PAGE_HEADERS)

    return app


def __getattr__(name):
    """``web.app:app`` for ``uvicorn web.app:app`` (built on first use)."""
    if name == "app":
        global app
        app = create_app(allowed_hosts=LOOPBACK_HOSTS)
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
