"""The first run compiles every command's kernels in one sitting (``backends.numba_shim``).

numba compiles a kernel once per argument-type signature, and the commands reach different
kernels with different types: the level-2/3 search (:func:`warm_up_kernels`) on a
game of one-byte feedback codes (Termo, Wordle, Russian Wordle) and on one of two-byte codes
(Nerdle Classic and Mini), ``partition``, the exact solver (``optimal``, ``optimal --rank``,
``tree build --method exact``) and the full-beam evaluations (``openers``, ``robustness``). Each of
the warm-ups below runs its command's library path once on the smallest input that has the same
argument types, so that after the first run no command compiles again (``bench/bench_warmup.py``
checks it from an empty kernel cache, command by command). They register with
:func:`backends.host_ops.sources.register_warm_up`, each keyed by its own sources and with what it
compiles from an empty cache (``WARM_UPS``: the first run's notice states the sum of those still to
run), and run together the first time numba loads with a cold cache.

The module sits above every layer it exercises (docs/ARCHITECTURE.md), so no engine module imports
it: the front ends do (``cli.app.main`` before it runs a command, ``web.app.create_app``), which
registers the warm-ups whichever command runs first. A program that calls the library directly
imports it too, or its kernels compile one by one as they are first called.
"""

from __future__ import annotations

from pathlib import Path

from backends.host_ops.sources import family_sources, kernel_sources, register_warm_up

_HERE = Path(__file__).resolve().parent.parent  # termo/
SMALL_GAME = "nerdle-mini"  # 206 equations, two-byte codes: the Nerdle games' argument types in a second
ONE_BYTE_TABLE = "wordle-ru"  # the smallest one-byte game with a full opener table (725 answers)
WORLD = 60  # a closed world of the 60 commonest Termo answers: the robustness sweep's types, quickly


def _small_game():
    from termo.games import get_game

    return get_game(SMALL_GAME)


def warm_up_kernels(game=None) -> None:
    """Run the common commands' kernel paths once on ``game`` (default: Termo), so that numba
    compiles them all in one sitting: the level-3 search of a suggestion and of big sets
    (serial and parallel sweeps and partitions, registry, values), batched level-2 decisions
    (large and small batches)
    and the one-set paths of a process that has loaded numba (big-set entropies, top-k, the
    reported bits). The backends' numba shim runs it the first time numba loads with a cold
    cache; it takes ~2 s once everything is compiled. (The batched ``Sweeper.sweep`` is left
    out: the level-3 engine sweeps with its own kernels on NumPy.)"""
    from termo.engine.solver import Solver

    if game is None:
        from termo.games import get_game

        game = get_game("termo")
    from backends import host

    xp = host().xp
    level3 = Solver(game, level=3)
    matrix = level3.sweeper.matrix
    opener = game.index_of(game.default_opener or "") or 0
    codes = xp.asarray(matrix[opener])
    everything = xp.arange(game.n_answers, dtype=xp.int64)
    buckets = sorted((everything[codes == c] for c in set(codes.tolist()) if c != game.win_code),
                     key=lambda s: -s.shape[0])
    mid = next((s for s in buckets if s.shape[0] <= 250), buckets[-1])  # an interactive level-3 set
    level3.decide(mid, 2)
    level3.decide_many(buckets[:10], [2] * len(buckets[:10]))  # big searches: parallel partitions
    level2 = Solver(game, level=2)
    level2.decide_many(buckets, [2] * len(buckets))  # one large batch
    level2.decide_many(buckets[-2:], [2, 2])  # one small batch
    sweeper = level2.sweeper
    sweeper.top(everything, 6)
    sweeper.top(mid, 6)
    sweeper.entropy_of(opener, everything)


def warm_up_two_byte_search() -> None:
    """The level-2/3 search on two-byte codes (Nerdle: ``suggest``, ``play``, ``tree build``)."""
    warm_up_kernels(_small_game())


def warm_up_partition() -> None:
    """``termo partition`` and ``rank`` on both code widths (the one-probe entropy of a state)."""
    from termo.games import get_game
    from termo.engine.partition import guess_metrics, make_state, rank_probes

    for game, history in ((get_game("termo"), ["tarso:BBBBB"]), (_small_game(), [])):
        state = make_state(game, history)
        guess_metrics(state, game.probes[-1])
        rank_probes(state, by="minimax", top=3)


