"""A proved bracket for a whole two-board game from a fixed first guess (docs/modes-solver.md,
*A whole game from an opener*), objective finish.

The game is the real one: the two boards hide *distinct* answers, the ordered pair (a1, a2)
drawn with probability ``w(a1)·w(a2)/Z`` (``w`` the game's prior, ``Z = W² − Σ w²`` over every
answer, ``a1 ≠ a2``). After the opener the boards' answers lie in its buckets i and j:

* ``i ≠ j``, neither the opener's own answer: the two candidate sets are disjoint, so the pair
  is the product of the boards' renormalised priors, exactly the state `MultiExact` solves
  (weight ``2·W_i·W_j / Z``, both orders);
* ``i = j``: both answers in one set, distinct (weight ``(W_i² − Σ_{a∈S_i} w²) / Z``), solved
  here (:func:`pair_bracket`);
* the opener was one board's answer: the other board alone (weight ``2·w(opener)·W_j / Z``).

The game's value is ``1 + Σ weight · V``. Per item: ``upper`` is the exact value of the best
strategy found (the search's, or a greedy strategy valued over every pair of the item), ``lower``
a proved bound (exact when the search finished within its budget of states; else the least
bound of every first guess there). Both sums are therefore a proved lower bound of the optimum
and the exact value of one strategy over every answer pair.

The items are cut into chunks (at most ``chunk`` items and `CHUNK_TUPLES` joint tuples each,
smallest first), run by :mod:`termo.core.executors` and checkpointed by :mod:`termo.core.chunks`:
each worker resets its memo at a chunk's start and budgets states, not seconds, so a chunk's
values depend on its items alone, whatever runs it, in whatever order, resumed or not.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from termo.core.chunks import CheckpointStore, digest, number_in, number_out, run_chunks, stored_rows
from termo.core.errors import TermoError
from termo.core.executors import Chunk, LocalExecutor, PerProcess
from termo.core.keys import candidate_key

METHOD = "bracket/2"  # bump when what a chunk computes changes: the checkpoint keys change with it
KIND = "termo-multi-bracket-chunk/1"
DEFAULT_CHUNK = 400  # items per chunk at most
CHUNK_TUPLES = 250_000  # joint answer tuples per chunk at most
DEFAULT_BUDGET = 2_000  # states an item's search may expand per 1,000 joint tuples, 2,000 at least (then its bracket stands)
ITEM = 1000  # item id = i · ITEM + j, i <= j bucket positions


@dataclass(frozen=True)
class BracketSpec:
    """What a bracket is of: a mode of two boards (registry name), its game's matrix signature,
    the opener (probe index), the prior's temperature and the budget of states per item (per 1,000
    joint tuples: `item_bracket`)."""

    mode: str
    signature: str
    opener: int
    t: float
    budget: int

    def load_mode(self):
        from termo.engine.matrix import checked_game
        from termo.games import get_mode

        mode = get_mode(self.mode)
        checked_game(mode.game, self.signature, self.mode)
        return mode

    def describe(self) -> dict:
        return {"mode": self.mode, "matrix": self.signature, "opener": self.opener,
                "t": None if math.isinf(self.t) else self.t, "budget": self.budget, "objective": "finish"}


# --------------------------------------------------------------------------- one process's search
class _Context:
    """One process's search for a spec: the mode, its per-board statistics, the exact solver and
    the opener's buckets (ascending code) with their weights."""

    def __init__(self, spec: BracketSpec, mode):
        from termo.engine.multi.exact import MultiExact
        from termo.engine.multi.level2 import MultiSolver, check_objective

        if mode.boards != 2:
            raise TermoError(f"a bracket is for a mode of two boards, not {mode.boards} ({mode.label})")
        self.mode = mode
        self.rounds = mode.max_turns - 1
        solver = MultiSolver(mode, t=spec.t)
        self.stats = solver.stats
        self.exact = MultiExact(self.stats, check_objective("finish"))
        self.engine = self.exact.engine(mode.max_turns)
        self.prior = np.asarray(self.stats.prior, dtype=np.float64)[: mode.game.n_answers]
        self.win = int(self.stats.win_code)
        codes = np.asarray(self.stats.matrix[int(spec.opener)])[: mode.game.n_answers]
        self.codes = sorted(int(c) for c in np.unique(codes))
        self.buckets = [np.flatnonzero(codes == c).astype(np.int64) for c in self.codes]
        self.pairs: dict = {}

    def reset(self) -> None:
        self.engine.reset()
        self.pairs.clear()


