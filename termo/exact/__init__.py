"""The exact solver: branch and bound over the whole probe space, with proven bounds.

>>> result = solve(game, opener="salet")      # doctest: +SKIP
>>> result.total, result.proved, result.tree()  # doctest: +SKIP

See docs/exact.md for the objective, the bounds and what is proved.
"""

from termo.exact.search import DEFAULT_TIME, ExactResult, Problem, beam_value, evaluate_tree, solve

__all__ = ["DEFAULT_TIME", "ExactResult", "Problem", "beam_value", "evaluate_tree", "solve"]
