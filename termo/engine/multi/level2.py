"""Decisions for several boards at once (a `termo.games.mode.Mode` in progress).

The model (docs/modes.md): every unsolved board hides one answer, drawn from its candidates with
the game's prior renormalised over them, and the boards are drawn *independently*. The real games
draw distinct answers; independence is the approximation, and it matters only when boards share
candidates (a guess's chance of solving two boards at once is counted though it cannot happen).
The state itself (`termo.engine.multi.boards.BoardsState`) applies the one joint rule a turn can check:
one guess solves one board at most.

Objectives (``objective=``), each a cost to minimise per game:

* ``finish`` (default): the turn on which the last board is solved; a lost game counts the limit + 1;
* ``score``: the share card's score, the sum of every board's solve turn; a failed board counts
  the limit + 1;
* ``win``: the probability of losing (so the probability of solving every board is maximised).

All three are the same recursion with a cost per turn and a cost at the loss (`Objective`):
finish pays 1 per turn played and 1 more at a loss; score pays the number of boards unsolved at
the start of each turn and that number again at a loss; win pays 0 per turn and 1 at a loss.

Levels:

* **2**, the largest joint entropy: the sum over unsolved boards of each board's entropy (bits)
  of the guess's colours (the joint entropy of independent boards). Forced moves first: a board
  with one candidate left is solved now (the first such board in board order). Ties of the
  rounded sum go to the guess most likely to solve a board, then to the lower probe index.
* **3** and the exact solver are in `termo.engine.multi.level3`; `termo.engine.multi.factory.multi_solver`
  builds either.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from backends.constants import ROUND_STEP
from termo.core.decision import Choice, Decision
from termo.core.errors import TermoError
from termo.core.messages import Message

OBJECTIVES = ("finish", "score", "win")
DEFAULT_OBJECTIVE = "finish"
LEVELS = (2, 3)
LATE_SLACK = 1  # late_pool: candidates only once the turns left are at most the unsolved boards + this


def _host():
    from backends import host

    return host()


@dataclass(frozen=True)
class Objective:
    """Cost per turn and at a loss, as functions of the number of boards still unsolved."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in OBJECTIVES:
            raise TermoError(f"unknown objective {self.name!r}; choose one of: {', '.join(OBJECTIVES)}",
                             "objective.unknown", {"name": str(self.name)[:40], "choices": list(OBJECTIVES)})

    def turn_cost(self, unsolved: int) -> float:
        """What playing one more turn costs with ``unsolved`` boards unsolved at its start."""
        if self.name == "finish":
            return 1.0
        if self.name == "score":
            return float(unsolved)
        return 0.0

    def loss_cost(self, unsolved: int) -> float:
        """What running out of turns costs with ``unsolved`` boards unsolved."""
        if self.name == "score":
            return float(unsolved)
        return 1.0

    def base(self, turns_played: int, solved_on) -> float:
        """The cost already paid after ``turns_played`` turns with boards solved on ``solved_on``
        (None for unsolved): ``expected`` values add the remaining cost to it."""
        if self.name == "finish":
            return float(turns_played)
        if self.name == "score":
            return float(sum(t if t is not None else turns_played for t in solved_on))
        return 0.0


def forced_reason(board: int) -> Message:
    """The reason of a forced move: board ``board`` (0-based) has one candidate left."""
    return Message(f"board {board + 1} has one candidate left: solve it", "reason.boards_forced", board=board + 1)


def check_objective(name) -> Objective:
    return Objective(str(name if name is not None else DEFAULT_OBJECTIVE).strip().lower())


# The first guess of a mode by level, where batteries measured one better than the level's own (level
# 2: the largest joint entropy), each chosen on other tuples than the figures' (seed 1, the figures'
# seed 0; docs/modes-batteries.md, bench/results/mode-openers-*.json); the modes not listed open with
# level 2's. Level 2, Duotrigordle: crane 33.786 against soare 33.874 (500 tuples, seed 1, paired
# +0.088 [+0.038, +0.138]; on seed 0 33.780 against 33.860, +0.080 [+0.031, +0.129]). Level 3,
# Quordle: carle 6.872 against soare 6.928, paired +0.056 [+0.019, +0.093]; Octordle: crane 10.707
# against soare 10.764, +0.057 [+0.025, +0.089] (1,000 tuples, seed 1); Quarteto's best, corta, is
# within the noise of tarso (+0.021 [−0.025, +0.067]): not listed.
OPENERS: dict[int, dict[str, str]] = {2: {"duotrigordle": "crane"}, 3: {"quordle": "carle", "octordle": "crane"}}


