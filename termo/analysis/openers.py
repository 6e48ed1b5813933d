"""Opener experiments (rules §7.4–7.6): rankings, worlds, regret, the ``areio`` probe, the catalogue.

Shared vocabulary:

* ``entropies(world, C)``: bits of every probe over the candidate set ``C`` under the world's
  prior (the engine's sweep); the experiments rank probes by a *plain stable sort* of −H
  (index order on exact ties), as the reference's experiments do (§11.2), and an
  "argmax-entropy opener" is the first of that ranking over the world's starting set.
* Openers are *played* by imposing them on turn 1 and continuing with level 2 under the world's
  prior (the reference's "fixed opener" probe), on every secret of the world, lockstep.
* **Regret** of an opener in a world = its penalised mean − the best penalised mean among the
  openers compared there; the worst case is the maximum over the worlds (explicitly not a
  true minimax: the referee is in-sample).
"""

from __future__ import annotations

import math
import time
from typing import Callable, Sequence

from backends import host
from termo.book import openers as book
from termo.analysis.battery import battery_secrets, evaluate, summarize
from termo.analysis.strategies import FixedOpener, make_solver, t_label
from termo.book.policies import SolverPolicy
from termo.analysis.worlds import World, closed_world, full_world, open_world
from termo.core.errors import TermoError
from termo.core.prior import most_common

Progress = Callable[[str, int, int], None]

SERAO = "serão"
TARSO = "tarso"
AREIO = "areio"
CUTS = (200, 300, 500, 1000, 1500)
OPENER_TEMPERATURES = (math.inf, 2.0, 1.0, 0.5, 0.3, 0.1)
GRID_SIZES = (100, 200, 300, 500, 1000, 1500, 3000, None)  # None = every answer
GRID_TEMPERATURES = (math.inf, 5.0, 2.0, 1.0, 0.5, 0.3, 0.1)
OPEN_SIZES = (300, 1500, None)
AREIO_TEMPERATURES = (math.inf, 5.0, 2.0, 1.0, 0.5)
AREIO_GRID_SIZES = (300, 1500, 3000, None)


class Lab:
    """Caches the engine's solvers per (world, level) so each prior is set up once."""

    def __init__(self, backend=None, beam: int = 10, depth: int = 1, progress: Progress | None = None) -> None:
        self.backend = backend
        self.beam = beam
        self.depth = depth
        self.progress = progress
        self._solvers: dict = {}
        self._steps = 0

    def solver(self, world: World, level: int = 2):
        game = world.load_game()
        key = (game.name, game.n_probes, world.t, world.prior, level)
        if key not in self._solvers:
            self._solvers[key] = make_solver(world, level=level, beam=self.beam, depth=self.depth, backend=self.backend)
        return self._solvers[key]

    def tick(self, label: str) -> None:
        self._steps += 1
        if self.progress:
            self.progress(label, self._steps, 0)

    # --- entropies and rankings ----------------------------------------------------------------
    def entropies(self, world: World, candidates: Sequence[int] | None = None) -> list[float]:
        """Bits of every probe of ``world`` over ``candidates`` (default: the world's start)."""
        cands = world.candidates() if candidates is None else sorted(int(c) for c in candidates)
        h = self.solver(world).entropies(host().xp.asarray(cands, dtype=host().xp.int64))
        return [float(v) for v in host().to_numpy(h).tolist()]

    def ranking(self, world: World, candidates: Sequence[int] | None = None, probes: Sequence[int] | None = None):
        """(order, H): probe indices by a stable sort of −H (restricted to ``probes`` if given)."""
        h = self.entropies(world, candidates)
        pool = range(len(h)) if probes is None else probes
        order = sorted(pool, key=lambda g: -h[g])  # Python's sort is stable: index order on ties
        return order, h

    # --- games -----------------------------------------------------------------------------------
    def play(self, world: World, opener: int | None, secrets: Sequence[int] | None = None, label: str = "") -> dict:
        """Level 2 in ``world`` (opener imposed when given) on ``secrets`` (default: its answers)."""
        inner = SolverPolicy(self.solver(world))
        policy = inner if opener is None else FixedOpener(opener, inner)
        secrets = world.candidates() if secrets is None else list(secrets)
        result = evaluate(policy, world, secrets, backend=self.backend)
        self.tick(label or world.name)
        opener_word = _probe(world, result.first_guess) if result.first_guess is not None else None
        return summarize(result, world.load_game(), "fixed opener" if opener is not None else "entropy",
                         opener=opener_word, world=world.name)


