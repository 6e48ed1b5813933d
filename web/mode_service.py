"""What the mode endpoints compute (several boards at once: Dueto, Quarteto, Dordle, ...), as
plain functions of plain data, like `web.service` for one board (no HTTP here).

Each function checks its fields, calls the modes' request module (`termo.interface.modes`: the
same replay and the same errors as ``termo suggest --game dueto``) and returns ``(data,
warnings)``. ``data`` is the module's JSON contract plus ``reason_messages`` (the reason in each
board language, `web.mode_text.reason_messages`); a bad history raises
`termo.core.errors.TermoError` (the app answers 422 with its line and its catalogued languages).

The solvers of one (mode, level, objective) are kept (`SOLVERS`, a small LRU): the second request
reuses the first one's solver and its pattern matrices; one solver answers one question at a
time (a lock each), so a second configuration never waits for the first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from termo.core.errors import TermoError
from termo.interface import requests
from web.limits import MAX_ADVISORS, check_history, check_text

SAMPLE = 10  # candidates shown per board


def load_mode(name):
    """The mode a request names (a registry mode: dueto, quarteto, ...; one board is the game's
    own board, `web.service`)."""
    from termo.games import get_mode
    from termo.games.registry import MODE_NAMES, mode_name

    key = mode_name(check_text("mode", name or "dueto"))
    if key is None:
        shown = str(name)[:40]
        raise TermoError(f"unknown mode {shown!r}; choose one of: {', '.join(MODE_NAMES)}", "game.unknown",
                         {"name": shown, "choices": list(MODE_NAMES)})
    return get_mode(key)


def parse_level(value) -> int:
    """A mode's level: 2 (joint entropy) or 3 (expected objective), a JSON integer or its text."""
    return requests.parse_int("level", value, 2, 3)


class SolverCache:
    """A bounded LRU of joint solvers per (mode, level, objective), each with its lock."""

    def __init__(self, size: int = MAX_ADVISORS) -> None:
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, mode, level: int, objective: str):
        """``(solver, lock)`` for the configuration (built on first use)."""
        from termo.engine.multi.factory import multi_solver

        key = (mode.label, level, objective)
        with self._lock:
            entry = self._items.get(key)
            if entry is not None:
                self._items.move_to_end(key)
                return entry
        built = (multi_solver(mode, level=level, objective=objective), threading.Lock())
        with self._lock:
            entry = self._items.setdefault(key, built)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return entry

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


SOLVERS = SolverCache()


def check_options(mode: str = "dueto", level=2, objective: str = "finish") -> int:
    """The level of a request's options, checked before it is given to a lane (a refusal is
    answered at once, never behind a long search)."""
    from termo.engine.multi.level2 import check_objective

    load_mode(mode)
    check_objective(check_text("objective", objective))
    return parse_level(level)


def _with_messages(data: dict, mode) -> dict:
    from web.mode_text import reason_messages

    rendered = reason_messages(data.get("reason"), mode.game.label)
    if rendered is not None:
        data["reason_messages"] = rendered
    return data


def modes() -> tuple[list[dict], list[str]]:
    """Every mode: ``name``, ``title``, ``game``, ``boards``, ``turns`` and ``language``."""
    from termo.games import get_mode
    from termo.games.registry import MODE_NAMES

    out = []
    for name in MODE_NAMES:
        mode = get_mode(name)
        out.append({**mode.summary(), "language": mode.game.language})
    return out, []


def suggest(mode: str = "dueto", history=(), level=2, objective: str = "finish") -> tuple[dict, list[str]]:
    """The suggestion after ``history`` (`termo.interface.modes.suggest_mode`): ``mode``, ``turn``,
    ``turns``, the decision (``level``, ``objective``, ``word``, ``bits``, ``p_solve``,
    ``expected``, ``reason``, ``alternatives``) and ``boards`` (per board: ``board``, ``solved``,
    ``solved_on``, ``candidates``, ``sample``); a won game has ``solved: true`` and no word."""
    from termo.engine.multi.level2 import check_objective
    from termo.interface.modes import replay, suggest_mode

    items = check_history(history)
    m = load_mode(mode)
    lv = parse_level(level)
    goal = check_objective(check_text("objective", objective)).name
    state = replay(m, items)  # the history's own errors first, before a solver is built
    solver, lock = (None, None) if state.over else SOLVERS.get(m, lv, goal)
    if lock is None:
        data = suggest_mode(m, items, level=lv, objective=goal, state=state)
    else:
        with lock:
            data = suggest_mode(m, items, level=lv, objective=goal, solver=solver, state=state)
    return _with_messages(data, m), []


def boards(mode: str = "dueto", history=()) -> tuple[dict, list[str]]:
    """The boards a history leaves, without a suggestion (the board's last try, and a game
    over): ``mode``, ``turn``, ``turns``, ``won``, ``over`` and ``boards`` (as in `suggest`)."""
    from termo.interface.modes import boards_view, replay

    items = check_history(history)
    m = load_mode(mode)
    state = replay(m, items)
    data = {"mode": m.label, "turn": state.turns + 1, "turns": m.max_turns, "won": bool(state.won),
            "over": bool(state.over), "boards": boards_view(state, sample=SAMPLE)}
    return data, []
