"""Benchmark: termo's multi-board batteries beside Doddle's simultaneous solver, and their speed.

Subcommands (docs/modes-batteries.md):

* ``compare --mode quordle --n 1000 --seed 0``: draws the battery's tuples
  (`termo.analysis.mode_battery.mode_tuples`, the same as ``termo bench battery``), plays them
  with termo (``termo bench battery --game MODE --json`` in a subprocess: CPU seconds counted)
  and with Doddle (bench/peers/doddle_modes.py under Doddle's own venv, niced), and writes
  ``bench/results/modes-<mode>.json``: both side by side (win rate, mean finish, mean score,
  histograms, the games termo lost that Doddle won, CPU seconds, machine, load).
  Doddle's per-game results are cached in ``bench/results/peers/`` by mode, answer count, seed,
  opener and solver, with the tuples they played (prefix-stable: the cache of 1,000 games
  serves a battery of 100), so a newer termo is compared again without replaying Doddle
  (``--peer-only`` fills that cache alone; ``--no-peer`` skips Doddle).
* ``speed``: the whole process ``termo suggest --game quarteto <one turn> --level 2|3 --json``,
  median of ``--repeats`` runs (targets 0.5 s and 2 s), and ``--battery-n`` games of an
  Octordle battery at level 2 (target: 1,000 games in at most 10 minutes); writes
  ``bench/results/modes-speed.json``.

Usage::

    python bench/bench_modes.py compare --mode octordle --n 1000 --seed 0 [--strategies level2,level3]
    python bench/bench_modes.py speed [--repeats 5] [--battery-n 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import RESULTS, machine, timed_run  # noqa: E402

PEERS = RESULTS / "peers"
PEER_SCRIPT = ROOT / "bench" / "peers" / "doddle_modes.py"
DODDLE_PYTHON = os.environ.get("DODDLE_PYTHON", "/tmp/doddle-venv/bin/python")
QUARTETO_TURN = "tarso:BBBBB/BYBBB/BBGBB/YBBBB"  # one turn of Quarteto, four boards' colours
SPEED_TARGETS = {2: 0.5, 3: 2.0}
BATTERY_TARGET_S = 600.0  # an Octordle battery of 1,000 games


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


# ------------------------------------------------------------------------------ the tuples
# Quordle's answers are Wordle's 2,315 less the ten words its source blacklists (docs/modes-batteries.md).
QUORDLE_BLACKLIST = ("gypsy", "gipsy", "mammy", "agora", "slave", "hussy", "junta", "junto", "welch", "moron")


def bench_mode(mode_name: str):
    """The registry's mode; for Quordle while the registry still gives it all 2,315 answers, the
    same mode on the list less the blacklist (`--interim-quordle`: termo is then run in process)."""
    import dataclasses

    from termo.games import get_mode
    from termo.games.mode import Mode

    mode = get_mode(mode_name)
    game = mode.game
    if mode.label != "quordle" or not any(w in QUORDLE_BLACKLIST for w in game.answers):
        return mode
    keep = [i for i, w in enumerate(game.answers) if w not in QUORDLE_BLACKLIST]
    answers = tuple(game.answers[i] for i in keep)
    probes = answers + tuple(w for w in game.probes if w not in set(answers))
    game = dataclasses.replace(game, answers=answers, probes=probes, icf=tuple(game.icf[i] for i in keep), _index=None)
    return Mode(game, mode.boards, mode.max_turns, key=mode.key, title=mode.title)


def tuples_spec(mode_name: str, n: int, seed: int, interim: bool = False) -> dict:
    """The battery's tuples as words, with what names them (the peer's input)."""
    from termo.analysis.mode_battery import mode_tuples, tuple_words, tuples_digest
    from termo.games import get_mode

    mode = bench_mode(mode_name) if interim else get_mode(mode_name)
    tuples = mode_tuples(mode, n, seed)
    return {"mode": mode.label, "boards": mode.boards, "turns": mode.max_turns, "seed": seed, "n": n,
            "answers": mode.game.n_answers, "digest": tuples_digest(mode, tuples), "tuples": tuple_words(mode, tuples)}


# ------------------------------------------------------------------------------ Doddle
def peer_path(spec: dict, opener: str, solver: str) -> Path:
    """The peer's cache: one file per mode, answer list, seed, opener and solver; the tuples of a
    seed are prefix-stable, so the file of 1,000 games serves every battery of at most 1,000."""
    return PEERS / f"doddle-{spec['mode']}-a{spec['answers']}-s{spec['seed']}-{opener.lower()}-{solver.lower()}.json"


def cached_peer(spec: dict, opener: str, solver: str) -> dict | None:
    """The cached games that answer ``spec`` (its first ``n`` tuples played), else None."""
    path = peer_path(spec, opener, solver)
    if not path.exists():
        return None
    peer = json.loads(path.read_text(encoding="utf-8"))
    n = spec["n"]
    if len(peer["games"]) < n or peer["tuples"][:n] != spec["tuples"]:
        return None
    return {**peer, "games": peer["games"][:n], "seconds": peer["seconds"][:n], "tuples": spec["tuples"], "n": n}


def run_peer(spec: dict, opener: str, solver: str) -> dict | None:
    """Doddle's per-game results on ``spec``'s tuples: from the cache, else played (niced)."""
    cached = cached_peer(spec, opener, solver)
    if cached is not None:
        return cached
    path = peer_path(spec, opener, solver)
    if not Path(DODDLE_PYTHON).exists():
        print(f"no Doddle at {DODDLE_PYTHON} (see bench/peers/doddle_modes.py): Doddle skipped", file=sys.stderr)
        return None
    PEERS.mkdir(parents=True, exist_ok=True)
    played = spec
    if path.exists():  # a longer battery of the same seed, partly played: keep its tuples, play spec's n
        old = json.loads(path.read_text(encoding="utf-8"))
        if old["tuples"][: spec["n"]] == spec["tuples"]:
            played = {**spec, "tuples": old["tuples"], "n": len(old["tuples"]), "digest": old.get("digest")}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(played, fh)
    try:
        cmd = ["nice", "-n", "10", DODDLE_PYTHON, str(PEER_SCRIPT), fh.name, str(path), "--opener", opener,
               "--solver", solver, "--upto", str(spec["n"])]
        subprocess.run(cmd, check=True)
    finally:
        os.unlink(fh.name)
    return cached_peer(spec, opener, solver)


def peer_figures(peer: dict, spec: dict) -> dict:
    """Doddle's figures under the mode's limit: a board solved after it counts as failed."""
    from termo.analysis.mode_battery import figures, game_figures

    limit = spec["turns"]
    capped = [[r if r <= limit else 0 for r in rounds] for rounds in peer["games"]]
    per_game = [game_figures(c, limit) for c in capped]
    out = {"peer": "doddle", "doddle_version": peer.get("doddle_version"), "solver": peer["solver"],
           "opener": peer["opener"]}
    out.update(figures(per_game, limit))
    out["lost"] = [i for i, (_, _, won) in enumerate(per_game) if not won]
    out["mean_rounds_uncapped"] = statistics.mean(max(r) for r in peer["games"])
    out["cpu_seconds"] = round(sum(peer["seconds"]), 2)
    out["cpu_seconds_per_game"] = out["cpu_seconds"] / len(peer["games"]) if peer["games"] else None
    return out


# ------------------------------------------------------------------------------ termo
def run_termo(spec: dict, strategies: str, objective: str) -> tuple[dict, dict]:
    """``termo bench battery --game MODE`` in a subprocess: its JSON, and its wall/CPU seconds."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "cli", "bench", "battery", "--game", spec["mode"], "--n", str(spec["n"]),
               "--seed", str(spec["seed"]), "--strategies", strategies, "--objective", objective, "--json",
               "--out", out]
        done, wall, cpu = timed_run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"termo bench battery failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    data = json.loads(done.stdout)
    if data["tuples"] != spec["digest"]:
        raise SystemExit(f"termo played tuples {data['tuples']}, the bench drew {spec['digest']}")
    return data, {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "command": " ".join(cmd[2:-2])}


