"""What a reader of the CLI sees: help texts (no ``<bool>``, no ``[[``, meaningful metavars),
progress on a stderr that is not a terminal, and the default output folders (under the cache
dir, never the current directory)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest


def _run(capsys, *args):
    from cli.app import main

    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


HELP_COMMANDS = [
    ["bench", "battery"], ["bench", "sweep-t"], ["bench", "extended"], ["bench", "worlds"], ["bench", "areio"],
    ["bench", "catalog"], ["bench", "second-guess"], ["robustness"], ["rank"], ["partition"], ["feedback"],
    ["matrix"], ["lexicon"], ["games"], ["backends"], ["optimal"], ["openers"], ["tree", "build"], ["tree", "eval"],
    ["tree", "show"], ["serve"], ["nerdle", "archive"], ["nerdle", "today"], ["nerdle", "stats"],
]


@pytest.mark.parametrize("command", HELP_COMMANDS, ids=" ".join)
def test_help_has_no_bool_and_no_double_brackets(capsys, command):
    code, out, err = _run(capsys, *command, "--help")
    assert code == 0, err
    assert "Usage:" in out
    assert "<bool>" not in out  # flags take no value
    assert "[[" not in out and "]]" not in out
    assert "<list" not in out
    assert "{" not in out.split("Usage:", 1)[1].splitlines()[0]  # GUESS, not {GUESS}


@pytest.mark.parametrize("command, metavars", [
    (["bench", "battery"], ["--set NAME", "--strategies LIST", "--n N", "--t -t T", "--seed N", "--beam K",
                            "--depth P", "--out DIR", "--backend NAME", "--game -g NAME"]),
    (["bench", "sweep-t"], ["--temperatures LIST", "--out DIR"]),
    (["bench", "extended"], ["--levels LIST", "--n3 N"]),
    (["bench", "worlds"], ["--world-t T", "--word WORD"]),
    (["bench", "second-guess"], ["--opener WORD", "--patterns K", "--top N", "--out DIR"]),
    (["robustness"], ["--openers beam|all", "--columns LIST", "--out DIR", "--scheduler ADDRESS",
                      "--worker-timeout SECONDS", "--connect-timeout SECONDS", "--past FILE", "--chunk N",
                      "--world N"]),
    (["rank"], ["--top N", "--t -t T", "HISTORY"]),
    (["partition"], ["GUESS", "HISTORY"]),
    (["feedback"], ["GUESS", "ANSWER"]),
])
def test_help_metavars(capsys, command, metavars):
    code, out, err = _run(capsys, *command, "--help")
    assert code == 0, err
    rows = " ".join(re.sub(r"[│╭╰─╮╯*]", " ", out).split())  # the table's cells in one line
    for metavar in metavars:
        assert metavar in rows, (metavar, out)


def test_usage_lines(capsys):
    _, out, _ = _run(capsys, "rank", "--help")
    assert " rank [OPTIONS] [HISTORY]..." in out
    _, out, _ = _run(capsys, "partition", "--help")
    assert " partition [OPTIONS] GUESS [HISTORY]..." in out


# --- item 11: progress on a stderr that is not a terminal ----------------------------------
LINE = re.compile(r"^termo: fake task: (\d+)/20 games \((\d+)%\), \d+ s elapsed(, about \d+ s left)?$")


class _Lines:
    """A non-terminal stderr that lets a test wait for a line (no sleeping, no clock)."""

    def __init__(self):
        import threading

        self.text = ""
        self.changed = threading.Condition()

    def write(self, text):
        with self.changed:
            self.text += text
            self.changed.notify_all()
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def wait_for(self, piece, safety=120):
        with self.changed:
            assert self.changed.wait_for(lambda: piece in self.text, timeout=safety), (piece, self.text)


def test_plain_progress_lines(monkeypatch):
    import sys

    from cli.common import progress_bar

    stream = _Lines()
    monkeypatch.setattr(sys, "stderr", stream)
    with progress_bar("fake task", total=20, interval=0.01, unit="games") as update:
        for done in range(1, 21):  # a small fake long task: 20 games, each reported by a line
            update(done)
            stream.wait_for(f": {done}/20 games" if done < 20 else "writing the report…")
        # its final phase: the library writes the report and reports nothing; the lines say so
    lines = stream.text.splitlines()
    assert lines, "no progress line on a non-terminal stderr"
    progress = [line for line in lines if LINE.match(line)]
    final = [line for line in lines if "writing the report…" in line]
    assert progress and final, lines
    assert all(line.startswith("termo: fake task: ") for line in lines)
    assert final[-1] == lines[-1]  # the last step follows the games, no standing still at 100%


def test_plain_progress_is_quiet_for_a_short_run_and_honours_the_env(capsys, monkeypatch):
    import sys

    from cli.common import progress_bar, progress_interval

    with progress_bar("quick", total=3) as update:  # default interval (5 s): nothing for a quick run
        for done in range(1, 4):
            update(done)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("TERMO_PROGRESS_INTERVAL", "0.05")
    assert progress_interval() == 0.05
    stream = _Lines()
    monkeypatch.setattr(sys, "stderr", stream)
    with progress_bar("env", total=None) as update:
        update(7)
        stream.wait_for("termo: env: 7 done")
    monkeypatch.setenv("TERMO_PROGRESS_INTERVAL", "nonsense")
    assert progress_interval() == 5.0


def test_progress_disabled_is_silent(capsys):
    from cli.common import progress_bar

    with progress_bar("off", total=5, enabled=False, interval=0.01) as update:
        update(5)
        update.phase("writing")
        time.sleep(0.05)
    assert capsys.readouterr().err == ""


def test_tracker_line_and_final_phase():
    from cli.common import _Tracker

    tracker = _Tracker("battery realistic", 1500, unit="games")
    tracker.started -= 12
    tracker(600)
    assert tracker.line() == "termo: battery realistic: 600/1500 games (40%), 12 s elapsed, about 18 s left"
    tracker(1500)
    assert tracker.phase_text == "writing the report…"
    assert tracker.line().startswith("termo: battery realistic: writing the report… (12 s elapsed")
    tracker.phase("writing the plots…")
    assert "writing the plots…" in tracker.line()


# --- item 12: the default --out is under the cache dir ----------------------------------------
def test_default_out_is_under_the_cache_dir(tmp_path, monkeypatch):
    from cli.common import default_out
    from termo.core.paths import cache_dir

    monkeypatch.chdir(tmp_path)
    assert default_out("results") == cache_dir() / "results"
    assert not default_out("results").resolve().is_relative_to(tmp_path.resolve())


def test_bench_battery_default_out_leaves_the_current_folder_alone(capsys, tmp_path, monkeypatch):
    from termo.core.paths import cache_dir

    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "bench", "battery", "--n", "5", "--strategies", "random")
    assert code == 0, err
    assert list(tmp_path.iterdir()) == []  # no results/ in the current folder
    written = re.search(r"written: (\S+\.json)", err)
    assert written, err
    path = Path(written.group(1))
    assert path.exists() and path.parent == cache_dir() / "results"


def test_robustness_default_out(capsys, tmp_path, monkeypatch):
    from termo.core.paths import cache_dir

    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "robustness", "--world", "30", "--chunk", "8", "--columns", "project", "--json")
    assert code == 0, err
    assert list(tmp_path.iterdir()) == []
    assert str(cache_dir() / "robustness") in err


def test_help_texts_docs_and_code_cite_only_docs():
    """Help texts, docs, code and tests cite docs/ (or nothing), never documents a reader of the
    repository does not have: the grep of every tracked text file finds nothing. (The pattern is
    built from pieces so that this file does not match it.)"""
    import shutil
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    section = "\u00a7"
    pattern = "\\|".join([section + "1.5", section + "11.3", "issue [0-9]", "games" + "-spec", "termo" + "-spec",
                          "reference " + "README"])
    found = subprocess.run(["git", "grep", "-n", "-I", pattern], cwd=root, capture_output=True, text=True)
    assert found.returncode in (0, 1), found.stderr
    assert found.stdout == ""
