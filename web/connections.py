"""The connections of `termo serve`: timeouts, a bound on open connections, a quiet log.

uvicorn's HTTP/1.1 protocol (h11) keeps a connection that sends nothing open for ever, and a
request head that trickles in a byte at a time too; past the process's descriptor limit every
refused ``accept()`` logs a traceback. `Protocol` adds, per connection:

* an idle timeout before the first request (`web.limits.IDLE_TIMEOUT`): a connection that sends
  nothing is closed; between requests uvicorn's keep-alive timeout does the same;
* a request timeout (`web.limits.REQUEST_TIMEOUT`): the head and the body of a request must
  arrive within it from their first byte, else ``408`` (JSON) and the connection is closed;
* a body deadline: once its head is whole, a body must keep up `web.limits.BODY_MIN_RATE` bytes
  a second after a grace of `web.limits.BODY_GRACE` seconds (its deadline moves on with every
  byte: head + grace + bytes received / rate), else ``408`` (JSON) and the connection is closed;
* a bound on open connections (`max_connections`: `web.limits.MAX_CONNECTIONS`, lowered to fit
  the descriptor limit): past it the connection that has waited longest for its client is
  closed to make room: one with no request in flight (idle, in keep-alive, or still sending its
  head; by when it began to wait) or one whose body stopped arriving (by its last byte). A
  request whose body is in, being answered, is never closed: when every connection has one, the
  new connection is answered ``503`` (JSON, ``Retry-After``) and closed;
* JSON instead of uvicorn's plain-text ``400 Invalid HTTP request received.`` (``431`` for a
  head over `web.limits.MAX_HEAD`).

`Server` installs the quiet log: "out of descriptors" (``EMFILE``) and uvicorn's repeated
warnings become one line per `LOG_EVERY` seconds with a count, never a traceback per accept.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import resource
import time
from collections import OrderedDict

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from web.limits import BODY_GRACE, BODY_MIN_RATE, IDLE_TIMEOUT, MAX_CONNECTIONS, MAX_HEAD, REQUEST_TIMEOUT

ACCEPT_BATCH = 64  # connections accepted per wake-up of the listening socket (asyncio's loop)
LISTEN_BACKLOG = 2048  # the kernel's queue of connections not yet accepted
FD_RESERVE = 256  # descriptors kept for the process itself (files, worker pipes, the accept batch)
LOG_EVERY = 10.0  # seconds between two lines of the same repeated message
RESOURCE_ERRORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def max_connections(limit: int = MAX_CONNECTIONS, soft: int | None = None) -> int:
    """The bound on open connections: ``limit``, lowered to fit the soft descriptor limit
    (``soft``: that limit; default this process's)."""
    if soft is None:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limit
    return max(16, min(limit, soft - FD_RESERVE - ACCEPT_BATCH, soft // 2 + soft // 4))


def _raw_response(status: int, reason: str, detail: str, extra: tuple = ()) -> bytes:
    """A whole HTTP/1.1 response with a JSON error body, written without h11 (a connection
    refused before its request, or one whose parser is in error)."""
    from web.responses import SECURITY_HEADERS, error_body

    body = json.dumps(error_body(detail)).encode()
    lines = [f"HTTP/1.1 {status} {reason}", "content-type: application/json", f"content-length: {len(body)}",
             "connection: close", *(f"{k.lower()}: {v}" for k, v in SECURITY_HEADERS.items()), *extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


class Protocol(H11Protocol):
    """uvicorn's h11 protocol with the timeouts and the bound of the module docstring."""

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._timer: asyncio.TimerHandle | None = None
        self._timer_kind = ""
        self._refused = False
        self._request_due = self._body_started = 0.0
        self._body_bytes = 0
        waiting = _evictable(self.server_state)
        if len(self.connections) > _bound(self.server_state):
            victim = _victim(self.server_state)
            if victim is None:  # every connection has a request being answered: refuse this one
                self._refused = True
                self.connections.discard(self)
                transport.write(_raw_response(503, "Service Unavailable",
                                              "the server has too many open connections; try again shortly",
                                              ("retry-after: 1",)))
                transport.close()
                return
            victim._drop()
        waiting[self] = self.loop.time()
        self._arm(IDLE_TIMEOUT, "idle")

    # -- timers

    def _arm(self, seconds: float, kind: str) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expired)
        self._timer_kind = kind

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._timer_kind = ""

    def _expired(self) -> None:
        kind, self._timer, self._timer_kind = self._timer_kind, None, ""
        if self.transport.is_closing():
            return
        if kind == "body" and self._arm_body():
            return  # the body kept up: its deadline moved on
        unanswered = self.cycle is None or not self.cycle.response_started
        if kind == "request" and self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            # the head never arrived whole: say so, then close
            self.transport.write(_raw_response(408, "Request Timeout",
                                               f"the request was not received within {REQUEST_TIMEOUT:g} s"))
        elif kind == "body" and unanswered:
            late = (f"the request was not received within {REQUEST_TIMEOUT:g} s"
                    if self.loop.time() >= self._request_due else
                    f"the request body stopped arriving (at least {BODY_MIN_RATE:,} bytes a second "
                    f"after the first {BODY_GRACE:g} s)")
            self.transport.write(_raw_response(408, "Request Timeout", late))
        self._drop()

    def _body_deadline(self) -> float:
        """When the body being received is late: its grace, plus a second per `BODY_MIN_RATE`
        bytes received, and never after the request's own timeout."""
        return min(self._request_due, self._body_started + BODY_GRACE + self._body_bytes / BODY_MIN_RATE)

    def _arm_body(self) -> bool:
        """Arm the body's timer at its deadline; False when that is past (the body is late)."""
        left = self._body_deadline() - self.loop.time()
        if left <= 0:
            return False
        self._arm(left, "body")
        return True

    def _drop(self) -> None:
        """Close the connection (an idle one, or one too slow)."""
        _evictable(self.server_state).pop(self, None)
        _bodies(self.server_state).pop(self, None)
        self._disarm()
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
        try:
            self.conn.send(h11.ConnectionClosed())
        except h11.LocalProtocolError:
            pass
        self.transport.close()

    # -- the protocol

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._timer_kind not in ("request", "body"):  # the first bytes of a request: its time starts
            self._arm(REQUEST_TIMEOUT, "request")
            self._request_due = self.loop.time() + REQUEST_TIMEOUT
        elif self._timer_kind == "body":  # more of a body: it waits again from now
            self._body_bytes += len(data)
            _bodies(self.server_state)[self] = self.loop.time()
            _bodies(self.server_state).move_to_end(self)
        if self.conn.their_state is h11.IDLE and self._head_too_large(data):
            self._unset_keepalive_if_required()
            self.transport.write(_raw_response(431, "Request Header Fields Too Large",
                                               f"the request head is larger than {MAX_HEAD:,} bytes"))
            self._drop()
            return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # a whole head: a request in flight
            _evictable(self.server_state).pop(self, None)
        if self.conn.their_state is h11.SEND_BODY and self._timer_kind == "request":  # the head just came whole
            self._body_started, self._body_bytes = self.loop.time(), 0
            _bodies(self.server_state)[self] = self._body_started
            self._arm_body()
        elif self.conn.their_state not in (h11.IDLE, h11.SEND_BODY) and self._timer_kind in ("request", "body"):
            _bodies(self.server_state).pop(self, None)
            self._disarm()  # the whole request is in: the answer may take as long as it needs

    def _head_too_large(self, data: bytes) -> bool:
        """Whether the head being received is over `MAX_HEAD` bytes (h11 bounds only a head that
        is still incomplete; a whole one in a single read would pass)."""
        buffered = getattr(self.conn, "_receive_buffer", b"")
        if len(buffered) + len(data) <= MAX_HEAD:
            return False
        head = (bytes(buffered) + data)[:MAX_HEAD + 4]
        return b"\r\n\r\n" not in head and b"\n\n" not in head

    def on_response_complete(self) -> None:
        super().on_response_complete()  # arms uvicorn's keep-alive timeout
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            _evictable(self.server_state)[self] = self.loop.time()

    def connection_lost(self, exc) -> None:
        if getattr(self, "_refused", False):
            return
        _evictable(self.server_state).pop(self, None)
        _bodies(self.server_state).pop(self, None)
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot parse: a JSON answer (uvicorn sends plain text), then close."""
        self._disarm()
        if len(getattr(self.conn, "_receive_buffer", b"")) > MAX_HEAD:  # h11: "Receive buffer too long"
            response = _raw_response(431, "Request Header Fields Too Large",
                                     f"the request head is larger than {MAX_HEAD:,} bytes")
        else:
            response = _raw_response(400, "Bad Request", "the request is not valid HTTP/1.1")
        self.transport.write(response)
        self.transport.close()


def _evictable(state) -> OrderedDict:
    """The server's connections that have no request in flight, oldest first (the loop's time
    when each began to wait)."""
    waiting = getattr(state, "termo_evictable", None)
    if waiting is None:
        waiting = state.termo_evictable = OrderedDict()
    return waiting


def _bodies(state) -> OrderedDict:
    """The server's connections whose request body is arriving, the longest silent first (the
    loop's time of each one's last byte)."""
    bodies = getattr(state, "termo_bodies", None)
    if bodies is None:
        bodies = state.termo_bodies = OrderedDict()
    return bodies


def _victim(state):
    """The connection to close for a new one: of the oldest idle one and the body silent the
    longest, the one that has waited longer for its client (None: every connection has a whole
    request being answered)."""
    firsts = [next(iter(d.items()), None) for d in (_evictable(state), _bodies(state))]
    firsts = [item for item in firsts if item is not None]
    return min(firsts, key=lambda item: item[1])[0] if firsts else None


def _bound(state) -> int:
    bound = getattr(state, "termo_bound", None)
    if bound is None:
        bound = state.termo_bound = max_connections()
    return bound


class QuietLog(logging.Filter):
    """At most one line per `LOG_EVERY` seconds for each repeated message (with a count of the
    ones left out), and no traceback for running out of descriptors."""

    def __init__(self) -> None:
        super().__init__()
        self._last: dict = {}  # message -> (time of the last line, lines left out since)

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = time.monotonic()
        last, left_out = self._last.get(key, (-LOG_EVERY, 0))
        if now - last < LOG_EVERY:
            self._last[key] = (last, left_out + 1)
            return False
        self._last[key] = (now, 0)
        if left_out:
            record.msg = f"{record.msg} ({left_out:,} more like it in the last {now - last:.0f} s)"
        return True


def _loop_errors(quiet: QuietLog):
    """The event loop's exception handler: one line for "out of descriptors", else asyncio's."""
    log = logging.getLogger("termo.serve")

    def handler(loop, context) -> None:
        error = context.get("exception")
        if isinstance(error, OSError) and error.errno in RESOURCE_ERRORS:
            record = log.makeRecord(log.name, logging.WARNING, __file__, 0,
                                    "warning: %s: new connections wait until descriptors are free",
                                    (error.strerror or "out of resources",), None)
            if quiet.filter(record):
                log.handle(record)
            return
        loop.default_exception_handler(context)

    return handler


class Server(uvicorn.Server):
    """uvicorn's server with `Protocol`, the quiet log and a large kernel backlog."""

    async def startup(self, sockets=None) -> None:
        quiet = QuietLog()
        for name in ("uvicorn.error", "asyncio"):
            logging.getLogger(name).addFilter(quiet)
        log = logging.getLogger("termo.serve")
        if not log.handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("termo: %(message)s"))
            log.addHandler(handler)
            log.propagate = False
        asyncio.get_running_loop().set_exception_handler(_loop_errors(quiet))
        await super().startup(sockets=sockets)
        for listener in sockets or ():  # asyncio accepts ACCEPT_BATCH at a time; the kernel queues more
            try:
                listener.listen(LISTEN_BACKLOG)
            except OSError:
                pass


def config(app, **kwargs) -> uvicorn.Config:
    """The uvicorn configuration of `termo serve` (``kwargs`` passed on)."""
    return uvicorn.Config(app, http=Protocol, backlog=ACCEPT_BATCH, h11_max_incomplete_event_size=MAX_HEAD,
                          timeout_keep_alive=int(IDLE_TIMEOUT), timeout_graceful_shutdown=5, **kwargs)


__all__ = ["Protocol", "Server", "config", "max_connections"]
