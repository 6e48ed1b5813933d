"""What every API router shares: the app's worker pools (`jobs_of`), a library call run in a worker
and answered as JSON (`call`, `ask`), the options checked on the short lane (`level_of`), and the
error answers every endpoint documents (`ERROR_RESPONSES`).

Each endpoint checks its request (`web.models`), runs the library call of `web.service` in a
worker (`web.jobs.Jobs`) and answers its JSON, the CLI's ``--json`` plus the board's languages
(`web.messages.answer_messages`); warnings travel in the ``X-Termo-Warnings`` header. A value the
library refuses is 422 with the CLI's line (`web.errors.refusal`).
"""

from __future__ import annotations

import functools
import json

from fastapi import Request
from fastapi.responses import JSONResponse

from termo.interface.requests import USER_ERRORS
from web import service
from web.errors import Refused, refusal
from web.jobs import Jobs
from web.models import ErrorBody

ERROR_RESPONSES = {413: {"model": ErrorBody, "description": "the request body is over the size limit"},
                   503: {"model": ErrorBody, "description": "busy: too many waiting requests (Retry-After)"}}


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


def query_bool(name: str, value: str) -> bool:
    """A query parameter that is a boolean: ``true`` or ``false`` (as JSON spells them)."""
    text = value.strip().lower()
    if text not in ("true", "false"):
        from termo.core.errors import TermoError

        raise Refused(TermoError(f"{name} must be true or false, not {value!r}"))
    return text == "true"
