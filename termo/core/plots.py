"""PNG plots of the analyses (matplotlib, Agg backend: no display needed).

Palette: green ``#3AA394``, gold ``#D3AD69``, slate ``#6E5C62`` (Termo's own colours), then the
Okabe–Ito colour-blind-safe colours (blue, vermillion, reddish purple, sky blue, yellow) so that a
six-series chart (turns 1..6, six temperatures, several strategies) has six distinguishable
colours. Heatmaps of one-directional quantities use a perceptually ordered sequential map
(``cividis``: its brightness rises with the value, and it reads the same to colour-blind eyes);
cell numbers take black or white by the cell's brightness.

Each plot has a ``*_figure`` function that builds and returns the matplotlib figure (the tests
inspect it) and a function of the historical name that saves it as a PNG and returns the path.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

GREEN = "#3AA394"
GOLD = "#D3AD69"
SLATE = "#6E5C62"
# Okabe & Ito (2008), "Color Universal Design": distinguishable under the common colour-vision deficiencies.
BLUE = "#0072B2"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
SKY = "#56B4E9"
YELLOW = "#F0E442"
PALETTE = (GREEN, GOLD, SLATE, BLUE, VERMILLION, PURPLE, SKY, YELLOW)
SEQUENTIAL = "cividis"  # heatmaps of a one-directional quantity (gap, regret >= 0)
ANNOTATION_SIZE = 10  # cell numbers and bar values: readable at the saved size
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", ":", "-.")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 11, "axes.titlesize": 13, "axes.labelsize": 11, "axes.spines.top": False,
                         "axes.spines.right": False, "figure.dpi": 100})
    return plt


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def luminance(rgba) -> float:
    """Relative luminance (WCAG, 0 black .. 1 white) of an RGB(A) tuple of floats in 0..1."""
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(float(c)) for c in rgba[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def text_colour(rgba) -> str:
    """Black on bright cells, white on dark ones (whichever contrasts more)."""
    lum = luminance(rgba)
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def _save(fig, path: str | Path) -> str:
    plt = _pyplot()
    fig.savefig(path)
    plt.close(fig)
    return str(path)


def turn_distribution_figure(rows: Sequence[dict], title: str, key: str = "label"):
    """Grouped bars: share of games solved on turns 1..6 (and lost), one colour per row."""
    plt = _pyplot()
    n_turns = len(rows[0]["histogram"]) if rows else 6
    labels = [str(k) for k in range(1, n_turns + 1)] + ["lost"]
    fig, ax = plt.subplots(figsize=(max(7.0, 1.2 * len(labels) + 0.4 * len(rows)), 4.6))
    width = 0.8 / max(1, len(rows))
    for i, r in enumerate(rows):
        games = r["games"] or 1
        counts = list(r["histogram"]) + [len(r["lost"])]
        share = [100.0 * c / games for c in counts]
        xs = [k + (i - (len(rows) - 1) / 2) * width for k in range(len(labels))]
        name = f"{r.get(key, r.get('strategy'))} ({r['penalised_mean']:.3f})"
        ax.bar(xs, share, width=width * 0.95, color=colour(i), label=name, edgecolor="white", linewidth=0.5)
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlabel("turn of the win")
    ax.set_ylabel("share of games (%)")
    ax.set_title(title)
    ax.legend(title="strategy (penalised mean)", frameon=False, fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def turn_distribution(rows: Sequence[dict], path: str | Path, title: str, key: str = "label") -> str:
    """Grouped bars: share of games solved on turns 1..6 (and lost), one colour per row."""
    return _save(turn_distribution_figure(rows, title, key), path)


def _same(a: Sequence[float | None], b: Sequence[float | None], tol: float = 1e-9) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if (x is None) != (y is None):
            return False
        if x is not None and not (x == y or abs(x - y) <= tol * max(1.0, abs(x), abs(y))):
            return False
    return True


def line_plot_figure(xs_labels: Sequence[str], series: dict[str, Sequence[float | None]], title: str,
                     xlabel: str, ylabel: str):
    """One line per series over categorical x values; each series has its own marker and line
    style, and a series equal to an earlier one is drawn dashed with hollow markers over it and
    said to coincide (on the plot and in the legend), so that no legend entry is invisible."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.4))
    xs = list(range(len(xs_labels)))
    names = list(series)
    coincide: list[tuple[str, str]] = []
    for i, name in enumerate(names):
        ys = series[name]
        twin = next((earlier for earlier in names[:i] if _same(series[earlier], ys)), None)
        pts = [(x, y) for x, y in zip(xs, ys) if y is not None and math.isfinite(y)]
        if not pts:
            continue
        style = {"marker": MARKERS[i % len(MARKERS)], "color": colour(i), "linewidth": 2,
                 "linestyle": LINESTYLES[i % len(LINESTYLES)], "label": name, "markersize": 7}
        if twin is not None:
            coincide.append((twin, name))
            style.update(linestyle="--", markersize=11, markerfacecolor="none", markeredgewidth=2,
                         label=f"{name} (= {twin})", zorder=3)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], **style)
    if coincide:
        note = "; ".join(f"{a} and {b} coincide" for a, b in coincide)
        ax.text(0.99, 0.02, note, transform=ax.transAxes, ha="right", va="bottom", fontsize=9, color="#333333")
    ax.set_xticks(xs, list(xs_labels))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend(frameon=False, fontsize=9)
    fig.tight_layout()
    return fig


