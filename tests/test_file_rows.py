"""Reading a cached matrix's rows from its file (backends/file_rows.py) instead of through its
memory map: the same values as indexing the array, the sweeps' floats bit for bit, and what a
level-2 question reads (a small state: its members' rows; every answer: the probes' rows)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from backends import file_rows, numpy_sweep
from backends.file_rows import Layouts, file_of, take_cells, take_rows, write_band


@pytest.fixture(scope="module")
def mapped(tmp_path_factory):
    """A (probes × answers) uint16 matrix and its transpose saved as ``.npy`` and mapped as the
    cache loads them (``np.load(mmap_mode="r")``), with the arrays in memory."""
    rng = np.random.default_rng(3)
    m = rng.integers(0, 243, size=(70, 50)).astype(np.uint16)
    folder = tmp_path_factory.mktemp("rows")
    np.save(folder / "p.npy", m)
    np.save(folder / "a.npy", np.ascontiguousarray(m.T))
    return {"p": np.load(folder / "p.npy", mmap_mode="r"), "a": np.load(folder / "a.npy", mmap_mode="r"),
            "m": m, "folder": folder}


def test_file_of_knows_a_whole_mapped_array_only(mapped):
    p = mapped["p"]
    where = file_of(p)
    assert where is not None and where[0] == str(mapped["folder"] / "p.npy") and where[1] == 128
    assert file_of(np.asarray(p)) == where  # a plain view of all of it (what a backend hands on)
    view = np.asarray(p).view()
    view.flags.writeable = False
    assert file_of(view) == where
    assert file_of(p[1:]) is None and file_of(p[:, :3]) is None and file_of(p.T) is None
    assert file_of(mapped["m"]) is None and file_of([1, 2]) is None


@pytest.mark.parametrize("rows", [[], [0], [69], [3, 4, 5, 9, 10, 2, 2, 40], list(range(70))])
def test_rows_and_cells_read_from_the_file_equal_indexing(mapped, rows):
    for arr in (mapped["p"], mapped["m"]):
        got = take_rows(arr, rows)
        assert got.dtype == np.uint16 and got.flags.c_contiguous
        assert np.array_equal(got, mapped["m"][np.asarray(rows, dtype=np.int64)])
    cols = [(7 * r) % 50 for r in rows]
    assert take_cells(mapped["p"], rows, cols).tolist() == mapped["m"][rows, cols].tolist()
    assert take_cells(mapped["a"], cols, rows).tolist() == mapped["m"][rows, cols].tolist()


def test_out_of_range_is_an_index_error(mapped):
    with pytest.raises(IndexError):
        take_rows(mapped["p"], [70])
    with pytest.raises(IndexError):
        take_cells(mapped["p"], [0], [50])


def test_bands_of_columns_make_the_row_major_file(tmp_path, mapped):
    m = mapped["m"]
    path = tmp_path / "band.bin"
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        for a0 in range(0, 50, 16):  # the tiles of a build, last one short
            write_band(fd, m[:, a0:a0 + 16], 10 + a0 * 2, 50 * 2)
    finally:
        os.close(fd)
    assert np.array_equal(np.frombuffer(path.read_bytes()[10:], dtype=np.uint16).reshape(70, 50), m)


@pytest.mark.parametrize("budget", [0, 1 << 30])  # probes' rows in blocks, or the members' rows
@pytest.mark.parametrize("members", [[4], [0, 3, 17, 18, 49], list(range(50))])
@pytest.mark.parametrize("probes", [None, [5], [0, 2, 69, 33]])
def test_a_state_s_codes_are_the_same_from_either_side(mapped, budget, members, probes):
    layouts = Layouts(mapped["p"], mapped["a"], budget=budget)
    n, block = layouts.codes(members, probes)
    want = mapped["m"].T[np.ix_(members, np.arange(70) if probes is None else probes)]
    assert n == want.shape[1]
    assert np.array_equal(np.concatenate([block(s, min(n, s + 3)) for s in range(0, n, 3)], axis=1), want)


@pytest.mark.parametrize("budget", [0, 1 << 30])
@pytest.mark.parametrize("m", [2, 9, 13, 30, 50])
def test_the_numpy_sweeps_over_files_equal_the_sweeps_over_arrays(mapped, budget, m):
    """Entropies, the first probes and one probe's entropy: the same floats, bit for bit, whether
    the codes come from the arrays in memory or from the files (either side)."""
    rng = np.random.default_rng(m)
    members = np.sort(rng.choice(50, size=m, replace=False)).astype(np.int64)
    prior = rng.random(50)
    probe_prior = np.concatenate([prior, np.zeros(20)])
    layouts = Layouts(mapped["p"], mapped["a"], budget=budget)
    arr = mapped["m"].T.copy()
    for f in (numpy_sweep.exact_entropies, numpy_sweep.fast_entropies, numpy_sweep.approx_entropies):
        assert f(layouts, members, prior, 243).tobytes() == f(arr, members, prior, 243).tobytes(), f.__name__
    for f in (numpy_sweep.sweep_top_k, numpy_sweep.exact_top_k):
        a, b = f(layouts, members, prior, probe_prior, 6, 243), f(arr, members, prior, probe_prior, 6, 243)
        assert a[0].tolist() == b[0].tolist() and a[1].tobytes() == b[1].tobytes()
    for g in (0, 33, 69):
        assert numpy_sweep.entropy_row(layouts, members, prior, g, 243) == numpy_sweep.entropy_row(
            arr, members, prior, g, 243)


def test_the_sorted_runs_pass_in_blocks_equals_the_whole_pass(monkeypatch):
    """Few members and many codes (Nerdle): the sorted-runs approximation taken a few probes at
    a time equals it over all probes at once."""
    rng = np.random.default_rng(8)
    arr = rng.integers(0, 6561, size=(40, 1001)).astype(np.uint16)
    members = np.sort(rng.choice(40, size=30, replace=False)).astype(np.int64)
    prior = rng.random(40)
    whole = numpy_sweep._approx_sorted(arr[members], numpy_sweep.state_weights(prior, members))
    monkeypatch.setattr(numpy_sweep, "_SORTED_CELLS", 30 * 7)
    assert numpy_sweep.approx_entropies(arr, members, prior, 6561).tobytes() == whole.tobytes()


def test_a_level2_question_reads_only_the_rows_it_needs(tmp_path, monkeypatch):
    """Structure, Nerdle Mini from its cache, in a process that has not loaded numba (a one-shot
    `termo suggest`): every code a level-2 decision reads comes from the files, never through the
    maps. A small state reads its members' answers-major rows (once per pass) and no probes-major
    row; every answer (the opener) reads probes-major rows and no answers-major row."""
    from backends import numpy_backend
    from backends.host_ops import search as host_search
    from termo.engine import matrix
    from termo.engine.solver import Solver
    from termo.games import get_game

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    for memo in ("_memory", "_answers_major", "_verified"):
        monkeypatch.setattr(matrix, memo, {})
    game = get_game("nerdle-mini")
    matrix.pattern_matrix(game)  # built and cached, both layouts
    matrix.answers_major_matrix(game)
    for memo in ("_memory", "_answers_major", "_verified"):
        monkeypatch.setattr(matrix, memo, {})
    monkeypatch.setattr(numpy_backend, "numba_loaded", lambda: False)
    monkeypatch.setattr(host_search, "numba_loaded", lambda: False)
    reads = []
    real = file_rows.take_rows
    monkeypatch.setattr(file_rows, "take_rows", lambda arr, rows: reads.append(
        (os.path.basename(file_of(arr)[0]) if file_of(arr) else None, len(rows))) or real(arr, rows))
    solver = Solver(game, level=2)
    tables = solver.sweeper.tables
    probes_major, answers_major = (os.path.basename(str(p)) for p in
                                   (matrix.cache_paths(game)[0], matrix.cache_paths(game, matrix.ANSWERS_MAJOR)[0]))
    assert file_of(tables.matrix_host)[0].endswith(probes_major)  # the maps the rows are read from
    assert file_of(tables.matrix_t)[0].endswith(answers_major)
    assert reads == []  # loading read no row
    small = [3, 50, 51, 120]
    tables.layouts().budget = len(small) * game.n_probes * 2  # as Classic's 32 MB is to its 628
    solver.sweeper.top(small, 3)
    assert reads and set(reads) == {(answers_major, len(small))}
    reads.clear()
    solver.sweeper.top(list(range(game.n_answers)), 3)
    solver.sweeper.entropy_of(7, list(range(game.n_answers)))
    assert reads and {name for name, _ in reads} == {probes_major}


def test_a_removed_file_is_read_through_its_map(tmp_path):
    """A cache folder removed under a long-lived process: its maps still hold the files, and the
    rows are read through them (the same values)."""
    m = np.arange(24, dtype=np.uint16).reshape(4, 6)
    np.save(tmp_path / "m.npy", m)
    mapped = np.load(tmp_path / "m.npy", mmap_mode="r")
    (tmp_path / "m.npy").unlink()
    assert np.array_equal(take_rows(mapped, [3, 1]), m[[3, 1]])
    assert take_cells(mapped, [0, 3], [5, 0]).tolist() == [5, 18]
