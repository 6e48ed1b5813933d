"""Batteries of several-board modes (Dueto, Quarteto, Dordle, Quordle, Octordle, ...): docs/modes-batteries.md.

**The tuples.** A battery of ``n`` games of a mode with ``B`` boards plays ``n`` answer tuples,
drawn from the mode's answers by ``random.Random(seed)``: game ``i`` is the ``i``-th call of
``rng.sample(range(n_answers), B)`` (``B`` distinct answer indices, in board order). They depend
on the mode's answer count, ``B``, ``n`` and ``seed`` only, so every strategy and every run plays
the same tuples, and the first ``k`` tuples of a battery of ``n > k`` games are the battery of
``k`` games. `tuples_digest` names a list of tuples by its words (the peer's cache key).

**The lockstep.** All games are played together, turn by turn: on each turn the joint state of
every live game (the candidate arrays of its unsolved boards, in board order) is collected,
equal joint states are asked once, in one ``choose_many(states, turns)`` call for the whole turn
(`termo.engine.multi.level2.MultiSolver` and level 3's `MultiSearch` have it). Each board's colours are
read from the pattern matrix (answers are a prefix of the probes): the board is solved when the
code is the win pattern, else its candidates keep those of the same code.

**The figures**, per game: its *finish* is the turn on which its last board was solved (a lost
game counts the limit + 1); its *score* is the sum of every board's solve turn (a failed board
counts the limit + 1). Per strategy: ``win_rate``, ``mean_finish``, ``mean_score`` and
``histogram`` (games finished on turn 1, 2, ..., limit, then the losses: limit + 1 entries).
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from backends import get_backend, host
from termo.core.errors import TermoError
from termo.core.keys import candidate_key

LEVEL_NAMES = {"level2": 2, "level3": 3}
ALIASES = {"2": "level2", "3": "level3", "entropy": "level2", "l2": "level2", "l3": "level3"}
DEFAULT_STRATEGIES = ("level2", "level3")


# ------------------------------------------------------------------------------------ tuples
def mode_tuples(mode, n: int, seed: int = 0) -> list[tuple[int, ...]]:
    """The ``n`` answer tuples of a battery of ``mode`` (see the module docstring)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise TermoError(f"--n must be at least 1, got {n!r}")
    total, boards = mode.game.n_answers, mode.boards
    rng = random.Random(int(seed))
    population = range(total)
    return [tuple(rng.sample(population, boards)) for _ in range(n)]


def tuple_words(mode, tuples) -> list[list[str]]:
    """The tuples as answer words (display forms)."""
    answers = mode.game.answers
    return [[answers[i] for i in t] for t in tuples]


def tuples_digest(mode, tuples) -> str:
    """A short sha256 of the tuples' words (one line per game, words joined by spaces)."""
    text = "\n".join(" ".join(words) for words in tuple_words(mode, tuples))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def parse_mode_strategies(text: str | None) -> list[str]:
    """``level2,level3`` (also ``2``, ``3``, ``entropy``); TermoError for anything else."""
    names = []
    for raw in (text or ",".join(DEFAULT_STRATEGIES)).split(","):
        item = raw.strip().lower()
        if not item:
            continue
        item = ALIASES.get(item, item)
        if item not in LEVEL_NAMES:
            raise TermoError(f"unknown strategy {raw.strip()!r} for a mode (choose from level2, level3)")
        if item not in names:
            names.append(item)
    if not names:
        raise TermoError("--strategies needs at least one of level2, level3")
    return names


# ---------------------------------------------------------------------------------- lockstep
@dataclass
class ModeRun:
    """One lockstep run: per game, per board, the turn that solved it (0: failed)."""

    tuples: list[tuple[int, ...]]
    solved_on: list[list[int]]
    max_turns: int
    seconds: float = 0.0
    states_per_turn: list[int] = field(default_factory=list)  # live games at each turn
    decisions_per_turn: list[int] = field(default_factory=list)  # distinct joint states asked
    first_guess: int | None = None

    @property
    def games(self) -> int:
        return len(self.tuples)


class _Games:
    """The live state of every game: per board its candidate array and key (bytes)."""

    def __init__(self, n_answers: int, tuples) -> None:
        xp = host().xp
        everything = xp.arange(n_answers, dtype=xp.int64)
        key = candidate_key(everything)
        self.tuples = tuples
        self.cands = [[everything] * len(t) for t in tuples]
        self.keys = [[key] * len(t) for t in tuples]
        self.solved = [[0] * len(t) for t in tuples]
        self.live = list(range(len(tuples)))

    def unsolved(self, g: int) -> list[int]:
        return [b for b, turn in enumerate(self.solved[g]) if turn == 0]

    def joint_states(self) -> tuple[list, list[int]]:
        """The distinct joint states of the live games and, per live game, its state's slot."""
        slots: dict[tuple, int] = {}
        distinct, which = [], []
        for g in self.live:
            boards = self.unsolved(g)
            key = tuple(self.keys[g][b] for b in boards)
            slot = slots.setdefault(key, len(slots))
            if slot == len(distinct):
                distinct.append([self.cands[g][b] for b in boards])
            which.append(slot)
        return distinct, which


