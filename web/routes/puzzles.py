"""Nerdle puzzle routes: the dated archive, today's official answer and the monthly statistics,
as JSON (the same plain data as ``termo nerdle ... --json``) and as plain server-rendered pages
(no scripts, no external assets). See docs/puzzles.md.

``router`` (a FastAPI ``APIRouter``) is included by the web app. The source of today's answers is
read from ``$TERMO_TODAY_SOURCE`` at each request (``termo serve --today-source`` sets it); while
an answer is unverified the source is asked again at most every ``$TERMO_TODAY_RETRY_SECONDS``
(default 60) so that a down source does not slow every page. The handlers are plain functions,
so the framework runs them in its worker threads and the event loop never waits on a fetch.
A bad date or month is HTTP 422 with the CLI's one-line message (JSON ``{"detail": ...}``, or the
page with the message).
"""

from __future__ import annotations

import html
import os
from typing import Optional

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse

from termo.core.errors import TermoError

SOURCE_ENV = "TERMO_TODAY_SOURCE"
RETRY_ENV = "TERMO_TODAY_RETRY_SECONDS"
DEFAULT_RETRY_SECONDS = 60.0

router = APIRouter()


def _retry_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get(RETRY_ENV, DEFAULT_RETRY_SECONDS)))
    except ValueError:
        return DEFAULT_RETRY_SECONDS


def _source() -> Optional[str]:
    return os.environ.get(SOURCE_ENV) or None


def _archive(date: str) -> dict:
    from termo.interface.puzzles import archive_puzzle

    return archive_puzzle(date)


def _today(date: Optional[str]) -> dict:
    from termo.interface.puzzles import todays_nerdle

    return todays_nerdle(date or None, _source(), retry_seconds=_retry_seconds())


def _stats(month: Optional[str]) -> dict:
    from termo.interface.puzzles import archive_stats

    return archive_stats(month or None)


def _line(err: TermoError) -> str:
    """The one line the CLI prints after ``termo: error:`` (escaped, echoed input cut)."""
    from termo.core.safe_text import one_line

    return one_line(str(err))


def _error_json(err: TermoError) -> JSONResponse:
    from web.responses import error_response  # every error body is built there

    return error_response(422, _line(err), error=err)


# ----------------------------------------------------------------------------- JSON


def _json(compute, value):
    """``compute(value)``'s plain data, or 422 with the CLI's line."""
    try:
        return compute(value)
    except TermoError as err:
        return _error_json(err)


@router.get("/api/nerdle/archive/{date}")
def api_archive(date: str):
    """The archive's equation for a UTC date (YYYY-MM-DD) with its difficulty (retroactive)."""
    return _json(_archive, date)


@router.get("/api/nerdle/today")
def api_today(date: Optional[str] = None):
    """Today's (or ``date``'s) official answer: ``status`` is "verified" or "being verified"."""
    return _json(_today, date)


@router.get("/api/nerdle/stats")
def api_stats(month: Optional[str] = None):
    """Puzzle counts, mean difficulty and the hardest day of ``month`` (YYYY-MM) and the month before."""
    return _json(_stats, month)


