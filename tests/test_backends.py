"""The compute layer: registry, lazy imports, and every kernel against a plain-Python oracle."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends import BackendUnavailable, available_backends, get_backend
from backends.host_ops import search as host_search


def histogram_oracle(codes, weights, n_bins):
    out = [[0.0] * n_bins for _ in codes]
    for r, row in enumerate(codes):
        for j, code in enumerate(row):
            w = weights[r][j] if isinstance(weights[0], list) else weights[j]
            out[r][code] += w
    return out


def top_k_oracle(keys, k):
    return sorted(range(len(keys)), key=lambda i: (-keys[i], i))[:k]


def test_importing_termo_does_not_import_jax_or_cupy():
    code = "import termo, termo.engine.matrix, termo.games, backends, cli.app, sys; print('jax' in sys.modules, 'cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_unknown_and_missing_backends_give_one_line():
    with pytest.raises(BackendUnavailable, match="unknown backend 'tpu'"):
        get_backend("tpu")
    rows = {row["name"]: row for row in available_backends()}
    if not rows["cupy"]["installed"]:
        with pytest.raises(BackendUnavailable, match=r"termo\[cuda\]"):
            get_backend("cupy")


def test_auto_picks_an_installed_backend():
    assert get_backend("auto").name in ("cupy", "jax", "numpy")


def test_jax_runs_in_float64():
    backend = get_backend("jax") if available("jax") else pytest.skip("jax not installed")
    assert backend.asarray([1.0]).dtype == backend.xp.float64


def available(name):
    try:
        get_backend(name)
        return True
    except BackendUnavailable:
        return False


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda m: st.tuples(
            st.lists(st.lists(st.integers(0, 8), min_size=m, max_size=m), min_size=1, max_size=5),
            st.lists(st.floats(0, 1, allow_nan=False), min_size=m, max_size=m),
        )
    )
)
def test_row_histogram_matches_oracle_on_numpy(case):
    codes, weights = case
    got = get_backend("numpy").row_histogram(np.array(codes, dtype=np.uint8), np.array(weights), 9)
    np.testing.assert_allclose(got, histogram_oracle(codes, weights, 9), rtol=0, atol=1e-12)


def test_row_histogram_every_backend(backend):
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 243, size=(7, 40)).astype(np.uint8)
    weights = rng.random(40)
    expected = histogram_oracle(codes.tolist(), weights.tolist(), 243)
    got = backend.to_numpy(backend.row_histogram(backend.asarray(codes), backend.asarray(weights), 243))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    per_row = rng.random((7, 40))
    got = backend.to_numpy(backend.row_histogram(backend.asarray(codes), backend.asarray(per_row), 243))
    np.testing.assert_allclose(got, histogram_oracle(codes.tolist(), per_row.tolist(), 243), rtol=0, atol=1e-12)


@pytest.mark.parametrize("k", [1, 3, 10, 50])
def test_stable_top_k_every_backend(backend, k):
    rng = np.random.default_rng(k)
    keys = rng.integers(0, 5, size=40).astype(np.int64)  # many ties
    got = backend.to_numpy(backend.stable_top_k(backend.asarray(keys), k)).tolist()
    assert got == top_k_oracle(keys.tolist(), k)
    floats = rng.random(40)
    got = backend.to_numpy(backend.stable_top_k(backend.asarray(floats), k)).tolist()
    assert got == top_k_oracle(floats.tolist(), k)


def test_auto_never_picks_a_cpu_only_jax(monkeypatch):
    """`--backend auto` takes CuPy or JAX only with an accelerator: JAX on the CPU is several
    times slower than NumPy's compiled kernels (a suggestion took 21 s instead of 2.7 s)."""
    from backends import registry

    if not available("jax"):
        pytest.skip("jax not installed")
    jax_backend = get_backend("jax")
    if jax_backend.on_accelerator() or available("cupy"):
        pytest.skip("this machine has an accelerator")
    assert jax_backend.device.platform == "cpu"
    monkeypatch.setattr(registry, "_may_accelerate", lambda name: True)  # look at JAX for real
    assert get_backend("auto").name == "numpy"
    monkeypatch.undo()
    assert get_backend("auto").name == "numpy"


def test_auto_picks_an_accelerated_backend(monkeypatch):
    from backends import registry

    class FakeGpu:
        name = "jax"

        def on_accelerator(self):
            return True

    monkeypatch.setitem(registry._instances, "jax", FakeGpu())
    monkeypatch.setattr(registry, "_may_accelerate", lambda name: name == "jax")
    assert get_backend("auto").name == "jax"
    assert not get_backend("numpy").on_accelerator()


