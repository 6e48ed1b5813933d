"""A game in progress as plain data: the rounds played so far and the candidates they leave.

A *round* is one guess with the colours the game gave it. `Session` validates each round
before it touches the candidate set:

* the guess must have the game's length and only letters (accents optional: `saude` and
  `saúde` are the same guess);
* the colours are parsed by `Game.parse_colours` in the game's own colour forms (``GYBBB``,
  ``21000``, squares, and Termo's ``vapcc`` or Nerdle's ``P`` for purple, ...);
* an *impossible* pattern (one no answer could ever produce for that guess, see
  `termo.core.feedback.pattern_possible`) is rejected with its reason, before any filtering: that is
  a typing mistake, not information;
* a guess outside the probe list is accepted with a warning; it has no row in the pattern
  matrix, so its colours are computed answer by answer with the scalar
  `termo.core.feedback.feedback_code` (the slow path);
* a round that would leave no candidate is *reported and not applied* (mistyped colours, or an
  answer missing from the lexicon), so the player can fix it or undo an earlier round;
* an all-green pattern wins the game; that round does not filter, but the guess must be able
  to be the answer after the rounds before (a candidate left that it wins against, or, for a
  word outside the lists, colours that fit every earlier round): otherwise it is rejected with
  the round it contradicts;
* in hard mode (``Session(game, hard=True)``) a guess must keep every green in place and reuse
  every revealed letter as often as it was marked (`termo.engine.hard_mode`); an illegal guess is
  rejected with the reason and not applied.

History items on the command line have the form ``guess:pattern`` (see `parse_history_item`).
Candidate sets are ascending arrays of answer indices on the host backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from termo.core.errors import TermoError
from termo.core.messages import Message, nested, unit_count

EMPTY_RESULT_HINT = (
    "mistyped colours, or the answer is not in the lexicon; the round was not applied"
)


@dataclass(frozen=True)
class Guess:
    """A validated guess: its display form, its probe index (None outside the probe list)."""

    word: str  # display form: the accented probe when known, else the normalised input
    norm: str  # normalised form (what the colours are computed on)
    probe: int | None
    warnings: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return self.probe is not None


@dataclass(frozen=True)
class Round:
    """One applied round: the guess, its colours and the candidate counts around it."""

    guess: str
    pattern: str  # canonical form, e.g. "GYBBB"
    probe: int | None
    before: int  # candidates before the round
    after: int  # candidates after it (unchanged for a winning round)
    won: bool = False

    @property
    def item(self) -> str:
        """The round as a history item, ``guess:pattern``."""
        return f"{self.guess}:{self.pattern}"


@dataclass(frozen=True)
class Outcome:
    """What happened to a proposed round.

    `status` is ``"applied"`` (candidates filtered), ``"won"`` (all green; the game is over) or
    ``"empty"`` (no candidate would be left; nothing changed).
    """

    status: str
    round: Round
    warnings: tuple[str, ...] = ()

    @property
    def applied(self) -> bool:
        return self.status in ("applied", "won")


def parse_history_item(text: str) -> tuple[str, str]:
    """Split a history item ``guess:pattern`` into its two raw parts (not yet validated)."""
    guess, sep, pattern = text.partition(":")
    guess = guess.strip()
    if not sep or not guess or not pattern.strip():
        raise TermoError(
            f"bad history item {text!r}: expected guess:colours, e.g. tarso:BBGBY or 52-34=18:GBBYBBGB",
            "history.bad_item", {"item": text})
    return guess, pattern


def _host():
    from backends import host

    return host()


@dataclass
class _Frame:
    round: Round
    candidates: object  # the candidate array *before* the round


class Session:
    """A game in progress: validated rounds, the candidate set they leave, undo.

    `matrix` is the game's pattern matrix (any backend; it is brought to the host once); by
    default it is loaded lazily from `termo.engine.matrix.pattern_matrix` on the host backend.
    ``hard=True`` plays by hard mode (`termo.engine.hard_mode`): a guess that drops a green or a
    revealed letter is rejected with the reason, and nothing is applied.
    """

    def __init__(self, game, matrix=None, hard: bool = False):
        self.game = game
        self.hard = bool(hard)
        if matrix is None:  # both cached layouts checked on another core while NumPy and the rest load
            from termo.engine.matrix import ANSWERS_MAJOR, PROBES_MAJOR, verify_ahead

            verify_ahead(game, (PROBES_MAJOR, ANSWERS_MAJOR))
        self._backend = _host()
        self._xp = self._backend.xp
        self._matrix = None if matrix is None else self._backend.to_numpy(matrix)
        self._frames: list[_Frame] = []
        self._candidates = self._all_answers()

    # ----------------------------------------------------------------- state
    def _all_answers(self):
        return self._xp.arange(self.game.n_answers, dtype=self._xp.int64)

    @property
    def candidates(self):
        """Ascending answer indices still possible (host array, int64)."""
        return self._candidates

    @property
    def n_candidates(self) -> int:
        return int(self._candidates.shape[0])

    def candidate_list(self) -> list[int]:
        return [int(i) for i in self._backend.to_numpy(self._candidates).tolist()]

    @property
    def rounds(self) -> tuple[Round, ...]:
        return tuple(f.round for f in self._frames)

    @property
    def turn(self) -> int:
        """The 1-based number of the next guess."""
        return len(self._frames) + 1

    @property
    def won(self) -> bool:
        return bool(self._frames) and self._frames[-1].round.won

    @property
    def out_of_turns(self) -> bool:
        """True once the game's tries are used up without a win."""
        return not self.won and len(self._frames) >= self.game.max_turns

    @property
    def over(self) -> bool:
        return self.won or self.out_of_turns

    def history(self) -> list[str]:
        """The rounds as history items (``guess:pattern``), replayable by `replay`."""
        return [r.item for r in self.rounds]

    # ------------------------------------------------------------ validation
    def check_guess(self, text: str) -> Guess:
        """Validate a typed guess; raise TermoError when it cannot be a word of this game, or
        (hard mode) when it breaks the rule of the rounds played."""
        guess = self._check_word(text)
        if self.hard:
            from termo.engine.hard_mode import is_legal

            ok, reason = is_legal(self.constraint(), guess.norm, self.game.unit)
            if not ok:
                raise TermoError(f"hard mode: {guess.word!r} is not allowed: {reason}", "hard.not_allowed",
                                 {"word": guess.word, "why": nested(reason)})
        return guess

    def constraint(self):
        """The hard-mode `termo.engine.hard_mode.Constraint` of the rounds played (any mode)."""
        from termo.engine.hard_mode import from_rounds

        norm = self.game.normalize
        return from_rounds(((norm(r.guess), r.pattern) for r in self.rounds if not r.won),
                           self.game.word_length)

    def allowed_probes(self):
        """Hard mode: the boolean mask over the probes a next guess may be; None otherwise."""
        if not self.hard:
            return None
        from termo.engine.hard_mode import allowed_probes

        return allowed_probes(self.game, self.constraint())

    def _check_word(self, text: str) -> Guess:
        raw = text.strip().lower()
        if not raw:
            raise TermoError("empty guess", "guess.empty")
        game = self.game
        norm = game.normalize(raw)
        probe = game.index_of(raw)
        if probe is not None:
            return Guess(game.probes[probe], norm, probe)
        n = game.word_length
        if len(norm) != n:
            raise TermoError(f"{raw!r} has {unit_count(len(norm), game.unit)}; guesses here have {n}", "guess.length",
                             {"word": raw, "n": len(norm), "expected": n, "unit": game.unit})
        try:
            game.check_guess_text(norm)
        except TermoError as err:
            if game.unit == "letters" and not norm.isalpha():
                raise TermoError(f"{raw!r} is not a word: use letters only", "guess.not_letters",
                                 {"word": raw}) from None
            raise err.reworded(str(err).replace(repr(norm), repr(raw), 1), word=raw) from None
        noun = "word" if game.unit == "letters" else "guess"
        warning = (
            Message(f"{raw!r} is not in the word list; its colours are still used to filter the candidates",
                    "warning.off_list", word=raw)
            if noun == "word" else
            Message(f"{raw!r} is not in the guess list; its colours are still used to filter the candidates",
                    "warning.off_list_guess", word=raw)
        )
        return Guess(raw, norm, None, (warning,))

    def check_pattern(self, guess: Guess, text: str) -> str:
        """Parse colours and reject a pattern no answer could give to this guess."""
        from termo.core.feedback import pattern_possible

        pattern = self.game.parse_colours(text)
        ok, reason = pattern_possible(guess.norm, pattern, self.game.word_length, normalize=None)
        if not ok:
            raise TermoError(f"impossible colours {pattern} for {guess.word}: {reason}", "colours.impossible",
                             {"word": guess.word, "pattern": pattern, "why": nested(reason),
                              "game": self.game.name})
        return pattern

    # ------------------------------------------------------------- filtering
    def matrix(self):
        """The game's pattern matrix on the host (probes x answers; loaded once)."""
        return self._matrix_host()

    def _matrix_host(self):
        if self._matrix is None:
            from termo.engine.matrix import pattern_matrix

            self._matrix = pattern_matrix(self.game, backend=self._backend)
        return self._matrix

    def filter(self, guess: Guess, pattern: str, candidates=None):
        """The candidates (default: the current ones) consistent with `guess` coloured `pattern`."""
        from termo.core.feedback import encode

        xp = self._xp
        cands = self._candidates if candidates is None else candidates
        code = encode(pattern)
        if guess.probe is not None:
            row = self._matrix_host()[guess.probe]
            codes = xp.take(xp.asarray(row), cands)
            return cands[codes == code]
        # Slow path: a guess with no matrix row (it wins only when written as the answer).
        from termo.core.feedback import colours

        answers = self.game.answers_norm
        keep = [
            int(c)
            for c in self._backend.to_numpy(cands).tolist()
            if encode(colours(guess.norm, answers[int(c)])) == code
        ]
        return xp.asarray(keep, dtype=xp.int64)

    # -------------------------------------------------------------- actions
    def play(self, guess_text: str, pattern_text: str) -> Outcome:
        """Validate and apply one round; see the module docstring for the rules.

        Raises TermoError for a bad guess, bad or impossible colours, or a game already over.
        An empty filter result is returned as ``Outcome(status="empty")`` and not applied.
        """
        if self.won:
            raise TermoError("the game is already won; undo or start a new one", "game.won")
        guess = self.check_guess(guess_text)
        pattern = self.check_pattern(guess, pattern_text)
        before = self.n_candidates
        if pattern == self.game.win_pattern:
            self._check_win(guess)
            rnd = Round(guess.word, pattern, guess.probe, before, before, won=True)
            self._frames.append(_Frame(rnd, self._candidates))
            return Outcome("won", rnd, guess.warnings)
        kept = self.filter(guess, pattern)
        after = int(kept.shape[0])
        rnd = Round(guess.word, pattern, guess.probe, before, after)
        if after == 0:
            return Outcome("empty", rnd, guess.warnings)
        self._frames.append(_Frame(rnd, self._candidates))
        self._candidates = kept
        return Outcome("applied", rnd, guess.warnings)

    def _check_win(self, guess: Guess) -> None:
        """Raise TermoError when ``guess`` cannot be the answer after the rounds played.

        A listed guess wins when it wins against a candidate still left (the game's win rule:
        Nerdle's commutative answers count). Otherwise the guess itself must fit every earlier
        round's colours (an answer missing from the lexicon); the first round it breaks is named.
        """
        if not self._frames:
            return
        game = self.game
        if guess.probe is not None:
            cands = self.candidate_list()
            keys = game.probe_win_keys  # None under the exact rule
            if guess.probe in set(cands) if keys is None else any(keys[c] == keys[guess.probe] for c in cands):
                return
        from termo.core.feedback import colours

        for number, frame in enumerate(self._frames, start=1):
            rnd = frame.round
            shown = colours(game.normalize(rnd.guess), guess.norm)
            if shown != rnd.pattern:
                raise TermoError(
                    f"{guess.word} cannot be the answer: round {number} would have coloured "
                    f"{rnd.guess} {shown}, not {rnd.pattern}"
                )
        if guess.probe is not None:
            raise TermoError(f"{guess.word} cannot be the answer: no candidate left wins with it")

    def undo(self) -> Round | None:
        """Take back the last round; returns it (None when there is nothing to undo)."""
        if not self._frames:
            return None
        frame = self._frames.pop()
        self._candidates = frame.candidates
        return frame.round

    def reset(self) -> None:
        """Start a new game."""
        self._frames.clear()
        self._candidates = self._all_answers()

    def replay(self, items: Iterable[str]) -> list[Outcome]:
        """Apply history items ``guess:pattern`` in order, strictly.

        Raises TermoError naming the item when one is invalid, impossible, leaves no
        candidate, or comes after a win.
        """
        outcomes = []
        for number, item in enumerate(items, start=1):
            guess, pattern = parse_history_item(item)
            try:
                outcome = self.play(guess, pattern)
            except TermoError as err:
                inner = {"code": err.code, "params": err.params} if err.code else None
                raise TermoError(f"round {number} ({item}): {err}", "history.round" if inner else None,
                                 {"round": number, "item": item, "guess": guess, "error": inner}) from None
            if outcome.status == "empty":
                raise TermoError(
                    f"round {number} ({item}) leaves no candidate: {EMPTY_RESULT_HINT}",
                    "history.round_empty", {"round": number, "item": item, "guess": guess})
            outcomes.append(outcome)
        return outcomes

    # ------------------------------------------------------------- listing
    def most_likely(self, n: int | None = 20) -> list[str]:
        """Display forms of the candidates by prior (lowest ICF first, index on ties)."""
        icf = self.game.icf
        order = sorted(self.candidate_list(), key=lambda i: (icf[i], i))
        if n is not None:
            order = order[: max(n, 0)]
        return [self.game.answers[i] for i in order]


def candidates_after(game, items: Sequence[str], matrix=None, hard: bool = False) -> Session:
    """A fresh `Session` with the history `items` replayed (strict, see `Session.replay`)."""
    session = Session(game, matrix=matrix, hard=hard)
    session.replay(items)
    return session