def _word_index(world: World, word: str) -> int | None:
    return world.load_game().index_of(word)


def _probe(world: World, index: int) -> str:
    """The word of probe ``index`` in ``world``."""
    return world.load_game().probes[index]


def _rank_of(order: Sequence[int], index: int | None) -> int | None:
    if index is None:
        return None
    try:
        return order.index(index) + 1
    except ValueError:
        return None


def icf_rank(world: World, word: str) -> int | None:
    """1-based position of ``word`` in the stable ascending ICF order of the answers."""
    game = world.load_game()
    idx = game.index_of(word)
    if idx is None or idx >= game.n_answers:
        return None
    order = most_common(game.icf, game.n_answers)
    return order.index(idx) + 1


def top_words(world: World, order: Sequence[int], h: Sequence[float], k: int = 5) -> list[dict]:
    return [{"word": _probe(world, g), "bits": h[g]} for g in order[:k]]


# --- level 1 ---------------------------------------------------------------------------------------
def letter_scores(world: World, candidates: Sequence[int]) -> list[int]:
    """Level-1 score of every answer against ``candidates``: Σ over its distinct letters of the
    number of candidates containing that letter (rules §4)."""
    words = world.load_game().answers_norm
    counts: dict[str, int] = {}
    for c in candidates:
        for letter in set(words[c]):
            counts[letter] = counts.get(letter, 0) + 1
    return [sum(counts.get(letter, 0) for letter in set(w)) for w in words]


def letter_ranking(world: World, candidates: Sequence[int]) -> list[int]:
    """All answers by a stable descending sort of the level-1 score against ``candidates``."""
    scores = letter_scores(world, candidates)
    return sorted(range(len(scores)), key=lambda i: -scores[i])


# --- regret ---------------------------------------------------------------------------------------
def regret_table(results: dict[str, dict[str, dict]]) -> dict:
    """``results[world][opener]`` = battery summary → regret per world and worst case per opener.

    Returns ``{"best": {world: best penalised mean}, "openers": {opener: {"regret", "worst",
    "penalised"}}, "ranking": openers by worst regret}``.
    """
    worlds = list(results)
    openers: list[str] = []
    for w in worlds:
        for o in results[w]:
            if o not in openers:
                openers.append(o)
    best = {w: min(r["penalised_mean"] for r in results[w].values()) for w in worlds}
    table = {}
    for o in openers:
        regrets = {w: results[w][o]["penalised_mean"] - best[w] for w in worlds if o in results[w]}
        table[o] = {"regret": regrets, "worst": max(regrets.values()) if regrets else None,
                    "penalised": {w: results[w][o]["penalised_mean"] for w in worlds if o in results[w]}}
    ranked = sorted(openers, key=lambda o: (table[o]["worst"], openers.index(o)))
    return {"best": best, "openers": table, "ranking": ranked}


def _unique(seq):
    out = []
    for x in seq:
        if x is not None and x not in out:
            out.append(x)
    return out


