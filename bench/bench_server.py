"""Benchmark: the HTTP server (`termo serve`) under bounded concurrent load, and a kill mid-load.

The server is started as its own process on loopback (a free port) and driven by ``--clients``
client threads over keep-alive HTTP/1.1 connections (``http.client``: no dependency), each
sending its next request as soon as the last one is answered (a closed loop):

1. **warm-up**: every history of the pool once at level 2 (the caches the server keeps fill);
2. **level 2**: ``--clients`` clients for ``--seconds`` of ``POST /api/suggest`` at level 2 with
   histories drawn from a seeded pool (Termo, one or two rounds, the second guess random, every
   pattern taken from a real answer, so no history is impossible): questions the server has
   answered before (its answer cache, if it keeps one, answers them);
   **level 2 fresh**: the same, but every request a history never asked before (two rounds),
   so every answer is computed: the cost of a real search under load;
3. **level 3**: the same at level 3, each request a history not asked before (so every one is a
   search), while one more client asks ``GET /api/games`` every 50 ms: its latency shows whether
   a search ever blocks the server's event loop;
4. **level 2, then level 3 again** (shorter runs): the resident memory after them against after
   the first level-3 phase, when both workloads had run once (no growth);
5. **kill**: a mixed level-2/level-3 load, the server killed with SIGKILL (its whole process
   group) in the middle of it, started again; the answers to a reference set of histories asked
   before the kill are asked again (stateless: the same JSON), the restarted server's log must not
   report a cache that was ignored or rebuilt, and a fresh `termo suggest --json` process reading
   the same cache directory neither.

Figures per phase: requests, requests per second, p50/p90/p99/max latency in ms, errors by kind
(HTTP status or exception), server RSS (the process and its children) before and after.
Targets: level-2 suggest p99 <= 100 ms under 32 clients, zero errors, no RSS growth, the
trivial endpoint answered promptly while level-3 searches run.

The client threads run in this process on the same machine as the server: on a 2-core machine
they take part of the CPU the server could use (the client's own CPU seconds are recorded).

Usage: python bench/bench_server.py [--clients 32] [--seconds 30] [--name server]
       [--server-cmd 'termo serve --host {host} --port {port}'] [--quick]
Writes bench/results/<name>.json. The server reads ``$TERMO_CACHE_DIR`` like every command.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import machine, save  # noqa: E402
# the process and the load live in their own modules; their names stay importable from here
from bench.server_http import DEFAULT_SERVER_CMD, HOST, Server, free_port  # noqa: E402,F401
from bench.server_load import (  # noqa: E402,F401
    fresh_pool,
    history_pool,
    latency_summary,
    measured,
    mode_body,
    mode_pool,
    percentile,
    reference_answers,
    run_load,
    suggest_body,
    warm_up,
)

# what a damaged or stale cache makes the library say on stderr (termo.core.cache.warn callers)
CACHE_WARNINGS = ("ignored", "rebuilding", "corrupt", "checksum")


def cache_warnings(text: str) -> list[str]:
    return [line for line in text.splitlines() if any(word in line.lower() for word in CACHE_WARNINGS)]


def fresh_process_check(env: dict) -> dict:
    """`termo suggest tarso:BBBBB --level 2 --json` in a new process on the same cache directory."""
    start = time.perf_counter()
    proc = subprocess.run(["termo", "suggest", "tarso:BBBBB", "--level", "2", "--json"], capture_output=True,
                          text=True, env=env, timeout=600)
    return {"returncode": proc.returncode, "seconds": round(time.perf_counter() - start, 2),
            "cache_warnings": cache_warnings(proc.stderr), "word": _word(proc.stdout)}


def _word(stdout: str):
    try:
        return json.loads(stdout).get("word")
    except (ValueError, AttributeError):
        return None


def git_commit() -> str | None:
    """The checkout's commit, with "+changes" when web/, termo/, backends/ or cli/ differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "web", "termo", "backends", "cli"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (head + ("+changes" if dirty else "")) or None


