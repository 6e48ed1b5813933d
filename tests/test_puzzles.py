"""Nerdle puzzles (docs/puzzles.md): the dated archive, difficulty, today's official answer against
a loopback HTTP server, monthly statistics, the CLI and the web routes."""

from __future__ import annotations

import datetime as dt
import http.server
import json
import socket
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from termo.core.errors import TermoError
from termo.puzzles import archive, difficulty, stats, today
from termo.puzzles.service import archive_puzzle

D = dt.date

# Pinned: the archive is public and must never move (same date -> same equation everywhere).
PINNED = {
    "2000-01-01": "24-14=10",
    "2000-01-02": "89-29=60",
    "2022-01-20": "71-9*7=8",
    "2026-12-01": "4+4*9=40",
    "2048-07-10": "86-10=76",  # day 17,723: the first day of the second cycle
    "2048-07-11": "21+75=96",
    "2099-12-31": "4/1+9=13",
}


@pytest.fixture(scope="module")
def game():
    return archive.nerdle_game()


@pytest.fixture(scope="module")
def scale(game):
    return difficulty.scale_for(game)


# ----------------------------------------------------------------------------- archive


def test_pinned_dates(game):
    for day, eq in PINNED.items():
        assert archive.equation_on(D.fromisoformat(day), game.answers) == eq, day


