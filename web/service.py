"""What each API endpoint computes, as plain functions of plain data (no HTTP here), for a game or a
mode of several boards alike (a game is the mode of one board: one door, `termo.interface`).

Every function takes the request's fields (already typed by `web.models`: JSON numbers stay
numbers), checks them where the CLI checks its options (`termo.interface.requests`: the same
`parse_config`, `parse_int`, `parse_t`, `load_game`, so a bad value gets the same message), calls
the same library functions as the command, and returns ``(data, warnings)``: ``data`` is exactly what
the command prints with ``--json`` and ``warnings`` what it prints on stderr as ``warning: ...``.
A bad value raises `termo.core.errors.TermoError` (the app answers HTTP 422 with its one line).

The solvers of one configuration (`termo.interface.suggest.Advisor`, one board or several) are kept
in one small LRU cache, `ADVISORS`, so that a second request of the same game or mode and options
reuses the first one's solver and its caches; one advisor answers one question at a time, so each
configuration has a small pool of them (one per worker thread).
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from typing import Any, Callable

from termo.core.errors import TermoError
from termo.interface import requests
from web.limits import MAX_ADVISORS, WORKERS, check_history, check_text


def load_game(name: str | None, extended: bool = False, strict: bool = False):
    """The game of a request that plays one board (default termo; never ``$TERMO_GAME``: a
    request names its game)."""
    check_text("game", name or "termo")
    return requests.load_game(name or "termo", extended=bool(extended), strict=bool(strict))


def load_board(name: str | None, extended: bool = False, strict: bool = False):
    """The game or mode of a request (a `termo.games.mode.Mode`; default termo)."""
    check_text("game", name or "termo")
    return requests.load_mode(name or "termo", extended=bool(extended), strict=bool(strict))


class AdvisorCache:
    """A bounded LRU of `termo.interface.suggest.Advisor` pools per (game, configuration).

    One advisor answers one question at a time (its solvers memoise as they search), so each
    configuration keeps up to ``per_config`` advisors (one per worker thread): two requests of the
    same configuration run side by side instead of one worker waiting for the other. An extra
    advisor costs little (the pattern matrices are shared; ~2 MB of memo for Termo level 3).
    """

    def __init__(self, size: int = MAX_ADVISORS, per_config: int = WORKERS) -> None:
        self.size = size
        self.per_config = max(1, per_config)
        self._items: OrderedDict = OrderedDict()  # key -> list of (advisor, lock)
        self._lock = threading.Lock()

    @staticmethod
    def key(mode, config, tree=None) -> tuple:
        game = mode.game
        return (mode.label, game.label, game.name, bool(game.extended), getattr(game, "win_rule", ""), config, tree)

    @contextlib.contextmanager
    def use(self, game, config, tree=None):
        """An advisor of ``game`` (a game or a mode) and ``config`` for the block (``tree``: what
        `Advisor` is told about stored trees, "auto" or None): a free one of the pool, a new one
        while the pool is smaller than ``per_config``, else the first one when it is free."""
        from termo.interface.positions import as_mode
        from termo.interface.suggest import Advisor

        mode = as_mode(game)
        key = self.key(mode, config, tree)
        wait = False
        with self._lock:
            pool = self._items.get(key)
            if pool is None:
                pool = self._items[key] = []
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
            self._items.move_to_end(key)
            chosen = next((entry for entry in pool if entry[1].acquire(blocking=False)), None)
            if chosen is None and len(pool) < self.per_config:
                chosen = (Advisor(mode, config, tree=tree) if tree is not None else Advisor(mode, config),
                          threading.Lock())
                chosen[1].acquire()
                pool.append(chosen)
            elif chosen is None:
                chosen, wait = pool[0], True
        if wait:
            chosen[1].acquire()
        try:
            yield chosen[0]
        finally:
            chosen[1].release()

    def __len__(self) -> int:
        return len(self._items)

    def advisors(self) -> int:
        """How many advisors the pools hold together."""
        with self._lock:
            return sum(len(pool) for pool in self._items.values())

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


ADVISORS = AdvisorCache()


# ----------------------------------------------------------------------------- endpoints


def games() -> list[dict]:
    """``termo games --json``: the games, then the modes of several boards."""
    from termo.games.registry import listing

    return listing()


def games_data() -> tuple[list[dict], list[str]]:
    """`games` as ``(data, warnings)``, like the other endpoints."""
    return games(), []


def modes() -> tuple[list[dict], list[str]]:
    """Every mode of several boards: its `Mode.summary` and ``language``."""
    from termo.games import get_mode
    from termo.games.registry import MODE_NAMES

    return [{**get_mode(name).summary(), "language": get_mode(name).game.language} for name in MODE_NAMES], []


def _config(game, level, t, beam, depth, opener: str, hard: bool, objective="finish"):
    """The solver configuration of a request's options (`termo.interface.requests.parse_config`)."""
    return requests.parse_config(level, t, beam, depth, opener, None, hard=bool(hard), game=game,
                                 objective=check_text("objective", objective))


