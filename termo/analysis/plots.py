"""PNG plots of the analyses (matplotlib, Agg backend: no display needed).

Palette: green ``#3AA394``, gold ``#D3AD69``, slate ``#6E5C62`` (Termo's own colours), then
lighter tints of the same for further series.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

GREEN = "#3AA394"
GOLD = "#D3AD69"
SLATE = "#6E5C62"
PALETTE = (GREEN, GOLD, SLATE, "#8CCBC1", "#E8D3A9", "#A8979C", "#1F6B60", "#9C7A3C")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 11, "axes.titlesize": 13, "axes.labelsize": 11, "axes.spines.top": False,
                         "axes.spines.right": False, "figure.dpi": 100})
    return plt


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def turn_distribution(rows: Sequence[dict], path: str | Path, title: str, key: str = "label") -> str:
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
        ax.bar(xs, share, width=width * 0.95, color=colour(i), label=name)
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlabel("turn of the win")
    ax.set_ylabel("share of games (%)")
    ax.set_title(title)
    ax.legend(title="strategy (penalised mean)", frameon=False, fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return str(path)


def line_plot(xs_labels: Sequence[str], series: dict[str, Sequence[float | None]], path: str | Path, title: str,
              xlabel: str, ylabel: str) -> str:
    """One line per series over categorical x values (e.g. temperatures, world sizes)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.4))
    xs = list(range(len(xs_labels)))
    for i, (name, ys) in enumerate(series.items()):
        pts = [(x, y) for x, y in zip(xs, ys) if y is not None and math.isfinite(y)]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=colour(i), label=name, linewidth=2)
    ax.set_xticks(xs, list(xs_labels))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend(frameon=False, fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return str(path)


def bar_plot(labels: Sequence[str], values: Sequence[float], path: str | Path, title: str, ylabel: str,
             highlight: Sequence[str] = ()) -> str:
    """Simple bars (e.g. worst-case regret per opener); ``highlight`` bars in gold."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(labels) + 2), 4.2))
    colours = [GOLD if lab in highlight else GREEN for lab in labels]
    ax.bar(range(len(labels)), values, color=colours)
    ax.set_xticks(range(len(labels)), list(labels))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return str(path)


def heatmap(row_labels: Sequence[str], col_labels: Sequence[str], values, path: str | Path, title: str,
            xlabel: str, ylabel: str, annotations=None, value_label: str = "") -> str:
    """A grid of numbers (e.g. bits gap of an opener per world size × temperature)."""
    plt = _pyplot()
    from matplotlib.colors import LinearSegmentedColormap

    cmap = LinearSegmentedColormap.from_list("termo", [GREEN, "#F4F1EC", GOLD])
    fig, ax = plt.subplots(figsize=(1.1 * len(col_labels) + 3, 0.55 * len(row_labels) + 2))
    grid = [[(v if v is not None else float("nan")) for v in row] for row in values]
    im = ax.imshow(grid, cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(col_labels)), list(col_labels))
    ax.set_yticks(range(len(row_labels)), list(row_labels))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if annotations is not None:
        for i, row in enumerate(annotations):
            for j, text in enumerate(row):
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color="#1B1B1B")
    bar = fig.colorbar(im, ax=ax, shrink=0.8)
    if value_label:
        bar.set_label(value_label)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return str(path)
