"""Level 2: the decision rule of rules §5.3 on top of the entropy order.

1. one candidate: play it;
2. two candidates: the more common one (lowest ICF, first index on ties), at any turn;
3. last turn, or turn ``max_turns − 1`` with at most ``endgame`` (3) candidates: the most common
   candidate, alternatives in ascending ICF;
4. otherwise the first probe of the §5.2 order; the alternatives are the next ones.

Lowest ICF rather than highest prior on purpose: at T = ∞ (or an underflowed prior) the endgame
still bets on the commonest word.
"""

from __future__ import annotations

from termo.core.decision import Choice, Decision
from termo.core.errors import TermoError
from termo.core.messages import Message

ENDGAME_LIMIT = 3


def endgame_kind(m: int, turn: int, max_turns: int, endgame: int = ENDGAME_LIMIT):
    """Which rule of §5.3 decides (``"one"``, ``"two"``, ``"last"``, ``"late"``) or None (entropy)."""
    if m <= 0:
        raise TermoError("no candidate left")
    if m == 1:
        return "one"
    if m == 2:
        return "two"
    if turn >= max_turns:
        return "last"
    if turn == max_turns - 1 and m <= endgame:
        return "late"
    return None


def by_icf(candidates, icf):
    """Candidates sorted by ascending ICF (stable: index order on ties)."""
    return sorted((int(c) for c in candidates), key=lambda c: (icf[c], c))


_REASONS = {  # kind -> (the CLI's line, its catalogue code)
    "one": ("only one candidate left", "reason.one_left"),
    "two": ("only two candidates left: the more common one", "reason.two_left"),
    "last": ("last turn: the most common candidate", "reason.last_turn"),
    "late": ("turn {turn} with {m} candidates: the most common one", "reason.late_turn"),
}


# the same rules where every answer is equally likely (a uniform prior): list order decides
_UNIFORM_REASONS = {
    "one": ("only one candidate left", "reason.one_left"),
    "two": ("only two candidates left, equally likely: the first one", "reason.two_left_uniform"),
    "last": ("last turn: a candidate (all are equally likely)", "reason.last_turn_uniform"),
    "late": ("turn {turn} with {m} candidates: a candidate (all are equally likely)", "reason.late_turn_uniform"),
}


def endgame_reason(kind: str, turn: int, m: int, uniform: bool = False) -> Message:
    """The reason of an endgame rule (`endgame_kind`), coded for the catalogue."""
    template, code = (_UNIFORM_REASONS if uniform else _REASONS)[kind]
    params = {"turn": turn, "m": m} if kind == "late" else {}
    return Message(template.format(turn=turn, m=m), code, **params)


def choose_index(sweeper, icf, candidates, turn: int, max_turns: int, endgame: int = ENDGAME_LIMIT) -> int:
    """Just the probe index level 2 plays (no alternatives, no report)."""
    cands = list(candidates)
    kind = endgame_kind(len(cands), turn, max_turns, endgame)
    if kind is not None:
        return by_icf(cands, icf)[0]
    idx, _ = sweeper.top(cands, 1)
    return int(idx[0])


def decide(sweeper, game, candidates, turn: int, alternatives: int = 5, endgame: int = ENDGAME_LIMIT) -> Decision:
    """The level-2 `Decision` for ``candidates`` (ascending answer indices) at 1-based ``turn``."""
    cands = [int(c) for c in candidates]
    m = len(cands)
    members = set(cands)
    kind = endgame_kind(m, turn, game.max_turns, endgame)

    def choice(index: int, bits=None) -> Choice:
        if bits is None:
            bits = sweeper.entropy_of(index, cands)
        return Choice(index, game.probes[index], bits=float(bits), is_candidate=index in members)

    if kind is not None:
        ranked = by_icf(cands, game.icf)
        reason = endgame_reason(kind, turn, m, bool(getattr(game, "uniform_prior", False)))
        alts = tuple(choice(i) for i in ranked[1 : 1 + alternatives])
        return Decision(choice(ranked[0]), reason, m, alts)
    idx, _ = sweeper.top(cands, 1 + alternatives)
    # reported bits in the reference's exact float order (the sweep's own order may differ in
    # the last bits)
    best = choice(int(idx[0]))
    alts = tuple(choice(int(i)) for i in idx[1:])
    return Decision(best, Message(f"maximum entropy over {m} candidates", "reason.entropy", m=m), m, alts)
