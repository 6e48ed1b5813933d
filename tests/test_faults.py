"""Integrity under damage and abuse: every cache kind, damaged one byte, one cell or one value at a
time, is rebuilt or recomputed with the right result (or refused with one line), never served;
writers racing on one cache lose nothing and leave it valid.

Cache kinds: the pattern matrix in both layouts (Termo, and the small Nerdle Mini), the level-3
opener store (user folder and shipped bundle), the analysis opener cache, the robustness
checkpoints. Damage comes from ``tests/faults.py``.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import subprocess
import sys

import numpy as np
import pytest

import faults
from backends import host
from termo.engine import matrix
from termo.book import openers
from termo.analysis import opener_cache
from termo.games import get_game
from termo.core.chunks import CheckpointStore
from termo.robustness.sweep import SweepConfig, run_sweep
from termo.robustness.world import Column, World

LAYOUTS = (matrix.PROBES_MAJOR, matrix.ANSWERS_MAJOR)
SPAWN = multiprocessing.get_context("spawn")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache folder, and no matrix held in memory by earlier tests."""
    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(matrix, "_memory", {})
    monkeypatch.setattr(matrix, "_answers_major", {})
    return tmp_path


def clean_matrices(game) -> dict:
    m = np.array(host().to_numpy(matrix.build_matrix(game, host())))
    return {matrix.PROBES_MAJOR: m, matrix.ANSWERS_MAJOR: np.ascontiguousarray(m.T)}


@pytest.fixture(scope="module")
def termo_clean(game):
    return clean_matrices(game)


@pytest.fixture(scope="module")
def mini():
    return get_game("nerdle-mini")


@pytest.fixture(scope="module")
def mini_clean(mini):
    return clean_matrices(mini)


def run_spawned(target, jobs) -> None:
    procs = [SPAWN.Process(target=target, args=args) for args in jobs]
    for p in procs:
        p.start()
    for p in procs:
        p.join(240)
    assert [p.exitcode for p in procs] == [0] * len(procs)


# --- the pattern matrix -------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
def test_one_edited_cell_is_rebuilt_and_rewritten(game, termo_clean, cache, capsys, layout):
    """The audit's case: ``m[5290, 2235] = 1`` in the cached file, missed by the spot check."""
    clean = termo_clean[layout]
    for lay in LAYOUTS:
        assert matrix._store(game, termo_clean[lay], lay)
    npy, _ = matrix.cache_paths(game, layout)
    cell = (5290, 2235) if layout == matrix.PROBES_MAJOR else (2235, 5290)
    assert clean[cell] != 1
    faults.set_cell(npy, cell, 1)
    if layout == matrix.PROBES_MAJOR:
        info = matrix.build_info(game, host())
        assert info["source"] == "built"
        got = host().to_numpy(info["matrix"])
    else:
        got = matrix.answers_major_matrix(game)
    assert np.array_equal(got, clean)
    assert "rebuilding" in capsys.readouterr().err
    reloaded = matrix._load_cached(game, layout)  # rewritten: a sound cache again
    assert reloaded is not None and np.array_equal(reloaded, clean)


def _check_every_offset(game, clean, layout, offsets_of) -> int:
    assert matrix._store(game, clean, layout)
    npy, _ = matrix.cache_paths(game, layout)
    good = npy.read_bytes()
    offsets = offsets_of(npy, len(good))
    for offset in offsets:
        faults.flip_byte(npy, offset)
        assert matrix._load_cached(game, layout) is None, f"byte {offset} of {npy.name} edited, still served"
        npy.write_bytes(good)
    assert np.array_equal(matrix._load_cached(game, layout), clean)
    return len(offsets)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_any_byte_of_termo_matrix_is_detected(game, termo_clean, cache, layout):
    def offsets(npy, size):  # header, data start, middle, end
        return faults.sample_offsets(size, marks=(faults.npy_data_start(npy),), n=16)

    assert _check_every_offset(game, termo_clean[layout], layout, offsets) >= 20


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_header_byte_and_sampled_data_of_a_small_game(mini, mini_clean, cache, layout):
    def offsets(npy, size):
        start = faults.npy_data_start(npy)
        return list(range(start + 1)) + list(range(start, size, 997)) + [size - 1]

    assert _check_every_offset(mini, mini_clean[layout], layout, offsets) > 200


