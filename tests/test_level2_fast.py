"""The server's level-2 path with the compiled kernels (released GIL, the large-set sweep summing
over each probe's bucket list) answers exactly as the slow paths do: the whole-array NumPy
sweeps (what a process without numba runs) and a server process with ``TERMO_NO_NUMBA=1``.

The histories are the load benchmark's never-asked ones (bench/bench_server.py: the opener, then
a random probe, each coloured by a random answer), a fixed sample.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.bench_server import fresh_pool

ROOT = Path(__file__).resolve().parents[1]


def _histories(game: str, n: int, seed: int):
    return fresh_pool(n, seed=seed, game=game)


@pytest.mark.parametrize("game", ["termo", "wordle"])
def test_kernel_sweep_equals_the_numpy_sweep(game):
    from backends import numpy_sweep
    from backends.kernels import sweeps
    from backends.numba_shim import HAVE_NUMBA, load
    from termo.games import get_game
    from termo.engine.session import Session
    from termo.engine.solver import Solver

    if not HAVE_NUMBA:
        pytest.skip("numba not installed: the NumPy sweep is the only one")
    load()
    g = get_game(game)
    tables = Solver(g, level=2).sweeper.tables
    compared = 0
    for history in _histories(game, 60, seed=5):
        session = Session(g)
        session.replay(history)
        cands = np.asarray(session.candidate_list(), dtype=np.int64)
        if not 2 <= cands.shape[0] <= 256:  # above: the exact whole-set path, unchanged
            continue
        fast_i, fast_h = sweeps.sweep_top_k(tables.matrix_t, cands, np.array([0, cands.shape[0]]),
                                                     np.array([0]), tables.prior, tables.probe_prior, 6,
                                                     tables.n_bins)
        slow_i, slow_h = numpy_sweep.sweep_top_k(tables.matrix_t, cands, tables.prior, tables.probe_prior, 6,
                                                 tables.n_bins)
        k = slow_i.shape[0]
        assert fast_i[0][:k].tolist() == slow_i.tolist(), history
        assert fast_h[0][:k].tobytes() == slow_h.tobytes(), history  # bit for bit
        compared += 1
    assert compared >= 30


SCRIPT = """
import json, sys
from web import service
out = []
for history in json.loads(sys.stdin.read()):
    data, warnings = service.suggest(game="termo", history=history, level="2", t="1")
    out.append(data)
print(json.dumps(out))
"""


def _answers(histories, env_extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), **env_extra)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], input=json.dumps(histories), capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_server_answers_equal_a_process_without_kernels():
    """Never-asked level-2 histories: the answers (word, bits, alternatives, reason) of the
    kernel path in this process equal those of a process that never loads numba."""
    from backends.numba_shim import load
    from web import service

    histories = _histories("termo", 40, seed=11)
    load()
    fast = [service.suggest(game="termo", history=h, level="2", t="1")[0] for h in histories]
    slow = _answers(histories, {"TERMO_NO_NUMBA": "1"})
    assert json.loads(json.dumps(fast)) == slow
