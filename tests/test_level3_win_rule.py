"""Level 3 under a win rule beyond the exact one (Nerdle's commutative answers).

A state of two answers that one guess wins outright (``1+9=10`` / ``9+1=10``) costs one guess,
not the 1.5 of two answers that must be told apart, and a guess that wins against the whole
state is the best move, not a guess that "leaves the state whole". The exact solver (checked
against a brute-force oracle in tests/test_exact.py) is the reference.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from termo.games import get_game
from termo.engine.tree_search import NodeJob
from termo.engine.solver import Solver


@pytest.fixture(scope="module")
def mini():
    return get_game("nerdle-mini")


def node_value(solver, members, rest, rounds):
    sid = int(solver.tree.register([np.asarray(sorted(members), dtype=np.int64)])[0])
    job = NodeJob(sid, rest, rounds)
    solver.tree.run([job])
    return job.value


def test_a_commutative_pair_costs_one_guess(mini):
    solver = Solver(mini, level=3)
    pairs = [c for c in mini.win_classes if len(c) == 2][:5]
    assert pairs
    for pair in pairs:
        for rounds in (1, 2, 6):
            assert node_value(solver, pair, 1, rounds) == 1.0
    # an exact-rule pair still costs 1.5 (uniform prior)
    strict = Solver(dataclasses.replace(mini, win_rule="exact", win_key=None), level=3)
    assert node_value(strict, pairs[0], 1, 6) == 1.5


def test_a_guess_that_wins_the_whole_state_is_not_a_guess_that_leaves_it_whole(mini):
    from backends.kernels import tree as tk
    from termo.engine.matrix import pattern_matrix

    matrix_t = np.ascontiguousarray(np.asarray(pattern_matrix(mini)).T)
    pair = next(c for c in mini.win_classes if len(c) == 2)
    members = np.asarray(sorted(pair), dtype=np.int64)
    offsets = np.asarray([0, 2], dtype=np.int64)
    win = int(mini.win_code) if hasattr(mini, "win_code") else int(matrix_t[members[0], members[0]])
    other = next(g for g in range(mini.n_probes) if g not in pair and matrix_t[members[0], g] == matrix_t[members[1], g])
    nb, kept, single = tk.partition_counts(matrix_t, members, offsets, np.zeros(2, np.int64),
                                           np.asarray([members[0], other], dtype=np.int64), win)
    assert (nb[0], kept[0], bool(single[0])) == (0, 0, False)  # wins both: no bucket left, one guess
    assert (nb[1], kept[1], bool(single[1])) == (1, 2, True)  # tells nothing apart: no progress
