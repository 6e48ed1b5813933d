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


def level3_candidates(game, t: float = 1.0, backend=None) -> list[tuple[str, float]]:
    """The level-3 opener and its alternatives, ``(word, E)`` in level-3 order (the opener
    cache: shipped for Termo at T = 1, searched otherwise)."""
    from termo.book.openers import optimal_opener
    from termo.engine.solver import Solver

    decision = optimal_opener(Solver(game, level=3, t=t, backend=backend))
    rows = [decision.choice] + list(decision.alternatives)
    return [(c.word, float(c.expected)) for c in rows]


def rank_openers(game, candidates=None, *, t: float = 1.0, hard: bool = False, time_limit: float | None = None,
                 backend=None, progress=None) -> dict:
    """Plain data: per candidate ``word``, ``beam`` (level 3's E when known), ``lower``,
    ``upper``, ``proved``, ``status`` (``best``, ``cannot beat``, ``open``); the best opener and
    its value; ``others_open`` (first guesses outside the list whose root bound is below the best
    value) and ``others_lower`` (the least such bound); ``proved_global`` when nothing is open."""
    start = time.perf_counter()
    if candidates is None:
        candidates = level3_candidates(game, t, backend)
    cands = [(c, None) if isinstance(c, str) else (str(c[0]), c[1]) for c in candidates]
    if not cands:
        raise TermoError("no candidate opener")
    prob = Problem(game, hard=hard, t=t, backend=backend)
    deadline = None if time_limit is None else start + float(time_limit)
    rows = []
    best = None
    best_total = math.inf
    for k, (word, beam) in enumerate(cands):
        left = None
        if deadline is not None:
            left = max(1.0, (deadline - time.perf_counter()) / (len(cands) - k))
        r = solve(game, opener=word, problem=prob, time_limit=left if left is not None else 1e9,
                  limit=None if best is None else best_total, progress=progress)
        scale = r.upper_total / r.upper if r.upper else 1.0
        row = {"word": r.opener, "beam": beam, "lower": r.lower, "upper": r.upper, "proved": r.proved,
               "seconds": r.seconds, "nodes": r.nodes}
        if r.proved and r.upper_total < best_total:
            if best is not None:
                best["status"] = "cannot beat"
            best, best_total = row, r.upper_total
            row["status"] = "best"
        elif r.lower_total >= best_total:
            row["status"] = "cannot beat"
        else:
            row["status"] = "open"
        rows.append(row)
        if progress is not None:
            progress(f"opener {k + 1}/{len(cands)} {row['word']}: {row['status']}, lower {row['lower']:.6f}")
    # every other first guess: the one-pass bound at the root, then (normal mode) one level
    # deeper for those it leaves below the best value, then a limit-mode search for the rest
    root = prob.root()
    R = game.max_turns
    bounds = prob.engine.guess_bounds(root, R)
    listed = {game.index_of(row["word"]) for row in rows}
    others = [i for i in range(game.n_probes) if i not in listed]
    open1 = sorted((i for i in others if bounds[i] < best_total), key=lambda i: (float(bounds[i]), i))
    lower_of = {i: float(bounds[i]) for i in others}
    deep_done = 0
    open2 = list(open1)
    searched = []
    if not hard and open1:
        open2 = []
        for c0 in range(0, len(open1), 64):
            if deadline is not None and time.perf_counter() >= deadline:
                open2.extend(open1[c0:])
                break
            chunk = open1[c0:c0 + 64]
            deep = prob.engine.deep_guess_bounds(root, R, chunk, limit=best_total)
            for i, v in zip(chunk, deep):
                lower_of[i] = max(lower_of[i], float(v))
                if lower_of[i] < best_total:
                    open2.append(i)
            deep_done += len(chunk)
            if progress is not None:
                progress(f"deeper bounds: {deep_done}/{len(open1)} first guesses, {len(open2)} still open")
        open2.sort(key=lambda i: (lower_of[i], i))
    still_open = []
    for i in open2:
        if deadline is not None and time.perf_counter() >= deadline:
            still_open.append(i)
            continue
        left = None if deadline is None else max(1.0, deadline - time.perf_counter())
        r = solve(game, opener=i, problem=prob, time_limit=left if left is not None else 1e9, limit=best_total)
        lower_of[i] = max(lower_of[i], r.lower_total)
        searched.append(game.probes[i])
        if r.proved and r.upper_total < best_total:  # a better opener outside the list
            rows.append({"word": r.opener, "beam": None, "lower": r.lower, "upper": r.upper, "proved": True,
                         "seconds": r.seconds, "nodes": r.nodes, "status": "best"})
            if best is not None:
                best["status"] = "cannot beat"
            best, best_total = rows[-1], r.upper_total
        elif r.lower_total < best_total:
            still_open.append(i)
    scale = prob.weight(root) if prob.weighted else float(game.n_answers)
    remaining = [i for i in still_open if lower_of[i] < best_total]
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
