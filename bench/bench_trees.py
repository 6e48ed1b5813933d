"""Stored strategy trees: the Nerdle Classic practical build, `tree eval` of every shipped tree,
the Termo level-3 playout, and the walk of a stored tree against the live search.

Usage: python bench/bench_trees.py [--repeats 3] [--no-build] [--no-termo]
Writes bench/results/trees.json:

* ``nerdle_practical_build``, ``nerdle_level3_build``: one build of each shipped Nerdle Classic
  tree from 48-32=16 (the matrix already cached; target <= 10 minutes), its size, its exact mean
  and whether the file it writes is byte for byte the shipped one (the builders are
  deterministic);
* ``eval``: for each file in data/trees/, the median of ``--repeats`` in-process
  `termo.trees.evaluate.evaluate` calls (parse the file, replay every answer; target <= 5 s) and
  the whole ``termo tree eval FILE --json`` process once; the trees' means, worst cases, losses;
* ``termo_level3_build``: the Termo level-3 playout from tarso (not shipped: it would change what
  ``termo suggest`` shows in the default configuration; built into the cache on request);
* ``walk``: ``termo suggest --game nerdle`` after the opener, the tree walked vs ``--no-tree``
  (the live level-3 search), whole processes.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import median_seconds, repeats_parser, save  # noqa: E402
from termo.games import get_game  # noqa: E402
from termo.core.paths import data_dir  # noqa: E402

TARGET_BUILD_S = 600.0
TARGET_EVAL_S = 5.0


def _process(args) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {proc.stderr.strip()}")
    return time.perf_counter() - start


def build_nerdle(out_dir: Path, method: str = "practical") -> dict:
    from termo.engine.matrix import pattern_matrix
    from termo.trees.build import build_tree
    from termo.trees.evaluate import evaluate
    from termo.trees.fileformat import write_tree

    game = get_game("nerdle")
    pattern_matrix(game)  # the matrix cached first: the build is what is timed
    start = time.perf_counter()
    tree = build_tree(game, method)  # includes the one replay noted in the header
    seconds = time.perf_counter() - start
    path = write_tree(tree, game, out_dir / f"nerdle-{method}.tree.gz")
    shipped = data_dir() / "trees" / f"nerdle-{method}.tree.gz"
    data = evaluate(tree, game)
    return {"seconds": seconds, "target_s": TARGET_BUILD_S, "opener": tree.opener, "nodes": tree.nodes,
            "bytes_gz": path.stat().st_size, "mean": data["mean"], "total": data["total"], "worst": data["worst"],
            "losses": data["losses"], "histogram": data["histogram"], "info": tree.info,
            "same_bytes_as_shipped": shipped.exists() and shipped.read_bytes() == path.read_bytes(),
            "reference_mean": {"NerdleBuddy stored tree (commutative rule)": 2.964}}


def eval_shipped(repeats: int) -> dict:
    from termo.trees.evaluate import evaluate
    from termo.trees.fileformat import read_tree

    out = {}
    for path in sorted((data_dir() / "trees").glob("*.tree*")):
        tree, game = read_tree(path)
        evaluate(tree, game)  # matrix loaded once (as the process would)

        def run(path=path):
            tree, game = read_tree(path)
            return evaluate(tree, game)

        timing = median_seconds(run, repeats=repeats, warmup=0)
        data = run()
        out[path.name] = {"game": game.label, "method": tree.method, "opener": tree.opener, "nodes": tree.nodes,
                          "bytes": path.stat().st_size, "mean": data["mean"], "total": data["total"],
                          "worst": data["worst"], "losses": data["losses"], "histogram": data["histogram"],
                          "eval_median_s": timing["median_s"], "eval_runs_s": timing["runs_s"],
                          "process_s": _process(["tree", "eval", str(path), "--json"]), "target_s": TARGET_EVAL_S}
    return out


def build_termo(out_dir: Path) -> dict:
    from termo.trees.build import build_tree
    from termo.trees.evaluate import evaluate
    from termo.trees.fileformat import write_tree

    game = get_game("termo")
    start = time.perf_counter()
    tree = build_tree(game, "level3")
    seconds = time.perf_counter() - start
    path = write_tree(tree, game, out_dir / "termo-level3.tree.gz")
    data = evaluate(tree, game)
    return {"seconds": seconds, "opener": tree.opener, "nodes": tree.nodes, "bytes_gz": path.stat().st_size,
            "mean": data["mean"], "mean_uniform": data.get("mean_uniform"), "worst": data["worst"],
            "losses": data["losses"], "histogram": data["histogram"]}


def walk(repeats: int) -> dict:
    from termo.core.feedback import colours

    game = get_game("nerdle")
    item = f"{game.default_opener}:{colours(game.normalize(game.default_opener), '12+35=47')}"
    base = ["suggest", "--game", "nerdle", item, "--json"]
    tree = [_process(base) for _ in range(repeats)]
    live = [_process(base + ["--no-tree"]) for _ in range(max(1, repeats // 2))]
    return {"history": item, "tree_median_s": statistics.median(tree), "tree_runs_s": tree,
            "live_median_s": statistics.median(live), "live_runs_s": live}


def main() -> None:
    parser = repeats_parser(__doc__, 3)
    parser.add_argument("--no-build", action="store_true", help="skip the Nerdle Classic build")
    parser.add_argument("--no-termo", action="store_true", help="skip the Termo level-3 playout")
    args = parser.parse_args()
    payload = {"backend": "numpy"}
    with tempfile.TemporaryDirectory(prefix="bench-trees-") as tmp:
        if not args.no_build:
            payload["nerdle_practical_build"] = build_nerdle(Path(tmp))
            payload["nerdle_level3_build"] = build_nerdle(Path(tmp), "level3")
        payload["eval"] = eval_shipped(args.repeats)
        if not args.no_termo:
            payload["termo_level3_build"] = build_termo(Path(tmp))
    payload["walk"] = walk(args.repeats)
    save("trees", payload)


if __name__ == "__main__":
    main()
