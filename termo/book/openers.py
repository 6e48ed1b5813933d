"""The opener book, one layer above the solver: the interface opener, the optimal openers, and
the level-3 opener cache. The solver never imports this module.

* Level 1/2 optimum = the level's own decision over every answer at turn 1 (cheap, not cached).
* Level 3 optimum = the level-3 decision over every answer at turn 1 (the root beam of K+1
  guesses, each evaluated exactly): a search of seconds to minutes, so it is cached.
* The interface opener is the game's fixed ``default_opener`` (Termo: `tarso`) at every level
  and temperature (docs/rules.md, "Openers"): the optimum relabelled if it is the optimum;
  otherwise that word with its entropy (level 3: its expected value from the cached search,
  when there is one) and the optimum as the first alternative. A game without a default opener,
  or whose default cannot be typed, gets the optimum.

Cache: the folder ``openers/`` in ``termo.core.paths.cache_dir()``, one checksummed file per key
(:mod:`termo.core.entry_store`, written atomically), backed by the shipped bundle
``data/openers.json`` (the default configuration). Entries are validated when read (known
words, finite values in range, shapes); a damaged one is reported and recomputed. The key holds everything the value
depends on: level, T (``repr``, marked ``/stable`` where the prior is its stable form,
`termo.core.prior`) or a hash of a custom prior, K, P, loss cost, round limit,
probe/answer counts, the matrix signature and ``search_signature()`` (a hash of the search
code's tokens, comments and docstrings excluded). ``recompute=True`` ignores both files.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import time
import tokenize
import weakref
from pathlib import Path

from backends.host_ops.sources import TREE_SEARCH_SOURCES
from termo.core.decision import Choice, Decision
from termo.core.entry_store import EntryStore, bundle_get, number_in, write_bundle
from termo.core.messages import Message
from termo.core.paths import cache_dir, data_dir

CACHE_NAME = "openers.json"  # the shipped bundle (data/)
STORE_NAME = "openers"  # the user cache folder (cache_dir())
# The modules whose code decides the level-3 search result: the domain's, then the backend
# modules of the tree's host bookkeeping (``backends.host_ops.sources.TREE_SEARCH_SOURCES``).
# The entropy sweeps (termo/engine/entropy.py and the backends' sweeps) are left out on purpose, as in
# the reference: they only have to agree with their plain-Python oracle on the §5.2 order.
SEARCH_MODULES = ("termo/engine/level3.py", "termo/engine/tree_search.py", "termo/engine/ordering.py",
                  "termo/engine/level2.py", *TREE_SEARCH_SOURCES)


def _code_tokens(path: Path) -> str:
    """The module's tokens without comments, blank lines and statement-level strings (docstrings)."""
    out = []
    prev = tokenize.NEWLINE
    skip_newline = False
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
              if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)]
    for i, tok in enumerate(tokens):
        if skip_newline and tok.type == tokenize.NEWLINE:
            skip_newline = False
            continue
        skip_newline = False
        if tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if nxt is None or nxt.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                skip_newline = True  # a docstring or bare string statement, and its line end
                continue
        out.append(f"{tok.type}:{tok.string}")
        prev = tok.type
    return "\n".join(out)


@functools.lru_cache(maxsize=None)
def code_signature(modules: tuple[str, ...]) -> str:
    """First 12 hex digits of sha256 over the code tokens of ``modules`` (paths in the repository)."""
    root = Path(__file__).resolve().parents[2]  # the repository
    digest = hashlib.sha256()
    for name in modules:
        digest.update(name.encode())
        digest.update(_code_tokens(root / name).encode("utf-8"))
    return digest.hexdigest()[:12]


def search_signature() -> str:
    """First 12 hex digits of sha256 over the search modules' code tokens."""
    return code_signature(SEARCH_MODULES)


