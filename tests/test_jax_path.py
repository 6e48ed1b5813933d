"""The JAX path's own machinery: bucketed shapes change nothing, both mass kernels and both
top-k kernels agree, the persistent compilation cache is found by a second process, and
``--backend auto`` picks JAX or CuPy only with an accelerator."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from backends import BackendUnavailable, get_backend, registry

ROOT = Path(__file__).resolve().parents[1]


def _jax():
    try:
        return get_backend("jax")
    except BackendUnavailable as err:
        pytest.skip(f"jax unavailable here: {err}")


def _world(n_probes=300, n_answers=220, n_bins=243, seed=7):
    """A random (probes × answers) code matrix whose answer a gives the win code on probe a."""
    from backends.base import SweepTables

    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, n_bins - 1, size=(n_probes, n_answers)).astype(np.uint8)
    matrix[np.arange(n_answers), np.arange(n_answers)] = n_bins - 1
    prior = rng.random(n_answers)
    prior[rng.random(n_answers) < 0.1] = 0.0
    probe_prior = np.concatenate([prior, np.zeros(n_probes - n_answers)])
    matrix.flags.writeable = False
    matrix_t = np.ascontiguousarray(matrix.T)
    matrix_t.flags.writeable = False

    def tables(backend):
        dev = matrix if backend.name == "numpy" else backend.asarray(matrix)
        return SweepTables(dev, matrix, matrix_t, prior, probe_prior, n_bins)

    return tables, n_answers


def _states(n_answers, sizes, seed=3):
    rng = np.random.default_rng(seed)
    members, offsets = [], [0]
    for m in sizes:
        members += np.sort(rng.choice(n_answers, int(m), replace=False)).tolist()
        offsets.append(len(members))
    return np.asarray(members, dtype=np.int64), np.asarray(offsets, dtype=np.int64)


SIZES = [2, 3, 1, 6, 3, 9]  # padded widths 4, 8, 16; exact shapes 1, 2, 3, 6, 9


def test_padding_changes_nothing_and_matches_numpy():
    """Bucketed widths and row counts (zero-weight padding) against exact shapes: the same
    probes, entropies within 1e-12; and both against NumPy's compiled sweep."""
    jb = _jax()
    tables, n_answers = _world()
    members, offsets = _states(n_answers, SIZES)
    ids = np.arange(len(SIZES), dtype=np.int64)
    t = tables(jb)
    padded = jb.sweep_top_k(t, members, offsets, ids, 6)
    exact_shapes = copy.copy(jb)  # the same backend with padding turned off
    exact_shapes.pad = False
    unpadded = exact_shapes.sweep_top_k(t, members, offsets, ids, 6)
    assert padded[0].tolist() == unpadded[0].tolist()
    np.testing.assert_allclose(padded[1], unpadded[1], rtol=0, atol=1e-12)
    nb = get_backend("numpy")
    want = nb.sweep_top_k(tables(nb), members, offsets, ids, 6)
    assert padded[0].tolist() == want[0].tolist()
    np.testing.assert_allclose(padded[1], want[1], rtol=0, atol=1e-12)


def test_histogram_and_pairwise_masses_agree(monkeypatch):
    """The two mass kernels (pairwise sums for narrow states, a histogram for wide ones) give
    the same entropies to 1e-12 and the same first probes."""
    import backends.jax_backend as jbm

    jb = _jax()
    tables, n_answers = _world(seed=11)
    members, offsets = _states(n_answers, [20, 3], seed=5)
    ids = np.arange(2, dtype=np.int64)
    t = tables(jb)
    pairwise = jb.sweep_top_k(t, members, offsets, ids, 5)
    monkeypatch.setattr(jbm, "PAIRWISE_MAX", 2)
    histogram = jb.sweep_top_k(t, members, offsets, ids, 5)
    assert pairwise[0].tolist() == histogram[0].tolist()
    np.testing.assert_allclose(pairwise[1], histogram[1], rtol=0, atol=1e-12)
    cand = members[offsets[0]:offsets[1]]
    np.testing.assert_allclose(jb.probe_entropies(t, cand), get_backend("numpy").probe_entropies(tables(get_backend("numpy")), cand),
                               rtol=0, atol=1e-12)


