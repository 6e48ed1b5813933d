"""Start-up: numba only where needed (the shim), the NumPy single-state sweeps bit for bit like
the compiled kernels, one compiled signature whatever the matrix's origin, and what a whole
`termo suggest` process imports. Timings are benchmarks (bench/bench_startup.py), not tests."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from backends.kernels import entropy as kern
from backends.kernels import sweeps
from backends import numpy_sweep as ns
from termo.core.prior import prior_weights

ROOT = Path(__file__).resolve().parent.parent
KERNEL_MODULES = ("backends.kernels.entropy", "backends.kernels.tree", "backends.kernels.fullbeam")


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=full_env,
                          timeout=600)


def printed_words(code: str, **env) -> list[str]:
    """What ``code`` printed, split into words, from a process that must exit 0."""
    out = run_python(code, **env)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


# ---------------------------------------------------------------- the numba shim


@pytest.mark.parametrize("module", KERNEL_MODULES)
def test_no_numba_env_is_honoured_by_every_kernel_module(module):
    code = (f"import sys, {module} as k\n"
            "assert 'numba' not in sys.modules, 'numba imported'\n"
            "assert not k.HAVE_NUMBA\n"
            "print('ok')")
    assert printed_words(code, TERMO_NO_NUMBA="1") == ["ok"]


def test_kernels_run_interpreted_without_numba():
    code = ("import sys, numpy as np\n"
            "from backends.kernels import entropy as k, tree as t\n"
            "a = np.arange(300, dtype=np.float64) / 7\n"
            "assert k.pairwise_sum(a, 0, 300) == a.sum()\n"
            "assert k.pairwise_sum is k.pairwise_sum.py_func\n"
            "assert isinstance(t.int_dict(), dict) and k.prange is range\n"
            "assert 'numba' not in sys.modules\n"
            "print('ok')")
    assert printed_words(code, TERMO_NO_NUMBA="1") == ["ok"]


@pytest.mark.parametrize("module", KERNEL_MODULES)
def test_importing_a_kernel_module_does_not_import_numba(module):
    assert printed_words(f"import sys, {module}\nprint('numba' in sys.modules)", TERMO_NO_NUMBA="") == ["False"]


def test_numba_starts_without_scipy_which_still_imports_after():
    """numba would import SciPy as it starts (for BLAS in compiled code, which no kernel here
    uses); the shim keeps it out, a kernel runs, and SciPy imports as usual afterwards."""
    pytest.importorskip("numba")
    pytest.importorskip("scipy")
    code = ("import sys, numpy as np\n"
            "from backends.kernels import entropy as k\n"
            "a = np.arange(300, dtype=np.float64) / 7\n"
            "assert k.pairwise_sum(a, 0, 300) == a.sum()\n"
            "print('scipy' in sys.modules)\n"
            "import scipy.linalg\n"
            "print('imported')")
    assert printed_words(code, TERMO_NO_NUMBA="") == ["False", "imported"]


def test_first_kernel_call_binds_every_module_to_numba():
    pytest.importorskip("numba")
    code = ("import numpy as np\n"
            "from backends import numba_shim as s\n"
            "from backends.kernels import entropy as k, fullbeam as f, sweeps, tree as t\n"
            "assert not s.loaded()\n"
            "a = np.arange(200, dtype=np.float64)\n"
            "assert k.pairwise_sum(a, 0, 200) == a.sum()\n"
            "import numba\n"
            "from numba.core.registry import CPUDispatcher\n"
            "assert s.loaded()\n"
            "for mod in (k, t, f):\n"
            "    assert mod.prange is numba.prange, mod\n"
            "    assert isinstance(mod.pairwise_sum, CPUDispatcher), mod\n"
            "assert isinstance(sweeps._sweep_state, CPUDispatcher) and isinstance(t.most_probable, CPUDispatcher)\n"
            "print(type(t.int_dict()).__name__)")
    assert printed_words(code, TERMO_NO_NUMBA="") == ["Dict"]


def test_lazy_kernel_keeps_the_python_function():
    assert kern.pairwise_sum.py_func.__name__ == "pairwise_sum"
    a = np.arange(50, dtype=np.float64) / 3
    assert kern.pairwise_sum.py_func(a, 0, 50) == a.sum()


def test_lazy_kernel_pickles_by_reference():
    import pickle

    from backends.numba_shim import LazyKernel

    code = ("import pickle, sys\n"
            "from backends.kernels import entropy as k\n"
            "blob = pickle.dumps(k.pairwise_sum)\n"
            "assert 'numba' not in sys.modules\n"
            "sys.stdout.buffer.write(blob)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=300,
                         env={**os.environ, "TERMO_NO_NUMBA": ""})
    assert out.returncode == 0, out.stderr
    kernel = pickle.loads(out.stdout)
    assert kernel is kern.pairwise_sum or isinstance(kernel, LazyKernel) or hasattr(kernel, "py_func")
    a = np.arange(20, dtype=np.float64)
    assert kernel(a, 0, 20) == a.sum()


# ---------------------------------------------------------------- NumPy sweeps == kernels


def _states(game, rng):
    sizes = (1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 21, 22, 23, 40, 120, 223, 256, 257, 600)
    for m in sizes:
        yield np.sort(rng.choice(game.n_answers, m, replace=False)).astype(np.int64)
    yield np.arange(game.n_answers, dtype=np.int64)


def _priors(game):
    yield "T=1", prior_weights(game.icf, 1.0)
    yield "T=0.3", prior_weights(game.icf, 0.3)
    yield "T=inf", prior_weights(game.icf, math.inf)
    open_world = prior_weights(game.icf, 1.0).copy()
    open_world[::3] = 0.0
    yield "zeros", open_world


def _same_bits(a, b) -> bool:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


@pytest.fixture(scope="module")
def matrices(game):
    from termo.engine.matrix import answers_major_matrix, pattern_matrix

    return np.asarray(pattern_matrix(game)), answers_major_matrix(game)


@pytest.mark.parametrize("label", ["T=1", "T=0.3", "T=inf", "zeros"])
def test_numpy_sweeps_equal_the_kernels_bit_for_bit(game, matrices, label):
    """Same choices and the same bits as the compiled kernels, on every path of theirs."""
    matrix, matrix_t = matrices
    prior = dict(_priors(game))[label]
    probe_prior = np.concatenate([prior, np.zeros(game.n_probes - game.n_answers)])
    rng = np.random.default_rng(11)
    for cands in _states(game, rng):
        m = cands.shape[0]
        exact = kern.entropies_single(matrix, cands, prior, game.n_patterns)
        assert _same_bits(ns.exact_entropies(matrix_t, cands, prior, game.n_patterns), exact), m
        if m <= 600:
            want_i, want_h = sweeps.sweep_top_k(matrix_t, cands, np.array([0, m]), np.array([0]), prior,
                                              probe_prior, 8, game.n_patterns)
            keep = want_i[0] >= 0
            got_i, got_h = ns.sweep_top_k(matrix_t, cands, prior, probe_prior, 8, game.n_patterns)
            assert got_i.tolist() == want_i[0][keep].tolist(), m
            assert _same_bits(got_h, want_h[0][keep]), m
        top_i, top_h = kern.top_k_from_entropies(exact, cands, probe_prior, 8)
        top_i, top_h = top_i[top_i >= 0], top_h[top_i >= 0]
        got_i, got_h = ns.top_k(exact, cands, probe_prior, 8)
        assert got_i.tolist() == top_i.tolist() and _same_bits(got_h, top_h), m
        got_i, got_h = ns.exact_top_k(matrix_t, cands, prior, probe_prior, 8, game.n_patterns)
        assert got_i.tolist() == top_i.tolist() and _same_bits(got_h, top_h), m
        for probe in [0, int(top_i[0]), int(cands[0]), game.n_probes - 1]:
            want = kern.entropy_row(matrix_t, cands, prior, probe, game.n_patterns)
            got = ns.entropy_row(matrix_t, cands, prior, probe, game.n_patterns)
            assert _same_bits(got, want), (m, probe)


def test_numpy_fast_order_matches_the_sweep_on_every_probe(game, matrices):
    """Not only the top: every probe's entropy equals the kernels' fast float order (m ≤ 22 takes
    the partition-signature path, above it the lockstep histograms)."""
    _, matrix_t = matrices
    prior = prior_weights(game.icf, 1.0)
    probe_prior = np.concatenate([prior, np.zeros(game.n_probes - game.n_answers)])
    rng = np.random.default_rng(5)
    n = game.n_probes
    for m in (3, 9, 22, 60):
        cands = np.sort(rng.choice(game.n_answers, m, replace=False)).astype(np.int64)
        want_i, want_h = sweeps.sweep_top_k(matrix_t, cands, np.array([0, m]), np.array([0]), prior, probe_prior, n,
                                          game.n_patterns)
        fast = ns.fast_entropies(matrix_t, cands, prior, game.n_patterns)
        assert _same_bits(fast[want_i[0]], want_h[0]), m


def test_numpy_sweeps_on_a_game_with_more_patterns():
    """uint16 codes and 729 patterns (Nerdle Mini): the same equality with the kernels."""
    from termo.games import get_game
    from termo.engine.matrix import answers_major_matrix, pattern_matrix

    try:
        game = get_game("nerdle-mini")
    except Exception as err:  # noqa: BLE001 - the plugin may be absent in a trimmed checkout
        pytest.skip(f"no nerdle-mini game: {err}")
    matrix, matrix_t = np.asarray(pattern_matrix(game)), answers_major_matrix(game)
    prior = prior_weights(game.icf, 1.0)
    probe_prior = np.concatenate([prior, np.zeros(game.n_probes - game.n_answers)])
    rng = np.random.default_rng(4)
    for m in (2, 5, 13, 40, min(150, game.n_answers)):
        cands = np.sort(rng.choice(game.n_answers, m, replace=False)).astype(np.int64)
        want_i, want_h = sweeps.sweep_top_k(matrix_t, cands, np.array([0, m]), np.array([0]), prior, probe_prior, 5,
                                          game.n_patterns)
        got_i, got_h = ns.sweep_top_k(matrix_t, cands, prior, probe_prior, 5, game.n_patterns)
        keep = want_i[0] >= 0
        assert got_i.tolist() == want_i[0][keep].tolist() and _same_bits(got_h, want_h[0][keep]), m
        exact = kern.entropies_single(matrix, cands, prior, game.n_patterns)
        assert _same_bits(ns.exact_entropies(matrix_t, cands, prior, game.n_patterns), exact), m


def test_pruned_top_k_keeps_every_tie(game, matrices):
    """Uniform priors make many exact ties on the 1e-9 grid; the pruned top-k must still give
    the kernels' order over long lists (k up to 200)."""
    _, matrix_t = matrices
    prior = prior_weights(game.icf, math.inf)
    probe_prior = np.concatenate([prior, np.zeros(game.n_probes - game.n_answers)])
    rng = np.random.default_rng(8)
    for m in (2, 4, 9, 30, 150):
        cands = np.sort(rng.choice(game.n_answers, m, replace=False)).astype(np.int64)
        for k in (1, 7, 200):
            want_i, want_h = sweeps.sweep_top_k(matrix_t, cands, np.array([0, m]), np.array([0]), prior,
                                              probe_prior, k, game.n_patterns)
            got_i, got_h = ns.sweep_top_k(matrix_t, cands, prior, probe_prior, k, game.n_patterns)
            assert got_i.tolist() == want_i[0].tolist() and _same_bits(got_h, want_h[0]), (m, k)
        approx = ns.approx_entropies(matrix_t, cands, prior, game.n_patterns)
        exact = ns.fast_entropies(matrix_t, cands, prior, game.n_patterns)
        assert np.max(np.abs(approx - exact)) < ns.APPROX_MARGIN / 1000


