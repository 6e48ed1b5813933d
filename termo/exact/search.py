"""The exact solver's driver: the game's data for the engine, the budget loop, the result.

The search itself (bounds, ordering, memo) is the host's :class:`backends.host_ops.exact.ExactEngine`
(docs/exact.md). This module decides what is solved: the root state (every answer, the game's
turn limit), or, with an opener, each of its feedback groups with one round less; it spends the
budget in slices (the memo keeps everything proved, so a slice resumes where the last stopped),
reports progress, and builds the result: the proven lower bound, the best strategy found (its
value measured by walking the tree against every answer, not taken from the search) and whether
the two meet.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from backends import get_backend, host
from backends.host_ops.exact import exact_engine
from termo.engine import tree_search
from termo.core.errors import TermoError
from termo.games import EXACT, Game

SLICE_NODES = 20_000  # states expanded per engine call between budget checks and progress lines
# ``loss = inf`` (every answer must be found, the objective of Selby's published figures) is searched
# with this finite cost per lost answer: above any total of guesses a game can have (so a strategy
# that loses never beats one that does not), and exact in float64 for every game here; a value at
# least this large is reported as infinite.
LOSS_NOT_ALLOWED = 1e9
DEFAULT_TIME = 540.0  # seconds: the default budget returns within 10 minutes


@dataclass
class ExactResult:
    """What :func:`solve` found.

    Values are in *expected guesses per game* under the game's prior (``mean``, ``lower``,
    ``upper``): the same unit as level 3's E (a loss costs ``turns + loss`` guesses, as level 3
    charges). ``total`` is the strategy's sum of guesses over all answers for a uniform game
    (an integer: ``mean · answers``), and equals ``mean`` for a weighted game (the weighted
    expectation). ``mean``/``total`` describe the best strategy found (``upper``); ``proved``
    says ``lower == upper`` (the strategy is optimal). ``lower_total``/``upper_total`` are the
    bounds as totals (uniform games; the expectation otherwise)."""

    game: str
    opener: str | None
    hard: bool
    t: float
    answers: int
    weighted: bool
    total: float
    mean: float
    lower: float
    upper: float
    lower_total: float
    upper_total: float
    proved: bool
    seconds: float
    nodes: int
    max_turns: int
    loss: float
    stats: dict = field(default_factory=dict)
    _tree: dict = field(default=None, repr=False)

    @property
    def gap(self) -> float:
        """``upper − lower`` in expected guesses (0 when proved)."""
        return 0.0 if self.upper == self.lower else self.upper - self.lower

    def tree(self) -> dict:
        """The best strategy found as nested plain data: ``{"guess": probe_index, "children":
        {pattern_code: node, ...}}`` (no child for the winning pattern), covering every answer
        (branches past the turn limit, which count as losses, continue to the answer)."""
        return self._tree

    def as_dict(self) -> dict:
        out = {"game": self.game, "opener": self.opener, "hard": self.hard,
               "t": None if math.isinf(self.t) else self.t, "answers": self.answers,
               "weighted": self.weighted, "total": self.total, "mean": self.mean, "lower": self.lower,
               "upper": self.upper, "gap": self.gap, "proved": self.proved, "seconds": self.seconds,
               "nodes": self.nodes, "turns": self.max_turns, "loss": self.loss}
        if not self.weighted:
            out["lower_total"] = self.lower_total
            out["upper_total"] = self.upper_total
        out.update(self.stats)
        return out


def answer_weights(game: Game, t: float = 1.0, prior=None):
    """(weights, weighted): 1 per answer for a uniform game (values are then sums of guesses,
    exact integers), else the prior ``softmax(−ICF/T)`` (rules §2.5): ``prior``'s, the question's
    `termo.core.prior.Prior` when the caller has it (made at ``t``), else made here."""
    xp = host().xp
    if game.uniform_prior or (t is not None and math.isinf(t)):
        return xp.ones(game.n_answers, dtype=xp.float64), False
    from termo.core.prior import Prior

    return Prior.at(game.icf, t, prior).weights, True


def class_mass(game: Game, weights):
    """Per answer, the weight of the answers one guess can win together with it: itself under
    the exact rule, its whole win class otherwise (an upper bound the lower bounds use)."""
    xp = host().xp
    if game.win_rule == EXACT:
        return xp.asarray(weights, dtype=xp.float64)
    keys = game.probe_win_keys[: game.n_answers]
    total: dict = {}
    w = [float(x) for x in weights]
    for a, key in enumerate(keys):
        total[key] = total.get(key, 0.0) + w[a]
    return xp.asarray([total[k] for k in keys], dtype=xp.float64)


def hard_tables(game: Game):
    """(symbol codes probes × positions, symbol counts probes × symbols) for hard mode."""
    from termo.engine.hard_mode import tables

    t = tables(game)
    return t.codes, t.counts


class Problem:
    """One game's search: the engine over its matrix and weights, for one prior and mode
    (``weights``: custom ones; ``prior``: the question's `termo.core.prior.Prior` at ``t`` when the
    caller has it)."""

    def __init__(self, game: Game, *, hard: bool = False, t: float = 1.0, backend=None,
                 loss: float = tree_search.LOSS_COST, memo_slots: int | None = None, weights=None, prior=None):
        from termo.engine.matrix import answers_major_matrix, pattern_matrix

        self.game = game
        self.hard = bool(hard)
        self.t = float(t)
        self.loss = float(loss)
        if not self.loss >= 0:
            raise TermoError(f"--loss must be a cost of at least 0 guesses (or inf), not {loss}")
        self.search_loss = LOSS_NOT_ALLOWED if math.isinf(self.loss) else self.loss
        self.backend = get_backend(backend)
        if weights is None:
            self.weights, self.weighted = answer_weights(game, self.t, prior)
        else:
            self.weights, self.weighted = host().xp.asarray(weights, dtype=host().xp.float64), True
        symbols = counts = None
        if self.hard:
            symbols, counts = hard_tables(game)
        options = {} if memo_slots is None else {"memo_slots": int(memo_slots)}
        self.engine = exact_engine(
            answers_major_matrix(game), self.weights, class_mass(game, self.weights), loss=self.search_loss,
            win_code=game.win_code, n_codes=game.n_patterns, max_rounds=game.max_turns,
            exact_rule=game.win_rule == EXACT, symbols=symbols, symbol_counts=counts, hard=self.hard,
            probes_major=pattern_matrix(game, host()), **options)

    # --- the state after an opener -----------------------------------------------------------
    def root(self):
        xp = host().xp
        return xp.arange(self.game.n_answers, dtype=xp.int64)

    def children(self, members, guess: int, allowed=None):
        """``[(code, members, allowed), ...]`` of the non-winning groups after ``guess``."""
        out = []
        for code, sub in self.engine.partition(members, guess):
            if code == self.game.win_code:
                continue
            child_allowed = None
            if self.hard:
                parent = self.engine.all_probes if allowed is None else allowed
                child_allowed = self.engine.allowed_after(parent, guess, code)
            out.append((code, sub, child_allowed))
        return out

    def weight(self, members) -> float:
        w = self.weights
        total = 0.0
        for a in members:  # ascending members, sequential sum (the kernels' order)
            total += float(w[int(a)])
        return total

    # --- the strategy ------------------------------------------------------------------------
    def policy(self, members, rounds: int, allowed=None, budget: int | None = 0) -> int:
        """The strategy's guess at a state: the proved optimum where the memo has it (or can
        prove it within ``budget`` more states), else the best guess found, else the search's
        first choice."""
        if rounds > 0:
            _, _, g = self.engine.solve(members, int(rounds), allowed, budget=budget)
            if g >= 0:
                return g
        return self.engine.greedy_guess(members, int(rounds) if rounds > 0 else len(members) + 2, allowed)

    def build_tree(self, members, rounds: int, allowed=None, first=None, budget: int | None = 0) -> dict:
        """The strategy below a state as nested plain data (see :meth:`ExactResult.tree`)."""
        guess = int(first) if first is not None else self.policy(members, rounds, allowed, budget)
        node = {"guess": guess, "children": {}}
        for code, sub, child_allowed in self.children(members, guess, allowed):
            node["children"][code] = self.build_tree(sub, rounds - 1, child_allowed, budget=budget)
        return node


def evaluate_tree(game: Game, tree: dict, weights=None, loss: float = tree_search.LOSS_COST, members=None,
                  depth: int = 1) -> tuple[float, int]:
    """(weighted total of guesses, losses) of a strategy tree over ``members`` (default every
    answer), replayed answer by answer with the game's feedback and win rule; an answer solved
    after the turn limit costs ``turns + loss`` (a loss, as level 3 charges). Plain Python."""
    from termo.engine.matrix import expected_code

    members = range(game.n_answers) if members is None else members
    total = 0.0
    losses = 0
    for a in members:
        node = tree
        d = depth
        while True:
            g = int(node["guess"])
            if game.wins(g, a) or expected_code(game, g, a) == game.win_code:
                break
            code = expected_code(game, g, a)
            if code not in node["children"]:
                raise TermoError(f"the tree has no branch for answer {game.answers[a]!r} after {game.probes[g]!r}")
            node = node["children"][code]
            d += 1
        w = 1.0 if weights is None else float(weights[a])
        if d > game.max_turns:
            losses += 1
            total += w * (game.max_turns + loss)
        else:
            total += w * d
    return total, losses


def _fmt(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


def solve(game: Game, *, opener=None, hard: bool = False, t: float = 1.0, time_limit: float | None = None,
          node_limit: int | None = None, backend=None, progress=None, loss: float = tree_search.LOSS_COST,
          memo_slots: int | None = None, problem: Problem | None = None, limit: float | None = None) -> ExactResult:
    """The minimum expected number of guesses of ``game`` (docs/exact.md), by branch and bound.

    ``opener`` (a word or probe index) fixes the first guess; ``hard`` plays hard mode; ``t``
    the prior's temperature (ignored by uniform games). The budget: ``time_limit`` seconds
    (default :data:`DEFAULT_TIME` when neither limit is given) and/or ``node_limit`` expanded
    states; when it runs out the result has ``proved=False`` and the bounds reached.
    ``progress(line)`` gets a one-line report about every slice of work. ``limit`` (a total, in
    the search's units) only asks whether the value is below it: past it the search stops with
    ``proved=False`` and a lower bound at least ``limit`` (used to rank openers)."""
    start = time.perf_counter()
    time_limit = _checked_limits(time_limit, node_limit)
    prob = problem or Problem(game, hard=hard, t=t, backend=backend, loss=loss, memo_slots=memo_slots)
    budget = _Budget(prob.engine, start, time_limit, node_limit, progress)
    opener_index = _opener_index(game, opener)
    root = prob.root()
    W = prob.weight(root)
    search = _Search(game, prob, budget, root, opener_index, W, limit)
    lower_total = search.prove()
    return search.result(lower_total, W)


def _checked_limits(time_limit, node_limit):
    """``time_limit``, :data:`DEFAULT_TIME` when neither limit is given; TermoError for a bad one."""
    if time_limit is None and node_limit is None:
        time_limit = DEFAULT_TIME
    if time_limit is not None and not time_limit > 0:
        raise TermoError(f"--time must be positive, not {time_limit}")
    if node_limit is not None and int(node_limit) < 1:
        raise TermoError(f"--nodes must be at least 1, not {node_limit}")
    return time_limit


def _opener_index(game: Game, opener) -> int | None:
    """The probe index of ``opener`` (a word or an index; None for none)."""
    if opener is None:
        return None
    index = int(opener) if isinstance(opener, int) else game.index_of(str(opener))
    if index is None or not 0 <= index < game.n_probes:
        raise TermoError(f"{opener!r} is not a word of {game.title or game.name}")
    return index


class _Budget:
    """The budget of one :func:`solve`: a deadline and/or a count of states expanded from now
    on, and the progress lines (prefixed with the time since ``start``)."""

    def __init__(self, engine, start: float, time_limit, node_limit, progress):
        self.engine = engine
        self.start = start
        self.deadline = None if time_limit is None else start + float(time_limit)
        self.node_limit = node_limit
        self.progress = progress
        self.nodes0 = engine.nodes

    def nodes(self) -> int:
        """States expanded since the start."""
        return self.engine.nodes - self.nodes0

    def spent(self) -> bool:
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return True
        return self.node_limit is not None and self.nodes() >= int(self.node_limit)

    def slice(self) -> int:
        """States the next engine call may expand."""
        if self.node_limit is None:
            return SLICE_NODES
        return max(1, min(SLICE_NODES, int(self.node_limit) - self.nodes()))

    def say(self, text):
        if self.progress is not None:
            self.progress(f"{_fmt(time.perf_counter() - self.start)}: {text}")


class _Search:
    """One :func:`solve` run: the states to prove (the root, or the opener's feedback groups),
    their lower bounds and which are exact, the strategy and the result."""

    def __init__(self, game: Game, prob: Problem, budget: _Budget, root, opener_index, weight, limit):
        self.game = game
        self.prob = prob
        self.engine = prob.engine
        self.budget = budget
        self.root = root
        self.opener_index = opener_index
        self.limit = limit
        R = game.max_turns
        # the states to prove: (code, members, rounds, allowed)
        if opener_index is None:
            self.parts = [(None, root, R, None)]
            self.base = 0.0
        else:
            self.parts = [(code, sub, R - 1, al) for code, sub, al in prob.children(root, opener_index)]
            self.base = weight  # everyone pays the opener
        self.lower = [0.0] * len(self.parts)
        self.exact = [False] * len(self.parts)

    def prove(self) -> float:
        """Spend the budget on the parts, smallest first; the lower bound of the total."""
        parts, lower, limit = self.parts, self.lower, self.limit
        # smallest first: cheap groups are proved before the budget can run out on a big one
        order = sorted(range(len(parts)), key=lambda i: (len(parts[i][1]), i))
        if limit is not None:  # each part's one-pass bound first: the others' share of the limit
            for i, (code, members, rounds, allowed) in enumerate(parts):
                lower[i] = self.engine.bound(members, rounds, allowed)
        budget_left = True
        for done_count, i in enumerate(order):
            sub_limit = math.inf
            if limit is not None:  # what this part may cost before the whole reaches ``limit``
                sub_limit = limit - self.base - sum(lower[j] for j in range(len(parts)) if j != i)
            budget_left = self._prove_part(i, sub_limit, budget_left)
            if limit is not None and self.base + sum(lower) >= limit:
                budget_left = False
            if len(parts) > 1 and (done_count + 1) % 10 == 0:
                self.budget.say(f"{sum(self.exact)}/{len(parts)} groups proved, {self.budget.nodes():,} states")
        return self.base + sum(lower)

    def _prove_part(self, i: int, sub_limit: float, budget_left: bool) -> bool:
        """Slices of search on part ``i`` until it is exact, proved at least ``sub_limit``, or
        the budget is spent (then one last pass without expanding); whether budget is left."""
        engine, budget = self.engine, self.budget
        code, members, rounds, allowed = self.parts[i]
        while True:
            if not budget_left or budget.spent():
                v, ex, _ = engine.solve(members, rounds, allowed, limit=sub_limit, budget=0)
                self.lower[i] = max(self.lower[i], v)
                return False
            v, ex, _ = engine.solve(members, rounds, allowed, limit=sub_limit, budget=budget.slice())
            self.lower[i] = max(self.lower[i], v) if not ex else v
            if ex:
                self.exact[i] = True
                return True
            if not engine.aborted:  # proved at least sub_limit: stop (a ranking question)
                return True
            budget.say(f"{sum(self.exact)}/{len(self.parts)} groups proved, group of {len(members)} in progress, "
                       f"{budget.nodes():,} states")

    def strategy(self) -> dict:
        """The strategy: proved parts from the memo, the rest the best found so far."""
        prob = self.prob
        tree_budget = None if all(self.exact) else 0
        if self.opener_index is None:
            return prob.build_tree(self.root, self.game.max_turns, None, budget=tree_budget)
        tree = {"guess": self.opener_index, "children": {}}
        for code, members, rounds, allowed in self.parts:
            tree["children"][code] = prob.build_tree(members, rounds, allowed, budget=tree_budget)
        return tree

    def result(self, lower_total: float, weight) -> ExactResult:
        """The result: the bounds, the strategy and its value measured on the tree."""
        prob, game, budget = self.prob, self.game, self.budget
        proved_all = all(self.exact)
        tree = self.strategy()
        upper_total, _losses = evaluate_tree_fast(prob, tree)
        # the tree is summed in another order than the search: for a weighted prior allow float
        # rounding (uniform totals are integers, compared exactly)
        if math.isinf(prob.loss) and lower_total >= LOSS_NOT_ALLOWED:
            lower_total = math.inf  # every strategy loses an answer
        slack = 1e-12 * abs(lower_total) if prob.weighted and math.isfinite(lower_total) else 0.0
        if proved_all and upper_total > lower_total + slack:  # a memo entry was overwritten: never claim it
            proved_all = False
        if proved_all:
            lower_total = upper_total
        seconds = time.perf_counter() - budget.start
        scale = weight if prob.weighted else float(game.n_answers)
        mean = upper_total / scale
        total = upper_total if not prob.weighted else mean
        stats = dict(self.engine.counters())
        stats["nodes"] = budget.nodes()
        stats["losses"] = _losses
        if self.opener_index is not None:
            stats["groups"] = len(self.parts)
            stats["groups_proved"] = sum(self.exact)
        opener = None if self.opener_index is None else game.probes[self.opener_index]
        return ExactResult(game=game.label, opener=opener, hard=prob.hard, t=prob.t, answers=game.n_answers,
                           weighted=prob.weighted, total=total, mean=mean, lower=lower_total / scale, upper=mean,
                           lower_total=lower_total, upper_total=upper_total, proved=proved_all,
                           seconds=seconds, nodes=budget.nodes(), max_turns=game.max_turns, loss=prob.loss,
                           stats=stats, _tree=tree)


def evaluate_tree_fast(prob: Problem, tree: dict) -> tuple[float, int]:
    """(weighted total, losses) of a tree, group by group with the matrix (the same walk as
    :func:`evaluate_tree`, which replays answer by answer; the tests compare them)."""
    game = prob.game
    total = 0.0
    losses = 0
    stack = [(tree, prob.root(), 1)]
    while stack:
        node, members, depth = stack.pop()
        groups = prob.engine.partition(members, int(node["guess"]))
        for code, sub in groups:
            if code == game.win_code:
                w = prob.weight(sub)
                if depth > game.max_turns:
                    losses += len(sub)
                    total += w * (game.max_turns + prob.loss)
                else:
                    total += w * depth
                continue
            child = node["children"].get(code)
            if child is None:
                raise TermoError(f"the strategy has no branch for pattern {code} after probe {node['guess']}")
            stack.append((child, sub, depth + 1))
    return total, losses


def beam_value(game: Game, opener, t: float = 1.0, backend=None) -> float:
    """Level 3's E for ``opener`` imposed at the first turn (its beam search, K = 10, depth 1,
    greedy tail: the upper bound the exact value is compared with; Termo's tosar at T = 1 is
    3.0094161966572304)."""
    from termo.engine.solver import Solver

    index = int(opener) if isinstance(opener, int) else game.index_of(str(opener))
    if index is None:
        raise TermoError(f"{opener!r} is not a word of {game.title or game.name}")
    solver = Solver(game, level=3, t=t, backend=backend)
    tree = solver.tree
    sid = int(tree.register([list(range(game.n_answers))])[0])
    job = tree_search.PairJob(sid, [index], game.max_turns, solver.depth)
    tree.run([job])
    return float(job.costs[0])
