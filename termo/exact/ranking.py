"""Every first word of a game ranked with proof: the exact totals of the N best, and a proof that
no other first word does better (docs/exact.md, *Every first word*).

The work is cut by first word into chunks (`termo.core.executors.Chunk` of `settle`), run by :mod:`termo.core.executors`
(this process, local Dask workers or a cluster) and checkpointed by :mod:`termo.core.chunks`, so a
killed run resumes where it stopped and a lost worker costs its chunk only.

1. **Seeds.** The first words with the finest split at the root (least ``Σ_b W(S_b)²``, then the
   probe index), ``max(2N, N + 5)`` of them, are solved exactly, one chunk each. The N-th best of
   their totals is the *threshold* ``τ``.
2. **Everyone else**, in the same order, in rounds of 256, 1,024, 4,096 ... first words, each
   cut into chunks: a first word is *out* when a lower bound of its total reaches ``limit = τ +
   δ``, ``τ`` the N-th best exact total known when the round starts (``δ = 1`` for a uniform
   game, whose totals are integers, so *out* means strictly worse than ``τ``; ``δ = 0`` for a
   weighted one). Bounds come first: the one-pass bound at the root (every first word's at once,
   in the driver), then the one-level-deeper bound of the search
   (``ExactEngine.deep_guess_bounds``), which settles most words in milliseconds; a word it
   leaves below the limit gets a limit-mode search (``termo.exact.solve(limit=...)``), which
   either proves its total below the limit (exact) or a lower bound at least the limit (out).
   The first rounds hold the most promising words, so ``τ`` falls to the true N-th best early.
3. **The ranking**: the exact totals at most the N-th best (ties at the N-th place included), by
   total then probe index. Every other first word was proved at least its round's limit, which
   is at least the final ``τ + δ``.

Within a round the limit is fixed, and a round starts when the one before has finished, so every
chunk's result depends only on its words and its limit: the output is the same whatever the
executor, the order chunks finish in, or what was resumed (a test kills a distributed run and
compares).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

from termo.core.chunks import CheckpointStore, digest, number_in, number_out, stored_rows
from termo.core.errors import TermoError
from termo.core.executors import Chunk, LocalExecutor, PerProcess
from termo.games import EXACT, Game

METHOD = "rank/1"  # bump when what a chunk computes changes: the checkpoint keys change with it
KIND = "termo-exact-rank-chunk/1"  # the chunks' checkpoint format
DEFAULT_CHUNK = 64
FIRST_ROUND = 256  # first words settled against the seeds' threshold; each later round is 4 times larger
ROUND_GROWTH = 4
EXACT_STATUS, OUT_STATUS = "exact", "out"


@dataclass(frozen=True)
class RankSpec:
    """What a ranking is of: a game (its registry name, win rule and matrix signature), the mode,
    the prior's temperature and the loss cost; plain data that a worker turns back into its
    search (a game outside the registry, as in the tests, runs in this process only)."""

    game: str
    strict: bool
    signature: str
    hard: bool
    t: float
    loss: float

    def load_game(self) -> Game:
        from termo.engine.matrix import checked_game
        from termo.games import get_game

        return checked_game(get_game(self.game, strict=self.strict), self.signature, self.game)

    def describe(self) -> dict:
        return {"game": self.game, "strict": self.strict, "matrix": self.signature, "hard": self.hard,
                "t": None if math.isinf(self.t) else self.t, "loss": self.loss}


# --------------------------------------------------------------------------- one chunk
_PROBLEM = PerProcess()  # the worker's one search (its memo kept from chunk to chunk)


def _problem(spec: RankSpec, game: Game | None = None):
    """This process's search for ``spec`` (built once, from ``game`` or the registry; a new spec
    replaces it)."""
    from termo.exact.search import Problem

    def build():
        chosen = game if game is not None else spec.load_game()
        return Problem(chosen, hard=spec.hard, t=spec.t, loss=spec.loss)

    return _PROBLEM.get(spec, build)


def settle(spec: RankSpec, words: list[int], limit: float, problem=None) -> list:
    """Per first word ``[status, lower, upper, how]``: ``exact`` (its total, below ``limit``: lower
    = upper) or ``out`` (``lower`` at least ``limit``; ``upper`` inf); ``how`` says what settled it
    (``bound``: the deeper bound; ``search``: the limit-mode search; ``solve``: an exact solve; the
    driver settles others by the one-pass bound at the root, ``root``, without a chunk).
    ``problem``: the search to run on (default: this process's one search for ``spec``)."""
    from termo.exact.search import solve

    prob = problem or _problem(spec)
    game, engine = prob.game, prob.engine
    root = prob.root()
    rounds = game.max_turns
    if math.isinf(limit):
        lows = [-math.inf] * len(words)
    else:
        lows = [float(v) for v in engine.deep_guess_bounds(root, rounds, words, limit=limit)]
    out = []
    for word, low in zip(words, lows):
        if low >= limit:
            out.append([OUT_STATUS, low, math.inf, "bound"])
            continue
        r = solve(game, opener=int(word), problem=prob, time_limit=math.inf,
                  limit=None if math.isinf(limit) else limit)
        if r.proved and r.upper_total < limit:
            out.append([EXACT_STATUS, r.upper_total, r.upper_total, "solve" if math.isinf(limit) else "search"])
        else:
            out.append([OUT_STATUS, max(low, r.lower_total), math.inf, "search"])
    return out


def _encode(values) -> list:
    return [[s, number_out(lo), number_out(up), how] for s, lo, up, how in values]


def _decode(values, high=None) -> list:
    """A chunk's stored results; ValueError for anything :func:`settle` cannot have written."""
    out = []
    for row in stored_rows(values, "status, lower, upper, how"):
        status, lo, up, how = row
        lo, up = number_in(lo), number_in(up)
        if status == EXACT_STATUS and not (lo == up and math.isfinite(lo) and how in ("solve", "search")):
            raise ValueError(f"exact result {row!r} is not one finite total")
        if status == OUT_STATUS and not (up == math.inf and how in ("bound", "search")):
            raise ValueError(f"result {row!r} is not a lower bound")
        if status not in (EXACT_STATUS, OUT_STATUS):
            raise ValueError(f"unknown status {status!r}")
        out.append([status, lo, up, how])
    return out


def rank_store(directory, reuse: bool = True) -> CheckpointStore:
    """The checkpoint store of the ranking's chunks under ``directory``."""
    return CheckpointStore(directory, reuse=reuse, kind=KIND, decode=_decode, encode=_encode)


# --------------------------------------------------------------------------- the whole ranking
def spec_of(game: Game, *, hard: bool = False, t: float = 1.0, loss: float | None = None) -> RankSpec:
    from termo.engine import tree_search
    from termo.engine.matrix import matrix_signature

    return RankSpec(game=game.label, strict=game.win_rule == EXACT, signature=matrix_signature(game),
                    hard=bool(hard), t=float(t), loss=float(tree_search.LOSS_COST if loss is None else loss))


class _Runner:
    """Chunks through an executor: checkpoints reused and written, progress reported."""

    def __init__(self, spec: RankSpec, store: CheckpointStore, executor, progress, warn, compute: bool = True):
        self.spec, self.store, self.executor, self.compute = spec, store, executor, compute
        self.missing = 0  # chunks not checkpointed, when only the checkpoints are read (compute off)
        self.progress = progress or (lambda done, total, note="", resumed=0: None)
        self.warn = warn or (lambda line: None)
        self.total = 0
        self.done = 0
        self.resumed = 0
        self.resumed_words = 0  # words read from checkpoints, in every round so far
        self.computed = 0
        self.rejected = 0

    def key(self, words, limit) -> str:
        return digest({"method": METHOD, "spec": self.spec.describe(),
                       "limit": number_out(limit), "words": list(words)})

    def run(self, chunks: list[tuple], limit: float, note: str) -> dict:
        """``{word: [status, lower, upper, how]}`` for every word of ``chunks``."""
        results: dict = {}
        tasks = []
        for words in chunks:
            key = self.key(words, limit)
            cached, rejected = self.store.resume(key, list(words), warn=self.warn)
            self.rejected += rejected
            if cached is not None:
                self.resumed += 1
                self.resumed_words += len(words)
                self.done += len(words)
                results.update(zip(words, cached))
            else:
                tasks.append(Chunk(settle, tuple(words), key, (self.spec,), (limit,)))
        self.progress(self.done, self.total, note, self.resumed_words)
        if not self.compute:
            self.missing += len(tasks)
            return results
        for task, values in self.executor.run(tasks):
            self.store.put(task.key, list(task.items), values, meta={"spec": self.spec.describe(),
                                                                       "limit": number_out(task.after[0])})
            self.computed += 1
            self.done += len(task.items)
            results.update(zip(task.items, values))
            self.progress(self.done, self.total, note, self.resumed_words)
        return results


def root_order(game: Game, spec: RankSpec, problem=None) -> tuple[list[int], list[float]]:
    """Every probe by its split at the root (least ``Σ_b W(S_b)²``, then the index): the order the
    seeds are taken in and the chunks are cut in; and every probe's one-pass bound at the root
    (``problem`` as in :func:`settle`)."""
    prob = problem or _problem(spec, game)
    bounds, sq = prob.engine.first_pass(prob.root(), game.max_turns)
    return sorted(range(game.n_probes), key=lambda i: (float(sq[i]), i)), [float(b) for b in bounds]


def rank_first_words(game: Game, n: int = 5, *, hard: bool = False, t: float = 1.0, loss: float | None = None,
                     chunk: int = DEFAULT_CHUNK, store: CheckpointStore | None = None, executor=None,
                     progress: Callable | None = None, warn: Callable | None = None,
                     info: dict | None = None, compute: bool = True) -> dict:
    """The proven ranking of ``game``'s first words (see the module doc): plain data that depends
    only on the inputs. ``info``, when given, is filled with how the run went. ``compute=False``
    only reads the checkpoints: how far a run has gone (:func:`_status`), nothing computed."""
    if int(n) < 1:
        raise TermoError(f"--rank must be at least 1, not {n}")
    n = min(int(n), game.n_probes)
    started = time.time()
    spec = spec_of(game, hard=hard, t=t, loss=loss)
    runner = _Runner(spec, store or rank_store(None), executor or LocalExecutor(), progress, warn, compute)
    order, first_pass = root_order(game, spec)
    seeds = _seeds(game, order, n)
    runner.total = game.n_probes
    results = runner.run([(w,) for w in seeds], math.inf, "seeds")
    rest = [w for w in order if w not in results]
    delta = 0.0 if _weighted(spec, game) else 1.0
    start, size = 0, FIRST_ROUND
    while start < len(rest) and not runner.missing:  # rounds, each against the threshold the earlier ones reached
        limit = _threshold(results, n) + delta
        block = []
        for w in rest[start:start + size]:  # the one-pass bound at the root settles some at once
            if first_pass[w] >= limit:
                results[w] = [OUT_STATUS, first_pass[w], math.inf, "root"]
            else:
                block.append(w)
        runner.done += min(size, len(rest) - start) - len(block)
        results.update(runner.run([tuple(block[i:i + chunk]) for i in range(0, len(block), chunk)], limit,
                                  "first words"))
        start, size = start + size, size * ROUND_GROWTH
    if runner.missing or len(results) < game.n_probes:
        out = _status(game, spec, n, results, first_pass, runner.missing)
    else:
        out = _result(game, spec, n, _threshold(results, n), results)
    if info is not None:
        info.update({"seconds": time.time() - started, "chunks_computed": runner.computed,
                     "chunks_resumed": runner.resumed, "rejected_checkpoints": runner.rejected,
                     "executor": getattr(runner.executor, "name", "local")})
    return out


def other_runs(store: CheckpointStore, game: Game, *, hard: bool = False, t: float = 1.0,
               loss: float | None = None, sample: int = 64) -> str | None:
    """When ``store`` holds checkpoints of other rankings (none of this one's was read): what
    their options were, from the spec each records, beside this one's (``--status`` on another
    run's folder said "0 settled" and nothing more); None when there is nothing to say."""
    ours = spec_of(game, hard=hard, t=t, loss=loss).describe()
    theirs = []
    for data in store.records(sample):
        meta = data.get("meta") if isinstance(data, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("spec"), dict):
            theirs.append(meta["spec"])
    if not theirs:
        return None
    other = next((spec for spec in theirs if spec != ours), None)
    if other is None:
        return "they have these options but other chunks: give that run's --chunk"
    names = {"matrix": "word lists and win rule"}
    differ = [f"{names.get(k, k)} {other.get(k)!r}, here {ours[k]!r}" for k in ours if other.get(k) != ours[k]]
    return f"they were made with {'; '.join(differ)}: give that run's options"


def _threshold(results: dict, n: int) -> float:
    """The N-th best exact total so far (inf while fewer than N are known: with ``loss = inf`` a
    first word that must lose an answer has no finite total)."""
    totals = sorted(v[1] for v in results.values() if v[0] == EXACT_STATUS)
    return totals[n - 1] if len(totals) >= n else math.inf


def _weighted(spec: RankSpec, game: Game) -> bool:
    return not (game.uniform_prior or math.isinf(spec.t))


def _seeds(game: Game, order: list[int], n: int) -> list[int]:
    """The first words solved exactly first: the finest splits. (Not the game's opener: the seeds
    decide the rounds and so the checkpoints, which must not go stale when the opener changes.)"""
    return list(order[:min(game.n_probes, max(2 * n, n + 5))])


def _result(game: Game, spec: RankSpec, n: int, threshold: float, results: dict) -> dict:
    weighted = _weighted(spec, game)
    scale = _weight_of_all(game, spec) if weighted else float(game.n_answers)
    exact = sorted((v[1], w) for w, v in results.items() if v[0] == EXACT_STATUS)
    cut = exact[min(n, len(exact)) - 1][0] if exact else math.inf
    ranking = [{"word": game.probes[w], "total": total if not weighted else total / scale,
                "mean": total / scale, "proved": True} for total, w in exact if total <= cut]
    how = [v[3] for v in results.values()]
    return {
        "game": game.label, "hard": spec.hard, "t": None if math.isinf(spec.t) or not weighted else spec.t,
        "loss": spec.loss, "rank": n, "answers": game.n_answers, "first_words": game.n_probes,
        "best": ranking[0]["word"] if ranking else None, "ranking": ranking,
        "threshold": threshold if not weighted else threshold / scale,
        "settled_by_first_pass": how.count("root"), "settled_by_bound": how.count("bound"),
        "settled_by_search": how.count("search"),
        "solved_exactly": how.count("solve"), "exact_below_limit": len(exact),
        "proved": len(results) == game.n_probes,
    }


def _status(game: Game, spec: RankSpec, n: int, results: dict, first_pass: list, missing: int) -> dict:
    """How far an unfinished ranking has gone, from its checkpoints: the exact totals known, and
    the bracket of the best first word's value: at most the best exact total, at least the least
    of that and every unsettled word's one-pass bound."""
    weighted = _weighted(spec, game)
    scale = _weight_of_all(game, spec) if weighted else float(game.n_answers)
    exact = sorted((v[1], w) for w, v in results.items() if v[0] == EXACT_STATUS)
    open_words = [w for w in range(game.n_probes) if w not in results]
    best = exact[0][0] if exact else math.inf
    low = min([best] + [first_pass[w] for w in open_words])
    known = [{"word": game.probes[w], "total": total if not weighted else total / scale, "mean": total / scale,
              "proved": True} for total, w in exact[:n]]
    return {"game": game.label, "hard": spec.hard, "t": None if math.isinf(spec.t) or not weighted else spec.t,
            "loss": spec.loss, "rank": n, "answers": game.n_answers, "first_words": game.n_probes,
            "proved": False, "settled": len(results), "unsettled": len(open_words), "chunks_missing": missing,
            "best_so_far": known, "best_bracket": [low / scale, best / scale]}


def _weight_of_all(game: Game, spec: RankSpec) -> float:
    prob = _problem(spec, game)
    return prob.weight(prob.root())
