"""Integrity under damage and abuse: bounded options, bytes that are not UTF-8, file-system
errors, one-line errors, `termo feedback`'s validation.

Most cases run the CLI in-process through `cli.app.main` (stdout and stderr captured); the ones
that need a real process (a memory limit, /dev/full, a closed pipe, a strict stdin) run
`python -m cli` as a subprocess."""

from __future__ import annotations

import dataclasses

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fake_solver import install
from termo.core.errors import TermoError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch)


def run_cli(args, capsys):
    from cli.app import main

    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("termo: error: "), err
    return lines[0]


# Runs the CLI under an address-space limit set by the child itself: a ``preexec_fn`` would make
# subprocess fork this (multithreaded, once JAX is imported) test process and run Python code in
# the copy, which JAX warns may deadlock; a fresh interpreter (fork + exec, like spawn) is safe.
_LIMITED = ("import resource, runpy, sys; n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_AS, (n, n)); "
            "sys.argv = ['termo', *sys.argv[2:]]; runpy.run_module('cli', run_name='__main__', alter_sys=True)")


def run_process(args, *, stdin=None, stdout=subprocess.PIPE, env=None, memory_limit=None, timeout=300):
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("TERMO_DEBUG", None)
    start = ["-m", "cli"] if memory_limit is None else ["-c", _LIMITED, str(int(memory_limit))]
    return subprocess.run([sys.executable, *start, *args], input=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, cwd=ROOT, env=full_env, timeout=timeout)


# ----------------------------------------------------------------------------- 5. bounded options


def test_huge_beam_is_one_line_at_no_memory_cost():
    """`termo suggest tarso:BBBBB --beam 100000` grew to 23 GB before; now it stops at once."""
    out = run_process(["suggest", "tarso:BBBBB", "--beam", "100000"], memory_limit=3 * 2**30, timeout=300)
    assert out.returncode == 2, out.stderr
    line = one_error_line(out.stderr.decode())
    assert "--beam must be at most 100" in line and "memory" in line
    assert out.stdout == b""


