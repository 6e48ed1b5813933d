"""How long `termo review` takes as a whole process -> bench/results/review.json (issue item 4).

The cases (finished games, the colours computed from the answer with ``--answer``):

* English Wordle, six guesses, opened with salet (the proved optimum: the first turn's value is
  known, every later turn solved exactly), and opened with crane (the first turn needs its own
  search: exact within the budget, or level 3 past it);
* Termo, six guesses (exact where proved, level 3 past the budget);
* Quordle, six turns (level 3 while the boards are large, exact once they are small).

Each command runs ``--repeats`` times after a warm-up (the page cache, numba's cache, bytecode);
the cases are taken in turn (A B C ... A B C ...) so a drift of the machine's speed touches them
alike. Per case: the median, least and most wall and CPU seconds (user + system of the child), the
per-turn methods of one ``--json`` run, and the load average before and after (the machine is
shared: CPU seconds are the fair figure, wall seconds what a user waited).

Usage: python bench/bench_review.py [--repeats 5] [--name review]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_selby import termo_command  # noqa: E402
from bench.common import machine, repeats_parser, save, timed_run  # noqa: E402

CASES = {
    "wordle, six guesses, salet first": ("wordle", "fuzzy", "salet prick downy mummy buggy fuzzy"),
    "wordle, six guesses, crane first": ("wordle", "ether", "crane older tiger meter steer ether"),
    "termo, six guesses, tarso first": ("termo", "caldo", "tarso galão balbo pálio malvo caldo"),
    "termo, six guesses, sertã first": ("termo", "nevão", "sertã peado meião belão cevão nevão"),
    "quordle, six turns": ("quordle", "crimp,vouch,lapse,tangy", "salet crony vouch lapse crimp tangy"),
}


def command(game: str, answer: str, guesses: str, json_out: bool = False) -> list[str]:
    return termo_command() + ["review", "--game", game, "--answer", answer, *guesses.split()] + (
        ["--json"] if json_out else [])


def main() -> None:
    parser = repeats_parser(__doc__, 5)
    parser.add_argument("--name", default="review")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    payload = {"machine": machine(), "repeats": args.repeats, "backend": "numpy",
               "load_average_before": list(os.getloadavg()), "cases": {}}
    for name, case in CASES.items():  # the warm-up, and the methods of each turn
        proc, _, _ = timed_run(command(*case, json_out=True), env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{name}: {proc.stderr.strip()[-300:]}")
        data = json.loads(proc.stdout)
        payload["cases"][name] = {"command": "termo " + " ".join(command(*case)[len(termo_command()):]),
                                  "methods": [t["method"] for t in data["turns"]], "skill": data["skill"],
                                  "runs": []}
    for _ in range(args.repeats):
        for name, case in CASES.items():
            load = os.getloadavg()[0]
            proc, wall, cpu = timed_run(command(*case), env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"{name}: {proc.stderr.strip()[-300:]}")
            payload["cases"][name]["runs"].append({"wall_s": wall, "cpu_s": cpu, "load_1min": load})
    for name, row in payload["cases"].items():
        walls = [r["wall_s"] for r in row["runs"]]
        cpus = [r["cpu_s"] for r in row["runs"]]
        row.update({"median_wall_s": statistics.median(walls), "min_wall_s": min(walls), "max_wall_s": max(walls),
                    "median_cpu_s": statistics.median(cpus), "min_cpu_s": min(cpus), "max_cpu_s": max(cpus)})
        print(f"{name}: {row['median_wall_s']:.2f} s wall, {row['median_cpu_s']:.2f} s CPU (median of "
              f"{len(walls)}); methods {' '.join(row['methods'])}")
    payload["load_average_after"] = list(os.getloadavg())
    save(args.name, payload)


if __name__ == "__main__":
    main()
