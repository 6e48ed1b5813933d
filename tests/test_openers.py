"""Openers (docs/rules.md §5.4, §6.5): the shipped level-3 opener, the cache key, the interface opener."""

from __future__ import annotations

import json
import math

import pytest

from termo.book import openers
from termo.engine.solver import Solver

ROOT_COSTS = {  # docs/rules.md §6.5, bit-exact
    "tosar": 3.0094161966572304,
    "tarso": 3.022208535943559,
    "sertã": 3.024888771632564,
    "terso": 3.036787964751521,
    "tória": 3.0373401825701434,
    "tirão": 3.0464990552442366,
    "tério": 3.055050999866231,
    "toira": 3.0625468664161173,
    "teiró": 3.0715944120372667,
    "teira": 3.073614162630532,
    "muito": 3.2079572191389834,
}


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    return tmp_path


def check_opener_entry(costs, decision):
    assert dict(costs) == ROOT_COSTS
    assert [w for w, _ in costs][:6] == ["tosar", "tarso", "sertã", "terso", "tória", "tirão"]
    assert decision.word == "tosar"
    assert decision.choice.expected == 3.0094161966572304
    assert [(a.word, a.expected) for a in decision.alternatives] == [
        (w, ROOT_COSTS[w]) for w in ("tarso", "sertã", "terso", "tória", "tirão")
    ]


def test_shipped_opener_is_current_and_published(game, fresh_cache):
    """data/openers.json holds the default configuration under the current search signature
    (regenerate it with ``python -m termo.book.openers`` after changing the search code)."""
    solver = Solver(game, level=3)
    entry = openers.lookup(solver)
    assert entry is not None, "data/openers.json is stale: run `python -m termo.book.openers`"
    check_opener_entry(entry["costs"], openers._decision_from_entry(game, entry))
    calls = []
    d = openers.opener(solver, optimal=True, progress=lambda done, total: calls.append((done, total)))
    assert d.word == "tosar" and calls == [(1, 1)]


def test_interface_opener_level3_is_tarso_with_its_cached_value(game, fresh_cache):
    d = openers.opener(Solver(game, level=3))
    assert d.word == "tarso"
    assert d.choice.expected == 3.022208535943559
    assert d.choice.bits == 5.9748166899580495
    assert d.alternatives[0].word == "tosar"
    assert "tarso" not in [a.word for a in d.alternatives]


def test_cache_key_holds_the_configuration(game):
    keys = {
        openers.cache_key(Solver(game, level=3)),
        openers.cache_key(Solver(game, level=3, t=math.inf)),
        openers.cache_key(Solver(game, level=3, beam=5)),
        openers.cache_key(Solver(game, level=3, depth=2)),
        openers.cache_key(Solver(game, level=3, prior=Solver(game, level=3, t=2.0).prior)),
    }
    assert len(keys) == 5
    key = openers.cache_key(Solver(game, level=3))
    for part in ("T=1.0", "K=10", "P=1", "D=7.0", "R=6", "S=6046", "A=6046", f"B={openers.search_signature()}"):
        assert part in key


def test_user_cache_first_and_corrupt_files_ignored(game, fresh_cache):
    solver = Solver(game, level=3)
    path = openers.entry_path(solver)  # one file per configuration in the user cache folder
    assert path.parent == openers.user_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json", encoding="utf-8")
    assert openers.lookup(solver) is not None  # falls back to the shipped file
    entry = dict(openers.lookup(solver), word="tarso", expected=1.0)
    assert openers.store(solver, entry)
    assert openers.lookup(solver)["word"] == "tarso"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["key"] == openers.cache_key(solver) and data["value"] == entry and "sha256" in data


def test_signature_ignores_comments_and_docstrings(tmp_path):
    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text('"""doc"""\ndef f(x):\n    """more doc"""\n    return x + 1  # note\n', encoding="utf-8")
    b.write_text("def f(x):\n\n    return x + 1\n", encoding="utf-8")
    assert openers._code_tokens(a) == openers._code_tokens(b)
    b.write_text("def f(x):\n    return x + 2\n", encoding="utf-8")
    assert openers._code_tokens(a) != openers._code_tokens(b)


def test_level2_optimal_opener_and_level1(game):
    assert openers.opener(Solver(game, level=2), optimal=True).word == "tarso"
    assert openers.opener(Solver(game, level=1), optimal=True).word == "oreia"
    assert openers.opener(Solver(game, level=1)).word == "tarso"


@pytest.mark.slow
def test_level3_opener_recomputed_without_any_cache(game, fresh_cache, monkeypatch):
    monkeypatch.setattr(openers, "shipped_path", lambda: fresh_cache / "no-shipped.json")
    solver = Solver(game, level=3)
    assert openers.lookup(solver) is None
    calls = []
    decision, costs, _ = openers.search_level3(solver, progress=lambda d, t: calls.append((d, t)))
    check_opener_entry(costs, decision)
    assert calls and calls[-1][0] == calls[-1][1]
    again = openers.opener(solver, optimal=True, recompute=True)
    assert again.word == "tosar" and openers.lookup(solver)["expected"] == 3.0094161966572304


def test_level3_decision_on_every_answer_is_the_cached_opener(game, fresh_cache):
    d = openers.decide(Solver(game, level=3), range(game.n_answers), 1)
    assert (d.word, d.choice.expected) == ("tosar", 3.0094161966572304)
