"""The compiled host kernels (numba, or the same source interpreted: ``backends/numba_shim.py``).

One module per job; importing one imports neither numba nor the other families:

* the level-2 engine: :mod:`.sums` (NumPy-exact sums, a state's weights), :mod:`.entropy` (exact
  entropies in the reference's float order, the §5.2 comparison and top-k list), :mod:`.sweeps`
  (the batched top-k sweeps);
* the level-3 tree search: :mod:`.tree` (partitions, values bottom-up, level bookkeeping),
  :mod:`.registry` (the hash registries of states and nodes), :mod:`.tree_sweep` (the tree's
  pruned sweeps);
* the full-beam greedy tree: :mod:`.fullbeam` (the entry points and partitions),
  :mod:`.fullbeam_small` (the full-split shortcut, small states), :mod:`.fullbeam_sweeps` (the
  probe-major sweeps), :mod:`.fullbeam_bounds` (a probe's exact entropy and its cheap bounds);
* the exact solver: :mod:`.exact` (memo and search), :mod:`.exact_bounds` (partitions and bounds).

The domain never imports them: it calls the methods of :class:`backends.base.Backend`.
"""
