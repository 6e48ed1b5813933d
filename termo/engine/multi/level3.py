"""Level 3 for several boards: the best expected objective found by rolling level 2 out over the
boards' joint answer tuples (docs/modes-solver.md).

A decision, given the unsolved boards' candidate sets S_1..S_U and r turns left (this one
included):

1. **Exact**: when the joint product Π|S_b| is at most ``exact_product`` the state is solved by
   the exact expectimax (`termo.engine.multi.exact.MultiExact`: every probe class, every joint
   outcome, the objective's own costs, the answers weighted as the rollouts weigh them), its values
   memoised per state.
2. **Rollout**: otherwise every guess g of a beam (level 2's ``beam`` best, level 2's own choice,
   and every candidate of the boards with at most ``small`` candidates) is valued by playing g, then *level 2* (the base
   policy: forced moves, the late rule and the largest joint entropy, over level 2's ``top`` best
   probes of this state and the candidates of each later state) until every board is solved or
   the turns run out, on every joint answer tuple of the product when there are at most
   ``enumerate_max`` of them (each with its probability: the exact value of "g, then level 2" in
   the solvers' model), else on ``samples`` tuples drawn from the boards' candidates (the same
   tuples for every g; the draw is seeded by the state, so a question always gets the same
   answer). The guess of the lowest mean cost is played; ties go to level 2's order. This is a
   rollout of level 2: level 2's own choice is in the beam, so with every tuple rolled out each
   decision is, in the model, at least as good as playing level 2 from here.

``decide`` reports for every choice the value it was ranked by, with what was already paid
(`Objective.base`): exact values in exact states, rollout values elsewhere (estimates when the
tuples were sampled). The rollouts run in the compiled kernel
``backends.kernels.boards.rollout_costs`` (both cores, one beam guess each; called through
``backends.host_ops.boards``).
"""

from __future__ import annotations

import hashlib
import math
import sys

import numpy as np

from termo.core.errors import TermoError
from termo.core.decision import Decision
from termo.core.messages import Message
from termo.engine.multi.level2 import LATE_SLACK, OPENERS, MultiSolver, _host, forced_reason
from termo.engine.multi.exact import EXACT_PRODUCT, MultiExact, joint_product

BEAM = 24  # level 2's best guesses rolled out at the root
SMALL = 12  # and every candidate of the boards with at most this many candidates
TOP = 48  # the base policy's pool: level 2's best probes of the root state (with each state's candidates)
ENUMERATE = 4096  # joint answer tuples up to which every tuple is rolled out (exact for the model)
SAMPLES = 512  # else this many tuples, drawn from the boards' candidates
SCREEN = 128  # sampled: every beam guess is screened on the first this many tuples,
KEEP = 8  # and this many of them, the best, are rolled out on all of them
# The temperature of the prior the rollouts draw their tuples from (None: the solver's own prior); ∞: every
# candidate alike. Termo's prior at T = 1 puts 0.07 % of its mass on the lower half of its 6,046 answers, so
# rollouts by it never met those answers and level 3 played lines that lose when one is drawn: Quarteto, the
# battery's first 50 tuples (seed 0, answers drawn uniformly), 47 won and mean finish 7.98 by the prior against
# 50 and 7.58 with uniform tuples (level 2: 49, 7.74). Wordle's modes have a uniform prior: no change there.
# The exact states weigh the answers by the same prior: by Termo's they gambled the last turns on the likely
# word and lost 20 of 1,000 Quarteto games (seed 0); by the rollouts' they lose 2 (docs/modes-batteries.md).
ROLLOUT_T: float | None = math.inf
ESTIMATE_BEAM = 40  # the one-turn estimate's beam (`estimates`, for termo review)
EST_PER_BIT = 0.2  # the estimate's turns that solve nothing per bit left (Wordle: 2.4 for 11.2 bits)
EXACT_SMALL = 16  # the joint product up to which a decision is exact (`MultiExact`)
EXACT_MEMO_BYTES = 8 * 2**20  # the exact solver's memo is emptied past this many bytes (bounded memory)
NODE_LIMIT = 2_000_000  # rollout nodes per beam guess (a bigger rollout is refused: level 2 plays)


