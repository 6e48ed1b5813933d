"""The shape of the code, measured from its imports and definitions (a before/after of a refactor).

    python bench/architecture.py [--repo DIR] [--json OUT]

For each top-level package (``termo``, ``backends``, ``cli``, ``web``): source files and lines,
import arrows among the project's own modules (every ``import`` statement, those inside functions
too, as import-linter counts them), the longest chain of imports without a repeat (the depth), the
import cycles (strongly connected groups of modules), the largest files and the longest functions.
Needs ``grimp`` (installed with import-linter, the test extra).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

PACKAGES = ("termo", "backends", "cli", "web")


def _graph(repo: Path):
    import grimp

    sys.path.insert(0, str(repo))
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def _cycles(modules, edges):
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]; counter[0] += 1; stack.append(root); on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        m = stack.pop(); on.discard(m); group.append(m)
                        if m == node:
                            break
                    if len(group) > 1:
                        out.append(sorted(group))
            elif nxt not in index:
                index[nxt] = low[nxt] = counter[0]; counter[0] += 1; stack.append(nxt); on.add(nxt)
                work.append((nxt, iter(sorted(edges.get(nxt, ())))))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
    return out


def _depth(modules, edges, cycles):
    """Longest import chain, counted in modules, over the graph with each cycle collapsed."""
    group_of = {m: i for i, g in enumerate(cycles) for m in g}
    node = {m: group_of.get(m, m) for m in modules}
    dag = {}
    for a, targets in edges.items():
        for b in targets:
            if node[a] != node[b]:
                dag.setdefault(node[a], set()).add(node[b])
    memo = {}

    def longest(n):
        if n not in memo:
            memo[n] = 1 + max((longest(m) for m in dag.get(n, ())), default=0)
        return memo[n]

    sys.setrecursionlimit(10000)
    return max((longest(n) for n in set(node.values())), default=0)


def measure(repo: Path) -> dict:
    graph = _graph(repo)
    result = {"repo": str(repo), "packages": {}}
    all_mods = {m for m in graph.modules if m.split(".")[0] in PACKAGES}
    edges = {m: {t for t in graph.find_modules_directly_imported_by(m) if t in all_mods} for m in all_mods}
    cycles = _cycles(all_mods, edges)
    for pkg in PACKAGES:
        mods = {m for m in all_mods if m.split(".")[0] == pkg}
        files = sorted(p for p in (repo / pkg).rglob("*.py"))
        lines = {str(p.relative_to(repo)): len(p.read_text(encoding="utf-8").splitlines()) for p in files}
        funcs = []
        for p in files:
            for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    funcs.append((n.end_lineno - n.lineno + 1, f"{p.relative_to(repo)}:{n.lineno} {n.name}"))
        inner = {m: {t for t in edges[m] if t in mods} for m in mods}
        result["packages"][pkg] = {
            "files": len(files),
            "lines": sum(lines.values()),
            "arrows_within": sum(len(v) for v in inner.values()),
            "arrows_out": sum(len(edges[m] - mods) for m in mods),
            "depth": _depth(mods, inner, _cycles(mods, inner)),
            "largest_files": sorted(((n, f) for f, n in lines.items()), reverse=True)[:5],
            "files_over_600": sum(1 for n in lines.values() if n > 600),
            "longest_functions": sorted(funcs, reverse=True)[:5],
            "functions_over_80": sum(1 for n, _ in funcs if n > 80),
        }
    result["arrows"] = sum(len(v) for v in edges.values())
    result["depth"] = _depth(all_mods, edges, cycles)
    result["cycles"] = cycles
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = measure(args.repo.resolve())
    for pkg, row in result["packages"].items():
        print(f"{pkg}: {row['files']} files, {row['lines']} lines, {row['arrows_within']} arrows within, "
              f"{row['arrows_out']} out, depth {row['depth']}, {row['files_over_600']} files > 600 lines, "
              f"{row['functions_over_80']} functions > 80 lines")
        print(f"  largest files: {', '.join(f'{f} {n}' for n, f in row['largest_files'][:3])}")
        print(f"  longest functions: {', '.join(f'{f} {n}' for n, f in row['longest_functions'][:3])}")
    print(f"all: {result['arrows']} arrows, depth {result['depth']}, {len(result['cycles'])} cycles")
    for group in result["cycles"]:
        print("  cycle:", " ".join(group))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
