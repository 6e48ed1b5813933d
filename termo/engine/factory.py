"""The composition root of the levels: which strategy object decides for a solver's level.

``LEVELS`` maps each level to a builder ``builder(solver) -> Strategy``
(:mod:`termo.engine.strategies`); level 3 is composed with a level-2 strategy for the sets it
hands over (§6.4). A new level (or a strategy for several boards) is one more builder here:
the solver and the other strategies stay as they are.
"""

from __future__ import annotations

from termo.core.supports import Supports
from termo.engine.strategies import Entropy, ExpectedGuesses, LetterFrequency, Strategy


def expected_guesses(solver) -> ExpectedGuesses:
    """Level 3, handing tiny sets, the last turns and dead ends to level 2."""
    return ExpectedGuesses(solver, fallback=Entropy(solver))


LEVELS = {1: LetterFrequency, 2: Entropy, 3: expected_guesses}

# what the one-board solvers take (`termo.interface` refuses the rest with one line)
SUPPORTS = Supports(levels=tuple(LEVELS), objectives=("finish",), hard=True, trees=True, search_options=True,
                    opener_choice=True, candidate_list=True, exact=True)


def check_level(level) -> int:
    """``level`` if it is a known level; TermoError otherwise ("level must be 1, 2 or 3")."""
    return SUPPORTS.check_level(level)


def strategy_for(solver) -> Strategy:
    """The strategy deciding for ``solver`` (its ``level``)."""
    return LEVELS[check_level(solver.level)](solver)
