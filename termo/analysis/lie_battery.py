"""A seeded battery of games whose rows lie (Fibble, docs/fibble.md, docs/rules.md §13.2).

Game ``i`` of a battery of seed ``s`` draws, from ``random.Random(f"{s}:{i}")``, its answer
(uniform over the answers, or by the prior with ``by_prior``) and, for every row of a wrong guess,
the lie: one of the rows the true colours show with one lie (`termo.engine.lies.lie_tables`: any
tile, either other colour, never all green), each equally likely, as the model says. The player is
`termo.engine.lie_solver.LieSolver` at ``level`` from ``opener`` (the game's by default); it sees
the shown rows only and keeps the candidates one lie away from every row, weighted by their chance
(the same update as `termo.engine.lies.LieSession`). A game not won within the rows is lost.

Decisions are memoised by state (its candidates and weights), so games that share a history share
their searches; the battery depends only on its inputs.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Callable

from backends import host
from termo.engine.lie_solver import LieSolver
from termo.engine.lies import lie_tables


def draw_game(game, rng: random.Random, prior=None) -> int:
    """The answer of one game (an index): uniform, or by ``prior`` (float weights)."""
    if prior is None:
        return rng.randrange(game.n_answers)
    return rng.choices(range(game.n_answers), weights=prior)[0]


def play_one(solver: LieSolver, answer: int, rng: random.Random, opener: int, memo: dict) -> dict:
    """One game against ``answer`` with lies drawn from ``rng``: its guesses, shown rows, and result."""
    xp = host().xp
    game = solver.game
    neighbours, chances, _ = lie_tables(game.word_length)
    members, weights = solver.state(range(game.n_answers))
    guesses, shown = [], []
    for turn in range(1, game.max_turns + 1):
        if turn == 1:
            guess = opener
        else:
            key = (turn, members.tobytes(), weights.tobytes())
            guess = memo.get(key)
            if guess is None:
                guess = memo[key] = solver.decide_state(members, weights, turn).index
        guesses.append(game.probes[guess])
        honest = int(solver.matrix[guess, answer])
        if honest == game.win_code:
            return {"answer": game.answers[answer], "won": True, "guesses": turn, "played": guesses, "shown": shown}
        row = [int(c) for c in neighbours[honest] if c >= 0]
        code = row[rng.randrange(len(row))]
        shown.append(code)
        codes = xp.take(xp.asarray(solver.matrix[guess]), members).astype(xp.int64)
        chance = xp.zeros(members.shape[0], dtype=xp.float64)
        for j in range(neighbours.shape[1]):  # the chance each member's true row shows ``code``
            chance = chance + xp.where(neighbours[codes, j] == code, chances[codes, j], 0.0)
        keep = chance > 0
        members, weights = members[keep], weights[keep] * chance[keep]
    return {"answer": game.answers[answer], "won": False, "guesses": game.max_turns + 1, "played": guesses,
            "shown": shown}


def run_lie_battery(game, n: int = 1000, seed: int = 0, level: int = 2, opener: str | None = None,
                    t: float = 1.0, by_prior: bool = False, progress: Callable | None = None) -> dict:
    """``n`` seeded games of ``game`` (see the module doc); plain data: wins, the mean guesses of
    the games won, the mean with a loss counted as rows + 1, the histogram and the seconds.
    ``progress(label, games done, games)`` follows each game (the batteries' one protocol)."""
    if game.feedback.kind != "lies":
        raise ValueError(f"{game.label}'s rows do not lie: `termo bench battery` plays it")
    started = time.time()
    solver = LieSolver(game, level=level, t=t)
    word = opener or game.default_opener
    first = game.index_of(word)
    if first is None:
        raise ValueError(f"{word!r} is not a guess of {game.label}")
    prior = [float(x) for x in solver.prior] if by_prior else None
    memo: dict = {}
    games = []
    for i in range(n):
        rng = random.Random(f"{seed}:{i}")
        games.append(play_one(solver, draw_game(game, rng, prior), rng, first, memo))
        if progress is not None:
            progress(f"level{level}", i + 1, n)
    won = [g["guesses"] for g in games if g["won"]]
    histogram = Counter(str(g["guesses"]) if g["won"] else "lost" for g in games)
    return {"game": game.label, "n": n, "seed": seed, "level": level, "opener": game.probes[first],
            "answers": "prior" if by_prior else "uniform", "rows": game.max_turns, "wins": len(won),
            "win_rate": len(won) / n if n else 0.0, "mean_won": sum(won) / len(won) if won else None,
            "mean_loss_as_rows_plus_1": sum(g["guesses"] for g in games) / n if n else None,
            "histogram": dict(sorted(histogram.items(), key=lambda kv: (kv[0] == "lost", kv[0].zfill(3)))),
            "decisions": len(memo), "seconds": round(time.time() - started, 1), "games": games}


def lie_markdown(result: dict) -> str:
    """The battery's table (one row a level): wins, mean of the games won, mean with a loss as rows + 1."""
    lines = [f"# {result['game']}: {result['n']:,} seeded games (seed {result['seed']})", "",
             "| level | opener | wins | win rate | mean (won) | mean (loss = rows + 1) | histogram | seconds |",
             "|---|---|---|---|---|---|---|---|"]
    for r in result["strategies"]:
        hist = ", ".join(f"{k}: {v}" for k, v in r["histogram"].items())
        mean_won = "-" if r["mean_won"] is None else f"{r['mean_won']:.4f}"
        lines.append(f"| {r['level']} | {r['opener']} | {r['wins']:,} | {r['win_rate']:.4f} | {mean_won} | "
                     f"{r['mean_loss_as_rows_plus_1']:.4f} | {hist} | {r['seconds']} |")
    return "\n".join(lines) + "\n"
