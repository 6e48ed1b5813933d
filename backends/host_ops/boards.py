"""The host operations of several boards (``termo.engine.multi``): plain functions, the same on
every backend, over host NumPy arrays; the compiled kernels of ``backends.kernels.boards`` are
imported on first use.

* :func:`probe_entropies`: every probe's entropy over one board's candidates (answers-major, the
  sweeps' float order), the kernel once numba is loaded in this process, else the bit-identical
  NumPy twin ``backends.numpy_sweep.fast_entropies``;
* :func:`rollout_costs`: the level-3 rollouts of several boards (each first guess, then level 2,
  over joint answer tuples), docs/modes-solver.md.
"""

from __future__ import annotations


def _boards_kernels():
    from backends.kernels import boards

    return boards


def load_numba() -> None:
    """Load numba now where it is installed (a battery asks thousands of questions: the compiled
    kernels pay for loading it)."""
    from backends import numba_shim

    if numba_shim.HAVE_NUMBA:
        numba_shim.load()


def probe_entropies(matrix_t, cands, prior, n_patterns: int):
    """H (bits) of every probe over ``cands`` (``matrix_t`` answers × probes), float64."""
    from backends.host_ops.search import numba_loaded

    if numba_loaded():
        return _boards_kernels().probe_entropies(matrix_t, cands, prior, n_patterns)
    from backends.numpy_sweep import fast_entropies

    return fast_entropies(matrix_t, cands, prior, n_patterns)


def rollout_costs(*args):
    """(mean cost per first guess, nodes per first guess): ``backends.kernels.boards.rollout_costs``
    with its arguments unchanged."""
    return _boards_kernels().rollout_costs(*args)
