"""Outputs of a robustness run: the JSON document, a markdown table and a regret heatmap (PNG).

Everything here is a pure function of the run's result, so a resumed run writes byte-identical
files.
"""

from __future__ import annotations

import math
from pathlib import Path

from termo.core.cache import atomic_write_bytes, atomic_write_json
from termo.core.plain_data import jsonable as to_jsonable

PALETTE = {"green": "#3AA394", "gold": "#D3AD69", "slate": "#6E5C62"}
HEATMAP_ROWS = 30  # openers shown in the heatmap of an all-openers run


def _fmt_t(t) -> str:
    if isinstance(t, str) or (isinstance(t, float) and math.isinf(t)):
        return "∞"
    return f"{t:.3f}"


def document(result: dict, scale: dict | None = None) -> dict:
    """The public JSON: the sweep result plus the scale section (T(M), scale table, collapse)."""
    doc = dict(result)
    if scale:
        doc.update(scale)
    return doc


def markdown(doc: dict) -> str:
    """A human-readable summary: columns, the regret matrix (beam) or ranks (all), robust opener."""
    lines = ["# Opener robustness", ""]
    if doc.get("temperatures"):
        lines += ["## T(M)", "", "| M | T |", "|---:|---:|"]
        lines += [f"| {row['M']:g} | {_fmt_t(row['T'])} |" for row in doc["temperatures"]]
        lines.append("")
    if doc.get("scale_table"):
        lines += ["## Scale table", "", "| T | M |", "|---:|---:|"]
        lines += [f"| {_fmt_t(row['T'])} | {row['M']:.1f} |" for row in doc["scale_table"]]
        lines.append("")
    if doc.get("collapse"):
        c = doc["collapse"]
        lines += [f"## Collapse test (M = {c['target']:g})", "", "| N | T | opener | bits |", "|---:|---:|---|---:|"]
        lines += [f"| {r['N']} | {_fmt_t(r['T'])} | {r['word']} | {r['entropy']:.6f} |" for r in c["rows"]]
        lines += ["", f"collapses: {'yes' if c['collapses'] else 'no'}; gap {c['gap']:.3g} bits", ""]
    cols = doc["columns"]
    lines += ["## Columns", "", "| column | M | T | best bits | best E | E |", "|---|---:|---:|---|---|---:|"]
    for col in cols:
        lines.append(f"| {col['label']} | {col['M']:.1f} | {_fmt_t(col['T'])} | {col['best_bits_word']} | "
                     f"{col['best_word']} | {col['best_expected']:.6f} |")
    lines.append("")
    if doc["mode"] == "beam":
        head = "| opener | " + " | ".join(c["label"] for c in cols) + " | worst |"
        lines += ["## Regret (E − best E of the column)", "", head, "|---|" + "---:|" * (len(cols) + 1)]
        for word, row in doc["regret"].items():
            lines.append(f"| {word} | " + " | ".join(f"{x:.4f}" for x in row) + f" | {doc['worst_regret'][word]:.4f} |")
        lines.append("")
    else:
        tracked = sorted({w for c in cols for w in c.get("ranks", {})})
        lines += ["## Ranks among all openers", "", "| column | " + " | ".join(tracked + ["top 3"]) + " |",
                  "|---|" + "---:|" * len(tracked) + "---|"]
        for col in cols:
            top = ", ".join(f"{w} {e:.4f}" for w, e in col.get("top10", [])[:3])
            ranks = [str(col["ranks"].get(w)) for w in tracked]
            lines.append("| " + " | ".join([col["label"], *ranks, top]) + " |")
        lines.append("")
    if doc.get("robust_opener"):
        lines.append(f"Robust opener (least worst-case regret): **{doc['robust_opener']}** "
                     f"(worst regret {doc['robust_worst_regret']:.4f}).")
    floor = doc.get("empirical_floor")
    if floor:
        lines.append(f"Empirical floor: rarest past secret {floor['word']} at ICF rank {floor['rank']} "
                     f"({floor['count']} listed, {len(floor['missing'])} not in the lexicon).")
    return "\n".join(lines) + "\n"


def heatmap_rows(doc: dict) -> list[str]:
    """Openers shown in the heatmap: all of them (beam), or the best by worst regret (all)."""
    worst = doc["worst_regret"]
    words = sorted(worst, key=lambda w: (worst[w], w))
    if doc["mode"] == "beam" or len(words) <= HEATMAP_ROWS:
        return list(doc["regret"])
    chosen = words[:HEATMAP_ROWS]
    for w in ("tarso", "tosar", "sertã"):
        if w in worst and w not in chosen:
            chosen.append(w)
    return chosen


