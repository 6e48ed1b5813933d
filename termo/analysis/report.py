"""Write an experiment's results: ``<name>.json`` and ``<name>.md`` (markdown tables) in a folder.

Everything written is plain data (lists, dicts, numbers, strings); non-finite floats become the
strings ``inf``/``-inf``/``nan`` so the JSON stays standard.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Sequence

from termo.core.cache import atomic_write_bytes
from termo.core.plain_data import jsonable


def fmt(value: Any, digits: int = 4) -> str:
    """A table cell: floats rounded, None as an em dash, lists joined."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "∞" if value > 0 else ("-∞" if value < 0 else "nan")
        return f"{value:.{digits}f}"
    if isinstance(value, (list, tuple)):
        return "/".join(fmt(v, digits) for v in value)
    return str(value)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], digits: int = 4) -> str:
    """A GitHub-flavoured markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(fmt(c, digits).replace("|", "\\|") for c in row) + " |")
    return "\n".join(lines)


BATTERY_HEADERS = ("strategy", "games", "mean", "penalised", "wins", "histogram 1–6", "lost", "s/game")


def battery_rows(rows: Sequence[dict], key: str = "label") -> list[list[Any]]:
    """Table rows for battery results (one per strategy or configuration)."""
    out = []
    for r in rows:
        win = r.get("win_rate")
        out.append([
            r.get(key, r.get("strategy")),
            r["games"],
            r["mean"],
            r["penalised_mean"],
            f"{100 * win:.1f}%" if win is not None else None,
            "/".join(str(c) for c in r["histogram"]),
            len(r["lost"]),
            f"{r['seconds_per_game'] * 1000:.2f} ms" if r.get("seconds_per_game") is not None else None,
        ])
    return out


def battery_markdown(rows: Sequence[dict], title: str, key: str = "label", headers=BATTERY_HEADERS) -> str:
    return f"## {title}\n\n" + markdown_table(list(headers), battery_rows(rows, key))


def write_report(out_dir: str | Path, name: str, payload: Any, markdown: str, plots: Sequence[str] = ()) -> dict:
    """Write ``<out>/<name>.json`` and ``<out>/<name>.md``; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / f"{name}.json"
    md_path = out / f"{name}.md"
    atomic_write_bytes(json_path, (json.dumps(jsonable(payload), ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    text = f"# {name}\n\n{markdown.strip()}\n"
    if plots:
        text += "\n" + "\n".join(f"![{Path(p).stem}]({Path(p).name})" for p in plots) + "\n"
    atomic_write_bytes(md_path, text.encode("utf-8"))
    for path in (json_path, md_path):  # temp files are private; results are meant to be shared
        try:
            os.chmod(path, 0o644)
        except OSError:
            pass
    return {"json": str(json_path), "markdown": str(md_path), "plots": [str(p) for p in plots]}