# ====================================================================================================
# §7.4 worlds (the ``serão`` question)
# ====================================================================================================
def worlds_study(lab: Lab, t: float = 1.0, world_t: float = math.inf, word: str = SERAO,
                 grid_sizes=GRID_SIZES, grid_temperatures=GRID_TEMPERATURES, cuts=CUTS,
                 opener_temperatures=OPENER_TEMPERATURES, open_sizes=OPEN_SIZES, closed_n: int = 300) -> dict:
    """The six steps of §7.4 (plus the level-1 rankings of §4) as one JSON-ready dict."""
    full = full_world(t=t)
    target = _word_index(full, word)
    if target is None:
        raise TermoError(f"{word!r} is not in the lexicon")
    out: dict = {"word": word, "t": t_label(t), "world_t": t_label(world_t)}
    out["step1_full_ranking"] = _full_ranking(lab, full, word, target)
    out["level1_ranking"] = _level1_ranking(full, target)
    out["step2_cuts"] = _cut_rows(lab, full, target, cuts)
    out["step3_temperatures"] = _temperature_rows(lab, target, opener_temperatures)
    step4 = _closed_world_step(lab, full, word, closed_n, world_t)
    out["step4_closed_world"] = step4
    level3_error, step5 = _open_worlds_step(lab, full, word, step4["winner"], world_t, open_sizes)
    if level3_error is not None:
        out["level3_opener_error"] = level3_error
    out["step5_open_worlds"] = step5
    out["step6_grid"] = _closed_grid(lab, word, grid_sizes, grid_temperatures)
    out["pareto"] = pareto_frontier(lab, full_world(t=1.0))
    return out


def _full_ranking(lab: Lab, full: World, word: str, target: int) -> dict:
    """Step 1: the full-lexicon entropy ranking at T; the word's rank, bits and ICF rank."""
    order, h = lab.ranking(full)
    row = {"top": top_words(full, order, h, 10), "rank": _rank_of(order, target), "bits": h[target],
           "icf_rank": icf_rank(full, word)}
    lab.tick("ranking")
    return row


def _level1_ranking(full: World, target: int) -> dict:
    """Level 1 (rules §4): the word's rank by letter score over the 300 commonest and the full lexicon."""
    game = full.load_game()
    level1 = {}
    for label, cands in (("300", sorted(most_common(game.icf, 300))), ("all", full.candidates())):
        lorder = letter_ranking(full, cands)
        level1[label] = {"top": [game.answers[i] for i in lorder[:5]], "rank": _rank_of(lorder, target)}
    return level1


def _cut_rows(lab: Lab, full: World, target: int, cuts) -> list[dict]:
    """Step 2: cuts with uniform weights, every probe vs only the N words."""
    rows = []
    for n in cuts:
        world = open_world(n, math.inf)
        cands = world.candidates()
        order_all, hh = lab.ranking(world, cands)
        order_in, _ = lab.ranking(world, cands, probes=cands)
        rows.append({"n": n, "best_all": _probe(full, order_all[0]), "bits_all": hh[order_all[0]],
                     "rank_all": _rank_of(order_all, target), "best_closed": _probe(full, order_in[0]),
                     "rank_closed": _rank_of(order_in, target), "bits": hh[target]})
        lab.tick(f"cut {n}")
    return rows


def _temperature_rows(lab: Lab, target: int, temperatures) -> list[dict]:
    """Step 3: the best opener and the word's rank per temperature (full lexicon)."""
    rows = []
    for temp in temperatures:
        world = full_world(t=temp)
        order_t, ht = lab.ranking(world)
        rows.append({"t": t_label(temp), "best": _probe(world, order_t[0]), "bits": ht[order_t[0]],
                     "rank": _rank_of(order_t, target), "word_bits": ht[target]})
        lab.tick(f"T={t_label(temp)}")
    return rows


