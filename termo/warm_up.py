"""The first run compiles every command's kernels in one sitting (``backends.numba_shim``).

numba compiles a kernel once per argument-type signature, and the commands reach different
kernels with different types: the level-2/3 search (``termo.entropy.warm_up_kernels``) on a
game of one-byte feedback codes (Termo, Wordle, Russian Wordle) and on one of two-byte codes
(Nerdle Classic and Mini), ``partition``, the exact solver (``optimal``, ``tree build --method
exact``) and the full-beam evaluations (``openers``, ``robustness``). Each of the warm-ups below
runs its command's library path once on the smallest input that has the same argument types, so
that after the first run no command compiles again (``bench/bench_warmup.py`` checks it from an
empty kernel cache). They register with :func:`backends.host_ops.register_warm_up`, each keyed
by its own sources, and run together the first time numba loads with a cold cache.

This module is imported by every module whose code calls the kernels first (``termo.entropy``,
``termo.exact.search``, ``termo.robustness.sweep``), so the warm-ups are registered whichever
command runs first.
"""

from __future__ import annotations

from pathlib import Path

import termo.entropy  # noqa: F401 - registers the level-2/3 warm-up first (it imports this module back)
from backends.host_ops import family_sources, kernel_sources, register_warm_up

_HERE = Path(__file__).resolve().parent
SMALL_GAME = "nerdle-mini"  # 206 equations, two-byte codes: the Nerdle games' argument types in a second
ONE_BYTE_TABLE = "wordle-ru"  # the smallest one-byte game with a full opener table (725 answers)
WORLD = 60  # a closed world of the 60 commonest Termo answers: the robustness sweep's types, quickly


def _small_game():
    from termo.games import get_game

    return get_game(SMALL_GAME)


def warm_up_two_byte_search() -> None:
    """The level-2/3 search on two-byte codes (Nerdle: ``suggest``, ``play``, ``tree build``)."""
    from termo.entropy import warm_up_kernels

    warm_up_kernels(_small_game())


def warm_up_partition() -> None:
    """``termo partition`` and ``rank`` on both code widths (the one-probe entropy of a state)."""
    from termo.games import termo_game
    from termo.partition import guess_metrics, make_state, rank_probes

    for game, history in ((termo_game(), ["tarso:BBBBB"]), (_small_game(), [])):
        state = make_state(game, history)
        guess_metrics(state, game.probes[-1])
        rank_probes(state, by="minimax", top=3)


def warm_up_exact() -> None:
    """The exact solver (``optimal``, ``tree build --method exact``) on both code widths, a few
    hundred states each (easy and hard mode)."""
    from termo.exact.search import solve
    from termo.games import termo_game

    small = _small_game()
    solve(small, node_limit=200)
    solve(small, hard=True, node_limit=200)
    solve(termo_game(), opener="tarso", node_limit=50)


def warm_up_full_beam() -> None:
    """The full-beam evaluations: an opener table on each code width (``openers``) and the
    robustness sweeps of a small Termo world, beam and all openers (``robustness``)."""
    from termo.robustness.opener_table import TableConfig, run_table
    from termo.robustness.sweep import SweepConfig, run_sweep
    from termo.robustness.world import Column, World

    run_table(TableConfig(game=SMALL_GAME, limit=2, chunk_size=2))
    run_table(TableConfig(game=ONE_BYTE_TABLE, limit=1, chunk_size=1))  # an opener table on one-byte codes
    run_sweep(SweepConfig(world=World(size=WORLD), columns=[Column("T=1", 1.0, WORLD)], mode="beam", chunk_size=8))
    small = 40  # --openers all: every probe of the world as the opener
    run_sweep(SweepConfig(world=World(size=small), columns=[Column("T=1", 1.0, small)], mode="all", chunk_size=small))


def _sources(families, *names) -> tuple:
    """The kernel files a warm-up covers (its stamp lives with the first one's cached kernels),
    then the modules whose calls decide their argument types: an edit to any warms up again."""
    return family_sources(*families) + tuple(_HERE / n for n in names)


WARM_UPS = (
    (warm_up_two_byte_search, (*kernel_sources(), _HERE / "entropy.py", _HERE / "level3.py", Path(__file__))),
    (warm_up_partition, (*_sources(("search",), "partition.py"), Path(__file__))),
    (warm_up_exact, (*_sources(("exact", "exact-ops"), "exact/search.py"), Path(__file__))),
    (warm_up_full_beam, (*_sources(("full-beam",), "robustness/greedy_tree.py", "robustness/sweep.py",
                                   "robustness/world.py"), Path(__file__))),
)

for _callback, _paths in WARM_UPS:
    register_warm_up(_callback, _paths)
