"""Absurdle's four-guess wins against jpziegler/absurdle-solver's -> bench/results/absurdle-winners.json.

The peer (github jpziegler/absurdle-solver, a Rust exhaustive search on the same lists and the same
tie-break, never a dependency) publishes every four-guess win it found in ``winners.txt`` (one
``g1,g2,g3,final`` a line). This script checks, without searching anything itself:

1. every one of the peer's sequences is a win under termo's adversary (`termo.engine.adversary`):
   the three guesses leave one answer, the final word;
2. on the first words ``termo optimal --game absurdle`` has searched so far (its checkpoints of the
   four-guess round, read only), termo's winning sequences are exactly the peer's with those first
   words (a complete run compares them all).

Usage: python bench/bench_absurdle_winners.py --winners FILE [--checkpoints DIR] [--hard]
(FILE: the peer's winners.txt; DIR: default <cache dir>/optimal/absurdle/checkpoints.)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import save  # noqa: E402


def peer_wins(path: Path) -> set:
    return {tuple(line.strip().lower().split(",")) for line in path.read_text().splitlines() if line.strip()}


def termo_wins(game, folder: Path) -> tuple[set, set]:
    """The four-guess wins in the checkpoints of ``folder`` and the first words they cover."""
    wins, firsts = set(), set()
    for path in folder.glob("*.json"):
        data = json.loads(path.read_text())
        if data.get("meta", {}).get("left") != 3:
            continue
        for word, (_, found) in zip(data["openers"], data["values"]):
            firsts.add(game.probes[word])
            for win in found:
                wins.add((game.probes[word], *(game.probes[g] for g in win[:-1]), game.answers[win[-1]]))
    return wins, firsts


def main() -> None:
    from termo.core.paths import cache_dir
    from termo.engine.adversary import Adversary
    from termo.games import get_game

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--winners", type=Path, required=True)
    parser.add_argument("--checkpoints", type=Path, default=None)
    args = parser.parse_args()
    game = get_game("absurdle")
    adv = Adversary(game)
    peer = peer_wins(args.winners)
    not_wins = []
    for seq in sorted(peer):
        state = adv.root()
        for word in seq[:3]:
            _, state = adv.choose(state, game.index_of(word))
        if not (state.shape[0] == 1 and game.answers[int(state[0])] == seq[3]):
            not_wins.append(list(seq))
    folder = args.checkpoints or cache_dir() / "optimal" / "absurdle" / "checkpoints"
    ours, firsts = termo_wins(game, folder)
    theirs = {s for s in peer if s[0] in firsts}
    result = {"peer_sequences": len(peer), "peer_first_words": len({s[0] for s in peer}),
              "peer_final_words": len({s[3] for s in peer}), "peer_not_wins_under_termo": not_wins,
              "first_words_searched_by_termo": len(firsts), "first_words": game.n_probes,
              "termo_sequences_on_those": len(ours), "peer_sequences_on_those": len(theirs),
              "equal": ours == theirs, "only_termo": sorted(map(list, ours - theirs))[:20],
              "only_peer": sorted(map(list, theirs - ours))[:20]}
    import os

    result["command"] = "python bench/bench_absurdle_winners.py --winners winners.txt"
    result["load_average"] = list(os.getloadavg())
    result["peer"] = "jpziegler/absurdle-solver winners.txt at 3b6e9df8064041626d4af2035139c96045c1782f"
    save("absurdle-winners", result)


if __name__ == "__main__":
    main()