def warm_up_exact() -> None:
    """The exact solver (``optimal``, ``tree build --method exact``) on both code widths, a few
    hundred states each (easy and hard mode), and the ranking of every first word (``optimal``
    without an opener, ``optimal --rank``) on both."""
    from termo.exact.search import solve
    from termo.games import get_game

    small, termo = _small_game(), get_game("termo")
    solve(small, node_limit=200)
    solve(small, hard=True, node_limit=200)
    solve(termo, opener="tarso", node_limit=50)
    for game in (small, termo):
        _rank_chunk(game)


def _rank_chunk(game) -> None:
    """What ``optimal --rank`` runs on ``game``: the driver's one-pass bounds at the root and a
    chunk of two first words settled by the deeper bound (against a limit of 0, so no search
    follows), on a search of its own: the process's ranking search is left as it was."""
    from termo.exact.ranking import root_order, settle, spec_of
    from termo.exact.search import Problem

    spec = spec_of(game)
    prob = Problem(game, hard=spec.hard, t=spec.t, loss=spec.loss)
    order, _ = root_order(game, spec, prob)
    settle(spec, order[:2], 0.0, prob)


def warm_up_full_beam() -> None:
    """The full-beam evaluations: an opener table on each code width (``openers``) and the
    robustness sweeps of a small Termo world, beam and all openers (``robustness``)."""
    from termo.robustness.opener_table import TableConfig, run_table
    from termo.robustness.sweep import SweepConfig, run_sweep
    from termo.robustness.world import Column, World

    run_table(TableConfig(game=SMALL_GAME, limit=2, chunk_size=2))
    _probes_near_the_top(_small_game())  # what the commutative win rule's recomputation runs
    run_table(TableConfig(game=ONE_BYTE_TABLE, limit=1, chunk_size=1))  # an opener table on one-byte codes
    run_sweep(SweepConfig(world=World(size=WORLD), columns=[Column("T=1", 1.0, WORLD)], mode="beam", chunk_size=8))
    small = 40  # --openers all: every probe of the world as the opener
    run_sweep(SweepConfig(world=World(size=small), columns=[Column("T=1", 1.0, small)], mode="all", chunk_size=small))


def _probes_near_the_top(game) -> None:
    from backends import host
    from termo.engine.matrix import pattern_matrix

    ops = host()
    xp = ops.xp
    matrix = ops.to_numpy(pattern_matrix(game, backend=ops))
    prior = xp.full((game.n_answers,), 1.0 / game.n_answers, dtype=xp.float64)
    plan = ops.best_probe_plan(matrix, xp.full((game.n_probes,), 1.0, dtype=xp.float64))
    ops.probes_at_least(plan, xp.arange(30, dtype=xp.int32), prior, 0.0, game.win_code, game.n_patterns)


def _sources(families, *names) -> tuple:
    """The kernel files a warm-up covers (its stamp lives with the first one's cached kernels),
    then the modules whose calls decide their argument types: an edit to any warms up again."""
    return family_sources(*families) + tuple(_HERE / n for n in names)


# (warm-up, the files it is keyed by, what it compiles from an empty cache in seconds: the CPU
# seconds of each in bench/results/warmup-per-command.json, about the wall time on an idle 2-core
# machine; the first run's notice states the sum of those still to run)
WARM_UPS = (
    (warm_up_kernels, (*kernel_sources(), _HERE / "engine" / "entropy.py", _HERE / "engine" / "level3.py"), 45),
    (warm_up_two_byte_search, (*kernel_sources(), _HERE / "engine" / "entropy.py", _HERE / "engine" / "level3.py",
                               Path(__file__)), 16),
    (warm_up_partition, (*_sources(("search",), "engine/partition.py"), Path(__file__)), 5),
    (warm_up_exact, (*_sources(("exact", "exact-ops"), "exact/search.py", "exact/ranking.py"), Path(__file__)), 57),
    (warm_up_full_beam, (*_sources(("full-beam",), "robustness/greedy_tree.py", "robustness/sweep.py",
                                   "robustness/world.py"), Path(__file__)), 53),
)

for _callback, _paths, _seconds in WARM_UPS:
    register_warm_up(_callback, _paths, _seconds)