def test_auto_does_not_import_jax_without_an_accelerator_plugin():
    from backends import registry

    if registry._may_accelerate("jax"):
        pytest.skip("a JAX accelerator plugin is installed here")
    code = "import sys; from backends import get_backend; print(get_backend('auto').name, 'jax' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if k != "JAX_PLATFORMS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split()[1] == "False"
    env["JAX_PLATFORMS"] = "cpu"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split()[1] == "False"


# ---------------------------------------------------------------- the search operations of Backend
# A small world: 64 probes (48 answers, then 16 extra probes, 8 of them copies of answer rows so
# that equal entropies and every §5.2 tie-break occur), 243 codes, the win code only where the
# probe is the answer.
N_ANSWERS, N_EXTRA, N_BINS, WIN = 48, 16, 243, 242


@pytest.fixture(scope="module")
def world():
    from backends.base import SweepTables

    rng = np.random.default_rng(12)
    n_probes = N_ANSWERS + N_EXTRA
    matrix = rng.integers(0, 6, size=(n_probes, N_ANSWERS)).astype(np.uint8) * 40  # few codes: big buckets
    matrix[N_ANSWERS:N_ANSWERS + 8] = matrix[rng.choice(N_ANSWERS, 8, replace=False)]
    matrix[matrix == WIN] = 0
    matrix[np.arange(N_ANSWERS), np.arange(N_ANSWERS)] = WIN
    prior = rng.random(N_ANSWERS)
    prior[::7] = prior[1]  # equal priors: the index decides
    probe_prior = np.concatenate([prior, np.zeros(N_EXTRA)])
    matrix.flags.writeable = False
    matrix_t = np.ascontiguousarray(matrix.T)
    matrix_t.flags.writeable = False
    states = [np.sort(rng.choice(N_ANSWERS, size=m, replace=False)).astype(np.int64)
              for m in (2, 3, 5, 8, 13, 21, 30, 48, 6, 6)]
    return {"matrix": matrix, "matrix_t": matrix_t, "prior": prior, "probe_prior": probe_prior,
            "states": states, "tables": lambda b: SweepTables(b.asarray(matrix), matrix, matrix_t, prior,
                                                              probe_prior, N_BINS)}


def entropy_oracle(codes, weights):
    """H (bits) of one probe: plain Python."""
    total = sum(weights)
    w = [x / total for x in weights] if total > 0 else [1.0 / len(weights)] * len(weights)
    mass = {}
    for c, x in zip(codes, w):
        mass[c] = mass.get(c, 0.0) + x
    return -sum(p * math.log2(p) for p in mass.values() if p > 0)


def world_entropies(world, state):
    m, prior = world["matrix"], world["prior"]
    return [entropy_oracle([int(m[g, a]) for a in state], [float(prior[a]) for a in state]) for g in range(m.shape[0])]


def order_oracle(h, state, probe_prior):
    """The §5.2 order: rint(H/1e-9) descending, members first, prior descending, index."""
    members = {int(a) for a in state}
    return sorted(range(len(h)), key=lambda g: (-round(h[g] / 1e-9), g not in members, -float(probe_prior[g]), g))


def segmented(states):
    members = np.concatenate(states).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum([len(s) for s in states])]).astype(np.int64)
    return members, offsets


def test_probe_entropies_match_the_oracle(world, backend):
    tables = world["tables"](backend)
    for state in world["states"]:
        got = backend.probe_entropies(tables, state)
        np.testing.assert_allclose(got, world_entropies(world, state), rtol=0, atol=1e-12)
        assert backend.table_probe_entropy(tables, state, 5) == pytest.approx(world_entropies(world, state)[5],
                                                                              abs=1e-12)


def test_host_probe_entropy_matches_the_oracle(world):
    for state in world["states"]:
        assert host_search.probe_entropy(world["matrix_t"], state, world["prior"], 5, N_BINS) == pytest.approx(
            world_entropies(world, state)[5], abs=1e-12)


@pytest.mark.parametrize("k", [1, 10, 64])  # each k is one more compile on JAX
def test_sweep_top_k_matches_the_oracle(world, backend, k):
    tables = world["tables"](backend)
    members, offsets = segmented(world["states"])
    ids = np.asarray([7, 0, 3, 9, 5, 8], dtype=np.int64)  # any order, sizes mixed
    idx, ent = backend.sweep_top_k(tables, members, offsets, ids, k)
    assert idx.shape == (6, k) and ent.shape == (6, k)
    for row, s in enumerate(ids.tolist()):
        state = world["states"][s]
        h = world_entropies(world, state)
        want = order_oracle(h, state, world["probe_prior"])[:k]
        assert idx[row].tolist() == want + [-1] * (k - len(want))
        np.testing.assert_allclose(ent[row, :len(want)], [h[g] for g in want], rtol=0, atol=1e-12)
        top_i, top_h = backend.top_probes(tables, state, k)
        assert top_i.tolist() == want
        np.testing.assert_allclose(top_h, [h[g] for g in want], rtol=0, atol=1e-12)


