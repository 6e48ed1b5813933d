"""Absurdle solved (docs/absurdle.md): the fewest guesses that force a win, proved, with every
winning sequence counted; and, in `termo.exact.absurdle_challenge`, challenge mode for every target.

The adversary's game is a walk without chance (`termo.engine.adversary_search`): from the state of
every answer, a win in ``L + 1`` guesses is ``L`` guesses that leave one answer, then that answer.
`prove_minimum` looks for such sequences with ``L = 1, 2, 3, ...`` in turn, every one of them
(`ForcedSearch.wins`, exhaustive but for its sound cut), and stops at the first ``L`` that has
some: no shorter win exists (each shorter ``L`` was searched in full and found none), so ``L + 1``
is the minimum, and the sequences found are all the winning sequences of that length. The work is
cut by first guess into chunks (`termo.core.executors.Chunk` of `forced_wins`), checkpointed (`termo.core.chunks.CheckpointStore`)
and run here, on local Dask workers or on a cluster (`termo.core.executors`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from termo.core.chunks import CheckpointStore, digest, run_chunks, stored_rows
from termo.core.errors import TermoError
from termo.core.executors import Chunk, LocalExecutor, PerProcess
from termo.engine.matrix import SignedGame

METHOD = "absurdle-forced/1"  # bump when what a chunk computes changes: its checkpoint keys change
KIND = "termo-absurdle-chunk/1"
DEFAULT_CHUNK = 64  # the first guesses of one chunk (the CLI's --chunk default)
MAX_LEFT = 3  # the longest run of guesses searched for one answer left (then one more wins)


@dataclass(frozen=True)
class AdversarySpec(SignedGame):
    """What a run is of: a game of the adversary's model (its registry name and matrix signature)
    and the mode; plain data a worker turns back into its adversary."""

    hard: bool

    def describe(self) -> dict:
        return {"game": self.game, "matrix": self.signature, "hard": self.hard}


def spec_of(game, hard: bool = False) -> AdversarySpec:
    from termo.engine.matrix import matrix_signature

    if not game.feedback.adversary:
        raise TermoError(f"{game.label}'s colours are not an adversary's: `termo optimal` proves its expected "
                         f"guesses instead (docs/exact.md)")
    return AdversarySpec(game.label, matrix_signature(game), bool(hard))


_ADVERSARY = PerProcess()  # this process's adversary, kept from chunk to chunk


def adversary_of(spec: AdversarySpec, game=None):
    """This process's `termo.engine.adversary.Adversary` for ``spec`` (built once; ``game``: the
    driver's own, e.g. a test's game outside the registry)."""
    from termo.engine.adversary import Adversary

    return _ADVERSARY.get(spec, lambda: Adversary(game if game is not None else spec.load_game()))


def forced_wins(spec: AdversarySpec, words: list[int], left: int, game=None) -> list:
    """Per first guess: ``[size, wins]``, the size of the group the adversary keeps for it and
    every sequence of ``left`` guesses starting with it that leaves one answer (none sooner), each
    as its guesses after the first and, last, the answer left."""
    from termo.engine.adversary_search import ForcedSearch

    adv = adversary_of(spec, game)
    root = adv.root()
    out = []
    for word in words:
        code, group = adv.choose(root, word)
        size = int(group.shape[0])
        if left == 1 or size == 1:
            out.append([size, [[int(group[0])]] if size == 1 and left == 1 else []])
            continue
        allowed = adv.allowed_after(adv.all_probes, word, code) if spec.hard else None
        wins = ForcedSearch(adv, spec.hard).wins(group, left - 1, allowed)
        out.append([size, [list(w.guesses) + [w.final] for w in wins]])
    return out


def _encode(values) -> list:
    return [[int(size), [[int(x) for x in win] for win in wins]] for size, wins in values]


def _decode(values, high=None) -> list:
    """A chunk's stored results; ValueError for anything `forced_wins` cannot have written."""
    out = []
    for row in stored_rows(values, "size, wins"):
        size, wins = row
        if isinstance(size, bool) or not isinstance(size, int) or size < 1 or not isinstance(wins, list):
            raise ValueError(f"result {row!r} is not [size, wins]")
        for win in wins:
            if not isinstance(win, list) or not win or not all(isinstance(x, int) and x >= 0 for x in win):
                raise ValueError(f"win {win!r} is not a list of indices")
        out.append([size, [list(w) for w in wins]])
    return out


def forced_store(directory, reuse: bool = True) -> CheckpointStore:
    """The checkpoint store of the minimum's chunks (and the challenge's: `absurdle_challenge`)."""
    return CheckpointStore(directory, reuse=reuse, kind=KIND, decode=_decode, encode=_encode)


