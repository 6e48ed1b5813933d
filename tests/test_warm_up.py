"""The first run's warm-up covers every kind of command (``termo.interface.warm_up``), whichever command
runs first; ``bench/bench_warmup.py`` measures from an empty kernel cache that nothing compiles
after it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ["warm_up_kernels", "warm_up_two_byte_search", "warm_up_partition", "warm_up_exact", "warm_up_full_beam"]


@pytest.mark.parametrize("entry", ["from cli.app import _register_warm_ups; _register_warm_ups()",
                                   "from web.app import create_app; create_app()"])
def test_every_warm_up_is_registered_whichever_command_comes_first(entry):
    """Both front ends register every warm-up before a command or a request runs a kernel (the
    engine imports no warm-up: the module sits above the layers it exercises)."""
    code = (f"{entry}\nfrom backends import numba_shim\n"
            "print(' '.join(c.__name__ for c, _ in numba_shim._warm_ups))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERMO_DATA_DIR": str(ROOT / "data")})
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split()) == sorted(FAMILIES)


def test_each_warm_up_is_keyed_by_its_own_kernel_file():
    from backends import numba_shim
    import termo.interface.warm_up as warm_up

    sources = {callback.__name__: paths for callback, paths in numba_shim._warm_ups}
    assert Path(sources["warm_up_exact"][0]).name == "exact.py"  # the stamp lives with its cached kernels
    assert Path(sources["warm_up_full_beam"][0]).name == "fullbeam.py"
    for paths in sources.values():
        assert all(Path(p).exists() for p in paths), paths
        if paths is not sources["warm_up_kernels"]:
            assert str(Path(warm_up.__file__).resolve()) in paths  # a changed workload warms up again


LOADER = '''
from backends.numba_shim import njit

@njit(cache=True)
def first(x):
    return x + 1
'''

LATER = '''
from backends.numba_shim import njit

@njit(cache=True)
def later(x):
    return x * 3
'''

REGISTER = '''
import os
from backends.numba_shim import register_warm_up

def warm():
    import latermod
    with open(os.environ["WARM_LOG"], "a") as fh:
        fh.write("warm\\n")
    latermod.later(2)

register_warm_up(warm, [os.path.join(os.path.dirname(__file__), "latermod.py")])
'''


def test_a_warm_up_of_a_kernel_module_not_imported_yet_still_runs(tmp_path):
    """The exact solver's and the full-beam kernels are imported lazily: when numba loads for a
    suggestion, their modules are not there yet. Their warm-ups must run (and stamp) all the same."""
    pytest.importorskip("numba")
    for name, text in (("loadermod.py", LOADER), ("latermod.py", LATER), ("registermod.py", REGISTER)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    log = tmp_path / "log.txt"
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
            "import registermod, loadermod\nprint(loadermod.first(1), 'latermod' in sys.modules)")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERMO_DATA_DIR": str(ROOT / "data"),
           "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "WARM_LOG": str(log)}
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
    assert log.read_text().split() == ["warm"]  # ran in the first process, stamped, not again
    assert len(list((tmp_path / "numba-cache").rglob("termo-warm-up-*.stamp"))) == 1
