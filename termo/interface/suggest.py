"""What to play next: the library behind `termo suggest`, `termo opener` and `termo play`, for a
game or a mode of several boards (a game is the mode of one board, `termo.games.mode.Mode`).

`Advisor` holds the solvers of one configuration (level, temperature, beam, depth, objective,
backend) and answers "what now?" for a position (`termo.interface.positions`). The code forks
once, where the solver is chosen (`_make_solver`): one board is the game's `Solver` behind the
opener book; several are `termo.engine.multi.factory.multi_solver`. What each family takes is
declared by it (`supports`, a `termo.core.supports.Supports`): an option it does not support is
refused with one line (`Config.check_mode`). One board: the configured level answers at every
candidate count (level 3 searches even the largest sets; ``progress(done, total)`` follows the
search); with no round played yet the answer is the opener, the default one (`tarso`, like the
reference interface) or the optimum of the configuration.
In hard mode (``Config(hard=True)``, `termo.engine.hard_mode`) the session rejects illegal guesses and
the suggestion is a legal guess; the opener is unchanged (every first guess is legal).

`suggest()` and `opener_report()` return plain data: the keys of `Decision.as_dict()` (one board:
``candidates, word, bits, expected, is_candidate, reason, alternatives``; several: ``mode, turn,
turns``, then ``level, objective, word, bits, p_solve, expected, reason, alternatives``, then
``boards``); the opener report has the one-board keys without ``candidates``.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from typing import Callable, Sequence

from termo.core.errors import TermoError
from termo.core.messages import Message, with_note
from termo.core.prior import check_temperature, t_label
from termo.interface.positions import as_mode, position

LEVELS = (1, 2, 3)
OPENERS = ("default", "optimal")
OBJECTIVES = ("finish", "score", "win")  # what a solver may minimise (one board: finish, its expected guesses)

Progress = Callable[[int, int], None]


_UNSET = object()
MAX_BEAM = 100  # level 3: guesses per search node; memory grows with it (0.56 GB at 150, 4.9 GB at 600)


@dataclass(frozen=True)
class Config:
    """One solver configuration, as chosen on the command line."""

    level: int = 3
    t: float = 1.0
    beam: int = 10
    depth: int = 1
    opener: str = "default"  # "default" (the game's interface opener) or "optimal"
    backend: str | None = None
    hard: bool = False  # hard mode: greens stay in place, revealed letters are reused
    objective: str = "finish"  # several boards: finish, score or win (one board: finish)

    def __post_init__(self):
        if self.level not in LEVELS:
            raise TermoError(f"level must be 1, 2 or 3, not {self.level}", "option.level", {"value": self.level})
        check_temperature(self.t)  # the one check of T (termo.core.prior), also NaN
        if self.beam < 1:
            raise TermoError(f"beam must be at least 1, not {self.beam}", "option.at_least",
                             {"name": "beam", "low": 1, "value": self.beam})
        if self.depth < 0:
            raise TermoError(f"depth must be at least 0, not {self.depth}", "option.at_least",
                             {"name": "depth", "low": 0, "value": self.depth})
        if self.opener not in OPENERS:
            raise TermoError(f"opener must be 'default' or 'optimal', not {self.opener!r}", "option.opener",
                             {"value": self.opener})
        if self.objective not in OBJECTIVES:
            raise TermoError(f"unknown objective {self.objective!r}; choose one of: {', '.join(OBJECTIVES)}",
                             "objective.unknown", {"name": str(self.objective)[:40], "choices": list(OBJECTIVES)})

    def check_mode(self, mode) -> None:
        """Raise TermoError when ``mode`` (a game is the mode of one board) cannot take this
        configuration: a level, an objective or an option its solvers do not support
        (`supports`), or a search that asks more of its game than it has (`check_game`)."""
        family = supports(mode)
        name = mode.label
        model = mode.game.feedback
        if model.kind not in family.feedback:
            raise TermoError(f"{name}: its colours are {model.describe()}; its boards are not played together")
        if self.level not in family.levels:
            where = "a mode of several boards" if mode.boards > 1 else name
            raise TermoError(f"--level for {where} is {family.level_text()}, not {self.level}",
                             "level.mode", {"level": str(self.level)})
        unsupported = [flag for flag, given, key in (
            ("--hard", self.hard, "hard"), ("--opener optimal", self.opener != "default", "opener_choice"),
            ("--beam", self.beam != Config.beam, "search_options"),
            ("--depth", self.depth != Config.depth, "search_options")) if given and not getattr(family, key)]
        if unsupported:
            raise refused(unsupported[0], name, None if model.honest else model.describe())
        if self.objective not in family.objectives:
            raise objective_refused(self.objective, name)
        if family.search_options:
            self.check_game(mode.game)

    def check_game(self, game) -> None:
        """Raise TermoError when the search asks more of ``game`` than it has: a beam of more
        guesses than its probes (each state of the search holds ``beam`` of them), a depth
        beyond its last try (the search cannot look past it)."""
        name = getattr(game, "title", "") or getattr(game, "name", "the game")
        probes = getattr(game, "n_probes", None)
        if probes is not None and self.beam > probes and probes <= MAX_BEAM:
            raise TermoError(f"beam must be at most {probes:,} (the probe count of {name}), not {self.beam:,}",
                             "option.beam_probes", {"high": probes, "game": name, "value": self.beam})
        if self.beam > MAX_BEAM:
            raise TermoError(f"beam must be at most {MAX_BEAM} (the search's memory grows with the beam: "
                             f"150 after tarso:BBBBB took 0.56 GB, 600 took 4.9 GB), not {self.beam:,}",
                             "option.beam_memory", {"high": MAX_BEAM, "value": self.beam})
        turns = getattr(game, "max_turns", None)
        if turns is not None and self.depth > max(turns - 1, 0):
            raise TermoError(f"depth must be at most {max(turns - 1, 0)} ({name} has {turns} tries: "
                             f"the search cannot look past the last one), not {self.depth:,}", "option.depth_tries",
                             {"high": max(turns - 1, 0), "game": name, "tries": turns, "value": self.depth})

    def describe(self, game=None) -> str:
        """``level 3, T=1, beam 10, depth 1``; a game whose prior is uniform (``game``) has no T."""
        t = t_label(self.t)
        uniform = bool(getattr(game, "uniform_prior", False))
        text = f"level {self.level}" + ("" if uniform else f", T={t}")
        if self.level == 3 and getattr(getattr(game, "feedback", None), "honest", True):
            text += f", beam {self.beam}, depth {self.depth}"
        if self.hard:
            text += ", hard mode"
        return text


def answered_at_once(mode, config: Config, history) -> bool:
    """Whether the answer to ``history`` is read from a book rather than searched: the interface
    opener of one board (no round played, the default opener: `termo.book.openers.default_opener`
    never searches), or the kept first move of several boards (`termo.book.boards`)."""
    if history:
        return False
    if mode.boards == 1:
        return config.opener == "default"
    from termo.book.boards import has_first_move

    return has_first_move(mode, config.level, config.objective, config.t)


def import_solvers() -> None:
    """Import the solvers of one board and several and the opener books ahead of the first
    question (a server's worker does it while nobody waits)."""
    import termo.book.boards  # noqa: F401
    import termo.book.openers  # noqa: F401
    import termo.engine.multi.factory  # noqa: F401
    import termo.engine.solver  # noqa: F401


def objective_refused(objective: str, name: str) -> TermoError:
    """The one line for ``--objective`` other than finish on the one board of ``name``."""
    return TermoError(f"--objective {objective} is for a mode of several boards; {name} has one board (its "
                      f"solvers minimise the expected number of guesses)", "option.objective_boards",
                      {"objective": objective, "game": name})


def refused(flag: str, name: str, model: str | None = None) -> TermoError:
    """The one line for an option of one board asked of the mode ``name`` of several (``model``:
    of the one board of a game whose colours are not honest, the model's description)."""
    key = flag.lstrip("-").split()[0].replace("-", "_")  # --opener optimal -> opener
    if model is not None:
        return TermoError(f"{flag} is not taken by {name}: its colours are {model}", "option.feedback_model",
                          {"option": key, "game": name})
    return TermoError(f"{flag} is for one board; {name} has several (see docs/modes.md)", "option.one_board",
                      {"option": key, "mode": name})


def supports(mode):
    """What the solvers of ``mode`` take (`termo.core.supports.Supports`): the one-board family's
    declaration, or the several-board one's."""
    if mode.boards == 1:
        if not mode.game.feedback.honest:  # a family of its model's (termo.engine.feedback_models)
            from termo.engine.feedback_models import supports_for

            return supports_for(mode.game)
        from termo.engine.factory import SUPPORTS
    else:
        from termo.engine.multi.factory import SUPPORTS
    return SUPPORTS


def _make_solver(game, level, config: Config):
    """The one fork between one board and several: the solver of ``game`` (a game, or a mode) at ``level``."""
    mode = as_mode(game)
    if mode.boards > 1:
        from termo.book.boards import BoardsBook
        from termo.engine.multi.factory import multi_solver

        return BoardsBook(multi_solver(mode, level=level, objective=config.objective, backend=config.backend,
                                       t=config.t))
    if not mode.game.feedback.honest:  # the solvers of its model (termo.engine.feedback_models)
        from termo.engine.feedback_models import solver_for

        return solver_for(mode.game, level, t=config.t, hard=config.hard)
    from termo.book.openers import Book
    from termo.engine.solver import Solver

    return Book(Solver(
        mode.game,
        level=level,
        t=config.t,
        beam=config.beam,
        depth=config.depth,
        backend=config.backend,
    ))


def _search_progress(solver, progress: Progress | None):
    """A context in which ``solver``'s level-3 searches report to ``progress(done, total)``
    (`termo.engine.tree_search.TreeSearch.reporting`); a no-op for other levels and for solvers without a
    search tree (test fakes)."""
    if progress is None or getattr(solver, "level", None) != 3 or getattr(solver, "tree", None) is None:
        return contextlib.nullcontext()
    return solver.tree.reporting(progress)


def _boards_decision(solver, state, progress: Progress | None):
    """``solver.decide(state)`` of several boards; ``progress(done, total)`` reaches a solver
    whose ``decide`` takes one, or one that keeps it as its ``progress`` attribute (for this call)."""
    import inspect

    try:
        takes = "progress" in inspect.signature(solver.decide).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin or a C callable
        takes = False
    if progress is None or (not takes and not hasattr(solver, "progress")):
        return solver.decide(state)
    if takes:
        return solver.decide(state, progress=progress)
    before = solver.progress
    solver.progress = progress
    try:
        return solver.decide(state)
    finally:
        solver.progress = before


class Advisor:
    """The solvers of one configuration for a game or a mode, created lazily and reused between
    questions.

    `solver_factory(game, level, config)` builds a solver (tests pass a fake one; several boards:
    ``solver_factory(mode, level, config)``); by default
    `_make_solver`: the game's `termo.engine.solver.Solver` behind the opener book, or the
    several-board solver.
    """

    def __init__(self, game, config: Config | None = None, solver_factory=None, tree=None):
        self.mode = as_mode(game)
        self.game = self.mode.game
        self.config = config or Config()
        self.config.check_mode(self.mode)
        self._factory = solver_factory or _make_solver
        self._solvers: dict[int, object] = {}
        self._tree_spec = tree  # None/False: live only; "auto": a stored tree; a Tree or a file
        self._tree = _UNSET

    @property
    def supports(self):
        """What this advisor's solvers take (`supports`)."""
        return supports(self.mode)

    def refused(self, flag: str) -> TermoError:
        """The error of an option this mode's solvers do not take (``--tree`` on several boards)."""
        return refused(flag, self.mode.label)

    @property
    def tree(self):
        """The stored strategy tree this advisor walks (`termo.trees`), or None.

        ``tree="auto"``: the shipped or cached tree that serves this configuration exactly
        (`termo.trees.store.find_tree`: same game, lists, rules, T, hard mode, level, beam,
        depth, and the interface opener as its root; ``--opener optimal`` walks none). A
        `termo.trees.model.Tree` or a file name: that tree, which must be of this game and its
        rules, T and hard mode (TermoError otherwise)."""
        if self._tree is _UNSET:
            self._tree = self._resolve_tree(self._tree_spec)
        return self._tree

    def _resolve_tree(self, spec):
        if spec is None or spec is False:
            return None
        if not self.supports.trees:
            if isinstance(spec, str) and spec == "auto":
                return None
            raise self.refused("--tree")
        config, game = self.config, self.game
        if isinstance(spec, str) and spec == "auto":
            if config.opener != "default" or not getattr(game, "default_opener", None):
                return None
            from termo.trees.store import find_tree

            return find_tree(game, config.level, config.t, config.hard, config.beam, config.depth,
                             game.default_opener)
        from termo.trees.model import tree_key

        if isinstance(spec, (str, bytes)) or hasattr(spec, "__fspath__"):
            from termo.trees.fileformat import read_tree

            spec, _ = read_tree(spec, game)
        if spec.key != tree_key(game, config.t, config.hard):
            raise TermoError(f"the {spec.method} tree was built for other options of {game.label} "
                             f"(T or hard mode differ): it cannot be walked here")
        return spec

    def solver(self, level: int | None = None):
        level = self.config.level if level is None else level
        if level not in self._solvers:
            board = self.game if self.mode.boards == 1 else self.mode  # a factory is given the game, or the mode
            self._solvers[level] = self._factory(board, level, self.config)
        return self._solvers[level]

    def decide(self, candidates, turn: int, allowed=None, progress: Progress | None = None):
        """The `Decision` for a candidate set (ascending answer indices) at a 1-based turn;
        ``allowed`` is the hard-mode mask over the probes (None: every probe). The configured
        level answers whatever the number of candidates; ``progress(done, total)`` is called as
        a level-3 search advances."""
        hard = {} if allowed is None else {"allowed": allowed}
        n = int(len(candidates)) if not hasattr(candidates, "shape") else int(candidates.shape[0])
        if n == 0:
            raise TermoError("no candidate left", "game.no_candidate")
        solver = self.solver()
        with _search_progress(solver, progress):
            return solver.decide(candidates, turn, **hard)

    def opener(self, optimal: bool | None = None, progress: Progress | None = None, hard: bool | None = None):
        """The first guess: the default opener, or the configuration's optimum. In hard mode
        (``hard``, default the configuration's) it is the same: every first guess is legal."""
        if optimal is None:
            optimal = self.config.opener == "optimal"
        decision = self.solver().opener(optimal=optimal, progress=progress)
        if self.config.hard if hard is None else hard:
            note = Message("hard mode changes nothing here: every first guess is legal", "note.hard_opener")
            decision = dataclasses.replace(decision, reason=with_note(decision.reason, note))
        return decision

    def position(self, hard: bool | None = None):
        """An empty position of this advisor's mode (`termo.interface.positions.position`)."""
        return position(self.mode, hard=self.config.hard if hard is None else hard)

    def move(self, where, progress: Progress | None = None):
        """``(Decision, source)`` for a position (`termo.interface.positions`) or a one-board
        `termo.engine.session.Session`. Several boards: the solver's decision, ``source`` {}.
        One board: ``source`` is ``{"source": "tree", "tree": method}`` when the stored tree
        answered (the rounds so far are on its path: instant, no search); ``{"source": "live"}``
        when a tree serves this configuration but the live search answered (the opener, or the
        player left the tree); ``{}`` when no tree is in play (the plain-data contract of a
        configuration without a tree is unchanged)."""
        if getattr(where, "boards", 1) > 1:
            return _boards_decision(self.solver(), where.state, progress), {}
        session = getattr(where, "session", where)
        hard = self.config.hard or getattr(session, "hard", False)
        live = {"source": "live"} if self.tree is not None else {}
        if not session.rounds:
            return self.opener(progress=progress, hard=hard), live
        walked = self.tree_move(session)
        if walked is not None:
            return walked
        by_session = getattr(self.solver(), "decide_session", None)  # a model whose rows carry weights
        if by_session is not None:
            return by_session(session, progress=progress), live
        allowed = session.allowed_probes() if getattr(session, "hard", False) else None
        return self.decide(session.candidates, session.turn, allowed=allowed, progress=progress), live

    def tree_move(self, session):
        """The stored tree's ``(Decision, source)`` for the session, or None (no tree, or the
        player left it: `termo.trees.walker.tree_move`)."""
        tree = self.tree
        if tree is None or bool(getattr(session, "hard", False)) != tree.hard:
            return None
        from termo.core.decision import Decision
        from termo.core.feedback import encode
        from termo.trees.walker import tree_move

        history = [(r.probe, encode(r.pattern)) for r in session.rounds]
        choice = tree_move(tree, self.game, history, session.candidate_list(), session.matrix())
        if choice is None:
            return None
        reason = Message(f"the stored {tree.method} tree's move (instant, no search): "
                         f"{choice.expected:.3f} guesses expected from here on its path", "reason.tree",
                         expected=choice.expected)
        return Decision(choice, reason, session.n_candidates, ()), {"source": "tree", "tree": tree.method}


def suggest(
    game=None,
    history: Sequence[str] = (),
    level: int = 3,
    t: float = 1.0,
    beam: int = 10,
    depth: int = 1,
    extended: bool = False,
    opener: str = "default",
    *,
    backend: str | None = None,
    hard: bool = False,
    objective: str = "finish",
    progress: Progress | None = None,
    on_warning: Callable[[str], None] | None = None,
    advisor: Advisor | None = None,
    remaining: int | None = None,
    tree=None,
) -> dict:
    """The suggestion after the history items (none: the opener) for ``game``, a game or a mode
    of several boards (None: ``$TERMO_GAME``, else Termo).

    One board: items ``guess:pattern``; returns ``Decision.as_dict()``; where a stored strategy
    tree serves the configuration (``tree``: ``"auto"``, a file or a `termo.trees.model.Tree`; see
    `Advisor.tree`) also ``source``: ``"tree"`` (with ``tree``, the tree's method) when the tree
    answered, else ``"live"``; with ``remaining`` (n >= 1) also the key ``remaining``: the first n
    candidates (display forms, most probable first, `Session.most_likely`). A history whose last
    round is a win gives ``{"solved": True, "turn": k, "candidates": 1, "word": <the answer>,
    "bits": None, "expected": None, "is_candidate": True, "reason": "solved in k/6",
    "alternatives": []}`` (the key ``solved`` appears only then). With no history the reason says
    which opener it is and how to ask for the other. In hard mode (``hard``, or the advisor's
    configuration) a guess that breaks the rule of the rounds before it is refused, and the
    suggestion is a legal guess.

    Several boards: items ``guess:p1/.../pB`` (`termo.interface.positions`); returns ``mode``,
    ``turn`` (the turn to play), ``turns`` (the limit), the decision's keys and ``boards`` (per
    board: ``board``, ``solved``, ``solved_on``, ``candidates``, ``sample``); a won game has
    ``solved: True`` and no word.

    Raises TermoError for a bad item, an impossible pattern, a round that leaves no candidate, or
    a round after a win, and for an option the game's solvers do not take (`Config.check_mode`).
    Warnings (a word outside the probe list) go to `on_warning`.
    """
    if game is None:
        from termo.games import get_game

        game = get_game(None, extended=extended)
    config = Config(level=level, t=t, beam=beam, depth=depth, opener=opener, backend=backend, hard=hard,
                    objective=objective)
    advisor = advisor or Advisor(game, config, tree=tree)
    where = advisor.position(hard or advisor.config.hard)
    where.replay(history, on_warning)
    if where.won:
        return where.solved_data(remaining)
    if where.out_of_turns:
        raise where.over_error()
    decision, source = advisor.move(where, progress=progress)
    data = where.answer(decision, source, remaining)
    if not where.played and where.boards == 1 and advisor.game.feedback.honest:
        data["reason"] = _opener_note(advisor.game, data, optimal=advisor.config.opener == "optimal")
    return data


def _opener_note(game, data: dict, optimal: bool):
    """The opener's reason, with which opener it is (the game's interface opener or the
    configuration's optimum) and how to ask for the other."""
    reason = data.get("reason", "")
    interface = getattr(game, "default_opener", None)
    code = getattr(reason, "code", None)
    if code == "reason.with_note":  # a hard-mode note on the opener: the note's reason says which opener
        code = getattr(reason.params.get("reason"), "code", None)
    if not interface or code == "reason.default_is_optimum":
        return reason
    if optimal:
        if data.get("word") == interface:
            return reason
        return Message(f"{reason}; the optimum of this configuration, not the game's interface opener "
                       f"{interface} (--opener default plays {interface})", "reason.optimum_not_interface",
                       reason=reason, opener=interface)
    alternatives = data.get("alternatives") or []
    if code == "reason.default_opener" and alternatives:
        # `termo.book.openers.default_opener` lists the optimum first when it is known
        best = alternatives[0]["word"]
        return Message(f"{reason}; the game's interface opener, not the optimum of this configuration "
                       f"({best}: --opener optimal plays it, `termo opener` shows it)", "reason.interface_not_optimum",
                       best=best)
    return Message(f"{reason}; the game's interface opener, not necessarily the optimum of this "
                   f"configuration (`termo opener` shows the optimum, --opener optimal plays it)",
                   "reason.interface_maybe_not_optimum")


def opener_report(
    game=None,
    level: int = 3,
    t: float = 1.0,
    beam: int = 10,
    depth: int = 1,
    extended: bool = False,
    *,
    backend: str | None = None,
    hard: bool = False,
    progress: Progress | None = None,
    advisor: Advisor | None = None,
) -> dict:
    """The optimal opener of a configuration and its alternatives (searched and cached when
    missing): the keys of `Decision.as_dict()` without ``candidates``. Hard mode does not change
    it (every first guess is legal); the reason says so."""
    if game is None:
        from termo.games import get_game

        game = get_game(None, extended=extended)
    config = Config(level=level, t=t, beam=beam, depth=depth, opener="optimal", backend=backend, hard=hard)
    advisor = advisor or Advisor(game, config)
    out = advisor.opener(optimal=True, progress=progress, hard=hard or advisor.config.hard).as_dict()
    out.pop("candidates", None)
    interface = getattr(game, "default_opener", None)
    if interface and out.get("word") != interface:
        reason = out.get("reason", "")
        out["reason"] = Message(f"{reason}; the optimum of this configuration; the game's interface opener is "
                                f"{interface} (what `termo suggest` plays first)", "reason.optimum_report",
                                reason=reason, opener=interface)
    return out
