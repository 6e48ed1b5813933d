"""The first move of several boards, kept (`termo.book.boards`): the cached decision is the
solver's own, byte for byte in its JSON; a damaged entry is reported and computed again; later
turns are the solver's."""

from __future__ import annotations

import json

import pytest

from termo.book.boards import STORE_NAME, BoardsBook, cache_key
from termo.engine.multi.boards import BoardsState
from termo.engine.multi.factory import multi_solver
from termo.games import get_mode


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    return tmp_path / STORE_NAME


@pytest.mark.parametrize("level,objective", [(2, "finish"), (3, "score")])
def test_the_kept_first_move_is_the_solver_s(cache, level, objective):
    mode = get_mode("dueto")
    solver = multi_solver(mode, level=level, objective=objective)
    start = BoardsState.start(mode)
    fresh = solver.decide(start)
    book = BoardsBook(solver)
    first = book.decide(start)  # computed and stored
    assert len(list(cache.glob("*"))) == 1
    again = BoardsBook(multi_solver(mode, level=level, objective=objective)).decide(start)  # read back
    for decision in (first, again):
        assert json.dumps(decision.as_dict()) == json.dumps(fresh.as_dict())
        assert decision.reason.code == fresh.reason.code and decision.reason.params == fresh.reason.params


def test_a_damaged_entry_is_recomputed_and_later_turns_are_the_solver_s(cache, capsys):
    mode = get_mode("dueto")
    solver = multi_solver(mode, level=2)
    start = BoardsState.start(mode)
    book = BoardsBook(solver)
    expected = book.decide(start).as_dict()
    (path,) = cache.glob("*")
    path.write_text(path.read_text().replace('"choice": [', '"choice": [999999, ', 1))
    assert BoardsBook(multi_solver(mode, level=2)).decide(start).as_dict() == expected
    assert "ignoring" in capsys.readouterr().err
    later = start.apply("tarso", ["BBBBB", "BYBBB"])
    assert book.decide(later).as_dict() == solver.decide(later).as_dict()


def test_the_key_names_the_configuration():
    a = cache_key(multi_solver(get_mode("dueto"), level=2))
    b = cache_key(multi_solver(get_mode("dueto"), level=3))
    c = cache_key(multi_solver(get_mode("quarteto"), level=2))
    assert len({a, b, c}) == 3 and "mode=dueto" in a and "level=3" in b
