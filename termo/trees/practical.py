"""The practical tree builder (docs/trees.md), for any game.

At every node with candidate set S (the answers still possible there):

1. the *pool* of guesses: every answer of S, plus, when ``|S| <= SAMPLE_LIMIT`` (500), up to
   ``SAMPLES`` (2,000) exploratory probes drawn deterministically (a fixed seeded permutation of
   the probes, read from an offset given by a hash of S; hard mode keeps the legal ones only);
2. the pool ranked as the live ``remaining`` ranking does (`termo.engine.partition`): expected
   remaining answers ``Σ n_b² / |S|`` ascending (compared exactly, as the integer ``Σ n_b²``),
   then the §5.2 chain: entropy on the 1e-9 grid descending, candidates first, prior weight
   descending, probe index ascending. With ``remaining="unsolved"`` the sum leaves out the
   winning group (an answer the move solves does not remain): the reading of docs/trees.md that
   comes nearest the published Nerdle tree;
3. the first ``SHORTLIST`` (64) get an exact evaluation of the expected total number of
   guesses: ``1 + Σ_b P(b|S) · V(S_b)`` over the non-winning groups, where ``V`` is the exact
   expected number of guesses of the *greedy* policy (play the first guess of step 2's order,
   until solved) on that group, memoised by set;
4. the lowest expected total wins (ties, to 1e-12, keep step 2's order); its groups become the
   children, each built the same way.

One candidate: play it. Two: play the more probable (lowest ICF, then the lower index; the
level-2 rule), then the other. The root is the opener (the game's default unless given).
The builder proves nothing about a better tree; its value is whatever `termo tree eval` says.
Everything is float64 on the host (the weights are the game's prior at T; uniform for Nerdle).
"""

from __future__ import annotations

import hashlib
import math
import random

from backends import host
from backends.constants import ROUND_STEP
from termo.core.errors import TermoError
from termo.trees.model import opener_index

SHORTLIST = 64
SAMPLES = 2000
SAMPLE_LIMIT = 500
SEED = 20260101
TIE = 1e-12
REMAINING = ("all", "unsolved")  # what step 2's Σ n_b² counts: every group, or the unsolved ones