def cache_key(solver) -> str:
    """The level-3 opener cache key of a solver configuration."""
    from termo.engine.matrix import matrix_signature

    game = solver.game
    if solver.custom_prior:
        prior = "prior=" + hashlib.sha256(solver.sweeper.prior.tobytes()).hexdigest()[:16]
    else:  # the prior's stable form (T below ~1e-306) is marked: entries of its NaN past are not read
        prior = f"T={solver.t!r}" + ("/stable" if getattr(solver, "stable_prior", False) else "")
    return (f"game={game.label};level=3;{prior};K={solver.beam};P={solver.depth};D={solver.loss!r};R={game.max_turns};"
            f"E={solver.endgame};S={game.n_probes};A={game.n_answers};M={matrix_signature(game)};"
            f"B={search_signature()}")


def shipped_path() -> Path:
    """The shipped bundle of opener entries (the default configuration)."""
    return data_dir() / CACHE_NAME


def user_path() -> Path:
    """The folder of the user's opener cache: one checksummed file per configuration."""
    return cache_dir() / STORE_NAME


def entry_path(solver) -> Path:
    """The user cache file of this configuration's level-3 opener."""
    return EntryStore(user_path()).path(cache_key(solver))


def entry_problem(solver, entry) -> str | None:
    """Why ``entry`` cannot be this configuration's opener entry (None: it is sound).

    Words must be probes of the game (display form); bits lie in [0, log2(answers)]; expected
    values in [1, turn limit + loss cost] (a loss costs the loss on top of every turn played,
    rules §6.1), or null for a game that level 2 decides (no costs); shapes as written by
    :func:`_entry_from_decision`."""
    game = solver.game
    n = game.n_answers
    top_bits = math.log2(n) + 1e-9 if n > 0 else 0.0
    top_cost = game.max_turns + float(solver.loss)

    def known(word) -> bool:
        if not isinstance(word, str):
            return False
        index = game.index_of(word)
        return index is not None and game.probes[index] == word

    def expected_ok(value) -> bool:
        return (value is None and not costs) or number_in(value, 1.0, top_cost)

    if not isinstance(entry, dict):
        return "not an object"
    if entry.get("n") != n or isinstance(entry.get("n"), bool):
        return f"answer count {entry.get('n')!r}, expected {n}"
    costs = entry.get("costs", [])
    if not isinstance(costs, list):
        return "costs is not a list"
    for row in costs:
        if not (isinstance(row, list) and len(row) == 2 and known(row[0]) and number_in(row[1], 1.0, top_cost)):
            return f"bad cost row {row!r}"
    if not known(entry.get("word")):
        return f"unknown word {entry.get('word')!r}"
    if not number_in(entry.get("bits"), 0.0, top_bits):
        return f"bits {entry.get('bits')!r} outside [0, {top_bits:.4f}]"
    if not expected_ok(entry.get("expected")):
        return f"expected {entry.get('expected')!r} outside [1, {top_cost:g}]"
    if not isinstance(entry.get("is_candidate", True), bool):
        return "is_candidate is not a boolean"
    if not isinstance(entry.get("reason", ""), str):
        return "reason is not a string"
    alternatives = entry.get("alternatives", [])
    if not isinstance(alternatives, list):
        return "alternatives is not a list"
    for row in alternatives:
        if not (isinstance(row, list) and len(row) == 4 and known(row[0]) and number_in(row[1], 0.0, top_bits)
                and expected_ok(row[2]) and isinstance(row[3], bool)):
            return f"bad alternative {row!r}"
    seconds = entry.get("seconds", 0.0)
    if not number_in(seconds, 0.0, math.inf):
        return f"seconds {seconds!r}"
    return None


def lookup(solver) -> dict | None:
    """The cached level-3 opener entry of this configuration (user cache, then shipped data).
    Entries are checksummed and validated (:func:`entry_problem`); a damaged one is reported on
    stderr and read as missing, so the caller recomputes it."""
    key = cache_key(solver)
    check = functools.partial(entry_problem, solver)
    entry = EntryStore(user_path(), "opener cache").get(key, check)
    if entry is None:
        entry = bundle_get(shipped_path(), key, check, "shipped openers")
    return entry