@pytest.mark.slow
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_byte_of_a_small_game_matrix(mini, mini_clean, cache, layout):
    assert _check_every_offset(mini, mini_clean[layout], layout, lambda npy, size: range(size)) > 80_000


def test_truncated_swapped_or_tampered_matrix_files(game, termo_clean, cache):
    for lay in LAYOUTS:
        matrix._store(game, termo_clean[lay], lay)
    p_npy, p_meta = matrix.cache_paths(game, matrix.PROBES_MAJOR)
    a_npy, a_meta = matrix.cache_paths(game, matrix.ANSWERS_MAJOR)
    good = p_npy.read_bytes()

    faults.truncate(p_npy, len(good) - 1)
    assert matrix._load_cached(game) is None
    p_npy.write_bytes(good)

    faults.swap(p_npy, a_npy)  # same shape (square), transposed content
    assert matrix._load_cached(game) is None and matrix._load_cached(game, matrix.ANSWERS_MAJOR) is None
    faults.swap(p_npy, a_npy)

    meta = json.loads(p_meta.read_text())
    for edit in (lambda d: d.update(checksum="crc32:00000000"), lambda d: d.update(shape=[6046, 6045]),
                 lambda d: d.pop("checksum")):  # a wrong checksum, a stale shape, an older format
        faults.tamper_json(p_meta, edit)
        assert matrix._load_cached(game) is None
        p_meta.write_text(json.dumps(meta))
    assert np.array_equal(matrix._load_cached(game), termo_clean[matrix.PROBES_MAJOR])
    assert np.array_equal(matrix._load_cached(game, matrix.ANSWERS_MAJOR), termo_clean[matrix.ANSWERS_MAJOR])


def test_a_huge_sparse_file_in_place_of_a_matrix_is_refused_before_it_is_read(game, termo_clean, cache, capsys,
                                                                               monkeypatch):
    """An 8 GiB sparse file where a layout was (the audit: 63 s of reading before the rejection)
    is refused by its size, from its metadata's block count, without a byte read."""
    matrix._store(game, termo_clean[matrix.PROBES_MAJOR], matrix.PROBES_MAJOR)
    npy, _ = matrix.cache_paths(game, matrix.PROBES_MAJOR)
    with open(npy, "r+b") as handle:
        handle.truncate(8 << 30)  # sparse: no disk used
    monkeypatch.setattr(matrix.FileBytes, "open", classmethod(lambda cls, path: pytest.fail(f"read {path}")))
    assert matrix._load_cached(game) is None
    assert "8,589,934,592 bytes" in capsys.readouterr().err
    npy.unlink()


def test_checksum_is_over_the_file_and_the_load_stays_memory_mapped(game, termo_clean, cache):
    m = termo_clean[matrix.PROBES_MAJOR]
    matrix._store(game, m)
    npy, meta = matrix.cache_paths(game)
    assert json.loads(meta.read_text())["checksum"] == matrix.file_checksum(npy) == matrix.checksum(
        host().array_bytes(m))
    loaded = matrix._load_cached(game)
    assert isinstance(loaded, np.memmap)  # verified without reading the array into memory
    assert matrix.checksum(memoryview(loaded).cast("B")) == matrix.checksum(npy.read_bytes()[faults.npy_data_start(npy):])