def test_pairwise_rows_is_the_kernels_pairwise_sum():
    rng = np.random.default_rng(2)
    for n in (0, 1, 5, 7, 8, 9, 127, 128, 129, 243, 300, 1000):
        a = rng.random((n, 3)) * 10.0 ** rng.integers(-6, 6, (n, 3))
        got = ns.pairwise_rows(a)
        for col in range(3):
            column = np.ascontiguousarray(a[:, col])
            assert _same_bits(got[col], kern.pairwise_sum(column, 0, n)), n


def test_log2_is_the_c_library_log2():
    values = np.random.default_rng(0).random(20_000) ** 3
    assert _same_bits(ns.log2(values), [math.log2(v) for v in values.tolist()])


def test_solver_level2_is_the_same_with_and_without_numba_loaded(game):
    """A whole level-2 decision, in two fresh processes: one never loads numba (the NumPy
    sweeps), the other loads it first (the compiled kernels). Same JSON, bit for bit."""
    code = ("import json, sys\n"
            "from backends import numba_shim\n"
            "if sys.argv[1] == 'numba': numba_shim.load()\n"
            "from termo.games.termo_pt import termo_game\n"
            "from termo.engine.session import Session\n"
            "from termo.engine.solver import Solver\n"
            "g = termo_game(); out = []\n"
            "for history in (['tarso:BBBBB'], ['tarso:YBBBB'], ['arara:BBBBB'], ['tarso:BBBBB', 'filme:BBBYY']):\n"
            "    s = Session(g); s.replay(history)\n"
            "    for t in (1.0, float('inf')):\n"
            "        d = Solver(g, level=2, t=t).decide(s.candidates, s.turn).as_dict()\n"
            "        out.append(d)\n"
            "print(json.dumps(out) + '|' + str('numba' in sys.modules))\n")
    runs = {}
    for mode in ("numpy", "numba"):
        proc = subprocess.run([sys.executable, "-c", code, mode], capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "TERMO_NO_NUMBA": ""}, timeout=600)
        assert proc.returncode == 0, proc.stderr
        payload, loaded = proc.stdout.strip().rsplit("|", 1)
        runs[mode] = (json.loads(payload), loaded)
    assert runs["numpy"][1] == "False" and runs["numba"][1] == "True"
    assert runs["numpy"][0] == runs["numba"][0]
    assert [d["word"] for d in runs["numpy"][0][:1]] == ["linde"]


