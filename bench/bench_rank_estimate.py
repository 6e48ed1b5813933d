"""What a ranking that does not fit still needs: a stratified sample of its first words, each
settled alone the way the ranking settles it -> bench/results/<name>.json.

The first words are taken in the ranking's order (finest root split first, `termo.exact.ranking`);
those whose one-pass root bound reaches the limit cost nothing; of the others, ``--per-stratum``
words are drawn (evenly spaced) from each of ``--strata`` equal slices of that order, and each
is settled alone with `termo.exact.ranking.settle` against ``--limit`` (the ranking's limit:
the N-th best proved total + 1), its CPU seconds taken. The estimate is, per slice, the slice's
size times its sample's mean CPU, summed; the JSON keeps every sample (word, how it was settled,
CPU) so the estimate can be redone.

Usage: python bench/bench_rank_estimate.py --game nerdle --limit 52339 [--strata 8] [--per-stratum 4]
                                           [--skip N] [--first N] [--name rank-estimate-nerdle]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import save  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="nerdle")
    parser.add_argument("--hard", action="store_true")
    parser.add_argument("--limit", type=float, required=True, help="the ranking's limit (N-th best total + 1)")
    parser.add_argument("--strata", type=int, default=8)
    parser.add_argument("--per-stratum", type=int, default=4)
    parser.add_argument("--skip", type=int, default=0, help="first words already settled (the first N of the order)")
    parser.add_argument("--first", type=int, default=None, help="only the first N open words (a closer look near the top)")
    parser.add_argument("--name", default=None)
    args = parser.parse_args()

    from termo.exact.ranking import root_order, settle, spec_of
    from termo.games import get_game

    game = get_game(args.game)
    spec = spec_of(game, hard=args.hard)
    t0 = time.process_time()
    order, first_pass = root_order(game, spec)
    setup_cpu = time.process_time() - t0
    rest = order[args.skip:]
    open_words = [w for w in rest if first_pass[w] < args.limit]
    n_root = len(rest) - len(open_words)
    if args.first is not None:
        open_words = open_words[:args.first]
    strata = []
    for s in range(args.strata):
        lo, hi = s * len(open_words) // args.strata, (s + 1) * len(open_words) // args.strata
        piece = open_words[lo:hi]
        picks = [piece[(2 * i + 1) * len(piece) // (2 * args.per_stratum)] for i in range(args.per_stratum)] if piece else []
        samples = []
        for w in picks:
            c0 = time.process_time()
            status, low, _, how = settle(spec, [w], args.limit)[0]
            cpu = time.process_time() - c0
            samples.append({"word": game.probes[w], "status": status, "lower": low, "how": how, "cpu_s": cpu})
            print(s, game.probes[w], status, how, round(cpu, 2), file=sys.stderr, flush=True)
        mean = sum(x["cpu_s"] for x in samples) / len(samples) if samples else 0.0
        strata.append({"words": len(piece), "first_pass_range": [first_pass[piece[0]], first_pass[piece[-1]]] if piece else None,
                       "samples": samples, "mean_cpu_s": mean, "estimate_cpu_s": mean * len(piece)})
    total = sum(x["estimate_cpu_s"] for x in strata)
    save(args.name or f"rank-estimate-{args.game}", {
        "game": args.game, "hard": args.hard, "limit": args.limit, "skipped": args.skip, "first": args.first,
        "first_words_left": len(rest), "settled_by_root_bound": n_root, "open": len(open_words),
        "setup_cpu_s": setup_cpu, "strata": strata, "estimate_cpu_s": total, "estimate_cpu_h": total / 3600,
        "load_average": list(os.getloadavg()),
        "note": "one process, one thread, beside whatever else ran (see load_average); a sample's mean stands for its slice"})


if __name__ == "__main__":
    main()
