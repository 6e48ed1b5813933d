"""Opener tables: every answer form as the opener, the greedy follow-up played against every
answer, the full-game expected number of guesses (docs/openers.md).

This is the robustness study's full beam (:mod:`termo.robustness.sweep`, ``mode="all"``) for one
prior of any game: the same evaluator (:class:`~termo.robustness.greedy_tree.GreedyTreeEvaluator`
through :func:`~termo.robustness.world.evaluate_chunk`), the same chunks, checkpoints and
executors (in process, or on Dask). The prior is the game's: uniform for Nerdle and English
Wordle, ``softmax(-ICF/T)`` for Termo. The openers are the answers (in the game's answer order;
``limit`` keeps the first ones), the follow-up ranges over the game's whole probe space.

Values are stored to 4 decimals; openers whose stored values are equal share a rank
(competition ranking: 1, 2, 2, 4): a tie at 4 decimals is a tie, not an order. Rows are sorted
by rank, then by word. The result depends only on the inputs, never on the chunking, the
executor or what was resumed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

from termo.core.errors import TermoError
from termo.core.chunks import CheckpointStore
from termo.core.executors import LocalExecutor
from termo.robustness.world import FOLLOW_UP_METHODS, Column, World, load_game_world, uniform_column

DECIMALS = 4
FORMAT = "termo-opener-table/1"


@dataclass(frozen=True)
class TableConfig:
    game: str  # registry name
    t: float = 1.0  # the prior's temperature (games with a word-frequency prior only)
    limit: int | None = None  # the first N answers as openers; None: every answer
    only: tuple | None = None  # these answers (words, in this order) as the openers; None: see limit
    follow_up: str = "entropy"  # the greedy follow-up (termo.robustness.greedy_tree.FOLLOW_UPS)
    chunk_size: int = 32
    backend: str = "numpy"
    extended: bool = False

    def world(self) -> World:
        return World(extended=self.extended, game=self.game)


def table_column(config: TableConfig, data) -> Column:
    """The prior of the table: the game's uniform prior, or ``p_T`` over every answer; with the
    table's follow-up."""
    from dataclasses import replace

    from termo.robustness.greedy_tree import FOLLOW_UPS

    if config.follow_up not in FOLLOW_UPS:
        raise TermoError(f"--follow-up must be one of {', '.join(FOLLOW_UPS)}, not {config.follow_up!r}")
    game = config.world().load_game()
    if game.uniform_prior:
        return replace(uniform_column(data), follow_up=config.follow_up)
    t = float(config.t)
    if not t > 0:
        raise TermoError(f"the temperature must be positive (or inf), got {config.t}")
    return Column(f"T={t:g}", t, len(data.icf), follow_up=config.follow_up)


def rounded(value: float) -> float:
    """A value as stored: 4 decimals (``inf`` stays ``inf``)."""
    return value if not math.isfinite(value) else round(float(value), DECIMALS)


def rank_rows(pairs) -> list[dict]:
    """``[(word, E), ...]`` → rows ``{"word", "expected", "rank"}``: expected to 4 decimals,
    sorted by the stored value then the word; equal stored values share the rank of the first
    of them (1, 2, 2, 4)."""
    rows = sorted(((w, rounded(e)) for w, e in pairs), key=lambda row: (row[1], row[0]))
    out = []
    rank, previous = 0, None
    for position, (word, value) in enumerate(rows, start=1):
        if value != previous:
            rank, previous = position, value
        out.append({"word": word, "expected": value, "rank": rank})
    return out


def opener_indices(data, limit: int | None, only=None) -> list[int]:
    """The openers' answer indices: ``only`` (words, each once, in the order given), else the
    first ``limit`` answers, else every answer."""
    n = len(data.answers)
    if only is not None:
        if limit is not None:
            raise TermoError("give --only or --limit, not both")
        return named_openers(data, only)
    if limit is None:
        return list(range(n))
    limit = int(limit)
    if not 1 <= limit <= n:
        raise TermoError(f"--limit must be between 1 and {n:,} (the game's answers), got {limit}")
    return list(range(limit))


def named_openers(data, words) -> list[int]:
    """Answer indices of ``words`` (the game's normalisation; repeats dropped): a word that is not
    an answer of the game is an error naming it."""
    normalize = data.normalize or (lambda w: w.lower())
    index = {normalize(w): i for i, w in enumerate(data.answers)}
    out: list[int] = []
    for word in words:
        i = index.get(normalize(str(word)))
        if i is None:
            raise TermoError(f"{word!r} is not an answer of the game (an opener of the table must be one)")
        out.append(i)
    out = list(dict.fromkeys(out))
    if not out:
        raise TermoError("--only needs at least one opener")
    return out


def run_table(config: TableConfig, store: CheckpointStore | None = None, executor=None,
              progress: Callable | None = None, info: dict | None = None, warn: Callable | None = None) -> dict:
    """The opener table of ``config`` as plain data (see the module doc); ``info`` is filled
    with how the run went (seconds, chunks resumed/computed, executor), kept out of the result."""
    from termo.robustness.sweep import SweepConfig, _Runner, run_info

    started = time.time()
    world = config.world()
    data = load_game_world(world)
    column = table_column(config, data)
    openers = opener_indices(data, config.limit, config.only)
    if int(config.chunk_size) < 1:
        raise TermoError(f"the chunk must be at least 1 opener, got {config.chunk_size}")
    sweep = SweepConfig(world=world, columns=[column], mode="all", chunk_size=int(config.chunk_size),
                        backend=config.backend)
    runner = _Runner(sweep, data, store or CheckpointStore(None), executor or LocalExecutor(), progress, warn)
    values = runner.evaluate([(column, openers)])
    pairs = [(data.probes[g], values[(column.label, g)]) for g in openers]
    game = world.load_game()
    result = {
        "format": FORMAT,
        "game": game.label,
        "title": game.shown,
        "prior": "uniform" if game.uniform_prior else f"softmax(-ICF/{column.t:g})",
        "T": None if game.uniform_prior else column.t,
        "win_rule": game.win_rule,
        "rounds": world.rounds,
        "loss": world.loss,
        "method": FOLLOW_UP_METHODS[config.follow_up],
        "follow_up": config.follow_up,
        "n_answers": len(data.answers),
        "n_probes": len(data.probes),
        "n_openers": len(openers),
        "complete": len(openers) == len(data.answers),
        "decimals": DECIMALS,
        "openers": rank_rows(pairs),
    }
    if info is not None:
        info.update(run_info(runner, time.time() - started))
    return result


def summary(table: dict, top: int = 10) -> dict:
    """What the text output shows: the best openers, how many share the top value, the spread."""
    rows = table["openers"]
    finite = [r["expected"] for r in rows if math.isfinite(r["expected"])]
    best = rows[0] if rows else None
    return {
        "best": best,
        "tied_at_top": sum(1 for r in rows if best and r["rank"] == 1),
        "worst": rows[-1] if rows else None,
        "mean": sum(finite) / len(finite) if finite else None,
        "top": rows[:top],
    }


__all__ = ["TableConfig", "DECIMALS", "FORMAT", "rank_rows", "rounded", "run_table", "summary", "table_column",
           "opener_indices", "named_openers"]
