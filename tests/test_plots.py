"""The plots read right: built from small fake data, inspected as matplotlib figures (Agg)."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("matplotlib")

import matplotlib  # noqa: E402

matplotlib.use("Agg", force=True)
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402

from termo.core import plots  # noqa: E402
from termo.robustness import report  # noqa: E402

READABLE = 9  # points


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _monotonic_luminance(cmap, steps: int = 64) -> bool:
    lum = [plots.luminance(cmap(k / (steps - 1))) for k in range(steps)]
    diffs = [b - a for a, b in zip(lum, lum[1:])]
    return all(d >= -1e-6 for d in diffs) or all(d <= 1e-6 for d in diffs)


def _rows(n: int) -> list[dict]:
    return [{"label": f"T={k}", "games": 10, "histogram": [k % 2, 2, 3, 2, 1, 0], "lost": ["x"] * (k % 2),
             "penalised_mean": 3.5 + k / 10} for k in range(n)]


# --- item 14: coinciding lines --------------------------------------------------------------------
def test_coinciding_series_are_both_visible_and_said_to_coincide():
    same = [3.6, 3.58, 3.63, 3.79]
    fig = plots.line_plot_figure(["0.5", "1", "2", "inf"], {"penalised mean": same, "mean over wins": list(same)},
                                 "sweep", "temperature T", "guesses per game")
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(texts) == 2 and texts[0] == "penalised mean" and texts[1].startswith("mean over wins")
    lines = ax.get_lines()
    assert len(lines) == 2
    # the two lines are drawn differently (style, marker or fill), so both can be seen
    looks = {(ln.get_linestyle(), ln.get_marker(), str(ln.get_markerfacecolor()), ln.get_color()) for ln in lines}
    assert len(looks) == 2
    assert lines[0].get_linestyle() != lines[1].get_linestyle()
    notes = [t.get_text() for t in ax.texts]
    assert any("penalised mean and mean over wins coincide" in t for t in notes)


def test_distinct_series_are_not_said_to_coincide():
    fig = plots.line_plot_figure(["1", "inf"], {"a": [3.5, 3.8], "b": [3.4, 3.7]}, "t", "x", "y")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]
    assert not any("coincide" in t.get_text() for t in ax.texts)
    assert len({ln.get_marker() for ln in ax.get_lines()}) == 2


def test_line_plot_still_writes_a_png(tmp_path):
    path = plots.line_plot(["1", "inf"], {"s": [3.5, None]}, tmp_path / "l.png", "line", "T", "guesses")
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


# --- item 15: the robustness regret heatmap -------------------------------------------------------
def _doc() -> dict:
    cols = [{"label": "T=1", "M": 447.0}, {"label": "M=6046", "M": 6046.0}]
    regret = {"termo": [0.0, 0.035], "certo": [0.031, 0.0], "tosar": [0.073, 0.131]}
    return {"mode": "beam", "columns": cols, "regret": regret,
            "worst_regret": {w: max(r) for w, r in regret.items()}}


def test_regret_heatmap_has_a_labelled_bar_an_ordered_map_and_readable_contrasting_numbers():
    fig = report.heatmap_figure(_doc())
    ax, bar_ax = fig.axes
    image = ax.get_images()[0]
    assert image.cmap.name in ("viridis", "cividis", "magma", "inferno", "plasma") or _monotonic_luminance(image.cmap)
    assert _monotonic_luminance(image.cmap)
    assert "regret" in bar_ax.get_ylabel() and "expected guesses above the column's best" in bar_ax.get_ylabel()
    cells = ax.texts
    assert len(cells) == 6
    assert all(t.get_fontsize() >= READABLE for t in cells)
    for t in cells:  # the number's colour contrasts with its cell
        value = float(t.get_text())
        cell = plots.luminance(image.cmap(image.norm(value)))
        ink = plots.luminance(to_rgb(t.get_color()))
        lighter, darker = max(cell, ink), min(cell, ink)
        assert (lighter + 0.05) / (darker + 0.05) >= 4.5


def test_heatmap_png_is_deterministic():
    assert report.heatmap_png(_doc()) == report.heatmap_png(_doc())


def test_render_heatmap_from_saved_documents(tmp_path):
    saved = tmp_path / "robustness.json"
    saved.write_text(json.dumps(_doc()))
    out = report.render_heatmap(saved)
    assert out.endswith("regret_heatmap.png") and open(out, "rb").read(4) == b"\x89PNG"
    # a full-beam summary (one E per column per word): regret = E - the column's best E
    grid = {"columns": [{"label": "T=1", "M": 447.0}, {"label": "M=300", "M": 300.0}],
            "words": ["a", "b", "tarso"], "expected": [[3.5, 3.2], [3.4, 3.3], [3.6, 3.25]]}
    doc = report.doc_from_saved(grid)
    assert doc["regret"]["b"] == pytest.approx([0.0, 0.1])
    assert doc["worst_regret"]["tarso"] == pytest.approx(0.2)
    one = {"column": {"label": "T=1", "M": 447.0}, "optimum": {"word": "b", "expected": 3.4},
           "words": ["a", "b"], "expected": [3.5, 3.4]}
    regret = report.doc_from_saved(one)["regret"]
    assert regret["a"] == pytest.approx([0.1]) and regret["b"] == [0.0]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(one))
    assert open(report.render_heatmap(path, tmp_path / "x.png"), "rb").read(4) == b"\x89PNG"


# --- item 16: highlighted bars, six-series charts, the worlds grid --------------------------------
def test_highlighted_bar_is_explained_in_the_legend():
    fig = plots.bar_plot_figure(["sorte", "tarso", "serão"], [0.001, 0.01, 0.068], "regret",
                                "worst-case regret (guesses per game)", highlight=["sorte"])
    ax = fig.axes[0]
    bars = ax.patches[:3]
    assert to_rgb(bars[0].get_facecolor()) == to_rgb(plots.GOLD)
    assert to_rgb(bars[1].get_facecolor()) == to_rgb(plots.GREEN)
    (text,) = [t.get_text() for t in ax.get_legend().get_texts()]
    assert text == "sorte: lowest worst-case regret"
    values = [t.get_text() for t in ax.texts]
    assert values == ["0.001", "0.010", "0.068"]
    assert all(t.get_fontsize() >= READABLE for t in ax.texts)
    fig = plots.bar_plot_figure(["a", "b"], [0.2, 0.1], "t", "y", highlight=["b"], highlight_reason="robust pick")
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["b: robust pick"]


def test_unhighlighted_bars_have_no_legend():
    fig = plots.bar_plot_figure(["a", "b"], [0.1, 0.2], "t", "y")
    assert fig.axes[0].get_legend() is None


def _distance(a, b) -> float:
    return math.dist(to_rgb(a), to_rgb(b))


def test_six_series_turn_distribution_has_six_distinguishable_colours():
    fig = plots.turn_distribution_figure(_rows(6), "turns")
    ax = fig.axes[0]
    colours = []
    for patch in ax.patches:
        c = to_rgb(patch.get_facecolor())
        if c not in colours:
            colours.append(c)
    assert len(colours) == 6
    closest = min(_distance(a, b) for i, a in enumerate(colours) for b in colours[i + 1:])
    assert closest >= 0.25  # the old light tints of the house colours were ~0.2 apart from each other
    assert len(ax.get_legend().get_texts()) == 6


def test_palette_is_distinguishable():
    closest = min(_distance(a, b) for i, a in enumerate(plots.PALETTE) for b in plots.PALETTE[i + 1:])
    assert len(plots.PALETTE) >= 6 and closest >= 0.25


def test_grid_heatmap_uses_a_sequential_map_and_readable_numbers():
    fig = plots.heatmap_figure(["100", "all"], ["inf", "1"], [[0.1, None], [0.0, 0.3]], "grid", "T", "N",
                               annotations=[["a\n0.100", "b\n—"], ["c\n0.000", "d\n0.300"]], value_label="bits gap")
    ax, bar_ax = fig.axes
    image = ax.get_images()[0]
    assert image.cmap.name == plots.SEQUENTIAL and _monotonic_luminance(image.cmap)
    assert image.norm.vmin == 0.0
    assert bar_ax.get_ylabel() == "bits gap"
    assert all(t.get_fontsize() >= READABLE for t in ax.texts)
    inks = {t.get_text(): t.get_color() for t in ax.texts}
    assert inks["c\n0.000"] == "white" and inks["d\n0.300"] == "black"  # dark low end, bright high end


def test_saving_functions_keep_their_signatures(tmp_path):
    rows = _rows(2)
    for path in (plots.turn_distribution(rows, tmp_path / "t.png", "turns"),
                 plots.bar_plot(["a", "b"], [0.0, 0.2], tmp_path / "b.png", "bars", "regret", highlight=["a"]),
                 plots.heatmap(["100"], ["inf"], [[0.1]], tmp_path / "h.png", "grid", "T", "N",
                               annotations=[["a"]])):
        assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("n_cols, n_rows", [(1, 1), (1, 3), (2, 2), (7, 8), (1, 33)])
def test_heatmap_colour_bar_label_is_inside_the_figure(n_cols, n_rows):
    """A one-column map of a few openers was shorter than its colour bar's label, which was cut
    off at both ends."""
    cols = [{"label": f"T={j + 1}", "M": 447.0} for j in range(n_cols)]
    regret = {f"w{i:02d}": [0.01 * i] * n_cols for i in range(n_rows)}
    fig = report.heatmap_figure({"mode": "beam", "columns": cols, "regret": regret,
                                 "worst_regret": {w: max(r) for w, r in regret.items()}})
    fig.canvas.draw()
    label = fig.axes[1].yaxis.label.get_window_extent(fig.canvas.get_renderer())
    box = fig.bbox
    assert box.x0 <= label.x0 and label.x1 <= box.x1 and box.y0 <= label.y0 and label.y1 <= box.y1
    import matplotlib.pyplot as plt

    plt.close(fig)
