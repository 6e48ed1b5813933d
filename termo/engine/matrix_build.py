"""Building the pattern matrix on a backend: ``M[probe, answer]`` = base-3 feedback code (rules §3).

Under the two-pass rule, the colours a guess letter gets depend only on that letter, on the set of
positions where the guess holds it, and on the answer (performance-notes §1). So we tabulate, for
every (symbol, set of positions) pair that some probe uses, the base-3 contribution of those
positions for every answer; a probe's row is then the sum of the table rows of its distinct
letters (at most ``word_length`` gathered rows). Everything is whole-array work on the chosen
backend: :func:`build_matrix` builds the whole matrix, :func:`answer_tiles` the same codes a tile
of answers at a time (what the disk cache of :mod:`termo.engine.matrix` writes, tile by tile,
without ever holding the whole matrix).
"""

from __future__ import annotations

import functools

from backends import get_backend, host
from termo.games import Game

_ROW_BLOCK = 512  # probes per block of the build
_ANSWER_BLOCK = 2048  # answers per tile: a tile of the letter table stays in cache (measured
# on Nerdle Classic: 1.1 s for the row sums against 2.9 s untiled)
TILE_BYTES = 16 << 20  # codes per tile of answer_tiles: Nerdle Classic's 628 MB cache was written
# in 6.6-7.6 s with tiles of 512 answers (18 MB, 107 MB peak RSS), 7.7-9.1 s with 1,024 (158 MB),
# 10-13 s with 2,048 (263 MB); Termo's 36 MB in 0.7 s either way


def _alphabet(game: Game) -> dict[str, int]:
    symbols = sorted(set("".join(game.probes_norm)) | set("".join(game.answers_norm)))
    return {s: i for i, s in enumerate(symbols)}


@functools.lru_cache(maxsize=None)
def mask_table(length: int):
    """``T[M << L | A]``: the base-3 contribution of a symbol the guess holds at the positions of
    mask ``M`` when the answer holds it at the positions of mask ``A`` (bit ``L-1-p`` is position
    ``p``): greens on ``M & A``; then, left to right over ``M & ~A``, yellows while the answer has
    unused copies (``|A| - |M & A|``). Host int32, ``4**L`` entries (65,536 for 8 tiles)."""
    np = host().xp
    n = 1 << length
    m = np.arange(n, dtype=np.int64)[:, None]
    a = np.arange(n, dtype=np.int64)[None, :]
    bits = [(1 << (length - 1 - p)) for p in range(length)]
    popcount = np.zeros((n, n), dtype=np.int64)
    for b in bits:
        popcount = popcount + ((m & a & b) != 0)
    copies = sum(((a & b) != 0).astype(np.int64) for b in bits)
    stock = np.broadcast_to(copies, (n, n)) - popcount
    out = np.zeros((n, n), dtype=np.int64)
    for p, b in enumerate(bits):
        green = (m & a & b) != 0
        yellow = ((m & b) != 0) & ~green & (stock > 0)
        stock = stock - yellow
        out = out + (2 * green + yellow) * 3 ** (length - 1 - p)
    return out.reshape(-1).astype(np.int32)


def _letter_table(xp, answer_symbols, symbols, masks, table, n_symbols: int, length: int):
    """Row ``u`` = contribution of the positions in ``masks[u]`` holding symbol ``symbols[u]``,
    for every answer: one gather from :func:`mask_table` by (mask, the answer's positions of the
    symbol). Only the (symbol, mask) pairs some probe uses are tabulated; one extra all-zero row
    at the end pads probes with fewer distinct symbols than positions. Returns int32."""
    device = _device(answer_symbols)
    weights = xp.asarray([1 << (length - 1 - p) for p in range(length)], dtype=xp.int32, device=device)
    onehot = answer_symbols[None, :, :] == xp.reshape(
        xp.arange(n_symbols, dtype=answer_symbols.dtype, device=device), (n_symbols, 1, 1)
    )  # (symbols, answers, L)
    where = xp.sum(xp.astype(onehot, xp.int32) * weights, axis=2)  # (symbols, answers) position masks
    answer_masks = xp.take(where, symbols, axis=0)  # (pairs, answers)
    keys = xp.reshape(masks, (-1, 1)) * (1 << length) + answer_masks
    contrib = xp.reshape(xp.take(table, xp.reshape(keys, (-1,))), keys.shape)
    pad = xp.zeros((1, answer_symbols.shape[0]), dtype=contrib.dtype, device=device)
    return xp.concat([contrib, pad], axis=0)


def _matrix_kernel(xp, answer_symbols, symbols, masks, table, index, n_symbols: int, length: int,
                   dtype_name: str):
    """The whole build as array code: the letter table, then each probe row as a sum of table
    rows, in tiles of answers so that the table's slice stays in the processor's cache."""
    dtype = getattr(xp, dtype_name)
    letters = xp.astype(_letter_table(xp, answer_symbols, symbols, masks, table, n_symbols, length), dtype)
    n_probes, n_answers = index.shape[0], letters.shape[1]
    strips = []
    for a0 in range(0, n_answers, _ANSWER_BLOCK):
        tile = letters[:, a0 : min(a0 + _ANSWER_BLOCK, n_answers)]
        blocks = []
        for start in range(0, n_probes, _ROW_BLOCK):
            rows = index[start : min(start + _ROW_BLOCK, n_probes), :]
            block = xp.take(tile, rows[:, 0], axis=0)
            for k in range(1, length):
                block = block + xp.take(tile, rows[:, k], axis=0)
            blocks.append(block)
        strips.append(xp.concat(blocks, axis=0) if len(blocks) > 1 else blocks[0])
    return xp.concat(strips, axis=1) if len(strips) > 1 else strips[0]


