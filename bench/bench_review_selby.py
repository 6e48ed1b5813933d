"""`termo review` against Selby's exact analysis (`wordle -A`) on English Wordle -> bench/results/review-selby.json.

The question, on both sides: a game of English Wordle on the original lists (2,315 answers,
12,972 guesses), every answer to be found within six guesses (Selby's objective: termo's
``--loss inf``), each guess valued by its expected guesses under optimal play from there. Selby's
program (github alex1770/wordle, a peer, never a dependency) is built from its source in a
scratch folder as `bench/bench_selby.py` builds it, with one change to the scratch copy: its two
report lines print their numbers with 12 decimals instead of 4 and also print the expected
guesses of the best choice and of the player's (``preve``, ``e``), so that every value can be
compared, not only its rounding. It runs as ``wordle -a wordlist_orig_all -h wordlist_orig_hidden
-A salet.crane.caper`` (the last word the answer); termo as ``termo review --game wordle --loss
inf --nodes 100000000 --answer caper salet crane caper --json`` (a budget that lets every turn be
exact). Per turn the two must agree on the best value, the value of the player's guess and the
luck, to 1e-9 (both are a total of guesses over a count of answers: equal totals give equal
doubles).

The games (`GAMES` answers, `OPENERS`): each a first word, then every later guess drawn at random
(seeded) among the candidates still possible, as a player who guesses words that fit; so costs and
lucks of every size appear.

Note: Selby's analysis tries the 10 best first guesses of its heuristic order at each state it
reports (``n0th = 10``) and 100 deeper (``nth = 100``): its "best" is an upper bound that equals
the optimum when the optimal guess is among them. Where termo's best value is lower, Selby's
program is asked again with termo's best guess played at that turn (``-A`` with that word, then
the answer): the value it gives that choice must be termo's best value (``confirmed``), which
shows Selby's heuristic missed the optimum there. Such a game counts as explained, not equal.

Usage: python bench/bench_review_selby.py --selby-src DIR [--games 24] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_selby import same_lists, termo_command  # noqa: E402
from bench.common import machine, save, timed_run  # noqa: E402

OPENERS = ("salet", "crane", "slate", "trace", "crate", "reast", "stare", "raise", "arise", "roate", "adieu",
           "later")
TOLERANCE = 1e-9
# the scratch copy's report lines: (what Selby prints, what the copy prints instead)
PATCHES = (
    ('printf("%-21s (Inaccuracy = %7.4f guesses)    Best choice was %s\\n",desc,inacc,testwords[prbest].c_str());',
     'printf("%-21s (Inaccuracy = %.12f guesses)    Best choice was %s best %.12f choice %.12f\\n",desc,inacc,'
     'testwords[prbest].c_str(),preve,e);'),
    ('printf("%-21s (Luck       = %7.4f guesses)\\n",desc,luck);',
     'printf("%-21s (Luck       = %.12f guesses) next %.12f\\n",desc,luck,e);'),
)
CHOICE = re.compile(r"^(\S+): .*\(Inaccuracy = (\S+) guesses\)\s+Best choice was (\S+) best (\S+) choice (\S+)$")
LUCK = re.compile(r"^([bgy]{5}): .*\(Luck\s+= (\S+) guesses\) next (\S+)$")


def build(src: Path, scratch: Path) -> Path:
    """Selby's ``wordle`` built in ``scratch`` from ``src`` with `PATCHES` applied to the copy."""
    text = (src / "wordle.cpp").read_text()
    for old, new in PATCHES:
        if old not in text:
            raise SystemExit(f"wordle.cpp has changed: {old[:60]!r} not found")
        text = text.replace(old, new)
    (scratch / "wordle.cpp").write_text(text)
    for name in ("wordlist_orig_all", "wordlist_orig_hidden"):
        shutil.copy(src / name, scratch / name)
    cmd = ["g++", "-std=c++17", "-O3", "-DCOMMITDESC=\"local\"", "-o", "wordle", "wordle.cpp", "-lpthread"]
    subprocess.run(cmd, cwd=scratch, check=True)
    return scratch / "wordle"


def games(count: int, seed: int) -> list[list[str]]:
    """``count`` games: an opener of `OPENERS`, then random candidates until the answer."""
    from termo.core.feedback import colours
    from termo.games import get_game

    game = get_game("wordle")
    rng = random.Random(seed)
    answers = list(game.answers)
    out = []
    for i in range(count):
        answer = answers[rng.randrange(len(answers))]
        guesses = [OPENERS[i % len(OPENERS)]]
        cands = answers
        while guesses[-1] != answer:
            pattern = colours(guesses[-1], answer)
            cands = [w for w in cands if colours(guesses[-1], w) == pattern]
            guesses.append(cands[rng.randrange(len(cands))])
        if len(guesses) <= 6:
            out.append(guesses)
    return out


def selby(binary: Path, words: list[str]) -> list[dict]:
    proc, wall, cpu = timed_run([str(binary), "-a", "wordlist_orig_all", "-h", "wordlist_orig_hidden", "-A",
                                 ".".join(words)], cwd=binary.parent, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"selby failed on {words}: {proc.stderr[-300:]}")
    turns: list[dict] = []
    for line in proc.stdout.splitlines():
        found = CHOICE.match(line.strip())
        if found:
            turns.append({"guess": found.group(1), "cost": float(found.group(2)), "best": found.group(3),
                          "best_value": float(found.group(4)), "guess_value": float(found.group(5))})
            continue
        found = LUCK.match(line.strip())
        if found and turns:
            turns[-1].update({"luck": float(found.group(2)), "next_value": float(found.group(3))})
    return [{"cpu_s": cpu, "wall_s": wall}] + turns