def test_same_equations_in_another_process():
    code = ("import datetime as dt, json; from termo.puzzles.archive import equation_on; "
            f"print(json.dumps({{d: equation_on(dt.date.fromisoformat(d)) for d in {sorted(PINNED)!r}}}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == PINNED


def test_each_cycle_is_a_permutation(game):
    n = game.n_answers
    orders = [archive.cycle_order(game.answers, c) for c in range(3)]
    for order in orders:
        assert len(order) == n and sorted(order) == sorted(game.answers)
    assert orders[0] != orders[1] and orders[1] != orders[2]  # reshuffled every cycle
    # walking the dates: every form exactly once in the first cycle, and again in the second
    start = archive.START
    for c in range(2):
        seen = Counter(archive.equation_on(start + dt.timedelta(days=c * n + i), game.answers) for i in range(n))
        assert len(seen) == n and set(seen.values()) == {1}


def test_entry_fields(game):
    e = archive.entry(D(2048, 7, 10), game.answers)
    assert (e["archive_number"], e["cycle"], e["position_in_cycle"], e["cycle_length"]) == (17724, 2, 1, 17723)
    assert e["retroactive"] is True and "not the official record" in e["note"]


def test_dates_before_the_start_and_bad_dates_are_refused():
    with pytest.raises(TermoError, match="starts on 2000-01-01"):
        archive.equation_on(D(1999, 12, 31))
    for bad in ("2001-02-29", "2000-1-1", "yesterday", "", "2000-01-01T00:00"):
        with pytest.raises(TermoError, match="bad date"):
            archive.parse_date(bad)


# ----------------------------------------------------------------------------- difficulty


def test_difficulty_scale(game, scale):
    assert sorted(scale.order) == sorted(game.answers)
    quintiles = Counter(scale.quintile(eq) for eq in game.answers)
    assert sorted(quintiles) == [1, 2, 3, 4, 5] and max(quintiles.values()) - min(quintiles.values()) <= 1
    assert scale.percentile(scale.order[-1]) == 100.0 and scale.quintile(scale.order[0]) == 1
    # the order: guesses on a stored tree (when there is one), the opener's group size, the text
    if scale.lengths is None:
        assert scale.source == difficulty.SOURCE_STAND_IN
        keys = [(scale.groups[eq], eq) for eq in scale.order]
    else:
        assert scale.source.startswith("stored ")
        keys = [(scale.lengths[eq], scale.groups[eq], eq) for eq in scale.order]
    assert keys == sorted(keys)
    # group sizes are real: the opener's colours leave exactly that many answers
    from termo.core.feedback import colours
    eq = scale.order[len(scale.order) // 2]
    opener = scale.opener
    key = game.win_key(opener)
    pattern = colours(opener, eq)
    assert game.win_key(eq) != key
    assert scale.groups[eq] == sum(colours(opener, a) == pattern and game.win_key(a) != key for a in game.answers)
    assert scale.of("1+1=2") is None


def test_feedback_code_is_the_plain_rule(game):
    """The shortcut (symbols first, then the win rule) equals termo.engine.matrix.expected_code: on every
    answer against a probe with rearrangements, on a sample of Classic cells, all of Mini."""
    from termo.games import nerdle
    from termo.engine.matrix import expected_code

    probe = game.index_of("12+35=47")
    cells = [(probe, a) for a in range(game.n_answers) if sorted(game.answers[a]) == sorted("12+35=47")]
    assert len(cells) > 2  # 35+12=47 and friends
    cells += [((7 * i) % game.n_probes, (13 * i + 5) % game.n_answers) for i in range(400)]
    for p, a in cells:
        assert difficulty.feedback_code(game, p, a) == expected_code(game, p, a)
    mini = nerdle.make(mini=True)
    for p in range(0, mini.n_probes, 5):
        for a in range(mini.n_answers):
            assert difficulty.feedback_code(mini, p, a) == expected_code(mini, p, a)


def _naive_tree(game):
    """A complete tree: the opener, then always the first candidate left (answers only)."""
    from termo.engine.matrix import expected_code
    from termo.trees.model import Node, Tree

    def build(guess, members):
        node = Node(guess)
        groups: dict = {}
        for a in members:
            code = expected_code(game, guess, a)
            if code != game.win_code:
                groups.setdefault(code, []).append(a)
        for code, rest in groups.items():
            node.children[code] = build(rest[0], rest)
        return node

    opener = game.index_of(game.default_opener)
    root = build(opener, range(game.n_answers))
    return Tree(game=game.label, key="test", method="practical", opener=game.default_opener, root=root)


def _naive_guesses(game, answer):
    """The same strategy played out directly: guesses until the win."""
    from termo.core.feedback import colours

    key = dict(zip(game.answers, game.probe_win_keys))
    members, guess, turns = list(game.answers), game.default_opener, 0
    while True:
        turns += 1
        if key[guess] == key[answer]:
            return turns
        pattern = colours(guess, answer)
        members = [m for m in members if key[guess] != key[m] and colours(guess, m) == pattern]
        guess = members[0]


def test_stored_tree_lengths_come_first(monkeypatch):
    from termo.games import nerdle
    import termo.trees.store as store

    mini = nerdle.make(mini=True)
    tree = _naive_tree(mini)
    lengths = difficulty.path_lengths(mini, tree)
    assert lengths == {a: _naive_guesses(mini, a) for a in mini.answers}
    hard = _naive_tree(mini)
    hard.hard = True
    monkeypatch.setattr(store, "candidates", lambda g: [hard, tree])
    found = difficulty.stored_tree_lengths(mini)
    assert found is not None and found[0] is tree  # hard-mode trees do not serve the difficulty
    s = difficulty.Scale.build(mini, *found)
    assert s.source.startswith("stored practical tree")
    keys = [(lengths[eq], s.groups[eq], eq) for eq in s.order]
    assert keys == sorted(keys)
    assert s.of(s.order[0])["guesses_on_tree"] == min(lengths.values())
    del tree.root.children[next(iter(tree.root.children))]  # a missing branch: not complete
    assert difficulty.path_lengths(mini, tree) is None
    assert difficulty.stored_tree_lengths(mini) is None
    monkeypatch.setattr(store, "candidates", lambda g: [])
    assert difficulty.Scale.build(mini).source == difficulty.SOURCE_STAND_IN


def test_scale_is_kept_on_disk_and_checked(tmp_path, monkeypatch):
    from termo.games import nerdle
    from termo.puzzles import scale_store
    import termo.trees.store as store

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    mini = nerdle.make(mini=True)
    built = difficulty.load_or_build(mini)
    path = scale_store.path_for(mini)
    assert path.exists() and built.source.startswith(("stored ", "stand-in"))
    key = scale_store.signature(mini)
    again = scale_store.load(mini, key)
    assert again is not None
    assert (again.order, again.groups, again.lengths, again.source, again.opener) == \
           (built.order, built.groups, built.lengths, built.source, built.opener)
    assert scale_store.load(mini, "another key") is None
    data = json.loads(path.read_text())
    data["groups"][0] += 1  # an edit the seal catches
    path.write_text(json.dumps(data))
    assert scale_store.load(mini, key) is None
    rebuilt = difficulty.load_or_build(mini)  # rebuilt and rewritten
    assert rebuilt.order == built.order and scale_store.load(mini, key) is not None
    # a new tree file changes the key
    extra = tmp_path / "shipped"
    extra.mkdir()
    (extra / f"{mini.label}-other.tree").write_text("not a tree")
    monkeypatch.setattr(store, "shipped_dir", lambda: extra)
    assert scale_store.signature(mini) != key


def _reseal_scale(path, edit):
    from termo.core.cache import SEAL_FIELD, seal

    data = json.loads(path.read_text())
    data.pop(SEAL_FIELD)
    edit(data)
    path.write_text(json.dumps(seal(data)))  # a writer's bug: wrong content, right checksum


def _swap_first_and_last(data):
    data["order"][0], data["order"][-1] = data["order"][-1], data["order"][0]


@pytest.mark.parametrize("edit", [
    _swap_first_and_last,  # every value now belongs to another equation, and still sorts
    lambda d: d.update(groups=[g + 1 for g in d["groups"]]),
    lambda d: d.update(groups=[True if g == 1 else g for g in d["groups"]]),
    lambda d: d.update(lengths=[0] * len(d["order"])) if d["lengths"] else d.update(groups=[0] * len(d["order"])),
    lambda d: d.update(lengths=[n + 0.5 for n in d["lengths"]]) if d["lengths"] else d.update(opener="1+2=3"),
], ids=["swapped", "groups+1", "bool", "zero", "fraction"])
def test_a_resealed_inconsistent_scale_is_rebuilt(tmp_path, monkeypatch, edit):
    from termo.games import nerdle
    from termo.puzzles import scale_store

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    mini = nerdle.make(mini=True)
    built = difficulty.load_or_build(mini)
    path, key = scale_store.path_for(mini), scale_store.signature(mini)
    _reseal_scale(path, edit)
    assert scale_store.load(mini, key) is None
    again = difficulty.load_or_build(mini)
    assert (again.order, again.groups, again.lengths) == (built.order, built.groups, built.lengths)


# ----------------------------------------------------------------------------- today, on loopback

DAY = D(2024, 3, 1)
NUMBER = (DAY - D(2022, 1, 20)).days + 1  # 772
GOOD = "12+35=47"


class _Server:
    """A loopback HTTP server (port 0) serving ``pages``: path -> (status, body)."""

    def __init__(self):
        self.pages: dict[str, tuple[int, str]] = {}
        self.hits = 0
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                owner.hits += 1
                if self.path == "/slow":
                    time.sleep(2)
                status, body = owner.pages.get(self.path, (404, "not found"))
                data = body if isinstance(body, bytes) else body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def server():
    s = _Server()
    yield s
    s.close()


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    return tmp_path / "nerdle-today"


def _ask(source, day=DAY, **kw):
    return today.todays_nerdle(day, source, today=D(2026, 12, 1), **kw)


def test_good_page_lines_and_json(server, store, scale):
    server.pages["/lines"] = (200, f"# official answers\n2024-02-29 {NUMBER - 1} 9*8-7=65\n{DAY} {NUMBER} {GOOD}\n")
    r = _ask(server.url + "/lines")
    assert (r["status"], r["equation"], r["number"], r["in_model"], r["from_store"]) == ("verified", GOOD, NUMBER, True, False)
    assert r["difficulty"] == scale.of(GOOD) and r["difficulty"]["candidates_after_opener"] >= 1
    assert (store / f"{DAY}.json").exists()
    server.pages["/json"] = (200, json.dumps({"answers": [{"date": str(DAY), "number": NUMBER, "answer": "12 + 35 = 47"}]}))
    r2 = _ask(server.url + "/json", day=DAY)
    assert r2["status"] == "verified" and r2["from_store"] is True  # stored by date and reused
    (store / f"{DAY}.json").unlink()
    r3 = _ask(server.url + "/json")
    assert (r3["status"], r3["equation"], r3["from_store"]) == ("verified", GOOD, False)


@pytest.mark.parametrize("body, reason", [
    (f"2024-02-29 {NUMBER} {GOOD}", "no answer dated 2024-03-01"),
    (f"{DAY} {NUMBER + 1} {GOOD}", f"puzzle number is {NUMBER + 1}, expected {NUMBER}"),
    (f"{DAY} {NUMBER} 1+35=36", "has 7 symbols, not 8"),
    (f"{DAY} {NUMBER} 12+35=48", "not a true equation"),
    (f"{DAY} {NUMBER} 12+3a=47", "not a true equation"),
    (f"{DAY} {NUMBER} 12+35=47\n{DAY} {NUMBER} 13+34=47", "different answers"),
    ("<html>nothing here</html>", "no dated answers"),
    ("{not json", "no dated answers"),
])
def test_malformed_pages_are_being_verified(server, store, body, reason):
    server.pages["/p"] = (200, body)
    r = _ask(server.url + "/p")
    assert r["status"] == "being verified" and r["equation"] is None and r["difficulty"] is None
    assert reason in r["reason"]
    assert not (store / f"{DAY}.json").exists()


def test_equation_outside_the_model(server, store):
    server.pages["/p"] = (200, f"{DAY} {NUMBER} 10*0+5=5")  # true, 8 symbols, but a lone 0 (rules §12.1)
    r = _ask(server.url + "/p")
    assert (r["status"], r["equation"], r["in_model"], r["difficulty"]) == ("verified", "10*0+5=5", False, None)
    assert "lone 0" in r["model_note"]


def test_missing_page_and_refused_connection(server, store):
    r = _ask(server.url + "/missing")
    assert r["status"] == "being verified" and "HTTP 404" in r["reason"]
    server.pages["/500"] = (500, "oops")
    assert "HTTP 500" in _ask(server.url + "/500")["reason"]
    with socket.socket() as sock:  # a port with nobody listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    r = _ask(f"http://127.0.0.1:{port}/x", timeout=2)
    assert r["status"] == "being verified" and "cannot be reached" in r["reason"]
    assert _ask(None)["status"] == "being verified"
    assert "cannot be read" in _ask(str(store / "no-such-file.txt"))["reason"]


def test_slow_huge_and_binary_sources(server, store):
    server.pages["/slow"] = (200, f"{DAY} {NUMBER} {GOOD}")
    r = _ask(server.url + "/slow", timeout=0.3)  # the page answers late: the source's own timeout says so
    assert r["status"] == "being verified" and "timed out" in r["reason"]
    server.pages["/huge"] = (200, f"{DAY} {NUMBER} {GOOD}\n" + "#" * (today.MAX_BYTES + 10))
    assert "larger than" in _ask(server.url + "/huge")["reason"]
    server.pages["/binary"] = (200, b"\xff\xfe\x00garbage")
    assert "not UTF-8" in _ask(server.url + "/binary")["reason"]


def test_any_text_is_refused_or_validated(game):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    line = st.builds(lambda d, n, e: f"{d} {n} {e}", st.sampled_from([str(DAY), "2024-02-30", "x"]),
                     st.sampled_from([str(NUMBER), "#772", "-1", "seven"]), st.text("0123456789+-*/=x ", max_size=12))

    @hypothesis.settings(max_examples=50, deadline=None, database=None)
    @hypothesis.given(st.one_of(st.text(max_size=200), st.lists(line, max_size=4).map("\n".join)))
    def check(text):
        answer, why = today.validate(today.parse_source(text), DAY, game)
        assert (answer is None) != (why is None)
        if answer is not None:
            assert len(answer["equation"]) == 8 and answer["number"] == NUMBER
            assert today.equations.equation_error(answer["equation"], today.ARITHMETIC) is None
            assert answer["in_model"] == (answer["equation"] in game.answers)

    check()


def test_unverified_is_retried_then_stored(server, store):
    url = server.url + "/p"
    assert _ask(url)["attempts"] == 1  # 404 first
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    hits = server.hits
    held = _ask(url, retry_seconds=3600)  # within the retry window: the source is not asked again
    assert held["status"] == "being verified" and server.hits == hits
    r = _ask(url)  # retried (the CLI: every call)
    assert r["status"] == "verified" and server.hits == hits + 1
    assert not (store / f"{DAY}.pending.json").exists()
    server.pages.clear()
    assert _ask(url)["from_store"] is True and server.hits == hits + 1  # reused, not fetched


def test_damaged_store_is_dropped(server, store, tmp_path, capsys):
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    _ask(server.url + "/p")
    record = store / f"{DAY}.json"
    data = json.loads(record.read_text())
    data["equation"] = "13+34=47"  # an edit the seal catches
    record.write_text(json.dumps(data))
    capsys.readouterr()
    r = _ask(server.url + "/p")
    assert (r["equation"], r["from_store"]) == (GOOD, False)
    err = capsys.readouterr().err  # said once, naming the record and why
    assert len(err.splitlines()) == 1 and str(record) in err and "checksum" in err


def test_local_file_source(tmp_path, store):
    f = tmp_path / "answers.txt"
    f.write_text(f"{DAY} {NUMBER} {GOOD}\n")
    assert _ask(str(f))["status"] == "verified"


def test_today_dates_refused():
    with pytest.raises(TermoError, match="Nerdle #1"):
        today.todays_nerdle(D(2022, 1, 19), "x", today=D(2026, 12, 1))
    with pytest.raises(TermoError, match="after today"):
        today.todays_nerdle(D(2026, 12, 2), "x", today=D(2026, 12, 1))
    assert today.expected_number(today.LAUNCH) == 1


# ----------------------------------------------------------------------------- statistics


def _recompute(year, month, upto, game, scale):
    rows = []
    day = D(year, month, 1)
    while day.month == month and day <= upto:
        eq = archive.equation_on(day, game.answers)
        rows.append((day.isoformat(), eq, scale.percentile(eq), scale.quintile(eq)))
        day += dt.timedelta(days=1)
    hardest = sorted(rows, key=lambda r: (-r[2], r[0]))[0]
    return len(rows), sum(r[2] for r in rows) / len(rows), sum(r[3] for r in rows) / len(rows), hardest


def test_stats_match_a_recomputation(game, scale):
    upto = D(2026, 12, 17)
    s = stats.archive_stats(today=upto)
    assert s["archive_puzzles"] == (upto - D(2000, 1, 1)).days + 1
    for key, (y, m) in (("this_month", (2026, 12)), ("last_month", (2026, 11))):
        count, mean_p, mean_q, hardest = _recompute(y, m, upto, game, scale)
        got = s[key]
        assert got["puzzles"] == count and got["complete"] == (key == "last_month")
        assert got["mean_percentile"] == pytest.approx(mean_p, abs=1e-4)
        assert got["mean_quintile"] == pytest.approx(mean_q, abs=1e-4)
        assert sum(got["quintile_counts"].values()) == count
        assert (got["hardest_day"]["date"], got["hardest_day"]["equation"]) == hardest[:2]
    s2 = stats.archive_stats("2024-02", today=upto)
    assert s2["this_month"]["puzzles"] == 29 and s2["last_month"]["month"] == "2024-01"


def test_stats_edges():
    assert stats.archive_stats("2000-01", today=D(2026, 12, 1))["last_month"] is None
    with pytest.raises(TermoError, match="after today"):
        stats.archive_stats("2027-01", today=D(2026, 12, 1))
    with pytest.raises(TermoError, match="before it"):
        stats.archive_stats("1999-12", today=D(2026, 12, 1))
    for bad in ("2026-13", "2026-1", "26-01", "x"):
        with pytest.raises(TermoError, match="bad month"):
            stats.parse_month(bad)


# ----------------------------------------------------------------------------- CLI


def _cli(capsys, *args):
    from cli.app import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command, metavars", [
    (["archive"], ["DATE", "--json"]),
    (["today"], ["--today-source URL|FILE", "--date D", "TERMO_TODAY_SOURCE"]),
    (["stats"], ["--month YYYY-MM"]),
])
def test_cli_help(capsys, command, metavars):
    import re

    code, out, err = _cli(capsys, "nerdle", *command, "--help")
    assert code == 0, err
    assert "<bool>" not in out and "[[" not in out
    rows = " ".join(re.sub(r"[│╭╰─╮╯*]", " ", out).split())
    for metavar in metavars:
        assert metavar in rows, (metavar, out)


