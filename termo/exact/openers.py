"""The exact optimal opener among the best level-3 candidates (issue item 3), with bounds.

Each candidate opener is solved exactly in level-3 order, sharing one engine (its memo keeps
every state proved for an earlier opener); once one value is known, the next candidates are
only asked whether they go below it (``termo.exact.solve(limit=...)``), which usually stops far
sooner with a lower bound at least the best value: such a candidate *cannot beat* the best.
Every other first guess gets the search's one-pass bound at the root; the ones whose bound is
below the best value are counted as still open (not excluded by this run).
"""

from __future__ import annotations

import math
import time

from termo.core.errors import TermoError
from termo.exact.search import Problem, solve


def level3_candidates(game, t: float = 1.0, backend=None, solver=None) -> list[tuple[str, float]]:
    """The level-3 opener and its alternatives, ``(word, E)`` in level-3 order (the opener
    cache: shipped for Termo at T = 1, searched otherwise); ``solver``: the level-3 solver of
    that configuration when the caller has one."""
    from termo.book.openers import optimal_opener
    from termo.engine.solver import Solver

    decision = optimal_opener(solver or Solver(game, level=3, t=t, backend=backend))
    rows = [decision.choice] + list(decision.alternatives)
    return [(c.word, float(c.expected)) for c in rows]


def rank_openers(game, candidates=None, *, t: float = 1.0, hard: bool = False, time_limit: float | None = None,
                 backend=None, progress=None) -> dict:
    """Plain data: per candidate ``word``, ``beam`` (level 3's E when known), ``lower``,
    ``upper``, ``proved``, ``status`` (``best``, ``cannot beat``, ``open``); the best opener and
    its value; ``others_open`` (first guesses outside the list whose root bound is below the best
    value) and ``others_lower`` (the least such bound); ``proved_global`` when nothing is open."""
    start = time.perf_counter()
    prior = None  # the level-3 solver's Prior, passed to the exact search (one per question)
    if candidates is None:
        from termo.engine.solver import Solver

        solver = Solver(game, level=3, t=t, backend=backend)
        candidates, prior = level3_candidates(game, t, backend, solver), solver.answer_prior
    cands = [(c, None) if isinstance(c, str) else (str(c[0]), c[1]) for c in candidates]
    if not cands:
        raise TermoError("no candidate opener")
    prob = Problem(game, hard=hard, t=t, backend=backend, prior=prior)
    deadline = None if time_limit is None else start + float(time_limit)
    ranking = _Ranking()
    _rank_candidates(game, prob, cands, ranking, deadline, progress)
    # every other first guess: the one-pass bound at the root, then (normal mode) one level
    # deeper for those it leaves below the best value, then a limit-mode search for the rest
    root = prob.root()
    bounds = prob.engine.guess_bounds(root, game.max_turns)
    listed = {game.index_of(row["word"]) for row in ranking.rows}
    others = [i for i in range(game.n_probes) if i not in listed]
    open1 = sorted((i for i in others if bounds[i] < ranking.best_total), key=lambda i: (float(bounds[i]), i))
    lower_of = {i: float(bounds[i]) for i in others}
    open2 = list(open1)
    if not hard and open1:
        open2 = _deeper_bounds(prob, root, open1, lower_of, ranking.best_total, deadline, progress)
    still_open, searched = _search_others(game, prob, open2, lower_of, ranking, deadline)
    scale = prob.weight(root) if prob.weighted else float(game.n_answers)
    remaining = [i for i in still_open if lower_of[i] < ranking.best_total]
    best, rows = ranking.best, ranking.rows
    return {
        "game": game.label, "t": None if math.isinf(t) else t, "hard": hard,
        "best": None if best is None else best["word"], "best_value": None if best is None else best["upper"],
        "candidates": rows,
        "candidates_settled": all(r["status"] != "open" for r in rows),
        "others": len(others),
        "others_open_one_pass": len(open1),
        "others_open_deeper": len(open2),
        "others_searched": len(searched),
        "others_open": len(remaining),
        "others_open_words": [game.probes[i] for i in remaining[:20]],
        "others_lower": min((lower_of[i] for i in others), default=math.inf) / scale,
        "proved_global": best is not None and not remaining and all(r["status"] != "open" for r in rows),
        "seconds": time.perf_counter() - start,
    }


