"""The host operations of the searches: plain modules, the same compiled host code on every backend.

A :class:`backends.base.Backend` carries only what differs by array library (its namespace, its
sweeps and picks). What is the same whichever backend sweeps lives here, as module functions the
domain calls directly (docs/ARCHITECTURE.md):

* :mod:`backends.host_ops.search`: the host bookkeeping of the level-3 search and the greedy tree
  (state registries, partitions into children, value reductions, the §5.2 order of host entropies);
* :mod:`backends.host_ops.exact`: the exact solver's engine (:func:`~backends.host_ops.exact.exact_engine`);
* :mod:`backends.host_ops.multi_exact`: the several-board exact search's engine
  (:class:`~backends.host_ops.multi_exact.MultiExactEngine`);
* :mod:`backends.host_ops.boards`: the several-board solvers' per-board entropies and level-3 rollouts;
* :mod:`backends.host_ops.feedback`: the games whose colours are not honest (the adversary's kept
  groups and splits, the entropy of rows that lie);
* :mod:`backends.host_ops.sources`: the kernels' source files by family, the level-3 search's code
  sources and the registration of the first run's warm-ups.

The domain imports these modules, never ``backends.kernels`` or ``backends.numba_shim`` (the
import contracts in ``pyproject.toml``). Importing the package imports nothing else.
"""
