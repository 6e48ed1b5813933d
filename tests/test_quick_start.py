"""The test run's quick start (tests/conftest.py): a compile of the kernels before the first test
says so at once and how far it has gone; a warm cache prepares in silence."""

from __future__ import annotations

import sys

from backends.numba_shim import compile_notice
from conftest import prepare_kernels

COMPILING = ("import sys, time\n"
             "print({notice!r}, file=sys.stderr, flush=True)\n"
             "time.sleep(4.0)\n")


def test_a_compile_says_so_at_once_then_its_progress_then_ready():
    said = []
    code = COMPILING.format(notice=compile_notice(230.0))
    prepare_kernels(said.append, quiet_for=30.0, every=0.5, command=[sys.executable, "-c", code])
    assert said[0] == ("termo tests: compiling the search kernels once, before the first test "
                       "(about 230 s; later runs reuse them)")  # on the notice, not 30 s in
    assert any(line.startswith("termo tests: compiling the search kernels… ") and line.endswith(" s so far")
               for line in said[1:-1]), said
    assert said[-1].startswith("termo tests: the search kernels are ready after ")


def test_a_warm_cache_prepares_in_silence():
    said = []
    prepare_kernels(said.append, quiet_for=30.0, command=[sys.executable, "-c", "pass"])
    assert said == []


def test_a_slow_preparation_says_what_it_does_and_a_failure_why():
    said = []
    code = "import sys, time; time.sleep(3.0); print('termo: error: no matrix', file=sys.stderr); sys.exit(2)"
    prepare_kernels(said.append, quiet_for=0.5, every=30.0, command=[sys.executable, "-c", code])
    assert said[0] == "termo tests: preparing the search kernels before the first test…"
    assert said[-1].startswith("termo tests: preparing the search kernels failed (exit 2) after ")
    assert said[-1].endswith("\ntermo: error: no matrix")
