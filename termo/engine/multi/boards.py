"""Several boards in progress: one candidate set per board, filtered by one guess a turn.

A `termo.games.mode.Mode` plays B boards of one game with one shared turn limit. Each turn one
guess is typed for every board; every board still unsolved colours it against its own answer,
so a turn brings one pattern per unsolved board, in board order. `BoardsState` is the state
after some turns: per board the answer indices still possible and the turn that solved it.
It is a value: `BoardsState.apply` returns the next state and leaves this one as it was (a
search can keep many), and nothing is applied when any part of a turn is wrong.

The rules of a turn (`BoardsState.apply`):

* the guess is checked as a single-board game checks it (`termo.engine.session.Session`);
* ``patterns`` has one entry per board: the colours (in any colour form of the game) for an
  unsolved board, None for a solved one, which takes no more colours;
* each pattern is checked as a single board checks it (an impossible pattern is rejected
  with its reason) and filters its own board with the single-board filter (`Session.filter`);
* the win pattern solves its board, whose candidates become the answers the guess wins against
  (one under the exact rule); a guess that wins against no candidate of that board is rejected;
* the boards have distinct answers: under the exact win rule one guess solves one board at most;
* a pattern that leaves its board no candidate, a wrong number of patterns, a pattern for a
  solved board or a missing one, and a turn after the game is won or out of turns are rejected
  with a `TermoError` naming the board.

The candidate sets of different boards are filtered independently: that they hold distinct
answers is a joint constraint this state does not apply beyond the rule above.
With one board (`Mode.single`) the state is the single-board session's, turn for turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

from termo.core.errors import TermoError
from termo.core.messages import counted
from termo.engine.session import Guess, Session
from termo.games.base import EXACT


def _host():
    from backends import host

    return host()


@dataclass(frozen=True, eq=False)
class BoardsState:
    """A mode in progress: per board its candidates (ascending host int64 answer indices) and
    the 1-based turn that solved it (None while unsolved); ``turns`` guesses played so far."""

    mode: object  # termo.games.mode.Mode
    candidates: tuple
    solved_on: tuple
    turns: int = 0
    session: Session = field(default=None, repr=False)  # the single-board checks and filter

    @classmethod
    def start(cls, mode, matrix=None) -> "BoardsState":
        """The state before the first guess: every answer possible on every board. ``matrix`` is
        the game's pattern matrix (loaded on first use when None), shared by all boards."""
        session = Session(mode.game, matrix=matrix)
        everything = session.candidates
        return cls(mode, (everything,) * mode.boards, (None,) * mode.boards, 0, session)

    def __repr__(self) -> str:  # the candidate arrays by their sizes
        boards = ", ".join(f"solved on {turn}" if turn is not None else f"{self.n_candidates(b)} left"
                           for b, turn in enumerate(self.solved_on))
        return f"BoardsState({self.mode.label!r}, turn {self.turns}/{self.mode.max_turns}: {boards})"

    # ----------------------------------------------------------------- state
    @property
    def game(self):
        return self.mode.game

    @property
    def n_boards(self) -> int:
        return self.mode.boards

    @property
    def solved(self) -> tuple[bool, ...]:
        return tuple(turn is not None for turn in self.solved_on)

    @property
    def unsolved(self) -> tuple[int, ...]:
        """The 0-based indices of the boards still to solve."""
        return tuple(i for i, turn in enumerate(self.solved_on) if turn is None)

    @property
    def won(self) -> bool:
        return all(self.solved)

    @property
    def turns_left(self) -> int:
        return max(self.mode.max_turns - self.turns, 0)

    @property
    def out_of_turns(self) -> bool:
        """True once the shared turn limit is used up with a board unsolved."""
        return not self.won and self.turns >= self.mode.max_turns

    @property
    def over(self) -> bool:
        return self.won or self.out_of_turns

    def n_candidates(self, board: int) -> int:
        return int(self.candidates[board].shape[0])

    def candidate_lists(self) -> list[list[int]]:
        """Each board's candidates as plain lists of answer indices."""
        to_numpy = _host().to_numpy
        return [[int(i) for i in to_numpy(c).tolist()] for c in self.candidates]

    # ------------------------------------------------------------- a turn
    def apply(self, guess_text: str, patterns: Sequence) -> "BoardsState":
        """The state after ``guess_text`` coloured ``patterns`` (one per board, None for a
        solved board); TermoError when any part of the turn is wrong (see the module docstring)."""
        self._check_playable()
        guess = self.session.check_guess(guess_text)
        parsed = self._parse_patterns(guess, patterns)
        self._check_distinct_answers(guess, parsed)
        turn = self.turns + 1
        candidates, solved_on = list(self.candidates), list(self.solved_on)
        for board in self.unsolved:
            pattern = parsed[board]
            if pattern == self.game.win_pattern:
                candidates[board] = self._winners(guess, board)
                solved_on[board] = turn
            else:
                candidates[board] = self.session.filter(guess, pattern, self.candidates[board])
            if int(candidates[board].shape[0]) == 0:
                raise TermoError(
                    f"board {board + 1} ({guess.word}) leaves no candidate: check the colours, or "
                    f"the answer is not in the word list; the guess was not applied", "boards.empty",
                    {"board": board + 1, "guess": guess.word})
        return replace(self, candidates=tuple(candidates), solved_on=tuple(solved_on), turns=turn)

    def _check_playable(self) -> None:
        if self.won:
            raise TermoError("every board is already solved; start a new game", "boards.won")
        if self.out_of_turns:
            tries = self.mode.max_turns
            raise TermoError(f"the game is over: all {tries} tries were played", "boards.over", {"tries": tries})

    def _parse_patterns(self, guess: Guess, patterns: Sequence) -> list:
        """One checked pattern per unsolved board (None for a solved one), in board order."""
        patterns = list(patterns)
        boards = self.n_boards
        if len(patterns) != boards:
            raise TermoError(f"{counted(len(patterns), 'colour pattern')} for {counted(boards, 'board')}: give one "
                             f"per board, in board order", "boards.count", {"n": len(patterns), "boards": boards})
        parsed = []
        for board, (text, turn) in enumerate(zip(patterns, self.solved_on)):
            number = board + 1
            if turn is not None:
                if text is not None:
                    raise TermoError(f"board {number} is already solved (turn {turn}): it takes no colours",
                                     "boards.solved_pattern", {"board": number})
                parsed.append(None)
                continue
            if text is None:
                raise TermoError(f"board {number} is not solved: give its colours", "boards.missing_pattern",
                                 {"board": number})
            try:
                parsed.append(self.session.check_pattern(guess, text))
            except TermoError as err:
                inner = {"code": err.code, "params": err.params} if err.code else None
                raise TermoError(f"board {number}: {err}", "boards.board" if inner else None,
                                 {"board": number, "error": inner}) from None
        return parsed

    def _check_distinct_answers(self, guess: Guess, parsed: list) -> None:
        """Under the exact win rule a guess is one answer: it cannot solve two boards."""
        wins = [board + 1 for board, pattern in enumerate(parsed) if pattern == self.game.win_pattern]
        if len(wins) > 1 and self.game.win_rule == EXACT:
            raise TermoError(f"{guess.word} cannot solve boards {', '.join(map(str, wins))} at once: each board "
                             f"has its own answer", "boards.same_answer", {"guess": guess.word, "n": len(wins)})

    def _winners(self, guess: Guess, board: int):
        """The candidates of ``board`` that ``guess`` wins against (its answer once it is solved)."""
        xp = _host().xp
        if guess.probe is None:  # a word with no index is no listed answer
            return xp.asarray([], dtype=xp.int64)
        wins = self.game.wins
        kept = [c for c in self.candidate_lists()[board] if wins(guess.probe, c)]
        return xp.asarray(kept, dtype=xp.int64)
