"""The pattern matrix (docs/rules.md §3): oracle, cross-backend identity, signature, cache behaviour."""

import errno
import json
import os
import random

import numpy as np
import pytest

from termo.engine import matrix as matrix_module
from termo.core.feedback import colours, encode
from termo.games import Game
from termo.games.termo_pt import termo_like
from termo.engine.matrix import build_info, build_matrix, cache_paths, matrix_signature, pattern_matrix


@pytest.fixture(scope="module")
def reference(game):
    return np.asarray(build_matrix(game, "numpy"))


def test_matrix_equals_the_plain_python_rule_on_100k_cells(game, reference):
    rng = random.Random(2024)
    for _ in range(100_000):
        p, a = rng.randrange(game.n_probes), rng.randrange(game.n_answers)
        assert reference[p, a] == encode(colours(game.probes_norm[p], game.answers_norm[a]))


def test_matrix_facts(game, reference):
    assert reference.shape == (6046, 6046) and reference.dtype == np.uint8
    assert np.all(np.diag(reference) == 242)
    assert len(np.unique(reference)) == 238


def test_full_matrix_identical_on_every_backend(game, reference, other_backend):
    got = other_backend.to_numpy(build_matrix(game, other_backend))
    assert got.dtype == np.uint8
    assert np.array_equal(got, reference)


def test_extended_matrix_extends_the_square_one(extended_game, reference):
    ext = np.asarray(pattern_matrix(extended_game, "numpy"))
    assert ext.shape == (8629, 6046)
    assert np.array_equal(ext[:6046], reference)
    rng = random.Random(7)
    for _ in range(2000):
        p, a = rng.randrange(6046, 8629), rng.randrange(6046)
        assert ext[p, a] == encode(colours(extended_game.probes_norm[p], extended_game.answers_norm[a]))


def test_signatures(game, extended_game):
    assert matrix_signature(game) == "6046x6046:27bfa885e3a60154"
    assert matrix_signature(extended_game) == "8629x6046:2ca6edac6ce24e22"


def small_game():
    words = ("arara", "carro", "metro", "porta", "ratos", "termo")
    return termo_like("tiny", words, words + ("rerum",), (1.0, 2.0, 3.0, 4.0, 5.0, 6.0))


def test_cache_round_trip_and_rebuild_on_damage(tmp_path, monkeypatch):
    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(matrix_module, "_memory", {})
    game = small_game()
    first = build_info(game, "numpy")
    assert first["source"] == "built"
    built = np.array(first["matrix"])  # a copy: the build is read back from the file edited below
    npy, meta = cache_paths(game)
    assert npy.exists() and meta.exists()
    monkeypatch.setattr(matrix_module, "_memory", {})
    assert build_info(game, "numpy")["source"] == "disk"

    # Truncated array file: rebuilt, never used.
    npy.write_bytes(npy.read_bytes()[:-7])
    monkeypatch.setattr(matrix_module, "_memory", {})
    again = build_info(game, "numpy")
    assert again["source"] == "built"
    assert np.array_equal(np.asarray(again["matrix"]), built)

    # Same size but wrong content: the spot check catches it.
    data = bytearray(npy.read_bytes())
    data[-1] ^= 0xFF
    npy.write_bytes(bytes(data))
    monkeypatch.setattr(matrix_module, "_memory", {})
    assert build_info(game, "numpy")["source"] == "built"

    # Stale metadata (another rules version or word list): rebuilt.
    meta.write_text('{"signature": "stale"}')
    monkeypatch.setattr(matrix_module, "_memory", {})
    assert build_info(game, "numpy")["source"] == "built"

    # Corrupt metadata: rebuilt.
    meta.write_text("{not json")
    monkeypatch.setattr(matrix_module, "_memory", {})
    assert build_info(game, "numpy")["source"] == "built"

    # --rebuild ignores a good cache.
    assert build_info(game, "numpy", rebuild=True)["source"] == "built"


def test_unwritable_cache_keeps_the_matrix_in_memory(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("TERMO_CACHE_DIR", str(blocked / "sub"))
    monkeypatch.setattr(matrix_module, "_memory", {})
    info = build_info(small_game(), "numpy")
    assert info["source"].startswith("built (not cached")
    assert info["matrix"].shape == (7, 6)


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "disk is full"), (errno.EDQUOT, "quota"),
                                         (errno.EROFS, "read-only")])
def test_a_failed_matrix_write_says_why(tmp_path, monkeypatch, capsys, code, words):
    """A full disk is not "a folder that cannot be written": the reason is said, on stderr too."""
    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(matrix_module, "_memory", {})
    monkeypatch.setattr(matrix_module, "atomic_write_bytes", refuse)
    info = build_info(small_game(), "numpy")
    assert info["source"].startswith("built (not cached: ") and words in info["source"]
    assert "not writable" not in info["source"] and info["matrix"].shape == (7, 6)
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "not stored" in err and str(tmp_path) in err and words in err


def test_answers_major_layout_is_cached_and_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(matrix_module, "_memory", {})
    monkeypatch.setattr(matrix_module, "_answers_major", {})
    game = small_game()
    t = matrix_module.answers_major_matrix(game)
    assert t.flags.c_contiguous and t.shape == (6, 7)
    assert np.array_equal(t, np.asarray(pattern_matrix(game, "numpy")).T)
    npy, meta = cache_paths(game, matrix_module.ANSWERS_MAJOR)
    assert npy.exists() and meta.exists()
    monkeypatch.setattr(matrix_module, "_answers_major", {})
    assert np.array_equal(matrix_module.answers_major_matrix(game), t)
    npy.write_bytes(npy.read_bytes()[:-3])  # damaged: rebuilt, not used
    monkeypatch.setattr(matrix_module, "_answers_major", {})
    assert np.array_equal(matrix_module.answers_major_matrix(game), t)


