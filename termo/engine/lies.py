"""Rows of colours that lie (Fibble, docs/rules.md §13.2): the model, its filter and its session.

One secret answer, but every row of a wrong guess shows exactly one tile in a colour other than its
true one: any tile, either other colour, each of those choices equally likely, except that a lie
never paints a wrong guess all green (a row of five greens is the win, shown as it is). So an
answer whose true colours are ``h`` shows ``p`` with chance ``1 / L(h)`` when ``p`` differs from
``h`` in exactly one tile and is not all green (``L(h)``: how many such ``p`` there are, 10 for five
tiles, 9 when ``h`` has four greens), else 0.

After some rows, an answer is a candidate when every row is one lie away from its true colours;
its weight is its prior times the product of those chances (`LieSession.likelihoods`).
`reference_filter` is the brute-force filter (every lie position of the row, every other colour,
the honest filter of what the row would then be): the tests compare it with `LieSession.filter`.
"""

from __future__ import annotations

from functools import lru_cache

from backends import host
from termo.core.errors import TermoError
from termo.core.feedback import LETTER, colours, decode, encode
from termo.engine.session import Session


def shown_by_one_lie(pattern: str) -> list[str]:
    """Every row one lie makes of the true colours ``pattern`` (never all green), in code order."""
    out = set()
    for i, colour in enumerate(pattern):
        for other in LETTER:
            if other != colour:
                shown = pattern[:i] + other + pattern[i + 1:]
                if shown != "G" * len(pattern):
                    out.add(shown)
    return sorted(out, key=encode)


@lru_cache(maxsize=None)
def lie_tables(length: int):
    """``(neighbours, chances, table)`` for ``length`` tiles: per true code the codes one lie shows
    (int32, -1 padded) and their chances (float64), and the dense table ``table[h, p]`` of the
    chance that true colours ``h`` show as ``p`` (the win code's row is empty: the win never lies)."""
    xp = host().xp
    n = 3**length
    win = n - 1
    width = 2 * length
    neighbours = [[-1] * width for _ in range(n)]
    chances = [[0.0] * width for _ in range(n)]
    table = xp.zeros((n, n), dtype=xp.float64)
    for h in range(n):
        if h == win:
            continue
        shown = [encode(p) for p in shown_by_one_lie(decode(h, length))]
        for k, p in enumerate(shown):
            neighbours[h][k] = p
            chances[h][k] = 1.0 / len(shown)
            table[h, p] = 1.0 / len(shown)
    return xp.asarray(neighbours, dtype=xp.int32), xp.asarray(chances, dtype=xp.float64), table


def chance(shown: str, honest: str) -> float:
    """The chance that true colours ``honest`` show as ``shown`` (0 when one lie cannot)."""
    options = shown_by_one_lie(honest) if honest != "G" * len(honest) else []
    return 1.0 / len(options) if shown in options else 0.0


def reference_filter(game, candidates, guess_norm: str, shown: str) -> list[int]:
    """The brute-force filter of one row: for every tile the lie may be on and every colour it may
    hide, the answers (other than the guess) whose true colours are that row; their union, sorted."""
    kept = set()
    for i, colour in enumerate(shown):
        for true in LETTER:
            if true == colour:
                continue
            honest = shown[:i] + true + shown[i + 1:]
            for a in candidates:
                answer = game.answers_norm[int(a)]
                if answer != guess_norm and colours(guess_norm, answer) == honest:
                    kept.add(int(a))
    return sorted(kept)


def reference_entropies(game, members, weights, probes) -> list[float]:
    """The plain-Python entropy (bits) of the row shown for each probe (the kernel's oracle)."""
    import math

    out = []
    total = float(sum(weights))
    for g in probes:
        shown: dict[str, float] = {}
        guess = game.probes_norm[int(g)]
        for a, w in zip(members, weights):
            answer = game.answers_norm[int(a)]
            if guess == answer:
                shown[game.win_pattern] = shown.get(game.win_pattern, 0.0) + float(w)
                continue
            options = shown_by_one_lie(colours(guess, answer))
            for p in options:
                shown[p] = shown.get(p, 0.0) + float(w) / len(options)
        out.append(-sum(q / total * math.log2(q / total) for q in shown.values() if q > 0))
    return out


class LieSession(Session):
    """A Fibble game in progress: a row's colours may be any pattern (one tile lies), the
    candidates are the answers every row is one lie away from; all green wins. Hard mode is not
    played (a lie may show a green that is not one)."""

    def __init__(self, game, matrix=None, hard: bool = False):
        if hard:
            raise TermoError(f"--hard is not played in {game.shown}: its rows lie, so no colour "
                             f"binds the next guess")
        super().__init__(game, matrix=matrix, hard=False)
        self._table = lie_tables(game.word_length)[2]

    def check_pattern(self, guess, text: str) -> str:
        """The row typed: any pattern of the game's colours (a lie can show what no answer would)."""
        return self.game.parse_colours(text)

    def filter(self, guess, pattern: str, candidates=None):
        """The candidates (default: the current ones) that ``guess`` could show as ``pattern``
        with one lie."""
        cands = self._candidates if candidates is None else candidates
        code = encode(pattern)
        honest = self._honest(guess, cands)
        return cands[self._table[honest, code] > 0.0]

    def _honest(self, guess, cands):
        xp = self._xp
        if guess.probe is not None:
            return xp.take(xp.asarray(self._matrix_host()[guess.probe]), cands).astype(xp.int64)
        answers = self.game.answers_norm
        return xp.asarray([encode(colours(guess.norm, answers[int(c)])) for c in cands.tolist()], dtype=xp.int64)

    def likelihoods(self, candidates=None):
        """Per candidate (default: the current ones): the chance that every row played was shown
        as it was, were it the answer (float64)."""
        from termo.engine.session import Guess

        xp = self._xp
        cands = self._candidates if candidates is None else candidates
        out = xp.ones(int(cands.shape[0]), dtype=xp.float64)
        for rnd in self.rounds:
            if rnd.won:
                continue
            guess = Guess(rnd.guess, self.game.normalize(rnd.guess), rnd.probe)
            out = out * self._table[self._honest(guess, cands), encode(rnd.pattern)]
        return out

    def _check_win(self, guess) -> None:
        """Raise TermoError when ``guess`` cannot be the answer after the rows played: a listed
        guess must be a candidate; another must be one lie away from every row."""
        if not self._frames:
            return
        if guess.probe is not None:
            if self.game.is_answer_index(guess.probe) and guess.probe in set(self.candidate_list()):
                return
            raise TermoError(f"{guess.word} cannot be the answer: some row is not one lie away from its colours")
        for number, frame in enumerate(self._frames, start=1):
            rnd = frame.round
            honest = colours(self.game.normalize(rnd.guess), guess.norm)
            if chance(rnd.pattern, honest) == 0.0:
                raise TermoError(f"{guess.word} cannot be the answer: row {number} ({rnd.guess} {rnd.pattern}) "
                                 f"is not one lie away from {honest}")