def store(solver, entry: dict, path: Path | None = None) -> bool:
    """Add the entry to the cache (the user cache folder by default, else the folder ``path``);
    False if it is not a sound entry (:func:`entry_problem`) or cannot be written. One file per
    configuration, written atomically: concurrent writers lose nothing."""
    if entry_problem(solver, entry) is not None:
        return False
    folder = user_path() if path is None else Path(path)
    return EntryStore(folder, "opener cache").put(cache_key(solver), entry)


def _entry_from_decision(decision: Decision, costs, n: int, seconds: float) -> dict:
    def row(c: Choice):
        return [c.word, c.bits, c.expected, c.is_candidate]

    return {
        "n": n,
        "word": decision.word,
        "bits": decision.choice.bits,
        "expected": decision.choice.expected,
        "is_candidate": decision.choice.is_candidate,
        "reason": decision.reason,
        "alternatives": [row(a) for a in decision.alternatives],
        "costs": [[w, c] for w, c in costs],
        "seconds": round(seconds, 3),
    }


def _decision_from_entry(game, entry: dict) -> Decision:
    def choice(word, bits, expected, is_candidate):
        return Choice(game.index_of(word), word, bits=bits, expected=expected, is_candidate=bool(is_candidate))

    best = choice(entry["word"], entry["bits"], entry["expected"], entry.get("is_candidate", True))
    alts = tuple(choice(*row) for row in entry.get("alternatives", []))
    return Decision(best, _stored_reason(entry), int(entry["n"]), alts)


def _stored_reason(entry: dict):
    """The reason an entry stored, with its catalogue code: the stored text is the level-3 root's
    reason (`termo.engine.strategies.expected_reason`) or, in a game too small for a search, level
    2's; any other text is kept as it is (it has no code)."""
    from termo.engine.strategies import expected_reason

    text = entry.get("reason", "lowest expected number of guesses")
    known = [Message(f"maximum entropy over {entry['n']} candidates", "reason.entropy", m=int(entry["n"]))]
    if isinstance(entry.get("expected"), (int, float)):
        known.append(expected_reason(entry["expected"]))
    return next((reason for reason in known if str(reason) == text), text)


def search_level3(solver, progress=None):
    """Run the level-3 opener search (no cache): (Decision, [(word, cost) ranked], seconds)."""
    start = time.perf_counter()
    game = solver.game
    everything = list(range(game.n_answers))
    found = solver.root_search(everything, 1, progress=progress)
    if found is None:  # tiny games: level 2 decides
        return solver.decide(everything, 1), [], time.perf_counter() - start
    decision, ranked = found
    costs = [(game.probes[g], c) for g, c in ranked]
    return decision, costs, time.perf_counter() - start


def optimal_opener(solver, progress=None, recompute: bool = False) -> Decision:
    """The optimum opener of the solver's level (level 3: from the cache unless ``recompute``)."""
    game = solver.game
    everything = range(game.n_answers)
    if solver.level < 3:
        return solver.decide(everything, 1)
    if not recompute:
        entry = lookup(solver)
        if entry is not None:
            if progress is not None:
                progress(1, 1)
            return _decision_from_entry(game, entry)
    decision, costs, seconds = search_level3(solver, progress)
    store(solver, _entry_from_decision(decision, costs, game.n_answers, seconds))
    return decision


def default_opener(solver) -> Decision:
    """The game's interface opener (see the module docstring)."""
    game = solver.game
    index = None if game.default_opener is None else game.index_of(game.default_opener)
    if index is None:
        return optimal_opener(solver)
    everything = list(range(game.n_answers))
    expected = None
    if solver.level < 3:
        optimum = opener(solver, optimal=True)
    else:
        entry = lookup(solver)
        optimum = _decision_from_entry(game, entry) if entry is not None else None
        if entry is not None:
            expected = dict((w, c) for w, c in entry.get("costs", [])).get(game.probes[index])
    if optimum is not None and optimum.index == index:
        reason = Message(f"default opener, also the optimum ({optimum.reason})", "reason.default_is_optimum",
                         reason=optimum.reason)
        return Decision(optimum.choice, reason,
                        optimum.candidates, optimum.alternatives)
    bits = solver.sweeper.entropy_of(index, everything)
    best = Choice(index, game.probes[index], bits=bits, expected=expected,
                  is_candidate=index < game.n_answers)
    alts = ()
    if optimum is not None:
        alts = tuple([optimum.choice] + [a for a in optimum.alternatives if a.index != index])
        alts = alts[: solver.alternatives]
    return Decision(best, Message("default opener (the fixed first word)", "reason.default_opener"), game.n_answers,
                    alts)