def test_every_load_reads_every_block_once_per_process(game, termo_clean, cache, monkeypatch):
    """No file metadata vouches for a layout's bytes: a new process (here: the memo cleared)
    checks every block again, even when nothing about the file changed."""
    m = termo_clean[matrix.PROBES_MAJOR]
    matrix._store(game, m)
    npy, meta = matrix.cache_paths(game)
    blocks = json.loads(meta.read_text())["blocks"]
    assert blocks["size"] == matrix.BLOCK_BYTES and len(blocks["crc32"]) == -(-npy.stat().st_size // blocks["size"])
    reads = []
    real = matrix.checksum
    monkeypatch.setattr(matrix, "checksum", lambda buf: reads.append(len(buf)) or real(buf))
    assert matrix._load_cached(game) is not None and len(reads) == 1
    assert matrix._load_cached(game) is not None and len(reads) == 1  # verified in this process
    monkeypatch.setattr(matrix, "_verified", {})  # the next process
    assert matrix._load_cached(game) is not None and reads == [npy.stat().st_size] * 2  # the whole file
    assert not matrix._stamp_path(npy).exists()


# --- bit rot below the file system ---------------------------------------------------------------
def _next_process(monkeypatch) -> None:
    """Forget what this process loaded and verified, as a new command starts."""
    monkeypatch.setattr(matrix, "_memory", {})
    monkeypatch.setattr(matrix, "_answers_major", {})
    monkeypatch.setattr(matrix, "_verified", {}, raising=False)


def _cell_offset(npy, clean_layout, cell) -> int:
    rows, cols = clean_layout.shape
    return faults.npy_data_start(npy) + (cell[0] * cols + cell[1]) * clean_layout.itemsize


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_byte_rotted_below_the_file_system_leaves_the_answer_unchanged(game, termo_clean, cache, capsys,
                                                                         monkeypatch, layout):
    """The audit's case: one byte of a cached layout changed on the disk, the file's size and
    modification time kept and its old ``.verified.json`` stamp matching: ``tarso:BBBBB`` still
    leaves 223 candidates and the same suggestion, with a line on stderr."""
    from termo.interface.suggest import suggest

    for lay in LAYOUTS:
        assert matrix._store(game, termo_clean[lay], lay)
    clean = suggest(game, ["tarso:BBBBB"], level=2)
    assert clean["candidates"] == 223
    tarso = game.index_of("tarso")
    answer = int(np.flatnonzero(termo_clean[matrix.PROBES_MAJOR][tarso] == 0)[7])  # a candidate
    cell = (tarso, answer) if layout == matrix.PROBES_MAJOR else (answer, tarso)
    npy, _ = matrix.cache_paths(game, layout)
    matrix._stamp_path(npy).write_text(json.dumps({"checksum": json.loads(
        matrix.cache_paths(game, layout)[1].read_text())["checksum"], "file": []}))  # an old version's stamp
    faults.rot_byte(npy, _cell_offset(npy, termo_clean[layout], cell), 0x01)  # code 0 -> 1: not a candidate
    _next_process(monkeypatch)
    capsys.readouterr()
    again = suggest(game, ["tarso:BBBBB"], level=2)
    assert (again["word"], again["candidates"], again["bits"]) == (clean["word"], 223, clean["bits"])
    err = capsys.readouterr().err
    assert f"cached pattern matrix {npy.name} ignored" in err and "rebuilding" in err
    _next_process(monkeypatch)  # rewritten: sound again, read without a word
    assert np.array_equal(matrix._load_cached(game, layout), termo_clean[layout])
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("layout", LAYOUTS)
def test_any_byte_rotted_below_the_file_system_of_a_small_game(mini, mini_clean, cache, capsys, monkeypatch,
                                                               layout):
    """Nerdle's layouts at test size (Nerdle Mini, same code path as Nerdle Classic's 628 MB ones):
    every header byte and sampled cells, each rotted with the metadata kept, is caught."""
    assert matrix._store(mini, mini_clean[layout], layout)
    npy, _ = matrix.cache_paths(mini, layout)
    assert matrix._load_cached(mini, layout) is not None
    good = npy.read_bytes()
    start = faults.npy_data_start(npy)
    offsets = list(range(start + 1)) + list(range(start, len(good), 4099)) + [len(good) - 1]
    for offset in offsets:
        faults.rot_byte(npy, offset)
        _next_process(monkeypatch)
        assert matrix._load_cached(mini, layout) is None, f"byte {offset} of {npy.name} rotted, still served"
        npy.write_bytes(good)
    assert f"cached pattern matrix {npy.name} ignored" in capsys.readouterr().err
    _next_process(monkeypatch)
    assert np.array_equal(matrix._load_cached(mini, layout), mini_clean[layout])


def test_racing_matrix_writers_leave_a_valid_cache(mini, mini_clean, cache):
    """Two processes store the same matrix (both layouts) 40 times at once while we keep loading:
    every load is either a miss or the right matrix, and the cache ends valid."""
    procs = [SPAWN.Process(target=faults.store_matrix_worker, args=(str(cache), "nerdle-mini", 40)) for _ in range(2)]
    for p in procs:
        p.start()
    loads = 0
    while any(p.is_alive() for p in procs):
        for lay in LAYOUTS:
            got = matrix._load_cached(mini, lay)
            if got is not None:
                loads += 1
                assert np.array_equal(got, mini_clean[lay])
    for p in procs:
        p.join()
    assert [p.exitcode for p in procs] == [0, 0]
    for lay in LAYOUTS:
        assert np.array_equal(matrix._load_cached(mini, lay), mini_clean[lay])


def _suggest(env):
    out = subprocess.run([sys.executable, "-m", "cli", "suggest", "tarso:BBBBB", "--level", "2", "--json"],
                         cwd=faults.REPO, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    return (doc["word"], doc["candidates"]), out.stderr


@pytest.mark.slow
def test_cli_suggest_after_a_cell_edit_answers_as_a_clean_cache(game, tmp_path):
    env = dict(os.environ, TERMO_CACHE_DIR=str(tmp_path), PYTHONPATH=str(faults.REPO))
    clean, _ = _suggest(env)
    assert clean[1] == 223
    faults.set_cell(tmp_path / matrix.cache_paths(game)[0].name, (5290, 2235), 1)
    first, err = _suggest(env)
    assert first == clean and "rebuilding" in err
    third, err = _suggest(env)  # rewritten: served from disk again
    assert third == clean and "rebuilding" not in err


# --- the level-3 opener store -------------------------------------------------------------------
T_USER = 2.5  # a configuration the shipped file does not hold


@pytest.fixture(scope="module")
def user_solver(game):
    from termo.engine.solver import Solver

    return Solver(game, level=3, t=T_USER)


def test_level3_entry_edited_in_place_is_not_served(game, cache, capsys):
    solver = faults.fake_solver(game, T_USER)
    entry = faults.shipped_entry()
    assert openers.store(solver, entry)
    path = openers.entry_path(solver)
    assert openers.lookup(solver) == entry
    edits = [lambda d: d["value"].update(word="muito"), lambda d: d["value"].update(word="zzzzz"),
             lambda d: d["value"].update(expected="3.0094161966572304"),
             lambda d: d["value"].update(expected=d["value"]["expected"] + 0.5),
             lambda d: d.update(key=d["key"].replace("T=2.5", "T=2.6"))]
    for edit in edits:
        openers.store(solver, entry)
        faults.tamper_json(path, edit)
        assert openers.lookup(solver) is None
        assert not path.exists()  # dropped: the next search rewrites it
    assert "opener cache: ignoring" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [
    {"word": "zzzzz"}, {"word": 7}, {"expected": "1.5"}, {"expected": math.nan}, {"expected": 0.5},
    {"expected": 13.5}, {"bits": -0.1}, {"bits": 12.6}, {"n": 6045}, {"n": True},
    {"alternatives": [["tarso"]]}, {"alternatives": [["tarso", 5.9, 3.0, "yes"]]}, {"alternatives": "tarso"},
    {"costs": [["tarso", "3.02"]]}, {"costs": [["tarso"]]}, {"costs": {"tarso": 3.0}}, {"is_candidate": "true"},
])
def test_unsound_level3_entries_are_rejected_even_with_a_right_checksum(game, cache, user_solver, bad):
    """A writer's garbage (checksum right, value impossible) is dropped; ``opener``, ``suggest``
    and ``play`` go on (they used to crash on malformed alternatives or costs until the file
    was deleted)."""
    from termo.core.entry_store import make_record

    solver = user_solver
    assert not openers.store(solver, dict(faults.shipped_entry(), **bad))  # refused when written
    path = openers.entry_path(solver)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(make_record(openers.cache_key(solver), dict(faults.shipped_entry(), **bad))))
    assert openers.lookup(solver) is None
    d = openers.opener(solver)  # the interface opener, without an optimum to show
    assert d.word == "tarso" and d.alternatives == ()


