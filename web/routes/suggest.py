"""What to play next: ``POST /api/suggest`` for a game or a mode of several boards, its
several-board alias ``POST /api/mode/suggest`` (the body names a ``mode``), and ``GET /api/opener``.

A level-3 question takes the ``long`` lane (worker processes), its options checked on the short
lane first (a refusal is answered at once, never behind a long search), unless a book answers it
at once (`web.service.suggest_lane`: a one-board opener, a kept first move of several boards).
"""

from __future__ import annotations

import functools

from fastapi import APIRouter, Depends

from termo.interface.requests import USER_ERRORS
from web import service
from web.errors import refusal
from web.jobs import Jobs
from web.models import BooleanText, IntegerText, ModeSuggestBody, NumberText, SuggestBody
from web.routes.common import ERROR_RESPONSES, ask, jobs_of, level_of, query_bool

router = APIRouter()


async def _suggest(fields: dict, jobs: Jobs):
    lane = "short"
    if str(fields.get("level")).strip() == "3":  # a search, unless a book answers (service.suggest_lane)
        try:
            # not kept: a book that cannot answer yet may after the search (a kept first move)
            lane = await jobs.run(None, functools.partial(service.suggest_lane, **fields))
        except USER_ERRORS as err:
            return refusal(err)
    return await ask(jobs, "suggest", service.suggest, fields, lane=lane)


@router.post("/api/suggest", summary="termo suggest HISTORY... --json (a game, or a mode of several boards)",
             responses=ERROR_RESPONSES)
async def api_suggest(body: SuggestBody, jobs: Jobs = Depends(jobs_of)):
    """A mode of several boards (``game``: dueto, quordle, ...) takes history items
    ``guess:p1/.../pB``, one colour pattern per board, ``-`` for a solved board."""
    return await _suggest(body.model_dump(), jobs)


@router.post("/api/mode/suggest", summary="POST /api/suggest for a mode of several boards, named by 'mode'",
             responses=ERROR_RESPONSES)
async def api_mode_suggest(body: ModeSuggestBody, jobs: Jobs = Depends(jobs_of)):
    """History items ``guess:p1/.../pB``: one colour pattern per board, ``-`` for a solved board."""
    fields = body.model_dump()
    return await _suggest({"game": fields.pop("mode"), **fields}, jobs)


async def opener_query(game: str = "termo", level: IntegerText = "3", t: NumberText = "1.0", beam: IntegerText = "10",
                       depth: IntegerText = "1", extended: BooleanText = "false", strict: BooleanText = "false",
                       hard: BooleanText = "false") -> dict:
    """The options of ``GET /api/opener`` (query text; the booleans ``true`` or ``false``)."""
    flags = {name: query_bool(name, value) for name, value in (("extended", extended), ("strict", strict),
                                                               ("hard", hard))}
    return dict(game=game, level=level, t=t, beam=beam, depth=depth, **flags)


@router.get("/api/opener", summary="termo opener --json", responses=ERROR_RESPONSES)
async def api_opener(fields: dict = Depends(opener_query), jobs: Jobs = Depends(jobs_of)):
    """Booleans are ``true`` or ``false``."""
    checked = await level_of(jobs, {**fields, "opener": "optimal", "boards": False})
    if not isinstance(checked, int):
        return checked
    return await ask(jobs, "opener", service.opener, fields, lane="long" if checked == 3 else "short")