HEATMAP_CMAP = "cividis"  # perceptually ordered: brightness rises with the regret
HEATMAP_BAR_LABEL = "regret (expected guesses above the column's best)"
HEATMAP_FONT = 9  # cell numbers
HEATMAP_MIN_HEIGHT = 4.4  # inches: room for the colour bar's label beside a map of one or two openers


def heatmap_figure(doc: dict):
    """The regret matrix (openers × columns) as a matplotlib figure: a sequential map from 0
    (dark, no regret) up, the colour bar labelled, each cell's number in black or white by the
    cell's brightness."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from termo.core.plots import text_colour

    rows = heatmap_rows(doc)
    cols = doc["columns"]
    values = [[doc["regret"][w][j] for j in range(len(cols))] for w in rows]
    # at least HEATMAP_MIN_HEIGHT inches tall: the colour bar's label runs along the bar, and a
    # map of a few openers was shorter than the label (cut off at both ends)
    height = max(HEATMAP_MIN_HEIGHT, 1.3 + 0.34 * len(rows))
    fig, ax = plt.subplots(figsize=(max(5.5, 2.2 + 1.15 * len(cols)), height), dpi=110)
    image = ax.imshow(values, cmap=HEATMAP_CMAP, aspect="auto", vmin=0.0)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([c["label"] if c["label"].startswith("M=") else f"{c['label']}\nM={c['M']:.0f}" for c in cols],
                       fontsize=9)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows, fontsize=9)
    for i, row in enumerate(values):
        for j, x in enumerate(row):
            ax.text(j, i, f"{x:.3f}", ha="center", va="center", fontsize=HEATMAP_FONT,
                    color=text_colour(image.cmap(image.norm(x))))
    ax.set_title("Regret of each opener per column\n(0 = the column's best opener)", fontsize=11)
    bar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02)
    bar.set_label(HEATMAP_BAR_LABEL, fontsize=9)
    fig.tight_layout()
    return fig


def heatmap_png(doc: dict) -> bytes:
    """The regret matrix (openers × columns) as a PNG (see :func:`heatmap_figure`)."""
    import io

    import matplotlib.pyplot as plt

    fig = heatmap_figure(doc)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


def doc_from_saved(data: dict) -> dict:
    """A document :func:`heatmap_png` can draw, from saved data without recomputing anything:
    a ``robustness.json`` as written by :func:`write_all` (returned as is), or a full-beam summary
    from ``bench/export_fullbeam.py`` / the full-beam grid (``words`` with ``expected`` per word:
    one E, or one E per column), whose regret is E minus the column's best E."""
    if "regret" in data:
        return data
    words = data["words"]
    if "columns" in data:
        cols = data["columns"]
        rows = [list(e) for e in data["expected"]]
    else:
        cols = [{**data["column"], "best_word": data["optimum"]["word"], "best_expected": data["optimum"]["expected"]}]
        rows = [[e] for e in data["expected"]]
    best = [min(r[j] for r in rows) for j in range(len(cols))]
    regret = {w: [r[j] - best[j] for j in range(len(cols))] for w, r in zip(words, rows)}
    return {"mode": "all", "columns": cols, "regret": regret, "worst_regret": {w: max(r) for w, r in regret.items()}}


def render_heatmap(json_path: Path | str, png_path: Path | str | None = None) -> str:
    """Re-render ``regret_heatmap.png`` from a saved JSON (see :func:`doc_from_saved`); by default
    beside the JSON. Returns the PNG's path."""
    import json

    source = Path(json_path)
    doc = doc_from_saved(json.loads(source.read_text(encoding="utf-8")))
    target = Path(png_path) if png_path is not None else source.with_name("regret_heatmap.png")
    atomic_write_bytes(target, heatmap_png(doc))
    return str(target)


def write_all(out_dir: Path | str, doc: dict) -> dict:
    """Write ``robustness.json``, ``robustness.md`` and ``regret_heatmap.png`` (atomic writes);
    returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "robustness.json", "markdown": out / "robustness.md", "heatmap": out / "regret_heatmap.png"}
    atomic_write_json(paths["json"], to_jsonable(doc))
    atomic_write_bytes(paths["markdown"], markdown(doc).encode("utf-8"))
    if doc.get("regret"):
        atomic_write_bytes(paths["heatmap"], heatmap_png(doc))
    return {k: str(v) for k, v in paths.items()}


__all__ = ["PALETTE", "doc_from_saved", "document", "heatmap_figure", "heatmap_png", "markdown", "render_heatmap",
           "write_all", "to_jsonable"]
