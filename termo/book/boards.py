"""The first move of several boards, kept like the one-board opener book (`termo.book.openers`).

Before the first turn every board of a mode holds every answer, so the solvers' first decision
(`termo.engine.multi`) depends on the configuration alone, and costs the most (Quad Nerdle at
level 3: a joint search over four boards of 17,723 answers, tens of seconds). `BoardsBook` wraps a
several-board solver: its first decision is computed once and kept in the user cache (the folder
``boards/`` in `termo.core.paths.cache_dir()`, one checksummed file per key, written atomically;
`termo.core.entry_store`), every later decision is the solver's. The key holds everything the
decision depends on: the mode (boards, turns), the level, the objective, T, the game's sizes and
matrix signature and a hash of the several-board solvers' code (`code_signature`). An entry is
validated when read (a known word, finite values in range); a damaged one is reported and
recomputed.
"""

from __future__ import annotations

import functools
import math

from termo.book.openers import SolverBook, code_signature
from termo.core.decision import Choice, Decision
from termo.core.entry_store import EntryStore, number_in
from termo.core.messages import Message
from termo.core.paths import cache_dir

STORE_NAME = "boards"  # the user cache folder (cache_dir())
# the modules whose code decides a several-board decision
MULTI_MODULES = ("termo/engine/multi/level2.py", "termo/engine/multi/level3.py", "termo/engine/multi/stats.py",
                 "termo/engine/multi/exact.py", "termo/engine/multi/boards.py")


def cache_key(solver) -> str:
    t = getattr(getattr(solver, "board_solver", None), "t", None)
    return key_of(solver.mode, solver.level, solver.objective.name, t)


def key_of(mode, level: int, objective: str, t) -> str:
    """The key of a configuration's first move (see the module docstring)."""
    from termo.engine.matrix import matrix_signature

    game = mode.game
    return (f"mode={mode.label};boards={mode.boards};turns={mode.max_turns};level={level};objective={objective};"
            f"T={t!r};S={game.n_probes};A={game.n_answers};M={matrix_signature(game)};C={code_signature(MULTI_MODULES)}")


def has_first_move(mode, level: int, objective: str, t) -> bool:
    """Whether the first move of this configuration is kept (then it is answered at once)."""
    return _store().path(key_of(mode, level, objective, float(t))).exists()


def _store() -> EntryStore:
    return EntryStore(cache_dir() / STORE_NAME, "first moves of several boards")


def _row(choice: Choice) -> list:
    return [choice.index, choice.bits, choice.expected, choice.p_solve]


def _entry(decision: Decision) -> dict:
    reason = decision.reason
    return {"choice": _row(decision.choice), "alternatives": [_row(a) for a in decision.alternatives],
            "reason": {"text": str(reason), "code": getattr(reason, "code", None),
                       "params": dict(getattr(reason, "params", {}))},
            "level": decision.level, "objective": decision.objective}


def entry_problem(game, entry) -> str | None:
    """Why ``entry`` cannot be a first move of ``game`` (None: it can)."""
    if not isinstance(entry, dict):
        return "not a record"
    rows = [entry.get("choice")] + list(entry.get("alternatives") or [])
    for row in rows:
        if not (isinstance(row, list) and len(row) == 4 and isinstance(row[0], int)
                and 0 <= row[0] < game.n_probes and number_in(row[1], 0.0, math.inf)
                and (row[2] is None or number_in(row[2], 0.0, math.inf)) and number_in(row[3], 0.0, 1.0)):
            return f"bad choice {row!r}"
    reason = entry.get("reason")
    if not (isinstance(reason, dict) and isinstance(reason.get("text"), str) and isinstance(reason.get("params"), dict)):
        return "bad reason"
    if not isinstance(entry.get("level"), int) or not isinstance(entry.get("objective"), str):
        return "bad level or objective"
    return None


def _decision(game, entry: dict) -> Decision:
    def choice(row) -> Choice:
        index, bits, expected, p_solve = row
        return Choice(index, game.probes[index], bits=bits, expected=expected, p_solve=p_solve)

    reason = entry["reason"]
    text = Message(reason["text"], reason["code"], **reason["params"]) if reason.get("code") else reason["text"]
    return Decision(choice(entry["choice"]), text, alternatives=tuple(choice(r) for r in entry["alternatives"]),
                    level=entry["level"], objective=entry["objective"])


def first_move(solver, state) -> Decision:
    """The solver's decision before the first turn, from the cache when it is there."""
    store = _store()
    key = cache_key(solver)
    entry = store.get(key, functools.partial(entry_problem, solver.game))
    if entry is not None:
        return _decision(solver.game, entry)
    decision = solver.decide(state)
    store.put(key, _entry(decision))
    return decision


class BoardsBook(SolverBook):
    """A several-board solver with its first move kept (`first_move`); everything else is the
    solver's (its ``level``, ``objective``, ``mode``, ``progress``...)."""

    @property
    def progress(self):
        return getattr(self.solver, "progress", None)

    @progress.setter
    def progress(self, value) -> None:
        self.solver.progress = value

    def decide(self, state) -> Decision:
        if state.turns == 0 and not state.over:
            return first_move(self.solver, state)
        return self.solver.decide(state)
