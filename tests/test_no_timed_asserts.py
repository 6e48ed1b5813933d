"""The default test suite never asserts on elapsed time: a loaded machine must not fail it.

Speed belongs in the benchmarks (``bench/``). This test reads every test file and fails on an
``assert`` that orders (``<``, ``<=``, ``>``, ``>=``) a value measured with the clock: a call of
``time.time``/``monotonic``/``perf_counter``/``process_time`` (or their ``_ns`` forms), a name
assigned from one (``elapsed = time.monotonic() - started``, ``worst = max(worst, ...)``), or a
name a local helper returns from one (``rc, out, seconds = _cli(...)``). Waits are fine
(``while time.monotonic() < deadline``): they are not assertions. A test whose point is a
timing (a latency, a throughput) is marked ``@pytest.mark.timing``, which the default run
leaves out (``pyproject.toml``), and is exempt here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CLOCKS = {"time", "monotonic", "perf_counter", "process_time", "time_ns", "monotonic_ns", "perf_counter_ns",
          "process_time_ns"}
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _clock_names(tree: ast.Module) -> set:
    """Bare names bound to a clock by ``from time import monotonic [as m]``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "time":
            names |= {alias.asname or alias.name for alias in node.names if alias.name in CLOCKS}
    return names


def _is_clock_call(node, bare: set) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in CLOCKS and isinstance(func.value, ast.Name) \
            and func.value.id == "time":
        return True
    return isinstance(func, ast.Name) and func.id in bare


def _timed(node, bare: set, tainted: set) -> bool:
    """Does the expression read the clock, or a name measured with it?"""
    for sub in ast.walk(node):
        if _is_clock_call(sub, bare):
            return True
        if isinstance(sub, ast.Name) and sub.id in tainted:
            return True
    return False


def _called_name(node):
    """The local function an expression calls (through wrappers like ``asyncio.run(f())``)."""
    while isinstance(node, ast.Await):
        node = node.value
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Name):
        return node.func.id
    for arg in node.args:
        name = _called_name(arg)
        if name:
            return name
    return None


def _assignments(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield target, node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            yield node.target, node.value


def _returns(func) -> list:
    return [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]


def _taint(tree: ast.Module, bare: set) -> set:
    """Names whose value was measured with the clock (to a fixed point)."""
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    tainted: set = set()
    while True:
        before = len(tainted)
        timed_returns = {}
        for name, func in functions.items():  # which return positions of a local helper are timed
            for value in _returns(func):
                if isinstance(value, ast.Tuple):
                    spots = {i for i, elt in enumerate(value.elts) if _timed(elt, bare, tainted)}
                    if spots:
                        timed_returns.setdefault(name, set()).update(spots)
                elif _timed(value, bare, tainted):
                    timed_returns.setdefault(name, set()).add(None)
        for target, value in _assignments(tree):
            if isinstance(target, ast.Name) and _timed(value, bare, tainted) and not _is_clock_call(value, bare):
                tainted.add(target.id)  # a duration (a bare timestamp is not one)
            called = _called_name(value)
            if called in timed_returns:
                spots = timed_returns[called]
                if isinstance(target, ast.Tuple):
                    tainted |= {elt.id for i, elt in enumerate(target.elts)
                                if isinstance(elt, ast.Name) and (i in spots or None in spots)}
                elif isinstance(target, ast.Name):
                    tainted.add(target.id)
        if len(tainted) == before:
            return tainted


def _is_timing_marked(func) -> bool:
    for deco in func.decorator_list:
        text = ast.unparse(deco)
        if text in ("pytest.mark.timing", "mark.timing") or text.startswith("pytest.mark.timing("):
            return True
    return False


def timed_asserts(source: str, filename: str = "<test>") -> list[str]:
    """``file:line: assertion`` for each assertion on elapsed time outside a ``timing`` test."""
    tree = ast.parse(source, filename)
    if any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in n.targets)
           and "timing" in ast.unparse(n.value) for n in tree.body):
        return []
    bare = _clock_names(tree)
    tainted = _taint(tree, bare)
    exempt = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_timing_marked(node):
            exempt |= {id(sub) for sub in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert) or id(node) in exempt:
            continue
        for compare in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            if any(isinstance(op, ORDERING) for op in compare.ops) and \
                    any(_timed(part, bare, tainted) for part in [compare.left, *compare.comparators]):
                found.append(f"{filename}:{node.lineno}: {ast.unparse(node)[:120]}")
                break
    return found


def test_no_test_asserts_on_elapsed_time():
    found = []
    for path in sorted(TESTS.glob("test_*.py")):
        found += timed_asserts(path.read_text(encoding="utf-8"), path.name)
    assert not found, ("assertions on elapsed time (wait on events instead, or mark the test "
                       "@pytest.mark.timing):\n" + "\n".join(found))


def test_the_timing_marker_is_left_out_of_the_default_run():
    import tomllib

    config = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]
    options = config["ini_options"]
    assert "not timing" in options["addopts"]
    assert any(marker.startswith("timing:") for marker in options["markers"])


@pytest.mark.parametrize("source, flagged", [
    ("import time\ndef test():\n    t = time.monotonic()\n    work()\n    assert time.monotonic() - t < 5\n", True),
    ("import time\ndef test():\n    t = time.time()\n    elapsed = time.time() - t\n    assert elapsed <= 2\n", True),
    ("from time import perf_counter as pc\ndef test():\n    s = pc()\n    d = pc() - s\n    assert 1 > d\n", True),
    ("import time\ndef run():\n    s = time.monotonic()\n    return 0, 'x', time.monotonic() - s\n"
     "def test():\n    rc, out, seconds = run()\n    assert rc == 0\n    assert seconds < 15\n", True),
    ("import time\ndef test():\n    worst = 0.0\n    s = time.monotonic()\n"
     "    worst = max(worst, time.monotonic() - s)\n    assert worst < 0.5\n", True),
    ("import time\ndef run():\n    s = time.monotonic()\n    return 0, 'x', time.monotonic() - s\n"
     "def test():\n    rc, out, seconds = run()\n    assert rc == 0 and out == 'x'\n", False),
    ("import time\ndef test():\n    deadline = time.monotonic() + 9\n    while time.monotonic() < deadline:\n"
     "        pass\n    assert done()\n", False),
    ("import time\ndef test():\n    old = time.time() - 7200\n    touch(old)\n    assert removed()\n", False),
    ("import pytest, time\n@pytest.mark.timing\ndef test():\n    s = time.monotonic()\n"
     "    assert time.monotonic() - s < 1\n", False),
    ("def test():\n    assert len(lines) <= 3\n", False),
])
def test_the_scan_itself(source, flagged):
    assert bool(timed_asserts(source)) is flagged