# ---------------------------------------------------------------- the host namespace


def test_host_namespace_serves_numpys_own_objects():
    compat = pytest.importorskip("array_api_compat.numpy")
    from backends import numpy_backend as nb

    if not nb._FAST:
        pytest.skip("NumPy < 2.1: the namespace is the compat module throughout")
    for name in sorted(nb.SAME_AS_NUMPY):
        assert getattr(compat, name) is getattr(np, name), name
    xp = nb.HostNamespace()
    for name in ("int64", "take", "concat", "where", "sum"):
        assert getattr(xp, name) is getattr(compat, name)


def test_host_namespace_wrappers_behave_like_the_compat_module():
    compat = pytest.importorskip("array_api_compat.numpy")
    from backends.numpy_backend import HostNamespace

    xp = HostNamespace()
    memmap_like = np.arange(6, dtype=np.uint8)
    memmap_like.flags.writeable = False
    cases = [
        ("asarray", ([1, 2, 3],), {"dtype": np.int64}),
        ("asarray", (memmap_like,), {}),
        ("asarray", (memmap_like,), {"copy": True}),
        ("asarray", (np.arange(3.0),), {"dtype": np.float64, "copy": False}),
        ("arange", (5,), {"dtype": np.int64}),
        ("arange", (2, 11, 3), {}),
        ("zeros", ((2, 3),), {"dtype": np.bool_}),
        ("empty", ((4,),), {"dtype": np.int32}),
        ("full", ((2, 2), -1), {"dtype": np.int64}),
        ("astype", (np.arange(4), np.float64), {}),
        ("astype", (np.arange(4), np.int64), {"copy": False}),
        ("cumulative_sum", (np.arange(5, dtype=np.int64),), {}),
        ("cumulative_sum", (np.arange(5, dtype=np.int64),), {"include_initial": True}),
        ("cumulative_sum", (np.arange(5, dtype=np.int32),), {"include_initial": True}),
        ("cumulative_sum", (np.arange(5, dtype=np.uint8),), {}),
        ("cumulative_sum", (np.arange(5) % 2 == 0,), {"include_initial": True}),
        ("cumulative_sum", (np.arange(5, dtype=np.int16),), {"dtype": np.float64}),
        ("cumulative_sum", (np.zeros(0, dtype=np.int64),), {"include_initial": True}),
        ("cumulative_sum", (np.arange(6.0).reshape(2, 3),), {"axis": 1, "include_initial": True}),
        ("cumulative_sum", (np.arange(6).reshape(2, 3),), {"axis": 0}),
        ("ones", ((2, 3),), {"dtype": np.int64}),
        ("ones", (4,), {}),
        ("unique_values", (np.array([3, 1, 3, 2, 1], dtype=np.int64),), {}),
        ("unique_values", (np.array([[2.0, np.nan], [np.nan, 2.0]]),), {}),
        ("nonzero", (np.array([0, 2, 0, 1]),), {}),
        ("nonzero", (np.eye(3, dtype=np.bool_),), {}),
    ] + [("argsort", (keys,), options)
         for keys in (np.array([3, 1, 3, 2, 1, 3]), np.array([0.5, -1.0, 0.5, 0.5]), np.array([[2, 2, 1], [0, 3, 0]]),
                      np.zeros(0, dtype=np.int64))
         for options in ({}, {"descending": True}, {"stable": False}, {"axis": 0}, {"axis": 0, "descending": True})
         if keys.ndim == 2 or "axis" not in options]
    for name, args, kwargs in cases:
        got = getattr(xp, name)(*args, **kwargs)
        want = getattr(compat, name)(*args, **kwargs)
        if name == "nonzero":
            assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want)), name
            continue
        assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape, name
        if name == "argsort" and kwargs.get("stable") is False:
            continue  # an unstable sort may order equal keys either way
        if name != "empty":
            assert np.array_equal(got, want, equal_nan=got.dtype.kind == "f"), (name, kwargs)
        assert got.flags.writeable == want.flags.writeable, name
        if isinstance(args[0], np.ndarray):
            assert np.shares_memory(got, args[0]) == np.shares_memory(want, args[0]), name
    with pytest.raises(ValueError):
        xp.zeros(3, device="gpu")
    with pytest.raises(ValueError):  # as the standard says: an axis for more than one dimension
        xp.cumulative_sum(np.zeros((2, 2)))
    with pytest.raises(ValueError):
        xp.nonzero(np.asarray(1))
    assert xp.asarray([1], device="cpu").tolist() == [1]
    assert xp.unique_all is compat.unique_all  # anything else: the compat module itself


