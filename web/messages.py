"""The board's languages for what the API says: error bodies and the messages beside an answer's
reason and warnings (`termo.core.messages` holds the catalogue; docs/web.md the keys).

- `catalogued(code, params)`: the ``"code", "params", "messages": {"en", "pt", "ru"}`` keys that
  `web.responses.error_body` adds beside ``detail`` (nothing for an error without a code).
- `answer_messages(name, data, warnings)`: the keys added at the end of an answer:
  ``reason_messages`` beside ``reason`` and ``warning_messages`` (parallel to the
  X-Termo-Warnings header) on the endpoints that warn.
"""

from __future__ import annotations

from termo.core.messages import jsonable_params, messages, messages_of

WARNING_ENDPOINTS = frozenset({"suggest", "partition", "candidates"})


def catalogued(code, params=None) -> dict:
    """``code``, ``params`` and ``messages`` (each board language, one line) of a catalogue code,
    for an error body; {} for no code or one the catalogue lacks (the body then has its line only)."""
    if not code:
        return {}
    from termo.core.safe_text import escape_data  # params echo input: escaped, like the detail line

    params = escape_data(jsonable_params(params or {}))
    try:
        rendered = messages(code, params)
    except (KeyError, IndexError, ValueError, TypeError):
        return {}
    from termo.core.plain_data import jsonable  # a refused nan or inf travels as its text

    return {"code": code, "params": jsonable(params), "messages": {lang: _safe(text) for lang, text in rendered.items()}}


def _safe(text: str) -> str:
    from termo.core.safe_text import one_line

    return one_line(text)


def answer_messages(name: str, data, warnings) -> dict:
    """The keys to add at the end of the answer ``data`` of endpoint ``name`` (see the module
    docstring); a reason the catalogue does not know gets no ``reason_messages``."""
    extra: dict = {}
    if isinstance(data, dict) and isinstance(data.get("reason"), str):
        rendered = messages_of(data["reason"])
        if rendered is not None:
            extra["reason_messages"] = rendered
    if name in WARNING_ENDPOINTS:
        extra["warning_messages"] = [messages_of(w) or {"en": str(w), "pt": str(w), "ru": str(w)}
                                     for w in warnings or ()]
    return extra
