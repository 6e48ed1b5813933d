"""How the app answers what it refuses: every error body is one line (`web.responses.error_body`).

- `refusal(err)`: 422 for a value the library refuses, the CLI's line in the API's terms
  (`api_line`: ``--level`` is the field ``level``);
- `validation_line(err)`: one line for a malformed request (pydantic's list made readable);
- `add_error_handlers(app)`: the handlers of a malformed body (422, with ``loc``), the
  framework's own errors (404, 405, an unreadable body), a crash (500), a full queue and a
  worker that died (503).
"""

from __future__ import annotations

import json
import re
from concurrent.futures.process import BrokenProcessPool

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from termo.core.safe_text import one_line
from web.jobs import Busy
from web.responses import SECURITY_HEADERS, error_response

# the options whose command-line flags (--level) are body fields or query parameters (level)
_FLAGS = re.compile(r"(?<![\w-])--(level|t|beam|depth|list|opener|hard|extended|strict|no-tree|game|objective)(?![\w-])")
_QUOTED = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


def api_line(line: str) -> str:
    """A CLI message in the API's terms: a flag (``--level``) is the field's name (``level``);
    quoted input echoed in the message is left as it was typed."""
    parts = _QUOTED.split(line)
    return "".join(part if i % 2 else _FLAGS.sub(lambda m: m.group(1).replace("-", "_"), part)
                   for i, part in enumerate(parts))


def refusal(err: BaseException):
    """422 for a value the library refuses: the CLI's line, in the API's terms."""
    return error_response(422, api_line(one_line(str(err))), error=err)


class Refused(Exception):
    """A request parameter refused before the endpoint runs (a FastAPI dependency): answered
    as `refusal` of the library's error it carries (``error``)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


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


def validation_line(err: RequestValidationError) -> str:
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


async def _invalid(request: Request, err: RequestValidationError):
    """A malformed request: 422 with one line, FastAPI's ``loc`` and the field's code."""
    line = validation_line(err)
    kind = request.headers.get("content-type", "")
    if line == "the body must be a JSON object" and "json" not in kind:
        line += f" (sent as {kind or 'no content type'}; send Content-Type: application/json)"
    errors = err.errors()
    loc = [p for p in errors[0].get("loc", ())] if errors else None
    # the request's own field (``level`` of ["body", "level", "int"]: pydantic adds the union member it tried)
    field = next((part for part in (loc or ())[1:] if isinstance(part, str)), "")
    code, params = ("request.field", {"field": field}) if field else ("request.body", {})
    return error_response(422, one_line(line), error=err, loc=loc, code=code, params=params)


async def _http_error(request: Request, err: StarletteHTTPException):
    """The framework's own errors: an unreadable body (422), 404, 405, ..."""
    if err.status_code == 400 and err.__cause__ is not None:  # the framework could not read the body
        deep = isinstance(err.__cause__, RecursionError)
        line = "the body is nested too deeply to be read" if deep else "the body is not valid JSON"
        return error_response(422, line, error=err, loc=["body"], code="request.body")
    if err.status_code in (204, 304):
        return JSONResponse(None, status_code=err.status_code, headers=err.headers)
    detail = err.detail if isinstance(err.detail, str) else json.dumps(err.detail)
    code = {404: "request.not_found", 405: "request.method"}.get(err.status_code)
    return error_response(err.status_code, one_line(detail), error=err, headers=err.headers, code=code)


async def _crashed(request: Request, err: Exception):  # answered outside the middleware: headers here
    return error_response(500, "internal error: the server could not answer this request", error=err,
                          headers=SECURITY_HEADERS, code="server.internal")


async def _busy(request: Request, err: Busy):
    return error_response(503, str(err), error=err, headers={"Retry-After": "1"}, code="server.busy")


async def _worker_died(request: Request, err: BrokenProcessPool):
    return error_response(503, "a search worker stopped (out of memory?); it is being restarted: try again",
                          error=err, headers={"Retry-After": "1"}, code="server.worker_stopped")


async def _refused(request: Request, err: Refused):
    return refusal(err.error)


def add_error_handlers(app: FastAPI) -> None:
    """Every error handler of the app (see the module docstring)."""
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _crashed)
    app.add_exception_handler(Busy, _busy)
    app.add_exception_handler(BrokenProcessPool, _worker_died)
    app.add_exception_handler(Refused, _refused)
