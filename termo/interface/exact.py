"""The front ends' door to the exact solvers (`termo.exact`: ``termo optimal``, its ranking of every
first word; `termo.engine.multi.exact`: a mode's exact expectimax)."""

from __future__ import annotations

from termo.engine.multi.exact import MultiExact, joint_product
from termo.engine.multi.factory import multi_solver
from termo.engine.multi.level2 import check_objective
from termo.exact import beam_value, solve
from termo.exact.ranking import other_runs, rank_first_words, rank_store

__all__ = ["MultiExact", "beam_value", "check_objective", "joint_product", "multi_solver", "other_runs", "rank_first_words",
           "rank_store", "solve"]