def seeded_cache(folder: Path, source: str | None) -> Path:
    """A new cache folder holding copies of the full Termo matrices (and their stamps) of ``source``."""
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    if source and Path(source).is_dir():
        for path in Path(source).glob("matrix-termo-*-6046x6046-*"):
            shutil.copy2(path, folder / path.name)
    return folder


def kill_during_build(command: str, logdir: Path, env: dict, expected: dict, item) -> dict:
    """An empty cache folder: the first suggestion builds the Termo matrix; SIGKILL the server the
    moment a cache file is being written (a ``*.tmp`` of the atomic write appears; 120 s at most),
    start it again on the same folder and ask again: the same answer as the main server gave, and
    no cache reported damaged (atomic writes leave no half file under the real name)."""
    cold = dict(env, TERMO_CACHE_DIR=str(Path(tempfile.mkdtemp(prefix="cold-cache-", dir=logdir))))
    port = free_port()
    first = Server(command, port, logdir / "cold-1.log", cold)
    first.start()
    history, level = item
    body = json.dumps(suggest_body(history, level)).encode()
    sock = socket.create_connection((HOST, port))
    sock.sendall(b"POST /api/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    folder = Path(cold["TERMO_CACHE_DIR"])
    deadline = time.perf_counter() + 120
    import select

    answered = False
    while time.perf_counter() < deadline:  # kill the moment a file is being written (atomic: *.tmp)
        if any(p.name.endswith(".tmp") for p in folder.rglob("*")):
            break
        if select.select([sock], [], [], 0.005)[0]:  # answered before any write was seen
            answered = True
            break
    files_at_kill = sorted(p.name for p in folder.rglob("*") if p.is_file())
    first.kill()
    sock.close()
    second = Server(command, port, logdir / "cold-2.log", cold)
    try:
        second.start()
        answer = reference_answers(port, [item])[0]
    finally:
        second.stop()
    return {"files_at_kill": files_at_kill, "answered_before_kill": answered, "killed_while_writing": any(n.endswith(".tmp") for n in files_at_kill),
            "same_answer": answer == expected, "cache_warnings": cache_warnings(second.log_text()),
            "files_after_restart": sorted(p.name for p in folder.rglob("*") if p.is_file())}


# ----------------------------------------------------------------------------- the benchmark
def level2_fresh_phase(server: Server, args, pool2) -> dict:
    """``--clients`` clients asking level-2 histories never asked before, one per request."""
    fresh = itertools.cycle(fresh_pool(args.fresh_pool, exclude=pool2))  # repeats only past the pool
    fresh_lock = threading.Lock()

    def level2_fresh(rng):
        with fresh_lock:
            return suggest_body(next(fresh), 2)

    return measured(server, args.seconds, args.clients, level2_fresh)


def mode_fresh_phase(server: Server, args) -> dict:
    """``--clients`` clients asking level-2 suggestions of ``--mode`` for histories never asked
    before (`mode_pool`), one per request, on ``POST /api/mode/suggest``."""
    fresh = itertools.cycle(mode_pool(args.fresh_pool, args.mode))
    fresh_lock = threading.Lock()

    def body(rng):
        with fresh_lock:
            return mode_body(next(fresh), 2, args.mode)

    return measured(server, args.seconds, args.clients, body, path="/api/mode/suggest")


def start_and_warm(server: Server, pool2, report: dict, *, rss: bool = False) -> None:
    """Start the server (until ready), then the level-2 warm-up (with ``rss``, the server's
    resident memory before and after it)."""
    report["start_s"] = round(server.start(ready=True), 2)
    report["ready_s"] = None if server.ready_s is None else round(server.ready_s, 2)
    if rss:
        report["rss_mb"] = {"started": server.rss_mb()}
    report["phases"]["warmup_level2"] = warm_up(server.port, pool2, 2)
    if rss:
        report["rss_mb"]["after_warmup"] = server.rss_mb()


def finish(args, logdir: Path, report: dict) -> None:
    """The cache copies removed, the load average at the end, no error times left in the phases."""
    remove_copies(args, logdir)
    for phase in report["phases"].values():
        phase.pop("_error_times", None)
    report["load_average_at_end"] = list(os.getloadavg())


def write_results(args, name: str, payload: dict) -> None:
    """``--out`` (and the checks on stdout), else bench/results/<name>.json."""
    if args.out:
        args.out.write_text(json.dumps({"benchmark": name, "machine": machine(), **payload}, indent=1,
                                       ensure_ascii=False) + "\n", encoding="utf-8")
        print(json.dumps(payload["checks"], indent=1))
    else:
        save(name, payload)


def only_phase(args, server: Server, pool2, report: dict, logdir: Path) -> dict:
    """``--only PHASE``: the server started (and ready), the level-2 warm-up, that phase."""
    phases = report["phases"]
    try:
        start_and_warm(server, pool2, report)
        phases[args.only] = (level2_fresh_phase(server, args, pool2) if args.only == "level2_fresh"
                             else mode_fresh_phase(server, args))
        report["rss_mb"] = {"after": server.rss_mb()}
    finally:
        server.stop()
    finish(args, logdir, report)
    result = phases[args.only]
    limit = 100 if args.only == "level2_fresh" else 2000  # ms: a Termo answer; a mode's under 32 clients
    report["checks"] = {f"{args.only}_p99_ms": result["p99_ms"],
                        f"{args.only}_p99_le_{limit}ms": result["p99_ms"] is not None and result["p99_ms"] <= limit,
                        "server_cpu_ms_per_request": result.get("server_cpu_ms_per_request"),
                        "errors_zero": result["error_count"] == 0 and phases["warmup_level2"]["errors"] == 0}
    payload = {"config": {"clients": args.clients, "seconds": args.seconds, "quick": args.quick, "only": args.only},
               **report}
    suffix = args.only.replace("_", "-") + (f"-{args.mode}" if args.only == "mode_fresh" else "")
    write_results(args, f"{args.name}-{suffix}", payload)
    return payload


def remove_copies(args, logdir: Path) -> None:
    """Remove the cache copies and builds of a run (70-160 MB), not a ``--cache-dir`` given."""
    import shutil

    for folder in [logdir / "cache", *logdir.glob("cold-cache-*")]:
        if not args.cache_dir or folder != args.cache_dir:
            shutil.rmtree(folder, ignore_errors=True)


def body_makers(pool2, pool3):
    """The level-2 request (a history of the pool at random) and the level-3 one (the pool in
    order: each history asked once before any repeats)."""
    fresh3 = itertools.cycle(pool3)
    fresh3_lock = threading.Lock()

    def level2(rng):
        return suggest_body(rng.choice(pool2), 2)

    def level3(rng):
        with fresh3_lock:
            return suggest_body(next(fresh3), 3)

    return level2, level3


def load_phases(args, server: Server, pool2, level2, level3, report: dict) -> None:
    """Level 2 (asked before, then fresh), level 3 with the probe, both again; RSS after each."""
    phases, rss = report["phases"], report["rss_mb"]
    phases["level2"] = measured(server, args.seconds, args.clients, level2)
    rss["after_level2"] = server.rss_mb()
    phases["level2_fresh"] = level2_fresh_phase(server, args, pool2)
    rss["after_level2_fresh"] = server.rss_mb()
    phases["level3"] = measured(server, args.seconds, args.clients, level3, probe_interval=0.05)
    rss["after_level3"] = server.rss_mb()
    phases["level2_again"] = measured(server, args.repeat_seconds, args.clients, level2)
    phases["level3_again"] = measured(server, args.repeat_seconds, args.clients, level3)
    rss["after_repeat"] = server.rss_mb()


def kill_phase(args, servers: list, reference, level2, level3, env: dict, logdir: Path) -> tuple[dict, list]:
    """Reference answers first, then a mixed load with a SIGKILL of ``servers[-1]`` in its middle
    and a restart (appended to ``servers``); the reference asked again. Returns the phase's
    figures and the answers before the kill."""
    server = servers[-1]
    port = server.port
    before = reference_answers(port, reference)
    kill_at = args.kill_seconds / 3
    state = {"killed_at": None, "restarted_at": None, "restart_s": None}
    restarted = Server(args.server_cmd, port, logdir / "server-2.log", env)

    def during(elapsed):
        if state["killed_at"] is None and elapsed >= kill_at:
            state["survivors_after_kill"] = server.kill()
            state["killed_at"] = round(elapsed, 2)
            state["restart_s"] = round(restarted.start(), 2)
            state["restarted_at"] = round(elapsed + state["restart_s"], 2)
            return state["restarted_at"] + args.kill_seconds / 2  # load the restarted server too
        return None

    def mixed(rng):
        return level3(rng) if rng.random() < 0.25 else level2(rng)

    kill = run_load(port, args.kill_seconds, args.clients, mixed, during=during)
    servers.append(restarted)
    error_times = kill.pop("_error_times")
    after_restart = [t for t in error_times if state["restarted_at"] is not None and t > state["restarted_at"] + 1]
    after = reference_answers(port, reference)
    log2 = restarted.log_text()
    kill.update(state)
    kill["errors_while_down"] = len(error_times) - len(after_restart)
    kill["errors_after_restart"] = len(after_restart)
    kill["same_answers_after_restart"] = before == after
    kill["differences"] = [{"history": h, "level": lvl, "before": x, "after": y}
                           for (h, lvl), x, y in zip(reference, before, after) if x != y]
    kill["answers_compared"] = len(reference)
    kill["restart_log_cache_warnings"] = cache_warnings(log2)
    kill["fresh_process"] = fresh_process_check(env)
    return kill, before


def full_checks(report: dict) -> dict:
    """The targets of a full run, from its phases and RSS figures."""
    rss, phases = report["rss_mb"], report["phases"]
    l2, l2f, l3, kill = phases["level2"], phases["level2_fresh"], phases["level3"], phases["kill_restart"]
    growth = None
    if rss.get("after_level3") and rss.get("after_repeat"):
        growth = round(rss["after_repeat"] - rss["after_level3"], 1)
    checks = {
        "level2_p99_ms": l2["p99_ms"],
        "level2_p99_le_100ms": l2["p99_ms"] is not None and l2["p99_ms"] <= 100,
        "level2_fresh_p99_ms": l2f["p99_ms"],
        "level2_fresh_p99_le_100ms": l2f["p99_ms"] is not None and l2f["p99_ms"] <= 100,
        "errors_zero": all(phases[p]["error_count"] == 0 for p in ("level2", "level2_fresh", "level3", "level2_again", "level3_again"))
        and phases["warmup_level2"]["errors"] == 0,
        "rss_growth_mb_on_repeat": growth,
        "no_rss_growth": growth is not None and growth <= max(20.0, 0.05 * rss["after_level3"]),
        "probe_p99_ms_during_level3": l3["probe"]["p99_ms"],
        "probe_max_ms_during_level3": l3["probe"]["max_ms"],
        "event_loop_not_blocked": l3["probe"]["p99_ms"] is not None and l3["probe"]["p99_ms"] <= 100
        and l3["probe"]["max_ms"] <= 500,
        "kill_same_answers": kill["same_answers_after_restart"],
        "kill_no_errors_after_restart": kill["errors_after_restart"] == 0,
        "kill_no_survivors": kill.get("survivors_after_kill") is False,
        "kill_no_cache_warnings": not kill["restart_log_cache_warnings"] and not kill["fresh_process"]["cache_warnings"],
    }
    if "kill_during_build" in phases:
        cold = phases["kill_during_build"]
        checks["kill_during_build_ok"] = cold["same_answer"] and not cold["cache_warnings"]
    return checks


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the level-2 and level-3 phases")
    parser.add_argument("--repeat-seconds", type=float, default=10.0, help="length of the second level-2 phase")
    parser.add_argument("--kill-seconds", type=float, default=12.0, help="length of the kill phase")
    parser.add_argument("--pool", type=int, default=300, help="distinct level-2 histories")
    parser.add_argument("--level3-pool", type=int, default=3000,
                        help="distinct level-3 histories, asked in turn (more than a run asks: every one computed)")
    parser.add_argument("--fresh-pool", type=int, default=20000,
                        help="histories never asked before, for the fresh level-2 phase (one per request)")
    parser.add_argument("--server-cmd", default=DEFAULT_SERVER_CMD, help="{host} and {port} are filled in")
    parser.add_argument("--name", default="server")
    parser.add_argument("--out", type=Path, default=None, help="write here instead of bench/results/<name>.json")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 4 clients, 1 s phases")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="the server's TERMO_CACHE_DIR (default: a new folder, seeded with the Termo "
                             "matrices of $TERMO_CACHE_DIR when it has them, so other processes cannot "
                             "change what the server reads)")
    parser.add_argument("--no-cold-kill", action="store_true",
                        help="skip the kill during a first matrix build (an empty cache folder)")
    parser.add_argument("--mode", default="quordle", help="--only mode_fresh: the mode asked")
    parser.add_argument("--only", choices=("level2_fresh", "mode_fresh"), default=None,
                        help="run one phase only (after the level-2 warm-up it follows in a full run); "
                             "written to bench/results/<name>-<phase>.json, never over a full run's file")
    args = parser.parse_args(argv)
    if args.quick:
        args.clients, args.seconds, args.repeat_seconds, args.kill_seconds = 4, 1.0, 0.5, 2.0
        args.pool, args.level3_pool, args.fresh_pool = min(args.pool, 20), min(args.level3_pool, 6), 2000
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    env = dict(os.environ)
    logdir = Path(tempfile.mkdtemp(prefix="bench-server-"))
    cache_dir = args.cache_dir or seeded_cache(logdir / "cache", os.environ.get("TERMO_CACHE_DIR"))
    env["TERMO_CACHE_DIR"] = str(cache_dir)
    port = free_port()
    server = Server(args.server_cmd, port, logdir / "server-1.log", env)
    pool2 = history_pool(args.pool)
    pool3 = history_pool(args.level3_pool, seed=7)
    report: dict = {"server_cmd": args.server_cmd, "commit": git_commit(), "cache_dir": env["TERMO_CACHE_DIR"],
                    "load_average_at_start": list(os.getloadavg()),
                    "histories": {"level2": len(pool2), "level3": len(pool3)}, "phases": {}}
    phases = report["phases"]
    if args.only:
        return only_phase(args, server, pool2, report, logdir)
    servers = [server]  # the last one is the one running (the restarted one after the kill)
    try:
        start_and_warm(server, pool2, report, rss=True)
        level2, level3 = body_makers(pool2, pool3)
        load_phases(args, server, pool2, level2, level3, report)
        reference = [(h, 2) for h in pool2[:20]] + [(h, 3) for h in pool3[:5]]
        phases["kill_restart"], before = kill_phase(args, servers, reference, level2, level3, env, logdir)
        report["rss_mb"]["restarted"] = servers[-1].rss_mb()
    finally:
        servers[-1].stop()
    if not args.no_cold_kill:
        phases["kill_during_build"] = kill_during_build(args.server_cmd, logdir, env, before[0], reference[0])
    finish(args, logdir, report)
    report["server_log_tail"] = (logdir / "server-1.log").read_text(errors="replace")[-1500:]
    report["logs"] = str(logdir)
    report["checks"] = full_checks(report)
    payload = {"config": {"clients": args.clients, "seconds": args.seconds, "quick": args.quick}, **report}
    write_results(args, args.name, payload)
    return payload


if __name__ == "__main__":
    main()
