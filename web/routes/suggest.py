"""What to play next: ``POST /api/suggest`` for a game or a mode of several boards, its
several-board alias ``POST /api/mode/suggest`` (the body names a ``mode``), and ``GET /api/opener``.

A level-3 question takes the ``long`` lane, its options checked on the short lane first (a refusal
is answered at once, never behind a long search).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends

from web import service
from web.jobs import Jobs
from web.models import ModeSuggestBody, SuggestBody
from web.routes.common import ERROR_RESPONSES, ask, jobs_of, level_of, query_bool

router = APIRouter()

# the options that choose the solver: checked on the short lane before a long search is queued
SEARCH_OPTIONS = ("game", "level", "t", "beam", "depth", "extended", "strict", "hard", "opener", "objective")


def _from_the_book(fields: dict) -> bool:
    """Whether the answer is one board's interface opener (no round played, the default opener):
    the opener book's, never a search, so it is answered on the short lane, not behind the
    worker processes a level-3 search waits for (`termo.book.openers.default_opener`)."""
    from termo.games.registry import mode_name

    game = fields.get("game")
    return not fields.get("history") and fields.get("opener", "default") == "default" and (
        isinstance(game, str) and mode_name(game) is None)


async def _suggest(fields: dict, jobs: Jobs):
    lane = "short"
    if str(fields.get("level")).strip() == "3" and not _from_the_book(fields):
        level = await level_of(jobs, {k: fields[k] for k in SEARCH_OPTIONS if k in fields})
        if not isinstance(level, int):
            return level
        lane = "long"
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


async def opener_query(game: str = "termo", level: str = "3", t: str = "1.0", beam: str = "10", depth: str = "1",
                       extended: str = "false", strict: str = "false", hard: str = "false") -> dict:
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
