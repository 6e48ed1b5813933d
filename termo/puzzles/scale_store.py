"""The difficulty scale on disk: derived data, rebuilt when stale or damaged, never trusted blindly.

File: ``<cache dir>/puzzles/difficulty-<game>.json``, a sealed record (:func:`termo.core.cache.seal`)
written atomically. Its key is the sha256 of everything the scale depends on: this format, the
answer list, the win rule, the game's default opener, and the name and bytes of every stored tree
file the trees store could offer for the game (shipped ``data/trees/`` and built ones in the
cache), so a new, changed or removed tree makes the record stale. A record is used only when its
seal, format and key match and its content is a scale of this game: every answer once, each
with its own feedback-group size after the opener (recomputed: a resealed record whose values
belong to other equations is not served), a whole number of guesses >= 1 when it names a tree,
in the order the ranking rule gives.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from termo.core.cache import atomic_write_json, canonical_json, open_sealed, read_json, seal
from termo.core.paths import cache_dir

FORMAT = "termo-nerdle-difficulty-1"


def _tree_files(game) -> list[tuple[str, Path]]:
    try:
        from termo.trees.store import cache_folder, shipped_dir
    except ImportError:  # pragma: no cover - the trees package ships with termo
        return []
    found = []
    for kind, folder in (("shipped", shipped_dir()), ("cached", cache_folder())):
        try:
            names = sorted(p for p in folder.iterdir() if p.name.startswith(game.label + "-")
                           and p.name.endswith((".tree", ".tree.gz")))
        except OSError:
            continue
        found.extend((kind, p) for p in names)
    return found


def signature(game) -> str:
    """sha256 of what the scale of ``game`` depends on (module docstring)."""
    from termo.puzzles.archive import answers_digest

    trees = []
    for kind, path in _tree_files(game):
        try:
            trees.append([kind, path.name, hashlib.sha256(path.read_bytes()).hexdigest()])
        except OSError:
            continue
    parts = {"format": FORMAT, "game": game.label, "answers": answers_digest(game.answers),
             "win_rule": game.win_rule, "opener": game.default_opener, "trees": trees}
    return hashlib.sha256(canonical_json(parts).encode("utf-8")).hexdigest()


def path_for(game) -> Path:
    return cache_dir() / "puzzles" / f"difficulty-{game.label}.json"


def save(scale, key: str) -> None:
    """Write ``scale`` under ``key`` (a cache that cannot be written is only a slower next start)."""
    order = list(scale.order)
    record = {"format": FORMAT, "key": key, "opener": scale.opener, "source": scale.source,
              "order": order, "groups": [scale.groups[eq] for eq in order],
              "lengths": None if scale.lengths is None else [scale.lengths[eq] for eq in order]}
    try:
        atomic_write_json(path_for(scale.game), seal(record))
    except OSError:
        pass


def load(game, key: str):
    """The stored scale of ``game`` for ``key``, or None (missing, stale, damaged or inconsistent)."""
    from termo.puzzles.scale import Scale, opener_groups

    path = path_for(game)
    if not path.exists():
        return None
    payload, _problem = open_sealed(read_json(path), FORMAT, key)
    if payload is None:
        return None
    try:
        order, groups, lengths = payload["order"], payload["groups"], payload["lengths"]
        opener = payload["opener"]
        if not isinstance(order, list) or sorted(order) != sorted(game.answers) or len(groups) != len(order):
            return None
        if lengths is not None and (not _counts(lengths) or len(lengths) != len(order)):
            return None
        if not isinstance(opener, str) or game.index_of(opener) is None or not _counts(groups):
            return None
        mapped = dict(zip(order, groups))
        if mapped != opener_groups(game, opener):  # each equation's group, recomputed (~0.1 s)
            return None
        scale = Scale(game, opener, mapped, None if lengths is None else dict(zip(order, lengths)),
                      str(payload["source"]))
    except (KeyError, TypeError, ValueError):
        return None
    return scale if list(scale.order) == order else None


def _counts(values) -> bool:
    """A list of integers >= 1 (not booleans, not floats)."""
    return isinstance(values, list) and all(type(v) is int and v >= 1 for v in values)