def stored_user_entry(game):
    """The shipped level-3 entry stored under the user configuration ``T_USER``: the fake solver,
    the entry, its file and the file's bytes as written."""
    solver = faults.fake_solver(game, T_USER)
    entry = faults.shipped_entry()
    openers.store(solver, entry)
    path = openers.entry_path(solver)
    return solver, entry, path, path.read_bytes()


def test_any_byte_of_a_level3_entry_file_is_detected(game, cache):
    solver, entry, path, good = stored_user_entry(game)
    for offset in faults.sample_offsets(len(good), n=48):
        for mask in (0x01, 0x20):
            path.write_bytes(good)
            faults.flip_byte(path, offset, mask)
            assert openers.lookup(solver) in (None, entry), f"byte {offset} ^ {mask:#x}"


def test_sealed_entries_rotted_below_the_file_system_are_not_served(game, cache, capsys):
    """The JSON caches are sealed: the sha256 of the content is checked on every read and no file
    metadata is trusted, so a byte rotted with the size and mtime kept is never served (the
    level-3 opener store here, and a bare entry store, as every sealed cache reads)."""
    from termo.core.entry_store import EntryStore

    solver, entry, path, good = stored_user_entry(game)
    for offset in faults.sample_offsets(len(good), n=32):
        path.write_bytes(good)
        faults.rot_byte(path, offset)
        assert openers.lookup(solver) in (None, entry), f"byte {offset}"
    store = EntryStore(cache / "plain", "test cache")
    value = {"word": "tosar", "expected": 3.0094161966572304, "n": [1, 2, 3]}
    assert store.put("k", value)
    good = store.path("k").read_bytes()
    for offset in range(len(good)):
        store.path("k").write_bytes(good)
        faults.rot_byte(store.path("k"), offset)
        got = store.get("k")
        assert got in (None, value), f"byte {offset}"
        if got is None:
            assert "test cache: ignoring" in capsys.readouterr().err


