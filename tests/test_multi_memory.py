"""The several-board solvers' memory is bounded in bytes (docs/modes-solver.md, "Memory").

A server keeps one solver per mode configuration (mode, level, objective) for ever; its memos
(`termo.engine.multi.stats.BoardStats`, the exact solver's memo of level 3) must not grow with the
questions it is asked. The tests ask many distinct questions and measure what the process keeps
with `tracemalloc` (NumPy reports its arrays to it), not the time anything takes.
"""

from __future__ import annotations

import gc
import random
import tracemalloc

import numpy as np
import pytest

import termo.engine.multi.level3 as level3
import termo.engine.multi.stats as stats
from termo.core.feedback import feedback
from termo.engine.multi.boards import BoardsState
from termo.engine.multi.factory import multi_solver
from termo.games import get_mode

MB = 2**20


def questions(mode, size: int, seed: int, turns: int = 2) -> list:
    """Distinct states after ``turns`` turns (random probes, a tuple of distinct answers, no board
    solved): many distinct candidate sets."""
    game = mode.game
    rng = random.Random(seed)
    start = BoardsState.start(mode)
    out = []
    while len(out) < size:
        answers = [game.answers_norm[i] for i in rng.sample(range(game.n_answers), mode.boards)]
        words = [game.probes_norm[rng.randrange(game.n_probes)] for _ in range(turns)]
        colours = [[feedback(w, a) for a in answers] for w in words]
        if any(game.win_pattern in c for c in colours):
            continue
        state = start
        for w, c in zip(words, colours):
            state = state.apply(w, c)
        out.append(state)
    return out


def test_byte_lru_keeps_the_most_recent_entries_within_its_bytes():
    lru = stats.ByteLRU(10_000, lambda a: a.nbytes)
    arrays = {i: np.zeros(100, dtype=np.float64) for i in range(40)}  # 800 bytes each
    for i, a in arrays.items():
        lru.put(i, a)
        assert lru.bytes <= 10_000
    kept = [i for i in arrays if lru.get(i) is not None]
    assert kept == list(range(40 - len(kept), 40)) and len(kept) >= 5  # the newest, in order
    lru.get(kept[0])  # used again: the next eviction takes the second oldest
    lru.put(99, np.zeros(100))
    assert lru.get(kept[0]) is not None and lru.get(kept[1]) is None
    lru.put("big", np.zeros(10_000))  # larger than the whole memo: not kept
    assert lru.get("big") is None and lru.bytes <= 10_000


def retained(solve, states) -> int:
    """The bytes the process keeps after ``solve`` answered every state but the first (traced
    allocations; the first question loads what every later one shares: numba, the kernels)."""
    solve(states[0])
    states = states[1:]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for state in states:
            solve(state)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("level", [2, 3])
def test_a_mode_solver_keeps_its_memos_within_their_bytes(monkeypatch, level):
    """Small caps, many distinct questions: the memos' own count of bytes stays under the caps,
    and what the process keeps after the questions (all of it, not only the memos) stays under
    them too, with 2 MB to spare for the rest."""
    monkeypatch.setattr(stats, "ENTROPY_BYTES", 2 * MB)
    monkeypatch.setattr(stats, "SPLIT_BYTES", MB // 2)
    monkeypatch.setattr(level3, "EXACT_MEMO_BYTES", MB // 2)
    mode = get_mode("quordle")
    solver = multi_solver(mode, level=level, samples=32, beam=4) if level == 3 else multi_solver(mode, level=2)
    cap = 2 * MB + MB // 2 + (MB // 2 if level == 3 else 0)
    states = questions(mode, 60 if level == 2 else 12, seed=level, turns=2 if level == 2 else 3)
    kept = retained(solver.decide, states)
    assert 0 < solver.memo_bytes() <= cap
    assert len(solver.stats._entropy) < 60  # the caps did evict
    assert kept <= cap + 2 * MB, kept


@pytest.mark.slow
def test_a_quordle_configuration_keeps_at_most_50_mb():
    """The real caps (docs/modes-solver.md): 400 distinct questions at level 2, turns 2 and 3
    (more than the 32 MB of entropy vectors), then the memo and what the process kept."""
    mode = get_mode("quordle")
    solver = multi_solver(mode, level=2)
    states = questions(mode, 200, seed=7) + questions(mode, 200, seed=8, turns=3)
    kept = retained(solver.decide, states)
    assert solver.memo_bytes() <= stats.ENTROPY_BYTES + stats.SPLIT_BYTES <= 50 * MB
    assert kept <= 50 * MB, kept