def test_a_backend_carries_only_what_differs_by_library():
    """The host operations that are the same on every backend are functions of backends.host_ops,
    not Backend methods (docs/ARCHITECTURE.md): no backend class has one of their names."""
    import inspect

    from backends.base import Backend
    from backends.host_ops import exact
    from backends.numpy_backend import NumpyBackend

    from backends.host_ops import feedback

    names = {n for m in (host_search, feedback) for n, f in vars(m).items()
             if inspect.isfunction(f) and not n.startswith("_")}
    assert {"partition_pairs", "node_values", "partition_states", "order_top_k", "numba_loaded"} <= names
    assert {"adversary_pick", "adversary_kept", "adversary_splitters", "lie_entropies"} <= names
    for cls in (Backend, NumpyBackend):
        assert not names & set(dir(cls)), names & set(dir(cls))
        assert not hasattr(cls, "exact_engine") and callable(exact.exact_engine)


def test_order_top_k_matches_the_oracle(world):
    state = world["states"][4]
    h = np.asarray(world_entropies(world, state))
    for k in (1, 5, 64):
        idx, ent = host_search.order_top_k(h, state, world["probe_prior"], k)
        assert idx.tolist() == order_oracle(h.tolist(), state, world["probe_prior"])[:k]
        assert ent.tolist() == h[idx].tolist()


def test_best_probes_match_the_oracle(world, backend):
    plan = backend.best_probe_plan(world["matrix"], world["probe_prior"])
    members, offsets = segmented(world["states"])
    best, best_h = backend.best_probes(plan, members, offsets, world["prior"], WIN, N_BINS)
    for s, state in enumerate(world["states"]):
        h = world_entropies(world, state)
        want = order_oracle(h, state, world["probe_prior"])[0]
        assert int(best[s]) == want, s
        assert float(best_h[s]) == pytest.approx(h[want], abs=1e-12)


def test_state_entropies_match_the_oracle(world, backend):
    state = world["states"][6]
    h, inc = backend.state_entropies(backend.asarray(world["matrix"]), state, world["prior"], WIN, N_BINS)
    np.testing.assert_allclose(h, world_entropies(world, state), rtol=0, atol=1e-12)
    assert inc.tolist() == [g in set(state.tolist()) for g in range(N_ANSWERS + N_EXTRA)]


def test_stable_top_k_along_rows(backend):
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 4, size=(5, 30)).astype(np.int64)
    got = backend.to_numpy(backend.stable_top_k(backend.asarray(keys), 7))
    assert got.tolist() == [top_k_oracle(row, 7) for row in keys.tolist()]


def partition_oracle(matrix_row, state, prior):
    """Non-winning buckets of one guess: (code, members, probability), ascending code."""
    buckets = {}
    for a in state:
        buckets.setdefault(int(matrix_row[a]), []).append(int(a))
    total = sum(float(prior[a]) for a in state)
    out = []
    for code in sorted(buckets):
        if code == WIN:
            continue
        mass = sum(float(prior[a]) for a in buckets[code])
        out.append((code, buckets[code], mass / total if total > 0 else len(buckets[code]) / len(state)))
    single = len(buckets) == 1 and WIN not in buckets
    return out, single


def test_host_partitions_match_the_oracle(world):
    """Both partitions of the host bookkeeping (level-3 pairs, answers-major; greedy-tree states,
    probes-major) against the plain-Python split; the same host code on every backend."""
    states = world["states"]
    members, offsets = segmented(states)
    pair_state = np.asarray([0, 1, 2, 3, 4, 5, 6, 7], dtype=np.int64)
    pair_guess = np.asarray([0, 50, 9, 63, 2, 17, 33, 60], dtype=np.int64)
    nb, single, out_m, out_size, out_prob = host_search.partition_pairs(
        world["matrix_t"], members, offsets, pair_state, pair_guess, WIN, world["prior"])
    pos = size_pos = 0
    for p, (s, g) in enumerate(zip(pair_state.tolist(), pair_guess.tolist())):
        want, want_single = partition_oracle(world["matrix"][g], states[s], world["prior"])
        assert bool(single[p]) == want_single  # (its one bucket is still written: the cost is inf)
        assert nb[p] == len(want)
        for code, bucket, prob in want:
            assert out_size[size_pos] == len(bucket)
            assert out_m[pos:pos + len(bucket)].tolist() == bucket
            assert out_prob[size_pos] == pytest.approx(prob, abs=1e-12)
            pos += len(bucket)
            size_pos += 1
    guesses = np.asarray([3, 50, 9, 63, 2, 17, 33, 60, 1, 1], dtype=np.int64)
    cm, co, parent, prob, single = host_search.partition_states(world["matrix"], members.astype(np.int32), offsets,
                                                                guesses, world["prior"], WIN, N_BINS)
    child = 0
    for s, state in enumerate(states):
        want, want_single = partition_oracle(world["matrix"][guesses[s]], state, world["prior"])
        assert bool(single[s]) == want_single
        for code, bucket, p in ([] if want_single else want):
            assert parent[child] == s
            assert cm[co[child]:co[child + 1]].tolist() == bucket
            assert prob[child] == pytest.approx(p, abs=1e-12)
            child += 1
    assert child == parent.shape[0]


