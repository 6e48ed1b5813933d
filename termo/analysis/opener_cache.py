"""A disk cache for the level-2 optimal opener of a full world (as the reference's ``aberturas.json``).

The engine caches only the level-3 opener (a search of minutes); the level-2 opener is one
entropy sweep over every answer (a fraction of a second), which a battery would otherwise
repeat on every run. The key is the engine's own opener-cache key with ``level=2`` (prior or
temperature, probe/answer counts, matrix signature and the hash of the engine's search code), so
any change to what the opener depends on misses the cache. Storage is :mod:`termo.core.entry_store`
(one checksummed file per key, written atomically, safe under concurrent writers); entries are
checked against the game (answer count, index and word, bits in range) before use; a damaged
one is reported and recomputed; a failed write is ignored.
"""

from __future__ import annotations

import math

from termo.book import openers as book
from termo.core.entry_store import EntryStore, number_in
from termo.core.paths import cache_dir

STORE_NAME = "analysis-openers"  # a folder in cache_dir(): one checksummed file per key
WHAT = "analysis opener cache"


def _path():
    return cache_dir() / STORE_NAME


def _key(solver) -> str:
    from termo.book.openers import cache_key

    return cache_key(solver).replace("level=3;", "level=2;", 1)


def entry_path(solver):
    """The cache file of ``solver``'s level-2 opener."""
    return EntryStore(_path(), WHAT).path(_key(solver))


def entry_problem(solver, entry) -> str | None:
    """Why ``entry`` cannot be ``solver``'s level-2 opener (None: it is sound): the answer count,
    a probe index with its word, and bits in [0, log2(answers)]."""
    game = solver.game
    if not isinstance(entry, dict):
        return "not an object"
    if entry.get("n") != game.n_answers or isinstance(entry.get("n"), bool):
        return f"answer count {entry.get('n')!r}, expected {game.n_answers}"
    index = entry.get("index")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < game.n_probes:
        return f"index {index!r} is not a probe"
    if game.probes[index] != entry.get("word"):
        return f"word {entry.get('word')!r} is not probe {index}"
    bits = entry.get("bits")
    top = math.log2(game.n_answers) + 1e-9 if game.n_answers > 0 else 0.0
    if not number_in(bits, 0.0, top):
        return f"bits {bits!r} outside [0, {top:.4f}]"
    return None


def lookup(solver) -> dict | None:
    """The cached entry of ``solver``'s level-2 opener (checksummed and validated), or None."""
    return EntryStore(_path(), WHAT).get(_key(solver), lambda e: entry_problem(solver, e))


def store(solver, entry: dict) -> bool:
    """Cache ``entry`` (one atomic file per key); False when it is unsound or cannot be written."""
    if entry_problem(solver, entry) is not None:
        return False
    return EntryStore(_path(), WHAT).put(_key(solver), entry)


def level2_opener(solver) -> int:
    """The level-2 opener (probe index) of ``solver`` over every answer, from the cache if valid."""
    game = solver.game
    entry = lookup(solver)
    if entry is not None:
        return int(entry["index"])
    decision = book.decide(solver, range(game.n_answers), 1)
    store(solver, {"n": game.n_answers, "index": int(decision.index), "word": decision.word,
                   "bits": decision.choice.bits})
    return int(decision.index)