def _apply_turn(games: _Games, matrix, win_code: int, guesses: list[int], turn: int) -> int:
    """Colour every live board with its game's guess; returns the boards solved this turn."""
    xp = host().xp
    solved_now = 0
    filtered: dict = {}  # (guess, board key, code) -> new candidates: boards of equal state share it
    for g, guess in zip(games.live, guesses):
        row = matrix[guess]
        for b in games.unsolved(g):
            code = int(row[games.tuples[g][b]])
            if code == win_code:
                games.solved[g][b] = turn
                solved_now += 1
                continue
            memo = (guess, games.keys[g][b], code)
            if memo not in filtered:
                cands = games.cands[g][b]
                kept = cands[xp.take(row, cands) == code]
                filtered[memo] = (kept, candidate_key(kept))
            games.cands[g][b], games.keys[g][b] = filtered[memo]
    games.live = [g for g in games.live if 0 in games.solved[g]]
    return solved_now


def play_modes_lockstep(solver, mode, tuples: Sequence[Sequence[int]], *, matrix=None,
                        on_turn: Callable[[int, int, int], None] | None = None) -> ModeRun:
    """Play ``solver`` (``choose_many(states, turns)``) on every tuple of ``mode`` at once.

    ``matrix`` is the game's host pattern matrix (loaded when None). ``on_turn(turn, boards
    done, live games)`` is called after every turn (boards done: solved, or failed at the end).
    """
    game = mode.game
    if matrix is None:
        from termo.engine.matrix import pattern_matrix

        matrix = pattern_matrix(game, host())
    tuples = [tuple(int(i) for i in t) for t in tuples]
    for t in tuples:
        if len(t) != mode.boards or len(set(t)) != len(t) or min(t) < 0 or max(t) >= game.n_answers:
            raise TermoError(f"a tuple of {mode.label} holds {mode.boards} distinct answer indices, not {t}")
    start = time.perf_counter()
    games = _Games(game.n_answers, tuples)
    run = ModeRun(tuples, games.solved, mode.max_turns)
    done = 0
    for turn in range(1, mode.max_turns + 1):
        if not games.live:
            break
        distinct, which = games.joint_states()
        answers = [int(a) for a in solver.choose_many(distinct, [turn] * len(distinct))]
        if len(answers) != len(distinct):
            raise TermoError(f"the solver answered {len(answers)} states out of {len(distinct)}")
        if turn == 1:
            run.first_guess = answers[0]
        run.states_per_turn.append(len(games.live))
        run.decisions_per_turn.append(len(distinct))
        done += _apply_turn(games, matrix, game.win_code, [answers[w] for w in which], turn)
        if turn == mode.max_turns:
            done = games_total_boards(tuples)
        if on_turn is not None:
            on_turn(turn, done, len(games.live))
    run.seconds = time.perf_counter() - start
    return run


def games_total_boards(tuples) -> int:
    return sum(len(t) for t in tuples)


# ---------------------------------------------------------------------------------- figures
def game_figures(solved_on: Sequence[int], max_turns: int) -> tuple[int, int, bool]:
    """(finish, score, won) of one game from its boards' solve turns (0: failed)."""
    loss = max_turns + 1
    won = all(t > 0 for t in solved_on)
    finish = max(solved_on) if won else loss
    score = sum(t if t > 0 else loss for t in solved_on)
    return finish, score, won


def figures(per_game: Sequence[tuple[int, int, bool]], max_turns: int) -> dict:
    """win_rate, mean_finish, mean_score, histogram (turns 1..limit, then losses), games."""
    games = len(per_game)
    histogram = [0] * (max_turns + 1)
    for finish, _, won in per_game:
        histogram[finish - 1 if won else max_turns] += 1
    return {
        "games": games,
        "win_rate": sum(1 for *_, won in per_game if won) / games if games else None,
        "mean_finish": sum(f for f, _, _ in per_game) / games if games else None,
        "mean_score": sum(s for _, s, _ in per_game) / games if games else None,
        "histogram": histogram,
    }