def test_cli_archive(capsys):
    code, out, _ = _cli(capsys, "nerdle", "archive", "2000-01-01", "--json")
    data = json.loads(out)
    assert code == 0 and data == json.loads(json.dumps(archive_puzzle("2000-01-01")))
    assert data["equation"] == PINNED["2000-01-01"] and data["difficulty_source"]
    code, out, _ = _cli(capsys, "nerdle", "archive", "2026-12-01")
    assert code == 0 and "4+4*9=40" in out and "not the official record" in out
    for bad, msg in (("1999-12-31", "starts on 2000-01-01"), ("2001-02-29", "bad date")):
        code, out, err = _cli(capsys, "nerdle", "archive", bad)
        assert code == 2 and out == "" and msg in err and len(err.strip().splitlines()) == 1


def test_cli_today(capsys, server, store):
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    code, out, _ = _cli(capsys, "nerdle", "today", "--today-source", server.url + "/p", "--date", str(DAY), "--json")
    assert code == 0 and json.loads(out)["equation"] == GOOD
    code, out, _ = _cli(capsys, "nerdle", "today", "--today-source", server.url + "/none", "--date", "2024-03-02")
    assert code == 3 and "being verified" in out
    code, out, err = _cli(capsys, "nerdle", "today", "--date", "2022-01-01")
    assert code == 2 and "Nerdle #1" in err


