"""Absurdle's challenge mode solved for every target (docs/absurdle.md): the fewest guesses that force
the adversary to end on a given answer.

A target ``t`` is won in ``L + 1`` guesses when ``L`` guesses leave ``t`` alone (then ``t`` is
played). The minimum's proof (`termo.exact.absurdle.prove_minimum`) lists every answer that some
shortest win leaves: those need exactly that many guesses; every other target needs at least one
more (every shorter sequence was searched). For each of them `reach` looks for ``L`` guesses that
leave the target alone, ``L`` from one more than the minimum's upward: a depth-first search that
only follows a guess whose kept group still holds the target (the target's code for the guess is
the kept code), smallest groups first, with the minimum's sound cut on group sizes (a group is
never split within ``k`` guesses when larger than ``max D ** k``) and, per target and depth, a
budget of groups. A target found at the first depth tried has its minimum proved; one found
deeper, or not found within ``MAX_LEFT`` guesses, is bracketed (lower bound proved, upper bound
found). The targets of the shortest wins are not searched: the proof gives one of their wins. Targets are cut into chunks (`termo.core.executors.Chunk` of `challenge`), checkpointed and run like the minimum's.
"""

from __future__ import annotations

import time
from typing import Callable

from termo.core.chunks import CheckpointStore, digest, stored_rows
from termo.core.executors import Chunk
from termo.core.keys import candidate_key
from termo.exact.absurdle import AdversarySpec, ChunkRunner, adversary_of, forced_store, spec_of

METHOD = "absurdle-challenge/1"
DEFAULT_CHUNK = 32
DEFAULT_BUDGET = 20_000  # groups a target's search may visit at one depth before that depth is left open
MAX_LEFT = 6  # the most guesses searched before the target's own


class _Spent(Exception):
    """A target's search used up its budget at one depth."""



class Reach:
    """The depth-first search for guesses that leave one target alone (see the module doc)."""

    def __init__(self, adversary, target: int, hard: bool = False, budget: int = DEFAULT_BUDGET):
        self.adv = adversary
        self.xp = adversary.xp
        self.target = int(target)
        self.hard = bool(hard)
        self.budget = int(budget)
        self.groups = 0
        self._failed: set = set()

    def find(self, members, left: int, allowed=None):
        """``left`` guesses from ``members`` (which hold the target) that leave the target alone, as
        a tuple of probes; None when none exist; raises `_Spent` past the budget."""
        xp, adv = self.xp, self.adv
        key = (left, candidate_key(members), None if allowed is None else hash(allowed.tobytes()))
        if key in self._failed:
            return None
        self.groups += 1
        if self.groups > self.budget:
            raise _Spent
        d = adv.distinct(members)
        if left == 1:
            return self._last(members, d, allowed)
        guesses = adv.all_probes if allowed is None else allowed
        codes, sizes = adv.pick(members, guesses)
        bound = int(xp.max(d)) ** (left - 1)
        own = adv.M[guesses, self.target].astype(xp.int32)
        ok = xp.nonzero((codes == own) & (sizes >= 2) & (sizes <= bound))[0]
        for i in ok[xp.argsort(sizes[ok], kind="stable")].tolist():
            g, code = int(guesses[i]), int(codes[i])
            group = adv.kept(members, g, code)
            child_allowed = None if allowed is None else adv.allowed_after(allowed, g, code)
            if left == 2:
                found = self._last(group, d, child_allowed)
            else:
                found = self.find(group, left - 1, child_allowed)
            if found is not None:
                return (g,) + found
        self._failed.add(key)
        return None

    def _last(self, members, d, allowed):
        """One guess that splits ``members`` into single answers and leaves the target: among the
        probes showing enough colours over a state holding them (``d``), legal ones in hard mode."""
        xp = self.xp
        n = int(members.shape[0])
        order = xp.nonzero(d >= n)[0].astype(xp.int64)
        if allowed is not None:
            order = order[xp.isin(order, allowed)]
        probes, kept = self.adv.splitters(members, order, int(order.shape[0]))
        hit = xp.nonzero(kept == self.target)[0]
        return (int(probes[hit[0]]),) if hit.shape[0] else None


