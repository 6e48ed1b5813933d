"""Partition metrics of a guess over a game state, and rankings of every probe by them.

A *state* is the candidate set a history leaves (:mod:`termo.engine.session`) with the game's prior at
temperature ``t`` restricted to it (``t = inf``: uniform; Nerdle and Wordle are uniform at every
``t``). A guess splits the ``N`` candidates into feedback groups, one per pattern code of the
pattern matrix (so a non-exact win rule, already encoded in the matrix, needs nothing here).
For one guess the metrics are (the keys of :func:`metrics_row`):

* ``groups``: the number of non-empty groups;
* ``largest_group``: the size of the largest one (minimax, Xneg's criterion);
* ``expected_remaining``: ``Σ_b n_b² / N``, the expected group size with every candidate counted
  once, as the studies define it (whatever the prior);

  the all-green group counts as one group of one per answer it holds (each is solved by this
  guess): under the exact rule it never holds more than one, and under Nerdle's commutative rule
  a guess that wins both of two answers leaves nothing, largest group 1 and expected remaining 1
  (as level 3 counts it: such a state costs one guess);
* ``expected_remaining_weighted``: ``Σ_b P_b · n_b`` with ``P_b`` the group's prior weight (the
  expected number of candidates left when the answer is drawn from the prior; when the weights
  are uniform it is ``expected_remaining`` itself);
* ``bits``: the entropy of the feedback under the weights, in the engine's float convention (the
  reference's exact summation order: ``Sweeper.entropies`` for rankings, and for one guess the
  kernel of ``Sweeper.entropy_of`` on its codes), so it equals the bits ``termo suggest`` reports;
* ``worst_case_bits_left``: ``log2(largest_group)``;
* ``can_be_answer``: some candidate gives the win code (under the exact rule: the guess is one of
  the candidates);
* ``candidates``: ``N``.

`guess_metrics` (``termo partition``) adds ``wins``, the number of candidates the guess wins
against, and ``expected_unsolved``, ``expected_remaining`` without the winning group (the
answers *still unsolved* after the guess, the reading of ``termo tree build --remaining
unsolved``): 0 when the guess wins against every candidate.

Counts are vectorised over probes: for a block of probes, the codes ``M[block, S]`` go through the
backend's ``row_histogram`` (NumPy: one ``bincount`` over ``row * n_patterns + code``), in blocks
of about :data:`CELLS` histogram or code cells, so big games (Nerdle Classic: 17,723 probes x
6,561 patterns) stay within memory. A guess outside the probe list has no matrix row: its codes
come from the scalar rule :func:`termo.core.feedback.colours` (it wins only when written as an answer).

Rankings (:func:`rank_probes`), every probe of the game, deterministic:

* ``entropy``: the engine's §5.2 order (:func:`termo.engine.ordering.full_order`): bits rounded to the
  1e-9 grid descending, then candidates first, then prior weight descending, then probe index
  ascending; its first entry is the probe level 2 of ``termo suggest`` plays (outside its endgame
  rules);
* ``minimax``: ``largest_group`` ascending, then the entropy order;
* ``remaining``: ``expected_remaining`` ascending (compared exactly, as the integer ``Σ n_b²``),
  then the entropy order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from backends import get_backend, host
from backends.host_ops import search as host_search
from termo.core.errors import TermoError

CRITERIA = ("entropy", "minimax", "remaining")
CELLS = 4_000_000  # code or histogram cells per block of probes


@dataclass(frozen=True)
class State:
    """The candidates after a history (ascending answer indices, host int64) and the prior."""

    game: object
    candidates: object  # host int64 array, ascending
    t: float
    prior: object  # host float64, one weight per answer (softmax(-icf/t))
    history: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return int(self.candidates.shape[0])

    @property
    def weights(self):
        """The prior restricted to the candidates and renormalised (the engine's own weights)."""
        xp = host().xp
        cand = xp.asarray(self.candidates, dtype=xp.int64)
        return host_search.state_weights(xp.asarray(self.prior, dtype=xp.float64), cand)


def make_state(game, history: Iterable[str] = (), t: float = 1.0, session=None, prior=None) -> State:
    """The state after ``history`` (items ``guess:colours``, replayed strictly by
    :class:`termo.engine.session.Session`); TermoError for a bad item or a history that ends in a win.
    ``prior``: the question's `termo.core.prior.Prior` when the caller has it (else made at ``t``)."""
    from termo.core.prior import Prior
    from termo.engine.session import Session

    items = tuple(history)
    if session is None:
        session = Session(game)
        session.replay(items)
    if session.won:
        raise TermoError("the history ends with a win: no candidates are left to split", "partition.won")
    xp = host().xp
    cand = xp.asarray(session.candidates, dtype=xp.int64)
    return State(game, cand, float(t), Prior.at(game.icf, t, prior).weights, items or tuple(session.history()))


def sweeper_for(state: State):
    """The host entropy sweeper of the state's game and prior (the engine's float convention)."""
    from termo.engine.entropy import Sweeper

    return Sweeper(state.game, state.prior, host())


# --------------------------------------------------------------------------- counts over probes


@dataclass(frozen=True)
class Stats:
    """Group statistics of some probes over one state (host arrays, one entry per probe)."""

    probes: object  # int64 probe indices
    groups: object  # int64
    largest: object  # int64
    sum_sq: object  # int64: Σ n_b²
    weighted: object  # float64: Σ P_b n_b
    wins: object  # bool: the win code's group is not empty
    n: int


def _block_size(n: int, n_bins: int, cells: int) -> int:
    return max(1, cells // max(1, n, n_bins))


def partition_stats(state: State, probes: Sequence[int] | None = None, backend=None, cells: int = CELLS) -> Stats:
    """Group counts of ``probes`` (default: every probe) over the state, vectorised in blocks.

    Counts are float64 histograms of the backend (exact integers) turned into int64 on the host."""
    game = state.game
    hb = host()
    hx = hb.xp
    b = get_backend(backend)
    bx = b.xp
    from termo.engine.matrix import pattern_matrix

    matrix = pattern_matrix(game, backend=b)
    n = state.n
    n_bins = game.n_patterns
    probe_idx = hx.arange(game.n_probes, dtype=hx.int64) if probes is None else hx.asarray(probes, dtype=hx.int64)
    total = int(probe_idx.shape[0])
    everyone = n == game.n_answers  # the full answer set: no column gather needed
    cand = None if everyone else b.asarray(hb.to_numpy(state.candidates), dtype="int64")
    ones = b.asarray(hb.to_numpy(hx.ones(n, dtype=hx.float64)), dtype="float64")
    weights = state.weights
    uniform = n == 0 or bool(hx.all(weights == weights[0]))
    w = None if uniform else b.asarray(hb.to_numpy(weights), dtype="float64")
    out = {k: [] for k in ("groups", "largest", "sum_sq", "weighted", "wins")}
    # a win rule under which one guess wins several answers (Nerdle's commutative answers)
    shared_wins = any(len(group) > 1 for group in game.win_classes)
    win_column = bx.reshape(bx.arange(n_bins) == game.win_code, (1, n_bins)) if shared_wins else None
    step = _block_size(n, n_bins, cells)
    for start in range(0, total, step):
        stop = min(total, start + step)
        # NumPy: a cached layout's rows are read from its file (through its memory map, the
        # whole of it became part of the process: 628 MB of Nerdle Classic's)
        rows = b.take_rows(matrix, hb.to_numpy(probe_idx[start:stop]))
        codes = rows if everyone else bx.take(rows, cand, axis=1)
        table = b.row_histogram(codes, ones, n_bins)
        won = table[:, game.win_code]
        out["groups"].append(bx.sum(bx.astype(table > 0, bx.int64), axis=1))
        out["wins"].append(won > 0)
        if shared_wins:  # every answer the guess wins is solved: a group of one each (module doc)
            table = bx.where(win_column & (table > 1), bx.ones_like(table), table)
        sum_sq = bx.sum(table * table, axis=1)
        if shared_wins:
            sum_sq = sum_sq + bx.where(won > 1, won - 1, bx.zeros_like(won))
        out["largest"].append(bx.max(table, axis=1))
        out["sum_sq"].append(sum_sq)
        if uniform:  # P_b = n_b / N
            out["weighted"].append(sum_sq / n)
        else:
            out["weighted"].append(bx.sum(b.row_histogram(codes, w, n_bins) * table, axis=1))

    def gather(key, dtype):
        parts = [hx.asarray(b.to_numpy(p)) for p in out[key]]
        if not parts:
            return hx.zeros(0, dtype=dtype)
        joined = hx.concat(parts, axis=0)
        if dtype == hx.int64:
            joined = hx.round(joined) if joined.dtype in (hx.float32, hx.float64) else joined
        return hx.astype(joined, dtype)

    return Stats(probe_idx, gather("groups", hx.int64), gather("largest", hx.int64), gather("sum_sq", hx.int64),
                 gather("weighted", hx.float64), gather("wins", hx.bool), n)


# --------------------------------------------------------------------------- one guess


def guess_codes(state: State, text: str):
    """``(guess, codes)``: the validated :class:`termo.engine.session.Guess` for ``text`` and its feedback
    codes over the candidates (host int64). A guess outside the probe list is accepted when the
    game's ``check_guess_text`` accepts it; its codes come from the scalar two-pass rule."""
    from termo.core.feedback import colours, encode
    from termo.engine.matrix import pattern_matrix
    from termo.engine.session import Session

    game = state.game
    hb = host()
    hx = hb.xp
    if ":" in text:  # a round given where the guess goes (the guess forgotten)
        raise TermoError(f"{text.strip()!r} is a round (guess:colours), not a guess: the guess to split by is "
                         "missing (it comes first, before the rounds)", "guess.is_round",
                         {"text": text.strip(), "guess": text.partition(":")[0].strip()})
    guess = Session(game).check_guess(text)
    if guess.probe is not None:
        row = hb.to_numpy(pattern_matrix(game, backend=hb))[guess.probe]
        codes = hx.astype(hx.take(hx.asarray(row), state.candidates), hx.int64)
    else:
        answers = game.answers_norm
        codes = hx.asarray([encode(colours(guess.norm, answers[int(c)])) for c in state.candidates.tolist()],
                           dtype=hx.int64)
    return guess, codes


def codes_entropy(state: State, codes) -> float:
    """H of a code vector over the state (the engine's kernel and float order)."""
    hx = host().xp
    m = int(codes.shape[0])
    matrix_t = hx.reshape(hx.asarray(codes, dtype=hx.int64), (m, 1))
    sub_prior = hx.take(hx.asarray(state.prior, dtype=hx.float64), state.candidates)
    return host_search.probe_entropy(matrix_t, hx.arange(m, dtype=hx.int64), sub_prior, 0, state.game.n_patterns)


def codes_stats(state: State, codes) -> dict:
    """Group statistics of one code vector (host), as plain Python numbers."""
    hx = host().xp
    n_bins = state.game.n_patterns
    row = hx.reshape(hx.asarray(codes, dtype=hx.int64), (1, -1))
    counts = hx.astype(hx.asarray(host().row_histogram(row, hx.ones(state.n), n_bins))[0], hx.int64)
    won = int(counts[state.game.win_code])
    groups = int(hx.sum(counts > 0))
    if won > 1:  # one guess wins several answers (Nerdle's commutative rule): each is solved,
        counts = hx.where(hx.arange(n_bins) == state.game.win_code, 1, counts)  # a group of one
    weights = state.weights
    sum_sq = int(hx.sum(counts * counts)) + max(won - 1, 0)
    if state.n == 0 or bool(hx.all(weights == weights[0])):
        weighted = sum_sq / state.n if state.n else 0.0
    else:
        mass = hx.asarray(host().row_histogram(row, weights, n_bins))[0]
        weighted = float(hx.sum(mass * hx.astype(counts, hx.float64)))
    return {
        "groups": groups,
        "largest": int(hx.max(counts)),
        "sum_sq": sum_sq,
        "weighted": weighted,
        "wins": won > 0,
        "won": won,
    }


def metrics_row(word: str, probe, n: int, groups: int, largest: int, sum_sq: int, weighted: float, bits: float,
                wins: bool) -> dict:
    """The plain-data metrics of one guess (see the module docstring for each key)."""
    return {
        "word": word,
        "probe": None if probe is None else int(probe),
        "groups": int(groups),
        "largest_group": int(largest),
        "expected_remaining": (sum_sq / n) if n else 0.0,
        "expected_remaining_weighted": float(weighted),
        "bits": float(bits) + 0.0,  # + 0.0: one group's entropy is -0.0 in the kernel's float order
        "worst_case_bits_left": math.log2(largest) if largest > 0 else 0.0,
        "can_be_answer": bool(wins),
        "candidates": int(n),
    }


def guess_metrics(state: State, text: str) -> tuple[dict, tuple[str, ...]]:
    """``(metrics, warnings)`` of the guess ``text`` over the state; warnings say when the guess is
    outside the probe list (computed by the scalar rule). TermoError for an invalid guess."""
    guess, codes = guess_codes(state, text)
    s = codes_stats(state, codes)
    # the kernel of Sweeper.entropy_of on the same codes and weights: the same float64 result,
    # without loading the answers-major copy of the matrix
    bits = codes_entropy(state, codes) if state.n > 1 else 0.0
    row = metrics_row(guess.word, guess.probe, state.n, s["groups"], s["largest"], s["sum_sq"], s["weighted"],
                      bits, s["wins"])
    row["in_probe_list"] = guess.probe is not None
    row["t"] = state.t
    row["game"] = state.game.label
    row["wins"] = s["won"]  # the candidates this guess wins against (several under Nerdle's commutative rule)
    row["expected_unsolved"] = (s["sum_sq"] - s["won"]) / state.n if state.n else 0.0  # the won ones left out
    return row, off_list_warnings(state.game, guess)


def off_list_warnings(game, guess) -> tuple[str, ...]:
    """The warning for a guess outside the probe list (none for a listed one)."""
    if guess.probe is not None:
        return ()
    noun = "word" if game.unit == "letters" else "guess"
    from termo.core.messages import Message

    return (Message(f"{guess.word!r} is not in the {noun} list: its groups are computed answer by answer "
                    "(scalar rule; it wins only when written as an answer)", "warning.partition_off_list",
                    word=guess.word, unit=game.unit),)


def groups_of(state: State, codes) -> list[dict]:
    """The non-empty groups of a code vector: ``code``, ``size``, ``weight`` (prior mass) and the
    ``members`` (answer indices), most probable first (weight desc, size desc, code asc)."""
    hx = host().xp
    w = state.weights
    by_code: dict[int, list[int]] = {}
    mass: dict[int, float] = {}
    for c, a in zip(codes.tolist(), state.candidates.tolist()):
        by_code.setdefault(int(c), []).append(int(a))
    table = hx.asarray(host().row_histogram(hx.reshape(codes, (1, -1)), w, state.game.n_patterns))[0]
    for c in by_code:
        mass[c] = float(table[c])
    order = sorted(by_code, key=lambda c: (-mass[c], -len(by_code[c]), c))
    return [{"code": c, "size": len(by_code[c]), "weight": mass[c], "members": by_code[c]} for c in order]


# --------------------------------------------------------------------------- rankings


@dataclass(frozen=True)
class Ranking:
    """Every probe's metrics over one state and the three orders (host arrays)."""

    state: State
    stats: Stats
    bits: object  # float64 per probe
    entropy_order: object  # int64 probe indices, best first

    def order(self, by: str):
        """Probe indices best first under criterion ``by`` (see the module docstring)."""
        xp = host().xp
        check_criterion(by)
        order = self.entropy_order
        if by == "entropy":
            return order
        key = self.stats.largest if by == "minimax" else self.stats.sum_sq
        return order[xp.argsort(xp.take(key, order), stable=True)]

    def row(self, probe: int) -> dict:
        s = self.stats
        p = int(probe)
        return metrics_row(self.state.game.probes[p], p, s.n, int(s.groups[p]), int(s.largest[p]), int(s.sum_sq[p]),
                           float(s.weighted[p]), float(self.bits[p]), bool(s.wins[p]))

    def top(self, by: str, k: int) -> list[dict]:
        """The first ``k`` rows under ``by``, each with its 1-based ``rank``."""
        order = self.order(by)
        rows = []
        for r, p in enumerate(order[: max(0, int(k))].tolist(), start=1):
            rows.append({"rank": r, **self.row(p)})
        return rows

    def rank_of(self, probe: int, by: str) -> int:
        """The 1-based position of ``probe`` under ``by``."""
        xp = host().xp
        order = self.order(by)
        return int(xp.nonzero(order == int(probe))[0][0]) + 1


def check_criterion(by: str) -> str:
    if by not in CRITERIA:
        raise TermoError(f"--by must be one of {', '.join(CRITERIA)}, not {by!r}")
    return by


def ranking(state: State, backend=None, sweeper=None, cells: int = CELLS) -> Ranking:
    """Every probe's metrics over the state and its entropy order (see the module docstring)."""
    from termo.engine.ordering import full_order

    sweeper = sweeper or sweeper_for(state)
    stats = partition_stats(state, None, backend=backend, cells=cells)
    bits = sweeper.entropies(state.candidates)
    order = full_order(bits, state.candidates, sweeper.probe_prior)
    return Ranking(state, stats, bits, order)


def rank_probes(state: State, by: str = "entropy", top: int = 10, backend=None, sweeper=None) -> list[dict]:
    """The first ``top`` probes under criterion ``by`` (rows of :func:`metrics_row` plus ``rank``)."""
    check_criterion(by)
    if top < 1:
        raise TermoError(f"--top must be at least 1, not {top}")
    return ranking(state, backend=backend, sweeper=sweeper).top(by, top)
