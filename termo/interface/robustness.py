"""The front ends' door to the robustness studies and the full-game opener tables
(`termo.robustness`: ``termo robustness``, ``termo openers``)."""

from __future__ import annotations

from termo.robustness.greedy_tree import FOLLOW_UPS
from termo.robustness.opener_table import TableConfig, run_table, summary
from termo.robustness.report import document, write_all
from termo.robustness.scale import SCALE_TEMPERATURES, collapse_test, empirical_floor, scale_table, size_at, temperature_for
from termo.robustness.sweep import SweepConfig, run_sweep
from termo.robustness.world import Column, World, grid_columns, load_world

__all__ = ["FOLLOW_UPS", "SCALE_TEMPERATURES", "Column", "SweepConfig", "TableConfig", "World", "collapse_test",
           "document", "empirical_floor", "grid_columns", "load_world", "run_sweep", "run_table", "scale_table",
           "size_at", "summary", "temperature_for", "write_all"]
