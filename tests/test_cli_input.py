"""Command-line values a user can get wrong: each is one line on stderr and exit code 2, and one
bound serves every command that takes the same kind of value."""

from __future__ import annotations

import pytest

from cli.app import main


def _refused(capsys, args) -> str:
    capsys.readouterr()
    code = main(list(args))
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "99999", "61"])
def test_robustness_columns_out_of_range_are_refused(capsys, tmp_path, value):
    """--columns nan was accepted, and 99999 silently became the answer count."""
    err = _refused(capsys, ["robustness", "--world", "60", "--out", str(tmp_path), "--columns", value])
    assert f"bad column '{value}'" in err and "at most 60" in err


@pytest.mark.parametrize("command", [["tree", "build", "--game", "nerdle-mini", "--method", "exact"],
                                     ["optimal", "--game", "nerdle-mini"]])
@pytest.mark.parametrize("value", ["1e999", "inf", "nan", "86401", "0", "-5"])
def test_time_budgets_share_one_bound(capsys, tmp_path, command, value):
    """tree build --time 1e999 ran unbounded while optimal --time stopped at 86,400 s."""
    out = ["--out", str(tmp_path / "t.tree")] if command[0] == "tree" else []
    err = _refused(capsys, [*command, *out, "--time", value])
    assert "--time takes a number of seconds from 0.001 to 86400" in err
    assert not (tmp_path / "t.tree").exists()


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_result_files_honour_the_umask(tmp_path, capsys, mask):
    """Robustness outputs were written owner-only (0600, the temporary file's mode) whatever the
    umask; they get 0666 less the umask now, like any file a program opens."""
    import os
    import stat

    old = os.umask(mask)
    try:
        code = main(["robustness", "--world", "60", "--columns", "T=1", "--out", str(tmp_path), "--json"])
    finally:
        os.umask(old)
    capsys.readouterr()
    assert code == 0
    written = [p for p in tmp_path.iterdir() if p.is_file()]
    assert {p.name for p in written} >= {"robustness.json", "robustness.md", "regret_heatmap.png"}
    for path in written:
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask, path.name