@pytest.fixture
def shipped_copy(cache, monkeypatch):
    """A copy of the shipped bundle, looked up under its own key (whatever the search signature)."""
    path = cache / "shipped-openers.json"
    path.write_bytes((faults.REPO / "data" / "openers.json").read_bytes())
    key = json.loads(path.read_text())["entries"][0]["key"]
    monkeypatch.setattr(openers, "shipped_path", lambda: path)
    monkeypatch.setattr(openers, "cache_key", lambda solver: key)
    return path


def test_any_byte_of_the_shipped_openers_is_detected(game, shipped_copy):
    solver = faults.fake_solver(game, 1.0)
    entry = faults.shipped_entry()
    assert entry["word"] == "tosar" and entry["expected"] == 3.0094161966572304
    assert openers.lookup(solver) == entry
    good = shipped_copy.read_bytes()
    text = good.decode("utf-8")
    marks = [len(text[: text.index(s)].encode("utf-8")) for s in ("3.0094161966572304", "tosar\"", "sha256")]
    for offset in faults.sample_offsets(len(good), marks=marks, n=48):
        shipped_copy.write_bytes(good)
        faults.flip_byte(shipped_copy, offset)
        assert openers.lookup(solver) in (None, entry), f"byte {offset}"
    shipped_copy.write_bytes(good)
    faults.tamper_json(shipped_copy, lambda d: d["entries"][0]["value"].update(expected=3.0))
    assert openers.lookup(solver) is None


def test_a_rejected_entry_is_searched_again_and_rewritten(game, cache, monkeypatch):
    """lookup's None makes ``optimal_opener`` search again (here a stand-in search) and store."""
    from termo.engine.solver import Solver

    solver = Solver(game, level=3, t=T_USER)
    truth = faults.shipped_entry()
    calls = []

    def search(s, progress=None):
        calls.append(1)
        decision = openers._decision_from_entry(game, truth)
        return decision, [tuple(c) for c in truth["costs"]], 1.0

    monkeypatch.setattr(openers, "search_level3", search)
    assert openers.store(solver, truth)
    faults.tamper_json(openers.entry_path(solver), lambda d: d["value"].update(word="muito"))
    d = openers.opener(solver, optimal=True)
    assert (d.word, d.choice.expected, calls) == ("tosar", 3.0094161966572304, [1])
    assert openers.lookup(solver)["word"] == "tosar"
    openers.opener(solver, optimal=True)
    assert calls == [1]  # served from the rewritten entry