class MultiSearch(MultiSolver):
    """Level-3 decisions for one mode (the interface of `termo.engine.multi.level2.MultiSolver`)."""

    level = 3
    board_progress = False  # progress counts the states of `choose_many`

    def __init__(self, mode, objective="finish", backend=None, beam: int = BEAM, small: int = SMALL, top: int = TOP,
                 enumerate_max: int = ENUMERATE, samples: int = SAMPLES, exact_product: int = EXACT_SMALL,
                 rollout_t: float | None = ROLLOUT_T, search_opener: bool = False, opener="table", progress=None,
                 **options):
        table = isinstance(opener, str) and opener == "table"  # the table's first guess (level 3's, else 2's)
        opener = (None if search_opener else OPENERS[3].get(mode.label, OPENERS[2].get(mode.label))) if table \
            else opener
        super().__init__(mode, objective=objective, backend=backend, progress=progress, opener=opener, **options)
        self.table_opener = table and opener is not None
        if int(beam) < 1:
            raise TermoError(f"beam must be at least 1, not {beam!r}")
        self.beam, self.small, self.top = int(beam), int(small), max(int(top), int(beam))
        self.enumerate_max, self.samples = int(enumerate_max), max(int(samples), 0)
        self.exact_product = min(int(exact_product), EXACT_PRODUCT)
        self.search_opener = bool(search_opener)
        self.tuple_prior = self.stats.prior  # the answers' distribution the rollouts and exact states average over
        self.rollout_t = rollout_t  # None: the solver's prior
        self.exact_stats = self.stats  # the exact states' statistics, by the same distribution as the rollouts
        if rollout_t is not None:
            from termo.core.prior import prior_weights
            from termo.engine.multi.stats import BoardStats

            self.tuple_prior = np.asarray(prior_weights(self.game.icf, float(rollout_t)), dtype=np.float64)
            if not _proportional(self.tuple_prior, self.stats.prior):  # (Wordle's uniform prior: the same)
                self.exact_stats = BoardStats(self.game, self.tuple_prior, self.sweeper)
        self.exact = MultiExact(self.exact_stats, self.objective, probes=self.exact_pool)
        turn0, loss0 = self.objective.turn_cost(0), self.objective.loss_cost(0)
        self.costs = np.array([turn0, self.objective.turn_cost(1) - turn0, loss0,
                               self.objective.loss_cost(1) - loss0], dtype=np.float64)

    def memo_bytes(self) -> int:
        """The per-board memos' bytes and the exact solver's memo (`exact_memo_bytes`)."""
        own = self.exact_stats.memo_bytes() if self.exact_stats is not self.stats else 0
        return super().memo_bytes() + own + exact_memo_bytes(self.exact.memo)

    # ----------------------------------------------------------------- the beam
    def beam_probes(self, boards, r: int, ranked=None) -> np.ndarray:
        """The beam: level 2's best ``beam`` probes, level 2's own choice (so the rollout weighs
        it) and the candidates of the small boards, in level 2's order."""
        top = np.asarray(ranked if ranked is not None else self.ranked(boards, self.beam)[0], dtype=np.int64)
        own = MultiSolver.choose(self, boards, self.mode.max_turns - int(r) + 1)
        extra = [np.asarray(c, dtype=np.int64) for c in boards if int(len(c)) <= self.small]
        probes = np.unique(np.concatenate([top[: self.beam], np.asarray([own], dtype=np.int64)] + extra))
        order, _, _ = self.ranked(boards, probes.shape[0], pool=probes)
        return np.asarray(order, dtype=np.int64)

    def exact_pool(self, boards):
        """The probes the search's exact states try: the beam and every candidate."""
        top, _, _ = self.ranked(boards, self.beam)
        return np.unique(np.concatenate([np.asarray(top, dtype=np.int64)] + [np.asarray(c) for c in boards]))

    # ----------------------------------------------------------------- rollouts
    def rollout(self, boards, r: int, firsts=None):
        """([(probe, mean cost)] best first, tuples rolled out, exact?) for ``boards`` with ``r``
        turns left (of the beam, or of the probes ``firsts``); None when a rollout passes
        `NODE_LIMIT` nodes."""
        stats = self.stats
        if self.samples == 0 and joint_product(boards) > self.enumerate_max:
            return None  # no sampling: level 2 plays the states too large to enumerate
        ranked, _, _ = self.ranked(boards, self.top)
        ranked = np.asarray(ranked, dtype=np.int64)
        beam = self.beam_probes(boards, r, ranked) if firsts is None else np.asarray(firsts, dtype=np.int64)
        answers = np.unique(np.concatenate(boards))  # the local answers, ascending
        pool = np.concatenate([ranked, np.setdiff1d(answers, ranked)])
        where = {int(p): i for i, p in enumerate(pool.tolist())}
        extra = [int(g) for g in beam.tolist() if int(g) not in where]
        if extra:  # (a beam guess is always among them: it is a top probe or a candidate)
            pool = np.concatenate([pool, np.asarray(extra, dtype=np.int64)])
            where.update({g: len(where) + i for i, g in enumerate(extra)})
        codes = np.ascontiguousarray(stats.matrix_t[answers][:, pool])
        local = [np.searchsorted(answers, np.asarray(c, dtype=np.int64)) for c in boards]
        answer_probe = np.asarray([where[int(a)] for a in answers.tolist()], dtype=np.int64)
        probe_answer = np.full(pool.shape[0], -1, dtype=np.int64)
        probe_answer[answer_probe] = np.arange(answers.shape[0])
        sizes = np.asarray([len(c) for c in boards], dtype=np.int64)
        blo = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        tuples, weights, exact = self.tuples(boards, local, r)
        firsts = np.asarray([where[int(g)] for g in beam.tolist()], dtype=np.int64)
        tables = (codes, stats.prior[answers], np.concatenate(local).astype(np.int64), blo, blo + sizes)
        tail = (int(r), answer_probe, probe_answer, pool, int(ranked.shape[0]))
        out = self.screened_costs(tables, tail, tuples, weights, firsts, exact)
        if out is None:
            return None
        cost, screened_out = out
        order = np.lexsort((np.arange(beam.shape[0]), np.round(cost, 12), screened_out))
        return [(int(beam[i]), float(cost[i])) for i in order.tolist()], int(tuples.shape[0]), exact

    def screened_costs(self, tables, tail, tuples, weights, firsts, exact):
        """(each first guess's mean cost over ``tuples``, screened out?), None past `NODE_LIMIT`
        nodes. Sampled tuples are drawn independently, so a beam larger than `KEEP` is screened
        on the first `SCREEN` of them and only the `KEEP` best are rolled out on the rest: their
        cost is the mean over all the tuples; the others keep their screening mean and rank after
        them."""
        from backends.host_ops.boards import rollout_costs

        stats = self.stats

        def run(rows, picks):
            cost, nodes = rollout_costs(*tables, tuples[rows], weights[rows], tail[0], picks, *tail[1:], LATE_SLACK,
                                        stats.win_code, self.costs, stats.n_patterns, NODE_LIMIT)
            return None if int(np.max(nodes)) > NODE_LIMIT else cost

        out = np.zeros(firsts.shape[0], dtype=np.bool_)
        if exact or firsts.shape[0] <= KEEP or tuples.shape[0] <= 2 * SCREEN:
            cost = run(slice(0, tuples.shape[0]), firsts)
            return None if cost is None else (cost, out)
        cost = run(slice(0, SCREEN), firsts)
        if cost is None:
            return None
        kept = np.lexsort((np.arange(firsts.shape[0]), np.round(cost, 12)))[:KEEP]
        rest = run(slice(SCREEN, tuples.shape[0]), firsts[kept])
        if rest is None:
            return None
        head, more = float(weights[:SCREEN].sum()), float(weights[SCREEN:].sum())
        cost[kept] = (cost[kept] * head + rest * more) / (head + more)
        out[:] = True
        out[kept] = False
        return cost, out

    def tuples(self, boards, local, r: int):
        """(tuples × boards of local answers, weights, exact?): every joint answer tuple with its
        probability, or `samples` tuples drawn by the boards' weights (weight 1 each)."""
        weights = [_renormalised(self.tuple_prior, c) for c in boards]
        if joint_product(boards) <= self.enumerate_max:
            grids = np.meshgrid(*[np.arange(len(c)) for c in boards], indexing="ij")
            picks = [g.ravel() for g in grids]
            w = np.ones(picks[0].shape[0], dtype=np.float64)
            for b, pick in enumerate(picks):
                w = w * weights[b][pick]
            return np.stack([local[b][p] for b, p in enumerate(picks)], axis=1).astype(np.int64), w, True
        rng = np.random.default_rng(self.seed(boards, r))
        cols = [local[b][rng.choice(len(c), size=self.samples, p=weights[b])] for b, c in enumerate(boards)]
        return np.stack(cols, axis=1).astype(np.int64), np.ones(self.samples, dtype=np.float64), False

    @staticmethod
    def seed(boards, r: int) -> int:
        """The sample's seed: a digest of the state (its boards' sets, in order, and the turns left)."""
        digest = hashlib.blake2b(digest_size=8)
        digest.update(int(r).to_bytes(4, "little"))
        for c in boards:
            digest.update(np.asarray(c, dtype=np.int64).tobytes() + b"|")
        return int.from_bytes(digest.digest(), "little")

    # ----------------------------------------------------------------- decisions
    def rounds(self, turn: int) -> int:
        return max(self.mode.max_turns - int(turn) + 1, 1)

    def is_exact(self, boards) -> bool:
        return joint_product(boards) <= self.exact_product

    def ranking(self, boards, r: int):
        """(kind, [(probe, cost still to pay)] best first, tuples): ``kind`` is "exact", "rollout",
        "sampled" or "level2" (no value: level 2's order)."""
        if self.is_exact(boards):
            value, best, costs = self.exact.solve(boards, r)
            if exact_memo_bytes(self.exact.memo) > EXACT_MEMO_BYTES:
                self.exact.memo.clear()
            return "exact", list(costs), joint_product(boards)
        turn = self.mode.max_turns - r + 1
        if self.opening(boards, turn) and not self.search_opener:
            first = MultiSolver.choose(self, boards, turn)
            top, _, _ = self.ranked(boards, self.alternatives + 1)
            return "opener", [(first, None)] + [(int(g), None) for g in np.asarray(top).tolist() if g != first], 0
        out = self.rollout(boards, r)
        if out is None:
            top, _, _ = self.ranked(boards, self.alternatives + 1, self.late_pool(boards, self.mode.max_turns - r + 1))
            return "level2", [(int(g), None) for g in np.asarray(top).tolist()], 0
        picks, n, exact = out
        return ("rollout" if exact else "sampled"), picks, n

    def choose(self, boards, turn: int = 0) -> int:
        """The probe level 3 plays on ``boards`` (candidate arrays of the unsolved boards) at
        1-based ``turn`` (turn 0: as many turns left as the mode has): a forced move first (a
        board with one candidate left: level 2's rule), else the best of `ranking`."""
        boards = [np.asarray(_host().to_numpy(c), dtype=np.int64) for c in boards]
        forced = self.forced(boards)
        if forced is not None:
            return forced
        return int(self.ranking(boards, self.rounds(turn if turn else 1))[1][0][0])

    def opener_reason(self) -> Message:
        if self.opener is None:
            return Message("level 2's first guess (the first turn is not searched)", "reason.boards_first_level2")
        return super().opener_reason()

    def ranking_reason(self, kind: str, n: int) -> Message:
        """Why the ranking of ``kind`` (`ranking`) over ``n`` joint answer tuples orders the guesses."""
        name = self.objective.name
        if kind == "exact":
            return Message(f"exact: the best expected {name} over every guess ({n} joint answer tuples)",
                           "reason.boards_exact", objective=name, tuples=n)
        if kind == "rollout":
            return Message(f"search: each guess then level 2, over every joint answer tuple ({n}): its expected "
                           f"{name}", "reason.boards_rollout", objective=name, tuples=n)
        if kind == "sampled":
            return Message(f"search: each guess then level 2, over {n} sampled answer tuples (an estimate of its "
                           f"expected {name})", "reason.boards_sampled", objective=name, tuples=n)
        if kind == "opener":
            return self.opener_reason()
        return Message("level 2's choice (the state is too large to search)", "reason.boards_too_large")

    def value_of(self, boards, r: int, kind: str, probe: int):
        """The value of playing ``probe`` now, as `ranking` of ``kind`` would give it."""
        if kind == "exact":
            return self.exact.probe_cost(tuple(boards), probe, r)
        if kind in ("level2", "opener"):
            return None
        out = self.rollout(boards, r, firsts=[probe])
        return None if out is None else out[0][0][1]

    def choose_many(self, states, turns) -> list[int]:
        out = []
        total = len(states)
        for done, (boards, turn) in enumerate(zip(states, turns)):
            out.append(self.choose(boards, turn))
            if self.progress is not None:
                self.progress(done + 1, total)
        return out

    # ----------------------------------------------------------------- the one-turn estimate
    # `termo review` (termo.analysis.review_modes) values any guess of a large state by the earlier
    # level 3's one-turn look-ahead: level 2's best `ESTIMATE_BEAM` probes and the small boards'
    # candidates, each costed 1 + Σ_b [(1 − P_b(solve)) + Σ_{buckets ≠ win} P_b · log2 |bucket|]
    # (docs/modes-solver.md); the decisions above no longer use it.
    def ranked_beam(self, boards):
        """The estimate's probes and costs, best first (ties: higher solve chance, lower index)."""
        top, _, _ = self.ranked(boards, ESTIMATE_BEAM)
        extra = [np.asarray(c, dtype=np.int64) for c in boards if int(len(c)) <= self.small]
        probes = np.unique(np.concatenate([np.asarray(top, dtype=np.int64)] + extra))
        cost, solves, rest = self.beam_costs(boards, probes)
        order = np.lexsort((probes, -solves, np.round(cost, 12)))
        return probes[order], cost[order], rest[order]

    def beam_costs(self, boards, probes):
        """(cost per probe, expected solves per probe, expected non-solving turns per probe)."""
        win = self.stats.win_code
        solves = np.zeros(probes.shape[0])
        rest = np.zeros(probes.shape[0])
        for cands in boards:
            counts, masses = self.stats.bucket_stats(np.asarray(cands, dtype=np.int64), probes)
            p_win = masses[:, win]
            counts[:, win] = 0
            solves += p_win
            leaf = np.where(counts >= 2, np.log2(np.maximum(counts, 1.0)), 0.0)
            rest += (masses * leaf).sum(axis=1)
        return 1.0 + (len(boards) - solves) + rest, solves, rest

    def estimate(self, unsolved: float, rest: float, r: int) -> float:
        """The objective's cost still to pay after a beam turn, ``unsolved`` boards left and
        ``rest`` turns that solve nothing."""
        name = self.objective.name
        u, n = float(unsolved), float(rest)
        if name == "finish":
            return u + n
        if name == "score":
            return u * n + u * (u + 1.0) / 2.0
        return 0.0 if u + n <= r else 1.0

    def estimates(self, boards, probes, r: int) -> list[float]:
        """The objective's cost still to pay from this turn (its own cost included) after each
        of ``probes`` at ``boards`` (``r`` turns left), by the one-turn estimate."""
        probes = np.asarray(probes, dtype=np.int64)
        cost, _, rest = self.beam_costs(boards, probes)
        turn = self.objective.turn_cost(len(boards))
        return [turn + self.estimate(float(c - 1.0 - n), EST_PER_BIT * n, r - 1)
                for c, n in zip(cost.tolist(), rest.tolist())]

    def decide(self, state) -> Decision:
        """The suggestion for ``state`` with ``expected`` the value each choice was ranked by
        (Objective.base included)."""
        if state.over:
            raise TermoError("the game is over: nothing to suggest", "boards.over_suggest")
        boards = [np.asarray(_host().to_numpy(c), dtype=np.int64) for c in self.unsolved_sets(state)]
        base = self.objective.base(state.turns, state.solved_on)
        r = self.rounds(state.turns + 1)
        bits, chance = self.scores(boards)
        kind, picks, n = self.ranking(boards, r)
        forced = self.forced(boards)
        if forced is not None:  # played first; its value as the ranking values every guess
            value = next((c for g, c in picks if g == forced), None)
            if value is None:
                value = self.value_of(boards, r, kind, forced)
            picks = [(forced, value)] + [(g, c) for g, c in picks if g != forced]
        reason = self.ranking_reason(kind, n)
        if forced is not None:
            board = next(b for b in state.unsolved if int(len(state.candidates[b])) == 1)
            reason = Message(f"{forced_reason(board)} ({reason})", "reason.boards_forced_valued", board=board + 1,
                             reason=reason)
        picks = picks[: self.alternatives + 1]
        choices = [self._choice(g, bits[g], chance[g], None if c is None else float(base + c)) for g, c in picks]
        return self._decision(choices, reason)


def exact_memo_bytes(memo: dict) -> int:
    """The bytes of `MultiExact`'s memo: per state its key (the boards' set keys) and its value
    (the value, the best probe and the list of (probe, cost) pairs), containers included."""
    total = sys.getsizeof(memo)
    for (sets, r), (_, _, costs) in memo.items():
        total += sys.getsizeof(sets) + sum(sys.getsizeof(k) for k in sets) + 64  # the key tuple and its int
        total += 128 + sys.getsizeof(costs) + 120 * len(costs)  # the value tuple, each (int, float) pair
    return total


def _proportional(a, b) -> bool:
    """Are the weights ``a`` and ``b`` the same distribution (both uniform, or equal)?"""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    uniform = a.size and b.size and float(np.ptp(a)) == 0.0 and float(np.ptp(b)) == 0.0
    return bool(uniform) or (a.shape == b.shape and bool(np.array_equal(a, b)))


def _renormalised(prior, cands) -> np.ndarray:
    """``prior`` over ``cands``, summing to 1 (uniform when its mass is 0)."""
    w = prior[np.asarray(cands, dtype=np.int64)]
    total = float(w.sum())
    return w / total if total > 0.0 else np.full(w.shape, 1.0 / max(int(w.shape[0]), 1))
