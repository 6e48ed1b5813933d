"""The compiled kernels' source files, by family, and the registration of their warm-ups.

What the domain needs to know about the kernel files without importing one: the files whose code
decides a level-3 search result (``TREE_SEARCH_SOURCES``, part of the opener book's signature,
``termo.book.openers``), the families of kernel files that each warm-up covers
(``KERNEL_FAMILIES``, ``termo.interface.warm_up``), and :func:`register_warm_up`. Importing this
module imports no array library and no kernel.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent  # backends/host_ops/
_BACKENDS = _HERE.parent  # backends/

# The backend modules whose code decides a level-3 search result (the opener book's signature,
# ``termo.book.openers``): the tree's kernels and the functions wiring them. The entropy sweeps are left
# out on purpose: they only have to agree with their plain-Python oracle on the §5.2 order.
TREE_SEARCH_SOURCES = ("backends/kernels/tree.py", "backends/kernels/registry.py", "backends/kernels/tree_sweep.py",
                       "backends/host_ops/search.py")

# the backend files of each family of kernels, relative to backends/ (their warm-ups in
# termo/interface/warm_up.py; a warm-up's stamp lives with the cached kernels of its first file)
KERNEL_FAMILIES = {
    "search": ("kernels/entropy.py", "kernels/sums.py", "kernels/sweeps.py"),
    "tree": ("kernels/tree.py", "kernels/registry.py", "kernels/tree_sweep.py"),
    "exact": ("kernels/exact.py", "kernels/exact_bounds.py"),
    "full-beam": ("kernels/fullbeam.py", "kernels/fullbeam_bounds.py", "kernels/fullbeam_small.py",
                  "kernels/fullbeam_sweeps.py", "kernels/fullbeam_counts.py"),
    "exact-ops": ("host_ops/exact.py",),
}


def family_sources(*families: str) -> tuple:
    """The backend files (paths) of the kernel ``families`` named (`KERNEL_FAMILIES`), in order."""
    return tuple(_BACKENDS / rel for name in families for rel in KERNEL_FAMILIES[name])


def kernel_sources() -> tuple:
    """The compiled kernel files a warm-up of the level-2/3 commands covers, then the backend
    modules whose calls decide their argument types (paths)."""
    return (*family_sources("search", "tree"), _HERE / "search.py", _BACKENDS / "numpy_backend.py")


def register_warm_up(callback, sources, seconds: float | None = None) -> None:
    """Run ``callback()`` once when numba first loads with a cache not warmed for ``sources``;
    ``seconds``: what it compiles from an empty cache, the first run's notice's estimate (see
    :mod:`backends.numba_shim`)."""
    from backends import numba_shim

    numba_shim.register_warm_up(callback, sources, seconds)