def test_the_old_single_file_user_cache_is_not_trusted(game, cache):
    solver = faults.fake_solver(game, T_USER)
    legacy = dict(faults.shipped_entry(), word="muito")
    (cache / "openers.json").write_text(json.dumps({"version": 1, "entries": {openers.cache_key(solver): legacy}}))
    assert openers.lookup(solver) is None


def test_racing_level3_writers_lose_nothing(game, cache):
    """4 processes × 150 stores of different configurations: all 600 are kept (a single JSON file
    rewritten by each writer kept about 170)."""
    run_spawned(faults.store_openers_worker, [(str(cache), w, 150) for w in range(4)])
    entry = faults.shipped_entry()
    kept = sum(openers.lookup(faults.fake_solver(game, 100.0 + w * 1000 + i)) == entry
               for w in range(4) for i in range(150))
    assert kept == 600


# --- the analysis opener cache ------------------------------------------------------------------
@pytest.fixture(scope="module")
def l2_solver(game):
    from termo.analysis.strategies import make_solver
    from termo.analysis.worlds import full_world

    return make_solver(full_world(t=1.0))


@pytest.fixture(scope="module")
def l2_entry(game, l2_solver, tmp_path_factory):
    """The sound cached level-2 opener entry of ``l2_solver`` (computed once)."""
    os.environ["TERMO_CACHE_DIR"], before = str(tmp_path_factory.mktemp("l2")), os.environ["TERMO_CACHE_DIR"]
    try:
        opener_cache.level2_opener(l2_solver)
        return opener_cache.lookup(l2_solver)
    finally:
        os.environ["TERMO_CACHE_DIR"] = before


def test_consistent_but_edited_level2_entry_is_recomputed(game, cache, l2_solver, capsys):
    """Index and word changed together (so the old word/index check passed): caught by the checksum."""
    index = opener_cache.level2_opener(l2_solver)
    assert game.probes[index] == "tarso"
    muito = game.index_of("muito")
    faults.tamper_json(opener_cache.entry_path(l2_solver), lambda d: d["value"].update(index=muito, word="muito"))
    assert opener_cache.level2_opener(l2_solver) == index
    assert "analysis opener cache: ignoring" in capsys.readouterr().err
    assert opener_cache.lookup(l2_solver)["word"] == "tarso"


@pytest.mark.parametrize("bad", [{"bits": 13.0}, {"bits": "5.9"}, {"index": True}, {"index": 6046}, {"n": 1}])
def test_unsound_level2_entries_are_rejected(game, cache, l2_solver, l2_entry, bad):
    from termo.core.entry_store import make_record

    assert not opener_cache.store(l2_solver, dict(l2_entry, **bad))
    path = opener_cache.entry_path(l2_solver)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(make_record(opener_cache._key(l2_solver), dict(l2_entry, **bad))))
    assert opener_cache.lookup(l2_solver) is None and not path.exists()


def test_any_byte_of_a_level2_entry_is_detected(game, cache, l2_solver, l2_entry):
    entry = l2_entry
    assert opener_cache.store(l2_solver, entry)
    path = opener_cache.entry_path(l2_solver)
    good = path.read_bytes()
    for offset in faults.sample_offsets(len(good), n=40):
        path.write_bytes(good)
        faults.flip_byte(path, offset)
        assert opener_cache.lookup(l2_solver) in (None, entry), f"byte {offset}"


def test_racing_level2_writers_lose_nothing(game, cache):
    run_spawned(faults.level2_opener_worker, [(str(cache), w, 60) for w in range(4)])
    kept = sum(opener_cache.lookup(faults.fake_solver(game, 100.0 + w * 1000 + i)) is not None
               for w in range(4) for i in range(60))
    assert kept == 240


# --- robustness checkpoints ---------------------------------------------------------------------
TINY = SweepConfig(world=World(size=40), columns=[Column("T=1", 1.0, 40)], mode="all", chunk_size=10)


@pytest.fixture(scope="module")
def tiny_fresh():
    return run_sweep(TINY)


@pytest.fixture
def checkpoints(tmp_path):
    store = CheckpointStore(tmp_path / "ck")
    run_sweep(TINY, store=store)
    files = sorted((tmp_path / "ck").glob("*.json"))
    assert len(files) == 4
    return store, files


def _resume(store):
    info, lines = {}, []
    result = run_sweep(TINY, store=store, info=info, warn=lines.append)
    return result, info, lines


