"""The tree file: one header line, then one line per node, written atomically, read back with
validation.

Line 1 is a sealed JSON object (`termo.core.cache.seal`: its own ``sha256``) with ``format``
(``termo-tree/1``), ``key`` (`termo.trees.model.tree_key`: game, matrix signature, turn limit,
prior, hard mode), ``game``, ``win_rule``, ``extended``, ``length``, ``method``, ``opener``,
``level``/``beam``/``depth`` (the configuration it stands in for), ``t``, ``hard``, ``nodes``,
``body_sha256`` (the hash of every line after the header) and ``info`` (builder notes).

Every following line is ``<path> <guess>``: the feedback patterns from the root to the node,
joined by ``.`` (``-`` for the root), and the guess played there, in the game's display form.
Lines are in preorder, children in ascending pattern code, so a parent always comes before its
children. Example (Nerdle)::

    -  48-32=16
    BBGBBYBB 1+8*6=49
    BBGBBYBB.GGBBBBGB 1+5*9=46

A name ending in ``.gz`` is gzip-compressed (no timestamp: the same tree gives the same bytes).
Reading rejects, with one line naming the file and the problem: a file that is not a tree, a
damaged header or body (checksums), another format version, a guess that is not a probe of the
game, a bad pattern, a win pattern with a child, a node whose parent is missing, a duplicate
node, and a tree built for another game or list (the key).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from pathlib import Path

from termo.core.cache import atomic_write_bytes, canonical_json, open_sealed, seal
from termo.core.errors import TermoError
from termo.trees.model import FORMAT, METHODS, Node, Tree

ROOT = "-"
GZIP_MAGIC = b"\x1f\x8b"
MAX_TREE_BYTES = 64 << 20  # the most a tree file may hold, uncompressed (Nerdle Classic's trees
# hold 0.5 MB): a gzip bomb stops here instead of inflating to gigabytes
_INFLATE_STEP = 1 << 20


def _pattern(code: int, length: int) -> str:
    from termo.core.feedback import decode

    return decode(int(code), length)


def body_lines(tree: Tree, game) -> list[str]:
    """The node lines of ``tree`` (see the module docstring)."""
    length = game.word_length
    out = []
    for path, node in tree.root.walk():
        text = ".".join(_pattern(c, length) for c in path) if path else ROOT
        out.append(f"{text} {game.probes[node.guess]}")
    return out


def header(tree: Tree, game, lines: list[str]) -> dict:
    return seal({
        "format": FORMAT,
        "key": tree.key,
        "game": tree.game,
        "win_rule": game.win_rule,
        "extended": bool(game.extended),
        "length": game.word_length,
        "method": tree.method,
        "opener": tree.opener,
        "level": tree.level,
        "beam": tree.beam,
        "depth": tree.depth,
        "t": "inf" if tree.t == float("inf") else float(tree.t),
        "hard": bool(tree.hard),
        "nodes": len(lines),
        "body_sha256": _digest(lines),
        "info": tree.info,
    })


def _digest(lines: list[str]) -> str:
    return hashlib.sha256(("\n".join(lines) + "\n").encode("utf-8")).hexdigest()


def dumps(tree: Tree, game) -> bytes:
    """The file's bytes (uncompressed)."""
    lines = body_lines(tree, game)
    head = canonical_json(header(tree, game, lines))
    return (head + "\n" + "\n".join(lines) + "\n").encode("utf-8")


def write_tree(tree: Tree, game, path) -> Path:
    """Write ``tree`` to ``path`` atomically (gzip when the name ends in ``.gz``)."""
    path = Path(path)
    data = dumps(tree, game)
    if path.name.endswith(".gz"):
        data = gzip.compress(data, compresslevel=9, mtime=0)
    atomic_write_bytes(path, data)
    return path


def _fail(path, problem: str):
    raise TermoError(f"{path}: not a usable tree file: {problem}")


def _inflate(path, data: bytes) -> bytes:
    """The gzip members of ``data`` inflated, at most :data:`MAX_TREE_BYTES` of them (TermoError
    past it or on damaged data): a step at a time, so that a bomb costs no more than the cap."""
    out: list[bytes] = []
    total = 0
    while data:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            while True:
                piece = inflater.decompress(data, _INFLATE_STEP)
                total += len(piece)
                if total > MAX_TREE_BYTES:
                    _fail(path, f"more than {MAX_TREE_BYTES >> 20} MiB once uncompressed")
                out.append(piece)
                data = inflater.unconsumed_tail
                if inflater.eof or (not data and not piece):
                    break
        except zlib.error:
            _fail(path, "damaged gzip data")
        if not inflater.eof:
            _fail(path, "damaged gzip data (truncated)")
        data = inflater.unused_data.lstrip(b"\0")  # another member, or the zero padding some tools add
    return b"".join(out)


