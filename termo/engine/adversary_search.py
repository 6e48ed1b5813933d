"""Forcing the adversary (docs/absurdle.md): the guesses that leave it one answer, and its solvers.

Against the adversary (`termo.engine.adversary`) a game is a walk: each guess takes the state (the
answers still possible) to the group the adversary keeps, with no chance involved, and the game is
won by guessing the last answer. From a state of two answers or more, the fewest guesses that win
are one more than the fewest that leave a single answer. `ForcedSearch.wins` lists every sequence
of exactly ``d`` guesses that leaves one answer (and none earlier), with the answer it leaves; it is
exhaustive but for one sound cut: a group can only be split into single answers by a guess that
shows as many distinct colours over it, and a guess shows over a group at most the colours it
shows over the state the group came from (``D``), so a group larger than ``max D ** (d - 1)`` is
never split within ``d - 1`` guesses. Every group is met once per search (memo by its members).
Hard mode (``allowed``) walks the legal guesses only (`Adversary.allowed_after`).

`AdversarySolver` decides for a game of this model: level 2 keeps the adversary's group smallest,
level 3 forces the fastest win (iterative deepening up to `MAX_DEPTH` guesses ahead, proved
fastest from the state; beyond it, level 2's choice). `SUPPORTS` says what the family takes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from termo.core.decision import Choice, Decision
from termo.core.errors import TermoError
from termo.core.keys import candidate_key
from termo.core.messages import Message
from termo.core.supports import Supports
from termo.engine.adversary import Adversary

MAX_DEPTH = 3  # level 3 looks this many guesses ahead for one answer left (then one more wins)
SUPPORTS = Supports(levels=(2, 3), objectives=("finish",), hard=True, opener_choice=True, candidate_list=True,
                    exact=True, feedback=("adversary",))


@dataclass(frozen=True)
class Win:
    """A sequence of guesses (probe indices) that leaves the adversary one answer, ``final``."""

    guesses: tuple
    final: int


class ForcedSearch:
    """The sequences of guesses that leave one answer (see the module doc); ``hard``: hard mode."""

    def __init__(self, adversary: Adversary, hard: bool = False):
        self.adv = adversary
        self.xp = adversary.xp
        self.hard = bool(hard)
        self.groups = 0  # groups met (a measure of the work done)
        self._memo: dict = {}

    def ranked(self, members, allowed=None):
        """``(order, d)``: the probes (legal ones in hard mode) by the distinct colours they show
        over ``members``, most first (probe index on ties), and those counts in that order."""
        xp = self.xp
        d = self.adv.distinct(members)
        order = xp.argsort(-d.astype(xp.int64), kind="stable")
        if allowed is not None:
            mask = xp.zeros(d.shape[0], dtype=bool)
            mask[allowed] = True
            order = order[mask[order]]
        return order.astype(xp.int64), d[order]

    def wins(self, members, depth: int, allowed=None, first: bool = False, ranked=None) -> list[Win]:
        """Every sequence of exactly ``depth`` guesses from ``members`` (2 answers or more) that
        leaves one answer, none sooner (``first``: at most one); ``allowed``: the legal probes
        (hard mode; None: every probe); ``ranked``: `ranked` of a state holding ``members``."""
        self._memo = {}
        return self._wins(self.xp.asarray(members, dtype=self.xp.int64), int(depth), allowed, first, ranked)

    def _wins(self, members, depth: int, allowed, first: bool, ranked) -> list[Win]:
        self.groups += 1
        n = int(members.shape[0])
        if depth == 1:
            order, d = ranked if ranked is not None else self.ranked(members, allowed)
            return self._split(members, order[: int(self.xp.count_nonzero(d >= n))], first)
        here = self.ranked(members, allowed)
        bound = int(here[1][0]) ** (depth - 1) if here[1].shape[0] else 0
        guesses = self.adv.all_probes if allowed is None else allowed
        codes, sizes = self.adv.pick(members, guesses)
        xp = self.xp
        keep = xp.nonzero((sizes >= 2) & (sizes <= bound))[0]
        keep = keep[xp.argsort(sizes[keep], kind="stable")]
        flat, starts = self.adv.kept_many(members, guesses[keep], codes[keep], sizes[keep])
        out: list[Win] = []
        for k, i in enumerate(keep.tolist()):
            g, code = int(guesses[i]), int(codes[i])
            group = flat[starts[k]:starts[k + 1]]
            sub = self._child(group, depth - 1, g, code, allowed, first, here)
            out.extend(Win((g,) + w.guesses, w.final) for w in sub)
            if first and out:
                return out[:1]
        return out

    def _split(self, members, order, first: bool) -> list[Win]:
        """The one-guess wins of ``members`` among the probes of ``order``."""
        probes, kept = self.adv.splitters(members, order, int(order.shape[0]))
        out = [Win((int(g),), int(f)) for g, f in zip(probes.tolist(), kept.tolist())]
        return out[:1] if first else out

    def _legal(self, wins: list[Win], g: int, code: int, allowed) -> list[Win]:
        """The one-guess ``wins`` whose guess is legal after ``g`` coloured ``code`` (hard mode)."""
        xp = self.xp
        probes = xp.asarray([w.guesses[0] for w in wins], dtype=xp.int64)
        probes = probes[xp.isin(probes, allowed)]
        legal = set(self.adv.allowed_after(probes, g, code).tolist())
        return [w for w in wins if w.guesses[0] in legal]

    def _child(self, group, depth: int, g: int, code: int, allowed, first: bool, here) -> list[Win]:
        """The wins of a group ``g`` coloured ``code`` left, ``depth`` guesses from it (memoised).
        Its last guess is looked for among the state's probes that show enough colours
        (``here``), the legal ones in hard mode: only those are filtered by the new round."""
        n = int(group.shape[0])
        if depth == 1:  # every splitter of the group (memo), then the legal ones in hard mode
            key = (1, candidate_key(group))
            sub = self._memo.get(key)
            if sub is None:
                order, d = here
                self.groups += 1
                sub = self._memo[key] = self._split(group, order[: int(self.xp.count_nonzero(d >= n))],
                                                    first and allowed is None)
            if allowed is not None and sub:
                sub = self._legal(sub, g, code, allowed)
            return sub[:1] if first else sub
        child_allowed = None if allowed is None else self.adv.allowed_after(allowed, g, code)
        key = (depth, candidate_key(group), None if child_allowed is None else hash(child_allowed.tobytes()))
        sub = self._memo.get(key)
        if sub is None:
            sub = self._memo[key] = self._wins(group, depth, child_allowed, first, None)
        return sub

    def fastest(self, members, allowed=None, max_depth: int = MAX_DEPTH, first: bool = False):
        """``(depth, wins)``: the fewest guesses that leave one answer of ``members`` (2 or more)
        and every such sequence (``first``: one), or ``(None, [])`` beyond ``max_depth``."""
        for depth in range(1, max_depth + 1):
            found = self.wins(members, depth, allowed, first=first)
            if found:
                return depth, found
        return None, []


class AdversarySolver:
    """Decisions against the adversary at level 2 (the smallest group kept) or 3 (the fastest
    forced win); ``decide`` and ``opener`` as `termo.engine.solver.Solver`'s."""

    def __init__(self, game, level: int = 3, hard: bool = False, alternatives: int = 5):
        self.level = SUPPORTS.check_level(level, game)
        self.game = game
        self.hard = bool(hard)
        self.alternatives = int(alternatives)
        self._adversary = None

    @property
    def adversary(self) -> Adversary:
        if self._adversary is None:
            self._adversary = Adversary(self.game)
        return self._adversary

    def _choice(self, probe: int, members, size: int | None = None, expected: float | None = None) -> Choice:
        n = int(members.shape[0])
        bits = None if size is None else math.log2(n / size)
        is_candidate = bool(self.game.is_answer_index(probe)) and probe in set(members.tolist())
        return Choice(int(probe), self.game.probes[int(probe)], bits, expected, is_candidate)

    def decide(self, candidates, turn: int, allowed=None) -> Decision:
        """The guess for a state (ascending answer indices) at a 1-based turn; ``allowed``: hard
        mode's mask over the probes (None: every probe)."""
        xp = self.adversary.xp
        members = xp.asarray(sorted(int(c) for c in candidates), dtype=xp.int64)
        legal = None if allowed is None else xp.nonzero(xp.asarray(allowed))[0].astype(xp.int64)
        n = int(members.shape[0])
        if n == 1:
            probe = int(members[0])
            reason = Message("the last answer left: it wins", "reason.adversary_last")
            return Decision(self._choice(probe, members, 1, 1.0), reason, 1, ())
        if self.level == 3:
            decision = self._fastest(members, legal)
            if decision is not None:
                return decision
        return self._smallest(members, legal, fallback=self.level == 3)

    def _smallest(self, members, legal, fallback: bool = False) -> Decision:
        adv, xp = self.adversary, self.adversary.xp
        guesses = adv.all_probes if legal is None else legal
        _, sizes = adv.pick(members, guesses)
        order = xp.argsort(sizes, kind="stable")[: 1 + self.alternatives]
        picks = [(int(guesses[i]), int(sizes[i])) for i in order.tolist()]
        n = int(members.shape[0])
        best, size = picks[0]
        if fallback:
            reason = Message(f"no forced win within {MAX_DEPTH + 1} guesses found from here: the smallest group "
                             f"the game can keep, {size} of {n}", "reason.adversary_no_force", depth=MAX_DEPTH + 1,
                             size=size, n=n)
        else:
            reason = Message(f"the game keeps at most {size} of the {n} answers left (the smallest group it can keep)",
                             "reason.adversary_smallest", size=size, n=n)
        alternatives = tuple(self._choice(p, members, s) for p, s in picks[1:])
        return Decision(self._choice(best, members, size), reason, n, alternatives)

    def _fastest(self, members, legal) -> Decision | None:
        search = ForcedSearch(self.adversary, self.hard)
        depth, wins = search.fastest(members, legal)
        if depth is None:
            return None
        firsts: dict[int, int] = {}
        for w in wins:
            firsts[w.guesses[0]] = firsts.get(w.guesses[0], 0) + 1
        ranked = sorted(firsts, key=lambda g: (-firsts[g], g))
        total = depth + 1
        best = ranked[0]
        reason = Message(f"forces a win in {total} guesses from here, the fewest (proved over every guess; "
                         f"{firsts[best]} of its continuations win so)", "reason.adversary_forced", guesses=total,
                         ways=firsts[best])
        alternatives = tuple(self._choice(g, members, None, float(total)) for g in ranked[1: 1 + self.alternatives])
        return Decision(self._choice(best, members, None, float(total)), reason, int(members.shape[0]), alternatives)

    def opener(self, optimal: bool = False, progress=None) -> Decision:
        """The first guess: the game's opener (a proved fastest one, docs/absurdle.md), its forced
        win searched from the group it leaves; level 2's choice at level 2 or when the game names none."""
        opener = getattr(self.game, "default_opener", None)
        adv = self.adversary
        members = adv.root()
        if not opener or self.level == 2:
            return self._smallest(members, None)
        probe = self.game.index_of(opener)
        if probe is None:
            raise TermoError(f"{self.game.label}: its opener {opener!r} is not a guess of the game")
        code, group = adv.choose(members, probe)
        legal = None if not self.hard else adv.allowed_after(adv.all_probes, probe, code)
        depth, _ = ForcedSearch(adv, self.hard).fastest(group, legal, max_depth=MAX_DEPTH - 1, first=True)
        if depth is None:
            reason = Message(f"{opener}: the game's opener; no forced win within {MAX_DEPTH + 1} guesses found "
                             f"from it", "reason.adversary_opener_open", word=opener, guesses=MAX_DEPTH + 1)
            return Decision(self._choice(probe, members), reason, int(members.shape[0]), ())
        total = depth + 2
        reason = Message(f"{opener} forces a win in {total} guesses (proved from the group it leaves; no first "
                         f"guess forces one in fewer: docs/absurdle.md)", "reason.adversary_opener", word=opener,
                         guesses=total)
        return Decision(self._choice(probe, members, None, float(total)), reason, int(members.shape[0]), ())
