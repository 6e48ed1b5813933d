"""Today's official Nerdle Classic answer (docs/puzzles.md): read, validated, stored by date.

Source (``--today-source URL|FILE``, or ``$TERMO_TODAY_SOURCE`` for the web server): an
``http://`` or ``https://`` address (fetched with :mod:`urllib`, a short timeout, at most
:data:`MAX_BYTES`), a ``file://`` address or a local file. Its format is one of

* lines ``YYYY-MM-DD <number> <equation>`` (blank lines and ``#`` comments ignored), e.g.
  ``2026-12-01 1777 12+35=47``;
* JSON: a list of ``{"date": "YYYY-MM-DD", "number": 1777, "answer": "12+35=47"}`` objects, or an
  object holding such a list under ``"answers"`` (``"equation"`` is accepted for ``"answer"``).

Validation of the entry dated the requested UTC day: the date (an entry for another day is not
taken), the expected puzzle number (``1 + days since`` :data:`LAUNCH`), 8 symbols, and the
arithmetic (a true equation, checked exactly by :func:`termo.games.equations.equation_error`
under lax rules, so that signs, zeros or leading zeros the model leaves out do not make it
"false"). Membership in the modelled answer set is checked separately with the game's own guess
checker (``game.check_guess_text``): an answer outside the model is still shown, with its
model-derived numbers (difficulty, candidates after the opener) withheld and the reason given.

Storage: a verified answer is written atomically under ``<cache dir>/nerdle-today/DATE.json``
as a sealed record (:func:`termo.core.cache.seal`) and reused; a stored record is re-validated when
read, and a damaged one is dropped and fetched again. An unverified day (source down, no entry,
failed validation) is never stored as an answer: a small ``DATE.pending.json`` records the last
attempt and its reason, and the source is asked again on the next request (at most every
``retry_seconds``; the CLI uses 0: every call retries). Nothing here raises because the source is
down: the result says ``"status": "being verified"`` with the reason.

Puzzle numbers: Nerdle #1 is taken to be 2022-01-20 (:data:`LAUNCH`, the launch the brief gives;
public pages agree it launched in January 2022; the exact day could not be confirmed from here).
"""

from __future__ import annotations

import datetime as dt
import json
import time
import urllib.error
import urllib.request
from pathlib import Path

from termo.core.cache import atomic_write_json, open_sealed, read_json, seal, warn, warn_not_stored
from termo.core.errors import TermoError
from termo.games import equations
from termo.core.paths import cache_dir
from termo.core.safe_text import capped_text
from termo.puzzles.archive import nerdle_game, parse_date, utc_today

LAUNCH = dt.date(2022, 1, 20)  # Nerdle Classic #1 (assumption documented above)
TIMEOUT = 5.0  # seconds for a URL source
MAX_BYTES = 1 << 20
RECORD_FORMAT = "termo-nerdle-today-1"
VERIFIED = "verified"
BEING_VERIFIED = "being verified"
# arithmetic only: a true equation of 8 symbols, whatever the model's answer rules say
ARITHMETIC = equations.Rules(tiles=8, no_unary_signs=False, no_leading_zeros=False, no_lone_zero=False,
                             needs_operator=False, zero_right=True, unsigned_right=False)


class SourceDown(Exception):
    """The source could not be read (missing file, refused connection, HTTP error, timeout)."""


def expected_number(day: dt.date) -> int:
    """The official puzzle number of ``day`` (1 on :data:`LAUNCH`)."""
    return (day - LAUNCH).days + 1


def check_today_date(day: dt.date, today: dt.date | None = None) -> dt.date:
    """``day`` when an official answer can exist for it (launch .. today, UTC), else TermoError."""
    today = today or utc_today()
    if day < LAUNCH:
        raise TermoError(f"Nerdle #1 was on {LAUNCH.isoformat()}; there is no official answer for {day.isoformat()}")
    if day > today:
        raise TermoError(f"{day.isoformat()} is after today ({today.isoformat()} UTC): no official answer yet")
    return day


# ----------------------------------------------------------------------------- reading the source