def test_sweeps_equal_numpy_on_the_real_game(game, other_backend):
    """The batched §5.2 sweep on the real Termo matrix: the same indices as NumPy's compiled
    kernels, entropies within 1e-12 (states after two real openers; small ones, a big one)."""
    from termo.engine.entropy import Sweeper
    from termo.core.prior import prior_weights

    prior = prior_weights(game.icf, 1.0)
    ref = Sweeper(game, prior, get_backend("numpy"))
    other = Sweeper(game, prior, other_backend)
    codes = ref.matrix[game.index_of("tarso")]
    sets = [np.flatnonzero(codes == c).astype(np.int64) for c in (0, 1, 27, 81, 9)]
    sets = [s for s in sets if 1 < len(s) <= 80][:3] + [np.arange(0, 600, 7, dtype=np.int64)]
    members, offsets = segmented(sets)
    ids = np.arange(len(sets), dtype=np.int64)
    a = ref.sweep(members, offsets, ids, 5)
    b = other.sweep(members, offsets, ids, 5)
    assert a[0].tolist() == b[0].tolist()
    np.testing.assert_allclose(a[1], b[1], rtol=0, atol=1e-12)


@pytest.mark.xfail_backend("array-api-strictest", reason="nonzero's output shape depends on the data: off there",
                           strict=True)
def test_nonzero_only_where_data_dependent_shapes_are_allowed(backend):
    """The strictest parameter really turns data-dependent shapes off (and the fixture turns them
    back on: the plain array-api-strict parameter, which runs after it here, still has them)."""
    got = backend.xp.nonzero(backend.asarray(np.asarray([0, 3, 0, 5], dtype=np.int64)))[0]
    assert backend.to_numpy(got).tolist() == [1, 3]


def test_the_domain_asks_no_backend_its_name():
    """The boundary: ``termo`` never tests a backend's name (that it imports no kernel module is an
    import contract in pyproject.toml, tests/test_architecture.py)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "termo"
    hits = [f"{p.relative_to(root)}:{i}" for p in sorted(root.rglob("*.py"))
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
            if "backend.name ==" in line]
    assert hits == []


def test_shared_implementation_on_numpy_arrays_equals_the_kernels(world):
    """The array-API implementation run on NumPy arrays (NumPy's bincount histogram, as CuPy's)
    against the compiled kernels of the NumPy backend: the same lists and picks."""
    from backends.array_api_ops import ArrayApiOps

    numpy_backend = get_backend("numpy")
    tables = world["tables"](numpy_backend)
    members, offsets = segmented(world["states"])
    ids = np.arange(len(world["states"]), dtype=np.int64)
    a = numpy_backend.sweep_top_k(tables, members, offsets, ids, 6)
    b = ArrayApiOps.sweep_top_k(numpy_backend, tables, members, offsets, ids, 6)
    assert a[0].tolist() == b[0].tolist()
    np.testing.assert_allclose(a[1], b[1], rtol=0, atol=1e-12)
    plan = numpy_backend.best_probe_plan(world["matrix"], world["probe_prior"])
    shared = ArrayApiOps.best_probe_plan(numpy_backend, world["matrix"], world["probe_prior"])
    got = ArrayApiOps.best_probes(numpy_backend, shared, members, offsets, world["prior"], WIN, N_BINS)
    want = numpy_backend.best_probes(plan, members, offsets, world["prior"], WIN, N_BINS)
    assert got[0].tolist() == want[0].tolist()
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-12)


def test_only_numpy_sweeps_a_big_lone_set_apart(backend):
    """The one NumPy fast-path choice the domain asks about: a lone set of more than 256
    candidates is swept on its own on NumPy; every other backend batches every set."""
    numpy_like = backend.name == "numpy"
    assert backend.sweeps_one_set_apart(256) is False
    assert backend.sweeps_one_set_apart(257) is numpy_like
    assert backend.sweeps_one_set_apart(10**6) is numpy_like
