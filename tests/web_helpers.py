"""Shared by the web tests (tests/test_web_api.py, test_web_workers.py, test_web_pages.py): the
test client, the CLI run in-process as the oracle, and the API's own keys set aside.

A test module uses a fixture by importing it (``from web_helpers import client``).
"""

from __future__ import annotations

import json
import re
import warnings

import pytest

with warnings.catch_warnings():  # this starlette asks for the httpx2 fork; the test client works with httpx
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: F401 - re-exported for the test modules

from cli.app import main
from web.app import create_app


@pytest.fixture(autouse=True)
def _no_game_env(monkeypatch):
    monkeypatch.delenv("TERMO_GAME", raising=False)
    monkeypatch.delenv("TERMO_BACKEND", raising=False)


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def cli(capsys, args):
    """Run ``termo ARGS`` in-process: (exit code, stdout, stderr lines)."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if line]


def cli_json(capsys, args):
    code, out, err = cli(capsys, args + ["--json"])
    assert code == 0, err
    return json.loads(out), [line[len("warning: "):] for line in err if line.startswith("warning: ")]


def cli_error(capsys, args):
    code, out, err = cli(capsys, args)
    assert code == 2 and out == "" and len(err) == 1, (code, out, err)
    assert err[0].startswith("termo: error: ")
    return err[0][len("termo: error: "):]


def suggest_args(body: dict) -> list[str]:
    args = ["suggest", *body.get("history", []), "--game", body.get("game", "termo")]
    for key in ("level", "t", "beam", "depth", "opener", "list"):
        if key in body:
            args += [f"--{key}", str(body[key])]
    for flag in ("extended", "strict", "hard", "no_tree"):
        if body.get(flag):
            args.append(f"--{flag.replace('_', '-')}")
    return args


def in_api_terms(message: str) -> str:
    """The CLI's message as the API words it: an option is named by its field (``level``), not
    by its flag (``--level``)."""
    return re.sub(r"(?<![\w'-])--(level|t|beam|depth|list|opener)(?![\w-])", r"\1", message)


# the keys the API adds after the command's own: the board's languages (tests/test_messages.py)
ADDED = ("reason_messages", "warning_messages")


def cli_keys(data: dict) -> dict:
    """An answer without the added keys: the command's ``--json``."""
    return {key: value for key, value in data.items() if key not in ADDED}


def detail_of(response) -> dict:
    """An error body's CLI line (its code and renderings are tests/test_messages.py's)."""
    return {"detail": response.json()["detail"]}


def warnings_of(response) -> list[str]:
    header = response.headers.get("X-Termo-Warnings")
    return json.loads(header) if header else []
