"""Nerdle puzzles (docs/puzzles.md): the dated archive, difficulty and the monthly statistics.
Today's official answer, the CLI and the web routes: tests/test_puzzles_today.py."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from collections import Counter

import pytest

from termo.core.errors import TermoError
from termo.puzzles import archive, difficulty, stats

from puzzle_fixtures import D, PINNED, game, scale  # noqa: F401 (fixtures)


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