# ---------------------------------------------------------------- a whole `termo suggest`


HEAVY = ("numba", "scipy", "jax", "matplotlib", "rich", "pydantic", "array_api_compat.numpy", "llvmlite",
         "cli.bench_commands", "cli.robustness_commands")


def test_level2_suggest_process_imports_nothing_heavy():
    code = ("import sys, io, contextlib\n"
            "from cli.app import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    code = main(['suggest', 'tarso:BBBBB', '--level', '2', '--json'])\n"
            "import json\n"
            f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
            "print(code, json.loads(out.getvalue())['word'], heavy)")
    out = run_python(code, TERMO_NO_NUMBA="")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0 linde []"


def test_level3_suggest_process_imports_no_compat_module():
    """A level-3 suggestion loads numba for its search, but NumPy serves every array-API name the
    search asks for: the whole ``array_api_compat.numpy`` is never imported."""
    code = ("import sys, io, contextlib\n"
            "from cli.app import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    code = main(['suggest', 'tarso:BBBBB', '--json'])\n"
            "import json\n"
            "print(code, json.loads(out.getvalue())['word'], 'array_api_compat.numpy' in sys.modules)")
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0 filme False"


DIRECT_CASES = [
    ["suggest", "tarso:BBBBB", "--level", "2"],
    ["suggest", "tarso:BBBBB", "--level", "2", "--json"],
    ["suggest", "--json", "-l", "2", "tarso:BBBBB", "filme:BBBYY", "--t=inf"],
    ["suggest", "tarso:BBBBB", "--level=1", "--extended"],
    ["suggest", "xyzzy:BBBBB", "-l", "2"],  # a warning on stderr, more than 256 candidates
    ["suggest", "tarso:BBBBB", "--level", "5"],  # errors: one line, exit code 2
    ["suggest", "tarso:BBBBX", "--level", "2"],
    ["suggest", "tarso:BBBBB", "--level", "2", "--backend", "tpu"],
    ["suggest", "tarso:BBBBB", "--level", "2", "--game", "no-such-game"],
    ["suggest", "tarso:GGGGG", "filme:BBBBB", "--level", "2"],
    ["--backend", "numpy", "suggest", "tarso:BBBBB", "--level", "2", "--json"],
    ["--backend=array-api-strict", "suggest", "tarso:BBBBB", "filme:BBBYY", "--level", "2"],
]


