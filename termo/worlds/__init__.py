"""The worlds the studies play in (a game, a prior, the secrets), shared by :mod:`termo.analysis`
and :mod:`termo.robustness`, which stay independent of each other; its defaults are the Termo world
the studies are defined on, reached through the registry."""