def _full_disk(*args, **kwargs):
    import errno

    raise OSError(errno.ENOSPC, "No space left on device")


def _read_only(*args, **kwargs):
    import errno

    raise OSError(errno.EROFS, "Read-only file system")


@pytest.mark.parametrize("how", ["full", "read-only", "blocked"])
def test_cli_today_prints_the_answer_a_failed_store_write_loses(capsys, server, store, monkeypatch, how):
    """A verified answer is shown even when the store cannot keep it (a full disk, a read-only
    one, a file where the folder should be); stderr says it was not stored, where and why."""
    import termo.core.cache

    if how == "blocked":
        store.parent.mkdir(parents=True, exist_ok=True)
        store.write_text("a file in the way")
    else:
        monkeypatch.setattr(termo.core.cache, "atomic_write_bytes", _full_disk if how == "full" else _read_only)
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    code, out, err = _cli(capsys, "nerdle", "today", "--today-source", server.url + "/p", "--date", str(DAY))
    assert code == 0 and f"Nerdle #{NUMBER} ({DAY}): {GOOD}" in out
    assert "not stored" in err and str(store) in err and "the output" not in err
    assert {"full": "disk is full", "read-only": "read-only", "blocked": "not a folder"}[how] in err
    code, out, err = _cli(capsys, "nerdle", "today", "--today-source", server.url + "/p", "--date", str(DAY), "--json")
    data = json.loads(out)
    assert code == 0 and (data["status"], data["equation"], data["stored"]) == ("verified", GOOD, False)