def read_source(source: str, timeout: float = TIMEOUT) -> str:
    """The text of ``source`` (URL or file); SourceDown with the reason when it cannot be read."""
    source = str(source).strip()
    if not source:
        raise SourceDown("no source configured (give --today-source URL|FILE)")
    try:
        if source.startswith(("http://", "https://")):
            request = urllib.request.Request(source, headers={"User-Agent": "termo-nerdle-today"})
            with urllib.request.urlopen(request, timeout=timeout) as response:
                data = response.read(MAX_BYTES + 1)
        else:
            path = Path(source[7:] if source.startswith("file://") else source)
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as err:
        raise SourceDown(f"the source answered HTTP {err.code}") from None
    except urllib.error.URLError as err:
        raise SourceDown(f"the source cannot be reached: {err.reason}") from None
    except (OSError, ValueError) as err:  # timeouts, refused connections, missing files, bad URLs
        raise SourceDown(f"the source cannot be read: {getattr(err, 'strerror', None) or err}") from None
    try:
        return capped_text(data, MAX_BYTES)
    except ValueError as err:
        raise SourceDown(f"the source is {err}") from None


def parse_source(text: str) -> list[dict]:
    """The dated entries of a source text: ``[{"date", "number", "answer"}]`` (as written, unchecked);
    a line or object that does not have the form is skipped."""
    stripped = text.lstrip("\ufeff").strip()
    entries: list[dict] = []
    if stripped[:1] in ("[", "{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            return []
        items = data.get("answers", []) if isinstance(data, dict) else data
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                answer = item.get("answer", item.get("equation"))
                entries.append({"date": str(item.get("date", "")), "number": item.get("number"),
                                "answer": str(answer) if answer is not None else ""})
        return entries
    for line in stripped.splitlines():
        line = line.split("#", 1)[0].strip()
        parts = line.split()
        if len(parts) >= 3:
            entries.append({"date": parts[0], "number": parts[1], "answer": "".join(parts[2:])})
    return entries


def validate(entries: list[dict], day: dt.date, game=None) -> tuple[dict | None, str | None]:
    """``(answer, None)`` for the valid entry dated ``day``, else ``(None, reason)``.
    The answer is ``{"equation", "number", "in_model", "model_note"}``."""
    game = game or nerdle_game()
    if not entries:
        return None, "the source holds no dated answers in a known format"
    wanted = day.isoformat()
    dated = [e for e in entries if str(e["date"]).strip() == wanted]
    if not dated:
        latest = max((str(e["date"]) for e in entries), default="?")
        return None, f"the source has no answer dated {wanted} (latest: {latest})"
    if len({(str(e["number"]), str(e["answer"])) for e in dated}) > 1:
        return None, f"the source gives different answers for {wanted}"
    entry = dated[-1]
    expected = expected_number(day)
    try:
        number = int(str(entry["number"]).lstrip("#"))
    except (TypeError, ValueError):
        return None, f"the puzzle number {entry['number']!r} is not a number"
    if number != expected:
        return None, f"the puzzle number is {number}, expected {expected} for {wanted}"
    equation = game.normalize(entry["answer"])
    if len(equation) != 8:
        return None, f"the answer {equation!r} has {len(equation)} symbols, not 8"
    wrong = equations.equation_error(equation, ARITHMETIC)
    if wrong:
        return None, f"the answer {equation!r} is not a true equation: {wrong}"
    try:
        game.check_guess_text(equation)
        in_model, note = equation in game.answers, None
        if not in_model:  # a valid guess that is not an answer (cannot happen for Nerdle: kept honest)
            note = "not in the modelled answer set"
    except TermoError as err:
        in_model, note = False, f"outside the modelled answer set: {err}"
    return {"equation": equation, "number": number, "in_model": in_model, "model_note": note}, None


# ----------------------------------------------------------------------------- the store


def store_dir() -> Path:
    return cache_dir() / "nerdle-today"


def _record_path(day: dt.date) -> Path:
    return store_dir() / f"{day.isoformat()}.json"


def _pending_path(day: dt.date) -> Path:
    return store_dir() / f"{day.isoformat()}.pending.json"


def load_verified(day: dt.date, game=None) -> dict | None:
    """The stored verified answer of ``day``, re-validated; None when missing or not trustworthy."""
    path = _record_path(day)
    if not path.exists():
        return None
    payload, problem = open_sealed(read_json(path), RECORD_FORMAT, day.isoformat(), owner="date")
    if payload is not None:
        answer, problem = validate([{"date": day.isoformat(), "number": payload.get("number"),
                                     "answer": str(payload.get("equation", ""))}], day, game)
        if answer is not None:
            return {**answer, "source": payload.get("source"), "verified_at": payload.get("verified_at")}
    warn(f"stored Nerdle answers: ignoring {path} ({problem}); the source is asked again")
    try:  # damaged, edited or from another rule set: drop it, the source is asked again
        path.unlink()
    except OSError:
        pass
    return None


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def _store_verified(day: dt.date, answer: dict, source: str) -> None:
    atomic_write_json(_record_path(day), seal({
        "format": RECORD_FORMAT, "key": day.isoformat(), "number": answer["number"],
        "equation": answer["equation"], "source": source, "verified_at": _now()}))
    try:
        _pending_path(day).unlink()
    except OSError:
        pass


def _pending(day: dt.date) -> dict | None:
    data = read_json(_pending_path(day))
    return data if isinstance(data, dict) and isinstance(data.get("attempted"), (int, float)) else None


def _store_pending(day: dt.date, reason: str, attempts: int) -> None:
    try:
        atomic_write_json(_pending_path(day), {"date": day.isoformat(), "reason": reason,
                                               "attempted": time.time(), "attempts": attempts})
    except OSError:  # a cache that cannot be written only loses the retry bookkeeping
        pass


# ----------------------------------------------------------------------------- the answer


def todays_nerdle(day: dt.date | str | None = None, source: str | None = None, *, retry_seconds: float = 0.0,
                  timeout: float = TIMEOUT, game=None, today: dt.date | None = None) -> dict:
    """Today's (or ``day``'s) official answer as plain data: verified (from the store, or the source
    now) or ``"being verified"`` with the reason. Raises TermoError only for a bad ``day``."""
    from termo.puzzles.difficulty import scale_for

    game = game or nerdle_game()
    if day is None:
        day = today or utc_today()
    elif isinstance(day, str):
        day = parse_date(day)
    check_today_date(day, today)
    result = {"date": day.isoformat(), "number": expected_number(day), "status": BEING_VERIFIED,
              "equation": None, "in_model": None, "model_note": None, "difficulty": None,
              "from_store": False, "stored": None, "source": source or None, "reason": None,
              "attempts": None}
    answer = load_verified(day, game)
    if answer is not None:
        result.update(from_store=True, stored=True, source=answer.get("source"))
    else:
        pending = _pending(day)
        attempts = int(pending.get("attempts", 0)) if pending else 0
        if pending and retry_seconds > 0 and time.time() - pending["attempted"] < retry_seconds:
            result.update(reason=str(pending.get("reason")), attempts=attempts)
            return _with_difficulty_source(result, game)
        try:
            answer, why = validate(parse_source(read_source(source or "", timeout)), day, game)
        except SourceDown as down:
            answer, why = None, str(down)
        if answer is None:
            _store_pending(day, why, attempts + 1)
            result.update(reason=why, attempts=attempts + 1)
            return _with_difficulty_source(result, game)
        try:
            _store_verified(day, answer, source or "")
            result["stored"] = True
        except OSError as err:  # a full, read-only or blocked store: the answer is still shown
            result["stored"] = False
            warn_not_stored("the verified answer", store_dir(), err, "the source is asked again next time")
    result.update(status=VERIFIED, equation=answer["equation"], number=answer["number"],
                  in_model=answer["in_model"], model_note=answer["model_note"])
    if answer["in_model"]:
        result["difficulty"] = scale_for(game).of(answer["equation"])
    return _with_difficulty_source(result, game)


def _with_difficulty_source(result: dict, game) -> dict:
    from termo.puzzles.difficulty import scale_for

    result["difficulty_source"] = scale_for(game).source
    return result
