"""Progress while a command prepares or finishes: the battery's bar counts each game once, the
first-run lines (kernels compiling, a big pattern matrix being built) go above a spinner instead
of into it, and the spinner names the preparation step while it runs. Everything here records
the events in order; nothing waits on the clock."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends import status

ROOT = Path(__file__).resolve().parents[1]


# -- the battery's bar -----------------------------------------------------------------------

def test_battery_progress_reaches_the_end_only_when_the_last_strategy_ends(monkeypatch):
    """Two strategies of 4 games: the library used to report each strategy's end twice, and the
    bar, counting it twice, said "writing the report…" while the second was still playing."""
    from cli.bench_commands import _Progress
    from cli.common import FINAL_PHASE, _Tracker
    from termo.analysis import battery

    game = type("G", (), {"n_probes": 4})()
    monkeypatch.setattr(battery, "full_world", lambda **kw: type("W", (), {"game": game, "load_game": lambda self: game})())
    monkeypatch.setattr(battery, "battery_secrets", lambda game, name, n: list(range(4)))
    monkeypatch.setattr(battery, "build_policy", lambda name, world, **kw: name)
    monkeypatch.setattr(battery, "get_backend", lambda b: type("B", (), {"name": "numpy"})())
    monkeypatch.setattr(battery, "summarize", lambda result, game, name, **kw: {"strategy": name})
    events = []

    def evaluate(policy, world, secrets, backend=None, on_turn=None):
        for turn, alive in enumerate((3, 1, 0), start=1):
            on_turn(turn, alive, 1)
            events.append(("played", policy, turn))
        return None

    monkeypatch.setattr(battery, "evaluate", evaluate)
    tracker = _Tracker("battery level3", 8, on_change=lambda: events.append(
        ("bar", tracker.done, tracker.phase_text)), unit="games")
    battery.run_battery(["entropy", "level3"], "level3", progress=_Progress(tracker, 8))
    bars = [e for e in events if e[0] == "bar"]
    assert [done for _, done, _ in bars] == [1, 3, 4, 5, 7, 8]  # each count once, in order
    last_play = max(i for i, e in enumerate(events) if e[0] == "played")
    final = [i for i, e in enumerate(events) if e[0] == "bar" and e[2] == FINAL_PHASE]
    assert final and final[0] == last_play - 1  # the report phase starts with the last game's turn, not before
    assert all(e[2] is None for e in events[:last_play] if e[0] == "bar" and e[1] < 8)


def test_progress_adapter_counts_a_repeated_end_once():
    from cli.bench_commands import _Progress

    seen = []
    adapter = _Progress(lambda done, total: seen.append(done), 8)
    for label, done in [("a", 2), ("a", 4), ("a", 4), ("b", 1), ("b", 4), ("b", 4)]:
        adapter(label, done, 4)
    assert seen == [2, 4, 4, 5, 8, 8]
    seen.clear()  # the same label again (a temperature sweep): a count starting over is the next run
    adapter = _Progress(lambda done, total: seen.append(done), 8)
    for done in (3, 4, 1, 4):
        adapter("entropy", done, 4)
    assert seen == [3, 4, 5, 8]


# -- the stderr lines and the step names -------------------------------------------------------

class _Recorder:
    def __init__(self):
        self.events = []

    def line(self, text):
        self.events.append(("line", text))

    def step(self, name):
        self.events.append(("step", name))


def test_lines_go_through_the_display_shown_and_steps_are_named():
    rec = _Recorder()
    with status.display(rec.line, rec.step):
        status.say("termo: one")
        with status.step("compiling the search kernels"):
            assert status.current_step() == "compiling the search kernels"
            with status.step("building the pattern matrix"):
                pass
    assert status.current_step() is None
    assert rec.events == [("line", "termo: one"), ("step", "compiling the search kernels"),
                          ("step", "building the pattern matrix"), ("step", "compiling the search kernels"),
                          ("step", None)]


def test_compile_notice_goes_through_the_display(monkeypatch):
    from backends import numba_shim

    monkeypatch.setitem(numba_shim._state, "noticed", False)
    rec = _Recorder()
    with status.display(rec.line, rec.step):
        numba_shim.notice_compiling()
        numba_shim.notice_compiling()  # once per process
    assert rec.events == [("line", numba_shim.compile_notice(None))]  # outside the warm-ups: a few seconds


@pytest.mark.parametrize("seconds, estimate", [(None, "(a few seconds;"), (3.0, "(a few seconds;"),
                                               (44.0, "(about 40 s;"), (233.0, "(about 230 s;")])
def test_compile_notice_states_the_compile_ahead(monkeypatch, seconds, estimate):
    """The notice states the warm-ups' remaining estimate while they run, a few seconds for a
    kernel no warm-up compiled; every form starts alike (what the tests and benchmarks look for)."""
    from backends import numba_shim

    monkeypatch.setitem(numba_shim._state, "noticed", False)
    monkeypatch.setitem(numba_shim._state, "remaining", seconds)
    rec = _Recorder()
    with status.display(rec.line, rec.step):
        numba_shim.notice_compiling()
    (kind, line), = rec.events
    assert kind == "line" and estimate in line
    assert line.startswith(numba_shim.COMPILE_NOTICE.split("{")[0])
    assert ("for every command" in line) == (seconds is not None)


class _FakeTerminal(io.StringIO):
    def isatty(self):
        return True

    def fileno(self):
        raise io.UnsupportedOperation("fileno")


@pytest.fixture
def recorded_progress(monkeypatch):
    """rich's Progress, recording every description it is given (in order)."""
    import rich.progress

    descriptions = []

    class Recording(rich.progress.Progress):
        def add_task(self, description, *args, **kwargs):
            descriptions.append(description)
            return super().add_task(description, *args, **kwargs)

        def update(self, task_id, *args, description=None, **kwargs):
            if description is not None:
                descriptions.append(description)
            return super().update(task_id, *args, description=description, **kwargs)

    monkeypatch.setattr(rich.progress, "Progress", Recording)
    terminal = _FakeTerminal()

    def install():  # in the test's body: pytest puts its own capture back between the phases
        monkeypatch.setattr(sys, "stderr", terminal)

    return descriptions, terminal, install


