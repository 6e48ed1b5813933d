"""The exact solver on the NYT Wordle lists -> bench/results/exact-wordle-nyt.json.

From the first guess ``tarse``, normal mode, ``termo optimal --game G --opener tarse --json`` in a
fresh process per run (kernels from numba's cache, the matrix from termo's; the first run of a
game builds its matrix if no cache holds it), for ``wordle-nyt`` (3,158 answers, 14,855 guesses)
and ``wordle-nyt-2022`` (2,309 answers, the same guesses): the proved total next to Selby's
published one, states expanded, and the solver's, the process's wall and CPU seconds (CPU time
says what the search costs when other processes share the machine), median of ``--repeats`` runs.
docs/exact.md quotes these numbers.

Usage: ``python -m bench.bench_exact_nyt [--repeats 3] [--time SECONDS]``
"""

from __future__ import annotations

import os

from bench.bench_exact import _run, _summary, _termo
from bench.common import repeats_parser, save

OPENER = "tarse"
# Selby's published optima from tarse, normal mode: total guesses over every answer
PUBLISHED = {"wordle-nyt": 11219, "wordle-nyt-2022": 7883}


def main(argv=None) -> None:
    parser = repeats_parser(__doc__, 3)
    parser.add_argument("--time", type=float, default=None, metavar="SECONDS",
                        help="the search's budget per run (default: termo optimal's own)")
    opts = parser.parse_args(argv)
    budget = [] if opts.time is None else ["--time", str(opts.time)]
    env = dict(os.environ)
    payload = {"opener": OPENER, "hard": False, "load_average_before": os.getloadavg()}
    for game, published in PUBLISHED.items():
        runs = [_run(_termo(["--game", game, "--opener", OPENER, *budget]), env) for _ in range(opts.repeats)]
        last = runs[-1]["result"]
        payload[game] = {
            "answers": last["answers"], "backend": last["backend"],
            "total": last["total"], "mean": last["mean"], "proved": last["proved"],
            "lower_total": last["lower_total"], "upper_total": last["upper_total"],
            "nodes": last["nodes"], "losses": last["losses"], "groups": last["groups"],
            "published_total": published,
            "solver_seconds": _summary([r["result"] for r in runs], "seconds"),
            "process_wall": _summary(runs, "process_wall_s"),
            "process_cpu": _summary(runs, "process_cpu_s"),
        }
    payload["load_average_after"] = os.getloadavg()
    save("exact-wordle-nyt", payload)


if __name__ == "__main__":
    main()
