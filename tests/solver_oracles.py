"""Plain-Python oracles for the solver engine (docs/rules.md §5.1, §5.2, §6.1), written from docs/rules.md
with no shared code: dictionaries and loops, NumPy only for the reference's own sums."""

from __future__ import annotations

import functools
import itertools
import math
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pytest

from termo.core.feedback import feedback_code
from termo.engine import hard_mode
from termo.engine.matrix import expected_code
from termo.games import Game
from termo.games.termo_pt import termo_game
from termo.games.termo_pt import termo_like


def nerdle_small() -> Game:
    """A Nerdle Mini subset with commutative pairs (1+9=10 / 9+1=10 ...), commutative wins: the
    closed world of tests/test_exact.py and tests/test_review.py."""
    import dataclasses

    from termo.games import get_game

    mini = get_game("nerdle-mini")
    pairs = [i for c in mini.win_classes[:6] for i in c]
    rest = [i for i in range(0, mini.n_answers, 9) if i not in pairs][:14]
    picks = sorted(set(pairs + rest))
    answers = tuple(mini.answers[i] for i in picks)
    return dataclasses.replace(mini, name="nerdle-small", answers=answers, probes=answers,
                               icf=(0.0,) * len(answers), win_keys=None)


def tiny_game(n_answers=60, n_extra=15, step=97, offset=3) -> Game:
    """A small Termo-like game: every ``step``-th lexicon word as answers, a few others as
    extra probes (the matrix and every search are cheap, so oracles can be exhaustive)."""
    full = termo_game()
    picks = [(offset + step * i) % full.n_answers for i in range(n_answers)]
    picks = sorted(set(picks))
    rest = [i for i in range(full.n_answers) if i not in set(picks)]
    extra = rest[5 :: max(1, len(rest) // n_extra)][:n_extra]
    return termo_like(
        f"tiny-{n_answers}-{n_extra}-{step}-{offset}",
        tuple(full.answers[i] for i in picks),
        tuple(full.answers[i] for i in picks) + tuple(full.answers[i] for i in extra),
        tuple(full.icf[i] for i in picks),
    )


@pytest.fixture(scope="module")
def small() -> Game:
    """The closed world of the exact and review oracles: 24 answers, 8 more probes."""
    return tiny_game(24, 8, step=211, offset=5)


@pytest.fixture(scope="module", name="nerdle_small")
def nerdle_small_world() -> Game:
    return nerdle_small()


def code_table(game):
    return [[feedback_code(g, a) for a in game.answers] for g in game.probes]


def weights(prior, cands):
    total = float(np.asarray([prior[c] for c in cands]).sum())
    if total > 0:
        return [prior[c] / total for c in cands]
    return [1.0 / len(cands)] * len(cands)


def entropy(codes, prior, cands, g):
    if len(cands) <= 1:
        return 0.0
    mass = defaultdict(float)
    for c, w in zip(cands, weights(prior, cands)):
        mass[codes[g][c]] += w
    return -sum(p * math.log2(p) for p in mass.values() if p > 0)


def order(codes, prior, cands, n_answers):
    """The §5.2 permutation, by a Python sort on the key tuple."""
    member = set(cands)
    probe_prior = list(prior) + [0.0] * (len(codes) - n_answers)
    keys = []
    for g in range(len(codes)):
        h = entropy(codes, prior, cands, g)
        keys.append((-round(h / 1e-9), 0 if g in member else 1, -probe_prior[g], g))
    return [k[3] for k in sorted(keys)]


@dataclass
class SweepCase:
    """One single-state sweep on the tiny game, with the plain-Python answers to check it against."""

    game: Game
    codes: list
    prior: np.ndarray
    cands: list
    k: int

    @cached_property
    def sweeper(self):
        from termo.engine.entropy import Sweeper

        return Sweeper(self.game, self.prior)

    @property
    def members(self) -> np.ndarray:
        return np.asarray(self.cands, dtype=np.int64)

    def oracle_order(self) -> list:
        """The first ``k`` guesses of the §5.2 order."""
        return order(self.codes, self.prior, self.cands, self.game.n_answers)[: self.k]

    def oracle_entropies(self, guesses) -> list:
        return [entropy(self.codes, self.prior, self.cands, g) for g in guesses]


def draw_sweep_case(data, min_size: int) -> SweepCase:
    """A hypothesis draw of one sweep on the tiny game: a prior (a temperature, and maybe an open
    world: every third answer never the secret), a sorted set of ``min_size`` to 40 candidates
    and a ``k`` for the top k."""
    from hypothesis import strategies as st

    from termo.core.prior import prior_weights

    game = tiny_game()
    prior = prior_weights(game.icf, data.draw(st.sampled_from([0.5, 1.0, 3.0, math.inf])))
    if data.draw(st.booleans()):  # an open world: some answers can never be the secret
        prior = prior.copy()
        prior[::3] = 0.0
    cands = sorted(data.draw(st.sets(st.integers(0, game.n_answers - 1), min_size=min_size, max_size=40)))
    k = data.draw(st.sampled_from([1, 3, 10]))
    return SweepCase(game, code_table(game), prior, cands, k)


def closed_form_value(prior, cands, r, loss):
    """The expected cost of a state without a search (docs/rules.md §6.1): ``loss`` with no round
    left, 1 for one candidate, the more common of two first; None for more candidates."""
    if r <= 0:
        return loss
    if len(cands) == 1:
        return 1.0
    if len(cands) == 2:
        a, b = prior[cands[0]], prior[cands[1]]
        p = min(a, b) / (a + b) if a + b > 0 else 0.5
        return 1.0 + (1.0 if r >= 2 else loss) * p
    return None


class Level3Oracle:
    """Depth-first §6.1 recursion with a memo, no pruning (the exact minimum over the beam)."""

    def __init__(self, game, prior, beam=10, depth=1, loss=7.0):
        self.codes = code_table(game)
        self.prior = np.asarray(prior, dtype=np.float64)
        self.n = game.n_answers
        self.beam, self.depth, self.loss = beam, depth, loss
        self.memo = {}

    def guesses(self, cands, rest):
        ranked = order(self.codes, self.prior, cands, self.n)
        if rest == 0:
            return ranked[:1]
        out = ranked[: self.beam]
        best = max(cands, key=lambda c: (self.prior[c], -c))
        if best not in out:
            out.append(best)
        return out

    def cost(self, g, cands, r, rest):
        buckets = defaultdict(list)
        for c in cands:
            buckets[self.codes[g][c]].append(c)
        if len(buckets) == 1:
            return math.inf
        total = self.prior[list(cands)].sum()
        acc = 0.0
        for code in sorted(buckets):
            if code == 242:
                continue
            sub = buckets[code]
            p = self.prior[sub].sum() / total if total > 0 else len(sub) / len(cands)
            acc += p * self.value(tuple(sub), r, rest)
        return 1.0 + acc

    def value(self, cands, r, rest):
        closed = closed_form_value(self.prior, cands, r, self.loss)
        if closed is not None:
            return closed
        key = (cands, r, rest)
        if key not in self.memo:
            child = max(rest - 1, 0)
            self.memo[key] = min(self.cost(g, cands, r - 1, child) for g in self.guesses(list(cands), rest))
        return self.memo[key]

    def root_costs(self, cands, r):
        """(guess, cost) of the top-level chooser: beam guesses, children at rest = depth."""
        cands = list(cands)
        return [(g, self.cost(g, cands, r - 1, self.depth)) for g in self.guesses(cands, 1)]


# ------------------------------------------------------------------------------ the exact oracle
# (docs/exact.md: the minimum weighted total of guesses; tests/test_exact.py, tests/test_review.py)
LOSS = 7.0


class Oracle:
    """Minimum weighted total of guesses, by exhaustive recursion over every probe."""

    def __init__(self, game, weights, hard=False, loss=LOSS):
        self.game = game
        self.w = [float(x) for x in weights]
        self.hard = hard
        self.loss = loss
        self.codes = [[expected_code(game, p, a) for a in range(game.n_answers)] for p in range(game.n_probes)]
        self.memo = {}

    def legal(self, constraint):
        if not self.hard:
            return range(self.game.n_probes)
        return [p for p in range(self.game.n_probes)
                if hard_mode.is_legal(constraint, self.game.probes_norm[p])[0]]

    def cost(self, members, rounds, constraint=None):
        members = tuple(members)
        key = (members, rounds, constraint if self.hard else None)
        if key in self.memo:
            return self.memo[key]
        W = sum(self.w[a] for a in members)
        if rounds <= 0:
            value = self.loss * W
        else:
            value = math.inf
            for p in self.legal(constraint):
                value = min(value, self.guess_cost(members, rounds, p, constraint))
        self.memo[key] = value
        return value

    def guess_cost(self, members, rounds, p, constraint=None):
        members = tuple(members)
        W = sum(self.w[a] for a in members)
        groups = {}
        for a in members:
            groups.setdefault(self.codes[p][a], []).append(a)
        if len(groups) == 1 and self.game.win_code not in groups:
            return math.inf  # no information: never better than splitting (and it would not end)
        total = W
        for code in sorted(groups):
            if code == self.game.win_code:
                continue
            child_c = None
            if self.hard:
                pattern = "".join("BYG"[int(d)] for d in _digits(code, self.game.word_length))
                child_c = constraint.merge(hard_mode.from_round(self.game.probes_norm[p], pattern))
            total += self.cost(groups[code], rounds - 1, child_c)
        return total


def _digits(code, length):
    out = []
    for _ in range(length):
        out.append(code % 3)
        code //= 3
    return out[::-1]


def oracle_value(game, weights, hard=False, opener=None):
    oracle = Oracle(game, weights, hard)
    root = tuple(range(game.n_answers))
    c0 = hard_mode.free(game.word_length) if hard else None
    if opener is None:
        return oracle.cost(root, game.max_turns, c0)
    return oracle.guess_cost(root, game.max_turns, opener, c0)


# ------------------------------------------------------------------------------ several boards
# (docs/modes-solver.md: every probe, every joint answer tuple of independent boards;
# tests/test_multi_level3.py, tests/test_review.py): the one brute force of tests/multi_oracles.py
from multi_oracles import brute_force as joint_brute_force  # noqa: E402,F401
