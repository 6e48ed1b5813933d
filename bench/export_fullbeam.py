"""Compact summary of a full-beam run (``termo robustness --openers all``) for bench/results.

Usage: python bench/export_fullbeam.py OUT_DIR [--column T=1] [--name fullbeam_T1] [--note TEXT]
Reads OUT_DIR/robustness.json and writes bench/results/<name>.json: the column, the true optimum,
the top 20, the ranks and E of tarso, tosar and sertã, E quantiles, and every opener's E (in
lexicon order, words alongside).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import save  # noqa: E402


def summarise(doc: dict, label: str) -> dict:
    labels = [c["label"] for c in doc["columns"]]
    if label not in labels:
        raise SystemExit(f"column {label!r} not in the run (columns: {', '.join(labels)})")
    j = labels.index(label)
    col = doc["columns"][j]
    words = list(doc["expected"])
    values = [doc["expected"][w][j] for w in words]
    ranked = sorted(range(len(words)), key=lambda i: (values[i], i))
    rank = {words[i]: r + 1 for r, i in enumerate(ranked)}
    tracked = {w: {"rank": rank[w], "expected": doc["expected"][w][j], "regret": doc["regret"][w][j]}
               for w in ("tarso", "tosar", "sertã") if w in rank}
    qs = statistics.quantiles(values, n=20)
    return {
        "column": {k: col[k] for k in ("label", "M", "T", "N", "best_bits_word", "best_bits_entropy")},
        "n_openers": len(words),
        "optimum": {"word": col["best_word"], "expected": col["best_expected"]},
        "top20": [[words[i], values[i]] for i in ranked[:20]],
        "tracked": tracked,
        "quantiles": {"min": min(values), "p5": qs[0], "median": statistics.median(values), "p95": qs[-1],
                      "max": max(values)},
        "words": words,
        "expected": values,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--column", default="T=1")
    parser.add_argument("--name", default="fullbeam_T1")
    parser.add_argument("--note", default="")
    parser.add_argument("--run", default="", help="JSON object with how the run went (seconds, cpu, ...)")
    args = parser.parse_args()
    doc = json.loads((Path(args.out_dir) / "robustness.json").read_text(encoding="utf-8"))
    if doc.get("mode") != "all":
        raise SystemExit("not an all-openers run")
    payload = summarise(doc, args.column)
    if args.note:
        payload["note"] = args.note
    if args.run:
        payload["run"] = json.loads(args.run)
    save(args.name, payload)


if __name__ == "__main__":
    main()
