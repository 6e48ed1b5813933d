"""Level 1: letter frequency (docs/rules.md, "Levels").

A candidate's score is the sum, over its distinct symbols, of the number of candidates holding
that symbol; the best candidate wins, the first index on ties. Works for any game (letters or
equation symbols).
"""

from __future__ import annotations

from backends import host
from termo.core.decision import Decision
from termo.core.messages import Message


def letter_table(game):
    """Boolean (answers × symbols) table: does the (normalised) answer contain the symbol?"""
    xp = host().xp
    alphabet = sorted(set("".join(game.answers_norm)))
    pos = {ch: i for i, ch in enumerate(alphabet)}
    table = xp.zeros((game.n_answers, len(alphabet)), dtype=xp.bool)
    for i, word in enumerate(game.answers_norm):
        for ch in set(word):
            table[i, pos[ch]] = True
    return table


def letter_scores(table, candidates):
    """Level-1 score of each candidate (over the candidates themselves), as a list of ints."""
    xp = host().xp
    sub = xp.astype(table[xp.asarray(candidates, dtype=xp.int64)], xp.int64)
    freq = xp.sum(sub, axis=0)
    return [int(v) for v in xp.sum(sub * freq[None, :], axis=1)]


def ranked(table, cands) -> list[int]:
    """The candidates by level-1 score, best first (the first index on ties)."""
    scores = letter_scores(table, cands)
    return [cands[j] for j in sorted(range(len(cands)), key=lambda j: (-scores[j], j))]


def best(table, cands) -> int:
    """The level-1 choice among ``cands``."""
    return ranked(table, cands)[0]


def decide(table, cands, choice, alternatives: int, unit: str = "letters") -> Decision:
    """The level-1 `Decision`; ``choice(index)`` builds a `Choice` with its bits; ``unit`` is the
    game's word for a tile (`Game.unit`: "letters", Nerdle's "symbols"), for the reason."""
    order = ranked(table, cands)
    picks = [choice(i) for i in order[: 1 + alternatives]]
    m, code = len(cands), "reason.symbols" if unit == "symbols" else "reason.letters"
    return Decision(picks[0], Message(f"most frequent {unit} among {m} candidates", code, m=m), m,
                    tuple(picks[1:]))
