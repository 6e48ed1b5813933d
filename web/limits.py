"""The bounds of an HTTP request, checked before any work starts.

The option bounds are the front ends' own (`termo.interface.requests`, `termo.interface.suggest.Config.check_game`: the same
values give the same messages); these are the ones only a server needs: how large a body may
be, how many history items and how long each, how long a text field, how many searches may wait
for a worker, how many solver configurations stay in memory; and the connections' own bounds
(`web.connections`): how many may be open, how long one may stay silent or take to send a
request, how fast a body must arrive, how large a request head may be.
"""

from __future__ import annotations

from termo.core.errors import TermoError

MAX_BODY = 16 * 1024  # bytes of a request body (a full 6-round Nerdle history is ~120 bytes)
MAX_HISTORY = 32  # history items (every game has at most 6 tries; more is refused by the library)
MAX_ITEM = 64  # characters of one history item (guess:colours)
MAX_TEXT = 64  # characters of a text field (game, guess, answer, opener)
MAX_ADVISORS = 16  # solver configurations kept in memory (LRU)
MAX_WAITING = 64  # searches waiting for a worker before the server answers 503
MAX_RESULTS = 2048  # answers kept in memory (LRU, keyed by the whole request; a few KB each)
MAX_RESULT_BYTES = 16 * 1024 * 1024  # ... and at most this many bytes of their JSON (web.jobs.answer_bytes)
WORKERS = 2  # worker threads running searches (the machine has 2 cores)
MAX_CONNECTIONS = 1000  # open connections (lowered to fit the descriptor limit: web.connections)
IDLE_TIMEOUT = 5.0  # seconds a connection may stay silent before its first request (and between requests)
REQUEST_TIMEOUT = 10.0  # seconds from a request's first byte to its last (head and body)
BODY_GRACE = 3.0  # seconds a body may take after its head before BODY_MIN_RATE applies
BODY_MIN_RATE = 500  # bytes a second a body must keep up after BODY_GRACE (a 16 KiB body: 33 s)
MAX_HEAD = 16 * 1024  # bytes of a request head (request line and headers)


def check_text(name: str, value) -> str:
    """A text field of at most `MAX_TEXT` characters."""
    if not isinstance(value, str):
        raise TermoError(f"{name} must be text, not {type(value).__name__}", "option.text_type", {"name": name})
    if len(value) > MAX_TEXT:
        raise TermoError(f"{name} is too long: {len(value):,} characters, at most {MAX_TEXT}", "option.too_long",
                         {"name": name, "n": len(value), "max": MAX_TEXT})
    return value


def check_history(history) -> list[str]:
    """A history of at most `MAX_HISTORY` items of at most `MAX_ITEM` characters each."""
    items = list(history or [])
    if len(items) > MAX_HISTORY:
        raise TermoError(f"history has {len(items):,} items; at most {MAX_HISTORY} are accepted "
                         f"(no game has more than 6 tries)", "history.too_long", {"n": len(items), "max": MAX_HISTORY})
    for number, item in enumerate(items, start=1):
        if not isinstance(item, str):
            raise TermoError(f"history item {number} must be text (guess:colours), not {type(item).__name__}",
                             "history.item_type", {"number": number})
        if len(item) > MAX_ITEM:
            raise TermoError(f"history item {number} is too long: {len(item):,} characters, at most {MAX_ITEM}",
                             "history.item_too_long", {"number": number, "n": len(item), "max": MAX_ITEM})
    return items