def test_a_layout_checked_ahead_is_trusted_only_when_its_bytes_match(tmp_path, monkeypatch, capsys):
    """verify_ahead checks the answers-major layout on another thread while the other loads: a
    sound file is then loaded without a second pass, a damaged one is still reported and rebuilt."""
    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(matrix_module, "_memory", {})
    monkeypatch.setattr(matrix_module, "_answers_major", {})
    monkeypatch.setattr(matrix_module, "_verified", {})
    monkeypatch.setattr(matrix_module, "_ahead", {})
    monkeypatch.setattr(matrix_module, "_asked", set())
    game = small_game()
    t = np.array(matrix_module.answers_major_matrix(game))
    npy, _ = cache_paths(game, matrix_module.ANSWERS_MAJOR)

    matrix_module._verified.clear()
    monkeypatch.setattr(matrix_module, "_answers_major", {})
    matrix_module.verify_ahead(game)
    assert list(matrix_module._ahead) == [str(npy)]
    reads = []
    real = matrix_module._bad_blocks
    monkeypatch.setattr(matrix_module, "_bad_blocks", lambda *a: reads.append(a) or real(*a))
    assert np.array_equal(matrix_module.answers_major_matrix(game), t)
    assert not matrix_module._ahead and len(reads) <= 1  # the thread's pass, or the load's: not both
    matrix_module._asked.clear()
    matrix_module.verify_ahead(game)  # verified in this process: nothing started
    assert not matrix_module._ahead

    data = bytearray(npy.read_bytes())
    data[-1] ^= 0xFF  # same size, one cell changed
    npy.write_bytes(bytes(data))
    capsys.readouterr()
    monkeypatch.setattr(matrix_module, "_answers_major", {})
    matrix_module._asked.clear()
    matrix_module.verify_ahead(game)
    assert list(matrix_module._ahead) == [str(npy)]
    assert np.array_equal(matrix_module.answers_major_matrix(game), t)
    assert "ignored (its checksum does not match" in capsys.readouterr().err


@pytest.mark.parametrize("name, width", [("nerdle-mini", 48), ("nerdle-mini", 300), ("tiny", 4)])
def test_a_build_writes_both_layouts_tile_by_tile_as_np_save_would(tmp_path, monkeypatch, name, width):
    """A build streams both layouts to the cache a tile of answers at a time (Nerdle Mini: five
    tiles, the last one padded, the commutative wins set in each; or one tile): every byte of
    each file, header included, is what ``np.save`` writes of the whole matrix and its transpose,
    and the metadata's checksums are those of the file."""
    from backends.file_rows import file_of
    from termo.engine import matrix_build
    from termo.games import get_game

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(matrix_module, "_memory", {})
    monkeypatch.setattr(matrix_module, "_answers_major", {})
    tiles = matrix_build.answer_tiles
    monkeypatch.setattr(matrix_module, "answer_tiles", lambda g, b: tiles(g, b, width=width))
    game = small_game() if name == "tiny" else get_game(name)
    whole = np.asarray(build_matrix(game, "numpy"))
    info = build_info(game, "numpy")
    assert info["source"] == "built"
    assert file_of(info["matrix"]) == (str(cache_paths(game)[0]), len(from_host_bytes(whole)) - whole.nbytes)
    # (the matrix returned is the cache's memory map: nothing of the build is kept in memory)
    for layout, arr in ((matrix_module.PROBES_MAJOR, whole), (matrix_module.ANSWERS_MAJOR, whole.T)):
        npy, meta = cache_paths(game, layout)
        data = npy.read_bytes()
        assert data == from_host_bytes(np.ascontiguousarray(arr))
        sums = json.loads(meta.read_text())
        assert sums["checksum"] == matrix_module.checksum(data)
        assert sums["blocks"]["crc32"] == matrix_module.block_checksums(data)
    assert np.array_equal(matrix_module.answers_major_matrix(game), whole.T)  # from the cache, no build


def from_host_bytes(arr) -> bytes:
    from backends import host

    return host().array_bytes(arr)


def test_answer_tiles_are_the_matrix_on_every_backend(other_backend):
    """The tiles a build streams, computed on each backend, are NumPy's whole matrix (Nerdle
    Mini: the win rule applied inside the tiles)."""
    from termo.engine.matrix_build import answer_tiles
    from termo.games import get_game

    game = get_game("nerdle-mini")
    whole = np.asarray(build_matrix(game, "numpy"))
    got = [(a0, a1, np.asarray(block)) for a0, a1, block in answer_tiles(game, other_backend, width=64)]
    assert [(a0, a1) for a0, a1, _ in got] == [(0, 52), (52, 104), (104, 156), (156, 206)]
    assert np.array_equal(np.concatenate([b for _, _, b in got], axis=1), whole)


def test_a_build_that_cannot_stream_keeps_the_answer(tmp_path, monkeypatch, capsys):
    """A streamed layout that cannot be written (here: refused, as a disk full in the middle of
    the tiles): the matrix is built whole in memory instead and stored in one write, the same."""
    calls = []
    real = matrix_module.atomic_write_bytes

    def full_on_big_files(path, data, *args, **kwargs):
        calls.append(path)
        if callable(data):  # a layout streamed tile by tile
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(path, data, *args, **kwargs)

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(matrix_module, "_memory", {})
    monkeypatch.setattr(matrix_module, "atomic_write_bytes", full_on_big_files)
    game = small_game()
    info = build_info(game, "numpy")
    assert info["source"] == "built" and calls  # streaming failed, the whole matrix was stored
    assert np.array_equal(np.asarray(info["matrix"]), np.asarray(build_matrix(game, "numpy")))
    assert capsys.readouterr().err == ""
