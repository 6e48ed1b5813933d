"""Fibble from a fixed opener, bracketed (docs/fibble.md): the best expected number of guesses lies
between two proved values, and the best chance of a win within the rows above a third.

* **Upper bound**: a strategy's exact value. The level-2 (or level-3) policy of
  `termo.engine.lie_solver.LieSolver` is played from the opener against every answer (its prior
  weight) and every lie of every row (its chance), the whole tree walked (`policy_value`): the
  expected guesses (a game lost after the last row costs the rows plus `LOSS`) and the chance of a
  win within the rows. No strategy does worse than the best, so the best is at most that.
* **Lower bound**: honest colours after the opener's row. A player who is shown the true colours
  of every later row can always do as well as one shown lies (it may draw the lie itself), so the
  best Fibble value from the opener is at least ``1 + Σ_p P(p)·V_H(S_p)``, ``V_H`` the best honest
  expected guesses from the candidates the opener's row ``p`` leaves, weighted by their chance,
  with the rows left. ``V_H`` comes from the exact solver (`termo.exact.search.Problem`): proved,
  or its own proved lower bound when its budget of states runs out (then said so).

Both are sums over the rows the opener may show, so the work is cut by those rows (`row_bracket`:
one row's ``[lower, upper, win, proved, states, nodes]``), chunks of rows (`settle_rows` in a
`termo.core.executors.Chunk`) run by :mod:`termo.core.executors` (here or on Dask) and checkpointed by :mod:`termo.core.chunks`
(``--resume``, ``--status``). A row's values depend on the row alone: the policy's memo
(`policy_value`, by candidate set, turn and shares of weight) and the exact solver are fresh for
each row, and the solver's budget is counted in states (``nodes`` per 100 candidates, ``nodes`` at
least), not seconds; so a cut, resumed or distributed run gives the uncut run's numbers.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from backends.host_ops import feedback
from termo.core.chunks import CheckpointStore, digest, number_in, number_out, run_chunks, stored_rows
from termo.core.errors import TermoError
from termo.core.executors import Chunk, LocalExecutor, PerProcess
from termo.core.keys import candidate_key
from termo.engine.lie_solver import LOSS, LieSolver, rows
from termo.engine.lies import lie_tables
from termo.engine.matrix import SignedGame

METHOD = "fibble-rows/1"  # bump when what a row computes changes: the checkpoint keys change with it
KIND = "termo-fibble-row-chunk/1"
DEFAULT_NODES = 2_000  # the exact solver's states per 100 candidates of an opener row (this many at least)
DEFAULT_CHUNK = 1  # opener rows per checkpointed chunk
PRUNE = 150  # states of at most this many members: level 2 weighs only the true-colour vectors `contenders` keeps
FEW = 1024  # vectors of true colours weighed without `contenders` (its bound costs more than it saves)
SEEDS = 8  # probes of largest bound whose entropy sets the bar of `contenders`
MARGIN = 1e-9  # bits: a probe is dropped when its bound is below the bar by more (rounding: 1e-12)
SHARES = 12  # a state's shares of weight are rounded to this many decimals in the policy's memo key


def policy_guess(solver: LieSolver, members, weights, turn: int) -> int:
    """The guess of ``solver``'s policy at a state: at level 2 the first choice of
    `LieSolver.decide_state` without its alternatives and reasons (the likeliest of two candidates
    or fewer, the greatest weight then the least index; else of `best_probes`, a candidate first,
    then the least index); at level 3 its decision."""
    n = int(members.shape[0])
    if solver.level != 2 or n == 0:
        return solver.decide_state(members, weights, turn).index
    if n <= max(2, solver.endgame):
        return int(members[min(range(n), key=lambda j: (-float(weights[j]), int(members[j])))])
    top = best_probes(solver, members, weights)
    member = np.isin(top, np.asarray(members))
    return int(top[member][0] if member.any() else top[0])


def best_probes(solver: LieSolver, members, weights):
    """The probes (ascending) of the most entropy of the shown row, rounded to 1e-12, at a state of
    three candidates or more: `LieSolver.entropies`'s values, bit for bit, of the probes that can
    be the best. A probe's entropy depends only on its vector of true colours over the members, so
    a small state (its codes packed in one int64 a probe) weighs each distinct vector once; a
    state of at most `PRUNE` members weighs only the vectors of `contenders`."""
    from termo.engine.matrix import answers_major_matrix

    game = solver.game
    n = int(members.shape[0])
    table = np.asarray(answers_major_matrix(game))[np.asarray(members)]  # members × probes: true colours
    width = max(int(game.n_patterns) - 1, 1).bit_length()
    packed = None
    if n * width <= 63:
        packed = table[0].astype(np.int64)
        for j in range(1, n):
            packed |= table[j].astype(np.int64) << (width * j)
        ordered = np.sort(packed)  # the distinct keys by a sort alone; their vectors are unpacked from them
        distinct = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]
        table = np.stack([(distinct >> (width * j)) & ((1 << width) - 1) for j in range(n)]).astype(table.dtype)
    kept = contenders(game, table, weights) if n <= PRUNE and table.shape[1] > FEW else np.arange(table.shape[1])
    neighbours, chances, _ = lie_tables(game.word_length)
    bits = feedback.lie_entropies(np.ascontiguousarray(table[:, kept].T), np.arange(n, dtype=np.int64), weights,
                                  neighbours, chances, game.win_code)
    key = np.round(bits, 12)
    best = kept[key == key.max()]
    if packed is None:
        return best
    keys = distinct[best]
    return np.flatnonzero(packed == keys[0] if keys.shape[0] == 1 else np.isin(packed, keys))


def contenders(game, table, weights):
    """The columns of ``table`` (members × vectors of true colours) whose shown row may have the
    most entropy: those whose bound ``H(true colours) + P(not the answer)·log2 10`` (the shown row
    holds the true one and at most log2 10 bits of lie) reaches, less `MARGIN`, the best entropy of
    the `SEEDS` columns of largest bound; the others are below the best by more than 1e-12."""
    from backends.host_ops.boards import probe_entropies

    k = int(table.shape[1])
    if k <= SEEDS:
        return np.arange(k)
    weights = np.asarray(weights, dtype=np.float64)
    n = int(table.shape[0])
    honest = np.asarray(probe_entropies(np.ascontiguousarray(table), np.arange(n, dtype=np.int64), weights,
                                        game.n_patterns))
    hit = ((table == game.win_code) * weights[:, None]).sum(axis=0) / float(weights.sum())
    bound = honest + math.log2(10) * (1.0 - hit)
    seeds = np.sort(np.argpartition(-bound, SEEDS)[:SEEDS])
    neighbours, chances, _ = lie_tables(game.word_length)
    best = float(np.max(feedback.lie_entropies(np.ascontiguousarray(table[:, seeds].T), np.arange(n, dtype=np.int64),
                                               weights, neighbours, chances, game.win_code)))
    return np.flatnonzero(bound >= best - MARGIN)


def policy_value(solver: LieSolver, members, weights, turn: int, first: int | None = None,
                 progress: Callable | None = None, counter: list | None = None,
                 memo: dict | None = None) -> tuple[float, float]:
    """``(expected guesses, chance of a win within the rows)`` of ``solver``'s policy from a state
    at a 1-based ``turn`` (``first``: the guess played there instead of the policy's). ``memo``: the
    values of the states met so far, by candidate set, turn and shares of weight (rounded to
    `SHARES` decimals): a state met again by another path of rows is not walked again."""
    game = solver.game
    left = game.max_turns - turn + 1
    if left <= 0:
        return LOSS, 0.0
    if int(members.shape[0]) == 1 and first is None:
        return 1.0, 1.0
    key = None
    if memo is not None and first is None:
        key = (candidate_key(members), turn, np.round(weights / float(np.sum(weights)), SHARES).tobytes())
        if key in memo:
            return memo[key]
    if counter is not None:
        counter[0] += 1
        if progress is not None and counter[0] % 2000 == 0:
            progress(f"{counter[0]:,} states of the policy walked")
    guess = int(first) if first is not None else policy_guess(solver, members, weights, turn)
    value, win = 1.0, 0.0
    for code, p, m, w in rows(solver.matrix, game, members, weights, guess):
        if code == game.win_code:
            win += p
            continue
        v, pw = policy_value(solver, m, w, turn + 1, None, progress, counter, memo)
        value += p * v
        win += p * pw
    if key is not None:
        memo[key] = (value, win)
    return value, win


def row_budget(nodes: int, size: int) -> int:
    """The exact solver's states for an opener row of ``size`` candidates: ``nodes`` per 100 of
    them, ``nodes`` at least."""
    return int(nodes) * max(100, int(size)) // 100


# --------------------------------------------------------------------------- one row of the opener
@dataclass(frozen=True)
class FibbleSpec(SignedGame):
    """What a bracket is of: a game whose rows lie (registry name), its matrix signature, the
    opener (probe index), the policy's level, the prior's temperature and the exact solver's
    states per 100 candidates of a row (`row_budget`)."""

    opener: int
    level: int
    t: float
    nodes: int

    def describe(self) -> dict:
        return {"game": self.game, "matrix": self.signature, "opener": self.opener, "level": self.level,
                "t": None if math.isinf(self.t) else self.t, "nodes": self.nodes, "loss": LOSS}


def settle_rows(spec: FibbleSpec, codes: list[int]) -> list:
    """Per opener row (its code) of a chunk, `row_bracket`'s values: what a
    `termo.core.executors.Chunk` of the bracket runs, here or on a worker."""
    ctx = _context(spec)
    return [row_bracket(ctx, code) for code in codes]


class _Context:
    """One process's bracket of a spec: the game, the policy, and the opener's rows by code
    (``(chance, members, weights)``; the weights: prior × the row's chance for each answer, those
    of the policy's walk and of the honest solver alike)."""

    def __init__(self, spec: FibbleSpec, game):
        if game.feedback.kind != "lies":
            raise TermoError(f"{game.label}'s rows do not lie: `termo optimal` proves its value exactly (docs/exact.md)")
        self.spec = spec
        self.game = game
        self.solver = LieSolver(game, level=spec.level, t=spec.t)
        members, prior = self.solver.state(range(game.n_answers))
        self.rows = {int(code): (p, m, w) for code, p, m, w in rows(self.solver.matrix, game, members, prior,
                                                                    spec.opener)}
        weights = np.zeros(game.n_answers, dtype=np.float64)
        for code, (_, m, w) in self.rows.items():
            if code != game.win_code:
                weights[np.asarray(m)] = np.asarray(w)  # an answer's chance is the same in every row it may show
        self.weights = weights


_CONTEXT = PerProcess()


def _context(spec: FibbleSpec, game=None) -> _Context:
    """This process's bracket of ``spec`` (built once, from ``game`` or the registry)."""
    return _CONTEXT.get(spec, lambda: _Context(spec, game if game is not None else spec.load_game()))


def row_bracket(ctx: _Context, code: int) -> list:
    """``[lower, upper, win, proved, states, nodes]`` of the opener's row ``code``: the expected
    guesses after it (the honest solver's value or its proved bound; the policy's exact value),
    the policy's chance of a win within the rows, whether ``lower`` is the honest optimum, the
    policy's states walked and the solver's states expanded. Fresh memos: the row alone decides."""
    from termo.exact.search import Problem

    game = ctx.game
    _, members, weights = ctx.rows[int(code)]
    counter = [0]
    upper, win = policy_value(ctx.solver, members, weights, 2, None, None, counter, {})
    problem = Problem(game, weights=ctx.weights, loss=LOSS)
    budget = row_budget(ctx.spec.nodes, int(members.shape[0]))
    value, exact, _ = problem.engine.solve(members, game.max_turns - 1, budget=budget)
    lower = min(value / problem.weight(members), upper)  # both proved: the honest optimum is no worse than any policy
    return [lower, upper, win, bool(exact), counter[0], int(problem.engine.nodes)]


def _encode(values) -> list:
    return [[number_out(lo), number_out(up), win, bool(p), int(s), int(n)] for lo, up, win, p, s, n in values]


def _decode(values, high=None) -> list:
    """A chunk's stored results; ValueError for anything :func:`row_bracket` cannot have written."""
    out = []
    for row in stored_rows(values, "lower, upper, win, proved, states, nodes"):
        lo, up, win, proved, s, n = row
        lo, up = number_in(lo), number_in(up)
        counts_ok = all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in (s, n))
        if not isinstance(proved, bool) or not counts_ok:
            raise ValueError(f"result {row!r} has a bad flag or count")
        if isinstance(win, bool) or not isinstance(win, (int, float)) or not 0.0 <= win <= 1.0 + 1e-9:
            raise ValueError(f"result {row!r} has a bad chance of a win")
        if not (1.0 <= lo <= up) or (high is not None and up > high):
            raise ValueError(f"result {row!r} is not a bracket")
        out.append([lo, up, float(win), proved, s, n])
    return out


def row_store(directory, reuse: bool = True) -> CheckpointStore:
    """The checkpoint store of the bracket's chunks of rows under ``directory``."""
    return CheckpointStore(directory, reuse=reuse, kind=KIND, decode=_decode, encode=_encode)


# --------------------------------------------------------------------------- the whole bracket
def spec_of(game, opener: int, level: int = 2, t: float = 1.0, nodes: int = DEFAULT_NODES) -> FibbleSpec:
    from termo.engine.matrix import matrix_signature

    return FibbleSpec(game=game.label, signature=matrix_signature(game), opener=int(opener), level=int(level),
                      t=float(t), nodes=int(nodes))


def chunks_of(ctx: _Context, chunk: int) -> list[tuple]:
    """The opener's non-winning rows, largest first (the long ones start early), cut into chunks of
    at most ``chunk`` rows."""
    codes = sorted((c for c in ctx.rows if c != ctx.game.win_code),
                   key=lambda c: (-int(ctx.rows[c][1].shape[0]), c))
    return [tuple(codes[i:i + chunk]) for i in range(0, len(codes), max(1, int(chunk)))]


def bracket(game, opener: str | None = None, *, level: int = 2, t: float = 1.0, nodes: int = DEFAULT_NODES,
            chunk: int = DEFAULT_CHUNK, store: CheckpointStore | None = None, executor=None,
            progress: Callable | None = None, warn: Callable | None = None, compute: bool = True,
            info: dict | None = None) -> dict:
    """The bracket of the best expected guesses from ``opener`` (default the game's) and the chance
    of a win within the rows of ``level``'s policy, cut by the opener's rows (see the module doc):
    plain data that depends only on the inputs. ``progress(done, total, note, resumed)`` counts
    candidates of the rows; ``compute=False`` reads the checkpoints only (how far a run went: a
    row not checkpointed counts ``[1, rows left + LOSS]``, no win)."""
    if game.feedback.kind != "lies":
        raise TermoError(f"{game.label}'s rows do not lie: `termo optimal` proves its value exactly (docs/exact.md)")
    word = opener or game.default_opener
    probe = game.index_of(word) if word else None
    if probe is None:
        raise TermoError(f"--opener {str(word)[:40]!r} is not a guess of {game.label}")
    started, cpu = time.time(), time.process_time()
    spec = spec_of(game, probe, level, t, nodes)
    ctx = _context(spec, game)
    store = store or row_store(None)
    executor = executor or LocalExecutor()
    warn = warn or (lambda line: None)
    progress = progress or (lambda done, total, note="", resumed=0: None)
    size = {c: int(m.shape[0]) for c, (_, m, _) in ctx.rows.items()}
    chunks = chunks_of(ctx, chunk)

    def report(done, total, resumed, task):
        progress(done, total, "" if task is None else f"row of {size[task.items[0]]} candidates", resumed)

    results, counts = run_chunks(store, executor, chunks,
                                 lambda codes: digest({"method": METHOD, "spec": spec.describe(),
                                                       "items": list(codes)}),
                                 lambda codes, key: Chunk(settle_rows, tuple(codes), key, (spec,)), size.__getitem__,
                                 report, high=game.max_turns - 1 + LOSS, warn=warn, compute=compute,
                                 meta={"spec": spec.describe()})
    out = summary(ctx, results)
    out.update(chunks=len(chunks), chunks_missing=counts.pop("missing"))
    if info is not None:
        info.update(counts, seconds=time.time() - started, cpu_seconds=time.process_time() - cpu)
    return out


def summary(ctx: _Context, results: dict) -> dict:
    """The bracket from the rows' results (a missing row at its widest: see `bracket`);
    ``settled``: the chance of the settled rows and the bracket given the opener shows one of them
    (how far a partial run has got, not a bound of the game)."""
    game, spec = ctx.game, ctx.spec
    worst = float(game.max_turns - 1) + LOSS
    lower = upper = 1.0
    win = mass = low_in = up_in = win_in = 0.0
    n_rows = settled = proved = states = nodes = 0
    for code in sorted(ctx.rows):
        p = ctx.rows[code][0]
        if code == game.win_code:
            win += p
            continue
        n_rows += 1
        row = results.get(code)
        if row is None:
            row = [1.0, worst, 0.0, False, 0, 0]
        else:
            settled += 1
            states, nodes = states + row[4], nodes + row[5]
            mass, low_in, up_in, win_in = mass + p, low_in + p * row[0], up_in + p * row[1], win_in + p * row[2]
        lower, upper, win = lower + p * row[0], upper + p * row[1], win + p * row[2]
        proved += bool(row[3])
    complete = settled == n_rows
    return {"game": game.label, "opener": game.probes[spec.opener], "rows": game.max_turns, "answers": game.n_answers,
            "policy_level": spec.level, "upper": upper, "lower": lower, "gap": upper - lower,
            "proved": complete and math.isclose(upper, lower, rel_tol=0, abs_tol=1e-9),
            "win_within_rows": win, "complete": complete, "policy_states": states, "loss": LOSS,
            "rows_of_opener": n_rows, "rows_settled": settled, "rows_lower_proved": proved,
            "lower_rows_proved": complete and proved == n_rows, "lower_nodes_per_100": spec.nodes,
            "lower_nodes": nodes,
            "settled": {"chance": mass, "lower": 1.0 + low_in / mass if mass else None,
                        "upper": 1.0 + up_in / mass if mass else None, "win": win_in / mass if mass else None},
            "row_values": {str(c): results[c] for c in sorted(results)}}
