"""The first run's warm-up covers every kind of command (``termo.warm_up``), whichever command
runs first; ``bench/bench_warmup.py`` measures from an empty kernel cache that nothing compiles
after it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ["warm_up_kernels", "warm_up_two_byte_search", "warm_up_partition", "warm_up_exact", "warm_up_full_beam"]


@pytest.mark.parametrize("entry", ["termo.entropy", "termo.exact.search", "termo.robustness.sweep"])
def test_every_warm_up_is_registered_whichever_command_comes_first(entry):
    code = (f"import {entry}\nfrom backends import numba_shim\n"
            "print(' '.join(c.__name__ for c, _ in numba_shim._warm_ups))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERMO_DATA_DIR": str(ROOT / "data")})
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split()) == sorted(FAMILIES)


def test_each_warm_up_is_keyed_by_its_own_kernel_file():
    from backends import numba_shim
    import termo.warm_up as warm_up

    sources = {callback.__name__: paths for callback, paths in numba_shim._warm_ups}
    assert Path(sources["warm_up_exact"][0]).name == "kernels_exact.py"  # the stamp lives with its cached kernels
    assert Path(sources["warm_up_full_beam"][0]).name == "kernels_fullbeam.py"
    for paths in sources.values():
        assert all(Path(p).exists() for p in paths), paths
        if paths is not sources["warm_up_kernels"]:
            assert str(Path(warm_up.__file__).resolve()) in paths  # a changed workload warms up again
