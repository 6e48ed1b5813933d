"""A plain-Python brute-force expectimax for product states of several boards (docs/modes-solver.md).

Written from the model alone: every probe of a (tiny) game, every joint answer tuple of the
independent boards (each board's answer drawn from its candidates with the prior renormalised
over them), the colours by `termo.core.feedback.feedback_code`, a board solved when the probe
is its answer, and the objectives' costs per turn and at a loss (finish: 1 and 1; score: the
unsolved boards, at a turn and at a loss; win: 0 and 1). No bound, no shortcut, no class.
"""

from __future__ import annotations

import functools
import itertools
import math

from termo.core.feedback import feedback_code

OBJECTIVES = ("finish", "score", "win")


def costs(objective, unsolved):
    turn = {"finish": 1.0, "score": float(unsolved), "win": 0.0}[objective]
    loss = {"finish": 1.0, "score": float(unsolved), "win": 1.0}[objective]
    return turn, loss


def brute_force(game, objective, prior=None):
    """(value, cost): ``value(boards, r)`` the optimum of a state (boards: a sorted tuple of
    sorted answer tuples), ``cost(boards, g, r)`` the cost of playing probe ``g`` there."""
    code = functools.lru_cache(maxsize=None)(lambda g, a: feedback_code(game.probes[g], game.answers[a]))
    if prior is None:
        prior = [math.exp(-game.icf[c]) for c in range(game.n_answers)]

    @functools.lru_cache(maxsize=None)
    def weights(cands):
        ws = [prior[c] for c in cands]
        return [w / sum(ws) for w in ws]

    @functools.lru_cache(maxsize=None)
    def value(boards, r):
        if not boards:
            return 0.0
        if r == 0:
            return costs(objective, len(boards))[1]
        return min(cost(boards, g, r) for g in range(game.n_probes))

    @functools.lru_cache(maxsize=None)
    def cost(boards, g, r):
        total = 0.0
        for combo in itertools.product(*[list(zip(c, weights(c))) for c in boards]):
            p, nxt = 1.0, []
            for cands, (answer, w) in zip(boards, combo):
                p *= w
                if g != answer:
                    nxt.append(tuple(c for c in cands if code(g, c) == code(g, answer)))
            total += p * value(tuple(sorted(nxt)), r - 1)
        return costs(objective, len(boards))[0] + total

    return value, cost


def canonical(boards):
    return tuple(sorted(tuple(sorted(int(a) for a in c)) for c in boards))


def brute_force_pairs(game, prior, turns: int):
    """``value(pairs, solved, r)`` and ``cost(pairs, solved, g, r)``: the optimal expected finish of
    two boards whose answer pair is one of ``pairs`` (a tuple of distinct ordered pairs), drawn with
    probability ∝ prior[a1]·prior[a2]: expectimax over the sets of pairs still possible (each
    board's colours, a solved board taking none), every probe at every state; a loss costs 1."""
    code = functools.lru_cache(maxsize=None)(lambda g, a: feedback_code(game.probes[g], game.answers[a]))

    def split(pairs, solved, g):
        groups: dict = {}
        for a1, a2 in pairs:
            c1 = None if solved[0] else code(g, a1)
            c2 = None if solved[1] else code(g, a2)
            groups.setdefault((c1, c2), []).append((a1, a2))
        out = []
        for (c1, c2), group in groups.items():
            now = (solved[0] or g == group[0][0], solved[1] or g == group[0][1])
            out.append((tuple(group), now))
        return out

    def mass(pairs):
        return sum(prior[a1] * prior[a2] for a1, a2 in pairs)

    @functools.lru_cache(maxsize=None)
    def value(pairs, solved, r):
        if all(solved):
            return 0.0
        if r == 0:
            return 1.0
        return min(cost(pairs, solved, g, r) for g in range(game.n_probes))

    def cost(pairs, solved, g, r):
        total = mass(pairs)
        return 1.0 + sum(mass(group) / total * value(group, now, r - 1) for group, now in split(pairs, solved, g))

    return value, cost


def distinct_pairs(S):
    return tuple((a1, a2) for a1 in S for a2 in S if a1 != a2)


def brute_force_game(game, prior, opener: int, turns: int) -> float:
    """The optimal expected finish of two boards whose answers are distinct (every answer of the
    game), the pair drawn with probability ∝ prior[a1]·prior[a2], after ``opener``."""
    _, cost = brute_force_pairs(game, prior, turns)
    return cost(distinct_pairs(range(game.n_answers)), (False, False), opener, turns)