class PracticalBuilder:
    """The builder of one game and prior (the greedy values are memoised across nodes); ``prior``:
    the build's `termo.core.prior.Prior` when the caller has it (else made at ``t``)."""

    def __init__(self, game, t: float = 1.0, hard: bool = False, shortlist: int = SHORTLIST,
                 samples: int = SAMPLES, sample_limit: int = SAMPLE_LIMIT, progress=None, remaining: str = "all",
                 prior=None):
        from termo.engine.matrix import answers_major_matrix
        from termo.core.prior import Prior

        hb = host()
        self.xp = xp = hb.xp
        self.hb = hb
        self.game = game
        self.hard = bool(hard)
        self.shortlist = int(shortlist)
        self.samples = int(samples)
        self.sample_limit = int(sample_limit)
        if remaining not in REMAINING:
            raise TermoError(f"--remaining must be one of {', '.join(REMAINING)}, not {remaining!r}")
        if self.samples < 0:
            raise TermoError(f"--samples must be at least 0, not {self.samples}")
        self.remaining = remaining
        from termo.engine.matrix import pattern_matrix

        self.mt = answers_major_matrix(game)  # answers x probes: a set's rows are contiguous
        self.m = hb.to_numpy(pattern_matrix(game, backend=hb))  # probes x answers: one guess's row
        self.w = Prior.at(game.icf, t, prior).weights
        self.uniform = bool(xp.all(self.w == self.w[0]))
        self.mask = xp.zeros(game.n_probes, dtype=xp.bool)  # scratch for the pool
        self.icf = game.icf
        pp = xp.zeros(game.n_probes, dtype=xp.float64)
        pp[: game.n_answers] = self.w
        self.probe_prior = pp
        order = list(range(game.n_probes))
        random.Random(SEED).shuffle(order)
        self.perm = xp.asarray(order + order[: self.samples], dtype=xp.int64)  # a window never wraps
        self.values: dict = {}  # set (tuple) -> greedy expected guesses
        self.progress = progress
        self.solved = 0
        self.nodes = 0

    # ------------------------------------------------------------------ pool and ranking
    def pool(self, cands, allowed=None):
        xp = self.xp
        n_probes = self.game.n_probes
        if cands.shape[0] > self.sample_limit or self.samples <= 0:
            return cands
        if self.samples >= n_probes:
            extra = xp.arange(n_probes, dtype=xp.int64)
        else:
            digest = hashlib.sha256(",".join(map(str, cands.tolist())).encode()).digest()
            start = int.from_bytes(digest[:8], "big") % n_probes
            extra = self.perm[start:start + self.samples]
        if allowed is not None:
            extra = extra[allowed[extra]]
        mask = self.mask
        mask[extra] = True
        mask[cands] = True
        pool = xp.nonzero(mask)[0]
        mask[pool] = False
        return pool

    def ranked(self, cands, pool):
        """``pool`` in the ranking's order over ``cands`` (see the module docstring)."""
        xp = self.xp
        sum_sq, h = self.split_stats(cands, pool)
        member = _member(xp, pool, cands)
        order = xp.arange(pool.shape[0], dtype=xp.int64)  # probe index ascending (the pool is sorted)
        keys = (-xp.take(self.probe_prior, pool), xp.astype(~member, xp.int8), -xp.round(h / ROUND_STEP), sum_sq)
        for key in keys:  # least significant first
            order = order[xp.argsort(xp.take(key, order), stable=True)]
        return xp.take(pool, order)

    def split_stats(self, cands, pool):
        """``(Σ n_b², H)`` of every probe of ``pool`` over ``cands``: the codes of each probe are
        sorted, their runs are the groups (no table over all codes)."""
        xp, hb = self.xp, self.hb
        m = int(cands.shape[0])
        n_pool = int(pool.shape[0])
        codes = xp.take(xp.take(self.mt, cands, axis=0), pool, axis=1)  # (m, P)
        codes = xp.astype(xp.permute_dims(codes, (1, 0)), xp.int64)  # (P, m)
        if self.remaining == "unsolved":  # the winning group is not counted (module doc, step 2)
            hits = xp.astype(xp.sum(xp.astype(codes == self.game.win_code, xp.int64), axis=1), xp.float64)
        ws = xp.take(self.w, cands)
        total = xp.sum(ws)
        uniform = bool(xp.all(ws == ws[0]))
        if uniform:
            codes = xp.sort(codes, axis=1)
        else:
            order = xp.argsort(codes, axis=1, stable=True)
            codes = xp.take_along_axis(codes, order, axis=1)
            wsorted = xp.take(ws / total, order)
        flat = xp.reshape(codes, (-1,))
        starts = xp.ones(flat.shape[0], dtype=xp.bool)
        starts[1:] = flat[1:] != flat[:-1]
        starts[::m] = True  # every row starts a run
        first = xp.nonzero(starts)[0]
        lengths = xp.astype(xp.diff(xp.concat([first, xp.asarray([flat.shape[0]], dtype=first.dtype)])),
                            xp.float64)
        rows = xp.reshape(first // m, (1, -1))
        sum_sq = xp.round(hb.row_histogram(rows, lengths * lengths, n_pool)[0])
        if self.remaining == "unsolved":
            sum_sq = sum_sq - hits * hits
        if uniform:
            nlogn = hb.row_histogram(rows, lengths * xp.log2(lengths), n_pool)[0]
            h = math.log2(m) - nlogn / m
        else:
            csum = xp.cumulative_sum(xp.reshape(wsorted, (-1,)), include_initial=True)
            ends = xp.concat([first[1:], xp.asarray([flat.shape[0]], dtype=first.dtype)])
            mass = xp.take(csum, ends) - xp.take(csum, first)
            safe = xp.where(mass > 0, mass, 1.0)
            h = -hb.row_histogram(rows, mass * xp.log2(safe), n_pool)[0]
        return sum_sq, h

    # ------------------------------------------------------------------ groups and values
    def groups(self, cands, guess):
        """The non-winning groups of ``cands`` under ``guess``: [(code, members)], codes ascending."""
        xp = self.xp
        codes = xp.astype(xp.take(self.m[int(guess)], cands), xp.int64)
        keep = codes != self.game.win_code
        codes, members = codes[keep], cands[keep]
        n = int(codes.shape[0])
        if n == 0:
            return []
        order = xp.argsort(codes, stable=True)
        codes, members = codes[order], members[order]
        cuts = (xp.nonzero(codes[1:] != codes[:-1])[0] + 1).tolist()
        bounds = [0] + cuts + [n]
        values = codes.tolist()
        return [(int(values[a]), members[a:b]) for a, b in zip(bounds, bounds[1:])]

    def pair_first(self, cands) -> tuple[int, int]:
        """Two candidates: (the one played first, the other): lowest ICF, then lower index."""
        a, b = int(cands[0]), int(cands[1])
        return (a, b) if (self.icf[a], a) <= (self.icf[b], b) else (b, a)

    def mass(self, members) -> float:
        if self.uniform:
            return int(members.shape[0]) * float(self.w[0])
        return float(self.xp.sum(self.xp.take(self.w, members)))

    def cost(self, cands, guess, total=None) -> float:
        """``1 + Σ_b P(b|S) V(S_b)`` over the non-winning groups of ``guess``."""
        total = self.mass(cands) if total is None else total
        acc = 0.0
        for _, members in self.groups(cands, guess):
            acc += self.mass(members) / total * self.value(members)
        return 1.0 + acc

    def value(self, cands) -> float:
        """Expected guesses of the greedy policy on ``cands`` (memoised)."""
        m = int(cands.shape[0])
        if m == 1:
            return 1.0
        key = tuple(cands.tolist())
        found = self.values.get(key)
        if found is not None:
            return found
        if m == 2:
            first, other = self.pair_first(cands)
            wf, wo = float(self.w[first]), float(self.w[other])
            v = 1.0 + (wo / (wf + wo) if wf + wo > 0 else 0.5)
        else:
            guess = int(self.ranked(cands, self.pool(cands))[0])
            v = self.cost(cands, guess)
        self.values[key] = v
        return v

    # ------------------------------------------------------------------ the tree
    def choose(self, cands, allowed=None) -> int:
        """The guess of a node with at least three candidates (steps 1-4)."""
        shortlist = self.ranked(cands, self.pool(cands, allowed))[: self.shortlist]
        total = self.mass(cands)
        best, best_cost = None, math.inf
        for g in shortlist.tolist():
            c = self.cost(cands, g, total)
            if c < best_cost - TIE:
                best, best_cost = int(g), c
        return best

    def decide(self, cands, rounds, rounds_of=None) -> int:
        """The guess of a node (one, two or more candidates)."""
        m = int(cands.shape[0])
        if m == 1:
            return int(cands[0])
        if m == 2:
            return self.pair_first(cands)[0]
        allowed = rounds_of(rounds) if rounds_of is not None else None
        return self.choose(cands, allowed)

    def build(self, opener: int, rounds_of=None):
        """The tree from ``opener`` over every answer. ``rounds_of(path_rounds)`` gives the
        hard-mode mask for a node (None: no restriction)."""
        from termo.trees.model import Node

        xp = self.xp
        root = Node(int(opener))
        # depth first, a node decided when it is taken off the stack: the answers solved so far
        # grow steadily (the progress report), the groups of the root one after the other
        stack = [(root, xp.arange(self.game.n_answers, dtype=xp.int64), ())]
        while stack:
            node, cands, rounds = stack.pop()
            if node.guess < 0:
                node.guess = self.decide(cands, rounds, rounds_of)
            self.nodes += 1
            groups = self.groups(cands, node.guess)
            self.solved += int(cands.shape[0]) - sum(int(m.shape[0]) for _, m in groups)
            if self.progress is not None:
                self.progress(self.solved, self.game.n_answers)
            for code, members in reversed(groups):
                child_rounds = rounds + ((node.guess, code),)
                child = Node(-1)
                node.children[code] = child
                stack.append((child, members, child_rounds))
        return root


def _member(xp, pool, cands):
    sorted_c = xp.sort(cands)
    pos = xp.searchsorted(sorted_c, pool)
    pos = xp.where(pos < sorted_c.shape[0], pos, 0)
    return xp.take(sorted_c, pos) == pool


def check_opener(game, opener) -> int:
    if opener is None:
        opener = game.default_opener
    if opener is None:
        raise TermoError(f"{game.label} has no default opener: give one with --opener WORD")
    return opener_index(game, opener)