def _plain_lines(text: str) -> list[str]:
    import re

    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    return [part.strip() for chunk in text.split("\n") for part in chunk.split("\r") if part.strip()]


def test_spinner_names_the_step_and_prints_the_notice_above_it(recorded_progress):
    from cli.solver_commands import progress_display

    descriptions, terminal, install = recorded_progress
    install()
    notice = "termo: compiling the search kernels once, for every command (about 230 s; later runs reuse them)\u2026"
    with progress_display("searching", delay=0.0) as callback:
        callback(0, 10)  # shown at once (delay 0)
        with status.step("compiling the search kernels"):
            status.say(notice)
            callback(3, 10)
        with status.step("building the pattern matrix"):
            pass
        callback(10, 10)
    assert descriptions == ["searching", "compiling the search kernels (once)", "searching",
                            "building the pattern matrix (once)", "searching"]
    assert notice in _plain_lines(terminal.getvalue())  # a line of its own, not mixed into the spinner


def test_bar_names_the_step_and_prints_the_notice_above_it(recorded_progress):
    from cli.common import FINAL_PHASE, progress_bar

    descriptions, terminal, install = recorded_progress
    install()
    with progress_bar("robustness (beam)", total=4, unit="openers") as update:
        with status.step("compiling the search kernels"):
            status.say("termo: a first-run line")
            update(1)
        update(4)
    assert descriptions == ["robustness (beam)", "robustness (beam): compiling the search kernels (once)",
                            "robustness (beam)", f"robustness (beam): {FINAL_PHASE}"]
    assert "termo: a first-run line" in _plain_lines(terminal.getvalue())


def test_plain_line_names_the_step():
    from cli.common import _Tracker

    tracker = _Tracker("openers (nerdle-mini)", None, unit="openers")
    with status.step("compiling the search kernels"):
        assert tracker.line().startswith("termo: openers (nerdle-mini): compiling the search kernels (once; ")
    assert tracker.line().startswith("termo: openers (nerdle-mini): 0 openers done")


# -- a big pattern matrix says so (item: the first Nerdle question) -----------------------------

def test_big_matrix_build_says_so_once(monkeypatch, tmp_path):
    from termo.engine import matrix
    from termo.games import get_game

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(matrix, "ANNOUNCE_BYTES", 0)  # nerdle-mini's 170 KB stands in for Nerdle's 1.2 GB
    monkeypatch.setattr(matrix, "_announced", set())
    monkeypatch.setattr(matrix, "_memory", {})
    monkeypatch.setattr(matrix, "_answers_major", {})
    game = get_game("nerdle-mini")
    rec = _Recorder()
    with status.display(rec.line, rec.step):
        matrix.pattern_matrix(game)
        matrix.answers_major_matrix(game)
    lines = [text for kind, text in rec.events if kind == "line"]
    assert lines == [f"termo: building the Nerdle Mini pattern matrix once (206 × 206 feedback codes: 0.0 GB in "
                     f"{tmp_path}, 0.0 GB with its answers-major copy; later runs read it)\u2026"]
    # one build writes both layouts: the answers-major one is then read from the cache
    assert [text for kind, text in rec.events if kind == "step"] == ["building the pattern matrix", None]


def test_matrix_sizes_and_threshold():
    from termo.engine import matrix
    from termo.games import get_game

    assert matrix.disk_bytes(get_game("nerdle")) == 2 * 17723 * 17723 * 2  # 1.26 GB: announced
    for small in ("termo", "wordle", "wordle-ru", "nerdle-mini"):
        assert matrix.disk_bytes(get_game(small)) < matrix.ANNOUNCE_BYTES  # built in a second or two: quiet


def test_big_matrix_line_shows_when_piped(tmp_path):
    code = ("from termo.engine import matrix; from termo.games import get_game; matrix.ANNOUNCE_BYTES = 0; "
            "matrix.pattern_matrix(get_game('nerdle-mini'))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERMO_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [f"termo: building the Nerdle Mini pattern matrix once (206 × 206 feedback "
                                        f"codes: 0.0 GB in {tmp_path}, 0.0 GB with its answers-major copy; later runs "
                                        "read it)\u2026"]
