"""The front ends' door to Nerdle's puzzles (`termo.puzzles`: ``termo nerdle ...`` and the puzzle
pages and API of the web app)."""

from __future__ import annotations

from termo.puzzles.archive import RETROACTIVE_NOTE, utc_today
from termo.puzzles.service import archive_puzzle
from termo.puzzles.stats import archive_stats, month_sections
from termo.puzzles.today import VERIFIED, todays_nerdle

__all__ = ["RETROACTIVE_NOTE", "VERIFIED", "archive_puzzle", "archive_stats", "month_sections", "todays_nerdle",
           "utc_today"]
