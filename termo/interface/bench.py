"""The front ends' door to the studies of ``termo bench`` (`termo.analysis`): the batteries of one
board and of several, the experiments and their reports. `cli` and `web` reach the studies only
through `termo.interface` (an import contract in pyproject.toml)."""

from __future__ import annotations

from termo.analysis.battery import BATTERIES, battery_secrets
from termo.analysis.experiments import (areio_experiment, battery_experiment, catalog_experiment,
                                        extended_experiment, sweep_t_experiment, worlds_experiment)
from termo.analysis.lie_battery import lie_markdown, run_lie_battery
from termo.analysis.mode_battery import mode_markdown, parse_mode_strategies, run_mode_battery
from termo.analysis.report import write_report
from termo.analysis.strategies import parse_strategies

__all__ = ["BATTERIES", "areio_experiment", "battery_experiment", "battery_secrets", "catalog_experiment",
           "extended_experiment", "lie_markdown", "mode_markdown", "parse_mode_strategies", "parse_strategies",
           "run_lie_battery", "run_mode_battery", "sweep_t_experiment", "worlds_experiment", "write_report"]
