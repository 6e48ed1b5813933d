"""Monthly statistics of the Nerdle archive (docs/puzzles.md), recomputed from the archive and the
difficulty scale every time (nothing stored): puzzle counts, mean difficulty (percentile and
quintile), how many days fell in each quintile, and the hardest day (highest percentile; the
earliest date on a tie) of a month and of the month before.

A month is counted up to today (UTC) when it is the current month; a month wholly after today
has no puzzles yet and is refused, and the month before 2000-01 does not exist (``None``).
"""

from __future__ import annotations

import calendar
import datetime as dt

from termo.core.errors import TermoError
from termo.puzzles.archive import RETROACTIVE_NOTE, START, check_archive_date, entry, nerdle_game, utc_today
from termo.puzzles.difficulty import scale_for


def parse_month(text: str) -> tuple[int, int]:
    """``YYYY-MM`` as ``(year, month)`` (TermoError otherwise)."""
    raw = str(text).strip()
    try:
        if len(raw) != 7 or raw[4] != "-":
            raise ValueError
        year, month = int(raw[:4]), int(raw[5:])
        dt.date(year, month, 1)
    except ValueError:
        raise TermoError(f"bad month '{raw}': use YYYY-MM") from None
    return year, month


def previous_month(year: int, month: int) -> tuple[int, int]:
    return (year - 1, 12) if month == 1 else (year, month - 1)


def month_days(year: int, month: int, today: dt.date) -> list[dt.date]:
    """The archive days of a month, up to ``today``."""
    last = dt.date(year, month, calendar.monthrange(year, month)[1])
    end = min(last, today)
    first = max(dt.date(year, month, 1), START)
    return [first + dt.timedelta(days=i) for i in range((end - first).days + 1)]


def month_summary(year: int, month: int, today: dt.date, game=None) -> dict | None:
    """Statistics of one month (None when the archive has no day in it)."""
    game = game or nerdle_game()
    days = month_days(year, month, today)
    if not days:
        return None
    scale = scale_for(game)
    rows = []
    for day in days:
        eq = entry(day, game.answers)["equation"]
        rows.append((day, eq, scale.percentile(eq), scale.quintile(eq)))
    hardest = max(rows, key=lambda r: (r[2], -r[0].toordinal()))
    counts = {f"{q}/5": sum(1 for r in rows if r[3] == q) for q in range(1, 6)}
    return {
        "month": f"{year:04d}-{month:02d}",
        "puzzles": len(rows),
        "complete": len(rows) == calendar.monthrange(year, month)[1],
        "mean_percentile": round(sum(r[2] for r in rows) / len(rows), 4),
        "mean_quintile": round(sum(r[3] for r in rows) / len(rows), 4),
        "quintile_counts": counts,
        "hardest_day": {"date": hardest[0].isoformat(), "equation": hardest[1],
                        "percentile": round(hardest[2], 4), "quintile": hardest[3],
                        "quintile_label": f"{hardest[3]}/5"},
    }


def archive_stats(month: str | None = None, today: dt.date | None = None, game=None) -> dict:
    """Statistics of ``month`` (``YYYY-MM``; the current UTC month by default) and of the month
    before, with the archive's puzzle count up to today."""
    game = game or nerdle_game()
    today = today or utc_today()
    check_archive_date(today)
    year, mon = parse_month(month) if month else (today.year, today.month)
    if dt.date(year, mon, 1) > today:
        raise TermoError(f"{year:04d}-{mon:02d} is after today ({today.isoformat()} UTC): no puzzles yet")
    if dt.date(year, mon, calendar.monthrange(year, mon)[1]) < START:
        raise TermoError(f"the archive starts on {START.isoformat()}; {year:04d}-{mon:02d} is before it")
    this = month_summary(year, mon, today, game)
    last = month_summary(*previous_month(year, mon), today, game)
    return {
        "today": today.isoformat(),
        "archive_puzzles": (today - START).days + 1,
        "cycle_length": game.n_answers,
        "this_month": this,
        "last_month": last,
        "difficulty_source": scale_for(game).source,
        "retroactive": True,
        "note": RETROACTIVE_NOTE,
    }


def month_sections(data: dict, current: bool) -> list[tuple[str, dict | None]]:
    """The two months of `archive_stats` ``data`` as ``(label, summary)``, the month asked for
    first: "this month" and "last month" when ``current`` (no month was named), else "the month"
    and "the month before"; a summary is None for a month before the archive."""
    labels = ("this month", "last month") if current else ("the month", "the month before")
    return [(label, data[key]) for label, key in zip(labels, ("this_month", "last_month"))]
