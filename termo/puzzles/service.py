"""Archive puzzles with their difficulty: what the CLI and the web pages show for a date."""

from __future__ import annotations

import datetime as dt

from termo.puzzles.archive import entry, nerdle_game, parse_date
from termo.puzzles.difficulty import scale_for


def archive_puzzle(day: dt.date | str, game=None) -> dict:
    """The archive entry of ``day`` (a date or ``YYYY-MM-DD``) with its difficulty (plain data)."""
    game = game or nerdle_game()
    if isinstance(day, str):
        day = parse_date(day)
    data = entry(day, game.answers)
    scale = scale_for(game)
    data["difficulty"] = scale.of(data["equation"])
    data["difficulty_source"] = scale.source
    return data
