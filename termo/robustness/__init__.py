"""Opener robustness across priors (rules §8): effective size and T(M), the batched greedy-tree
evaluator, the beam / full-beam grid with regrets, checkpoints, Dask execution and reports."""