class _Ranking:
    """The openers' rows so far and the best proved one among them (its row and total)."""

    def __init__(self):
        self.rows: list[dict] = []
        self.best: dict | None = None
        self.best_total = math.inf

    def crown(self, row: dict, total: float) -> None:
        """``row`` is the best so far (the previous best cannot beat it)."""
        if self.best is not None:
            self.best["status"] = "cannot beat"
        self.best, self.best_total = row, total
        row["status"] = "best"


def _row(r, beam) -> dict:
    """A ranking row of the exact result ``r`` (its status comes after)."""
    return {"word": r.opener, "beam": beam, "lower": r.lower, "upper": r.upper, "proved": r.proved,
            "seconds": r.seconds, "nodes": r.nodes}


def _past(deadline) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


def _time_left(deadline, share: int = 1) -> float:
    """Seconds for the next search: its ``share`` of the time left (at least 1), or 1e9 with no deadline."""
    return 1e9 if deadline is None else max(1.0, (deadline - time.perf_counter()) / share)


def _rank_candidates(game, prob, cands, ranking: _Ranking, deadline, progress) -> None:
    """Solve each candidate in order (after the first proved value only asking whether it goes
    below the best), each with its share of the time left."""
    for k, (word, beam) in enumerate(cands):
        r = solve(game, opener=word, problem=prob, time_limit=_time_left(deadline, len(cands) - k),
                  limit=None if ranking.best is None else ranking.best_total, progress=progress)
        row = _row(r, beam)
        if r.proved and r.upper_total < ranking.best_total:
            ranking.crown(row, r.upper_total)
        elif r.lower_total >= ranking.best_total:
            row["status"] = "cannot beat"
        else:
            row["status"] = "open"
        ranking.rows.append(row)
        if progress is not None:
            progress(f"opener {k + 1}/{len(cands)} {row['word']}: {row['status']}, lower {row['lower']:.6f}")


def _deeper_bounds(prob, root, open1, lower_of, best_total, deadline, progress) -> list[int]:
    """The first guesses of ``open1`` still below ``best_total`` one level deeper (in chunks of
    64 while time is left; the rest stay open), by their bound; ``lower_of`` is raised."""
    open2 = []
    deep_done = 0
    for c0 in range(0, len(open1), 64):
        if _past(deadline):
            open2.extend(open1[c0:])
            break
        chunk = open1[c0:c0 + 64]
        deep = prob.engine.deep_guess_bounds(root, prob.game.max_turns, chunk, limit=best_total)
        for i, v in zip(chunk, deep):
            lower_of[i] = max(lower_of[i], float(v))
            if lower_of[i] < best_total:
                open2.append(i)
        deep_done += len(chunk)
        if progress is not None:
            progress(f"deeper bounds: {deep_done}/{len(open1)} first guesses, {len(open2)} still open")
    open2.sort(key=lambda i: (lower_of[i], i))
    return open2


def _search_others(game, prob, open2, lower_of, ranking: _Ranking, deadline) -> tuple[list[int], list[str]]:
    """A limit-mode search of each first guess of ``open2`` while time is left: ``(still open,
    words searched)``; a proved better opener joins the ranking as its best."""
    still_open = []
    searched = []
    for i in open2:
        if _past(deadline):
            still_open.append(i)
            continue
        r = solve(game, opener=i, problem=prob, time_limit=_time_left(deadline), limit=ranking.best_total)
        lower_of[i] = max(lower_of[i], r.lower_total)
        searched.append(game.probes[i])
        if r.proved and r.upper_total < ranking.best_total:  # a better opener outside the list
            row = _row(r, None)
            ranking.rows.append(row)
            ranking.crown(row, r.upper_total)
        elif r.lower_total < ranking.best_total:
            still_open.append(i)
    return still_open, searched
