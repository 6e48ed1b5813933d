"""The exact (branch-and-bound) solver's engine on the host, the same on every backend.

The domain (``termo/exact``) reaches the compiled search only through :func:`exact_engine`, which
returns an :class:`ExactEngine`: the memo table, the per-level scratch buffers and the kernels of
``backends/kernels/exact.py`` bound to one game's matrix and weights.

Every backend runs the *same* host kernels (numba where installed, plain Python otherwise) on a
host copy of its matrix: the search is a sequential, data-dependent depth-first walk that an
array-API namespace cannot express, and one implementation makes every backend's values, bounds
and trees identical by construction (the tests compare them anyway). This is the documented
host fallback for JAX, array-api-strict and CuPy; it is a function of this module, not a method
of a :class:`backends.base.Backend`, which carries only what differs by array library.
"""

from __future__ import annotations

import numpy as np

DEFAULT_MEMO_SLOTS = 1 << 21  # ~76 MB of memo table


class SearchStats:
    """What an exact engine says of its search: its compiled kernels ``kx`` count in ``stats``, the
    single-board search's slots (``backends.kernels.exact``: NODES ... GUESSES), which the
    several-board engine (:mod:`backends.host_ops.multi_exact`) shares."""

    @property
    def nodes(self) -> int:
        """States expanded so far (one all-probe bound pass each)."""
        return int(self.stats[self.kx.NODES])

    @property
    def aborted(self) -> bool:
        """Did the last search run out of its node budget?"""
        return bool(self.stats[self.kx.ABORTED])

    def counters(self) -> dict:
        kx = self.kx
        return {"nodes": int(self.stats[kx.NODES]), "memo_hits": int(self.stats[kx.HITS]),
                "memo_stores": int(self.stats[kx.STORES]), "guesses_tried": int(self.stats[kx.GUESSES])}

    def _budget(self, budget) -> None:
        """The next search may expand ``budget`` more states (None: unlimited)."""
        kx = self.kx
        self.stats[kx.ABORTED] = 0
        self.stats[kx.BUDGET] = np.iinfo(np.int64).max if budget is None else self.stats[kx.NODES] + int(budget)

    def _check_rounds(self, r: int) -> None:
        if int(r) > self.max_rounds:
            raise ValueError(f"rounds {r} above the engine's {self.max_rounds}")


