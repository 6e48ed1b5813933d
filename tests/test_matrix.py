"""The pattern matrix (docs/rules.md §3): oracle, cross-backend identity, signature, cache behaviour."""

import errno
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
    npy, meta = cache_paths(game)
    assert npy.exists() and meta.exists()
    monkeypatch.setattr(matrix_module, "_memory", {})
    assert build_info(game, "numpy")["source"] == "disk"

    # Truncated array file: rebuilt, never used.
    npy.write_bytes(npy.read_bytes()[:-7])
    monkeypatch.setattr(matrix_module, "_memory", {})
    again = build_info(game, "numpy")
    assert again["source"] == "built"
    assert np.array_equal(np.asarray(again["matrix"]), np.asarray(first["matrix"]))

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