_LOW_LEVEL_OPTIMA: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # solver -> level 1/2 optimum


def opener(solver, optimal: bool = False, progress=None, recompute: bool = False) -> Decision:
    """The first guess of ``solver``'s configuration. ``optimal=False``: the game's interface
    opener; ``optimal=True``: the configuration's optimum (level 3: searched once, then cached;
    levels 1/2: computed once per solver)."""
    if not optimal:
        return default_opener(solver)
    if solver.level < 3 and not recompute:
        if solver not in _LOW_LEVEL_OPTIMA:
            _LOW_LEVEL_OPTIMA[solver] = optimal_opener(solver)
        return _LOW_LEVEL_OPTIMA[solver]
    return optimal_opener(solver, progress=progress, recompute=recompute)


def decide(solver, candidates, turn: int, progress=None, allowed=None) -> Decision:
    """``solver.decide``, except that a level-3 decision on every answer at turn 1 is the
    book's (cached) optimum opener instead of a fresh search. ``allowed`` (the hard-mode mask
    over the probes, see `termo.engine.solver.Solver.decide`) is passed on; a mask that rules nothing
    out (the first turn) leaves the book's answer unchanged."""
    from termo.engine.hard_mode import restrictive

    cands = list(candidates)
    hard = restrictive(allowed)
    if solver.level == 3 and int(turn) == 1 and len(cands) == solver.game.n_answers and not hard:
        return optimal_opener(solver, progress=progress)
    if not hard:
        return solver.decide(cands, turn)
    return solver.decide(cands, turn, allowed=allowed)


class SolverBook:
    """A solver behind a book: what the book does not answer itself is the solver's (its
    ``game``, ``level``, ``tree``...). `Book` for one board, `termo.book.boards.BoardsBook` for several."""

    def __init__(self, solver):
        self.solver = solver

    def __getattr__(self, name):
        if name == "solver":  # not set yet (a copy being made): no solver to ask
            raise AttributeError(name)
        return getattr(self.solver, name)


class Book(SolverBook):
    """A solver with its opener book: what the interface layers (`termo.interface.suggest.Advisor`) ask.

    ``decide`` and ``opener`` go through the book (see :func:`decide`, :func:`opener`); ``game``,
    ``level`` and ``tree`` (the level-3 search, whose progress reports the interface directs)
    are the solver's.
    """

    def decide(self, candidates, turn: int, progress=None, allowed=None) -> Decision:
        return decide(self.solver, candidates, turn, progress, allowed)

    def opener(self, optimal: bool = False, progress=None, recompute: bool = False) -> Decision:
        return opener(self.solver, optimal=optimal, progress=progress, recompute=recompute)


def write_shipped(game, progress=None) -> dict:
    """Recompute the default configuration's level-3 opener of ``game`` and write it to the
    shipped ``data/openers.json`` (run after any change to the search code), and its entry of
    the data manifest (`termo.core.manifest`)."""
    from termo.core import manifest
    from termo.engine.solver import Solver

    solver = Solver(game, level=3)
    decision, costs, seconds = search_level3(solver, progress)
    entry = _entry_from_decision(decision, costs, solver.game.n_answers, seconds)
    write_bundle(shipped_path(), {cache_key(solver): entry})
    manifest.write([shipped_path().name])
    return entry


if __name__ == "__main__":  # python -m termo.book.openers: refresh data/openers.json (the registry's default game)
    import json

    from termo.games import DEFAULT_GAME, get_game

    print(json.dumps(write_shipped(get_game(DEFAULT_GAME)), ensure_ascii=False, indent=1))