class MultiSolver:
    """Level-2 decisions for one mode on one backend (``level=3`` builds the search's solver, see
    `multi_solver`). ``prior`` overrides the game's default prior (float64 over answers)."""

    level = 2
    board_progress = True  # progress(done, total) counts the boards of a decision

    def __init__(self, mode, objective=DEFAULT_OBJECTIVE, backend=None, t: float = 1.0, prior=None,
                 alternatives: int = 5, progress=None, opener="table"):
        from termo.engine.solver import Solver

        self.mode = mode
        self.game = mode.game
        self.objective = check_objective(objective)
        self.alternatives = int(alternatives)
        self.board_solver = Solver(mode.game, level=2, t=t, backend=backend, prior=prior)
        self.sweeper = self.board_solver.sweeper
        self.backend = self.board_solver.backend
        xp = _host().xp
        self.prior = xp.asarray(self.board_solver.prior, dtype=xp.float64)
        from termo.engine.multi.stats import BoardStats

        self.stats = BoardStats(self.game, self.prior, self.sweeper)  # per-board answers, memoised
        self.progress = progress  # progress(done, total): the boards' statistics of a decision
        self.table_opener = isinstance(opener, str) and opener == "table"  # else given (or None)
        if self.table_opener:  # level 3 resolves its own table before it gets here
            opener = OPENERS[2].get(mode.label)
        self.opener = None if opener is None else self._probe(opener)  # the first guess, when given

    def _probe(self, word) -> int:
        index = self.game.index_of(str(word))
        if index is None:
            raise TermoError(f"the opener {str(word)[:40]!r} is not a guess of {self.game.label}", "opener.unknown",
                             {"word": str(word)[:40]})
        return int(index)

    def opening(self, boards, turn: int) -> bool:
        """Is this the first turn (every board still holding every answer)?"""
        return int(turn) == 1 and all(int(len(c)) == self.game.n_answers for c in boards)

    def memo_bytes(self) -> int:
        """The bytes this solver's memos hold (bounded: `termo.engine.multi.stats`)."""
        return self.stats.memo_bytes()

    # ---------------------------------------------------------------- per board
    def solve_chances(self, boards):
        """Per probe, the probability that it solves one of ``boards`` (lists of candidate arrays)
        with the boards independent: ``1 − Π_b (1 − P_b(probe is the answer))``."""
        xp = _host().xp
        miss = xp.full(self.game.n_probes, 1.0, dtype=xp.float64)
        for cands in boards:
            p = xp.zeros(self.game.n_probes, dtype=xp.float64)
            idx = xp.asarray(cands, dtype=xp.int64)
            p[idx] = self.stats.weights(idx)  # the prior renormalised over the board
            miss = miss * (1.0 - p)
        return 1.0 - miss

    def joint_bits(self, boards):
        """Per probe, the sum of the boards' entropies (bits), host float64."""
        xp = _host().xp
        total = xp.zeros(self.game.n_probes, dtype=xp.float64)
        for done, cands in enumerate(boards):
            if int(len(cands)) > 1:
                total = total + self.stats.entropies(_host().to_numpy(cands))
            if self.progress is not None and self.board_progress:
                self.progress(done + 1, len(boards))
        return total

    # ---------------------------------------------------------------- decisions
    def unsolved_sets(self, state) -> list:
        return [state.candidates[b] for b in state.unsolved]

    def forced(self, boards) -> int | None:
        """The answer of the first board with one candidate left, else None."""
        for cands in boards:
            if int(len(cands)) == 1:
                return int(cands[0])
        return None

    def late_pool(self, boards, turn: int):
        """The guesses worth playing late: when the turns left (this one included) are at most the
        unsolved boards plus `LATE_SLACK`, a guess that can solve no board wastes a turn the game
        cannot spare, so only the unsolved boards' candidates are ranked. None: every probe."""
        if not turn or self.mode.max_turns - int(turn) + 1 > len(boards) + LATE_SLACK:
            return None
        return np.unique(np.concatenate([np.asarray(c, dtype=np.int64) for c in boards]))

    def scores(self, boards):
        """(joint bits, solve chance) of every probe over ``boards``, host float64."""
        return self.joint_bits(boards), self.solve_chances(boards)

    def ranked(self, boards, k: int, pool=None, scores=None):
        """The ``k`` best probes (of ``pool``, default every probe) by (rounded joint bits desc,
        solve chance desc, index asc): (indices, bits, chances) as host arrays. ``scores`` is
        `scores(boards)` when the caller has it already."""
        xp = _host().xp
        bits, chance = scores if scores is not None else self.scores(boards)
        ids = xp.arange(bits.shape[0]) if pool is None else xp.asarray(pool, dtype=xp.int64)
        key = xp.round(xp.take(bits, ids) / ROUND_STEP)
        order = xp.take(ids, xp.lexsort((ids, -xp.take(chance, ids), -key)))
        top = order[: max(int(k), 1)]
        return top, bits[top], chance[top]

    def choose(self, boards, turn: int = 0) -> int:
        """The probe level 2 plays on ``boards`` (candidate arrays of the unsolved boards)."""
        forced = self.forced(boards)
        if forced is not None:
            return forced
        if self.opener is not None and self.opening(boards, turn):
            return self.opener
        top, _, _ = self.ranked(boards, 1, self.late_pool(boards, turn))
        return int(top[0])

    def opener_reason(self) -> Message:
        if self.table_opener:
            name = self.mode.shown
            return Message(f"level {self.level}'s first guess for {name}, chosen by batteries (docs/modes-batteries.md)",
                           "reason.boards_first_table", mode=name)
        return Message("the opener given", "reason.boards_first_given")

    def choose_many(self, states, turns) -> list[int]:
        """One probe per state (a list of candidate arrays of its unsolved boards), for batteries."""
        return [self.choose(boards, turn) for boards, turn in zip(states, turns)]

    def _choice(self, index: int, bits: float, chance: float, expected=None) -> Choice:
        return Choice(int(index), self.game.probes[int(index)], bits=float(bits), expected=expected,
                      p_solve=float(chance))

    def _decision(self, choices, reason: str) -> Decision:
        """The decision of ``choices`` (the pick first), with this solver's level and objective."""
        return Decision(choices[0], reason, alternatives=tuple(choices[1:]), level=self.level,
                        objective=self.objective.name)

    def decide(self, state) -> Decision:
        """The suggestion for ``state`` (a `BoardsState` not over)."""
        if state.over:
            raise TermoError("the game is over: nothing to suggest", "boards.over_suggest")
        boards = self.unsolved_sets(state)
        pool = self.late_pool(boards, state.turns + 1)
        scores = self.scores(boards)
        top, bits, chance = self.ranked(boards, self.alternatives + 1, pool, scores)
        choices = [self._choice(i, b, c) for i, b, c in zip(top.tolist(), bits.tolist(), chance.tolist())]
        forced = self.forced(boards)
        if forced is not None:
            board = next(b for b in state.unsolved if int(len(state.candidates[b])) == 1)
            pick = self._choice(forced, scores[0][forced], scores[1][forced])
            reason = forced_reason(board)
            rest = tuple(c for c in choices if c.index != forced)[: self.alternatives]
            return self._decision((pick,) + rest, reason)
        if self.opener is not None and self.opening(boards, state.turns + 1):
            pick = self._choice(self.opener, scores[0][self.opener], scores[1][self.opener])
            rest = tuple(c for c in choices if c.index != self.opener)[: self.alternatives]
            return self._decision((pick,) + rest, self.opener_reason())
        late = "" if pool is None else " among the boards' candidates (no turn to spare)"
        n, bits = len(boards), choices[0].bits
        reason = Message(f"the largest joint entropy over {n} unsolved board{'s' if n != 1 else ''}{late}: "
                         f"{bits:.3f} bits", "reason.boards_entropy_late" if late else "reason.boards_entropy",
                         n=n, bits=bits)
        return self._decision(choices, reason)

