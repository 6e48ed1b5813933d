"""Markdown tables and plots of the opener studies (§7.4 worlds, §7.5 areio, §7.6 catalogue)."""

from __future__ import annotations

from pathlib import Path

from termo.core import plots
from termo.analysis.report import battery_markdown, fmt, markdown_table, write_report


def _regret_markdown(block: dict, title: str) -> str:
    worlds = list(block["results"])
    headers = ["opener"] + [f"{w} penalised" for w in worlds] + [f"{w} regret" for w in worlds] + ["worst regret"]
    rows = []
    for o in block["ranking"]:
        entry = block["openers"][o]
        rows.append([o] + [entry["penalised"].get(w) for w in worlds] + [entry["regret"].get(w) for w in worlds]
                    + [entry["worst"]])
    return f"## {title}\n\n" + markdown_table(headers, rows)


def _regret_plot(block: dict, path: Path, title: str) -> str:
    order = block["ranking"]
    return plots.bar_plot(order, [block["openers"][o]["worst"] for o in order], path, title,
                          "worst-case regret (guesses per game)", highlight=order[:1])


def _grid_plot(grid: list[list[dict]], key: str, path: Path, title: str, xlabel: str, ylabel: str) -> str:
    rows = [str(r[0]["n"]) for r in grid]
    cols = [c["t"] for c in grid[0]]
    values = [[c.get(key) for c in r] for r in grid]
    notes = [[f"{c['best']}\n{fmt(c.get(key), 3)}" for c in r] for r in grid]
    return plots.heatmap(rows, cols, values, path, title, xlabel, ylabel, annotations=notes, value_label="bits gap")


def worlds_report(result: dict, out: str | Path) -> tuple[str, dict]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    word = result["word"]
    s1 = result["step1_full_ranking"]
    md = [f"## 1. Full-lexicon entropy ranking (T={result['t']})\n",
          markdown_table(["#", "word", "bits"], [[i + 1, r["word"], r["bits"]] for i, r in enumerate(s1["top"])], 6),
          f"\n`{word}`: entropy rank {s1['rank']}, {s1['bits']:.6f} bits, ICF rank {s1['icf_rank']}.\n",
          "### Level-1 (letter frequency) ranking\n",
          markdown_table(["candidates", "top 5", f"rank of {word}"],
                         [[k, ", ".join(v["top"]), v["rank"]] for k, v in result["level1_ranking"].items()]),
          "\n## 2. Cuts of the N commonest words, uniform weights\n",
          markdown_table(["N", "best probe (all)", "bits", f"{word} rank (all)", "best among the N", f"{word} rank (N)"],
                         [[r["n"], r["best_all"], r["bits_all"], r["rank_all"], r["best_closed"], r["rank_closed"]]
                          for r in result["step2_cuts"]]),
          "\n## 3. Best opener per temperature (full lexicon)\n",
          markdown_table(["T", "best", "bits", f"{word} rank", f"{word} bits"],
                         [[r["t"], r["best"], r["bits"], r["rank"], r["word_bits"]] for r in result["step3_temperatures"]]),
          ]
    s4 = result["step4_closed_world"]
    md += [f"\n## 4. Closed world ({s4['world']})\n",
           markdown_table(["level-3 choice / alternatives", "E", "bits"],
                          [[r["word"], r["expected"], r["bits"]] for r in s4["level3"]]),
           "\n" + battery_markdown([{**r, "label": w} for w, r in s4["played"].items()],
                                   "Openers played in the closed world (level 2 afterwards)"),
           "\n" + battery_markdown([{**r, "label": w} for w, r in s4["realistic"].items()],
                                   "Openers on the realistic battery (full world, T=1)")]
    s5 = result["step5_open_worlds"]
    md += ["\n" + _regret_markdown(s5, "5. Regret in open worlds"),
           "\nArgmax-entropy opener per world: " + ", ".join(f"{k}: {v}" for k, v in s5["argmax"].items()),
           "\n## 6. Closed worlds grid: best opener, bits gap to " + word + "\n"]
    grid = result["step6_grid"]
    cols = [c["t"] for c in grid[0]]
    md.append(markdown_table(["N \\ T"] + cols, [[r[0]["n"]] + [f"{c['best']} ({fmt(c['gap'], 3)}, #{fmt(c['rank'])})"
                                                              for c in r] for r in grid]))
    md += ["\n### Pareto frontier (ascending ICF, rising bits at T=1)\n",
           markdown_table(["word", "bits", "ICF"], [[p["word"], p["bits"], p["icf"]] for p in result["pareto"]])]
    pngs = [_regret_plot(s5, out / "worlds-regret.png", "Worst-case regret over the open worlds"),
            _grid_plot(grid, "gap", out / "worlds-grid.png", f"Bits gap of {word} to the best opener (closed worlds)",
                       "temperature T", "world size N")]
    text = "\n".join(md)
    return text, write_report(out, "worlds", result, text, pngs)


def areio_report(result: dict, out: str | Path) -> tuple[str, dict]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    word = result["word"]
    md = [f"## Rank of `{word}` among the 8,629 probes\n",
          markdown_table(["T", "rank", "bits", "best", "best bits"],
                         [[r["t"], r["rank"], r["bits"], r["best"], r["best_bits"]] for r in result["ranks"]], 6),
          "\n## Open worlds grid (rank of " + word + ", best probe)\n"]
    grid = result["grid"]
    cols = [c["t"] for c in grid[0]]
    md.append(markdown_table(["N \\ T"] + cols, [[r[0]["n"]] + [f"#{c['rank']} ({c['best']})" for c in r] for r in grid]))
    ow = result["open_worlds"]
    md += ["\n" + _regret_markdown(ow, "Regret in open worlds (uniform, extended space)"),
           "\nArgmax-entropy probe per world: " + ", ".join(f"{k}: {v}" for k, v in ow["argmax"].items()),
           "\n" + battery_markdown([{**r, "label": w} for w, r in result["realistic"].items()],
                                   "Openers on the realistic battery (T=1, extended space)")]
    pngs = [_regret_plot(ow, out / "areio-regret.png", "Worst-case regret (open worlds, extended space)"),
            plots.turn_distribution([{**r, "label": w} for w, r in result["realistic"].items()],
                                    out / "areio-realistic.png", "Openers on the realistic battery (extended)")]
    text = "\n".join(md)
    return text, write_report(out, "areio", result, text, pngs)


def catalog_report(result: dict, out: str | Path) -> tuple[str, dict]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    md = ["## Full world: argmax-entropy opener per temperature\n",
          markdown_table(["T", "opener", "bits"], [[r["t"], r["best"], r["bits"]] for r in result["full"]], 6)]
    if "level3_t1" in result:
        md.append(f"\nLevel-3 opener at T=1: {result['level3_t1']['word']} (E = {fmt(result['level3_t1']['expected'], 6)}).")
    md.append(f"\nLevel-1 (letter frequency) full-world opener: {result['level1']}.\n")
    headers = ["world", "N", "bits optimum", "bits", "level-3 optimum", "E"]
    rows = [[r["world"], r["n"], r["bits_best"], r["bits"], r.get("level3_best"), r.get("expected")]
            for r in result["open"] + result["closed"]]
    md += ["## Open and closed worlds (uniform)\n", markdown_table(headers, rows)]
    closed = result["closed"]
    png = plots.line_plot([str(r["n"]) for r in closed], {"bits of the best opener": [r["bits"] for r in closed]},
                          out / "catalog.png", "Closed worlds: entropy of the best opener", "world size N", "bits")
    text = "\n".join(md)
    return text, write_report(out, "catalog", result, text, [png])