_CONTEXT = PerProcess()


def _context(spec: BracketSpec, mode=None) -> _Context:
    """This process's search for ``spec`` (built once, from ``mode`` or the registry)."""
    return _CONTEXT.get(spec, lambda: _Context(spec, mode if mode is not None else spec.load_mode()))


def settle(spec: BracketSpec, items: list[int]) -> list:
    """Per item ``[lower, upper, proved, states]`` (the expected turns still to play after the
    opener), from a fresh memo: the values depend on the items alone."""
    ctx = _context(spec)
    ctx.reset()
    return [item_bracket(ctx, item, spec.budget) for item in items]


def item_bracket(ctx: _Context, item: int, budget: int) -> list:
    """``[lower, upper, proved, states]`` of one item, its search given ``budget`` states per
    1,000 joint tuples (and ``budget`` at least)."""
    i, j = divmod(int(item), ITEM)
    r = ctx.rounds
    before = ctx.engine.nodes
    budget = int(budget) * max(1000, ctx.buckets[i].shape[0] * ctx.buckets[j].shape[0]) // 1000
    if ctx.codes[i] == ctx.win or ctx.codes[j] == ctx.win:
        other = ctx.buckets[j if ctx.codes[i] == ctx.win else i]
        v, _, _ = ctx.engine.solve([other], r)
        return [v, v, True, ctx.engine.nodes - before]
    if i == j:
        lo, up = pair_bracket(ctx, ctx.buckets[i], r, budget)
        return [lo, up, lo >= up, ctx.engine.nodes - before]
    res = ctx.exact.prove([ctx.buckets[i], ctx.buckets[j]], r, node_limit=budget)
    return [res.lower, res.upper, res.proved, ctx.engine.nodes - before]


def pair_bracket(ctx: _Context, S, r: int, budget: int = 0) -> tuple[float, float]:
    """(lower, upper) of two boards whose distinct answers both lie in ``S``, ``r`` rounds left.
    Upper: :func:`pair_upper`. Lower: the largest of three proved bounds (:func:`_pair_lower`:
    the count of solving turns, the other board's answer revealed; :func:`_pair_relaxed`: the
    independent product ``S × S`` of the model, its diagonal paid at most ``r + 1``)."""
    S = np.asarray(S, dtype=np.int64)
    if r <= 1 or S.shape[0] <= 2:
        return 2.0, 2.0  # one turn solves one board at most; two answers: either one, then the other
    up = pair_upper(ctx, S, r)
    lo = max(_pair_lower(ctx, S, r), _pair_relaxed(ctx, S, r, budget))
    return min(lo, up), up


def pair_upper(ctx: _Context, S, r: int) -> float:
    """The exact value of a strategy for two boards whose distinct answers both lie in ``S``: the
    search's greedy guess for the independent pair ``S × S``, then its outcomes (a pair again;
    two disjoint sets, the search's greedy strategy; one board, its optimum)."""
    S = np.asarray(S, dtype=np.int64)
    if r <= 1 or S.shape[0] <= 2:
        return 2.0
    key = (candidate_key(S), int(r))
    if key in ctx.pairs:
        return ctx.pairs[key]
    w = ctx.prior[S]
    Z = float(w.sum() ** 2 - (w * w).sum())
    _, g = ctx.engine.policy_value([S, S], r)
    codes = np.asarray(ctx.stats.matrix[int(g)])[S]
    groups = [(int(c), S[codes == c]) for c in np.unique(codes)]
    total = 1.0
    for k, (ck, bk) in enumerate(groups):
        wk = float(ctx.prior[bk].sum())
        if ck != ctx.win:
            total += (wk * wk - float((ctx.prior[bk] ** 2).sum())) / Z * pair_upper(ctx, bk, r - 1)
        for cl, bl in groups[k + 1:]:
            wl = float(ctx.prior[bl].sum())
            if ck == ctx.win or cl == ctx.win:
                alone = bl if ck == ctx.win else bk
                v = ctx.engine.solve([alone], r - 1)[0]
            else:
                v = ctx.engine.policy_value([bk, bl], r - 1)[0]
            total += 2.0 * wk * wl / Z * v
    ctx.pairs[key] = total
    return total


