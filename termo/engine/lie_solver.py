"""The solvers of rows that lie (Fibble, `termo.engine.lies`): levels 2 and 3 under that model.

A state is the candidates and their weights (prior × the chance that every row was shown as it
was, `termo.engine.lies.LieSession.likelihoods`). A guess's row is one of the codes a lie shows
(or the win): `rows` lists them with their chance and the state each leaves.

* Level 2 plays the guess whose shown row has the most entropy (`backends` kernel
  ``lie_entropies``), a candidate first on a tie; one candidate is played, and of two the likelier.
* Level 3 looks one row ahead over a beam (level 2's best ``beam`` guesses and the likeliest
  candidates): the guess of least ``1 + Σ_p P(p)·V̂(S_p)`` where ``V̂`` is exact for one and two
  candidates (1; ``1 + (1 - p_max)``), the loss cost with no row left, and otherwise the estimate
  ``1 + (1 - p_max)·(1 + LEAF_SLOPE·log2(m - 1))`` (so its ``expected`` is an estimate).

`SUPPORTS` says what the family takes.
"""

from __future__ import annotations

import math

from backends import host
from backends.host_ops import feedback
from termo.core.decision import Choice, Decision
from termo.core.errors import TermoError
from termo.core.messages import Message
from termo.core.prior import Prior
from termo.core.supports import Supports
from termo.engine.lies import lie_tables

SUPPORTS = Supports(levels=(2, 3), objectives=("finish",), opener_choice=True, candidate_list=True, exact=True,
                    feedback=("lies",))
LOSS = 7.0  # a game lost (no row left) costs the rows played plus this, as level 3 charges (rules §6.1)
LEAF_SLOPE = 0.3  # level 3's estimate of a state of m >= 3 candidates (fitted to the level-2 battery)
BEAM = 10


def rows(matrix, game, members, weights, probe: int) -> list[tuple[int, float, object, object]]:
    """``(code, chance, members, weights)`` of every row ``probe`` may show over the state (the
    win first when the probe is a candidate, then by code); the weights are the state's times
    the row's chance, the chance is their share of the state's weight."""
    xp = host().xp
    neighbours, chances, _ = lie_tables(game.word_length)
    total = float(xp.sum(weights))
    honest = xp.take(xp.asarray(matrix[int(probe)]), members).astype(xp.int64)
    out = []
    win = honest == game.win_code
    if bool(xp.any(win)):
        out.append((game.win_code, float(xp.sum(weights[win])) / total, members[win], weights[win]))
    keep = ~win
    m, w, h = members[keep], weights[keep], honest[keep]
    codes = neighbours[h].reshape(-1)
    mass = (w[:, None] * chances[h]).reshape(-1)
    who = xp.repeat(xp.arange(m.shape[0]), neighbours.shape[1])
    valid = codes >= 0
    codes, mass, who = codes[valid], mass[valid], who[valid]
    order = xp.argsort(codes, kind="stable")
    codes, mass, who = codes[order], mass[order], who[order]
    starts = xp.nonzero(xp.concatenate([xp.asarray([True]), codes[1:] != codes[:-1]]))[0].tolist() + [codes.shape[0]]
    for a, b in zip(starts[:-1], starts[1:]):
        part = mass[a:b]
        out.append((int(codes[a]), float(xp.sum(part)) / total, m[who[a:b]], part))
    return out