@pytest.mark.parametrize("argv", DIRECT_CASES, ids=lambda a: " ".join(a[1:]))
def test_direct_call_prints_what_typer_prints(argv, capsys, monkeypatch):
    """The direct call of `termo suggest` (no typer parameter conversion) against typer itself:
    same exit code, same stdout, same stderr."""
    from cli import app as cli_app

    monkeypatch.setenv("TERMO_BACKEND", "")  # a root --backend sets it; restored afterwards
    assert cli_app.direct_call(argv) is not None
    code = cli_app.main(list(argv))
    direct = (code, *capsys.readouterr())
    os.environ["TERMO_BACKEND"] = ""
    monkeypatch.setattr(cli_app, "DIRECT_COMMANDS", {})
    assert cli_app.direct_call(argv) is None
    code = cli_app.main(list(argv))
    via_typer = (code, *capsys.readouterr())
    assert direct == via_typer


@pytest.mark.parametrize("argv", [
    ["suggest", "--help"], ["suggest", "--level"], ["suggest", "-l2"], ["suggest", "--json=yes"],
    ["suggest", "--", "tarso:BBBBB"], ["suggest", "--no-such-option"], ["--version"], ["--backend"],
    ["--version", "suggest"], ["opener"], [],
])
def test_anything_unusual_goes_through_typer(argv):
    from cli.app import direct_call

    assert direct_call(argv) is None


