"""The adversary of Absurdle (docs/rules.md §13.1): its rule, its tables and the session it plays.

There is no secret. The state is the set of answers still possible; after a guess the adversary
groups them by the colours the guess would get against each, keeps the largest group and shows
its colours. Between groups of the same size it keeps the one whose colours have the fewest
greens, then the fewest yellows, then the smallest code read tile by tile from the left (absent <
present < right place): `preference` ranks the codes so. The group of the guess itself (all
green) is therefore kept only when it is the only one: a guess wins when it is the last answer.

`reference_choice` is the plain-Python rule (the oracle of the kernels); `Adversary` holds one
game's tables (its pattern matrix, the code order) and asks the backend's
compiled host kernels (`backends.host_ops.feedback`) for groups and splits; `AdversarySession` is a
`termo.engine.session.Session` whose colours the adversary gives: the player types the guess only.
"""

from __future__ import annotations

from typing import Iterable

from backends import host
from backends.host_ops import feedback
from termo.core.errors import TermoError
from termo.core.feedback import DIGIT, colours, decode
from termo.engine.session import Outcome, Session, parse_history_item


def code_key(code: int, length: int) -> tuple[int, int, int]:
    """The adversary's key of a code among groups of one size (lowest kept): greens, yellows, code."""
    pattern = decode(code, length)
    return pattern.count("G"), pattern.count("Y"), code


def preference(length: int):
    """``pref[code]``: each code's rank in the adversary's tie-break (0 is kept first), int32."""
    xp = host().xp
    n = 3**length
    order = sorted(range(n), key=lambda c: code_key(c, length))
    pref = [0] * n
    for rank, code in enumerate(order):
        pref[code] = rank
    return xp.asarray(pref, dtype=xp.int32)


def reference_choice(game, candidates: Iterable[int], guess_norm: str) -> tuple[str, list[int]]:
    """The plain-Python adversary: the colours it shows for ``guess_norm`` (a normalised guess)
    over ``candidates`` (answer indices) and the group it keeps (ascending)."""
    groups: dict[str, list[int]] = {}
    for a in sorted(int(c) for c in candidates):
        answer = game.answers_norm[a]
        pattern = game.win_pattern if answer == guess_norm else colours(guess_norm, answer)
        groups.setdefault(pattern, []).append(a)
    if not groups:
        raise TermoError("no candidate left", "game.no_candidate")

    def rank(pattern: str):
        return (-len(groups[pattern]), pattern.count("G"), pattern.count("Y"),
                [DIGIT[ch] for ch in pattern])

    best = min(groups, key=rank)
    return best, groups[best]