def test_one_flipped_digit_in_a_checkpoint_is_rejected_and_recomputed(checkpoints, tiny_fresh):
    """The audit's case: ``3.7248…`` → ``3.6248…`` was accepted by --resume and moved the regrets."""
    store, files = checkpoints
    text = files[0].read_text()
    at = text.index('"values": [') + len('"values": [')
    at += len(text[at:]) - len(text[at:].lstrip()) + 2  # first digit after "d."
    digit = text[at]
    files[0].write_text(text[:at] + str((int(digit) + 9) % 10) + text[at + 1:])
    result, info, lines = _resume(store)
    assert result == tiny_fresh
    assert (info["rejected_checkpoints"], info["chunks_computed"], info["chunks_resumed"]) == (1, 1, 3)
    assert len(lines) == 1 and files[0].stem in lines[0] and "checksum" in lines[0]
    assert _resume(store)[1]["rejected_checkpoints"] == 0  # rewritten


@pytest.mark.parametrize("change,resealed", [
    (lambda v: "1.5", True), (lambda v: "nan", True), (lambda v: math.nan, True), (lambda v: 0.5, True),
    (lambda v: 13.5, True), (lambda v: True, True), (lambda v: None, True), (lambda v: "-inf", True),
    (lambda v: v + 0.5, False),  # a plausible value, checksum not fixed
], ids=["string", "nan-string", "NaN", "below-1", "above-bound", "bool", "null", "-inf", "plus-0.5"])
def test_impossible_or_tampered_values_are_rejected(checkpoints, tiny_fresh, change, resealed):
    store, files = checkpoints

    def edit(d):
        d["values"][3] = change(d["values"][3])

    faults.tamper_json(files[1], edit)
    if resealed:
        faults.reseal(files[1])
    result, info, lines = _resume(store)
    assert result == tiny_fresh
    assert info["rejected_checkpoints"] == 1 and len(lines) == 1


def test_any_byte_of_a_checkpoint_is_detected(checkpoints, tiny_fresh):
    store, files = checkpoints
    path = files[2]
    payload = json.loads(path.read_text())
    key, chunk = payload["key"], payload["openers"]
    values, problem = store.load(key, chunk, 13.0)
    assert problem is None
    good = path.read_bytes()
    for offset in faults.sample_offsets(len(good), n=64):
        path.write_bytes(good)
        faults.flip_byte(path, offset)
        got, problem = store.load(key, chunk, 13.0)
        assert (got is None and problem) or got == values, f"byte {offset}"
    faults.swap(files[2], files[3])  # a file under another chunk's name
    assert store.load(key, chunk, 13.0)[0] is None
    result, info, _ = _resume(store)
    assert result == tiny_fresh and info["rejected_checkpoints"] == 2


def test_a_rejected_checkpoint_goes_to_stderr_by_default(checkpoints, capsys):
    store, files = checkpoints
    files[0].write_text("{not json")
    info = {}
    run_sweep(TINY, store=store, info=info)
    err = capsys.readouterr().err.strip().splitlines()
    assert info["rejected_checkpoints"] == 1
    assert len(err) == 1 and err[0].startswith("termo: checkpoint ") and "recomputing" in err[0]


def test_an_archive_of_checkpoints_reads_as_the_folder_and_stores_nothing(checkpoints, tiny_fresh, tmp_path):
    """A finished run kept as one ``.tar.gz`` (bench/results/): every chunk read back (a resumed run
    computes nothing), a damaged member rejected and recomputed, nothing written to the archive."""
    import tarfile

    store, files = checkpoints
    archive = tmp_path / "run.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(store.directory, arcname=".")
    packed = CheckpointStore(archive)
    assert packed.count() == 4
    result, info, lines = _resume(packed)
    assert result == tiny_fresh and info["chunks_computed"] == 0 and info["chunks_resumed"] == 4 and not lines
    text = files[0].read_text()
    files[0].write_text(text.replace('"values": [', '"values": [9.5, ', 1))
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(store.directory, arcname=".")
    before = archive.read_bytes()
    result, info, lines = _resume(CheckpointStore(archive))
    assert result == tiny_fresh and info["chunks_computed"] == 1
    assert archive.read_bytes() == before  # nothing stored in the archive