# ----------------------------------------------------------------------------- pages

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:42rem;margin:1rem auto;padding:0 1rem;background:#fff;color:#161803}
h1{font-size:1.4rem} h2{font-size:1.1rem;margin-top:1.2rem} nav a{margin-right:1rem;color:#820458;white-space:nowrap;display:inline-block}
.eq{font-family:ui-monospace,monospace;font-size:1.8rem;letter-spacing:.2rem;background:#398874;color:#fff;
padding:.3rem .6rem;border-radius:.3rem;display:inline-block}
.note{background:#f3eef2;border-left:.3rem solid #820458;padding:.5rem .8rem}
.pending{background:#fff4d6;border-left:.3rem solid #c79a00;padding:.5rem .8rem}
.error{background:#fde2e2;border-left:.3rem solid #b00020;padding:.5rem .8rem}
table{border-collapse:collapse} td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}
input,button{font-size:1rem;padding:.2rem .4rem}
"""


def _player_reason(reason) -> str:
    """Why today's answer is not shown, said to a player: the server's configuration (a command
    line option) is the operator's business, not the player's."""
    text = str(reason or "")
    if "--today-source" in text or "no source configured" in text:
        return "This server has not been given a source for today's official answer, so it cannot show it."
    if "cannot be reached" in text:
        return "Today's official answer cannot be fetched right now (its source does not answer)."
    return f"Today's official answer is being verified: {text}."


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    text = (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
            f'<nav><a href="/">All boards</a><a href="/nerdle">Play</a><a href="/nerdle/today">Today</a><a href="/nerdle/archive">Archive</a>'
            f'<a href="/nerdle/stats">Statistics</a></nav><h1>{html.escape(title)}</h1>{body}</body></html>')
    return HTMLResponse(text, status_code=status)


def _e(value) -> str:
    return html.escape(str(value))


def _difficulty_rows(d: Optional[dict]) -> str:
    if d is None:
        return "<p>Difficulty and candidate counts: withheld.</p>"
    rows = [("Difficulty", f"{d['quintile_label']} (percentile {d['percentile']:.2f})"),
            ("Rank", f"{d['rank']:,} of {d['of']:,} (1 = easiest)")]
    if d["guesses_on_tree"] is not None:
        rows.append(("Guesses on the tree", d["guesses_on_tree"]))
    rows.append((f"Candidates after {d['opener']}", d["candidates_after_opener"]))
    rows.append(("Difficulty source", d["difficulty_source"]))
    return "<table>" + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows) + "</table>"


def _form(action: str, name: str, value: str, placeholder: str) -> str:
    return (f'<form method="get" action="{action}"><label>{_e(name.capitalize())} '
            f'<input name="{name}" value="{_e(value)}" placeholder="{placeholder}" maxlength="10"></label> '
            f'<button type="submit">Show</button></form>')


@router.get("/nerdle/archive", response_class=HTMLResponse)
def page_archive(date: Optional[str] = None):
    """The archive page for ``date`` (default: today, UTC)."""
    from termo.interface.puzzles import RETROACTIVE_NOTE, utc_today

    date = date or utc_today().isoformat()
    form = _form("/nerdle/archive", "date", date, "YYYY-MM-DD")
    note = f'<p class="note">{_e(RETROACTIVE_NOTE)}</p>'
    try:
        data = _archive(date)
    except TermoError as err:
        return _page("Nerdle archive", f'{note}{form}<p class="error">{_e(_line(err))}</p>', status=422)
    body = (f"{note}{form}<p>{_e(data['date'])}: <span class=\"eq\">{_e(data['equation'])}</span></p>"
            f"{_difficulty_rows(data['difficulty'])}"
            f"<p>Archive #{data['archive_number']}: cycle {data['cycle']}, "
            f"{data['position_in_cycle']:,} of {data['cycle_length']:,}.</p>")
    return _page(f"Nerdle archive: {data['date']}", body)


@router.get("/nerdle/today", response_class=HTMLResponse)
def page_today(date: Optional[str] = None):
    """Today's official Nerdle (or ``date``'s), or "being verified"."""
    try:
        data = _today(date)
    except TermoError as err:
        return _page("Today's Nerdle", f'<p class="error">{_e(_line(err))}</p>', status=422)
    title = f"Nerdle #{data['number']} ({data['date']})"
    if data["status"] != "verified":
        unconfigured = "--today-source" in str(data["reason"] or "") or "no source configured" in str(data["reason"] or "")
        later = "" if unconfigured else " Reload this page in a minute."
        body = (f'<p class="pending">{_e(_player_reason(data["reason"]))}</p>'
                f"<p>The official answer is shown only once it has been read and checked (the date, the "
                f"puzzle number, 8 symbols, the arithmetic).{later} Meanwhile: "
                f'<a href="/nerdle">solve a Nerdle on the board</a> or <a href="/nerdle/archive">open the '
                f"archive</a>.</p>")
        return _page(title, body)
    body = f'<p>Official answer: <span class="eq">{_e(data["equation"])}</span></p>'
    if data["in_model"]:
        body += _difficulty_rows(data["difficulty"])
    else:
        body += (f'<p class="note">{_e(data["model_note"])}. The equation is shown as published; its '
                 f"difficulty and candidate counts are withheld (they come from the model).</p>")
    return _page(title, body)


@router.get("/nerdle/stats", response_class=HTMLResponse)
def page_stats(month: Optional[str] = None):
    """Statistics of a month (default: this UTC month) and the month before."""
    from termo.interface.puzzles import RETROACTIVE_NOTE

    form = _form("/nerdle/stats", "month", month or "", "YYYY-MM")
    note = f'<p class="note">{_e(RETROACTIVE_NOTE)}</p>'
    try:
        data = _stats(month)
    except TermoError as err:
        return _page("Nerdle archive statistics", f'{note}{form}<p class="error">{_e(_line(err))}</p>', status=422)
    from termo.interface.puzzles import month_sections

    sections = []
    for label, m in month_sections(data, current=not month):
        label = label[0].upper() + label[1:]
        if m is None:
            sections.append(f"<h2>{label}</h2><p>None: before the archive.</p>")
            continue
        h = m["hardest_day"]
        counts = ", ".join(f"{q}: {n}" for q, n in m["quintile_counts"].items())
        rows = [("Puzzles", f"{m['puzzles']}{'' if m['complete'] else ' so far'}"),
                ("Mean percentile", f"{m['mean_percentile']:.2f}"),
                ("Mean quintile", f"{m['mean_quintile']:.2f}"),
                ("Days per quintile", counts)]
        cells = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
        cells += (f"<tr><th>Hardest day</th><td><a href=\"/nerdle/archive?date={_e(h['date'])}\">{_e(h['date'])}</a> "
                  f"{_e(h['equation'])} ({_e(h['quintile_label'])}, percentile {h['percentile']:.2f})</td></tr>")
        sections.append(f"<h2>{label}: {_e(m['month'])}</h2><table>{cells}</table>")
    body = (f"{note}{form}<p>{data['archive_puzzles']:,} archive puzzles from 2000-01-01 to {_e(data['today'])} "
            f"(cycles of {data['cycle_length']:,}).</p>{''.join(sections)}"
            f"<p>Difficulty source: {_e(data['difficulty_source'])}</p>")
    return _page("Nerdle archive statistics", body)