def _list(value):
    """``list``: how many of the most likely candidates to add (None: none)."""
    return None if value is None else requests.parse_int("list", value, 1)


def suggest(game: str | None = None, history=(), level=3, t=1.0, beam=10, depth=1,
            extended: bool = False, strict: bool = False, opener: str = "default", hard: bool = False,
            list: Any = None, no_tree: bool = False, objective: str = "finish",
            progress: Callable | None = None) -> tuple[dict, list[str]]:
    """``termo suggest HISTORY... --json`` with the same options (``list``: ``--list N``;
    ``no_tree``: ``--no-tree``), for a game or a mode of several boards (``game``: dueto, ...).
    Like the command, a stored strategy tree made for the exact configuration answers while the
    rounds follow it (``--tree FILE`` has no counterpart: a request does not choose the
    server's files)."""
    from termo.interface.suggest import suggest as library_suggest

    items = check_history(history)
    m = load_board(game, extended=extended, strict=strict)
    config = _config(m, level, t, beam, depth, check_text("opener", opener), hard, objective)
    remaining = _list(list)
    warnings: list[str] = []
    with ADVISORS.use(m, config, tree=requests.tree_spec(None, bool(no_tree))) as advisor:  # the command's default
        for flag, given, key in (("list", remaining is not None, "candidate_list"), ("no_tree", no_tree, "trees")):
            if given and not getattr(advisor.supports, key):
                raise advisor.refused(flag)
        data = library_suggest(m, items, advisor=advisor, progress=progress, on_warning=warnings.append,
                               remaining=remaining)
    return data, warnings


def opener(game: str | None = None, level=3, t=1.0, beam=10, depth=1, extended: bool = False,
           strict: bool = False, hard: bool = False, progress: Callable | None = None) -> tuple[dict, list[str]]:
    """``termo opener --json`` with the same options."""
    from termo.interface.suggest import opener_report

    g = load_game(game, extended=extended, strict=strict)
    config = _config(g, level, t, beam, depth, "optimal", hard)
    with ADVISORS.use(g, config) as advisor:
        data = opener_report(g, advisor=advisor, progress=progress)
    return data, []


def check_options(game: str | None = None, level=3, t=1.0, beam=10, depth=1, extended: bool = False,
                  strict: bool = False, hard: bool = False, opener: str = "default", objective: str = "finish",
                  boards: bool = True) -> int:
    """The level of a request's options, checked as `suggest` and `opener` check them (the same
    TermoError), before the request is given to a lane: a refusal is answered at once. ``boards``:
    a mode of several boards may be named (`suggest`), else one board only (`opener`)."""
    g = (load_board if boards else load_game)(game, extended=extended, strict=strict)
    return _config(g, level, t, beam, depth, check_text("opener", opener), hard, objective).level


def suggest_lane(game: str | None = None, history=(), level=3, t=1.0, beam=10, depth=1, extended: bool = False,
                 strict: bool = False, hard: bool = False, opener: str = "default", objective: str = "finish",
                 **_) -> str:
    """Where a suggestion runs, its options checked first (`check_options`'s errors): ``long`` for
    a level-3 search, ``short`` for an answer read from a book (`termo.interface.suggest.answered_at_once`:
    a one-board opener, a kept first move of several boards) or below level 3."""
    from termo.interface.suggest import answered_at_once

    m = load_board(game, extended=extended, strict=strict)
    config = _config(m, level, t, beam, depth, check_text("opener", opener), hard, objective)
    if config.level < 3 or answered_at_once(m, config, check_history(history)):
        return "short"
    return "long"