def _closed_world_step(lab: Lab, full: World, word: str, closed_n: int, world_t: float) -> dict:
    """Step 4: the closed world's level-3 choice, then its first 3 non-target words and the target
    played; the level-3 opener is the ``winner`` that joins the open-world comparison."""
    closed = closed_world(closed_n, world_t)
    decision = book.decide(lab.solver(closed, level=3), closed.candidates(), 1)
    lab.tick("closed level 3")
    choices = [decision.choice] + list(decision.alternatives)
    step4: dict = {"world": closed.name, "level3": [{"word": c.word, "expected": c.expected, "bits": c.bits}
                                                    for c in choices[:6]]}
    normalize = closed.load_game().normalize
    words = [c.word for c in choices if normalize(c.word) != normalize(word)][:3]
    closed_target = _word_index(closed, word)
    played = {}
    for w in words + ([word] if closed_target is not None else []):
        played[w] = lab.play(closed, _word_index(closed, w), label=f"closed {w}")
    step4["played"] = played
    step4["best_played"] = min(played, key=lambda w: (played[w]["penalised_mean"], list(played).index(w)))
    step4["winner"] = decision.word
    step4["realistic"] = _realistic(lab, full, (TARSO, word))
    return step4


def _realistic(lab: Lab, full: World, openers: Sequence[str]) -> dict:
    """Each opener played on the realistic battery of ``full``."""
    realistic = battery_secrets(full.load_game(), "realistic")
    return {o: lab.play(full, _word_index(full, o), realistic, label=f"realistic {o}") for o in openers}


def _open_worlds_step(lab: Lab, full: World, word: str, closed_winner: str, world_t: float,
                      open_sizes) -> tuple[str | None, dict]:
    """Step 5: regret among openers in open worlds; (why the level-3 opener is missing, the step)."""
    level2 = book.opener(lab.solver(full), optimal=True)
    try:
        level3 = book.opener(lab.solver(full, level=3), optimal=True)
        level3_word, error = level3.word, None
    except Exception as err:  # noqa: BLE001 - the level-3 opener is optional here
        level3_word, error = None, str(err)
    worlds = [open_world(n, world_t) for n in open_sizes]
    argmax = _argmax_openers(lab, worlds)
    openers = _unique([level2.word, level3_word, closed_winner, word] + list(argmax.values()))
    results = _compare(lab, worlds, openers)
    return error, {"compared": openers, "argmax": argmax, "level2_opener": level2.word,
                   "level3_opener": level3_word, "results": results, **regret_table(results)}


def _argmax_openers(lab: Lab, worlds: Sequence[World]) -> dict:
    """The argmax-entropy opener of each world, by world name."""
    return {world.name: _probe(world, lab.ranking(world)[0][0]) for world in worlds}


def _compare(lab: Lab, worlds: Sequence[World], openers: Sequence[str]) -> dict:
    """Every opener played in every world: ``{world: {opener: battery summary}}``."""
    return {w.name: {o: lab.play(w, _word_index(w, o), label=f"{w.name} {o}") for o in openers} for w in worlds}


def _closed_grid(lab: Lab, word: str, sizes, temperatures) -> list[list[dict]]:
    """Step 6: the grid of closed worlds (best probe, the word's gap and rank)."""
    grid = []
    for n in sizes:
        row = []
        for temp in temperatures:
            world = closed_world(n, temp)
            order_g, hg = lab.ranking(world)
            idx = _word_index(world, word)
            row.append({"n": "all" if n is None else n, "t": t_label(temp), "best": _probe(world, order_g[0]),
                        "bits": hg[order_g[0]], "gap": (hg[order_g[0]] - hg[idx]) if idx is not None else None,
                        "rank": _rank_of(order_g, idx)})
            lab.tick(f"grid {n} {t_label(temp)}")
        grid.append(row)
    return grid


def pareto_frontier(lab: Lab, world: World) -> list[dict]:
    """Walk answers by ascending ICF; keep each whose bits (at T=1, full lexicon) beat all before."""
    h = lab.entropies(world)
    game = world.load_game()
    best = -1.0
    out = []
    for i in most_common(game.icf, game.n_answers):
        if h[i] > best:
            best = h[i]
            out.append({"word": game.answers[i], "bits": h[i], "icf": game.icf[i]})
    return out


