"""The exact joint solver's engine for several boards: the compiled search of
``backends/kernels/multi_exact.py`` bound to one game's matrix, weights and objective (the domain,
``termo/engine/multi/exact.py``, reaches the kernels only through this module; docs/modes-solver.md).

Like the single-board engine (:mod:`backends.host_ops.exact`), every backend runs these host kernels
(numba, or the same source as plain Python under ``TERMO_NO_NUMBA=1``) on host NumPy arrays: the
search is a sequential, data-dependent walk, and one implementation gives every backend the
same values. A board left alone is a state of this search too (one memo for all): numba cannot
link a cached recursive kernel of another module into a new compilation, so the single-board
search of ``kernels/exact.py`` is not called from here.
"""

from __future__ import annotations

import numpy as np

from backends.host_ops.exact import SearchStats

OBJECTIVES = {"finish": 0, "score": 1, "win": 2}
DEFAULT_MEMO_SLOTS = 1 << 21  # ~76 MB
V1_MAX = 400  # boards up to this size get their own exact optimum as a bound (larger: a closed form)
PASS_ROWS = 96  # candidate sets whose per-probe pass rows are kept (41 bytes per probe each: 51 MB for Wordle)


class MultiExactEngine(SearchStats):
    """The joint search over ``probes_major`` (probes × answers codes, host uint8) and the same codes
    ``answers_major`` (answers × probes, C-contiguous: a small state's sweep reads its rows) with answer
    weights ``weights`` (the prior; each board renormalises it over its candidates), win classes
    ``classes`` (per answer: answers one probe can win together share a class), the objective
    ``objective`` and at most ``max_boards`` boards and ``max_rounds`` rounds."""

    def __init__(self, probes_major, answers_major, weights, classes, *, win_code: int, n_codes: int, objective: str,
                 max_rounds: int, max_boards: int, exact_rule: bool = True, memo_slots: int = DEFAULT_MEMO_SLOTS,
                 pass_rows: int = PASS_ROWS):
        from backends.kernels import multi_exact as kx

        self.kx = kx
        self.Bm = np.ascontiguousarray(probes_major)
        self.A = np.ascontiguousarray(answers_major)
        if self.A.shape != self.Bm.shape[::-1]:
            raise ValueError(f"the two layouts disagree: {self.Bm.shape} and {self.A.shape[::-1]}")
        n_probes, n_answers = self.Bm.shape
        self.n_probes, self.n_answers = int(n_probes), int(n_answers)
        self.w = np.ascontiguousarray(weights, dtype=np.float64)
        self.classes = np.ascontiguousarray(classes, dtype=np.int64)
        self.objective = OBJECTIVES[objective]
        self.win = int(win_code)
        self.max_rounds = int(max_rounds)
        self.max_boards = int(max_boards)
        self.all_probes = np.arange(n_probes, dtype=np.int64)
        self.cx = (self.Bm, self.w, self.win, self.objective, self.classes, self.all_probes, self.n_probes, V1_MAX,
                   bool(exact_rule), self.A, _position_keys(self.max_boards * self.n_answers + 1))
        slots = int(memo_slots)
        self.stats = np.zeros(kx.N_STATS, dtype=np.int64)
        self.mx = (np.zeros(slots, np.int64), np.zeros(slots, np.int64), np.zeros(slots, np.float64),
                   np.zeros(slots, np.float64), np.zeros(slots, np.int32), self.stats)
        self.lx = _scratch(int(n_codes), self.n_answers, self.n_probes, self.max_rounds + 1, self.max_boards,
                           int(self.classes.max(initial=0)) + 1, int(pass_rows))
        self.stamp = 0

    # --- statistics -------------------------------------------------------------------------
    def counters(self) -> dict:
        st = self.stats
        return {**super().counters(), "full_passes": int(st[self.kx.PASSES]), "probes_exact": int(st[self.kx.EXACTS]),
                "probes_cut_by_bounds": int(st[self.kx.CUT_BOUND]),
                "probes_cut_in_search": int(st[self.kx.CUT_SEARCH]), "cut_cheap": int(st[10]),
                "bound_lite": int(st[11]), "calls": int(st[12]), "v1_calls": int(st[13]),
                "children": int(st[14]), "buckets": int(st[15]), "board_passes": int(st[16])}

    # --- states -----------------------------------------------------------------------------
    def state(self, boards):
        """(members, offsets, boards, disjoint) of a list of candidate arrays (each ascending)."""
        sets = [np.unique(np.asarray(c, dtype=np.int64)) for c in boards]
        sets = [s for s in sets if s.shape[0]]
        if len(sets) > self.max_boards:
            raise ValueError(f"{len(sets)} boards, the engine takes {self.max_boards}")
        off = np.zeros(self.max_boards + 1, dtype=np.int64)
        for b, s in enumerate(sets):
            off[b + 1] = off[b] + s.shape[0]
        M = np.zeros(max(int(off[len(sets)]), 1), dtype=np.int64)
        if sets:
            M[: off[len(sets)]] = np.concatenate(sets)
        return M, off, len(sets), self.is_disjoint(M, off, len(sets))

    def is_disjoint(self, M, off, U) -> bool:
        seen = {}
        for b in range(U):
            for a in M[off[b]:off[b + 1]]:
                c = int(self.classes[int(a)])
                if seen.setdefault(c, b) != b:
                    return False
        return True

    # --- search -----------------------------------------------------------------------------
    def solve(self, boards, rounds: int, limit: float = np.inf, budget: int | None = None):
        """``(value, exact, guess)`` of a state (see ``kernels.multi_exact.solve``); ``budget``:
        more expanded states at most (None: unlimited)."""
        self._check_rounds(rounds)
        M, off, U, disjoint = self.state(boards)
        self._budget(budget)
        v, ex, g = self.kx.solve(self.cx, self.mx, self.lx, M, off, U, int(rounds), disjoint,
                                 float(limit), -1, self.kx.STATE)
        return float(v), bool(ex), int(g)

    def probe_cost(self, boards, rounds: int, probe: int, limit: float = np.inf, budget: int | None = None):
        """``(cost, exact)`` of playing ``probe`` at a state: exact below ``limit``, else a bound."""
        self._check_rounds(rounds)
        M, off, U, disjoint = self.state(boards)
        if U == 0 or rounds <= 0:
            raise ValueError("no probe is played at a finished state")
        self._budget(budget)
        v, ex, _ = self.kx.solve(self.cx, self.mx, self.lx, M, off, U, int(rounds), disjoint,
                                 float(limit), int(probe), self.kx.PROBE)
        return float(v), bool(ex)

    def policy_value(self, boards, rounds: int, probe: int | None = None):
        """The exact value of the search's greedy strategy from a state (``probe``: played first),
        an upper bound of its optimum, with the strategy's first guess: ``(value, guess)``."""
        self._check_rounds(rounds)
        M, off, U, disjoint = self.state(boards)
        self._budget(None)
        kx = self.kx
        what, arg = (kx.POLICY, -1) if probe is None else (kx.PROBE_POLICY, int(probe))
        if U == 0 or rounds <= 0:
            return self.solve(boards, rounds)[0], -1
        v, _, g = kx.solve(self.cx, self.mx, self.lx, M, off, U, int(rounds), disjoint, np.inf, arg, what)
        return float(v), int(g)

    def probe_bounds(self, boards, rounds: int):
        """Per probe (every probe of the game): ``(bound, split, class, useful)``, the
        search's one-pass bounds at the state (``inf`` where a probe changes nothing)."""
        self._check_rounds(rounds)
        M, off, U, disjoint = self.state(boards)
        r = int(rounds)
        self.kx.state_pass(self.cx, self.lx, M, off, U, r, disjoint, self.all_probes, self.n_probes, self.stats)
        lx, kx = self.lx, self.kx
        return lx[kx.LBS][r].copy(), lx[kx.TIE][r].copy(), lx[kx.HSH][r].copy(), lx[kx.VALID][r].copy()

    def refined_bounds(self, boards, rounds: int, probes, limit: float = np.inf):
        """Per probe of ``probes``: (a bound of its cost one level down, no state of several boards
        searched; whether that is its cost), each stopped at ``limit`` (``kernels.multi_exact.solve``,
        REFINE)."""
        self._check_rounds(rounds)
        M, off, U, disjoint = self.state(boards)
        probes = np.ascontiguousarray(probes, dtype=np.int64)
        n, r, kx = probes.shape[0], int(rounds), self.kx
        if n == 0:
            return np.empty(0, np.float64), np.zeros(0, np.bool_)
        self._budget(None)  # the buckets' own optima are searched (no state of several boards is)
        self.lx[kx.ORDER][r][:n] = probes
        kx.solve(self.cx, self.mx, self.lx, M, off, U, r, disjoint, float(limit), n, kx.REFINE)
        return self.lx[kx.LBS][r][:n].copy(), self.lx[kx.VALID][r][:n].copy()

    def reset(self) -> None:
        """Forget every memoised value (the kernels' results then depend on their inputs alone)."""
        for a in self.mx[:5]:
            a[...] = 0
        self.stats[...] = 0

    def forced(self, boards) -> int:
        """The answer a singleton board forces (-1: none), by the search's rule."""
        M, off, U, disjoint = self.state(boards)
        return int(self.kx.forced_answer(M, off, U, self.objective, disjoint))

    def state_bound(self, boards, rounds: int) -> float:
        """The state's cheap lower bound (closed forms where they apply)."""
        M, off, U, disjoint = self.state(boards)
        self._budget(None)
        v, _, _ = self.kx.solve(self.cx, self.mx, self.lx, M, off, U, int(rounds), disjoint, np.inf, -1,
                                self.kx.BOUND)
        return float(v)


