"""Time the pattern-matrix build (6,046² and 8,629×6,046) on every available backend.

Usage: python bench/bench_matrix.py [--repeats 5] [--backends numpy,jax,cupy]
Writes bench/results/matrix.json (or matrix-<suffix>.json with --suffix).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backends import BackendUnavailable, get_backend  # noqa: E402
from bench.common import block_until_ready, median_seconds, repeats_parser, save  # noqa: E402
from termo.games.termo_pt import termo_game  # noqa: E402
from termo.engine.matrix import build_matrix  # noqa: E402


def main() -> None:
    parser = repeats_parser(__doc__, 5)
    parser.add_argument("--backends", default="numpy,jax,cupy")
    parser.add_argument("--suffix", default="")
    args = parser.parse_args()
    rows = []
    for name in args.backends.split(","):
        try:
            backend = get_backend(name)
        except BackendUnavailable as err:
            rows.append({"backend": name, "skipped": str(err)})
            continue
        for extended in (False, True):
            game = termo_game(extended=extended)
            timing = median_seconds(lambda: build_matrix(game, backend), args.repeats, sync=block_until_ready)
            rows.append({"backend": name, "device": backend.describe()["device"],
                         "shape": [game.n_probes, game.n_answers], **timing})
            print(f"{name:6} {game.n_probes}x{game.n_answers}: median {timing['median_s']*1000:.1f} ms", file=sys.stderr)
    save("matrix" + (f"-{args.suffix}" if args.suffix else ""), {"repeats": args.repeats, "results": rows})


if __name__ == "__main__":
    main()
