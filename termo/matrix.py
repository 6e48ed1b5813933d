"""The pattern matrix: ``M[probe, answer]`` = base-3 feedback code (spec §3), built on a backend.

Build (performance-notes §1): under the two-pass rule, the colours a guess letter gets depend only
on that letter, on the set of positions where the guess holds it, and on the answer. So we tabulate,
for every symbol and every non-empty set of positions, the base-3 contribution of those positions for
every answer; a probe's row is then the sum of the table rows of its distinct letters (at most
``word_length`` gathered rows). Everything is whole-array work on the chosen backend.

The result is cached on disk, keyed by :func:`matrix_signature` and :data:`RULES_VERSION`, written
atomically (array first, metadata last), and checked when loaded; a stale, truncated or corrupt
cache is rebuilt, never used.
"""

from __future__ import annotations

import hashlib
import random
import time
from pathlib import Path

from backends import get_backend, host
from termo.cache import atomic_write_bytes, atomic_write_json, read_json
from termo.feedback import colours, encode
from termo.games import Game
from termo.paths import cache_dir

RULES_VERSION = "two-pass-1"
_SPOT_CHECKS = 256
_ROW_BLOCK = 2048


def matrix_signature(game: Game) -> str:
    """``"{probes}x{answers}:" + sha256(probes + "\\n--\\n" + answers)[:16]`` over normalised forms."""
    text = "\n".join(game.probes_norm) + "\n--\n" + "\n".join(game.answers_norm)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return f"{game.n_probes}x{game.n_answers}:{digest}"


def _alphabet(game: Game) -> dict[str, int]:
    symbols = sorted(set("".join(game.probes_norm)) | set("".join(game.answers_norm)))
    return {s: i for i, s in enumerate(symbols)}


def _letter_table(answer_symbols, n_symbols: int, length: int, dtype, backend):
    """Rows ``symbol * 2**L + mask``: contribution of the positions in ``mask`` holding ``symbol``.

    One extra all-zero row at the end pads probes with fewer distinct letters than positions.
    """
    xp = backend.xp
    n_masks = 2**length
    in_mask = backend.asarray(
        [[bool(m >> (length - 1 - p) & 1) for p in range(length)] for m in range(n_masks)], dtype=xp.bool
    )  # (masks, L); bit L-1-p of the mask is position p
    powers = [3 ** (length - 1 - p) for p in range(length)]
    blocks = []
    for s in range(n_symbols):
        is_s = answer_symbols == s  # (answers, L)
        count = xp.sum(xp.astype(is_s, xp.int32), axis=1)  # copies of s in each answer
        green = in_mask[:, None, :] & is_s[None, :, :]  # (masks, answers, L)
        stock = count[None, :] - xp.sum(xp.astype(green, xp.int32), axis=2)
        contrib = xp.zeros(stock.shape, dtype=xp.int32)
        for p in range(length):
            g_p = green[:, :, p]
            yellow = (in_mask[:, p][:, None] & ~g_p) & (stock > 0)
            stock = stock - xp.astype(yellow, xp.int32)
            contrib = contrib + (2 * xp.astype(g_p, xp.int32) + xp.astype(yellow, xp.int32)) * powers[p]
        blocks.append(contrib)
    blocks.append(xp.zeros((1, answer_symbols.shape[0]), dtype=xp.int32))
    return xp.astype(xp.concat(blocks, axis=0), dtype)


def _probe_rows(probes_norm, alphabet: dict[str, int], length: int) -> list[list[int]]:
    """For each probe, the table rows of its distinct letters (padded with the zero row)."""
    n_masks = 2**length
    pad = len(alphabet) * n_masks
    rows = []
    for word in probes_norm:
        masks: dict[str, int] = {}
        for p, ch in enumerate(word):
            masks[ch] = masks.get(ch, 0) | (1 << (length - 1 - p))
        picked = [alphabet[ch] * n_masks + m for ch, m in masks.items()]
        rows.append(picked + [pad] * (length - len(picked)))
    return rows