def read_header(path) -> tuple[dict, list[str]]:
    """The checked header and the body lines of the tree file ``path`` (no game needed)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_TREE_BYTES:
            _fail(path, f"more than {MAX_TREE_BYTES >> 20} MiB")
        raw = path.read_bytes()
    except OSError as err:
        raise TermoError(f"{path}: cannot read it: {(err.strerror or str(err)).lower()}") from None
    if raw[:2] == GZIP_MAGIC:
        raw = _inflate(path, raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        _fail(path, "not UTF-8 text")
    first, _, rest = text.partition("\n")
    try:
        data = json.loads(first)
    except ValueError:
        _fail(path, "the first line is not a tree header")
    if not isinstance(data, dict):
        _fail(path, "the first line is not a tree header")
    if data.get("format") != FORMAT and isinstance(data.get("format"), str):
        _fail(path, f"format {data.get('format')!r}, this version reads {FORMAT!r}")
    payload, problem = open_sealed(data, FORMAT, data.get("key"))
    if problem:
        _fail(path, f"header {problem}")
    lines = rest.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if _digest(lines) != payload.get("body_sha256"):
        _fail(path, "the node lines do not match the header's checksum (damaged or edited)")
    if payload.get("nodes") != len(lines):
        _fail(path, f"{len(lines)} node lines, the header says {payload.get('nodes')}")
    if payload.get("method") not in METHODS:
        _fail(path, f"unknown method {payload.get('method')!r}")
    return payload, lines


def game_of(payload: dict):
    """The game a header names (with its list and rule options)."""
    from termo.games import get_game

    return get_game(payload.get("game"), extended=bool(payload.get("extended")),
                    strict=payload.get("win_rule") == "exact")


def read_tree(path, game=None) -> tuple[Tree, object]:
    """``(tree, game)`` from the file ``path``; ``game`` (default: the one the header names) must
    be the game the tree was built for. TermoError naming the file and the problem otherwise."""
    from termo.core.feedback import encode
    from termo.trees.model import tree_key

    payload, lines = read_header(path)
    if game is None:
        try:
            game = game_of(payload)
        except TermoError as err:
            _fail(path, str(err))
    if payload.get("game") != game.label:
        _fail(path, f"it is a tree of {payload.get('game')!r}, not of {game.label!r}")
    t = payload.get("t")
    t = float("inf") if t == "inf" else float(t) if isinstance(t, (int, float)) else 1.0
    if payload["key"] != tree_key(game, t, bool(payload.get("hard"))):
        _fail(path, "built for other word lists, rules or options of this game (the key differs)")
    length = game.word_length
    nodes: dict[tuple, Node] = {}
    root = None
    codes: dict[str, int] = {}  # pattern text -> code, each distinct pattern checked once
    probes: dict[str, int | None] = {}
    for number, line in enumerate(lines, start=2):
        where, sep, word = line.partition(" ")
        word = word.strip()
        if not sep or not word:
            _fail(path, f"line {number}: expected '<path> <guess>'")
        probe = probes.get(word, -1)
        if probe == -1:
            probe = probes[word] = game.index_of(word)
        if probe is None:
            _fail(path, f"line {number}: {word[:40]!r} is not a guess of {game.label}")
        if where == ROOT:
            key = ()
        else:
            key = []
            for part in where.split("."):
                code = codes.get(part)
                if code is None:
                    if len(part) != length or any(ch not in "GYB" for ch in part):
                        _fail(path, f"line {number}: bad pattern {part[:40]!r}")
                    code = codes[part] = encode(part)
                key.append(code)
            key = tuple(key)
        if key in nodes:
            _fail(path, f"line {number}: a second node at the same path")
        node = Node(probe)
        if key:
            parent = nodes.get(key[:-1])
            if parent is None:
                _fail(path, f"line {number}: its parent node is missing (or comes later)")
            if key[-1] == game.win_code:
                _fail(path, f"line {number}: a node below the winning pattern")
            parent.children[key[-1]] = node
        else:
            root = node
        nodes[key] = node
    if root is None:
        _fail(path, "no root node")
    beam, depth = payload.get("beam"), payload.get("depth")
    tree = Tree(game=game.label, key=payload["key"], method=payload["method"], opener=game.probes[root.guess],
                root=root, t=t, hard=bool(payload.get("hard")), level=int(payload.get("level") or 3),
                beam=None if beam is None else int(beam), depth=None if depth is None else int(depth),
                info=payload.get("info") or {})
    return tree, game
