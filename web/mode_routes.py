"""The modes of several boards on the web (`router`, included by `web.app.create_app` before
the single boards' pages): the JSON API and the board pages.

- ``GET /api/modes``: every mode (``name``, ``title``, ``game``, ``boards``, ``turns``, ``language``);
- ``POST /api/mode/suggest`` (`web.models.ModeSuggestBody`): the suggestion after a history
  (`web.mode_service.suggest`: `termo.interface.modes.suggest_mode`'s JSON, ``reason_messages``
  beside ``reason``); level 3 takes the ``long`` lane, its options checked on the short one first;
- ``POST /api/mode/boards`` (`web.models.ModeBoardsBody`): the boards a history leaves, no
  suggestion (the board asks it after its last try);
- ``/dueto``, ``/quarteto``, ``/dordle``, ``/quordle``, ``/octordle``, ``/binerdle``,
  ``/quad-nerdle``: the boards (`web.mode_pages.render_mode`), as ``/{game}`` serves one board.

A history the library refuses is 422 with the CLI's line and its catalogue code, params and
``messages`` in each board language (`web.errors.refusal`), as the rest of the API answers.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from termo.interface.requests import USER_ERRORS
from web import mode_service
from web.api_routes import ERROR_RESPONSES, _key, ask, call, jobs_of
from web.errors import refusal
from web.jobs import Jobs
from web.models import ModeBoardsBody, ModeSuggestBody
from web.responses import SECURITY_HEADERS

router = APIRouter()


def mode_names() -> tuple[str, ...]:
    from termo.games.registry import MODE_NAMES

    return MODE_NAMES


@router.get("/api/modes", summary="the modes of several boards: boards and turns of each")
async def api_modes(jobs: Jobs = Depends(jobs_of)):
    return await call(jobs, ("modes",), mode_service.modes)


@router.post("/api/mode/suggest", summary="termo suggest --game MODE HISTORY... --json (several boards)",
             responses=ERROR_RESPONSES)
async def api_mode_suggest(body: ModeSuggestBody, jobs: Jobs = Depends(jobs_of)):
    """History items ``guess:p1/.../pB``: one colour pattern per board, ``-`` for a solved board."""
    fields = body.model_dump()
    options = {k: fields[k] for k in ("mode", "level", "objective")}
    try:
        level = await jobs.run(_key("mode-options", options), lambda: mode_service.check_options(**options))
    except USER_ERRORS as err:
        return refusal(err)
    return await ask(jobs, "mode-suggest", mode_service.suggest, fields, lane="long" if level == 3 else "short")


@router.post("/api/mode/boards", summary="the boards a mode's history leaves (no suggestion)",
             responses=ERROR_RESPONSES)
async def api_mode_boards(body: ModeBoardsBody, jobs: Jobs = Depends(jobs_of)):
    return await ask(jobs, "mode-boards", mode_service.boards, body.model_dump())


def mode_page(app, name: str) -> str:
    """The board page of mode ``name``, rendered on first use and kept by ``app``."""
    pages = app.state.pages
    key = "mode:" + name
    if key not in pages:
        from termo.games import get_mode
        from web.mode_pages import render_mode

        pages[key] = render_mode(get_mode(name))
    return pages[key]


def _page_route(name: str):
    async def page(request: Request, jobs: Jobs = Depends(jobs_of)):
        html = await jobs.run(("page", "mode:" + name), lambda: mode_page(request.app, name))
        return HTMLResponse(html, headers=SECURITY_HEADERS)

    page.__name__ = "mode_page_" + name.replace("-", "_")
    return page


for _name in mode_names():
    router.add_api_route("/" + _name, _page_route(_name), methods=["GET"], response_class=HTMLResponse,
                         include_in_schema=False)
