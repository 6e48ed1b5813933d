"""The experiments of docs/rules.md §7.3–7.6: temperature sweep, extended space, opener studies, reports, CLI."""

from __future__ import annotations

import json
import math

import pytest

from termo.analysis.openers import Lab, letter_ranking, regret_table
from termo.analysis.report import markdown_table, write_report
from termo.analysis.worlds import closed_world, full_world, open_world

from engine_marks import needs_engine


# --- level 1 rankings (docs/rules.md §4) ---------------------------------------------------------------
def test_level1_ranking_of_serao():
    world = full_world()
    game = world.load_game()
    serao = game.index_of("serão")
    from termo.core.prior import most_common

    top300 = letter_ranking(world, sorted(most_common(game.icf, 300)))
    assert [game.answers[i] for i in top300[:4]] == ["oreia", "orate", "reato", "serão"]
    full = letter_ranking(world, world.candidates())
    assert [game.answers[i] for i in full[:4]] == ["oreia", "areou", "áureo", "airol"]
    assert full.index(serao) + 1 == 38


# --- worlds ------------------------------------------------------------------------------------
def test_worlds_shapes():
    o = open_world(300)
    assert o.size == 300 and o.load_game().n_probes == 6046 and o.kind == "open"
    w = o.weights()
    assert abs(float(w.sum()) - 1.0) < 1e-12
    assert sum(1 for v in w.tolist() if v > 0) == 300
    assert all(w[i] > 0 for i in o.initial)
    c = closed_world(300).load_game()
    assert c.n_answers == c.n_probes == 300
    assert list(c.answers) == sorted(c.answers, key=c.normalize)
    assert closed_world(None).load_game().n_answers == 6046
    assert open_world(None, extended=True).load_game().n_probes == 8629


# --- regret ------------------------------------------------------------------------------------
def test_regret_table():
    results = {"A": {"x": {"penalised_mean": 3.0}, "y": {"penalised_mean": 3.5}},
               "B": {"x": {"penalised_mean": 4.0}, "y": {"penalised_mean": 3.9}}}
    table = regret_table(results)
    assert table["best"] == {"A": 3.0, "B": 3.9}
    assert table["openers"]["x"]["regret"] == {"A": 0.0, "B": pytest.approx(0.1)}
    assert table["openers"]["y"]["worst"] == pytest.approx(0.5)
    assert table["ranking"] == ["x", "y"]


# --- reports and plots -------------------------------------------------------------------------
def test_markdown_and_report_files(tmp_path):
    text = markdown_table(["a", "b"], [[1, 2.5], ["x|y", None], [math.inf, [1, 2]]])
    assert text.splitlines()[0] == "| a | b |"
    assert "2.5000" in text and "—" in text and "∞" in text and "x\\|y" in text
    paths = write_report(tmp_path, "demo", {"v": math.inf, "rows": [(1, 2)]}, "## table\n\n" + text)
    data = json.loads((tmp_path / "demo.json").read_text())
    assert data == {"v": "inf", "rows": [[1, 2]]}
    assert (tmp_path / "demo.md").read_text().startswith("# demo")
    assert paths["json"].endswith("demo.json")