def test_cli_stats(capsys):
    code, out, _ = _cli(capsys, "nerdle", "stats", "--month", "2024-02", "--json")
    data = json.loads(out)
    assert code == 0 and data["this_month"]["puzzles"] == 29 and data["last_month"]["puzzles"] == 31
    code, _, err = _cli(capsys, "nerdle", "stats", "--month", "2024-13")
    assert code == 2 and "bad month" in err


# ----------------------------------------------------------------------------- web routes


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("fastapi", reason="fastapi is not installed (pip install -e '.[test]')")
    pytest.importorskip("httpx", reason="httpx (the test client's transport) is not installed")
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from web.nerdle_routes import router

    app = FastAPI()
    app.include_router(router)
    return TestClient(app)


def test_routes_archive(client):
    r = client.get("/api/nerdle/archive/2000-01-01")
    assert r.status_code == 200 and r.json() == json.loads(json.dumps(archive_puzzle("2000-01-01")))
    r = client.get("/api/nerdle/archive/1999-12-31")
    assert r.status_code == 422 and "starts on 2000-01-01" in r.json()["detail"]
    page = client.get("/nerdle/archive", params={"date": "2026-12-01"})
    assert page.status_code == 200 and "4+4*9=40" in page.text and "not the official record" in page.text
    assert "<script" not in page.text and "http" not in page.text.split("</head>")[0]
    bad = client.get("/nerdle/archive", params={"date": "<b>x"})
    assert bad.status_code == 422 and "&lt;b&gt;x" in bad.text and "not the official record" in bad.text