def _pair_lower(ctx: _Context, S, r: int) -> float:
    """The larger of ``3 − max_x P(x solves a board)`` (two turns only when both guesses solve)
    and the other board's answer revealed at the start (its answer is then best played first,
    and the board left is solved alone after its colours)."""
    w = ctx.prior[S]
    W, Z = float(w.sum()), float(w.sum() ** 2 - (w * w).sum())
    count = 3.0 - float((2.0 * w * (W - w)).max()) / Z
    genie = 0.0
    for pos, b in enumerate(S.tolist()):
        rest = np.delete(S, pos)
        codes = np.asarray(ctx.stats.matrix[b])[rest]
        after = 0.0
        for c in np.unique(codes):
            part = rest[codes == c]
            after += float(ctx.prior[part].sum()) * ctx.engine.solve([part], r - 1)[0]
        genie += float(w[pos]) * (W - float(w[pos])) / Z * (1.0 + after / (W - float(w[pos])))
    return max(count, genie)


def _pair_relaxed(ctx: _Context, S, r: int, budget: int) -> float:
    """The model's independent product ``S × S`` (a repeated answer allowed) bounds the distinct
    pair: the distinct game's optimal strategy, played there, costs its value on the distinct
    pairs and at most ``r + 1`` on a repeated one, so ``W²·V(S × S) ≤ Z·V + (r + 1)·Σ w²``
    (docs/modes-solver.md); ``V(S × S)`` by its proved lower bound within ``budget`` states."""
    w = ctx.prior[S]
    W2, sq = float(w.sum()) ** 2, float((w * w).sum())
    low = ctx.exact.prove([S, S], r, node_limit=int(budget)).lower
    return (W2 * low - (r + 1.0) * sq) / (W2 - sq)


# --------------------------------------------------------------------------- the whole game
def items_of(ctx: _Context):
    """Every item ``(id, weight, tuples)``: the unordered bucket pairs (both orders in the weight),
    the opener's own answer on both boards left out (the answers are distinct)."""
    w = ctx.prior
    Wt = float(w.sum())
    Z = Wt * Wt - float((w * w).sum())
    masses = [float(w[b].sum()) for b in ctx.buckets]
    squares = [float((w[b] ** 2).sum()) for b in ctx.buckets]
    out = []
    for i, bi in enumerate(ctx.buckets):
        for j in range(i, len(ctx.buckets)):
            if i == j:
                weight = (masses[i] * masses[i] - squares[i]) / Z
            else:
                weight = 2.0 * masses[i] * masses[j] / Z
            if weight > 0.0:
                out.append((i * ITEM + j, weight, int(bi.shape[0]) * int(ctx.buckets[j].shape[0])))
    return out


def bracket_store(directory, reuse: bool = True) -> CheckpointStore:
    return CheckpointStore(directory, reuse=reuse, kind=KIND, decode=_decode, encode=_encode)


def _encode(values) -> list:
    return [[number_out(lo), number_out(up), bool(p), int(n)] for lo, up, p, n in values]


def _decode(values, high=None) -> list:
    """A chunk's stored results; ValueError for anything :func:`settle` cannot have written."""
    out = []
    for row in stored_rows(values, "lower, upper, proved, states"):
        lo, up, proved, n = row
        lo, up = number_in(lo), number_in(up)
        if not isinstance(proved, bool) or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"result {row!r} has a bad flag or count")
        if not (0.0 <= lo <= up) or (proved and lo != up):
            raise ValueError(f"result {row!r} is not a bracket")
        out.append([lo, up, proved, n])
    return out


def spec_of(mode, opener: int, t: float = 1.0, budget: int = DEFAULT_BUDGET) -> BracketSpec:
    from termo.engine.matrix import matrix_signature

    return BracketSpec(mode=mode.label, signature=matrix_signature(mode.game), opener=int(opener), t=float(t),
                       budget=int(budget))


