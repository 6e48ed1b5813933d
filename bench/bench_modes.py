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
* ``paired``: level 2 and level 3 on the same ``--n`` seeded tuples, in checkpointed chunks
  (``bench/results/checkpoints/``, ``--resume``), the per-game difference level 2 − level 3 with
  its 95 % interval; writes ``bench/results/modes-levels-<mode>-n<N>-s<seed>.json``.

Usage::

    python bench/bench_modes.py compare --mode octordle --n 1000 --seed 0 [--strategies level2,level3]
    python bench/bench_modes.py speed [--repeats 5] [--battery-n 1000]
    python bench/bench_modes.py paired --mode quordle --n 1000 --seed 0 [--objective finish] [--chunk 50] [--resume]
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

from bench.common import RESULTS, load, machine, timed_run  # noqa: E402

PEERS = RESULTS / "peers"
PEER_SCRIPT = ROOT / "bench" / "peers" / "doddle_modes.py"
DODDLE_PYTHON = os.environ.get("DODDLE_PYTHON", "/tmp/doddle-venv/bin/python")
QUARTETO_TURN = "tarso:BBBBB/BYBBB/BBGBB/YBBBB"  # one turn of Quarteto, four boards' colours
SPEED_TARGETS = {2: 0.5, 3: 2.0}
BATTERY_TARGET_S = 600.0  # an Octordle battery of 1,000 games


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
    out["finishes"] = [finish for finish, _, _ in per_game]
    out["scores"] = [score for _, score, _ in per_game]
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
    """Per termo strategy and Doddle opener: the games termo lost that Doddle won, the deltas of the
    means and, per game, Doddle − termo (finish and score: positive when termo is ahead) with its
    95 % interval; and level 2 − level 3 when both played."""
    from termo.analysis.mode_battery import paired

    rows = {}
    strategies = termo["strategies"]
    for name, row in strategies.items():
        for opener, peer in peers.items():
            lost_won = sorted(set(row["lost"]) - set(peer["lost"]))
            rows[f"{name} vs doddle {opener}"] = {
                "termo_lost_doddle_won": [{"game": i, "answers": spec["tuples"][i]} for i in lost_won],
                "doddle_lost_termo_won": len(set(peer["lost"]) - set(row["lost"])),
                "mean_finish_delta": row["mean_finish"] - peer["mean_finish"],
                "mean_score_delta": row["mean_score"] - peer["mean_score"],
                "paired_finish_doddle_minus_termo": paired(peer["finishes"], row["finishes"]),
                "paired_score_doddle_minus_termo": paired(peer["scores"], row["scores"]),
            }
    if "level2" in strategies and "level3" in strategies:
        rows["level2 vs level3"] = {
            "paired_finish_level2_minus_level3": paired(strategies["level2"]["finishes"], strategies["level3"]["finishes"]),
            "paired_score_level2_minus_level3": paired(strategies["level2"]["scores"], strategies["level3"]["scores"]),
        }
    return rows


def compare(args) -> int:
    spec = tuples_spec(args.mode, args.n, args.seed, args.interim_quordle)
    load_before = load()
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
               "load_after": load(), "mode": spec["mode"], "boards": spec["boards"], "turns": spec["turns"],
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
        if "paired_finish_level2_minus_level3" in r:
            p = r["paired_finish_level2_minus_level3"]
            lines.append(f"  level 2 − level 3, finish per game: {p['mean']:+.4f} [{p['ci95'][0]:+.4f}, {p['ci95'][1]:+.4f}]")
            continue
        p = r["paired_finish_doddle_minus_termo"]
        lines.append(f"  {label}: termo lost {len(r['termo_lost_doddle_won'])} games Doddle won; "
                     f"finish {r['mean_finish_delta']:+.3f}, score {r['mean_score_delta']:+.3f}; Doddle − termo per "
                     f"game {p['mean']:+.4f} [{p['ci95'][0]:+.4f}, {p['ci95'][1]:+.4f}]")
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
    load_before = load()
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
    payload = {"benchmark": "modes-speed", "machine": machine(), "load_before": load_before, "load_after": load(),
               "history": QUARTETO_TURN, **results}
    out = Path(args.out) if args.out else RESULTS / "modes-speed.json"
    out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=1))
    print(f"wrote {out}")
    return 0


