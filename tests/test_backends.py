"""The compute layer: registry, lazy imports, and every kernel against a plain-Python oracle."""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends import BackendUnavailable, available_backends, get_backend


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
    code = "import termo, termo.matrix, termo.games, backends, cli.app, sys; print('jax' in sys.modules, 'cupy' in sys.modules)"
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
