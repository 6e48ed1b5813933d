"""The load of bench/bench_server.py: seeded history pools, closed-loop clients over keep-alive
connections, and the latency figures of a phase."""

from __future__ import annotations

import http.client
import random
import statistics
import threading
import time

from bench.server_http import Server, connect, request


def history_pool(size: int, seed: int = 20260101, game: str = "termo") -> list[list[str]]:
    """``size`` distinct histories of one or two rounds (the opener, then a random probe), each
    pattern that of a random answer (never impossible, never already won)."""
    from termo.core.feedback import feedback
    from termo.games import get_game

    g = get_game(game)
    rng = random.Random(seed)
    opener = g.default_opener
    pool, seen = [], set()
    attempts = 0
    while len(pool) < size and attempts < size * 50:
        attempts += 1
        answer = g.answers_norm[rng.randrange(len(g.answers_norm))]
        first = feedback(opener, answer)
        if first == g.win_pattern:
            continue
        history = [f"{opener}:{first}"]
        if rng.random() < 0.6:
            probe = g.probes_norm[rng.randrange(len(g.probes_norm))]
            second = feedback(probe, answer)
            if second == g.win_pattern:
                continue
            history.append(f"{probe}:{second}")
        key = tuple(history)
        if key not in seen:
            seen.add(key)
            pool.append(history)
    return pool


def fresh_pool(size: int, exclude=(), seed: int = 99, game: str = "termo") -> list[list[str]]:
    """``size`` distinct two-round histories (the opener, then a random probe), none in ``exclude``."""
    from termo.core.feedback import feedback
    from termo.games import get_game

    g = get_game(game)
    rng = random.Random(seed)
    seen = {tuple(h) for h in exclude}
    out = []
    while len(out) < size:
        answer = g.answers_norm[rng.randrange(len(g.answers_norm))]
        probe = g.probes_norm[rng.randrange(len(g.probes_norm))]
        first, second = feedback(g.default_opener, answer), feedback(probe, answer)
        if g.win_pattern in (first, second):
            continue
        history = (f"{g.default_opener}:{first}", f"{probe}:{second}")
        if history not in seen:
            seen.add(history)
            out.append(list(history))
    return out


def mode_pool(size: int, mode: str, seed: int = 99) -> list[list[str]]:
    """``size`` distinct two-turn histories of ``mode`` (the level-2 opener of its game's modes,
    then a random probe), each board coloured by its own answer of a random tuple of distinct
    answers, no board solved: questions a server has never been asked."""
    from termo.core.feedback import feedback
    from termo.games import get_mode

    m = get_mode(mode)
    g = m.game
    rng = random.Random(seed)
    opener = MODE_OPENERS.get(g.label, g.default_opener)
    seen, out = set(), []
    while len(out) < size:
        answers = [g.answers_norm[i] for i in rng.sample(range(g.n_answers), m.boards)]
        probe = g.probes_norm[rng.randrange(len(g.probes_norm))]
        turns = [(w, [feedback(w, a) for a in answers]) for w in (opener, probe)]
        if any(g.win_pattern in colours for _, colours in turns):
            continue
        history = tuple(f"{w}:{'/'.join(colours)}" for w, colours in turns)
        if history not in seen:
            seen.add(history)
            out.append(list(history))
    return out


MODE_OPENERS = {"wordle": "soare", "termo": "tarso", "nerdle": "48-32=16"}  # level 2's first guess of the modes


def mode_body(history: list[str], level: int, mode: str) -> dict:
    return {"mode": mode, "history": history, "level": level, "objective": "finish"}


def suggest_body(history: list[str], level: int, game: str = "termo") -> dict:
    return {"game": game, "history": history, "level": level, "t": 1, "extended": False, "hard": False}


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank) of ``values``."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


def latency_summary(latencies: list[float]) -> dict:
    ms = [x * 1000 for x in latencies]
    if not ms:
        return {"p50_ms": None, "p90_ms": None, "p99_ms": None, "max_ms": None, "mean_ms": None}
    return {"p50_ms": round(percentile(ms, 50), 2), "p90_ms": round(percentile(ms, 90), 2),
            "p99_ms": round(percentile(ms, 99), 2), "max_ms": round(max(ms), 2),
            "mean_ms": round(statistics.fmean(ms), 2)}