def build_matrix(game: Game, backend=None):
    """Compute the pattern matrix on ``backend`` (no cache involved)."""
    backend = get_backend(backend)
    xp = backend.xp
    length = game.word_length
    alphabet = _alphabet(game)
    dtype = getattr(xp, game.code_dtype)
    answer_symbols = backend.asarray([[alphabet[c] for c in w] for w in game.answers_norm], dtype=xp.int32)
    table = _letter_table(answer_symbols, len(alphabet), length, dtype, backend)
    rows = _probe_rows(game.probes_norm, alphabet, length)
    blocks = []
    for start in range(0, len(rows), _ROW_BLOCK):
        index = backend.asarray(rows[start : start + _ROW_BLOCK], dtype=xp.int64)
        block = xp.take(table, index[:, 0], axis=0)
        for k in range(1, length):
            block = block + xp.take(table, index[:, k], axis=0)
        blocks.append(block)
    return xp.concat(blocks, axis=0) if len(blocks) > 1 else blocks[0]


# --- cache ----------------------------------------------------------------------------------
def cache_paths(game: Game) -> tuple[Path, Path]:
    """Where the matrix of ``game`` and its metadata are cached."""
    signature = matrix_signature(game)
    stem = f"matrix-{RULES_VERSION}-{signature.replace(':', '-')}"
    return cache_dir() / f"{stem}.npy", cache_dir() / f"{stem}.json"


def _expected_meta(game: Game) -> dict:
    return {
        "signature": matrix_signature(game),
        "rules_version": RULES_VERSION,
        "shape": [game.n_probes, game.n_answers],
        "dtype": game.code_dtype,
    }


def _spot_check(game: Game, matrix) -> bool:
    """A loaded matrix must agree with the plain-Python rule on the diagonal and random cells."""
    rng = random.Random(matrix_signature(game))
    cells = [(rng.randrange(game.n_probes), rng.randrange(game.n_answers)) for _ in range(_SPOT_CHECKS)]
    cells += [(i, i) for i in rng.sample(range(game.n_answers), min(64, game.n_answers))]
    for p, a in cells:
        if int(matrix[p, a]) != encode(colours(game.probes_norm[p], game.answers_norm[a])):
            return False
    return True


def _load_cached(game: Game):
    """The cached host matrix, or None when it is missing, stale, truncated or corrupt."""
    npy_path, meta_path = cache_paths(game)
    if read_json(meta_path) != _expected_meta(game):
        return None
    matrix = host().load_array(npy_path)
    if matrix is None or tuple(matrix.shape) != (game.n_probes, game.n_answers):
        return None
    if str(matrix.dtype) != game.code_dtype or not _spot_check(game, matrix):
        return None
    return matrix


def _store(game: Game, host_matrix) -> bool:
    npy_path, meta_path = cache_paths(game)
    try:
        meta_path.unlink(missing_ok=True)  # the metadata goes last: no metadata, no cache
        atomic_write_bytes(npy_path, host().array_bytes(host_matrix))
        atomic_write_json(meta_path, _expected_meta(game))
        return True
    except OSError:
        return False  # a read-only or full disk: keep the matrix in memory only


_memory: dict = {}


def build_info(game: Game, backend=None, rebuild: bool = False) -> dict:
    """Get the matrix (from memory, disk cache or a fresh build) and report how it went."""
    backend = get_backend(backend)
    key = (matrix_signature(game), RULES_VERSION, backend.name)
    start = time.perf_counter()
    source = "memory"
    matrix = None if rebuild else _memory.get(key)
    if matrix is None:
        host_matrix = None if rebuild else _load_cached(game)
        source = "disk"
        if host_matrix is None:
            matrix = build_matrix(game, backend)
            source = "built"
            host_matrix = backend.to_numpy(matrix)
            stored = _store(game, host_matrix)
            if not stored:
                source = "built (not cached: cache folder not writable)"
        else:
            matrix = backend.asarray(host_matrix)
        _memory[key] = matrix
    seconds = time.perf_counter() - start
    return {
        "matrix": matrix,
        "shape": [game.n_probes, game.n_answers],
        "signature": matrix_signature(game),
        "seconds": seconds,
        "source": source,
        "cache": str(cache_paths(game)[0]),
        "backend": backend.name,
    }


def pattern_matrix(game: Game, backend=None, rebuild: bool = False):
    """The (n_probes, n_answers) matrix of feedback codes on ``backend`` (cached)."""
    return build_info(game, backend, rebuild)["matrix"]