class ChunkRunner:
    """Chunks through an executor: checkpoints reused and written, progress reported; ``compute``
    off only reads the checkpoints (``--status``)."""

    def __init__(self, store: CheckpointStore, executor, progress=None, warn=None, compute: bool = True):
        self.store, self.executor, self.compute = store, executor or LocalExecutor(), compute
        self.progress = progress or (lambda done, total, note="", resumed=0: None)
        self.warn = warn or (lambda line: None)
        self.done = self.total = self.resumed_items = 0
        self.computed = self.resumed = self.missing = 0

    def run(self, tasks: list, meta: dict, note: str) -> dict:
        """``{item: value}`` over every task's items (``task.items``), checkpoints first
        (`termo.core.chunks.run_chunks`); progress counts items over every round run so far."""
        by_items = {tuple(task.items): task for task in tasks}
        done_before, resumed_before = self.done, self.resumed_items

        def report(done, total, resumed, task):
            self.done, self.resumed_items = done_before + done, resumed_before + resumed
            self.progress(self.done, self.total, note, self.resumed_items)

        results, counts = run_chunks(self.store, self.executor, list(by_items), lambda items: by_items[items].key,
                                     lambda items, key: by_items[items], lambda item: 1, report, warn=self.warn,
                                     compute=self.compute, meta=meta)
        self.computed += counts["computed"]
        self.resumed += counts["resumed"]
        self.missing += counts["missing"]
        return results

    def info(self, started: float) -> dict:
        return {"seconds": time.time() - started, "chunks_computed": self.computed, "chunks_resumed": self.resumed,
                "executor": getattr(self.executor, "name", "local")}


def prove_minimum(game, *, hard: bool = False, chunk: int = DEFAULT_CHUNK, store: CheckpointStore | None = None,
                  executor=None, progress: Callable | None = None, warn: Callable | None = None,
                  info: dict | None = None, compute: bool = True, max_left: int = MAX_LEFT,
                  local_game: bool = False) -> dict:
    """The fewest guesses that force ``game``'s adversary to lose, proved, with every winning
    sequence of that length (see the module doc); plain data that depends only on the inputs.
    ``compute=False`` reads the checkpoints only (``--status``). ``local_game``: the tasks use
    ``game`` itself (a game outside the registry: this process only)."""
    started = time.time()
    spec = spec_of(game, hard)
    runner = ChunkRunner(store or forced_store(None), executor, progress, warn, compute)
    adv = adversary_of(spec, game if local_game else None)
    searched = []
    for left in range(1, max_left + 1):
        results = _round(game, spec, runner, left, chunk, local_game)
        if runner.missing:
            return _status(game, spec, left, results, runner, searched)
        wins = [[w] + win for w in sorted(results) for win in results[w][1]]
        if wins:
            out = _result(game, spec, left, wins, results, searched, adv)
            if info is not None:
                info.update(runner.info(started))
            return out
        searched.append({"guesses": left + 1, "wins": 0})
    out = _result(game, spec, None, [], {}, searched, adv)
    if info is not None:
        info.update(runner.info(started))
    return out


def _round(game, spec: AdversarySpec, runner: ChunkRunner, left: int, chunk: int, local_game: bool) -> dict:
    """Every first guess's ``[size, wins]`` for ``left`` guesses that leave one answer."""
    words = list(range(game.n_probes))
    runner.total = len(words)
    runner.done = runner.resumed_items = 0
    blocks = [tuple(words[i:i + chunk]) for i in range(0, len(words), chunk)]
    if local_game:  # a game outside the registry: computed here, never checkpointed
        return {w: v for block in blocks for w, v in zip(block, forced_wins(spec, list(block), left, game))}
    tasks = [Chunk(forced_wins, block, digest({"method": METHOD, "spec": spec.describe(), "left": left,
                                                   "words": list(block)}), (spec,), (left,))
             for block in blocks]
    return runner.run(tasks, {"spec": spec.describe(), "left": left}, f"{left + 1} guesses")


def _result(game, spec: AdversarySpec, left, wins: list, results: dict, searched: list, adv) -> dict:
    words = game.probes
    finals = sorted({w[-1] for w in wins})
    firsts = sorted({w[0] for w in wins})
    sizes = [v[0] for v in results.values()]
    out = {"game": game.label, "hard": spec.hard, "answers": game.n_answers, "guesses": game.n_probes,
           "proved": left is not None, "minimum": None if left is None else left + 1,
           "searched_up_to": (left or MAX_LEFT) + 1, "shorter": searched,
           "sequences": len(wins), "final_words": len(finals), "first_words": len(firsts),
           "finals": [game.answers[a] for a in finals], "first": [words[g] for g in firsts],
           "smallest_first_group": min(sizes) if sizes else None,
           "wins": [[words[g] for g in w[:-1]] + [game.answers[w[-1]]] for w in wins]}
    if left is None:
        out["note"] = f"no forced win in {MAX_LEFT + 1} guesses or fewer; longer ones are not searched"
    return out


def _status(game, spec: AdversarySpec, left: int, results: dict, runner: ChunkRunner, searched: list) -> dict:
    found = sum(len(v[1]) for v in results.values())
    return {"game": game.label, "hard": spec.hard, "proved": False, "searching": left + 1,
            "shorter": searched, "first_words_done": len(results), "first_words": game.n_probes,
            "chunks_missing": runner.missing, "sequences_so_far": found}
