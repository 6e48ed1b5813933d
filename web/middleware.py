"""The ASGI middleware around the app (`web.app.create_app` adds them, outermost last):

- `BodyLimit`: a request body over `web.limits.MAX_BODY` bytes is 413, before any parsing;
- `HeadAsGet`: ``HEAD`` answered like ``GET``, without the body;
- `AllowedHosts`: only the host names the server is bound to (400 otherwise: DNS rebinding);
- `SecurityHeaders`: `web.responses.SECURITY_HEADERS` on every answer.
"""

from __future__ import annotations

import json

from termo.core.safe_text import one_line
from web.limits import MAX_BODY
from web.responses import SECURITY_HEADERS, error_body, error_response


class BodyLimit:
    """Pure ASGI middleware: a request body over ``limit`` bytes is answered 413, whether the
    client said its length (Content-Length) or streams it (chunked), before any parsing."""

    def __init__(self, app, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    size = -1
                if size < 0 or size > self.limit:
                    return await self._too_large(send)
        seen = 0
        refused = False

        async def limited():
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:  # a streamed body: answered here, the app sees the client leave
                    refused = True
                    if not started:
                        await self._too_large(send)
                    return {"type": "http.disconnect"}
            return message

        started = False

        async def guarded_send(message):
            nonlocal started
            if refused:
                return  # the 413 is already on its way
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited, guarded_send)
        except Exception:
            if not refused:
                raise

    async def _too_large(self, send):
        body = json.dumps(error_body(f"the request body is larger than {self.limit:,} bytes", code="request.too_large",
                                     params={"kib": self.limit // 1024})).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Pure ASGI middleware: `web.responses.SECURITY_HEADERS` on every answer (a page that
    sets its own policy keeps it)."""

    def __init__(self, app) -> None:
        self.app = app
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in self.headers if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class AllowedHosts:
    """Pure ASGI middleware: only requests whose ``Host`` names this server (``hosts``, any
    case, with no port or the port it listens on) are answered; any other is 400, so that a
    page of another site cannot reach the server through a name of its own that resolves to
    this machine (DNS rebinding). ``hosts=None``: every name."""

    def __init__(self, app, hosts=None) -> None:
        self.app = app
        self.hosts = None if hosts is None else {h.strip().lower() for h in hosts}

    def allowed(self, scope) -> tuple[bool, str]:
        host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), None)
        if host is None:
            return scope.get("http_version") == "1.0", ""  # HTTP/1.1 requires the header
        name, port = host.strip().lower(), ""
        if name.startswith("["):
            end = name.find("]")
            name, port = (name[:end + 1], name[end + 2:]) if end > 0 and name[end + 1:end + 2] in ("", ":") else (name, "")
        elif name.count(":") == 1:
            name, port = name.split(":")
        if name not in self.hosts:
            return False, host
        server = scope.get("server") or (None, None)
        if port and server[1] is not None and port != str(server[1]):
            return False, host
        return True, host

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or self.hosts is None:
            return await self.app(scope, receive, send)
        ok, host = self.allowed(scope)
        if ok:
            return await self.app(scope, receive, send)
        names = ", ".join(sorted(self.hosts))
        response = error_response(400, one_line(f"the host {host!r} is not served here (this server answers to {names})"))
        await response(scope, receive, send)


class HeadAsGet:
    """Pure ASGI middleware: ``HEAD`` is answered like ``GET`` without the body, on every path
    that answers ``GET`` (pages, the API's GETs, static files)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "HEAD":
            return await self.app(scope, receive, send)
        done = False

        async def headers_only(message):
            nonlocal done
            if message["type"] == "http.response.body":
                if done:
                    return
                if message.get("more_body", False):
                    return
                done = True
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
