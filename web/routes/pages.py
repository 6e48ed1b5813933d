"""The board pages (`router`, included by `web.app.create_app` after the API and the puzzle
routes): ``/`` (Termo) and ``/{name}`` for every board name (`web.pages.board_names`: the games
with a page and the registry's modes of several boards, one page renderer for all), ``/docs``
(the API description rendered from the OpenAPI document, no script) and ``/favicon.ico``.

A board page is rendered once per app, in a worker (`web.jobs.Jobs`), and kept
(``app.state.pages``); the Nerdle boards link the puzzle pages the app serves
(``app.state.puzzle_links``).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, HTMLResponse

from web.routes.common import jobs_of
from web.jobs import Jobs
from web.responses import SECURITY_HEADERS

STATIC = Path(__file__).resolve().parents[1] / "static"
PAGE_HEADERS = SECURITY_HEADERS  # every answer carries them (SecurityHeaders); kept for the pages' callers

router = APIRouter()


def _titles() -> dict:
    from termo.games import get_game
    from web.pages import PAGE_GAMES

    return {g: get_game(g).title or g for g in PAGE_GAMES}


def page(app, name: str) -> str:
    """The board page of ``name`` (a game or a mode), rendered on first use and kept by ``app``."""
    pages = app.state.pages
    if name not in pages:
        from termo.games import get_mode
        from web.pages import render_board

        links = app.state.puzzle_links if name.startswith("nerdle") else ()
        pages[name] = render_board(get_mode(name), _titles(), links=links)
    return pages[name]


@router.get("/docs", response_class=HTMLResponse, include_in_schema=False)
def api_docs(request: Request) -> HTMLResponse:
    from web.api_page import render

    return HTMLResponse(render(request.app.openapi()), headers=PAGE_HEADERS)


@router.get("/favicon.ico", include_in_schema=False)
async def favicon():
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def index(request: Request, jobs: Jobs = Depends(jobs_of)):
    return HTMLResponse(await jobs.run(("page", "termo"), lambda: page(request.app, "termo")), headers=PAGE_HEADERS)


@router.get("/{game}", response_class=HTMLResponse, include_in_schema=False)
async def board(game: str, request: Request, jobs: Jobs = Depends(jobs_of)):
    """Every board name's page (a game or a mode); any other name is the 404 page."""
    from web.pages import board_names

    key = game.strip().lower()
    if key not in board_names():
        from web.pages import render_not_found

        def not_found() -> str:
            return render_not_found(game, _titles())

        return HTMLResponse(await jobs.run(None, not_found), status_code=404, headers=PAGE_HEADERS)
    return HTMLResponse(await jobs.run(("page", key), lambda: page(request.app, key)), headers=PAGE_HEADERS)
