"""The JSON API's endpoints (`router`, included by `web.app.create_app`).

Each endpoint checks its request (`web.models`), runs the library call of `web.service` in a
worker (`web.jobs.Jobs`, the app's: `jobs_of`) and answers its JSON, the CLI's ``--json`` plus
the board's languages (`web.messages.answer_messages`); warnings travel in the
``X-Termo-Warnings`` header. A value the library refuses is 422 with the CLI's line
(`web.errors.refusal`). Level-3 searches, openers and partitions take the ``long`` lane.
"""

from __future__ import annotations

import functools
import json

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from termo.interface.requests import USER_ERRORS
from web import service
from web.errors import Refused, refusal
from web.jobs import Jobs
from web.models import (BooleanText, CandidatesBody, ErrorBody, FeedbackBody, IntegerText, NumberText, PartitionBody,
                        SuggestBody)

ERROR_RESPONSES = {413: {"model": ErrorBody, "description": "the request body is over the size limit"},
                   503: {"model": ErrorBody, "description": "busy: too many waiting requests (Retry-After)"}}
# the options that choose the solver: checked on the short lane before a long search is queued
SEARCH_OPTIONS = ("game", "level", "t", "beam", "depth", "extended", "strict", "hard", "opener")

router = APIRouter()


async def jobs_of(request: Request) -> Jobs:
    """The app's worker pools (a dependency of every endpoint)."""
    return request.app.state.jobs


def _answer(data, warnings, name: str = "") -> JSONResponse:
    from termo.core.plain_data import jsonable
    from web.messages import answer_messages

    if isinstance(data, dict):  # the board's languages beside the reason and the warnings
        data = {**data, **answer_messages(name, data, warnings)}
    headers = {"X-Termo-Warnings": json.dumps(warnings, ensure_ascii=True)} if warnings else None
    return JSONResponse(jsonable(data), headers=headers)


def _key(name: str, fields: dict) -> tuple:
    """What identical requests share: the command's name and its fields."""
    return name, json.dumps(fields, sort_keys=True, default=str)


async def call(jobs: Jobs, key, func, *args, lane: str = "short", **kwargs):
    """``func(*args, **kwargs)`` in a worker: its JSON, or 422 with the one-line message."""
    try:
        # a partial of a module function: it can travel to a worker process (the long lane)
        data, warnings = await jobs.run(key, functools.partial(func, *args, **kwargs), lane=lane)
    except USER_ERRORS as err:
        return refusal(err)
    return _answer(data, warnings, key[0])


async def ask(jobs: Jobs, name: str, func, fields: dict, lane: str = "short"):
    """:func:`call` of ``func(**fields)``, keyed by the command's name and its fields."""
    return await call(jobs, _key(name, fields), func, lane=lane, **fields)


async def level_of(jobs: Jobs, fields: dict):
    """The level of a request's options, checked on the short lane (a refusal never waits
    behind long searches): an int, or the 422 answer."""
    try:
        return await jobs.run(_key("options", fields), functools.partial(service.check_options, **fields))
    except USER_ERRORS as err:
        return refusal(err)


def _query_bool(name: str, value: str) -> bool:
    """A query parameter that is a boolean: ``true`` or ``false`` (as JSON spells them)."""
    text = value.strip().lower()
    if text not in ("true", "false"):
        from termo.core.errors import TermoError

        raise Refused(TermoError(f"{name} must be true or false, not {value!r}"))
    return text == "true"


async def opener_query(game: str = "termo", level: IntegerText = "3", t: NumberText = "1.0", beam: IntegerText = "10",
                       depth: IntegerText = "1", extended: BooleanText = "false", strict: BooleanText = "false",
                       hard: BooleanText = "false") -> dict:
    """The options of ``GET /api/opener`` (query text; the booleans ``true`` or ``false``)."""
    flags = {name: _query_bool(name, value) for name, value in (("extended", extended), ("strict", strict),
                                                                ("hard", hard))}
    return dict(game=game, level=level, t=t, beam=beam, depth=depth, **flags)


@router.get("/api/games", summary="termo games --json")
async def api_games(jobs: Jobs = Depends(jobs_of)):
    return await call(jobs, ("games",), service.games_data)


@router.post("/api/suggest", summary="termo suggest HISTORY... --json", responses=ERROR_RESPONSES)
async def api_suggest(body: SuggestBody, jobs: Jobs = Depends(jobs_of)):
    fields = body.model_dump()
    lane = "short"
    if str(fields.get("level")).strip() == "3":
        level = await level_of(jobs, {k: fields[k] for k in SEARCH_OPTIONS})
        if not isinstance(level, int):
            return level
        lane = "long"
    return await ask(jobs, "suggest", service.suggest, fields, lane=lane)


@router.get("/api/opener", summary="termo opener --json", responses=ERROR_RESPONSES)
async def api_opener(fields: dict = Depends(opener_query), jobs: Jobs = Depends(jobs_of)):
    """Booleans are ``true`` or ``false``."""
    checked = await level_of(jobs, {**fields, "opener": "optimal"})
    if not isinstance(checked, int):
        return checked
    return await ask(jobs, "opener", service.opener, fields, lane="long" if checked == 3 else "short")


@router.post("/api/feedback", summary="termo feedback GUESS ANSWER --json", responses=ERROR_RESPONSES)
async def api_feedback(body: FeedbackBody, jobs: Jobs = Depends(jobs_of)):
    return await ask(jobs, "feedback", service.feedback, body.model_dump())


@router.post("/api/partition", summary="termo partition GUESS HISTORY... --json", responses=ERROR_RESPONSES)
async def api_partition(body: PartitionBody, jobs: Jobs = Depends(jobs_of)):
    return await ask(jobs, "partition", service.partition, body.model_dump(), lane="long")


@router.post("/api/candidates", summary="the candidates a history leaves (the board's last round)",
             responses=ERROR_RESPONSES)
async def api_candidates(body: CandidatesBody, jobs: Jobs = Depends(jobs_of)):
    return await ask(jobs, "candidates", service.candidates, body.model_dump())


@router.get("/api/health", summary="the server is up; its worker pool; whether every game is warm")
async def api_health(request: Request, jobs: Jobs = Depends(jobs_of)):
    """``ready``: every game's kernels and matrices are loaded (`termo serve` prepares them
    at start); ``warming``: the games still being prepared (answered meanwhile, the first
    questions more slowly); ``warm_seconds``: how long that took, once ready."""
    warmup = request.app.state.warmup
    state = warmup.state() if warmup is not None else {"ready": True, "warming": [], "warm_seconds": None}
    return {"ok": True, "jobs": jobs.stats(), "configurations": len(service.ADVISORS),
            "advisors": service.ADVISORS.advisors(), **state}
