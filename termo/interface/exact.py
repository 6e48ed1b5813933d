"""The front ends' door to the exact solvers (`termo.exact`: ``termo optimal``, its ranking of every
first word, Absurdle's forced wins and challenge mode, Fibble's bracket; `termo.engine.multi.exact`:
a mode's exact expectimax; `termo.engine.multi.bracket`: a whole two-board game's proved bracket)."""

from __future__ import annotations

from termo.engine.multi.bracket import DEFAULT_BUDGET, DEFAULT_CHUNK, bracket_game, bracket_store
from termo.engine.multi.exact import MultiExact, joint_product
from termo.engine.multi.factory import multi_solver
from termo.engine.multi.level2 import check_objective
from termo.exact import beam_value, solve
from termo.exact.absurdle import forced_store, prove_minimum
from termo.exact.absurdle_challenge import challenge_store, solve_challenge
from termo.exact.fibble import DEFAULT_NODES as FIBBLE_NODES
from termo.exact.fibble import bracket as fibble_bracket
from termo.exact.fibble import row_store as fibble_store
from termo.exact.ranking import other_runs, rank_first_words, rank_store

__all__ = ["DEFAULT_BUDGET", "DEFAULT_CHUNK", "FIBBLE_NODES", "MultiExact", "beam_value", "bracket_game", "bracket_store",
           "challenge_store", "check_objective", "fibble_bracket", "fibble_store", "forced_store", "joint_product", "multi_solver", "other_runs",
           "prove_minimum", "rank_first_words", "rank_store", "solve", "solve_challenge"]
