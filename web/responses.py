"""What every answer of `termo serve` carries: the security headers and the error body.

`SECURITY_HEADERS` go on every response (pages, the Nerdle puzzle pages, 404 pages, static files,
the API, the server's own refusals): a Content-Security-Policy of ``default-src 'self'`` with
``frame-ancestors 'none'`` (and ``X-Frame-Options: DENY`` for older browsers: no page can be
framed), ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``.

`error_body` builds every JSON error body, in one place: ``{"detail": "<one line>"}`` plus, for a
malformed request, ``"loc"`` (where in the request, FastAPI's location) and, for an error the
message catalogue knows, ``"code"``, ``"params"`` and ``"messages"`` (`_catalogued`). Every text
in it that may echo input (``detail``, ``loc``, ``params``) is escaped
(`termo.core.safe_text.escape_data`): a control character or a lone surrogate reads ``\x1b`` or
``\ud800``, so the body is always valid UTF-8.
"""

from __future__ import annotations

from typing import Optional, Sequence

from fastapi.responses import JSONResponse

# the boards load nothing from outside the app (the browser enforces it); the game's colours are
# an inline style attribute of the page; 'unsafe-eval' only lets test drivers evaluate their
# expressions in the page (Playwright's wait_for_function): the board's script evaluates no text
PAGE_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
               "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
               "form-action 'self'")
SECURITY_HEADERS = {"Content-Security-Policy": PAGE_POLICY, "X-Content-Type-Options": "nosniff",
                    "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}


def _catalogued(error: Optional[BaseException], code: Optional[str], params: Optional[dict]) -> dict:
    """``code``, ``params`` and ``messages`` (`web.messages.catalogued`) of the error's own code,
    else of the ``code`` the server gives its own refusal; {} when neither is catalogued (the board
    then shows ``detail``)."""
    from web.messages import catalogued

    own = catalogued(getattr(error, "code", None), getattr(error, "params", None)) if error is not None else {}
    return own or catalogued(code, params)


def error_body(detail: str, error: Optional[BaseException] = None, loc: Optional[Sequence] = None,
               code: Optional[str] = None, params: Optional[dict] = None) -> dict:
    """The JSON body of an error answer (see the module docstring); ``code``/``params``: the
    catalogue's message for an error of the server itself (busy, too large, malformed), used when
    ``error`` carries none."""
    from termo.core.safe_text import escape_data  # whatever echoes input is valid UTF-8, escaped

    body: dict = {"detail": escape_data(str(detail))}
    if loc:
        body["loc"] = escape_data(list(loc))
    body.update(_catalogued(error, code, params))
    return body


def error_response(status: int, detail: str, error: Optional[BaseException] = None,
                   loc: Optional[Sequence] = None, headers: Optional[dict] = None,
                   code: Optional[str] = None, params: Optional[dict] = None) -> JSONResponse:
    """A JSON error answer with `error_body` (the security headers are added by the app's
    middleware; ``headers``: more, e.g. ``Retry-After``)."""
    return JSONResponse(error_body(detail, error, loc, code, params), status_code=status, headers=headers)
