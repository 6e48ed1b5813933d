"""A disk cache for the level-2 optimal opener of a full world (as the reference's ``aberturas.json``).

The engine caches only the level-3 opener (a search of minutes); the level-2 opener is one
entropy sweep over every answer (a fraction of a second), which a battery would otherwise
repeat on every run. The key is the engine's own opener-cache key with ``level=2`` (prior or
temperature, probe/answer counts, matrix signature and the hash of the engine's search code), so
any change to what the opener depends on misses the cache. Entries are checked against the game
(answer count and word) before use; an unreadable file counts as empty; a failed write is ignored.
"""

from __future__ import annotations

from termo import openers as book
from termo.cache import atomic_write_json, read_json
from termo.paths import cache_dir

CACHE_NAME = "analysis-openers.json"
FORMAT_VERSION = 1


def _path():
    return cache_dir() / CACHE_NAME


def _key(solver) -> str:
    from termo.openers import cache_key

    return cache_key(solver).replace("level=3;", "level=2;", 1)


def _entries() -> dict:
    data = read_json(_path())
    if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
        return {}
    entries = data.get("entries")
    return entries if isinstance(entries, dict) else {}


def level2_opener(solver) -> int:
    """The level-2 opener (probe index) of ``solver`` over every answer, from the cache if valid."""
    game = solver.game
    key = _key(solver)
    entry = _entries().get(key)
    if isinstance(entry, dict) and entry.get("n") == game.n_answers:
        index = entry.get("index")
        if isinstance(index, int) and 0 <= index < game.n_probes and game.probes[index] == entry.get("word"):
            return index
    decision = book.decide(solver, range(game.n_answers), 1)
    entries = _entries()
    entries[key] = {"n": game.n_answers, "index": int(decision.index), "word": decision.word,
                    "bits": decision.choice.bits}
    try:
        atomic_write_json(_path(), {"version": FORMAT_VERSION, "entries": entries})
    except OSError:
        pass
    return int(decision.index)