def test_direct_call_reads_the_options_environment(monkeypatch):
    from cli.app import direct_call

    monkeypatch.setenv("TERMO_BACKEND", "numpy")
    monkeypatch.setenv("TERMO_GAME", "")
    func, kwargs, environ = direct_call(["suggest", "tarso:BBBBB", "-g", "termo"])
    assert func.__name__ == "suggest_command" and environ == {}
    assert kwargs == {"history": ["tarso:BBBBB"], "game_name": "termo", "backend": "numpy"}
    func, kwargs, environ = direct_call(["--backend", "jax", "suggest"])
    assert kwargs == {"history": None, "backend": "jax"} and environ == {"TERMO_BACKEND": "jax"}


def test_termo_version_imports_no_array_library():
    """``termo --version`` (the console script's entry point, in a process of its own) answers
    without NumPy, numba, JAX, array_api_compat or any game (read by an ``atexit`` function:
    the console script ends the process itself, `cli.app.exit_now`)."""
    code = ("import atexit, sys\n"
            "sys.argv = ['termo', '--version']\n"
            "heavy = ('numpy', 'numba', 'jax', 'array_api_compat', 'termo.games.termo_pt', 'termo.engine.matrix')\n"
            "atexit.register(lambda: print([m for m in heavy if m in sys.modules]))\n"
            "from cli.app import run\n"
            "run()\n"
            "print('not reached')")
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    version, result = out.stdout.splitlines()
    assert version.startswith("termo ") and result == "[]"


EXIT_NOW = """
import atexit, os, sys, threading
from cli.app import exit_now

class Teardown:
    def __del__(self):
        print("teardown")  # only when the interpreter clears the modules

kept = Teardown()
go = threading.Event()

def work():
    go.wait()
    print("the thread finished")

if os.environ["EXIT_CASE"] == "thread":
    threading.Thread(target=work).start()  # not a daemon: the interpreter's exit waits for it
atexit.register(lambda: print("atexit ran"))
print("x" * 100_000)  # more than a pipe's buffer: flushed before the end
sys.stderr.write("to stderr\\n")
go.set()
exit_now(3)
print("not reached")
"""


@pytest.mark.parametrize("case, debug, lines", [
    ("alone", "", ["atexit ran"]),  # the teardown skipped
    ("alone", "1", ["atexit ran", "teardown"]),  # TERMO_DEBUG: the interpreter's exit
    ("thread", "", ["the thread finished", "atexit ran", "teardown"]),  # a thread to wait for: likewise
])
def test_exit_now_ends_the_process_as_the_interpreter_would(case, debug, lines):
    """`cli.app.exit_now` (how the console script ends): the exit code, every byte written, the
    ``atexit`` functions; the interpreter's teardown only with TERMO_DEBUG or a thread that is not
    a daemon still there (waited for first)."""
    proc = run_python(EXIT_NOW, TERMO_DEBUG=debug, EXIT_CASE=case)
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.splitlines() == ["x" * 100_000, *lines]
    assert proc.stderr == "to stderr\n"