class Adversary:
    """One game's adversary: ``choose`` a guess's colours over a state, ``pick`` many guesses'
    kept groups at once, ``splitters`` (the guesses that leave one answer), hard mode's
    ``allowed_after``. ``matrix``: the probes-major pattern matrix (default: the game's cache)."""

    def __init__(self, game, matrix=None):
        from termo.engine.matrix import pattern_matrix

        self.game = game
        self.backend = host()
        self.xp = self.backend.xp
        self.M = self.backend.to_numpy(matrix if matrix is not None else pattern_matrix(game, backend=self.backend))
        self.pref = preference(game.word_length)
        self.n_codes = game.n_patterns
        self.all_probes = self.xp.arange(game.n_probes, dtype=self.xp.int64)
        self._hard = None

    def root(self):
        """Every answer: the state before the first guess."""
        return self.xp.arange(self.game.n_answers, dtype=self.xp.int64)

    def choose(self, members, probe: int):
        """``(code, kept)``: the colours the adversary shows for probe ``probe`` over ``members``."""
        codes, _ = feedback.adversary_pick(self.M, members, [int(probe)], self.pref, self.n_codes)
        code = int(codes[0])
        return code, feedback.adversary_kept(self.M[int(probe)], members, code)

    def choose_norm(self, members, guess_norm: str):
        """``(pattern, kept)`` for a guess outside the probe list (the plain rule, answer by answer)."""
        pattern, kept = reference_choice(self.game, [int(m) for m in members], guess_norm)
        return pattern, self.xp.asarray(kept, dtype=self.xp.int64)

    def pick(self, members, guesses=None):
        """``(codes, sizes)`` of the groups kept for each probe of ``guesses`` (default: every probe)."""
        guesses = self.all_probes if guesses is None else guesses
        return feedback.adversary_pick(self.M, members, guesses, self.pref, self.n_codes)

    def kept(self, members, probe: int, code: int):
        return feedback.adversary_kept(self.M[int(probe)], members, int(code))

    def distinct(self, members):
        """Per probe, how many distinct codes it shows over ``members``."""
        return feedback.adversary_distinct(self.M, members, self.n_codes)

    def splitters(self, members, order, limit: int):
        """``(probes, kept)``: the probes of ``order[:limit]`` that leave one answer of ``members``
        (every code distinct) and the answer each leaves."""
        return feedback.adversary_splitters(self.M, members, order, limit, self.pref, self.n_codes)

    def kept_many(self, members, guesses, codes, sizes):
        """The groups kept for many guesses at once: ``(flat, starts)`` (see `backends.host_ops.feedback`)."""
        return feedback.adversary_kept_many(self.M, members, guesses, codes, int(sizes.sum()))

    def allowed_after(self, allowed, probe: int, code: int):
        """Hard mode: the probes of ``allowed`` still legal after ``probe`` was coloured ``code``."""
        if self._hard is None:
            from termo.engine.hard_mode import tables

            t = tables(self.game)
            self._hard = (self.xp.asarray(t.codes), self.xp.asarray(t.counts))
        symbols, counts = self._hard
        return feedback.allowed_after(symbols, counts, allowed, int(probe), int(code))


class AdversarySession(Session):
    """A game against the adversary: `play` takes a guess and the adversary gives its colours
    (colours typed with it must be the adversary's, else TermoError); a history item is a guess
    alone or ``guess:colours``. Hard mode, undo and the rest are the `Session`'s."""

    def __init__(self, game, matrix=None, hard: bool = False):
        super().__init__(game, matrix=matrix, hard=hard)
        self._adversary = None

    @property
    def adversary(self) -> Adversary:
        if self._adversary is None:
            self._adversary = Adversary(self.game, self._matrix_host())
        return self._adversary

    def colours_for(self, text: str) -> str:
        """The colours the adversary shows for the guess ``text`` now (TermoError for a bad guess)."""
        guess = self.check_guess(text)
        if self.won:
            raise TermoError("the game is already won; undo or start a new one", "game.won")
        if guess.probe is not None:
            code, _ = self.adversary.choose(self.candidates, guess.probe)
            return decode(code, self.game.word_length)
        pattern, _ = self.adversary.choose_norm(self.candidates, guess.norm)
        return pattern

    def play(self, guess_text: str, pattern_text: str | None = None) -> Outcome:
        """One round: the adversary colours ``guess_text``; ``pattern_text`` (optional) must be
        those colours."""
        pattern = self.colours_for(guess_text)
        if pattern_text is not None and str(pattern_text).strip():
            typed = self.game.parse_colours(pattern_text)
            if typed != pattern:
                word = self.check_guess(guess_text).word
                raise TermoError(f"the game colours {word} {pattern} here, not {typed}: its colours are its own",
                                 "adversary.colours", {"word": word, "pattern": pattern, "typed": typed})
        return super().play(guess_text, pattern)

    def replay(self, items):
        """Apply history items: ``guess`` (the adversary colours it) or ``guess:colours``."""
        return super().replay(self._with_colours(items))

    def _with_colours(self, items):
        for item in items:
            text = str(item)
            if ":" in text:
                guess, pattern = parse_history_item(text)
                yield f"{guess}:{pattern}"
                continue
            try:
                pattern = self.colours_for(text)
            except TermoError:
                yield f"{text}:" + "B" * self.game.word_length  # the round's own error is raised by replay
                continue
            yield f"{text.strip()}:{pattern}"
