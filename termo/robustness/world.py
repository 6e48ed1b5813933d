"""What a robustness value depends on: the world (answers, probes, matrix), the column prior and
the round limit — as small frozen values that travel to cluster workers as plain data.

The world is the one :class:`termo.worlds.world.World` of every study: any game of the registry
(``World.game``) with its own win rule and prior; the robustness study needs a word-frequency
prior (:func:`load_world` refuses a uniform one); the opener tables
(:mod:`termo.robustness.opener_table`) take every game (:func:`load_game_world`).
``World(size=None)`` is the whole game; ``World(size=k)`` the *closed* world of the k most common
answers (answers = probes = those k words, re-indexed in lexicon order, sub-matrix of the full
one), used for quick runs and tests. A :class:`Column` is one prior ``p_{N,T}`` of the grid.
:func:`evaluate_chunk` computes ``E`` for a list of openers and keeps one evaluator per
(world, column, backend) per process, so chunks of the same column share the subtree caches.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

from backends import host
from termo.core.errors import TermoError
from termo.core.chunks import digest
from termo.worlds.world import World, termo_answers
from termo.robustness.greedy_tree import GreedyTreeEvaluator
from termo.robustness.scale import family_prior

METHOD = "greedy-tail/v1"  # bump when the definition of a value changes (never for speed-ups)
FOLLOW_UP_METHODS = {"entropy": METHOD, "candidates-remaining": "candidates-remaining/v1"}  # the same, per follow-up


@dataclass(frozen=True)
class WorldData:
    answers: tuple  # display forms
    probes: tuple
    icf: tuple
    matrix: object  # host NumPy (probes × answers)
    n_patterns: int
    signature: str

    normalize: object = None  # the game's normalisation (plain callable)

    def index_of(self, word: str) -> int | None:
        normalize = self.normalize or (lambda w: w.lower())
        key = normalize(word)
        for i, w in enumerate(self.probes):
            if normalize(w) == key:
                return i
        return None


def load_world(world: World) -> WorldData:
    """Words, prior scores and the pattern matrix of ``world`` for the robustness study, which
    varies a word-frequency prior: a game with a uniform prior is refused (one line)."""
    game = world.base_game()
    if game.uniform_prior:
        raise TermoError(f"{game.shown} has a uniform prior: the robustness study varies a "
                         "word-frequency prior, so it does not apply")
    return load_game_world(world)


@lru_cache(maxsize=4)
def load_game_world(world: World) -> WorldData:
    """Words, prior scores and the pattern matrix of ``world``, any game (uniform priors too: the
    opener tables); the full matrix is disk-cached."""
    from termo.engine.matrix import matrix_signature, pattern_matrix

    game = world.base_game()
    full = host().to_numpy(pattern_matrix(game, backend=host()))
    signature = matrix_signature(game)
    if world.size is None:
        return WorldData(game.answers, game.probes, tuple(game.icf), full, game.n_patterns, signature,
                         game.normalizer)
    if world.extended:
        raise TermoError("a closed world uses the answers as probes: do not combine it with the extended list")
    k = int(world.size)
    if not 2 <= k <= game.n_answers:
        raise TermoError(f"world size must be between 2 and {game.n_answers}, got {k}")
    keep = world.cut()
    xp = host().xp
    ix = xp.asarray(keep, dtype=xp.int64)
    sub = xp.take(xp.take(full, ix, axis=0), ix, axis=1)
    answers = tuple(game.answers[i] for i in keep)
    return WorldData(answers, answers, tuple(game.icf[i] for i in keep), sub, game.n_patterns,
                     f"{signature}:closed{k}", game.normalizer)


@dataclass(frozen=True)
class Column:
    """One prior of the grid: ``p_{N,T}``; ``target`` is the effective size asked for (if any)."""

    label: str
    t: float
    n_cut: int
    target: float | None = None
    follow_up: str = "entropy"  # the greedy follow-up (termo.robustness.greedy_tree.FOLLOW_UPS)

    def describe(self) -> dict:
        out = {"label": self.label, "T": self.t, "N": self.n_cut, "target": self.target}
        if self.follow_up != "entropy":
            out["follow_up"] = self.follow_up
        return out


def column_prior(data: WorldData, column: Column):
    return family_prior(data.icf, column.n_cut, column.t)


def uniform_column(data: WorldData) -> Column:
    """The one prior of a game with a uniform prior (every answer ``1/n``)."""
    import math

    return Column("uniform", math.inf, len(data.icf))


def column_key(world: World, data: WorldData, column: Column) -> str:
    """Hash of everything a column's values depend on (the default follow-up adds nothing: its
    keys are those of every earlier version)."""
    fields = {
        "method": METHOD,
        "world": world.describe(),
        "matrix": data.signature,
        "icf": digest([repr(x) for x in data.icf]),
        "T": repr(float(column.t)),
        "N": column.n_cut,
    }
    if column.follow_up != "entropy":
        fields["follow_up"] = FOLLOW_UP_METHODS[column.follow_up]
    return digest(fields)


def chunk_key(world: World, data: WorldData, column: Column, openers: list[int]) -> str:
    return digest({"column": column_key(world, data, column), "openers": list(openers)})


_EVALUATORS: OrderedDict = OrderedDict()
_EVALUATORS_LOCK = threading.Lock()
_MAX_EVALUATORS = 2


def evaluator_for(world: World, column: Column, backend_name: str = "numpy") -> GreedyTreeEvaluator:
    """The process-wide evaluator of (world, column, backend), created on first use."""
    key = (world, column, backend_name)
    with _EVALUATORS_LOCK:
        ev = _EVALUATORS.get(key)
        if ev is not None:
            _EVALUATORS.move_to_end(key)
            return ev
    data = load_game_world(world)
    ev = GreedyTreeEvaluator(
        data.matrix,
        column_prior(data, column),
        rounds=world.rounds,
        loss=world.loss,
        backend=backend_name,
        n_patterns=data.n_patterns,
        follow_up=column.follow_up,
    )
    with _EVALUATORS_LOCK:
        _EVALUATORS[key] = ev
        while len(_EVALUATORS) > _MAX_EVALUATORS:
            _EVALUATORS.popitem(last=False)
    return ev


def evaluate_chunk(world: World, column: Column, openers: list[int], backend_name: str = "numpy") -> list[float]:
    """``E`` of every opener in ``openers`` under ``column`` (plain data in, plain data out)."""
    return evaluator_for(world, column, backend_name).expected_values(list(openers))


@dataclass(frozen=True)
class ChunkTask:
    """One chunk of the sweep or of an opener table, as :mod:`termo.core.executors` runs it."""

    world: World
    column: Column
    openers: tuple
    backend: str
    key: str

    def run(self) -> list[float]:
        return [float(v) for v in evaluate_chunk(self.world, self.column, list(self.openers), self.backend)]


GRID_TARGETS = (300, 600, 1200, 2400, 4800, None)  # None: every answer of Termo (6,046)


def grid_columns(data: WorldData, targets=GRID_TARGETS, project_t: float = 1.0) -> list[Column]:
    """The §8 grid: one column per effective-size target (N = all answers) plus the project prior
    (T = ``project_t``), sorted by effective size. Targets above the answer count are capped."""
    from termo.robustness.scale import size_at, temperature_for

    n = len(data.icf)
    cols = []
    for target in targets:
        target = min(float(termo_answers() if target is None else target), float(n))
        t = temperature_for(data.icf, target, n)
        cols.append((size_at(data.icf, t, n), Column(f"M={target:g}", t, n, target)))
    cols.append((size_at(data.icf, project_t, n), Column(f"T={project_t:g}", project_t, n, None)))
    cols.sort(key=lambda pair: pair[0])
    return [c for _, c in cols]


__all__ = ["World", "WorldData", "Column", "load_world", "load_game_world", "uniform_column", "column_prior", "column_key", "chunk_key",
           "evaluator_for", "evaluate_chunk", "ChunkTask", "grid_columns"]
