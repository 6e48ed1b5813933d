"""Text made safe to show as one line: what every front end prints or answers of a message.

- `escape_text(text)`: control characters, line breaks, surrogates and bidirectional controls
  written as visible escapes (``\\n``, ``\\x1b``, ``\\xff`` for an undecodable byte).
- `one_line(message)`: escaped, and every quoted piece of echoed input and every very long run
  without spaces cut (`ECHO_LIMIT`, `TOKEN_LIMIT`), the whole at most `LINE_LIMIT` characters.
- `escape_data(value)`: plain JSON data with every text in it escaped (keys too): the ``params``
  and ``loc`` an error body echoes, which may hold input (a lone surrogate cannot be written as
  UTF-8 at all: escaped, it is ``\ud800``).

The CLI writes its errors through them (``termo: error: ...``) and the web app its error bodies,
so one bad input reads the same on a terminal and in a JSON answer.
"""

from __future__ import annotations

import re
import unicodedata

ECHO_LIMIT = 60  # characters of echoed input kept in a message (then "…")
TOKEN_LIMIT = 200  # a run without spaces longer than this is echoed input too (paths are shorter)
LINE_LIMIT = 2000  # a whole message, whatever it holds
# bidirectional controls reorder what a terminal shows (they are Cf, like the harmless ZWJ)
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_QUOTED = re.compile(r"""(?<!\w)(['"])((?:\\.|(?!\1)[^\\])*)\1(?!\w)""", re.S)
_UNIT = re.compile(r"\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\.|.", re.S)
_LONG_TOKEN = re.compile(r"\S{%d,}" % (TOKEN_LIMIT + 1))


def capped_text(data: bytes, limit: int, encoding: str = "utf-8") -> str:
    """``data`` (read with one byte past ``limit``) as text; ValueError "larger than N bytes" or
    "not UTF-8 text" for the caller to put after its own subject."""
    if len(data) > limit:
        raise ValueError(f"larger than {limit:,} bytes")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (Python's surrogate escape)
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape_text(text: str) -> str:
    """``text`` with every control character, line break, surrogate and bidirectional control
    written as a visible escape (``\\n``, ``\\x1b``, ``\\xff`` for an undecodable byte)."""
    out = []
    for ch in text:
        if ch.isprintable() and ch not in _BIDI or unicodedata.category(ch) == "Zs":
            out.append(ch)  # spaces too: Russian groups thousands with a no-break space
        elif unicodedata.category(ch) == "Cf" and ch not in _BIDI:
            out.append(ch)  # zero-width joiners of emoji and the like: invisible but harmless
        else:
            out.append(_escape_char(ch))
    return "".join(out)


def escape_data(value):
    """``value`` (plain data: texts, numbers, lists, dicts) with every text escaped as by
    `escape_text`, dictionary keys included; lists and tuples become lists."""
    if isinstance(value, str):
        return escape_text(value)
    if isinstance(value, dict):
        return {escape_data(key): escape_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [escape_data(item) for item in value]
    return value


def _cut(text: str, limit: int = ECHO_LIMIT, longer_than: int | None = None) -> str:
    """``text`` cut to ``limit`` characters plus "…" when it has more than ``longer_than``
    (default ``limit``); an escape sequence (``\x1b``) counts as one and is never cut in two."""
    units = _UNIT.findall(text)
    if len(units) <= (limit if longer_than is None else longer_than):
        return text
    return "".join(units[:limit]) + "…"


def one_line(message: str) -> str:
    """A message made safe to print as one line: escaped (see `escape_text`), every quoted
    piece of echoed input (``'...'``) and every very long run without spaces cut to
    `ECHO_LIMIT` characters plus "…"."""
    text = escape_text(str(message))
    text = _QUOTED.sub(lambda m: f"{m.group(1)}{_cut(m.group(2))}{m.group(1)}", text)
    text = _LONG_TOKEN.sub(lambda m: _cut(m.group(0), longer_than=TOKEN_LIMIT), text)
    return _cut(text, LINE_LIMIT)
