"""The ``level3`` builder: today's level-3 policy (`termo.engine.solver.Solver`, as ``termo suggest``
plays it) played out over every branch.

The root is the opener ``termo suggest`` plays first (the game's interface opener; a game
without one: the configuration's level-3 optimum from the opener book) unless one is given.
Then, turn by turn, every node of the turn is split by the feedback codes of its guess and
every child set is decided by the solver, all the sets of one turn in one batched call
(`Solver.decide_many`, the call the lockstep battery makes: the same decisions as
``Solver.decide``). In hard mode each node is decided on its own with the legal-guess mask
of its path (`termo.engine.hard_mode`), as ``termo suggest --hard`` would.
"""

from __future__ import annotations

from backends import host
from termo.trees.model import Node, opener_index

CHUNK = 32  # sets decided per batched call (progress between calls)


def level3_opener(game, solver, opener=None) -> int:
    if opener is not None:
        return opener_index(game, opener)
    if game.default_opener is not None and game.index_of(game.default_opener) is not None:
        return game.index_of(game.default_opener)
    from termo.book.openers import Book

    return Book(solver).opener(optimal=True).index


def split(matrix, game, guess: int, cands):
    """``[(code, members)]``: the non-winning groups of ``cands`` under ``guess``."""
    xp = host().xp
    codes = xp.astype(xp.take(xp.asarray(matrix[int(guess)]), cands), xp.int64)
    keep = codes != game.win_code
    codes, members = codes[keep], cands[keep]
    order = xp.argsort(codes, stable=True)
    codes, members = codes[order], members[order]
    values, counts = xp.unique_counts(codes)
    out, start = [], 0
    for code, count in zip(values.tolist(), counts.tolist()):
        out.append((int(code), members[start:start + count]))
        start += count
    return out


def build_level3(game, solver, opener: int, hard: bool = False, progress=None) -> Node:
    """The playout tree of ``solver`` (level 3) from ``opener``."""
    from termo.engine.matrix import pattern_matrix

    hb = host()
    xp = hb.xp
    matrix = hb.to_numpy(pattern_matrix(game, backend=hb))
    root = Node(int(opener))
    frontier = [(root, xp.arange(game.n_answers, dtype=xp.int64), ())]
    turn = 1
    solved = 0
    while frontier:
        pending = []  # (parent, code, members, rounds)
        for node, cands, rounds in frontier:
            groups = split(matrix, game, node.guess, cands)
            solved += int(cands.shape[0]) - sum(int(m.shape[0]) for _, m in groups)
            for code, members in groups:
                pending.append((node, code, members, rounds + ((node.guess, code),)))
        if progress is not None:
            progress(solved, game.n_answers)
        turn += 1
        guesses = []
        placed = 0  # answers of this turn's sets decided so far: counted half-way in the progress
        for start in range(0, len(pending), CHUNK):
            part = pending[start:start + CHUNK]
            if hard:
                guesses.extend(_decide_hard(game, solver, p[2], turn, p[3]) for p in part)
            else:
                guesses.extend(solver.decide_many([p[2].tolist() for p in part], [turn] * len(part)))
            placed += sum(int(p[2].shape[0]) for p in part)
            if progress is not None:
                progress(min(solved + placed // 2, game.n_answers - 1), game.n_answers)
        frontier = []
        for (node, code, members, rounds), guess in zip(pending, guesses):
            child = Node(int(guess))
            node.children[code] = child
            frontier.append((child, members, rounds))
    if progress is not None:
        progress(game.n_answers, game.n_answers)
    return root


def allowed_after(game, rounds):
    """The hard-mode mask after ``rounds`` (probe index, code) pairs."""
    from termo.core.feedback import decode
    from termo.engine.hard_mode import allowed_probes, from_rounds

    norm = game.probes_norm
    constraint = from_rounds(((norm[g], decode(c, game.word_length)) for g, c in rounds), game.word_length)
    return allowed_probes(game, constraint)


def _decide_hard(game, solver, members, turn, rounds) -> int:
    return solver.decide(members.tolist(), turn, allowed=allowed_after(game, rounds)).index
