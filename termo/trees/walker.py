"""Following a stored tree during a game.

`node_after(tree, history)` is the node a history of ``(probe index, pattern code)`` rounds
leads to, or None as soon as the player left the tree (a guess other than the tree's, a pattern
with no branch, a round after a win, a guess outside the probe list). `next_guess` is that
node's guess. `tree_move` is what ``termo suggest``/``play`` show for it: the guess, the
entropy of its feedback over the candidates, and the expected number of guesses from there,
replayed on the tree for exactly the session's candidates (when some candidate has no branch
below the node the tree is not used: None, and the live ranking answers).
"""

from __future__ import annotations

import math

from backends import host


def node_after(tree, history, win_code: int):
    node = tree.root
    for probe, code in history:
        if node is None or probe is None or int(probe) != node.guess or int(code) == win_code:
            return None
        node = node.children.get(int(code))
    return node


def next_guess(tree, history, win_code: int) -> int | None:
    """The tree's guess after ``history`` ((probe, code) pairs), or None off the tree."""
    node = node_after(tree, history, win_code)
    return None if node is None else node.guess


def subtree_guesses(node, game, cands, matrix):
    """Guesses (this one included) the subtree takes for each candidate (host list; 0: no branch)."""
    xp = host().xp
    out = {}
    stack = [(node, xp.asarray(cands, dtype=xp.int64), 1)]
    while stack:
        nd, answers, depth = stack.pop()
        if depth > 64:
            continue
        codes = xp.astype(xp.take(xp.asarray(matrix[nd.guess]), answers), xp.int64)
        for a, c in zip(answers.tolist(), codes.tolist()):
            if c == game.win_code:
                out[a] = depth
        for code in sorted({c for c in codes.tolist() if c != game.win_code}):
            child = nd.children.get(code)
            if child is not None:
                stack.append((child, answers[codes == code], depth + 1))
    return [out.get(int(a), 0) for a in cands]


def tree_move(tree, game, history, cands, matrix, prior=None):
    """The `termo.core.decision.Choice` of the tree's move after ``history`` over the candidate set
    ``cands`` (ascending answer indices; ``expected`` replayed on the subtree, ``bits`` of its
    feedback), or None when the tree does not answer. ``prior``: the question's
    `termo.core.prior.Prior` when the caller has it (used at the tree's T, else made)."""
    from termo.core.decision import Choice
    from termo.core.prior import Prior

    node = node_after(tree, history, game.win_code)
    if node is None:
        return None
    cands = [int(c) for c in cands]
    turns = subtree_guesses(node, game, cands, matrix)
    if not cands or any(k == 0 for k in turns):
        return None
    w = Prior.at(game.icf, tree.t, prior).weights
    ws = [float(w[c]) for c in cands]
    total = math.fsum(ws)
    if total > 0:
        expected = math.fsum(wi * k for wi, k in zip(ws, turns)) / total
    else:
        expected = sum(turns) / len(turns)
    bits = feedback_bits(matrix[node.guess], cands, ws)
    return Choice(node.guess, game.probes[node.guess], bits=bits, expected=expected,
                  is_candidate=node.guess in set(cands))


def feedback_bits(row, cands, ws) -> float:
    """Entropy (bits) of the feedback of one guess over weighted candidates."""
    total = math.fsum(ws)
    if len(cands) < 2:
        return 0.0
    if total <= 0:
        ws, total = [1.0] * len(cands), float(len(cands))
    mass: dict = {}
    for c, wi in zip(cands, ws):
        code = int(row[c])
        mass[code] = mass.get(code, 0.0) + wi
    h = 0.0
    for m in mass.values():
        p = m / total
        if p > 0:
            h -= p * math.log2(p)
    return h