def test_memory_limited_child_does_not_fork_this_process(recwarn):
    """The limit is set in the child: no ``os.fork()`` of this process, which JAX (imported by
    other tests, multithreaded) warns about; the child really runs under the limit."""
    pytest.importorskip("jax").numpy.zeros(2).block_until_ready()  # JAX's threads, as in the full suite
    out = run_process(["feedback", "rerum", "carro"], memory_limit=3 * 2**30, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().split()[0] == "YBGBB", out.stdout
    assert not [w for w in recwarn if "fork" in str(w.message)], [str(w.message) for w in recwarn]
    probe = subprocess.run([sys.executable, "-c", _LIMITED.replace("runpy.run_module('cli', run_name='__main__', "
                                                                   "alter_sys=True)",
                                                                   "print(resource.getrlimit(resource.RLIMIT_AS)[0])"),
                            str(3 * 2**30)], capture_output=True, text=True, timeout=300)
    assert probe.stdout.strip() == str(3 * 2**30), probe.stderr


@pytest.mark.parametrize("args, message", [
    (["suggest", "tarso:BBBBB", "--beam", "100000"], "--beam must be at most 100"),
    (["suggest", "--beam", "1" + "0" * 30], "--beam must be at most 100"),
    (["suggest", "--game", "nerdle-mini", "--beam", "207"], "--beam must be at most 100"),
    (["suggest", "tarso:BBBBB", "--depth", "6"], "--depth must be at most 5"),
    (["suggest", "--depth", "1" + "0" * 30], "--depth must be at most 5"),
    (["opener", "--beam", "6047"], "--beam must be at most 100"),
    (["play", "--depth", "99"], "--depth must be at most 5"),
    (["rank", "--top", "6047"], "--top must be at most 6,046"),
    (["rank", "--top", "9" * 5000], "--top takes an integer"),
    (["bench", "second-guess", "--patterns", "51"], "--patterns must be at most 50"),
    (["bench", "second-guess", "--top", "100000"], "--top must be at most 6,046"),
    (["bench", "battery", "--beam", "100000"], "--beam must be at most 100"),
    (["bench", "battery", "--depth", "100000"], "--depth must be at most 5"),
    (["bench", "battery", "--n", "100000"], "--n must be at most 6,046"),
    (["bench", "battery", "--game", "nerdle-mini", "--n", "207"], "--n must be at most 206"),
    (["bench", "battery", "--seed", "-1"], "--seed"),
    (["bench", "sweep-t", "--n", "6047"], "--n must be at most 6,046"),
    (["bench", "extended", "--n3", "6047"], "--n3 must be at most 6,046"),
    (["bench", "extended", "--depth", "6"], "--depth must be at most 5"),
    (["bench", "worlds", "--beam", "100000"], "--beam must be at most 100"),
    (["bench", "areio", "--beam", "100000"], "--beam must be at most 100"),
    (["bench", "catalog", "--depth", "7"], "--depth must be at most 5"),
    (["robustness", "--world", "60", "--chunk", "61"], "--chunk must be at most 60"),
    (["robustness", "--world", "60", "--worker-timeout", "inf"], "--worker-timeout"),
    (["robustness", "--world", "60", "--connect-timeout", "nan"], "--connect-timeout"),
    (["robustness", "--world", "60", "--columns", ",".join(f"T={t}" for t in range(1, 80))], "--columns"),
])
def test_every_count_option_is_bounded(args, message, fake, capsys, tmp_path):
    code, out, err = run_cli([*args, *(["--out", str(tmp_path)] if args[0] in ("bench", "robustness") else [])],
                             capsys)
    assert code == 2, (out, err)
    assert message in one_error_line(err)
    assert out == ""


def test_beam_at_the_cap_still_works(fake, capsys):
    code, out, err = run_cli(["suggest", "tarso:BBBBB", "--beam", "100", "--depth", "5", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["candidates"] == 223


def test_beam_at_the_cap_runs_the_real_search(capsys):
    """Nerdle Mini has 206 probes: the largest beam allowed (100), with the real engine."""
    code, out, err = run_cli(["suggest", "--game", "nerdle-mini", "4*7=28:BBBYBY", "--beam", "100", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["word"] and data["candidates"] >= 1


def test_the_limits_are_said_in_help(capsys):
    for args, words in ((["suggest", "--help"], ["probe count", "tries minus 1"]),
                        (["rank", "--help"], ["probe count"]),
                        (["bench", "second-guess", "--help"], ["at most 50"]),
                        (["bench", "battery", "--help"], ["probe count", "answers"]),
                        (["robustness", "--help"], ["world's probes", "game's answers"])):
        code, out, _ = run_cli(args, capsys)
        assert code == 0
        flat = " ".join(out.replace("│", " ").split())
        for word in words:
            assert word in flat, (args, word)


def test_config_checks_the_game(game):
    from termo.interface.suggest import Advisor, Config

    Config(beam=100, depth=5).check_game(game)
    with pytest.raises(TermoError, match="beam must be at most 100 .*memory"):
        Advisor(game, Config(beam=101))
    tiny = dataclasses.replace(game, name="tiny", answers=game.answers[:30], probes=game.answers[:30], icf=game.icf[:30])
    with pytest.raises(TermoError, match="beam must be at most 30 .*probe count"):
        Config(beam=31).check_game(tiny)
    with pytest.raises(TermoError, match="depth must be at most 5 .*6 tries"):
        Advisor(game, Config(depth=6))


def test_rounds_beyond_the_turn_limit_are_refused(fake, capsys):
    """10 rounds of a 6-try game suggested a word for try 11."""
    for rounds in (6, 10):
        code, out, err = run_cli(["suggest", *["tarso:BBBBB"] * rounds, "--level", "1"], capsys)
        assert code == 2 and out == ""
        line = one_error_line(err)
        assert "the game is over" in line and "6 tries" in line
    code, out, err = run_cli(["suggest", *["tarso:BBBBB"] * 5, "--level", "1", "--json"], capsys)
    assert code == 0, err  # the last try is still open


def test_library_suggest_refuses_a_finished_game(fake, game):
    from termo.interface.suggest import suggest

    with pytest.raises(TermoError, match="the game is over"):
        suggest(game, ["tarso:BBBBB"] * 6)


# ----------------------------------------------------------------------------- 6. bytes that are not UTF-8


def _strict_stdin(monkeypatch, data: bytes):
    """stdin as on a UTF-8 terminal or pipe with strict decoding (LANG=en_US.UTF-8)."""
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdin", stream)


def test_play_survives_a_latin1_byte_and_keeps_the_rounds(fake, monkeypatch, capsys):
    _strict_stdin(monkeypatch, b"tarso BBBBB\n\xe9\xe9\xe9\xe9\xe9 BBBBB\nfilme BBBYY\nlist\n")
    code, out, err = run_cli(["play", "--level", "1"], capsys)
    assert code == 2, err  # a piped session with a rejected line ends with 2
    assert "TARSO" in out and "FILME" in out  # the rounds before and after the bad line
    assert err.count("\n") == 1 and "\ufffd" in err and "is not a word" in err  # one rejected guess
    assert "12 candidates" in out
    assert out.rstrip().endswith("bye")


def test_play_subprocess_with_strict_utf8_stdin():
    out = run_process(["play", "--level", "1"], stdin=b"tarso BBBBB\n\xff\xfe BBBBB\nfilme BBBYY\n",
                      env={"PYTHONIOENCODING": "utf-8:strict", "LANG": "en_US.UTF-8"})
    assert out.returncode == 2, out.stderr  # one rejected line
    text = out.stdout.decode("utf-8")  # the transcript is valid UTF-8
    assert "FILME" in text and "bye" in text
    assert b"Traceback" not in out.stderr and out.stderr.decode("utf-8").count("\n") == 1


def test_terminal_reader_replaces_undecodable_bytes(monkeypatch):
    from termo.interface.console import terminal_reader

    stream = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8", errors="strict")
    read = terminal_reader(stream)
    assert stream.errors == "replace"

    def bad_input(prompt):
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")

    monkeypatch.setattr("builtins.input", bad_input)
    assert read("guess 1> ") == "\ufffd"  # one rejected line, the game goes on


def test_decoded_lines_one_line_at_a_time():
    from termo.interface.console import decoded_lines

    stream = io.TextIOWrapper(io.BytesIO(b"ab\n\xffc\r\nd"), encoding="utf-8", errors="strict")
    assert list(decoded_lines(stream)) == ["ab\n", "\ufffdc\r\n", "d"]
    assert list(decoded_lines(io.StringIO("x\ny"))) == ["x\n", "y"]


@pytest.mark.parametrize("args", [
    ["feedback", "\udcff\udcfe\udcfd\udcfc\udcfb", "tarso", "--json"],
    ["suggest", "tarso\udcff:BBBBB", "--json"],
    ["suggest", "--game", "ter\udce9mo"],
    ["partition", "tarso", "tar\udcffo:BBBBB", "--json"],
])
def test_arguments_that_are_not_utf8_are_refused(args, fake, capsys):
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    line = one_error_line(err)
    assert "not valid UTF-8" in line and "\\x" in line
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in line)


def test_feedback_json_of_undecodable_bytes_writes_no_bytes():
    """As a process: argv bytes that are not UTF-8 never reach stdout."""
    out = run_process(["feedback", os.fsdecode(b"\xff\xfe\xfd\xfc\xfb"), "tarso", "--json"])
    assert out.returncode == 2 and out.stdout == b""
    line = out.stderr.decode("utf-8").strip()
    assert "\\xff" in line and "\n" not in line


# ----------------------------------------------------------------------------- 8. file-system errors


def test_out_naming_a_file(tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("x")
    for args in (["bench", "second-guess", "--game", "nerdle-mini", "--no-compare"],
                 ["bench", "battery", "--game", "nerdle-mini", "--strategies", "random", "--n", "3"]):
        code, out, err = run_cli([*args, "--out", str(target)], capsys)
        assert code == 2, err
        line = one_error_line(err)
        assert str(target) in line and ("not a folder" in line or "in the way" in line)
        code, out, err = run_cli([*args, "--out", str(target / "sub")], capsys)
        assert code == 2
        assert "a file, not a folder" in one_error_line(err)


def test_missing_out_folder_is_created(tmp_path, capsys):
    target = tmp_path / "new" / "deeper"
    code, out, err = run_cli(["bench", "second-guess", "--game", "nerdle-mini", "--no-compare", "--patterns", "1",
                              "--top", "1", "--json", "--out", str(target)], capsys)
    assert code == 0, err
    assert (target / "second-guess-nerdle-mini.json").exists()


def test_unwritable_out_folder(tmp_path, capsys, monkeypatch):
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path))

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    code, out, err = run_cli(["bench", "battery", "--game", "nerdle-mini", "--strategies", "random", "--n", "3",
                              "--out", str(tmp_path)], capsys)
    assert code == 2
    assert "permission denied" in one_error_line(err)


def test_full_disk_out_folder_says_full_disk(tmp_path, capsys, monkeypatch):
    import tempfile

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", full)
    code, out, err = run_cli(["bench", "second-guess", "--game", "nerdle-mini", "--out", str(tmp_path)], capsys)
    assert code == 2
    line = one_error_line(err)
    assert "disk is full" in line and "not writable" not in line


def test_tree_build_on_a_full_disk_names_the_folder(tmp_path, capsys, monkeypatch):
    """A full disk's error carries no path: `tree build` said "no space left" without saying where."""
    from termo.trees import fileformat

    def full(path, data, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(fileformat, "atomic_write_bytes", full)
    code, out, err = run_cli(["tree", "build", "--game", "nerdle-mini"], capsys)
    line = one_error_line(err)
    assert code == 2 and out == ""
    assert line == (f"termo: error: cannot write the tree in {tmp_path / 'trees'}: no space left on device "
                    "(the disk is full); --out FILE writes it elsewhere")


def test_past_naming_a_binary_file(tmp_path, capsys):
    past = tmp_path / "past.bin"
    past.write_bytes(bytes(range(256)) * 4)
    code, out, err = run_cli(["robustness", "--world", "60", "--columns", "T=1", "--past", str(past),
                              "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    line = one_error_line(err)
    assert "not UTF-8 text" in line and str(past) in line


def test_oserror_anywhere_is_one_line(monkeypatch, capsys):
    """An OSError the command did not expect (here: the games table) is one line, not an
    internal error; a full disk is named as such."""
    import termo.games.registry

    def broken(name):
        raise OSError(errno.ENOSPC, "No space left on device", "/some/cache/file")

    monkeypatch.setattr(termo.games.registry, "get_game", broken)  # what the one listing calls
    code, out, err = run_cli(["games"], capsys)
    assert code == 2
    assert one_error_line(err) == "termo: error: /some/cache/file: no space left on device (the disk is full)"


def test_stdout_on_a_full_disk():
    with open("/dev/full", "w") as full:
        out = run_process(["games", "--json"], stdout=full)
    assert out.returncode == 2
    line = out.stderr.decode().strip()
    assert line == "termo: error: cannot write the output: no space left on device (the disk is full)"


@pytest.mark.parametrize("args", [["games", "--json"], ["rank", "--top", "3000"],
                                  ["suggest", "tarso:BBBBB", "--level", "1", "--json"]])
def test_closed_pipe_exits_quietly(args):
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will ever read: the first write fails with EPIPE
    try:
        out = run_process(args, stdout=write_end)
    finally:
        os.close(write_end)
    assert out.returncode in (0, 141), out.stderr
    assert out.stderr == b"", out.stderr  # no traceback, no "Exception ignored"


def _closed(redirect: str, args, **kwargs) -> subprocess.CompletedProcess:
    """``termo ARGS`` started with a standard stream closed (``redirect``: ``>&-`` or ``2>&-``), as
    a shell does it (``sh -c 'exec ...'``: no Python code runs in a fork of this process)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    full_env.pop("TERMO_DEBUG", None)
    return subprocess.run(["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-m", "cli", *args],
                          cwd=ROOT, env=full_env, timeout=300, **kwargs)


def test_a_closed_stdout_is_one_error_line_not_a_silent_success():
    """``termo suggest ... >&-``: the answer cannot be written; it was dropped with exit 0."""
    out = _closed(">&-", ["suggest", "tarso:BBBBB", "--level", "1"], stderr=subprocess.PIPE)
    assert out.returncode == 2
    assert out.stderr.decode() == "termo: error: standard output is closed: the answer cannot be written\n"


def test_a_closed_stderr_still_prints_the_answer():
    """``termo suggest ... 2>&-`` with a warning to give (a word outside the list): the answer is
    printed and the exit code is 0 (it was exit 1 and no answer)."""
    out = _closed("2>&-", ["suggest", "xyzzy:BBBBB", "--level", "1", "--json"], stdout=subprocess.PIPE)
    assert out.returncode == 0
    assert json.loads(out.stdout)["word"]


def test_os_error_message_helper():
    from cli.common import os_error_message

    assert os_error_message(OSError(errno.ENOSPC, "x")) == "cannot write the output: no space left on device (the disk is full)"
    assert os_error_message(PermissionError(errno.EACCES, "x", "/a")) == "/a: permission denied"
    assert "not a folder" in os_error_message(NotADirectoryError(errno.ENOTDIR, "x", "/a/b"))


# ----------------------------------------------------------------------------- 9. one-line errors


@pytest.mark.parametrize("args, shown", [
    (["suggest", "tar\x1bso:BBBBB"], "\\x1b"),
    (["suggest", "tarso:BB\x1b[31mBBB"], "\\x1b"),
    (["suggest", "--no-such\x1b[2J"], "\\x1b[2J"),
    (["suggest", "tarso:BBBBB", "--level", "1\n2"], "\\n"),
    (["suggest", "tarso:BBBBB", "filme:B\nBB\rBX"], "B\\nBB\\rBX"),
    (["suggest", "tarso:BBBBB", "fil\u2028me:BBBBB"], "\\u2028"),
    (["suggest", "tarso:BBBBB", "fil\u202eme:BBBBB"], "\\u202e"),
    (["feedback", "tar\x07so", "tarso"], "\\x07"),
    (["rank", "--by", "x\x1b]0;title\x07"], "\\x1b]0;title\\x07"),
    (["play", "--level", "\x00"], "\\x00"),
])
def test_control_characters_are_escaped(args, shown, fake, capsys):
    code, out, err = run_cli(args, capsys)
    assert code == 2
    line = one_error_line(err)
    assert shown in line
    assert not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 or c in "\u2028\u2029\u202e" for c in line)


def test_long_echoed_input_is_cut(fake, capsys):
    code, out, err = run_cli(["suggest", "a" * 5000 + ":BBBBB"], capsys)
    assert code == 2
    line = one_error_line(err)
    assert len(line) < 300 and "…" in line and "a" * 61 not in line
    code, out, err = run_cli(["suggest", "--game", "x" * 5000], capsys)
    assert code == 2
    line = one_error_line(err)
    assert len(line) < 300 and "x" * 61 not in line
    code, out, err = run_cli(["suggest", "--" + "y" * 5000], capsys)  # click's message, unquoted
    assert code == 2
    line = one_error_line(err)
    assert len(line) < 300 and "…" in line


def test_one_line_helper():
    from termo.core.safe_text import one_line

    assert one_line("plain 'text' stays") == "plain 'text' stays"
    assert one_line("the game's rule: 'abc'") == "the game's rule: 'abc'"
    assert one_line("a\nb\tc\x1bd\x7f\x9b") == "a\\nb\\tc\\x1bd\\x7f\\x9b"
    assert one_line("byte \udcff") == "byte \\xff"
    assert one_line("emoji 👨‍👩‍👧 and ç, ã, ё") == "emoji 👨‍👩‍👧 and ç, ã, ё"
    cut = one_line("bad '" + "x" * 100 + "' here")
    assert cut == "bad '" + "x" * 60 + "…' here"
    assert one_line("'" + "\\x1b" * 70 + "'").endswith("\\x1b…'")  # never half an escape
    path = "/tmp/" + "d" * 120 + "/file"  # a long path is kept whole
    assert one_line(f"cannot read {path}: no such file") == f"cannot read {path}: no such file"


def test_fail_escapes_too(capsys):
    import typer

    from cli.common import fail

    with pytest.raises(typer.Exit):
        fail("bad\nthing\x1b[0m")
    assert capsys.readouterr().err == "termo: error: bad\\nthing\\x1b[0m\n"


# ----------------------------------------------------------------------------- 10. feedback validates like suggest


@pytest.mark.parametrize("game_name, guess, answer", [
    ("termo", "!!!!!", "?????"),
    ("termo", "", "tarso"),
    ("termo", "   ", "tarso"),
    ("termo", "tarso", " "),
    ("termo", "12345", "tarso"),
    ("termo", "😀😀😀😀😀", "tarso"),
    ("termo", "tar so", "tarso"),
    ("wordle", "абвгд", "crane"),
    ("wordle-ru", "crane", "абвгд"),
    ("nerdle", "!!!!!!!!", "10+20=30"),
    ("nerdle-mini", "", "4*7=28"),
])
def test_feedback_refuses_what_suggest_refuses(game_name, guess, answer, capsys):
    code, out, err = run_cli(["feedback", "--game", game_name, guess, answer], capsys)
    assert code == 2 and out == "", out
    one_error_line(err)
    for word in (guess, answer):
        from termo.games import get_game
        from termo.engine.session import Session

        try:
            Session(get_game(game_name)).check_guess(word)
        except TermoError:
            break
    else:
        pytest.fail("suggest accepts both words")