def _device(arr):
    return getattr(arr, "device", None)


def _probe_rows(probes_norm, alphabet: dict[str, int], length: int):
    """The (symbol, positions mask) pairs the probes use, and each probe's pair rows (padded)."""
    pair_id: dict[tuple[int, int], int] = {}
    rows = []
    for word in probes_norm:
        masks: dict[str, int] = {}
        for p, ch in enumerate(word):
            masks[ch] = masks.get(ch, 0) | (1 << (length - 1 - p))
        picked = [pair_id.setdefault((alphabet[ch], m), len(pair_id)) for ch, m in masks.items()]
        rows.append(picked)
    pad = len(pair_id)
    return list(pair_id), [r + [pad] * (length - len(r)) for r in rows]


_compiled: dict = {}  # backend name -> compiled kernel (JAX compiles once per shape)


def _prepared(game: Game, backend):
    """The compiled kernel, the answers' symbols (host lists), the other inputs on ``backend``
    and the static arguments."""
    xp = backend.xp
    length = game.word_length
    alphabet = _alphabet(game)
    pairs, rows = _probe_rows(game.probes_norm, alphabet, length)
    answer_symbols = [[alphabet[c] for c in w] for w in game.answers_norm]
    symbols = backend.asarray([sym for sym, _ in pairs], dtype=xp.int64)
    masks = backend.asarray([m for _, m in pairs], dtype=xp.int32)  # bit L-1-p is position p
    table = backend.asarray(mask_table(length), dtype=xp.int32)
    index = backend.asarray(rows, dtype=xp.int64)
    kernel = _compiled.get(backend.name)
    if kernel is None:
        kernel = backend.compile(
            functools.partial(_matrix_kernel, xp), static_argnames=("n_symbols", "length", "dtype_name")
        )
        _compiled[backend.name] = kernel
    static = {"n_symbols": len(alphabet), "length": length, "dtype_name": game.code_dtype}
    return kernel, answer_symbols, (symbols, masks, table, index), static


def build_matrix(game: Game, backend=None):
    """Compute the pattern matrix on ``backend`` (no cache involved)."""
    backend = get_backend(backend)
    kernel, answer_symbols, args, static = _prepared(game, backend)
    matrix = kernel(backend.asarray(answer_symbols, dtype=backend.xp.int32), *args, **static)
    return _apply_win_rule(game, backend, matrix)


def answer_tiles(game: Game, backend=None, width: int | None = None):
    """The matrix a tile of answers at a time, in order: ``(a0, a1, block)`` with ``block`` the
    host (n_probes × (a1 − a0)) codes of answers ``a0:a1``, the win rule applied: the cells of
    :func:`build_matrix`. The tiles are even, at most ``width`` answers (default: a block of
    about :data:`TILE_BYTES`), and the kernel sees one shape (the last tile padded), so a
    compiling backend compiles it once."""
    backend = get_backend(backend)
    hx = host().xp
    kernel, answer_symbols, args, static = _prepared(game, backend)
    n = game.n_answers
    if width is None:
        row_bytes = game.n_probes * hx.dtype(game.code_dtype).itemsize
        width = max(256, min(_ANSWER_BLOCK, TILE_BYTES // row_bytes))
    size = -(-n // max(1, -(-n // width)))
    win_rows, win_cols = (hx.asarray(v, dtype=hx.int64) for v in _win_cells(game))
    for a0 in range(0, n, size):
        a1 = min(n, a0 + size)
        tile = answer_symbols[a0:a1] + [answer_symbols[0]] * (size - (a1 - a0))
        block = backend.to_numpy(kernel(backend.asarray(tile, dtype=backend.xp.int32), *args, **static))
        block = block[:, : a1 - a0]
        inside = (win_cols >= a0) & (win_cols < a1)
        if bool(hx.any(inside)):
            if not block.flags.writeable:
                block = block.copy()
            block[win_rows[inside], win_cols[inside] - a0] = game.win_code
        yield a0, a1, block


def _win_cells(game: Game) -> tuple[list[int], list[int]]:
    """The (probe, answer) cells, off the diagonal, that the game's win rule counts as a win."""
    rows, cols = [], []
    for group in game.win_classes:
        answers = [i for i in group if i < game.n_answers]
        for p in group:
            for a in answers:
                if p != a:
                    rows.append(p)
                    cols.append(a)
    return rows, cols


def _apply_win_rule(game: Game, backend, matrix):
    """Set the win code on every (probe, answer) pair the game's win rule counts as a win."""
    rows, cols = _win_cells(game)
    if not rows:
        return matrix
    host_m = backend.to_numpy(matrix)
    if not host_m.flags.writeable:
        host_m = host_m.copy()
    host_m[rows, cols] = game.win_code
    return backend.asarray(host_m)
