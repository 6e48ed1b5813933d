"""The first run's warm-up covers every kind of command (``termo.interface.warm_up``), whichever command
runs first; ``bench/bench_warmup.py`` measures from an empty kernel cache that nothing compiles
after it."""

from __future__ import annotations

import re
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
            "print(' '.join(c.__name__ for c, *_ in numba_shim._warm_ups))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERMO_DATA_DIR": str(ROOT / "data")})
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split()) == sorted(FAMILIES)


def test_each_warm_up_is_keyed_by_its_own_kernel_file():
    from backends import numba_shim
    import termo.interface.warm_up as warm_up

    sources = {callback.__name__: paths for callback, paths, _ in numba_shim._warm_ups}
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


def test_each_warm_up_states_what_it_compiles():
    """Every warm-up registers the seconds it compiles from an empty cache: the first run's notice
    states their sum (bench/bench_warmup.py records what each took)."""
    from backends import numba_shim
    import termo.interface.warm_up  # noqa: F401 - registers them

    seconds = {callback.__name__: s for callback, _, s in numba_shim._warm_ups}
    assert sorted(seconds) == sorted(FAMILIES) and all(s > 0 for s in seconds.values())
    assert f"(about {int(round(sum(seconds.values()), -1))} s;" in numba_shim.compile_notice(sum(seconds.values()))


def test_the_notice_states_the_compile_ahead_and_a_stamp_what_it_took(tmp_path):
    """A cold cache: the warm-up compiles and the notice states its estimate; its stamp records its
    wall and CPU seconds. Then a kernel no warm-up covers (its module edited) compiles alone: the
    notice says a few seconds, not the whole first run's."""
    pytest.importorskip("numba")
    register = REGISTER.replace("register_warm_up(warm, [", "register_warm_up(warm, seconds=120, sources=[")
    for name, text in (("loadermod.py", LOADER), ("latermod.py", LATER), ("registermod.py", register)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
            "import registermod, loadermod\nprint(loadermod.first(1))")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERMO_DATA_DIR": str(ROOT / "data"),
           "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "WARM_LOG": str(tmp_path / "log.txt")}

    def run():
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr

    assert "termo: compiling the search kernels once, for every command (about 120 s;" in run()
    stamp, = (tmp_path / "numba-cache").rglob("termo-warm-up-*.stamp")
    assert re.fullmatch(r"warm wall_s \d+\.\d cpu_s \d+\.\d\n", stamp.read_text(encoding="utf-8"))
    (tmp_path / "loadermod.py").write_text(LOADER + "\n# edited\n", encoding="utf-8")
    assert "termo: compiling the search kernels this command needs (a few seconds;" in run()
