"""The install the README gives must ship every package and the data files."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_python_package_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("termo", "backends", "cli")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    missing = {p for p in listed - {"termo_data"} if not (ROOT / p.replace(".", "/") / "__init__.py").is_file()}
    assert not missing, f"listed in pyproject but not a package: {sorted(missing)}"


def test_data_files_are_package_data():
    from termo.core.paths import data_dir

    for name in ("lexicon.txt", "icf.csv", "probes_extra.txt", "fserb_lexico.txt", "fserb_conjugacoes.txt"):
        assert (data_dir() / name).is_file()