class ExactEngine(SearchStats):
    """The exact search over one pattern matrix in its answers-major layout (``answers_major``:
    answers × probes codes, C-contiguous) and, when given, its probes-major layout
    (``probes_major``: probes × answers, read for states of more than ``BIG_STATE`` answers),
    answer weights ``weights`` and class weights ``class_mass`` (see ``backends.kernels.exact``).
    Host NumPy throughout."""

    def __init__(self, answers_major, weights, class_mass, loss: float, win_code: int, n_codes: int,
                 max_rounds: int, exact_rule: bool = True, symbols=None, symbol_counts=None,
                 hard: bool = False, memo_slots: int = DEFAULT_MEMO_SLOTS, probes_major=None):
        from backends.kernels import exact as kx

        self.kx = kx
        self.A = np.ascontiguousarray(answers_major)
        n_answers, n_probes = self.A.shape
        # B: the same codes indexed [answer, probe], laid out probes-major (the transpose's view)
        self.B = self.A if probes_major is None else np.ascontiguousarray(probes_major).T
        if self.B.shape != self.A.shape:
            raise ValueError(f"the two layouts disagree: {self.A.shape} and {self.B.shape[::-1]}")
        self.n_probes = int(n_probes)
        self.n_answers = int(n_answers)
        self.w = np.ascontiguousarray(weights, dtype=np.float64)
        self.cm = np.ascontiguousarray(class_mass, dtype=np.float64)
        self.loss = float(loss)
        self.win = int(win_code)
        self.exact_rule = bool(exact_rule)
        # weights all 1: the bound pass needs only counts (1: exact rule; 2: win classes, their sizes)
        ones = bool(np.all(self.w == 1.0)) and bool(np.all(self.cm == np.round(self.cm)))
        self.unit = (1 if self.exact_rule else 2) if ones else 0
        self.hard = bool(hard)
        R = int(max_rounds) + 1
        self.max_rounds = int(max_rounds)
        if symbols is None:
            symbols = np.zeros((n_probes, 1), dtype=np.int16)
            symbol_counts = np.zeros((n_probes, 1), dtype=np.uint8)
        self.symc = np.ascontiguousarray(symbols, dtype=np.int16)
        self.symn = np.ascontiguousarray(symbol_counts, dtype=np.uint8)
        self.length = int(self.symc.shape[1])
        self.marks = np.zeros(max(1, self.symn.shape[1]), dtype=np.int64)
        slots = int(memo_slots)
        # zeros: a free slot (kernels.exact.set_hash); the pages are only touched as entries land
        self.mk1 = np.zeros(slots, dtype=np.int64)
        self.mk2 = np.zeros(slots, dtype=np.int64)
        self.mlb = np.zeros(slots, dtype=np.float64)
        self.mub = np.zeros(slots, dtype=np.float64)
        self.mg = np.zeros(slots, dtype=np.int32)
        self.stats = np.zeros(kx.N_STATS, dtype=np.int64)
        self.cnt = np.zeros(n_codes, dtype=np.int64)
        self.wsum = np.zeros(n_codes, dtype=np.float64)
        self.cmx = np.zeros(n_codes, dtype=np.float64)
        self.seen = np.zeros(n_codes, dtype=np.int64)
        self.lv_lbs = np.zeros((R, n_probes), dtype=np.float64)
        self.lv_sq = np.zeros((R, n_probes), dtype=np.float64)
        self.lv_valid = np.zeros((R, n_probes), dtype=np.bool_)
        self.lv_order = np.zeros((R, n_probes), dtype=np.int64)
        self.lv_members = np.zeros((R, n_answers), dtype=np.int64)
        self.lv_codes = np.zeros((R, n_answers + 1), dtype=np.int64)
        self.lv_start = np.zeros((R, n_answers + 2), dtype=np.int64)
        self.lv_vals = np.zeros((R, n_answers + 1), dtype=np.float64)
        self.lv_allowed = np.zeros((R, n_probes), dtype=np.int64)
        self.lv_need = np.zeros((R, n_answers + 1), dtype=np.int64)
        self.all_probes = np.arange(n_probes, dtype=np.int64)

    # --- allowed sets ---------------------------------------------------------------------
    def allowed_after(self, parent, guess: int, code: int):
        """Hard mode: the probes of ``parent`` still legal after ``guess`` scored ``code``."""
        parent = np.ascontiguousarray(parent, dtype=np.int64)
        out = np.empty(parent.shape[0], dtype=np.int64)
        m = self.kx.filter_allowed(self.symc, self.symn, self.marks, int(guess), int(code), self.length,
                                   parent, parent.shape[0], out)
        return out[:m].copy()

    def allowed_hash(self, allowed) -> int:
        """The memo salt of an allowed list (0 for the whole probe space)."""
        allowed = np.ascontiguousarray(allowed, dtype=np.int64)
        if not self.hard or allowed.shape[0] == self.n_probes:
            return 0
        return int(self.kx.set_hash(allowed, allowed.shape[0], 7)[0] % 1000000007)

    # --- search ---------------------------------------------------------------------------
    def solve(self, members, rounds: int, allowed=None, limit: float = np.inf, budget: int | None = None):
        """``(value, exact, guess)`` of a state (see ``kernels.exact.solve``); ``budget`` more
        expanded states at most (None: unlimited). ``aborted`` tells whether it ran out."""
        kx = self.kx
        S, allowed = self._state(members, allowed)
        self._check_rounds(rounds)
        self._budget(budget)
        if allowed.shape[0] == self.n_probes:
            work = allowed
        else:  # the root's list lives in the top level's buffer (the kernel's layout)
            work = self.lv_allowed[int(rounds)]
            work[: allowed.shape[0]] = allowed
        v, ex, g = kx.solve(self.A, self.B, self.w, self.cm, self.symc, self.symn, self.marks, self.length,
                            self.hard, self.exact_rule, self.unit, self.loss, self.win,
                            self.mk1, self.mk2, self.mlb, self.mub, self.mg, self.stats,
                            self.cnt, self.wsum, self.cmx, self.seen,
                            self.lv_lbs, self.lv_sq, self.lv_valid, self.lv_order, self.lv_members,
                            self.lv_codes, self.lv_start, self.lv_vals, self.lv_allowed,
                            self.lv_need, S, int(rounds), work, int(allowed.shape[0]), self.allowed_hash(allowed),
                            float(limit))
        return float(v), bool(ex), int(g)

    def _state(self, members, allowed):
        """A state's members and allowed probes as int64 arrays (``None``: every probe)."""
        S = np.ascontiguousarray(members, dtype=np.int64)
        return S, self.all_probes if allowed is None else np.ascontiguousarray(allowed, dtype=np.int64)

    def _sweep_inputs(self, members, allowed):
        """:meth:`_state` and the bound sweep's per-probe outputs (bounds, squared group weights,
        splits)."""
        S, allowed = self._state(members, allowed)
        n = max(1, allowed.shape[0])
        return S, allowed, np.empty(n, dtype=np.float64), np.empty(n, dtype=np.float64), np.empty(n, dtype=np.bool_)

    def greedy_guess(self, members, rounds: int, allowed=None) -> int:
        """The search's first choice at a state it did not finish (least bound; closed forms)."""
        S, allowed, lbs, sq, valid = self._sweep_inputs(members, allowed)
        n_allowed = allowed.shape[0]
        return int(self.kx.greedy_guess(self.A, self.B, self.w, self.cm, S, S.shape[0], int(rounds), allowed, n_allowed,
                                        self.loss, self.win, self.exact_rule, self.cnt, self.wsum, self.cmx,
                                        self.seen, lbs, sq, valid))

    def bound(self, members, rounds: int, allowed=None) -> float:
        """The state's one-pass lower bound (least guess bound), without searching."""
        v, ex, _ = self.solve(members, rounds, allowed, limit=np.inf, budget=1)
        return v

    def guess_bounds(self, members, rounds: int, allowed=None):
        """Per allowed probe, the lower bound of playing it first at this state (``inf`` for a
        probe that does not split the state): the search's own one-pass bounds."""
        return self.first_pass(members, rounds, allowed)[0]

    def guess_splits(self, members, rounds: int, allowed=None):
        """Per allowed probe, ``Σ_b W(S_b)²`` over its non-winning groups at this state (``inf``
        for a probe that does not split it): the search's tie-break, the finer split first."""
        return self.first_pass(members, rounds, allowed)[1]

    def first_pass(self, members, rounds: int, allowed=None):
        """(bounds, splits) of every allowed probe at a state, ``inf`` where it does not split."""
        kx = self.kx
        S, allowed, lbs, sq, valid = self._sweep_inputs(members, allowed)
        m = allowed.shape[0]
        kx.sweep_state(self.A, self.B, self.w, self.cm, S, S.shape[0], allowed, m, int(rounds) - 1, self.loss, self.win,
                       self.unit, self.cnt, self.wsum, self.cmx, self.seen, lbs, sq, valid)
        W = 0.0
        for a in S:
            W += float(self.w[int(a)])
        bounds = W + lbs[:m]
        bounds[~valid[:m]] = np.inf
        splits = sq[:m].copy()
        splits[~valid[:m]] = np.inf
        return bounds, splits

    def deep_guess_bounds(self, members, rounds: int, guesses, limit: float = np.inf, allowed=None):
        """Per probe of ``guesses``, a bound of playing it first one level deeper than
        :meth:`guess_bounds` (each group's own least guess bound; see
        ``kernels.exact.first_guess_bounds``); a bound that reaches ``limit`` may stop there."""
        kx = self.kx
        S, allowed = self._state(members, allowed)
        guesses = np.ascontiguousarray(guesses, dtype=np.int64)
        n = S.shape[0]
        P = max(1, allowed.shape[0])
        out = np.empty(max(1, guesses.shape[0]), dtype=np.float64)
        kx.first_guess_bounds(self.A, self.B, self.w, self.cm, self.symc, self.symn, self.marks, self.length, self.hard,
                              S, n, int(rounds), guesses, guesses.shape[0], allowed, allowed.shape[0], self.loss,
                              self.win, self.exact_rule, self.unit, float(limit), self.cnt, self.wsum, self.cmx,
                              self.seen, np.empty(n, np.int64), np.empty(n + 1, np.int64), np.empty(n + 2, np.int64),
                              np.empty(n + 1, np.float64), np.empty(P, np.int64), np.empty(P, np.float64),
                              np.empty(P, np.float64), np.empty(P, np.bool_), out)
        return out[: guesses.shape[0]]

    def partition(self, members, guess: int):
        """``[(code, members), ...]`` of ``members`` split by ``guess``, codes ascending."""
        S = np.ascontiguousarray(members, dtype=np.int64)
        n = S.shape[0]
        out = np.empty(n, dtype=np.int64)
        codes = np.empty(n + 1, dtype=np.int64)
        start = np.empty(n + 2, dtype=np.int64)
        nb = self.kx.partition(self.A, int(guess), S, n, self.win, self.cnt, self.seen, out, codes, start)
        return [(int(codes[i]), out[start[i]:start[i + 1]].copy()) for i in range(nb)]


def exact_engine(answers_major, weights, class_mass, *, loss: float, win_code: int, n_codes: int,
                 max_rounds: int, exact_rule: bool = True, symbols=None, symbol_counts=None,
                 hard: bool = False, memo_slots: int = DEFAULT_MEMO_SLOTS, probes_major=None) -> ExactEngine:
    """An :class:`ExactEngine` over the game's matrix in its answers-major layout (answers ×
    probes) and, optionally, its probes-major one: host arrays (a backend's ``to_numpy`` of what
    lives on a device)."""
    host = np.asarray(answers_major)
    rows = None if probes_major is None else np.asarray(probes_major)
    return ExactEngine(host, weights, class_mass, loss=loss, win_code=win_code, n_codes=n_codes,
                       max_rounds=max_rounds, exact_rule=exact_rule, symbols=symbols,
                       symbol_counts=symbol_counts, hard=hard, memo_slots=memo_slots, probes_major=rows)
