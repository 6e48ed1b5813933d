"""Outputs of a robustness run: the JSON document, a markdown table and a regret heatmap (PNG).

Everything here is a pure function of the run's result, so a resumed run writes byte-identical
files.
"""

from __future__ import annotations

import math
from pathlib import Path

from termo.cache import atomic_write_bytes, atomic_write_json
from termo.plain_data import jsonable as to_jsonable

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


def heatmap_png(doc: dict) -> bytes:
    """The regret matrix (openers × columns) as a PNG, green (no regret) → gold → slate."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LinearSegmentedColormap

    rows = heatmap_rows(doc)
    cols = doc["columns"]
    values = [[doc["regret"][w][j] for j in range(len(cols))] for w in rows]
    cmap = LinearSegmentedColormap.from_list("termo", [PALETTE["green"], PALETTE["gold"], PALETTE["slate"]])
    fig, ax = plt.subplots(figsize=(max(4.5, 1.2 + 1.1 * len(cols)), 1.0 + 0.32 * len(rows)), dpi=110)
    image = ax.imshow(values, cmap=cmap, aspect="auto", vmin=0.0)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([c["label"] if c["label"].startswith("M=") else f"{c['label']}\nM={c['M']:.0f}" for c in cols],
                       fontsize=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows, fontsize=8)
    for i, row in enumerate(values):
        for j, x in enumerate(row):
            ax.text(j, i, f"{x:.3f}", ha="center", va="center", fontsize=6.5, color="white" if x > 0 else "black")
    ax.set_title("Regret: expected guesses\nabove the column's best", fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


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


__all__ = ["PALETTE", "document", "markdown", "heatmap_png", "write_all", "to_jsonable"]