# ------------------------------------------------------------------------------ paired levels
def _chunk_rows(mode, strategy: str, tuples, objective: str, rollout_t: float | None = None) -> dict:
    """One strategy on ``tuples``: per game its boards' solve turns, with CPU and wall seconds
    (``rollout_t``: level 3's `MultiSearch` option, the prior its rollouts draw tuples from)."""
    from termo.analysis.mode_battery import LEVEL_NAMES, play_modes_lockstep
    from termo.engine.multi.factory import multi_solver

    wall, cpu = time.perf_counter(), time.process_time()
    options = {"rollout_t": rollout_t} if strategy == "level3" and rollout_t is not None else {}
    solver = multi_solver(mode, level=LEVEL_NAMES[strategy], objective=objective, **options)
    run = play_modes_lockstep(solver, mode, tuples)
    return {"solved_on": run.solved_on, "wall_s": round(time.perf_counter() - wall, 2),
            "cpu_s": round(time.process_time() - cpu, 2)}


def paired_levels_run(args) -> int:
    """Level 2 and level 3 on the same seeded tuples, in chunks of ``--chunk`` games, each chunk
    saved to a checkpoint as soon as it is played (``--resume`` goes on from it: a game's result
    does not depend on the chunk it is played in, every decision being a function of its state);
    then the figures of each level and the paired difference level 2 − level 3 per game."""
    from termo.analysis.mode_battery import figures, game_figures, load_kernels, mode_tuples, paired, tuples_digest
    from termo.games import get_mode

    load_kernels()
    mode = get_mode(args.mode)
    tuples = mode_tuples(mode, args.n, args.seed)
    name = args.out or f"modes-levels-{mode.label}-n{args.n}-s{args.seed}" + (
        "" if args.objective == "finish" else f"-{args.objective}") + (
        "" if args.rollout_t is None else f"-rollout-t{args.rollout_t:g}")
    ckpt = RESULTS / "checkpoints" / f"{name}.json"
    state = {"mode": mode.label, "n": args.n, "seed": args.seed, "objective": args.objective,
             "tuples": tuples_digest(mode, tuples), "chunk": args.chunk, "rollout_t": args.rollout_t, "chunks": {},
             "loads": []}
    if (args.resume or args.summarise) and ckpt.exists():
        old = json.loads(ckpt.read_text(encoding="utf-8"))
        if {k: old.get(k) for k in ("mode", "n", "seed", "objective", "tuples", "chunk", "rollout_t")} != \
                {k: state[k] for k in ("mode", "n", "seed", "objective", "tuples", "chunk", "rollout_t")}:
            raise SystemExit(f"{ckpt} is another battery's checkpoint")
        state = old
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    strategies = ("level2", "level3")
    for lo in range(0, args.n, args.chunk):
        if str(lo) in state["chunks"] or args.summarise:
            continue
        part = tuples[lo: lo + args.chunk]
        state["chunks"][str(lo)] = {s: _chunk_rows(mode, s, part, args.objective, args.rollout_t) for s in strategies}
        state["loads"].append(load())
        tmp = ckpt.with_suffix(".tmp")
        tmp.write_text(json.dumps(state) + "\n", encoding="utf-8")
        os.replace(tmp, ckpt)
        done = min(lo + args.chunk, args.n)
        print(f"{mode.label}: {done}/{args.n} games, load {state['loads'][-1]}", flush=True)
    done = 0  # the games of the chunks played from the first on (the battery of that size: prefix-stable)
    while done < args.n and str(done) in state["chunks"]:
        done += args.chunk
    done = min(done, args.n)
    if not done:
        raise SystemExit(f"{ckpt}: no chunk played yet")
    if done < args.n:
        print(f"summarising the first {done} of {args.n} games (the battery of {done})", flush=True)
        name = name.replace(f"-n{args.n}-", f"-n{done}-")
    rows = {}
    for s in strategies:
        parts = [state["chunks"][str(lo)][s] for lo in range(0, done, args.chunk)]
        per_game = [game_figures(g, mode.max_turns) for p in parts for g in p["solved_on"]]
        rows[s] = {**figures(per_game, mode.max_turns), "finishes": [f for f, _, _ in per_game],
                   "scores": [sc for _, sc, _ in per_game],
                   "lost": [i for i, (_, _, won) in enumerate(per_game) if not won],
                   "cpu_s": round(sum(p["cpu_s"] for p in parts), 1),
                   "wall_s": round(sum(p["wall_s"] for p in parts), 1)}
    diff = paired(rows["level2"]["finishes"], rows["level3"]["finishes"])
    loads = state["loads"]
    payload = {"mode": mode.label, "n": done, "seed": args.seed, "objective": args.objective, "rollout_t": args.rollout_t,
               "tuples": tuples_digest(mode, tuples[:done]), "chunk": args.chunk, "checkpoint_n": args.n,
               "load_min_max": [min(x[0] for x in loads), max(x[0] for x in loads)] if loads else [],
               "strategies": rows, "level2_minus_level3_finish": diff,
               "level2_minus_level3_score": paired(rows["level2"]["scores"], rows["level3"]["scores"])}
    peer = cached_peer(tuples_spec(mode.label, done, args.seed), "salet", "minimax")
    if peer is not None:  # Doddle's games on the same tuples (bench/results/peers/), paired per game
        doddle = peer_figures(peer, tuples_spec(mode.label, done, args.seed))
        payload["doddle"] = {k: doddle[k] for k in ("peer", "doddle_version", "solver", "opener", "win_rate",
                                                    "mean_finish", "mean_score", "histogram") if k in doddle}
        for s in strategies:
            payload[f"doddle_minus_{s}_finish"] = paired(doddle["finishes"], rows[s]["finishes"])
    out = RESULTS / f"{name}.json"
    out.write_text(json.dumps({"benchmark": "modes-levels", "machine": machine(), **payload}, indent=1,
                              ensure_ascii=False) + "\n", encoding="utf-8")
    for s in strategies:
        r = rows[s]
        print(f"{s}: win {r['win_rate']:.3%}  finish {r['mean_finish']:.4f}  score {r['mean_score']:.3f}  "
              f"cpu {r['cpu_s']} s")
    print(f"level 2 − level 3 (finish): {diff['mean']:+.4f} [{diff['ci95'][0]:+.4f}, {diff['ci95'][1]:+.4f}]")
    for s in strategies if peer is not None else ():
        d = payload[f"doddle_minus_{s}_finish"]
        print(f"Doddle − {s} (finish): {d['mean']:+.4f} [{d['ci95'][0]:+.4f}, {d['ci95'][1]:+.4f}]")
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
    par = sub.add_parser("paired", help="level 2 and level 3 on the same tuples, paired per game (checkpointed)")
    par.add_argument("--mode", default="quordle")
    par.add_argument("--n", type=int, default=1000)
    par.add_argument("--seed", type=int, default=0)
    par.add_argument("--objective", default="finish")
    par.add_argument("--chunk", type=int, default=50)
    par.add_argument("--rollout-t", type=float, help="level 3's rollout_t (the prior of its rollouts' tuples; inf: uniform)")
    par.add_argument("--resume", action="store_true")
    par.add_argument("--summarise", action="store_true",
                     help="play nothing: the figures of the chunks the checkpoint holds, from the first on")
    par.add_argument("--out", help="the result's name (bench/results/NAME.json)")
    args = parser.parse_args(argv)
    return {"compare": compare, "speed": speed, "paired": paired_levels_run}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