def test_plots_write_pngs(tmp_path):
    from termo.core import plots

    rows = [{"label": "a", "games": 10, "histogram": [1, 2, 3, 2, 1, 0], "lost": ["x"], "penalised_mean": 3.5},
            {"label": "b", "games": 10, "histogram": [0, 2, 4, 2, 1, 1], "lost": [], "penalised_mean": 3.7}]
    for path in (plots.turn_distribution(rows, tmp_path / "t.png", "turns"),
                 plots.line_plot(["1", "inf"], {"s": [3.5, 3.8]}, tmp_path / "l.png", "line", "T", "guesses"),
                 plots.bar_plot(["a", "b"], [0.0, 0.2], tmp_path / "b.png", "bars", "regret", highlight=["a"]),
                 plots.heatmap(["100", "all"], ["inf", "1"], [[0.1, None], [0.0, 0.3]], tmp_path / "h.png", "grid",
                               "T", "N", annotations=[["a", "b"], ["c", "d"]])):
        with open(path, "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"


# --- entropy rankings (engine) -------------------------------------------------------------------
@needs_engine
def test_full_lexicon_ranking_and_open_world_openers():
    lab = Lab()
    full = full_world(t=1.0)
    order, h = lab.ranking(full)
    words = [full.load_game().probes[g] for g in order[:6]]
    assert words == ["tarso", "tirão", "tória", "sertã", "teira", "tosar"]
    assert h[order[0]] == pytest.approx(5.9748166899580495, abs=1e-12)
    uniform = full_world(t=math.inf)
    order_u, hu = lab.ranking(uniform)
    assert uniform.load_game().probes[order_u[0]] == "cairo"
    assert hu[order_u[0]] == pytest.approx(6.202837886904743, abs=1e-12)
    # §7.4 step 5: argmax-entropy opener of the open worlds N = 300, 1500, all (uniform)
    argmax = [o.load_game().probes[lab.ranking(o)[0][0]] for o in (open_world(300), open_world(1500), open_world(None))]
    assert argmax == ["tirão", "tirão", "cairo"]


@needs_engine
def test_areio_world_argmax_probes():
    """§7.5: in the extended space the open worlds' argmax-entropy probes are teria, tirão, cairo."""
    lab = Lab()
    worlds = [open_world(n, extended=True) for n in (300, 1500, None)]
    assert [w.load_game().probes[lab.ranking(w)[0][0]] for w in worlds] == ["teria", "tirão", "cairo"]


@needs_engine
def test_sweep_t_infinity_row():
    """docs/rules.md §10: T = ∞ under the current endgame rule (the older published 3.887 predates it)."""
    from termo.analysis.battery import run_battery

    from termo.analysis.experiments import prior_value

    (row,) = run_battery(["entropy"], "realistic", t=math.inf)
    assert round(row["penalised_mean"], 3) == 3.788 and round(row["mean"], 3) == 3.788
    assert row["win_rate"] == 1.0
    assert row["histogram"] == [1, 18, 507, 760, 200, 14]
    assert row["first_guess"] == "cairo"
    (one,) = run_battery(["entropy"], "realistic", t=1.0)
    # the prior is worth 0.207 guesses per game under the current rules
    assert round(prior_value([{**one, "t": "1"}, {**row, "t": "inf"}]), 3) == 0.207


# --- CLI ---------------------------------------------------------------------------------------
def _run(capsys, *args):
    from cli.app import main

    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_battery_json_contract(capsys, tmp_path):
    code, out, err = _run(capsys, "bench", "battery", "--n", "30", "--strategies", "random", "--json",
                          "--out", str(tmp_path))
    assert code == 0, err
    rows = json.loads(out)
    assert isinstance(rows, list) and len(rows) == 1
    for key in ("strategy", "games", "mean", "penalised_mean", "win_rate", "histogram", "lost", "seconds_per_game"):
        assert key in rows[0]
    assert rows[0]["games"] == 30 and len(rows[0]["histogram"]) == 6
    assert (tmp_path / "battery-realistic-n30.json").exists()
    assert (tmp_path / "battery-realistic-n30.md").exists()
    assert (tmp_path / "battery-realistic-n30.png").exists()


@pytest.mark.parametrize("args", [["--set", "nope"], ["--strategies", "bogus"], ["--t", "-1"], ["--t", "warm"]])
def test_cli_bad_input(capsys, tmp_path, args):
    code, out, err = _run(capsys, "bench", "battery", "--out", str(tmp_path), *args)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err


@needs_engine
def test_cli_sweep_and_extended_json(capsys, tmp_path):
    code, out, err = _run(capsys, "bench", "sweep-t", "--temperatures", "1,inf", "--n", "20", "--json",
                          "--out", str(tmp_path))
    assert code == 0, err
    rows = json.loads(out)
    assert [r["t"] for r in rows] == ["1", "inf"]
    assert "Value of the prior" in (tmp_path / "sweep-t.md").read_text()
    assert (tmp_path / "sweep-t.png").exists()
    code, out, err = _run(capsys, "bench", "extended", "--levels", "2", "--n", "20", "--json", "--out", str(tmp_path))
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["probes"], r["level"], r["set"]) for r in rows] == [(6046, 2, "realistic"), (8629, 2, "realistic")]


# --- whole studies (slow) ----------------------------------------------------------------------
@needs_engine
@pytest.mark.slow
def test_worlds_study(tmp_path):
    from termo.analysis.opener_reports import worlds_report
    from termo.analysis.openers import worlds_study

    result = worlds_study(Lab())
    assert result["level1_ranking"]["300"]["rank"] == 4 and result["level1_ranking"]["all"]["rank"] == 38
    s5 = result["step5_open_worlds"]
    assert s5["compared"] == ["tarso", "tosar", "sorte", "serão", "tirão", "cairo"]
    assert s5["ranking"][0] == "sorte" and s5["ranking"][-1] == "serão"
    worlds_report(result, tmp_path)
    assert (tmp_path / "worlds.md").exists()


@needs_engine
@pytest.mark.slow
def test_areio_study(tmp_path):
    from termo.analysis.opener_reports import areio_report
    from termo.analysis.openers import areio_study

    result = areio_study(Lab())
    assert list(result["open_worlds"]["argmax"].values()) == ["teria", "tirão", "cairo"]
    assert result["open_worlds"]["compared"] == ["tarso", "areio", "serão", "teria", "tirão", "cairo"]
    areio_report(result, tmp_path)


@needs_engine
@pytest.mark.slow
def test_catalog_study(tmp_path):
    from termo.analysis.opener_reports import catalog_report
    from termo.analysis.openers import catalog_study

    result = catalog_study(Lab())
    full = {r["t"]: r["best"] for r in result["full"]}
    assert full["inf"] == "cairo" and full["1"] == "tarso" and full["2"] == "tirão"
    assert result["level3_t1"]["word"] == "tosar"
    assert result["level3_t1"]["expected"] == pytest.approx(3.0094161966572304, abs=1e-12)
    assert result["level1"] == "oreia"
    closed = {r["n"]: r for r in result["closed"]}
    assert closed[300]["level3_best"] == "sorte"  # the closed-world winner of §7.4
    assert closed[6046]["bits_best"] == "cairo"
    catalog_report(result, tmp_path)
    assert (tmp_path / "catalog.png").exists()