def test_top_k_kernels_agree():
    """k passes of argmax (the CPU's quick top-k) equal ``lax.top_k`` on unique keys."""
    import jax

    import backends.jax_backend as jbm

    _jax()
    jnp = jax.numpy
    rng = np.random.default_rng(0)
    keys = jnp.asarray(rng.permutation(5 * 700).reshape(5, 700).astype(np.int64) * 3 - 1000)
    for k in (1, 7):
        a = jbm._top_k(jnp, jax.lax, keys, k, True)
        b = jbm._top_k(jnp, jax.lax, keys, k, False)
        assert np.asarray(a).tolist() == np.asarray(b).tolist()


def test_cache_folder_follows_the_project_rule(monkeypatch, tmp_path):
    """The XLA cache lives in the project's cache folder (``termo.core.paths.cache_dir``)."""
    from backends.jax_backend import xla_cache_dir
    from termo.core.paths import cache_dir

    for env in ({"TERMO_CACHE_DIR": str(tmp_path / "c")}, {"TERMO_CACHE_DIR": "", "XDG_CACHE_HOME": str(tmp_path)}):
        for name, value in env.items():
            if value:
                monkeypatch.setenv(name, value)
            else:
                monkeypatch.delenv(name, raising=False)
        assert xla_cache_dir() == cache_dir() / "jax-xla"


SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import jax
    events = {"hits": 0, "misses": 0}
    def listen(event, **kw):
        if event == "/jax/compilation_cache/cache_hits": events["hits"] += 1
        if event == "/jax/compilation_cache/cache_misses": events["misses"] += 1
    jax.monitoring.register_event_listener(listen)
    sys.path.insert(0, sys.argv[1])
    from tests.test_jax_path import _world, _states
    from backends import get_backend
    jb = get_backend("jax")
    tables, n = _world(n_probes=90, n_answers=60)
    members, offsets = _states(n, [3, 4])
    idx, ent = jb.sweep_top_k(tables(jb), members, offsets, np.arange(2), 4)
    print(json.dumps({"events": events, "idx": idx.tolist(), "folder": jb.describe()["compilation_cache"]}))
""")


def _run_script(cache: Path, **env):
    full = dict(os.environ, TERMO_CACHE_DIR=str(cache), JAX_PLATFORMS="cpu", **env)
    full.pop("JAX_COMPILATION_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT)], capture_output=True, text=True, env=full,
                         timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


def test_a_second_process_finds_the_compiled_kernels(tmp_path):
    """First process: compiles, writes the cache, says so once on stderr. Second: loads every
    kernel from the cache (hits, no misses), silently, with the same answer."""
    _jax()
    first, err1 = _run_script(tmp_path)
    assert first["folder"] == str(tmp_path / "jax-xla")
    assert first["events"]["misses"] > 0
    assert err1.count("JAX is compiling its kernels") == 1
    assert any((tmp_path / "jax-xla").iterdir())
    second, err2 = _run_script(tmp_path)
    assert second["events"]["misses"] == 0 and second["events"]["hits"] > 0
    assert "JAX is compiling" not in err2
    assert second["idx"] == first["idx"]


@pytest.mark.slow
def test_the_cache_can_be_turned_off(tmp_path):
    _jax()
    got, _ = _run_script(tmp_path, TERMO_JAX_CACHE="0")
    assert got["folder"] is None and got["events"]["hits"] == 0
    assert not (tmp_path / "jax-xla").exists()


# --- --backend auto ---------------------------------------------------------------------------
class _FakeBackend:
    def __init__(self, name, accelerated):
        self.name = name
        self._accelerated = accelerated

    def on_accelerator(self):
        return self._accelerated


def test_auto_is_numpy_without_an_accelerator(monkeypatch):
    """Here (no GPU): auto is NumPy, even when JAX is installed and asked whether it accelerates."""
    monkeypatch.setattr(registry, "_may_accelerate", lambda name: name == "jax")
    assert registry.get_backend("auto").name == "numpy"


def test_auto_takes_an_accelerated_backend(monkeypatch):
    """An accelerated CuPy comes first, then an accelerated JAX; a CPU-only one is passed over."""
    monkeypatch.setattr(registry, "_may_accelerate", lambda name: True)
    monkeypatch.setitem(registry._instances, "cupy", _FakeBackend("cupy", False))
    monkeypatch.setitem(registry._instances, "jax", _FakeBackend("jax", True))
    assert registry.get_backend("auto").name == "jax"
    monkeypatch.setitem(registry._instances, "cupy", _FakeBackend("cupy", True))
    assert registry.get_backend("auto").name == "cupy"
    monkeypatch.setitem(registry._instances, "cupy", _FakeBackend("cupy", False))
    monkeypatch.setitem(registry._instances, "jax", _FakeBackend("jax", False))
    assert registry.get_backend("auto").name == "numpy"


def test_auto_does_not_import_jax_for_a_cpu_only_platform(monkeypatch):
    """``JAX_PLATFORMS=cpu`` (or no GPU plugin) means no accelerator: JAX is not even imported."""
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    assert registry._may_accelerate("jax") is False
    monkeypatch.setenv("JAX_PLATFORMS", "cuda,cpu")
    assert registry._may_accelerate("jax") == registry._library_installed("jax")
    code = "import sys; from backends import get_backend; b = get_backend('auto'); print(b.name, 'jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert out.stdout.split() == ["numpy", "False"], out.stderr


def test_full_beam_picks_match_numpy():
    """The full-beam best probe per state (answers-major device matrix, argmax of the §5.2 key)
    against NumPy's compiled kernel on an exact-rule world: the same picks, entropies to 1e-12."""
    jb = _jax()
    nb = get_backend("numpy")
    tables, n_answers = _world(seed=13)
    t = tables(nb)
    members, offsets = _states(n_answers, [3, 5, 9, 4, 30, 3], seed=2)
    want = nb.best_probes(nb.best_probe_plan(t.matrix_host, t.probe_prior), members, offsets, t.prior, 242, 243)
    got = jb.best_probes(jb.best_probe_plan(t.matrix_host, t.probe_prior), members, offsets, t.prior, 242, 243)
    assert got[0].tolist() == want[0].tolist()
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-12)


