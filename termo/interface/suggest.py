"""What to play next: the library behind `termo suggest`, `termo opener` and `termo play`.

`Advisor` holds the solvers of one configuration (level, temperature, beam, depth, backend) and
answers "what now?" for a candidate set with the configured level at every candidate count
(level 3 searches even the largest sets; ``progress(done, total)`` follows the search). With no
round played yet the answer is the opener: the default one (`tarso`, like the reference
interface) or the optimum of the configuration.
In hard mode (``Config(hard=True)``, `termo.engine.hard_mode`) the session rejects illegal guesses and
the suggestion is a legal guess; the opener is unchanged (every first guess is legal).

`suggest()` and `opener_report()` return plain data: the keys of `Decision.as_dict()`
(``candidates, word, bits, expected, is_candidate, reason, alternatives``); the opener report
has the same keys without ``candidates``.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from typing import Callable, Sequence

from termo.core.errors import TermoError
from termo.core.prior import check_temperature, t_label

LEVELS = (1, 2, 3)
OPENERS = ("default", "optimal")

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
        if self.level == 3:
            text += f", beam {self.beam}, depth {self.depth}"
        if self.hard:
            text += ", hard mode"
        return text


def _make_solver(game, level, config: Config):
    from termo.book.openers import Book
    from termo.engine.solver import Solver

    return Book(Solver(
        game,
        level=level,
        t=config.t,
        beam=config.beam,
        depth=config.depth,
        backend=config.backend,
    ))


def _search_progress(solver, progress: Progress | None):
    """A context in which ``solver``'s level-3 searches report to ``progress(done, total)``
    (`termo.engine.level3.TreeSearch.reporting`); a no-op for other levels and for solvers without a
    search tree (test fakes)."""
    if progress is None or getattr(solver, "level", None) != 3 or getattr(solver, "tree", None) is None:
        return contextlib.nullcontext()
    return solver.tree.reporting(progress)


class Advisor:
    """The solvers of one configuration, created lazily and reused between questions.

    `solver_factory(game, level, config)` builds a solver (tests pass a fake one); by default it
    is `termo.engine.solver.Solver`.
    """

    def __init__(self, game, config: Config | None = None, solver_factory=None, tree=None):
        self.game = game
        self.config = config or Config()
        self.config.check_game(game)
        self._factory = solver_factory or _make_solver
        self._solvers: dict[int, object] = {}
        self._tree_spec = tree  # None/False: live only; "auto": a stored tree; a Tree or a file
        self._tree = _UNSET

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
            self._solvers[level] = self._factory(self.game, level, self.config)
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
            note = "hard mode changes nothing here: every first guess is legal"
            decision = dataclasses.replace(decision, reason=f"{decision.reason} ({note})")
        return decision

    def next_move(self, session, progress: Progress | None = None):
        """The `Decision` for a `termo.engine.session.Session` (the opener before any round)."""
        return self.move(session, progress=progress)[0]

    def move(self, session, progress: Progress | None = None):
        """``(Decision, source)`` for a session: ``source`` is ``{"source": "tree", "tree":
        method}`` when the stored tree answered (the rounds so far are on its path: instant,
        no search); ``{"source": "live"}`` when a tree serves this configuration but the live
        search answered (the opener, or the player left the tree); ``{}`` when no tree is in
        play (the plain-data contract of a configuration without a tree is unchanged)."""
        hard = self.config.hard or getattr(session, "hard", False)
        live = {"source": "live"} if self.tree is not None else {}
        if not session.rounds:
            return self.opener(progress=progress, hard=hard), live
        walked = self.tree_move(session)
        if walked is not None:
            return walked
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
        reason = (f"the stored {tree.method} tree's move (instant, no search): "
                  f"{choice.expected:.3f} guesses expected from here on its path")
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
    progress: Progress | None = None,
    on_warning: Callable[[str], None] | None = None,
    advisor: Advisor | None = None,
    remaining: int | None = None,
    tree=None,
) -> dict:
    """The suggestion after the history items ``guess:pattern`` (none: the opener).

    Returns ``Decision.as_dict()``; where a stored strategy tree serves the configuration
    (``tree``: ``"auto"``, a file or a `termo.trees.model.Tree`; see `Advisor.tree`) also
    ``source``: ``"tree"`` (with ``tree``, the tree's method) when the tree answered, else
    ``"live"``; with ``remaining`` (n >= 1) also the key ``remaining``: the
    first n candidates (display forms, most probable first, `Session.most_likely`). A history
    whose last round is a win gives ``{"solved": True, "turn": k, "candidates": 1, "word":
    <the answer>, "bits": None, "expected": None, "is_candidate": True, "reason": "solved in
    k/6", "alternatives": []}`` (the key ``solved`` appears only then). With no history the
    reason says which opener it is and how to ask for the other. Raises TermoError for a bad
    item, an impossible pattern, a round that leaves no candidate, or a round after a win; in hard mode
    (``hard``, or the advisor's configuration) also for a guess that breaks the rule of the
    rounds before it, and the suggestion is a legal guess. Warnings (a word outside the probe
    list) go to `on_warning`.
    """
    from termo.engine.session import Session

    if game is None:
        from termo.games import get_game

        game = get_game(None, extended=extended)
    config = Config(level=level, t=t, beam=beam, depth=depth, opener=opener, backend=backend, hard=hard)
    advisor = advisor or Advisor(game, config, tree=tree)
    session = Session(game, hard=hard or advisor.config.hard)
    outcomes = session.replay(history)
    if on_warning is not None:
        for outcome in outcomes:
            for warning in outcome.warnings:
                on_warning(warning)
    if session.won:
        turn = len(session.rounds)
        data = {"solved": True, "turn": turn, "candidates": 1, "word": session.rounds[-1].guess,
                "bits": None, "expected": None, "is_candidate": True,
                "reason": f"solved in {turn}/{game.max_turns}", "alternatives": []}
        if remaining is not None:
            data["remaining"] = [data["word"]]
        return data
    if session.out_of_turns:
        played = len(session.rounds)
        extra = f" ({played} rounds given)" if played > game.max_turns else ""
        raise TermoError(f"the game is over: all {game.max_turns} tries were played{extra}, there is no "
                         f"try {played + 1} to suggest", "game.over", {"tries": game.max_turns, "next": played + 1})
    decision, source = advisor.move(session, progress=progress)
    data = decision.as_dict()
    data.update(source)
    if not session.rounds:
        data["reason"] = _opener_note(game, data, optimal=advisor.config.opener == "optimal")
    if remaining is not None:
        data["remaining"] = session.most_likely(max(int(remaining), 1))
    return data


def _opener_note(game, data: dict, optimal: bool) -> str:
    """The opener's reason, with which opener it is (the game's interface opener or the
    configuration's optimum) and how to ask for the other."""
    reason = data.get("reason", "")
    interface = getattr(game, "default_opener", None)
    if not interface or "also the optimum" in reason:
        return reason
    if optimal:
        if data.get("word") == interface:
            return reason
        return (f"{reason}; the optimum of this configuration, not the game's interface opener "
                f"{interface} (--opener default plays {interface})")
    alternatives = data.get("alternatives") or []
    if reason.startswith("default opener (the fixed first word)") and alternatives:
        # `termo.book.openers.default_opener` lists the optimum first when it is known
        best = alternatives[0]["word"]
        return (f"{reason}; the game's interface opener, not the optimum of this configuration "
                f"({best}: --opener optimal plays it, `termo opener` shows it)")
    return (f"{reason}; the game's interface opener, not necessarily the optimum of this "
            f"configuration (`termo opener` shows the optimum, --opener optimal plays it)")


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
        out["reason"] = (f"{out.get('reason', '')}; the optimum of this configuration; the game's "
                         f"interface opener is {interface} (what `termo suggest` plays first)")
    return out


def _fmt(value, digits: int) -> str:
    """``value`` with ``digits`` decimals; a value that rounds to zero prints as 0 (never -0.0000)."""
    if value is None:
        return "-"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def format_decision(data: dict, max_alternatives: int = 10, uniform: bool = False) -> list[str]:
    """Plain-text lines for a decision dict (``suggest``/``opener_report`` output); ``uniform``:
    the game's prior is uniform, so the candidates are listed in list order, not by likelihood."""
    lines = []
    if data.get("solved"):
        lines.append(f"{data.get('reason', 'solved')}: {data['word']}")
        return lines
    if "candidates" in data:
        n = data["candidates"]
        lines.append(f"candidates left: {n}")
    if data.get("remaining"):
        shown = data["remaining"]
        more = f" (the first {len(shown)})" if len(shown) < data.get("candidates", len(shown)) else ""
        lines.append(f"all equally likely, in list order{more}:" if uniform else f"most likely first{more}:")
        for start in range(0, len(shown), 10):
            lines.append("  " + " ".join(shown[start:start + 10]))
    flag = "can be the answer" if data.get("is_candidate") else "cannot be the answer"
    lines.append(f"suggestion:      {data['word']}  ({flag})")
    lines.append(f"bits:            {_fmt(data.get('bits'), 4)}")
    if data.get("expected") is not None:
        lines.append(f"expected:        {_fmt(data['expected'], 3)} guesses (including this one)")
    lines.append(f"reason:          {data.get('reason', '')}")
    alternatives = data.get("alternatives") or []
    if alternatives:
        lines.append("alternatives (* = can be the answer):")
        width = max(len(a["word"]) for a in alternatives[:max_alternatives]) + 1
        for alt in alternatives[:max_alternatives]:
            word = alt["word"] + ("*" if alt.get("is_candidate") else "")
            text = f"  {word:<{width}}  {_fmt(alt.get('bits'), 4)} bits"
            if alt.get("expected") is not None:
                text += f"   E {_fmt(alt['expected'], 3)} guesses"
            lines.append(text)
    return lines