def line_plot(xs_labels: Sequence[str], series: dict[str, Sequence[float | None]], path: str | Path, title: str,
              xlabel: str, ylabel: str) -> str:
    """One line per series over categorical x values (e.g. temperatures, world sizes)."""
    return _save(line_plot_figure(xs_labels, series, title, xlabel, ylabel), path)


def _highlight_reason(labels: Sequence[str], values: Sequence[float], highlight: Sequence[str], ylabel: str) -> str:
    chosen = [v for lab, v in zip(labels, values) if lab in highlight]
    rest = [v for lab, v in zip(labels, values) if lab not in highlight]
    what = ylabel.split(" (")[0] if ylabel else "value"
    if chosen and rest and max(chosen) <= min(rest):
        return f"lowest {what}"
    if chosen and rest and min(chosen) >= max(rest):
        return f"highest {what}"
    return "highlighted"


def bar_plot_figure(labels: Sequence[str], values: Sequence[float], title: str, ylabel: str,
                    highlight: Sequence[str] = (), highlight_reason: str = ""):
    """Simple bars with their values on top; ``highlight`` bars in gold, and the legend says why
    (``highlight_reason``, by default "lowest/highest <ylabel>" when the highlighted bars are the
    extreme ones)."""
    plt = _pyplot()
    from matplotlib.patches import Patch

    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(labels) + 2), 4.2))
    colours = [GOLD if lab in highlight else GREEN for lab in labels]
    bars = ax.bar(range(len(labels)), values, color=colours)
    ax.bar_label(bars, labels=[f"{v:.3f}" for v in values], padding=2, fontsize=ANNOTATION_SIZE - 1)
    ax.set_xticks(range(len(labels)), list(labels))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.margins(y=0.12)
    shown = [lab for lab in labels if lab in highlight]
    if shown:
        reason = highlight_reason or _highlight_reason(labels, values, highlight, ylabel)
        ax.legend(handles=[Patch(color=GOLD, label=f"{', '.join(shown)}: {reason}")], frameon=False, fontsize=9,
                  loc="upper left")
    fig.tight_layout()
    return fig


def bar_plot(labels: Sequence[str], values: Sequence[float], path: str | Path, title: str, ylabel: str,
             highlight: Sequence[str] = (), highlight_reason: str = "") -> str:
    """Simple bars (e.g. worst-case regret per opener); ``highlight`` bars in gold, explained in the legend."""
    return _save(bar_plot_figure(labels, values, title, ylabel, highlight, highlight_reason), path)


def heatmap_figure(row_labels: Sequence[str], col_labels: Sequence[str], values, title: str, xlabel: str,
                   ylabel: str, annotations=None, value_label: str = "", cmap: str = SEQUENTIAL):
    """A grid of numbers on a sequential map (brightness follows the value); cell texts in black or
    white by the cell's brightness."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(1.25 * len(col_labels) + 3, 0.62 * len(row_labels) + 2))
    grid = [[(v if v is not None else float("nan")) for v in row] for row in values]
    finite = [v for row in grid for v in row if math.isfinite(v)]
    vmin = 0.0 if finite and min(finite) >= 0 else None
    im = ax.imshow(grid, cmap=cmap, aspect="auto", vmin=vmin)
    ax.set_xticks(range(len(col_labels)), list(col_labels))
    ax.set_yticks(range(len(row_labels)), list(row_labels))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if annotations is not None:
        for i, row in enumerate(annotations):
            for j, text in enumerate(row):
                v = grid[i][j]
                ink = text_colour(im.cmap(im.norm(v))) if math.isfinite(v) else "black"
                ax.text(j, i, text, ha="center", va="center", fontsize=ANNOTATION_SIZE, color=ink)
    bar = fig.colorbar(im, ax=ax, shrink=0.8)
    if value_label:
        bar.set_label(value_label)
    fig.tight_layout()
    return fig


def heatmap(row_labels: Sequence[str], col_labels: Sequence[str], values, path: str | Path, title: str,
            xlabel: str, ylabel: str, annotations=None, value_label: str = "") -> str:
    """A grid of numbers (e.g. bits gap of an opener per world size × temperature)."""
    return _save(heatmap_figure(row_labels, col_labels, values, title, xlabel, ylabel, annotations, value_label), path)
