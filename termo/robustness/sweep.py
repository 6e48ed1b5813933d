"""The robustness grid (rules §8): expected guesses of openers across priors, regrets, the robust
opener — with the reference's beam of candidate openers, or with every opener (full beam).

``beam`` (the reference's candidate set): per column, the first 10 probes of the §5.2 ordering
at the root plus ``tarso`` and ``tosar``; ``ref_bits`` = the ordering's first probe, provisional
``ref_tries`` = the lowest E. Then every word that is some column's ``ref_bits`` or ``ref_tries``
(plus tarso, tosar) is evaluated in every column; a column's reference is the lowest E among
everything evaluated there. Regrets are reported for the words evaluated in every column.

``all``: every probe in every column: the true optimum of each column and true regrets.

Work is cut into chunks of openers (one column each), checkpointed as they finish; the result
depends only on the inputs, never on the chunking, the executor or on what was resumed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

from termo.core.cache import warn as cache_warn
from termo.core.errors import TermoError
from termo.core.chunks import CheckpointStore
from termo.core.executors import LocalExecutor
from termo.robustness.ordering import probe_prior_of, root_entropies, ordered_probes
from termo.robustness.scale import size_at
from termo.robustness.world import ChunkTask, Column, World, WorldData, chunk_key, column_prior, load_world

FIXED_OPENERS = ("tarso", "tosar")
BEAM_K = 10
TRACKED = ("tarso", "tosar", "sertã")


@dataclass
class SweepConfig:
    world: World = field(default_factory=World)
    columns: list | None = None  # list[Column]; None = the §8 grid
    mode: str = "beam"  # "beam" or "all"
    chunk_size: int = 32
    backend: str = "numpy"
    beam_k: int = BEAM_K
    fixed_openers: tuple = FIXED_OPENERS


class _Runner:
    """Runs chunks through an executor, reusing and writing checkpoints, reporting progress."""

    def __init__(self, config: SweepConfig, data: WorldData, store: CheckpointStore, executor,
                 progress: Callable | None, warn: Callable | None = None):
        self.config = config
        self.data = data
        self.store = store
        self.executor = executor
        self.progress = progress or (lambda done, total, note="": None)
        self.done_openers = 0
        self.total_openers = 0
        self.resumed_chunks = 0
        self.computed_chunks = 0
        self.rejected_chunks = 0  # checkpoints present but rejected (damaged, impossible values)
        self.warn = warn or cache_warn
        self.high = float(config.world.rounds) + float(config.world.loss)  # the most a game costs (§6.1)

    def evaluate(self, jobs: list[tuple[Column, list[int]]]) -> dict:
        """``{(column label, opener): E}`` for every (column, openers) job."""
        out: dict = {}
        tasks = []
        for column, openers in jobs:
            for start in range(0, len(openers), self.config.chunk_size):
                chunk = list(openers[start : start + self.config.chunk_size])
                key = chunk_key(self.config.world, self.data, column, chunk)
                self.total_openers += len(chunk)
                cached, rejected = self.store.resume(key, chunk, self.high, self.warn)
                self.rejected_chunks += rejected
                if cached is not None:
                    self.resumed_chunks += 1
                    self.done_openers += len(chunk)
                    out.update({(column.label, g): v for g, v in zip(chunk, cached)})
                else:
                    tasks.append(ChunkTask(self.config.world, column, tuple(chunk), self.config.backend, key))
        self.progress(self.done_openers, self.total_openers)
        for task, values in self.executor.run(tasks):
            self.store.put(task.key, list(task.openers), values,
                           meta={"column": task.column.describe(), "world": task.world.describe()})
            self.computed_chunks += 1
            self.done_openers += len(task.openers)
            out.update({(task.column.label, g): v for g, v in zip(task.openers, values)})
            self.progress(self.done_openers, self.total_openers)
        return out


def _fixed_indices(data: WorldData, words) -> list[int]:
    out = []
    for word in words:
        g = data.index_of(word)
        if g is not None:
            out.append(g)
    return out


def run_sweep(config: SweepConfig, store: CheckpointStore | None = None, executor=None,
              progress: Callable | None = None, info: dict | None = None, warn: Callable | None = None) -> dict:
    """Compute the grid; returns plain data that depends only on the inputs. ``info``, when
    given, is filled with how the run went (seconds, chunks resumed/computed, checkpoints
    rejected, executor). ``warn(line)`` reports a rejected checkpoint (default: one stderr line)."""
    if config.mode not in ("beam", "all"):
        raise TermoError(f"openers must be 'beam' or 'all', got {config.mode!r}")
    started = time.time()
    data = load_world(config.world)
    columns = list(config.columns) if config.columns is not None else None
    if columns is None:
        from termo.robustness.world import grid_columns

        columns = grid_columns(data)
    if not columns:
        raise TermoError("no column to evaluate")
    store = store or CheckpointStore(None)
    executor = executor or LocalExecutor()
    runner = _Runner(config, data, store, executor, progress, warn)
    n_probes = data.matrix.shape[0]

    # root ordering per column: ref_bits and the beam
    roots = {}
    for column in columns:
        prior = column_prior(data, column)
        h, inc = root_entropies(data.matrix, prior, data.n_patterns, config.backend)
        order = ordered_probes(h, inc, probe_prior_of(prior, n_probes), config.beam_k)
        roots[column.label] = {"order": order, "entropy": h, "M": size_at(data.icf, column.t, column.n_cut)}

    fixed = _fixed_indices(data, config.fixed_openers)
    values: dict = {}
    if config.mode == "all":
        everyone = list(range(n_probes))
        values.update(runner.evaluate([(c, everyone) for c in columns]))
        common = everyone
    else:
        first = []
        for column in columns:
            beam = list(dict.fromkeys(roots[column.label]["order"][: config.beam_k] + fixed))
            first.append((column, beam))
        values.update(runner.evaluate(first))
        common = list(fixed)
        for column, beam in first:
            bits = roots[column.label]["order"][0]
            tries = min(beam, key=lambda g: (values[(column.label, g)], beam.index(g)))
            for g in (bits, tries):
                if g not in common:
                    common.append(g)
        second = []
        for column in columns:
            missing = [g for g in common if (column.label, g) not in values]
            if missing:
                second.append((column, missing))
        values.update(runner.evaluate(second))
    result = _assemble(config, data, columns, roots, values, common)
    if info is not None:
        info.update(run_info(runner, time.time() - started))
    return result


def _assemble(config, data, columns, roots, values, common) -> dict:
    words = data.probes
    col_rows = []
    refs = {}
    for column in columns:
        label = column.label
        evaluated = {g: v for (lab, g), v in values.items() if lab == label}
        best = min(evaluated, key=lambda g: (evaluated[g], g))
        bits = roots[label]["order"][0]
        refs[label] = (best, evaluated[best], bits, evaluated.get(bits, math.nan))
        row = {
            "label": label,
            "M": roots[label]["M"],
            "T": column.t,
            "N": column.n_cut,
            "best_bits_word": words[bits],
            "best_bits_entropy": float(roots[label]["entropy"][bits]),
            "best_word": words[best],
            "best_expected": evaluated[best],
            "evaluated": len(evaluated),
        }
        if config.mode == "beam":
            row["beam"] = [words[g] for g in roots[label]["order"][: config.beam_k]]
        else:
            ranked = sorted(evaluated, key=lambda g: (evaluated[g], g))
            position = {g: i + 1 for i, g in enumerate(ranked)}
            row["ranks"] = {w: position.get(data.index_of(w)) for w in TRACKED if data.index_of(w) is not None}
            row["top10"] = [[words[g], evaluated[g]] for g in ranked[:10]]
        col_rows.append(row)
    expected, regret, vs_bits, worst = {}, {}, {}, {}
    for g in common:
        w = words[g]
        e = [values[(c.label, g)] for c in columns]
        expected[w] = e
        regret[w] = [x - refs[c.label][1] for x, c in zip(e, columns)]
        vs_bits[w] = [x - refs[c.label][3] for x, c in zip(e, columns)]
        worst[w] = max(regret[w])
    robust = min(worst, key=lambda w: (worst[w], list(worst).index(w))) if worst else None
    all_regrets = [x for r in regret.values() for x in r]
    return {
        "mode": config.mode,
        "world": config.world.describe(),
        "n_answers": len(data.answers),
        "n_probes": len(words),
        "columns": col_rows,
        "openers": [words[g] for g in common] if config.mode == "beam" else None,
        "expected": expected,
        "regret": regret,
        "regret_vs_bits": vs_bits,
        "worst_regret": worst,
        "robust_opener": robust,
        "robust_worst_regret": worst.get(robust) if robust else None,
        "checks": {"min_regret": min(all_regrets) if all_regrets else None},
    }


def run_info(runner, seconds: float) -> dict:
    """How the last run went (kept out of the result, which must not depend on it)."""
    return {
        "seconds": seconds,
        "chunks_resumed": runner.resumed_chunks,
        "chunks_computed": runner.computed_chunks,
        "rejected_checkpoints": runner.rejected_chunks,
        "openers_evaluated": runner.total_openers,
        "executor": getattr(runner.executor, "name", "local"),
    }
