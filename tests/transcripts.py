"""Game states of the published transcripts (docs/rules.md §5, §6, §10), shared by the level tests:
the candidates a round leaves, and the solver's decision on them."""

from __future__ import annotations

import numpy as np

from termo.core.feedback import encode
from termo.engine.matrix import pattern_matrix


def filtered(game, cands, word, pattern):
    """The candidates of ``cands`` that answer ``pattern`` to the guess ``word``."""
    m = np.asarray(pattern_matrix(game))
    cands = np.asarray(cands)
    return cands[m[game.index_of(word), cands] == encode(pattern)]


def decide_after(game, solver, cands, word, pattern, *, size: int, turn: int):
    """The candidates ``word`` -> ``pattern`` leaves of ``cands`` (there must be ``size``) and the
    solver's decision on them at ``turn``."""
    left = filtered(game, cands, word, pattern)
    assert len(left) == size
    return left, solver.decide(left, turn)
