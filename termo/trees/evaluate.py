"""What a tree is worth, recomputed: the tree is replayed against every answer of the game, the
feedback of each guess read from the game's pattern matrix (the two-pass colours with the
game's win rule: a commutative rearrangement of a Nerdle answer wins), never from numbers the
file holds.

All answers are walked together, one guess at a time: each answer still playing reads the code
its node's guess gives it; the win code ends it at that depth, every other code moves it to the
child of that code (looked up among the tree's sorted (node, code) keys). An answer whose code has no child is *missing* (the tree is not
complete); a branch deeper than `MAX_GUESSES` is cut (missing too).

``mean`` weighs the answers by the game's prior at the tree's T (`termo.core.prior.Prior`;
uniform for Nerdle and English Wordle, whose prior does not depend on T), summed with
``math.fsum``; ``total`` is the plain sum of guesses over all answers (an exact integer).
``losses`` counts the answers not solved within the game's turn limit (missing ones included):
their guesses past the limit still count in the mean, which is the tree's own expected number
of guesses, not a penalised score.
"""

from __future__ import annotations

import math
import time

from backends import host

MAX_GUESSES = 64


def flatten(tree, n_patterns: int):
    """The tree as arrays: ``guess[node]`` and the sorted child keys ``node * n_patterns + code``
    with the child each key leads to (nodes numbered in preorder, the root 0)."""
    xp = host().xp
    ids = {}
    guesses, keys, kids = [], [], []
    for path, node in tree.root.walk():
        ids[id(node)] = len(guesses)
        guesses.append(node.guess)
    for path, node in tree.root.walk():
        parent = ids[id(node)]
        for code, child in node.children.items():
            keys.append(parent * n_patterns + int(code))
            kids.append(ids[id(child)])
    keys_a = xp.asarray(keys, dtype=xp.int64)
    order = xp.argsort(keys_a, stable=True)
    return (xp.asarray(guesses, dtype=xp.int64), xp.take(keys_a, order),
            xp.take(xp.asarray(kids, dtype=xp.int64), order))


def replay(tree, game):
    """Guesses the tree takes for every answer (host int64 array, 0 = missing): every answer
    still playing moves one node down per step, all of them at once."""
    from termo.engine.matrix import pattern_matrix

    hb = host()
    xp = hb.xp
    matrix = hb.to_numpy(pattern_matrix(game, backend=hb))
    flat = xp.reshape(xp.asarray(matrix), (-1,))
    n, n_patterns, win = game.n_answers, game.n_patterns, game.win_code
    guess, keys, kids = flatten(tree, n_patterns)
    turns = xp.zeros(n, dtype=xp.int64)
    answers = xp.arange(n, dtype=xp.int64)
    node = xp.zeros(n, dtype=xp.int64)
    depth = 1
    while answers.shape[0] and depth <= MAX_GUESSES:
        codes = xp.astype(xp.take(flat, xp.take(guess, node) * n + answers), xp.int64)
        won = codes == win
        turns[answers[won]] = depth
        answers, node, codes = answers[~won], node[~won], codes[~won]
        if answers.shape[0] == 0 or keys.shape[0] == 0:
            break
        key = node * n_patterns + codes
        pos = xp.searchsorted(keys, key)
        pos = xp.where(pos < keys.shape[0], pos, 0)
        found = xp.take(keys, pos) == key  # no branch: the answer is missing (turns stays 0)
        answers, node = answers[found], xp.take(kids, pos[found])
        depth += 1
    return turns


def weights(game, t: float, prior=None):
    """The answers' weights under the game's prior at ``t`` (host float64, summing to 1):
    ``prior``'s (a `termo.core.prior.Prior` the caller has) when made at ``t``, else made."""
    from termo.core.prior import Prior

    return Prior.at(game.icf, t, prior).weights


def evaluate(tree, game, prior=None) -> dict:
    """Plain data: ``mean`` (prior-weighted expected guesses), ``histogram`` (answers solved in
    1, 2, ... guesses), ``worst``, ``losses``, ``answers``, ``total``, ``missing`` (and the first
    few of them by name), ``mean_uniform`` where the prior is not uniform, and the tree's
    ``game``/``method``/``opener``/``nodes``/``depth``; ``seconds`` of the replay. ``prior``:
    the `termo.core.prior.Prior` of the build that made the tree, when the caller has it."""
    started = time.perf_counter()
    turns = [int(x) for x in host().to_numpy(replay(tree, game)).tolist()]
    w = [float(x) for x in host().to_numpy(weights(game, tree.t, prior)).tolist()]
    missing = [i for i, k in enumerate(turns) if k == 0]
    solved = [k for k in turns if k > 0]
    worst = max(solved) if solved else 0
    histogram = [0] * worst
    for k in solved:
        histogram[k - 1] += 1
    complete = not missing
    mean = math.fsum(wi * k for wi, k in zip(w, turns)) if complete else None
    out = {
        "game": game.label,
        "method": tree.method,
        "opener": game.probes[tree.root.guess],
        "answers": game.n_answers,
        "mean": mean,
        "total": sum(turns) if complete else None,
        "histogram": histogram,
        "worst": worst if complete else None,
        "losses": sum(1 for k in turns if k == 0 or k > game.max_turns),
        "max_turns": game.max_turns,
        "missing": len(missing),
        "missing_examples": [game.answers[i] for i in missing[:5]],
        "nodes": tree.nodes,
        "depth": tree.root.depth(),
    }
    if not game.uniform_prior:
        out["mean_uniform"] = (sum(turns) / len(turns)) if complete else None
        out["t"] = "inf" if math.isinf(tree.t) else tree.t
    out["seconds"] = time.perf_counter() - started
    return out
