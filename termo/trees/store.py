"""Where trees live: shipped ones in ``data/trees/`` and built ones under the cache directory.

A built tree is cached as ``<cache dir>/trees/<hash of its key>.tree.gz`` (the hash of
`cache_key`: the tree's key, which holds the game, the matrix signature over its lists and win
rule, the turn limit, the prior and hard mode, plus the method, level, beam and depth and the
opener), written atomically. `find_tree` returns the tree that may serve a live configuration:
the shipped and cached files are read (validated, `termo.trees.fileformat.read_tree`; a
damaged file is reported on stderr and skipped, a cached one also deleted); of those that
`Tree.serves` the configuration and start with the opener it plays, the best by `rank` is
used (a proved exact tree, else the lowest mean noted at build time: on Nerdle Classic the
level-3 playout, 2.9748, beats the practical tree, 3.0073). Parsed trees are kept per process.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from termo.core.cache import warn
from termo.core.errors import TermoError
from termo.core.paths import cache_dir, data_dir

SHIPPED = "trees"
CACHED = "trees"
PREFERENCE = ("exact", "practical", "level3")
_parsed: dict = {}


def shipped_dir() -> Path:
    return data_dir() / SHIPPED


def cache_folder() -> Path:
    return cache_dir() / CACHED


def cache_key(tree) -> str:
    return (f"{tree.key};method={tree.method};level={tree.level};K={tree.beam};P={tree.depth};"
            f"opener={tree.opener}")


def cache_path(tree) -> Path:
    """The cache file of ``tree`` (built trees go there unless told otherwise)."""
    digest = hashlib.sha256(cache_key(tree).encode("utf-8")).hexdigest()[:24]
    return cache_folder() / f"{tree.game}-{tree.method}-{digest}.tree.gz"


def load(path, game):
    """The tree in ``path`` for ``game`` (memoised by path, size and modification time), or None
    when it is damaged or for another game (reported on stderr when damaged)."""
    from termo.trees.fileformat import read_header, read_tree

    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        return None
    memo = (str(path), stat.st_size, stat.st_mtime_ns, game.label, id(game))
    if memo in _parsed:
        return _parsed[memo]
    tree = None
    try:
        payload, _ = read_header(path)
        if payload.get("game") == game.label:
            tree, _ = read_tree(path, game)
    except TermoError as err:
        if "the key differs" not in str(err):
            warn(f"stored trees: ignoring {err}")
            if path.parent == cache_folder():
                try:
                    path.unlink()
                except OSError:
                    pass
        tree = None
    _parsed[memo] = tree
    return tree


def candidates(game) -> list:
    """Every readable tree of ``game`` (shipped first, then cached)."""
    out = []
    for path in _files(game):
        tree = load(path, game)
        if tree is not None:
            out.append(tree)
    return out


def _files(game) -> list:
    out = []
    for folder in (shipped_dir(), cache_folder()):
        try:
            out.extend(sorted(p for p in folder.iterdir() if p.name.startswith(game.label + "-")
                              and p.name.endswith((".tree", ".tree.gz"))))
        except OSError:
            continue
    return out


def _header_view(payload: dict):
    """A node-less `Tree` with a header's fields (what `Tree.serves` and `rank` read)."""
    from termo.trees.model import Tree

    t = payload.get("t")
    beam, depth = payload.get("beam"), payload.get("depth")
    return Tree(game=payload.get("game"), key=payload.get("key"), method=payload.get("method"),
                opener=payload.get("opener"), root=None,
                t=float("inf") if t == "inf" else float(t) if isinstance(t, (int, float)) else 1.0,
                hard=bool(payload.get("hard")), level=int(payload.get("level") or 3),
                beam=None if beam is None else int(beam), depth=None if depth is None else int(depth),
                info=payload.get("info") if isinstance(payload.get("info"), dict) else {})


def find_tree(game, level: int, t: float, hard: bool, beam: int, depth: int, opener: str | None):
    """The stored tree that may serve this configuration (see the module docstring), or None.
    ``opener`` is the first guess the configuration plays (None: any). The headers are read
    first; only the chosen file is parsed whole."""
    from termo.trees.fileformat import read_header

    views = []
    for path in _files(game):
        try:
            payload, _ = read_header(path)
        except TermoError:
            load(path, game)  # reports it (and drops it from the cache)
            continue
        view = _header_view(payload)
        first = view.opener
        if (payload.get("game") == game.label and view.serves(game, level, t, hard, beam, depth)
                and (opener is None or (first is not None and game.index_of(first) == game.index_of(opener)))):
            views.append((rank(view), str(path), path))
    for _, _, path in sorted(views):
        tree = load(path, game)
        if tree is not None and (opener is None or tree.root.guess == game.index_of(opener)):
            return tree
    return None


def rank(tree) -> tuple:
    """The order in which serving trees are preferred: an exact tree the solver proved optimal,
    then the lowest mean noted when the tree was built (``info["eval"]``, a sealed header value;
    a tree without one last), then exact, practical, level 3."""
    proved = tree.method == "exact" and tree.info.get("proved") is True
    noted = tree.info.get("eval") if isinstance(tree.info.get("eval"), dict) else {}
    mean = noted.get("mean")
    mean = float(mean) if isinstance(mean, (int, float)) and not isinstance(mean, bool) else float("inf")
    return (not proved, mean, PREFERENCE.index(tree.method) if tree.method in PREFERENCE else 99)
