"""Level 2 for several boards (`termo.engine.multi.level2.MultiSolver`) against plain-Python oracles.

The oracle is written from docs/modes-solver.md with no shared code: the joint feedback of a
probe over independent boards is the tuple of each board's colours, its distribution is summed
over the product of the boards' candidates (each weighted by the game's prior renormalised over
its board), and its entropy is compared with level 2's joint bits.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
import pytest

from solver_oracles import tiny_game
from termo.core.feedback import feedback_code
from termo.engine.multi.level2 import MultiSolver
from termo.engine.multi.level3 import MultiSearch
from termo.games.mode import Mode


@pytest.fixture(scope="module")
def mode():
    return Mode(tiny_game(40, 10, step=131, offset=7), 2, 5, key="tiny-x2")


def prior_weights(game, cands):
    ws = [math.exp(-game.icf[c]) for c in cands]
    total = sum(ws)
    return [w / total for w in ws]


def joint_entropy_oracle(game, boards, g):
    """H of the joint feedback (one colour code per board) over the product of candidates."""
    mass = defaultdict(float)
    weights = [prior_weights(game, cands) for cands in boards]
    for combo in itertools.product(*[list(zip(c, w)) for c, w in zip(boards, weights)]):
        p = 1.0
        key = []
        for answer, w in combo:
            p *= w
            key.append(feedback_code(game.probes[g], game.answers[answer]))
        mass[tuple(key)] += p
    return -sum(p * math.log2(p) for p in mass.values() if p > 0)


SETS = [
    ([0, 3, 5, 8, 13, 21, 22, 30], [1, 2, 4, 9, 17, 33]),  # two sets of pairwise comparisons
    (list(range(0, 40, 2)), [3, 7, 11]),  # a set of code tables (NumPy) and a small one
    ([5], list(range(1, 40, 3))),  # a solved-to-be board (one candidate) and another
]


@pytest.mark.parametrize("boards", SETS)
def test_level2_joint_bits_equal_the_joint_entropy_of_independent_boards(mode, boards):
    solver = MultiSolver(mode)
    bits = solver.joint_bits([np.asarray(c, dtype=np.int64) for c in boards])
    for g in range(mode.game.n_probes):
        assert abs(float(bits[g]) - joint_entropy_oracle(mode.game, boards, g)) < 1e-12, g


def test_level2_picks_the_oracles_best_probe(mode):
    """The oracle's order: forced single candidate, else the largest joint entropy (rounded to
    1e-9), then the solve chance, then the lower index."""
    game = mode.game
    solver = MultiSolver(mode)
    for boards in SETS:
        arrays = [np.asarray(c, dtype=np.int64) for c in boards]
        singles = [c[0] for c in boards if len(c) == 1]
        if singles:
            assert solver.choose(arrays) == singles[0]
            continue
        weights = [dict(zip(c, prior_weights(game, c))) for c in boards]

        def key(g):
            miss = 1.0
            for w in weights:
                miss *= 1.0 - w.get(g, 0.0)
            return (-round(joint_entropy_oracle(game, boards, g) / 1e-9), -(1.0 - miss), g)

        assert solver.choose(arrays) == min(range(game.n_probes), key=key)


def test_the_backends_choose_alike(mode, other_backend):
    """Level 2 and level 3 make the same decisions on every backend (host float64 keys)."""
    base2, other2 = MultiSolver(mode), MultiSolver(mode, backend=other_backend)
    base3, other3 = MultiSearch(mode, exact_product=0), MultiSearch(mode, backend=other_backend, exact_product=0)
    for boards in SETS[:2]:
        arrays = [np.asarray(c, dtype=np.int64) for c in boards]
        assert base2.choose(arrays, 2) == other2.choose(arrays, 2)
        assert base3.choose(arrays, 2) == other3.choose(arrays, 2)
        np.testing.assert_allclose(base2.joint_bits(arrays), other2.joint_bits(arrays), rtol=0, atol=1e-12)


def test_late_turns_rank_only_the_boards_candidates(mode):
    """With no turn to spare (turns left ≤ unsolved boards + LATE_SLACK) level 2 plays the best
    joint entropy among the unsolved boards' candidates; earlier every probe competes."""
    import termo.engine.multi.level2 as joint

    solver = MultiSolver(mode)
    boards = [np.array([0, 3, 5, 8, 13, 21], dtype=np.int64), np.array([1, 2, 4, 9, 17], dtype=np.int64)]
    late_turn = mode.max_turns - (len(boards) + joint.LATE_SLACK) + 1
    pool = sorted(set(boards[0].tolist()) | set(boards[1].tolist()))
    bits = {g: joint_entropy_oracle(mode.game, [b.tolist() for b in boards], g) for g in pool}
    chance = solver.solve_chances(boards)
    best = min(pool, key=lambda g: (-round(bits[g] / 1e-9), -chance[g], g))
    assert solver.choose(boards, late_turn) == best
    assert solver.late_pool(boards, late_turn - 1) is None
    assert solver.choose(boards, late_turn - 1) == solver.choose(boards, 0)


def test_a_given_opener_is_played_on_the_first_turn_only(mode):
    """`opener=WORD`: the first guess of a fresh game (every board holding every answer), with
    its reason; every later state is level 2's own; an unknown word is refused."""
    from termo.core.errors import TermoError
    from termo.engine.multi.boards import BoardsState

    plain = MultiSolver(mode)
    everything = [np.arange(mode.game.n_answers, dtype=np.int64)] * mode.boards
    own = plain.choose(everything, 1)
    other = next(g for g in range(mode.game.n_probes) if g != own)
    word = mode.game.probes[other]
    solver = MultiSolver(mode, opener=word)
    assert solver.choose(everything, 1) == other
    decision = solver.decide(BoardsState.start(mode)).as_dict()
    assert decision["word"] == word and "opener" in decision["reason"]
    later = [np.asarray(c, dtype=np.int64) for c in SETS[0]]
    assert solver.choose(later, 2) == plain.choose(later, 2)
    search = MultiSearch(mode, opener=word)
    assert search.choose(everything, 1) == other and search.decide(BoardsState.start(mode)).as_dict()["word"] == word
    with pytest.raises(TermoError):
        MultiSolver(mode, opener="not-a-word")


def test_level2_opens_with_its_table_word_where_batteries_found_one():
    """Level 2's first guess is the largest joint entropy's, except where its table (`OPENERS[2]`,
    measured by batteries) names a word: Duotrigordle opens with it, said as the table's; a mode not
    listed keeps the entropy's first guess; a word given, or None (the entropy's), replaces it."""
    from termo.engine.multi.boards import BoardsState
    from termo.engine.multi.level2 import OPENERS
    from termo.games import get_mode

    huge = get_mode("duotrigordle")
    table = MultiSolver(huge).decide(BoardsState.start(huge))
    assert table.choice.word == OPENERS[2]["duotrigordle"] and table.reason.code == "reason.boards_first_table"
    own = MultiSolver(huge, opener=None).decide(BoardsState.start(huge))
    assert own.choice.word != OPENERS[2]["duotrigordle"]
    assert own.reason.code != "reason.boards_first_table"
    quordle = get_mode("quordle")
    assert "quordle" not in OPENERS[2]
    assert MultiSolver(quordle).decide(BoardsState.start(quordle)).reason.code != "reason.boards_first_table"