# --- the persistent compilation cache after a full disk ------------------------------------------
def test_zero_byte_compile_cache_entries_and_stale_temporaries_are_swept(tmp_path):
    """A disk-full episode leaves zero-byte XLA entries (JAX then warns on every later run and
    never rewrites them) and half-written ``termo-shapes`` temporaries: the next start removes
    them and keeps the sound entries and a live writer's fresh temporary."""
    jax = pytest.importorskip("jax")
    from backends import jax_backend

    folder = tmp_path / "jax-xla"
    folder.mkdir()
    (folder / "jit_a-0123-cache").write_bytes(b"")
    (folder / "jit_a-0123-atime").write_bytes(b"\0" * 8)
    (folder / "jit_b-4567-cache").write_bytes(b"compiled")
    stale = folder / "termo-shapes-0123456789abcdef.json.111.tmp"
    fresh = folder / "termo-shapes-0123456789abcdef.json.222.tmp"
    stale.write_text("[")
    fresh.write_text("[")
    old = stale.stat().st_mtime - 7200
    os.utime(stale, (old, old))
    before = jax.config.values.get("jax_compilation_cache_dir")
    jax.config.update("jax_compilation_cache_dir", str(folder))  # the folder in use is swept
    try:
        assert jax_backend.enable_persistent_cache(jax) == folder
    finally:
        jax.config.update("jax_compilation_cache_dir", before)
    assert sorted(p.name for p in folder.iterdir()) == ["jit_b-4567-cache", fresh.name]


@pytest.mark.parametrize("content", ["[" * 100_000 + "]" * 100_000, '{"a": 1}', "[1, 2]", "\xff"])
def test_a_damaged_shapes_file_is_ignored_and_rewritten(tmp_path, content):
    """A deeply nested (RecursionError), wrong-typed or undecodable ``termo-shapes`` file is read
    as empty: the backend starts, and the next shape written replaces it."""
    from backends.jax_backend import _CompiledShapes

    shapes = _CompiledShapes(tmp_path, "cpu", "0")
    shapes.path.write_text(content, encoding="latin-1")
    again = _CompiledShapes(tmp_path, "cpu", "0")
    assert again.known == set()
    again.after("k1")
    assert json.loads(shapes.path.read_text()) == ["k1"]


def test_a_failed_shapes_write_leaves_no_temporary(tmp_path, monkeypatch):
    import errno

    from backends.jax_backend import _CompiledShapes

    shapes = _CompiledShapes(tmp_path, "cpu", "0")

    def full(self, *args, **kwargs):  # the file is created, then the disk fills up
        with open(self, "wb"):
            pass
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    shapes.after("k1")
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == []
