"""The foundation commands through typer's CliRunner and the real entry point."""

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from cli.app import app, main

runner = CliRunner()


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("termo ")


def test_feedback_letters_and_squares():
    result = runner.invoke(app, ["feedback", "rerum", "carro"])
    assert result.exit_code == 0
    assert result.output.split() == ["YBGBB", "🟨⬛🟩⬛⬛"]
    data = json.loads(runner.invoke(app, ["feedback", "metro", "termo", "--json"]).output)
    assert data["pattern"] == "YGYYG"


def test_lexicon_json():
    data = json.loads(runner.invoke(app, ["lexicon", "--json"]).output)
    assert [data[k] for k in (
        "five_letter_words", "groups", "colliding_groups", "colliding_words",
        "cedilla_before_dedupe", "cedilla_after_dedupe", "answers", "probes_extended",
    )] == [6301, 6046, 242, 497, 172, 140, 6046, 8629]


def test_matrix_json_and_cache():
    first = json.loads(runner.invoke(app, ["matrix", "--json", "--rebuild"]).output)
    assert first["shape"] == [6046, 6046]
    assert first["signature"] == "6046x6046:27bfa885e3a60154"
    assert set(first) >= {"shape", "signature", "seconds", "cache"}
    ext = json.loads(runner.invoke(app, ["matrix", "--extended", "--json"]).output)
    assert ext["shape"] == [8629, 6046]


def test_backends_lists_numpy():
    rows = json.loads(runner.invoke(app, ["backends", "--json"]).output)
    assert {r["name"] for r in rows} >= {"numpy", "jax", "cupy", "array-api-strict"}
    assert any(r["name"] == "numpy" and r["usable"] for r in rows)


def test_backends_table_has_a_header_and_names_every_device():
    result = runner.invoke(app, ["backends"])
    lines = result.output.splitlines()
    assert lines[0].split() == ["backend", "version", "device"]
    numpy_row = next(line for line in lines if line.startswith("numpy "))
    assert numpy_row.split()[-1] == "cpu" and "None" not in result.output


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["feedback", "casa", "termo"], "has 4 letters"),
        (["matrix", "--backend", "tpu"], "unknown backend 'tpu'"),
        (["matrix", "--bogus"], "No such option"),
        (["feedback", "termo"], "Missing argument"),
        # a root --backend is checked even for a command that computes no arrays
        (["--backend", "nosuch", "feedback", "tarso", "termo"], "unknown backend 'nosuch'"),
        (["--backend=nosuch", "games"], "unknown backend 'nosuch'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, fragment, capsys):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_python_dash_m_cli():
    out = subprocess.run([sys.executable, "-m", "cli", "feedback", "termo", "metro"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("YGYYG")