def termo(words: list[str]) -> tuple[dict, float, float]:
    cmd = termo_command() + ["review", "--game", "wordle", "--loss", "inf", "--nodes", "100000000", "--answer",
                             words[-1], *words, "--json"]
    proc, wall, cpu = timed_run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"termo failed on {words}: {proc.stderr.strip()[-300:]}")
    return json.loads(proc.stdout), cpu, wall


def compare(words, ours: dict, theirs: list[dict]) -> dict:
    """Turn by turn: the two values, the cost and the luck of each side, and whether they agree."""
    timing, rows = theirs[0], theirs[1:]
    turns = []
    agree = len(rows) == len(ours["turns"])
    for mine, sel in zip(ours["turns"], rows):
        row = {"turn": mine["turn"], "guess": mine["guess"], "method": mine["method"],
               "termo": {k: mine[k] for k in ("best_value", "guess_value", "cost", "luck")} | {"best": mine["best"]},
               "selby": {k: sel.get(k) for k in ("best_value", "guess_value", "cost", "luck", "best")}}
        same = mine["method"] == "exact" and all(
            mine[k] is not None and sel.get(k) is not None and abs(float(mine[k]) - sel[k]) <= TOLERANCE
            for k in ("best_value", "guess_value", "cost", "luck"))
        row["equal"] = same
        agree = agree and same
        turns.append(row)
    return {"game": ".".join(words), "equal": agree, "turns": turns, "selby_cpu_s": timing["cpu_s"]}


def confirm(binary: Path, words: list[str], row: dict) -> None:
    """For each turn whose best value termo finds lower than Selby's analysis: Selby's value of
    termo's best guess played there (``selby_value_of_termo_best``) and whether it is termo's."""
    for turn in row["turns"]:
        mine, theirs = turn["termo"], turn["selby"]
        if turn["equal"] or theirs.get("best_value") is None or not mine["best_value"] < theirs["best_value"]:
            continue
        k = turn["turn"]
        forced = words[:k - 1] + [mine["best"][0], words[-1]]
        again = selby(binary, forced)[1:]
        value = again[k - 1]["guess_value"] if len(again) >= k else None
        turn["selby_value_of_termo_best"] = value
        turn["confirmed"] = value is not None and abs(value - mine["best_value"]) <= TOLERANCE
    turns = row["turns"]

    def same(t, keys=("best_value", "guess_value", "cost")):
        return all(t["termo"][k] is not None and t["selby"].get(k) is not None
                   and abs(t["termo"][k] - t["selby"][k]) <= TOLERANCE for k in keys)

    # a turn differs only where Selby's best is not the optimum: there (confirmed), or in the luck
    # of the turn before it (the luck subtracts the next state's best value)
    row["explained"] = not row["equal"] and all(
        t["equal"] or t.get("confirmed") or (same(t) and i + 1 < len(turns) and turns[i + 1].get("confirmed"))
        for i, t in enumerate(turns))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selby-src", type=Path, required=True, help="a checkout of github.com/alex1770/wordle")
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--name", default="review-selby")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="termo-review-selby-"))
    start = time.time()
    try:
        binary = build(args.selby_src.resolve(), scratch)
        payload = {"question": "English Wordle, original lists, every answer within six guesses (--loss inf): "
                               "the expected guesses of the best choice and of each guess played, and the luck",
                   "machine": machine(), "same_lists": same_lists(args.selby_src.resolve()), "seed": args.seed,
                   "tolerance": TOLERANCE, "load_average_before": list(os.getloadavg()), "games": []}
        for words in games(args.games, args.seed):
            ours, cpu, wall = termo(words)
            row = compare(words, ours, selby(binary, words))
            confirm(binary, words, row)
            row.update({"termo_cpu_s": cpu, "termo_wall_s": wall})
            payload["games"].append(row)
            verdict = "equal" if row["equal"] else "explained" if row.get("explained") else "DIFFERENT"
            print(f"{row['game']}: {verdict} (termo {cpu:.1f} s CPU, "
                  f"selby {row['selby_cpu_s']:.1f} s CPU)", flush=True)
        payload["equal_games"] = sum(1 for g in payload["games"] if g["equal"])
        payload["explained_games"] = sum(1 for g in payload["games"] if g.get("explained"))
        payload["turns_compared"] = sum(len(g["turns"]) for g in payload["games"])
        payload["equal_turns"] = sum(1 for g in payload["games"] for t in g["turns"] if t["equal"])
        payload["load_average_after"] = list(os.getloadavg())
        payload["seconds"] = time.time() - start
        save(args.name, payload)
        print(f"{payload['equal_games']}/{len(payload['games'])} games and {payload['equal_turns']}/"
              f"{payload['turns_compared']} turns equal; {payload['explained_games']} games where Selby's heuristic "
              f"missed the optimum (confirmed by its own program)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