def summarize_run(run: ModeRun, mode, strategy: str, **extra) -> dict:
    """The figures of one run as JSON-ready data (``lost``: the indices of the games lost)."""
    per_game = [game_figures(s, run.max_turns) for s in run.solved_on]
    out = {"strategy": strategy, "level": LEVEL_NAMES.get(strategy)}
    out.update(figures(per_game, run.max_turns))
    out.update({
        "lost": [i for i, (_, _, won) in enumerate(per_game) if not won],
        "finishes": [finish for finish, _, _ in per_game],
        "scores": [score for _, score, _ in per_game],
        "first_guess": mode.game.probes[run.first_guess] if run.first_guess is not None else None,
        "seconds": run.seconds,
        "seconds_per_game": run.seconds / run.games if run.games else None,
        "decisions": sum(run.decisions_per_turn),
    })
    out.update(extra)
    return out


def run_mode_battery(mode, strategies: Sequence[str] = DEFAULT_STRATEGIES, *, n: int = 100, seed: int = 0,
                     objective: str = "finish", t: float = 1.0, backend=None,
                     progress: Callable[[str, int, int], None] | None = None, per_game: bool = False) -> dict:
    """Every strategy on the same ``n`` tuples of ``mode`` (see the module docstring).

    ``progress(strategy, boards done, boards in all)`` follows each run. ``per_game``: each
    strategy's row also holds ``solved_on`` (per game, per board, 0 for failed).
    """
    from termo.engine.multi.factory import multi_solver
    from termo.engine.matrix import pattern_matrix

    tuples = mode_tuples(mode, n, seed)
    matrix = pattern_matrix(mode.game, host())
    load_kernels()
    backend_name = get_backend(backend).name
    total = games_total_boards(tuples)
    rows = {}
    for name in strategies:
        start = time.perf_counter()
        solver = multi_solver(mode, level=LEVEL_NAMES[name], objective=objective, backend=backend, t=t)
        setup = time.perf_counter() - start

        def on_turn(turn, done, live, _name=name):
            if progress is not None:
                progress(_name, done, total)

        run = play_modes_lockstep(solver, mode, tuples, matrix=matrix, on_turn=on_turn)
        row = summarize_run(run, mode, name, objective=objective, setup_seconds=setup, backend=backend_name)
        if per_game:
            row["solved_on"] = run.solved_on
        rows[name] = row
    return {"mode": mode.label, "game": mode.game.label, "boards": mode.boards, "turns": mode.max_turns,
            "answers": mode.game.n_answers, "n": n, "seed": seed, "tuples": tuples_digest(mode, tuples),
            "objective": objective, "strategies": rows}


def load_kernels() -> None:
    """A battery asks thousands of questions: the compiled kernels pay for loading numba (the
    per-board entropies take the same floats either way, `termo.engine.multi.stats`)."""
    from backends.host_ops.boards import load_numba

    load_numba()


def paired(first: Sequence[float], second: Sequence[float]) -> dict:
    """The per-game differences ``first − second`` of two players on the same games: their mean,
    standard deviation and the 95 % confidence interval of the mean (normal: mean ± 1.96·sd/√n)."""
    if len(first) != len(second) or not first:
        raise TermoError("paired figures need the same games, at least one")
    n = len(first)
    diffs = [float(a) - float(b) for a, b in zip(first, second)]
    mean = sum(diffs) / n
    sd = (sum((d - mean) ** 2 for d in diffs) / (n - 1)) ** 0.5 if n > 1 else 0.0
    half = 1.96 * sd / n ** 0.5
    return {"n": n, "mean": mean, "sd": sd, "ci95": [mean - half, mean + half],
            "first_better": sum(1 for d in diffs if d < 0), "second_better": sum(1 for d in diffs if d > 0)}


def paired_levels(result: dict, key: str = "finishes") -> dict | None:
    """Level 2 − level 3 per game (finish by default) when the battery played both."""
    rows = result["strategies"]
    if "level2" not in rows or "level3" not in rows:
        return None
    return paired(rows["level2"][key], rows["level3"][key])


def mode_markdown(result: dict) -> str:
    """A table of the strategies' figures."""
    lines = [f"{result['mode']}: {result['n']} games, {result['boards']} boards, {result['turns']} turns, "
             f"seed {result['seed']} (tuples {result['tuples']})", "",
             "| strategy | win rate | mean finish | mean score | histogram (turns 1..limit, losses) | seconds |",
             "|---|---|---|---|---|---|"]
    for name, row in result["strategies"].items():
        hist = " ".join(str(v) for v in row["histogram"])
        lines.append(f"| {name} | {row['win_rate']:.2%} | {row['mean_finish']:.3f} | {row['mean_score']:.3f} "
                     f"| {hist} | {row['seconds']:.1f} |")
    levels = paired_levels(result)
    if levels is not None:
        lo, hi = levels["ci95"]
        lines += ["", f"Level 2 − level 3, finish per game: mean {levels['mean']:+.4f}, 95 % interval "
                      f"[{lo:+.4f}, {hi:+.4f}] (level 3 sooner on {levels['second_better']} games, later on "
                      f"{levels['first_better']})"]
    return "\n".join(lines)
