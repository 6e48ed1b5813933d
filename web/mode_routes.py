"""The board pages of the modes of several boards (``/dueto``, ``/quarteto``, ...: `web.mode_pages.render_mode`),
as ``/{game}`` serves one board; included by `web.app.create_app` before the single boards' pages.
Their API is the games' own (`web.routes`)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from web.jobs import Jobs
from web.responses import SECURITY_HEADERS
from web.routes.common import jobs_of

router = APIRouter()


def mode_names() -> tuple[str, ...]:
    from termo.games.registry import MODE_NAMES

    return MODE_NAMES


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