class LieSolver:
    """Decisions for a game whose rows lie, at level 2 or 3 (see the module doc)."""

    def __init__(self, game, level: int = 3, t: float = 1.0, alternatives: int = 5, beam: int = BEAM,
                 endgame: int = 2):
        self.level = SUPPORTS.check_level(level, game)
        self.game = game
        self.t = float(t)
        self.alternatives = int(alternatives)
        self.beam = int(beam)
        self.endgame = int(endgame)  # this many candidates or fewer: the likeliest is played
        self.backend = host()
        self.xp = self.backend.xp
        self.prior = self.xp.asarray(Prior.from_icf(game.icf, self.t).weights, dtype=self.xp.float64)
        self._matrix = None

    @property
    def matrix(self):
        if self._matrix is None:
            from termo.engine.matrix import pattern_matrix

            self._matrix = self.backend.to_numpy(pattern_matrix(self.game, backend=self.backend))
        return self._matrix

    def state(self, candidates, likelihoods=None):
        """``(members, weights)`` of a state: ascending candidates, prior × likelihood."""
        xp = self.xp
        members = xp.asarray(candidates, dtype=xp.int64)
        weights = self.prior[members]
        if likelihoods is not None:
            weights = weights * xp.asarray(likelihoods, dtype=xp.float64)
        return members, weights

    def decide_session(self, session, progress=None) -> Decision:
        """The decision for a `termo.engine.lies.LieSession` (its candidates and their likelihoods)."""
        members, weights = self.state(session.candidates, session.likelihoods())
        return self.decide_state(members, weights, session.turn)

    def decide(self, candidates, turn: int, allowed=None) -> Decision:
        """The decision for candidates with no row's chances known (their prior weights)."""
        members, weights = self.state(sorted(int(c) for c in candidates))
        return self.decide_state(members, weights, turn)

    def decide_state(self, members, weights, turn: int) -> Decision:
        n = int(members.shape[0])
        if n == 0:
            raise TermoError("no candidate left", "game.no_candidate")
        if n <= max(2, self.endgame):
            return self._likeliest(members, weights, turn)
        bits = self.entropies(members, weights)
        ranked = self._ranked(bits, members)
        if self.level == 3:
            return self._lookahead(members, weights, turn, bits, ranked)
        choices = [self._choice(g, members, bits[g]) for g in ranked[: 1 + self.alternatives]]
        reason = Message(f"the most information about the answer, lies counted: {choices[0].bits:.3f} bits",
                         "reason.lies_entropy", bits=choices[0].bits)
        return Decision(choices[0], reason, n, tuple(choices[1:]))

    def entropies(self, members, weights):
        neighbours, chances, _ = lie_tables(self.game.word_length)
        return feedback.lie_entropies(self.matrix, members, weights, neighbours, chances, self.game.win_code)

    def _ranked(self, bits, members) -> list[int]:
        """Probes by entropy (rounded to 1e-12), a candidate first, then by index."""
        xp = self.xp
        candidate = xp.zeros(self.game.n_probes, dtype=bool)
        candidate[members] = True
        key = xp.round(bits, 12)
        order = xp.lexsort((xp.arange(self.game.n_probes), ~candidate, -key))
        return [int(g) for g in order[: max(self.beam, 1 + self.alternatives)].tolist()]

    def _choice(self, probe: int, members, bits=None, expected=None) -> Choice:
        is_candidate = self.game.is_answer_index(probe) and bool(self.xp.any(members == probe))
        return Choice(int(probe), self.game.probes[int(probe)], None if bits is None else float(bits), expected,
                      bool(is_candidate))

    def _likeliest(self, members, weights, turn: int) -> Decision:
        xp = self.xp
        order = sorted(range(int(members.shape[0])), key=lambda j: (-float(weights[j]), int(members[j])))
        best = int(members[order[0]])
        p_max = float(weights[order[0]]) / float(xp.sum(weights))
        value = self.value_estimate(members, weights, self.rows_left(turn))
        if len(order) == 1:
            reason = Message("only one candidate left", "reason.one_left")
        elif len(order) > 2:
            reason = Message(f"{len(order)} candidates left: the likeliest ({p_max:.0%})", "reason.lies_likeliest",
                             n=len(order), share=p_max)
        else:
            reason = Message(f"two candidates left: the likelier one ({p_max:.0%}); if it is not the answer, the "
                             f"other is", "reason.lies_two_left", share=p_max)
        alternatives = tuple(self._choice(int(members[j]), members, None, None) for j in order[1:])
        return Decision(self._choice(best, members, None, value), reason, int(members.shape[0]), alternatives)

    def rows_left(self, turn: int) -> int:
        return max(self.game.max_turns - turn + 1, 0)

    def value_estimate(self, members, weights, rows_left: int) -> float:
        """``V̂``: the expected guesses of a state from here (exact for one or two candidates)."""
        if rows_left <= 0:
            return LOSS
        m = int(members.shape[0])
        p_max = float(self.xp.max(weights)) / float(self.xp.sum(weights))
        if m == 1:
            return 1.0
        if m == 2 or rows_left == 1:
            return 1.0 + (1.0 - p_max) * (1.0 if rows_left > 1 else LOSS)
        return 1.0 + (1.0 - p_max) * (1.0 + LEAF_SLOPE * math.log2(m - 1))

    def _lookahead(self, members, weights, turn: int, bits, ranked) -> Decision:
        xp = self.xp
        left = self.rows_left(turn)
        beam = list(ranked[: self.beam])
        likeliest = [int(members[j]) for j in xp.argsort(-weights, kind="stable")[:3].tolist()]
        beam += [g for g in likeliest if g not in beam]
        costs = []
        for g in beam:
            cost = 1.0
            for code, p, m, w in rows(self.matrix, self.game, members, weights, g):
                if code != self.game.win_code:
                    cost += p * self.value_estimate(m, w, left - 1)
            costs.append((cost, beam.index(g), g))
        costs.sort()
        choices = [self._choice(g, members, bits[g], c) for c, _, g in costs[: 1 + self.alternatives]]
        reason = Message(f"the fewest guesses expected, lies counted: {choices[0].expected:.3f} (one row looked "
                         f"ahead, then estimated)", "reason.lies_expected", expected=choices[0].expected)
        return Decision(choices[0], reason, int(members.shape[0]), tuple(choices[1:]))

    def opener(self, optimal: bool = False, progress=None) -> Decision:
        """The first guess: the game's opener, or (``optimal``) this level's choice over every answer."""
        members, weights = self.state(range(self.game.n_answers))
        opener = getattr(self.game, "default_opener", None)
        if optimal or not opener:
            return self.decide_state(members, weights, 1)
        probe = self.game.index_of(opener)
        bits = float(self.entropies(members, weights)[probe])
        reason = Message(f"{opener}: the game's opener ({bits:.3f} bits, lies counted; --opener optimal plays this "
                         f"level's own first guess)", "reason.lies_opener", word=opener, bits=bits)
        return Decision(self._choice(probe, members, bits), reason, int(members.shape[0]), ())
