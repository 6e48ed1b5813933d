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

Pages: ``/`` (Termo) and ``/{name}`` for each game and each mode of several boards (``/dueto``,
``/quarteto``, ...: `web.routes.pages`, one renderer); ``/static/...`` the board's script, style
sheet and icon; ``/docs`` and ``/openapi.json`` the API description (``/docs`` a self-contained page rendered
from the OpenAPI document, no script: it works offline). `web.routes.puzzles`
serves Nerdle's puzzle pages and their API.

The pieces: `web.routes` (the API, one router per resource), `web.routes.pages` (the pages), `web.errors` (the error
answers), `web.middleware` (the body limit, HEAD, the host check, the security headers).
"""

from __future__ import annotations

import contextlib
from typing import Optional

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import GZipMiddleware

from web.routes import ROUTERS
from web.errors import add_error_handlers
from web.jobs import Jobs
from web.middleware import AllowedHosts, BodyLimit, HeadAsGet, SecurityHeaders
from web.routes import pages, puzzles
from web.routes.pages import STATIC

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")  # the names a loopback server answers to
GZIP_MINIMUM = 1024  # bytes: smaller answers are sent as they are
# the Nerdle puzzle pages (web.routes.puzzles), linked from the Nerdle boards
PUZZLE_PAGES = (("/nerdle/today", "Today's Nerdle"), ("/nerdle/archive", "Archive"), ("/nerdle/stats", "Statistics"))


def _default_warmup(warm):
    """The `web.warmup.Warmup` of ``warm`` (True: every game; a sequence: the games named)."""
    from web.warmup import GAMES, Warmup, say_ready

    games = GAMES if warm is True else tuple(warm)
    return Warmup(games=games, on_ready=say_ready(games))


def _add_middleware(app: FastAPI, allowed_hosts) -> None:
    """Outermost last: the headers on everything, then the host check, HEAD, compression, the body limit."""
    app.add_middleware(BodyLimit)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM)
    app.add_middleware(HeadAsGet)
    app.add_middleware(AllowedHosts, hosts=allowed_hosts)
    app.add_middleware(SecurityHeaders)


def _document_errors(app: FastAPI) -> None:
    """The app's OpenAPI document: the framework's, with the error body the API really sends
    (`web.models.ErrorBody`), and a page's refusal as the HTML page it is."""
    framework_openapi = app.openapi

    def openapi() -> dict:
        spec = framework_openapi()
        schemas = spec.setdefault("components", {}).setdefault("schemas", {})
        if "ErrorBody" in schemas:
            schemas["HTTPValidationError"] = {**schemas["ErrorBody"], "title": "HTTPValidationError"}
        schemas.pop("ValidationError", None)
        for operation in (op for ops in spec.get("paths", {}).values() for op in ops.values()):
            answers = operation.get("responses", {})
            if "text/html" in answers.get("200", {}).get("content", {}) and "422" in answers:  # a page
                answers["422"] = {"description": "a refused value: the page with the message",
                                  "content": {"text/html": {"schema": {"type": "string"}}}}
        return spec

    app.openapi = openapi


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
        warmup = _default_warmup(warm)

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
    app.state.pages = {}
    _add_middleware(app, allowed_hosts)
    add_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    _document_errors(app)
    app.include_router(puzzles.router)
    app.state.puzzle_links = PUZZLE_PAGES
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(pages.router)  # last: /{name} serves every board
    return app


def __getattr__(name):
    """``web.app:app`` for ``uvicorn web.app:app`` (built on first use)."""
    if name == "app":
        global app
        app = create_app(allowed_hosts=LOOPBACK_HOSTS)
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