def chunks_of(items, chunk: int):
    """The items, smallest first, cut into chunks of at most ``chunk`` items and `CHUNK_TUPLES`
    joint tuples (a single larger item is a chunk of its own)."""
    ordered = sorted(items, key=lambda it: (it[2], it[0]))
    out, current, tuples = [], [], 0
    for item_id, _, size in ordered:
        if current and (len(current) >= chunk or tuples + size > CHUNK_TUPLES):
            out.append(tuple(current))
            current, tuples = [], 0
        current.append(item_id)
        tuples += size
    if current:
        out.append(tuple(current))
    return out


def bracket_game(mode, opener: int, *, t: float = 1.0, budget: int = DEFAULT_BUDGET, chunk: int = DEFAULT_CHUNK,
                 store: CheckpointStore | None = None, executor=None, progress: Callable | None = None,
                 warn: Callable | None = None, compute: bool = True, info: dict | None = None) -> dict:
    """The bracket of ``mode`` (two boards) from ``opener`` (see the module doc): plain data that
    depends only on the inputs; ``compute=False`` reads the checkpoints only (how far a run went:
    an item not checkpointed counts ``[2, rounds + 1]``, one board ``[1, rounds + 1]``)."""
    started = time.time()
    spec = spec_of(mode, opener, t, budget)
    ctx = _context(spec, mode)
    items = items_of(ctx)
    store = store or bracket_store(None)
    executor = executor or LocalExecutor()
    warn = warn or (lambda line: None)
    chunks = chunks_of(items, int(chunk))
    size = {item_id: n for item_id, _, n in items}

    def report(done, total, resumed, task):
        if progress:
            progress(done - resumed, total - resumed)

    results, counts = run_chunks(store, executor, chunks,
                                 lambda ids: digest({"method": METHOD, "spec": spec.describe(), "items": list(ids)}),
                                 lambda ids, key: Chunk(settle, tuple(ids), key, (spec,)), size.__getitem__, report,
                                 warn=warn, compute=compute, meta={"spec": spec.describe()})
    out = summary(ctx, spec, items, results, len(chunks))
    out.update({"chunks_resumed": counts["resumed"], "chunks_computed": counts["computed"],
                "chunks_missing": counts["missing"]})
    if info is not None:
        info.update(counts, seconds=time.time() - started)
    return out


def summary(ctx: _Context, spec: BracketSpec, items, results: dict, n_chunks: int) -> dict:
    """The bracket from the items' results (missing items at their widest: see `bracket_game`);
    ``settled``: the probability of the settled items and the bracket of the game given that the
    answers fall in one of them (how far a partial run has got, not a bound of the game)."""
    game = ctx.mode.game
    lower = upper = 1.0
    proved = settled = states = 0
    mass, low_in, up_in = 0.0, 0.0, 0.0  # the settled items' weight and weighted bounds
    worst = float(ctx.rounds + 1)
    for item_id, weight, _ in sorted(items):
        row = results.get(item_id)
        if row is None:
            i, j = divmod(item_id, ITEM)
            single = ctx.codes[i] == ctx.win or ctx.codes[j] == ctx.win
            row = [1.0 if single else 2.0, worst, False, 0]
        else:
            settled += 1
            states += int(row[3])
            mass, low_in, up_in = mass + weight, low_in + weight * row[0], up_in + weight * row[1]
        lower += weight * row[0]
        upper += weight * row[1]
        proved += bool(row[2])
    return {"mode": ctx.mode.label, "game": game.label, "opener": game.probes[spec.opener], "objective": "finish",
            "turns": ctx.mode.max_turns, "t": None if math.isinf(spec.t) or game.uniform_prior else spec.t,
            "budget": spec.budget, "items": len(items), "items_settled": settled, "items_proved": proved,
            "chunks": n_chunks, "lower": lower, "upper": upper, "gap": upper - lower,
            "proved": settled == len(items) and proved == len(items), "states": states,
            "settled": {"weight": mass, "lower": 1.0 + low_in / mass if mass else None,
                        "upper": 1.0 + up_in / mass if mass else None}}