def challenge(spec: AdversarySpec, targets: list[int], lowers: list[int], budget: int, game=None) -> list:
    """Per target: ``[lower, upper, guesses]``: the proved fewest guesses (its own included) is at
    least ``lower`` and at most ``upper`` (0: none found within `MAX_LEFT`), ``guesses`` the
    probes of a win of ``upper`` guesses before the target's own."""
    adv = adversary_of(spec, game)
    root = adv.root()
    out = []
    for target, lower in zip(targets, lowers):
        found, low = None, int(lower)
        for left in range(int(lower) - 1, MAX_LEFT + 1):
            search = Reach(adv, target, spec.hard, budget)
            try:
                found = search.find(root, left, adv.all_probes if spec.hard else None)
            except _Spent:
                continue
            if found is not None:
                break
            if low == left + 1:  # searched in full and none: the bound rises
                low = left + 2
        if found is None:
            out.append([low, 0, []])
        else:
            out.append([low, len(found) + 1, [int(g) for g in found]])
    return out


def _encode(values) -> list:
    return [[int(lo), int(up), [int(g) for g in seq]] for lo, up, seq in values]


def _decode(values, high=None) -> list:
    out = []
    for row in stored_rows(values, "lower, upper, guesses"):
        lo, up, seq = row
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (lo, up)) or lo < 1 or not (
                up == 0 or (up >= lo and len(seq) == up - 1)):
            raise ValueError(f"result {row!r} is not a bracket and its win")
        out.append([lo, up, list(seq)])
    return out


def challenge_store(directory, reuse: bool = True) -> CheckpointStore:
    return CheckpointStore(directory, reuse=reuse, kind="termo-absurdle-challenge/1", decode=_decode, encode=_encode)


def solve_challenge(game, minimum: dict, *, hard: bool = False, chunk: int = DEFAULT_CHUNK,
                    budget: int = DEFAULT_BUDGET, store: CheckpointStore | None = None, executor=None,
                    progress: Callable | None = None, warn: Callable | None = None, info: dict | None = None,
                    compute: bool = True, local_game: bool = False) -> dict:
    """Every target's fewest guesses (see the module doc) given the minimum's proof ``minimum``
    (`termo.exact.absurdle.prove_minimum`'s result, proved). Plain data."""
    started = time.time()
    spec = spec_of(game, hard)
    least = int(minimum["minimum"])
    known = {}  # a target some shortest win leaves: one such win, from the proof (no search)
    for win in minimum["wins"]:
        known.setdefault(game.answers.index(win[-1]), [least, least, [game.index_of(w) for w in win[:-1]]])
    lowers = [least + 1] * game.n_answers
    runner = ChunkRunner(store or challenge_store(None), executor, progress, warn, compute)
    runner.total = game.n_answers - len(known)
    searched = [a for a in range(game.n_answers) if a not in known]
    blocks = [tuple(searched[i:i + chunk]) for i in range(0, len(searched), chunk)]
    if local_game:
        results = {a: v for b in blocks for a, v in zip(b, challenge(spec, list(b), [lowers[a] for a in b], budget,
                                                                     game))}
    else:
        tasks = [Chunk(challenge, tuple(b), digest({"method": METHOD, "spec": spec.describe(), "budget": int(budget),
                                                    "targets": list(b), "lowers": [lowers[a] for a in b]}),
                       (spec,), ([lowers[a] for a in b], int(budget))) for b in blocks]
        results = runner.run(tasks, {"spec": spec.describe(), "budget": int(budget)}, "targets")
    results.update(known)
    if info is not None:
        info.update(runner.info(started))
    return _table(game, spec, results, runner.missing, least, budget)


def _table(game, spec: AdversarySpec, results: dict, missing: int, least: int, budget: int) -> dict:
    rows = []
    for a in sorted(results):
        lo, up, seq = results[a]
        rows.append({"target": game.answers[a], "lower": lo, "upper": up or None, "proved": up == lo,
                     "guesses": [game.probes[g] for g in seq] + ([game.answers[a]] if up else [])})
    table: dict = {}
    for row in rows:
        key = str(row["lower"]) if row["proved"] else f"{row['lower']}-{row['upper'] or '?'}"
        table[key] = table.get(key, 0) + 1
    return {"game": game.label, "hard": spec.hard, "targets": game.n_answers, "done": len(rows),
            "proved": not missing and len(rows) == game.n_answers and all(r["proved"] for r in rows),
            "complete": not missing and len(rows) == game.n_answers, "minimum": least, "budget": budget,
            "table": dict(sorted(table.items(), key=lambda kv: (len(kv[0]), kv[0]))),
            "open": [r["target"] for r in rows if not r["proved"]],
            "more_than": {str(k): [r["target"] for r in rows if r["lower"] > k] for k in (least,)},
            "rows": rows, "chunks_missing": missing}


__all__ = ["Reach", "challenge", "challenge_store", "forced_store", "solve_challenge"]