# ====================================================================================================
# §7.5 areio
# ====================================================================================================
def areio_study(lab: Lab, word: str = AREIO, temperatures=AREIO_TEMPERATURES, grid_sizes=AREIO_GRID_SIZES,
                open_sizes=OPEN_SIZES, extra_openers: Sequence[str] = (TARSO, AREIO, SERAO)) -> dict:
    """§7.5 in the extended space: ``areio``'s rank, the open grid, games and regret."""
    out: dict = {"word": word}
    rows = []
    for temp in temperatures:
        world = full_world(t=temp, extended=True)
        order, h = lab.ranking(world)
        idx = _word_index(world, word)
        rows.append({"t": t_label(temp), "rank": _rank_of(order, idx), "bits": h[idx] if idx is not None else None,
                     "best": _probe(world, order[0]), "best_bits": h[order[0]]})
        lab.tick(f"areio T={t_label(temp)}")
    out["ranks"] = rows

    grid = []
    for n in grid_sizes:
        row = []
        for temp in temperatures:
            world = open_world(n, temp, extended=True)
            order, h = lab.ranking(world)
            idx = _word_index(world, word)
            row.append({"n": "all" if n is None else n, "t": t_label(temp), "rank": _rank_of(order, idx),
                        "best": _probe(world, order[0]), "gap": h[order[0]] - h[idx] if idx is not None else None})
            lab.tick(f"areio grid {n} {t_label(temp)}")
        grid.append(row)
    out["grid"] = grid

    worlds = [open_world(n, math.inf, extended=True) for n in open_sizes]
    argmax = _argmax_openers(lab, worlds)
    openers = _unique(list(extra_openers) + list(argmax.values()))
    results = _compare(lab, worlds, openers)
    out["open_worlds"] = {"compared": openers, "argmax": argmax, "results": results, **regret_table(results)}
    out["realistic"] = _realistic(lab, full_world(t=1.0, extended=True), openers)
    return out


# ====================================================================================================
# §7.6 catalogue
# ====================================================================================================
def catalog_study(lab: Lab, temperatures=OPENER_TEMPERATURES, open_sizes=OPEN_SIZES, closed_sizes=GRID_SIZES,
                  level3: bool = True) -> dict:
    """§7.6: the openers of every world (bits optimum and level-3 optimum with its E)."""
    out: dict = {}
    full_rows = []
    for temp in temperatures:
        world = full_world(t=temp)
        order, h = lab.ranking(world)
        full_rows.append({"t": t_label(temp), "best": _probe(world, order[0]), "bits": h[order[0]]})
        lab.tick(f"catalog T={t_label(temp)}")
    out["full"] = full_rows
    full = full_world(t=1.0)
    if level3:
        opener3 = book.opener(lab.solver(full, level=3), optimal=True)
        out["level3_t1"] = {"word": opener3.word, "expected": opener3.choice.expected}
    lorder = letter_ranking(full, full.candidates())
    out["level1"] = full.load_game().answers[lorder[0]]

    def row(world: World) -> dict:
        start = time.perf_counter()
        order, h = lab.ranking(world)
        entry = {"world": world.name, "kind": world.kind, "n": world.n_secrets, "bits_best": _probe(world, order[0]),
                 "bits": h[order[0]]}
        if level3:
            cands = host().xp.asarray(world.candidates(), dtype=host().xp.int64)
            d = book.decide(lab.solver(world, level=3), cands, 1)
            entry.update({"level3_best": d.word, "expected": d.choice.expected})
        entry["seconds"] = time.perf_counter() - start
        lab.tick(world.name)
        return entry

    out["open"] = [row(open_world(n, math.inf)) for n in open_sizes]
    out["closed"] = [row(closed_world(n, math.inf)) for n in closed_sizes]
    return out