def test_routes_today(client, server, store, monkeypatch):
    server.pages["/p"] = (200, f"{DAY} {NUMBER} {GOOD}")
    monkeypatch.setenv("TERMO_TODAY_SOURCE", server.url + "/p")
    r = client.get("/api/nerdle/today", params={"date": str(DAY)})
    assert r.status_code == 200 and r.json()["equation"] == GOOD
    assert GOOD in client.get("/nerdle/today", params={"date": str(DAY)}).text
    monkeypatch.setenv("TERMO_TODAY_SOURCE", server.url + "/down")
    r = client.get("/api/nerdle/today")  # today (UTC) is not on the page
    assert r.status_code == 200 and r.json()["status"] == "being verified"
    assert "being verified" in client.get("/nerdle/today").text
    assert client.get("/api/nerdle/today", params={"date": "2021-01-01"}).status_code == 422


def test_routes_stats(client):
    r = client.get("/api/nerdle/stats", params={"month": "2024-02"})
    assert r.status_code == 200 and r.json()["this_month"]["puzzles"] == 29
    assert client.get("/api/nerdle/stats", params={"month": "nope"}).status_code == 422
    page = client.get("/nerdle/stats", params={"month": "2024-02"})
    assert page.status_code == 200 and "2024-02" in page.text and "not the official record" in page.text


def test_routes_in_the_web_app(client):
    """The server's own app includes the router (when the web app exists)."""
    from fastapi.testclient import TestClient

    try:
        from web.app import create_app
    except ImportError as err:
        pytest.skip(f"the web app is not importable here: {err}")
    app_client = TestClient(create_app())
    r = app_client.get("/api/nerdle/archive/2026-12-01")
    assert r.status_code == 200 and r.json()["equation"] == PINNED["2026-12-01"]
    assert app_client.get("/nerdle/stats").status_code == 200
    assert app_client.get("/api/nerdle/archive/2000-02-30").json()["detail"].startswith("bad date")