def test_importing_the_cli_imports_no_command_module():
    out = run_python("import sys, cli.app\n"
                     "print([m for m in ('typer', 'numpy', 'cli.solver_commands') if m in sys.modules])")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- compiling once

WARM_MODULE = '''
import os
from backends.numba_shim import njit, register_warm_up

@njit(cache=True)
def kernel(x):
    return x + 1

@njit(cache=True)
def other(x):
    return x * 2

def warm():
    with open(os.environ["WARM_LOG"], "a") as fh:
        fh.write("warm\\n")
    other(2.5)

register_warm_up(warm, [__file__])
'''


def test_warm_up_runs_once_per_kernel_source_and_the_notice_shows(tmp_path):
    """A cold cache: the first process says it compiles, runs the warm-up (everything compiles
    in that sitting) and stamps the cache; the next one only loads; an edited source warms up
    again (numba recompiles it anyway)."""
    pytest.importorskip("numba")
    from backends.numba_shim import COMPILE_NOTICE

    module = tmp_path / "warmmod.py"
    module.write_text(WARM_MODULE, encoding="utf-8")
    log = tmp_path / "log.txt"
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
            "import warmmod\n"
            "print(warmmod.kernel(3), warmmod.other(1.5))")
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "WARM_LOG": str(log), "TERMO_NO_NUMBA": ""}
    notice = COMPILE_NOTICE.split("{")[0]
    first = run_python(code, **env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["4", "3.0"]
    assert first.stderr.count(notice) == 1
    second = run_python(code, **env)
    assert second.returncode == 0 and notice not in second.stderr, second.stderr
    assert log.read_text().split() == ["warm"]
    stamps = list((tmp_path / "numba-cache").rglob("termo-warm-up-*.stamp"))
    assert len(stamps) == 1
    module.write_text(WARM_MODULE + "\n# edited\n", encoding="utf-8")
    os.utime(module, ns=(1, 1))
    third = run_python(code, **env)
    assert third.returncode == 0, third.stderr
    assert log.read_text().split() == ["warm", "warm"]
    assert third.stderr.count(notice) == 1


UNUSED_KERNELS = '''
from backends.numba_shim import njit

@njit(cache=True)
def triple(x):
    return 3 * x
'''


def test_a_warm_up_of_a_module_not_imported_is_stamped_beside_the_loaded_kernels(tmp_path):
    """The warm-up of a kernel module that this process never imports (``optimal``'s, from a
    suggestion) still runs once and is stamped in numba's cache folder of that module (the folder
    of a kernel module beside it): the module is not imported to find it, wherever it lies."""
    pytest.importorskip("numba")
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    (kernels / "usedmod.py").write_text(WARM_MODULE.replace("register_warm_up(warm, [__file__])", ""),
                                        encoding="utf-8")
    (kernels / "unusedmod.py").write_text(UNUSED_KERNELS, encoding="utf-8")
    log = tmp_path / "log.txt"
    code = (f"import os, sys; sys.path.insert(0, {str(kernels)!r})\n"
            "from backends.numba_shim import register_warm_up\n"
            "import usedmod\n"
            f"register_warm_up(usedmod.warm, [os.path.join({str(kernels)!r}, 'unusedmod.py')])\n"
            "print(usedmod.kernel(3), 'unusedmod' in sys.modules)")
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "WARM_LOG": str(log), "TERMO_NO_NUMBA": ""}
    for _ in range(2):
        out = run_python(code, **env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["4", "False"]
    assert log.read_text().split() == ["warm"]  # once: the second process found the stamp
    stamps = list((tmp_path / "numba-cache").rglob("termo-warm-up-*.stamp"))
    indexes = list((tmp_path / "numba-cache").rglob("usedmod.kernel-*.nbi"))
    assert len(stamps) == 1 and indexes and stamps[0].parent == indexes[0].parent


def test_the_warm_up_covers_what_a_suggestion_compiles():
    """termo.interface.warm_up registers the common commands' warm-up for both engine kernel files."""
    from backends import numba_shim
    import termo.interface.warm_up as warm_up

    covered = [sources for callback, sources, _ in numba_shim._warm_ups if callback is warm_up.warm_up_kernels]
    assert covered and {Path(p).name for p in covered[0]} >= {"entropy.py", "tree.py"}
    assert Path(covered[0][0]).name == "entropy.py"  # the stamp lives with its cached kernels