def _position_keys(n: int):
    """Random odd 64-bit constants, one per member position (the probe-class hash; fixed seed)."""
    rng = np.random.default_rng(20240535)
    return rng.integers(0, np.iinfo(np.int64).max, size=n, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)


def _scratch(n_codes: int, n_answers: int, n_probes: int, R: int, UM: int, n_classes: int, rows: int):
    """The search's scratch arrays (``kernels.multi_exact``: CNT ... BK2, then the pass rows)."""
    NM = UM * n_answers + 1
    return (np.zeros(n_codes, np.int64), np.zeros(n_codes, np.float64), np.zeros(n_codes, np.float64),
            np.zeros(n_codes, np.int64), np.zeros(max(n_codes, NM), np.int64),
            np.zeros(n_classes, np.int64), np.zeros(UM, np.int64), np.zeros(UM, np.int64),
            np.zeros(2 * UM, np.int64), np.zeros(UM, np.float64), np.zeros(UM, np.float64),
            np.zeros(UM, np.float64), np.zeros(2 * UM + 2, np.float64),
            np.zeros((R, n_probes), np.float64), np.zeros((R, n_probes), np.float64),
            np.zeros((R, n_probes), np.float64), np.zeros((R, n_probes), np.int64),
            np.zeros((R, n_probes), np.bool_), np.zeros((R, n_probes), np.int64),
            np.zeros((R, NM), np.int64), np.zeros((R, NM + UM + 1), np.int64), np.zeros((R, NM + UM), np.int64),
            np.zeros((R, NM + UM), np.float64), np.zeros((R, UM + 1), np.int64),
            np.zeros((R, NM), np.int64), np.zeros((R, UM + 1), np.int64), np.zeros((R, UM), np.float64),
            np.zeros((R, NM), np.int64), np.zeros((R, n_probes), np.bool_),
            np.zeros((R, NM + UM), np.float64), np.zeros((R, NM + UM), np.float64), np.zeros((R, NM + UM), np.bool_),
            np.zeros((R, NM + UM), np.int64), np.zeros((R, NM + UM), np.int64),
            *_pass_rows(max(int(rows), 0), UM, n_probes))


def _pass_rows(rows: int, UM: int, n_probes: int):
    """The cached pass rows (``kernels.multi_exact``: CTAG1 ... SLOTS): ``rows`` cached sets, ``UM``
    scratch rows; none at all when ``rows`` is 0 (every pass computed afresh)."""
    n = rows + UM if rows else 0
    P = n_probes if rows else 1
    return (np.full(n, -1, np.int64), np.zeros(n, np.int64), np.zeros((n, P), np.float64),
            np.zeros((n, P), np.float64), np.zeros((n, P), np.float64), np.zeros((n, P), np.float64),
            np.zeros((n, P), np.int64), np.zeros((n, P), np.bool_), np.zeros(UM, np.int64))