def feedback(guess: str, answer: str, game: str | None = None, strict: bool = False) -> tuple[dict, list[str]]:
    """``termo feedback GUESS ANSWER --json``: the colours of ``guess`` when the secret is ``answer``."""
    from termo.core.feedback import colours, render_squares

    check_text("guess", guess)
    check_text("answer", answer)
    g = load_game(game, strict=strict)
    gn, an = g.word_of(guess), g.word_of(answer, "answer")
    gi, ai = g.index_of(gn), g.index_of(an)
    if gi is not None and ai is not None and g.is_answer_index(ai) and g.wins(gi, ai):
        pattern = g.win_pattern
    else:
        pattern = colours(gn, an)
    return {"guess": guess, "answer": answer, "pattern": pattern, "squares": render_squares(pattern)}, []


def partition(guess: str, history=(), game: str | None = None, t=1) -> tuple[dict, list[str]]:
    """``termo partition GUESS HISTORY... --json``: how ``guess`` splits the candidates left."""
    from termo.interface.partition import guess_metrics, make_state

    items = check_history(history)
    check_text("guess", guess)
    g = load_game(game)
    state = make_state(g, items, requests.parse_t(t))
    data, warnings = guess_metrics(state, guess)
    return data, list(warnings)


def candidates(game: str | None = None, history=(), extended: bool = False, strict: bool = False,
               hard: bool = False, list: Any = None) -> tuple[dict, list[str]]:
    """The candidates ``history`` leaves, replayed strictly as `termo suggest` replays it (the
    same errors), without a suggestion. One board: ``{"candidates": n, "won": bool, "turn": next
    try, "remaining": [...]}`` (``remaining`` with ``list``: the n most likely,
    `Session.most_likely`); several: ``mode``, ``turn``, ``turns``, ``won``, ``over`` and
    ``boards`` (each board's ``board``, ``solved``, ``solved_on``, ``candidates``, ``sample``)."""
    from termo.interface.positions import position

    items = check_history(history)
    m = load_board(game, extended=extended, strict=strict)
    remaining = _list(list)
    if m.boards > 1 and remaining is not None:
        from termo.interface.suggest import refused

        raise refused("list", m.label)
    where = position(m, hard=bool(hard))
    warnings: list = []
    where.replay(items, warnings.append)
    if m.boards > 1:
        return where.boards_data(), warnings
    session = where.session
    data = {"candidates": 1 if session.won else session.n_candidates, "won": session.won,
            "turn": len(session.rounds) + 1}
    if remaining is not None:
        data["remaining"] = [session.rounds[-1].guess] if session.won else session.most_likely(remaining)
    return data, warnings


def review(game: str | None = None, history=(), guesses=(), answer=None, share_text=None, hard: bool = False, t=1.0,
           loss=None, objective: str = "finish", nodes=None, share: bool = False, number=None) -> tuple[dict, list[str]]:
    """``termo review ... --json`` (docs/review.md): every guess of a game against the best, or with
    ``share`` only its share text. ``game`` None (not given): the game a share text's header names,
    else termo."""
    from termo.interface.review import SHARE_TEXT_LIMIT, review_request

    if game is not None:
        check_text("game", game)
    game = game or None  # "" is the default: the share text's game, else termo
    if game is None and share_text is None:
        game = "termo"
    if answer is not None:
        check_text("answer", answer)
    history, guesses = check_history(history), check_history(guesses)
    if history and guesses:
        raise TermoError("give either history (guess:colours) or guesses (with answer or share_text), not both",
                         "review.mixed_items")
    if share_text is not None and len(share_text) > SHARE_TEXT_LIMIT:
        raise TermoError(f"share_text is too long: {len(share_text):,} characters, at most {SHARE_TEXT_LIMIT:,}",
                         "share.too_long", {"n": len(share_text), "limit": SHARE_TEXT_LIMIT})
    data = review_request(game, history or guesses, answer=answer, share_text=share_text, hard=hard, t=t, loss=loss,
                          objective=check_text("objective", objective), nodes=nodes, share=share, number=number)
    return data, []


__all__ = ["ADVISORS", "AdvisorCache", "TermoError", "candidates", "feedback", "games", "modes", "opener",
           "partition", "review", "suggest"]
