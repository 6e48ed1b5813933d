"""The architecture holds (docs/ARCHITECTURE.md): the import contracts of pyproject.toml, an engine
that loads no game, and modules small enough to read."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("termo", "backends", "cli", "web", "bench")
PLUGINS = ("termo.games.termo_pt", "termo.games.lexicon", "termo.games.nerdle", "termo.games.equations",
           "termo.games.wordle_en", "termo.games.wordle_ru")


def test_the_import_contracts_are_kept():
    """`lint-imports` (import-linter): the layers, the compute layer below the domain, plugins only
    behind the registry, no cycle; .ci/run runs it too."""
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    proc = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_importing_the_engine_loads_no_game():
    """Every engine and book module imports, and no game plugin (nor its word lists) is loaded."""
    engine = sorted(f"termo.{p.parent.name}.{p.stem}" for folder in ("core", "engine", "book")
                    for p in (ROOT / "termo" / folder).glob("*.py") if p.stem != "__init__")
    code = ("import sys\n" + "".join(f"import {m}\n" for m in engine)
            + f"print(sorted(m for m in sys.modules if m in {PLUGINS!r}))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERMO_DATA_DIR": str(ROOT / "data")})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def _python_files():
    for top in SOURCES:
        yield from sorted((ROOT / top).rglob("*.py"))


def test_no_source_file_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in _python_files()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    long.update({str(p.relative_to(ROOT)): n for p in sorted((ROOT / "web" / "static").glob("*.js"))
                 if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600})
    assert long == {}


def test_no_function_of_the_domain_is_over_80_lines():
    long = []
    for p in sorted((ROOT / "termo").rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 80:
                long.append(f"{p.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1})")
    assert long == []