def run_termo_in_process(mode, spec: dict, strategies: str, objective: str) -> tuple[dict, dict]:
    """The battery in this process, on a mode the registry does not have yet (`bench_mode`)."""
    from termo.analysis.mode_battery import parse_mode_strategies, run_mode_battery

    start, cpu = time.perf_counter(), time.process_time()
    data = run_mode_battery(mode, parse_mode_strategies(strategies), n=spec["n"], seed=spec["seed"],
                            objective=objective)
    assert data["tuples"] == spec["digest"]
    return data, {"wall_s": round(time.perf_counter() - start, 2), "cpu_s": round(time.process_time() - cpu, 2),
                  "command": "in process: run_mode_battery on Wordle's answers less the Quordle blacklist"}


def side_by_side(spec: dict, termo: dict, peers: dict) -> dict:
    """Per termo strategy and Doddle opener: the games termo lost that Doddle won, and the deltas."""
    rows = {}
    for name, row in termo["strategies"].items():
        for opener, peer in peers.items():
            lost_won = sorted(set(row["lost"]) - set(peer["lost"]))
            rows[f"{name} vs doddle {opener}"] = {
                "termo_lost_doddle_won": [{"game": i, "answers": spec["tuples"][i]} for i in lost_won],
                "doddle_lost_termo_won": len(set(peer["lost"]) - set(row["lost"])),
                "mean_finish_delta": row["mean_finish"] - peer["mean_finish"],
                "mean_score_delta": row["mean_score"] - peer["mean_score"],
            }
    return rows


