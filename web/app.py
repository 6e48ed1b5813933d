"""The ASGI app behind `termo serve`: the JSON API and the board pages (FastAPI).

The app only calls the library, like the CLI (`web.service` holds the calls), and keeps no game
state: the history travels in each request, so a restart loses nothing and any number of players
share one process. Every library call runs in a worker thread (`web.jobs.Jobs`), never on the
event loop; identical requests in flight share one computation.

Errors: a value the CLI would refuse is HTTP 422 with the CLI's one-line message as
``{"detail": "..."}`` (`cli.common.one_line`: escaped, echoed input cut); a malformed body is 422
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
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from web import service
from web.jobs import Busy, Jobs
from web.limits import MAX_BODY
from web.models import CandidatesBody, FeedbackBody, PartitionBody, SuggestBody

STATIC = Path(__file__).resolve().parent / "static"
# the boards load nothing from outside the app (the browser enforces it); the game's colours are
# an inline style attribute of the page; 'unsafe-eval' only lets test drivers evaluate their
# expressions in the page (Playwright's wait_for_function): the board's script evaluates no text
PAGE_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
               "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
               "form-action 'self'")
PAGE_HEADERS = {"Content-Security-Policy": PAGE_POLICY, "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer"}
# the Nerdle puzzle pages (web.nerdle_routes), linked from the Nerdle boards when they exist
PUZZLE_PAGES = (("/nerdle/today", "Today's Nerdle"), ("/nerdle/archive", "Archive"), ("/nerdle/stats", "Statistics"))


def _line(text: str) -> str:
    from cli.common import one_line

    return one_line(text)


def _user_errors():
    from cli.common import USER_ERRORS

    return USER_ERRORS


EXPECTED = {"level": "an integer", "beam": "an integer", "depth": "an integer", "list": "an integer",
            "t": "a number (or 'inf')", "history": "a list of texts guess:colours",
            "extended": "true or false", "strict": "true or false", "hard": "true or false"}


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
        body = json.dumps({"detail": f"the request body is larger than {self.limit:,} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def _answer(data, warnings) -> JSONResponse:
    from termo.plain_data import jsonable

    headers = {"X-Termo-Warnings": json.dumps(warnings, ensure_ascii=True)} if warnings else None
    return JSONResponse(jsonable(data), headers=headers)


def create_app(jobs: Optional[Jobs] = None, warm: bool = False, warmup=None) -> FastAPI:
    """A fresh app (its own worker pools unless ``jobs`` is given). ``warm``: when the server
    starts, prepare every game in the background (`web.warmup.Warmup`: kernels, matrices, the
    worker processes; one stderr line when ready; `termo serve` does); ``warmup``: that
    `Warmup` instead of the default one (tests). Without either, nothing is warmed ahead and
    ``/api/health`` says ready at once."""
    from termo import __version__

    jobs = jobs or Jobs()
    if warmup is None and warm:
        from web.warmup import Warmup, say_ready

        warmup = Warmup(on_ready=say_ready())

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
    app.add_middleware(BodyLimit)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, err: RequestValidationError):
        line = _validation_line(err)
        kind = request.headers.get("content-type", "")
        if line == "the body must be a JSON object" and "json" not in kind:
            line += f" (sent as {kind or 'no content type'}; send Content-Type: application/json)"
        return JSONResponse({"detail": _line(line)}, status_code=422)

    @app.exception_handler(Busy)
    async def _busy(request: Request, err: Busy):
        return JSONResponse({"detail": str(err)}, status_code=503, headers={"Retry-After": "1"})

    @app.exception_handler(BrokenProcessPool)
    async def _worker_died(request: Request, err: BrokenProcessPool):
        return JSONResponse({"detail": "a search worker stopped (out of memory?); it is being restarted: try again"},
                            status_code=503, headers={"Retry-After": "1"})

    async def call(key, func, *args, lane="short", **kwargs):
        """``func(*args, **kwargs)`` in a worker: its JSON, or 422 with the one-line message."""
        try:
            # a partial of a module function: it can travel to a worker process (the long lane)
            data, warnings = await jobs.run(key, functools.partial(func, *args, **kwargs), lane=lane)
        except _user_errors() as err:
            return JSONResponse({"detail": _line(str(err))}, status_code=422)
        return _answer(data, warnings)

    async def ask(name: str, func, fields: dict, lane: str = "short"):
        """:func:`call` of ``func(**fields)``, keyed by the command's name and its fields."""
        return await call((name, json.dumps(fields, sort_keys=True, default=str)), func, lane=lane, **fields)

    # ------------------------------------------------------------------ API

    @app.get("/api/games", summary="termo games --json")
    async def api_games():
        return await call(("games",), service.games_data)

    @app.post("/api/suggest", summary="termo suggest HISTORY... --json")
    async def api_suggest(body: SuggestBody):
        fields = body.model_dump()
        lane = "long" if str(fields.get("level")).strip() == "3" else "short"
        return await ask("suggest", service.suggest, fields, lane=lane)

    @app.get("/api/opener", summary="termo opener --json")
    async def api_opener(game: str = "termo", level: str = "3", t: str = "1.0", beam: str = "10",
                         depth: str = "1", extended: bool = False, strict: bool = False, hard: bool = False):
        fields = dict(game=game, level=level, t=t, beam=beam, depth=depth, extended=extended, strict=strict,
                      hard=hard)
        return await ask("opener", service.opener, fields, lane="long")

    @app.post("/api/feedback", summary="termo feedback GUESS ANSWER --json")
    async def api_feedback(body: FeedbackBody):
        return await ask("feedback", service.feedback, body.model_dump())

    @app.post("/api/partition", summary="termo partition GUESS HISTORY... --json")
    async def api_partition(body: PartitionBody):
        return await ask("partition", service.partition, body.model_dump(), lane="long")

    @app.post("/api/candidates", summary="the candidates a history leaves (the board's last round)")
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

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index():
        return HTMLResponse(await jobs.run(("page", "termo"), lambda: page("termo")), headers=PAGE_HEADERS)

    @app.get("/{game}", response_class=HTMLResponse, include_in_schema=False)
    async def board(game: str):
        from web.pages import PAGE_GAMES

        key = game.strip().lower()
        if key not in PAGE_GAMES:
            from html import escape

            games = ", ".join(f'<a href="/{g}">{g}</a>' for g in PAGE_GAMES)
            return HTMLResponse(f"<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>not found</title>"
                                f"<p>No game called {escape(game[:40])!s}. Games: {games}.</p></html>",
                                status_code=404)
        return HTMLResponse(await jobs.run(("page", key), lambda: page(key)), headers=PAGE_HEADERS)

    return app


def __getattr__(name):
    """``web.app:app`` for ``uvicorn web.app:app`` (built on first use)."""
    if name == "app":
        global app
        app = create_app()
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