def run_load(port: int, seconds: float, clients: int, make_body, *, probe_interval: float | None = None,
             during=None, request_timeout: float = 120.0, path: str = "/api/suggest") -> dict:
    """``clients`` closed-loop clients for ``seconds``, each POSTing ``make_body(rng)`` to
    ``path`` (/api/suggest); with ``probe_interval`` one more client GETs /api/games that often;
    ``during(elapsed)`` is called from the main thread every 0.1 s (the kill phase uses it); when
    it returns a number, the load runs until at least that many seconds from its start.
    Requests still in flight at the end are awaited and counted."""
    stop = threading.Event()
    lock = threading.Lock()
    latencies: list[float] = []
    errors: dict[str, int] = {}
    error_times: list[float] = []
    probe_latencies: list[float] = []
    probe_errors: dict[str, int] = {}
    begin = time.perf_counter()

    def note_error(table, kind):
        with lock:
            table[kind] = table.get(kind, 0) + 1
            error_times.append(time.perf_counter() - begin)

    def closed_loop(method: str, path: str, next_body, answered, ok_times: list, error_table: dict, pause=None):
        """Requests one after another on one connection until the stop: the seconds of each
        ``answered(status, data)`` one into ``ok_times``, the others (and exceptions, after which it
        connects again) counted by kind in ``error_table``; ``pause`` seconds between requests."""
        conn = connect(port, timeout=request_timeout)
        while not stop.is_set():
            body = next_body()
            try:
                status, data, secs = request(conn, method, path, body)
            except (OSError, http.client.HTTPException) as err:
                note_error(error_table, type(err).__name__)
                conn.close()
                time.sleep(0.05)
                conn = connect(port, timeout=request_timeout)
                continue
            if answered(status, data):
                with lock:
                    ok_times.append(secs)
            else:
                note_error(error_table, f"HTTP {status}")
            if pause is not None:
                stop.wait(pause)
        conn.close()

    def client(index: int):
        rng = random.Random(1000 + index)
        closed_loop("POST", path, lambda: make_body(rng),
                    lambda status, data: status == 200 and isinstance(data, dict) and "word" in data,
                    latencies, errors)

    def probe():
        closed_loop("GET", "/api/games", lambda: None, lambda status, data: status == 200,
                    probe_latencies, probe_errors, pause=probe_interval)

    cpu0 = time.process_time()
    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    if probe_interval:
        threads.append(threading.Thread(target=probe, daemon=True))
    for thread in threads:
        thread.start()
    deadline = seconds
    while (elapsed := time.perf_counter() - begin) < deadline:
        if during is not None:
            later = during(elapsed)
            if later is not None:
                deadline = max(deadline, later)
        time.sleep(0.1)
    stop.set()
    for thread in threads:
        thread.join(timeout=request_timeout + 10)
    wall = time.perf_counter() - begin
    result = {"clients": clients, "seconds": round(wall, 2), "requests": len(latencies),
              "requests_per_s": round(len(latencies) / wall, 1), **latency_summary(latencies),
              "errors": dict(errors), "error_count": sum(errors.values()),
              "client_cpu_s": round(time.process_time() - cpu0, 2)}
    if probe_interval:
        result["probe"] = {"endpoint": "GET /api/games", "interval_s": probe_interval,
                           "requests": len(probe_latencies), **latency_summary(probe_latencies),
                           "errors": dict(probe_errors)}
    result["_error_times"] = error_times
    return result


def jobs_stats(port: int) -> dict | None:
    """The server's own counters (``GET /api/health``: computed, shared, remembered), if it has them."""
    try:
        status, data, _ = request(connect(port, timeout=10), "GET", "/api/health")
    except (OSError, http.client.HTTPException):
        return None
    jobs = data.get("jobs") if status == 200 and isinstance(data, dict) else None
    return jobs if isinstance(jobs, dict) else None


def measured(server: Server, *args, **kwargs) -> dict:
    """`run_load`, with how the server answered (its counters' increase over the phase) and the
    CPU seconds the server (and its worker processes) spent per answer."""
    port = server.port
    before, cpu = jobs_stats(port), server.cpu_s()
    result = run_load(port, *args, **kwargs)
    after, cpu_after = jobs_stats(port), server.cpu_s()
    if cpu is not None and cpu_after is not None:
        result["server_cpu_s"] = round(cpu_after - cpu, 2)
        if result["requests"]:
            result["server_cpu_ms_per_request"] = round(1000 * (cpu_after - cpu) / result["requests"], 3)
    if before and after:
        result["server_jobs"] = {key: after[key] - before[key] for key in ("computed", "shared", "remembered")
                                 if isinstance(after.get(key), int) and isinstance(before.get(key), int)}
    return result


def warm_up(port: int, pool: list[list[str]], level: int) -> dict:
    """Every history once, one after another (first answers: the server's cold costs)."""
    conn = connect(port)
    latencies, errors = [], 0
    for history in pool:
        status, data, secs = request(conn, "POST", "/api/suggest", suggest_body(history, level))
        if status == 200:
            latencies.append(secs)
        else:
            errors += 1
    conn.close()
    return {"requests": len(pool), "errors": errors, "total_s": round(sum(latencies), 2), **latency_summary(latencies)}


def reference_answers(port: int, histories: list[tuple[list[str], int]]) -> list:
    conn = connect(port)
    answers = []
    for history, level in histories:
        status, data, _ = request(conn, "POST", "/api/suggest", suggest_body(history, level))
        answers.append({"status": status, "data": data})
    conn.close()
    return answers