def compare(args) -> int:
    spec = tuples_spec(args.mode, args.n, args.seed, args.interim_quordle)
    load_before = _load()
    peers = {}
    if not args.no_peer:
        for opener in args.openers.split(","):
            peer = run_peer(spec, opener.strip(), args.solver)
            if peer is not None and len(peer["games"]) == spec["n"]:
                peers[opener.strip().lower()] = peer_figures(peer, spec)
    if args.peer_only:
        print(json.dumps(peers, indent=1))
        return 0
    if args.termo_json:  # a battery already run (same tuples): its JSON, and how long it took
        termo = json.loads(Path(args.termo_json).read_text(encoding="utf-8"))
        if termo["tuples"] != spec["digest"]:
            raise SystemExit(f"{args.termo_json} played tuples {termo['tuples']}, the bench drew {spec['digest']}")
        process = termo.pop("process", {"from": args.termo_json})
    elif args.interim_quordle and spec["answers"] != tuples_spec(args.mode, 1, 0)["answers"]:
        termo, process = run_termo_in_process(bench_mode(args.mode), spec, args.strategies, args.objective)
    else:
        termo, process = run_termo(spec, args.strategies, args.objective)
    payload = {"benchmark": f"modes-{spec['mode']}", "machine": machine(), "load_before": load_before,
               "load_after": _load(), "mode": spec["mode"], "boards": spec["boards"], "turns": spec["turns"],
               "answers": spec["answers"], "n": spec["n"], "seed": spec["seed"], "tuples": spec["digest"],
               "objective": args.objective, "termo_process": process, "termo": termo["strategies"],
               "doddle": peers, "side_by_side": side_by_side(spec, termo, peers)}
    out = Path(args.out) if args.out else RESULTS / f"modes-{spec['mode']}.json"
    out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(summary(payload))
    print(f"wrote {out}")
    return 0


def summary(payload: dict) -> str:
    lines = [f"{payload['mode']}: {payload['n']} games, seed {payload['seed']} (tuples {payload['tuples']})"]
    rows = [(f"termo {k}", v) for k, v in payload["termo"].items()]
    rows += [(f"doddle {k}", v) for k, v in payload["doddle"].items()]
    for label, r in rows:
        secs = r.get("seconds", r.get("cpu_seconds"))
        lines.append(f"  {label:<16} win {r['win_rate']:.2%}  finish {r['mean_finish']:.3f}  score "
                     f"{r['mean_score']:.3f}  hist {r['histogram']}  {secs:.0f} s")
    for label, r in payload["side_by_side"].items():
        lines.append(f"  {label}: termo lost {len(r['termo_lost_doddle_won'])} games Doddle won; "
                     f"finish {r['mean_finish_delta']:+.3f}, score {r['mean_score_delta']:+.3f}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ speed
def _suggest_command(level: int) -> list[list[str]]:
    """The whole-process suggestion: the CLI, else (before --game quarteto exists) the same
    request through `termo.interface.suggest.suggest` in a fresh interpreter."""
    cli = [sys.executable, "-m", "cli", "suggest", "--game", "quarteto", QUARTETO_TURN, "--level", str(level),
           "--json"]
    code = ("import json; from termo.games import get_mode; from termo.interface.suggest import suggest; "
            f"print(json.dumps(suggest(get_mode('quarteto'), [{QUARTETO_TURN!r}], level={level})['word']))")
    return [cli, [sys.executable, "-c", code]]


def time_suggest(level: int, repeats: int) -> dict:
    for cmd in _suggest_command(level):
        first = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)  # warm-up (disk caches)
        if first.returncode == 0:
            break
    else:
        return {"level": level, "error": first.stderr.strip()[-500:]}
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
        runs.append(round(time.perf_counter() - start, 3))
    median = statistics.median(runs)
    return {"level": level, "command": " ".join(cmd[1:]) if cmd[1] == "-m" else "python -c suggest_mode(...)",
            "median_s": median, "runs_s": runs, "target_s": SPEED_TARGETS[level],
            "meets_target": median <= SPEED_TARGETS[level]}


def speed(args) -> int:
    load_before = _load()
    results = {"suggest": [time_suggest(level, args.repeats) for level in (2, 3)]}
    if args.battery_n or args.battery_from:
        if args.battery_from:  # a `compare` run's termo battery (its JSON with "process")
            data = json.loads(Path(args.battery_from).read_text(encoding="utf-8"))
            process = {**data.pop("process"), "from": args.battery_from}
        else:
            spec = tuples_spec("octordle", args.battery_n, args.seed)
            data, process = run_termo(spec, "level2", "finish")
        row = data["strategies"]["level2"]
        scaled = process["wall_s"] * 1000 / data["n"]
        results["octordle_battery"] = {**process, "n": data["n"], "seed": data["seed"],
                                       "battery_seconds": row["seconds"], "wall_s_per_1000": round(scaled, 1),
                                       "target_s_per_1000": BATTERY_TARGET_S, "meets_target": scaled <= BATTERY_TARGET_S,
                                       "win_rate": row["win_rate"], "mean_finish": row["mean_finish"]}
    payload = {"benchmark": "modes-speed", "machine": machine(), "load_before": load_before, "load_after": _load(),
               "history": QUARTETO_TURN, **results}
    out = Path(args.out) if args.out else RESULTS / "modes-speed.json"
    out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=1))
    print(f"wrote {out}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cmp_ = sub.add_parser("compare", help="termo beside Doddle on the same tuples")
    cmp_.add_argument("--mode", default="quordle")
    cmp_.add_argument("--n", type=int, default=1000)
    cmp_.add_argument("--seed", type=int, default=0)
    cmp_.add_argument("--strategies", default="level2,level3")
    cmp_.add_argument("--objective", default="finish")
    cmp_.add_argument("--openers", default="salet", help="Doddle's openers, comma list ('default': its own)")
    cmp_.add_argument("--solver", default="minimax", help="Doddle's solver type (its default: minimax)")
    cmp_.add_argument("--no-peer", action="store_true")
    cmp_.add_argument("--peer-only", action="store_true")
    cmp_.add_argument("--interim-quordle", action="store_true",
                      help="Quordle on Wordle's answers less its ten blacklisted words, before the registry has them")
    cmp_.add_argument("--termo-json", help="a `termo bench battery --json` output on the same tuples (not rerun)")
    cmp_.add_argument("--out")
    spd = sub.add_parser("speed", help="whole-process suggestion times and an Octordle battery")
    spd.add_argument("--repeats", type=int, default=5)
    spd.add_argument("--battery-n", type=int, default=0)
    spd.add_argument("--battery-from", help="the JSON of an Octordle level-2 battery already run (with its process times)")
    spd.add_argument("--seed", type=int, default=0)
    spd.add_argument("--out")
    args = parser.parse_args(argv)
    return compare(args) if args.command == "compare" else speed(args)


if __name__ == "__main__":
    sys.exit(main())
