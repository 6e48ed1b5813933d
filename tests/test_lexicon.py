"""Lexicon rebuild from the raw sources (docs/rules.md §2) and the game model."""

import math

import pytest

from termo.games import lexicon
from termo.core.errors import TermoError
from termo.games import Game
from termo.games.termo_pt import termo_game
from termo.games.termo_pt import termo_like


@pytest.fixture(scope="module")
def build():
    return lexicon.rebuild()


def test_counts(build):
    assert build.counts() == {
        "five_letter_words": 6301,
        "groups": 6046,
        "colliding_groups": 242,
        "colliding_words": 497,
        "cedilla_before_dedupe": 172,
        "cedilla_after_dedupe": 140,
        "answers": 6046,
        "probes_extended": 8629,
    }


def test_rebuild_reproduces_the_shipped_lists(build, game, extended_game):
    assert build.answers == game.answers
    # Extra probes: same words; a few display accents differ because the full ICF table is not offline.
    assert [game.normalize(w) for w in build.extra_probes] == list(extended_game.probes_norm[6046:])


def test_chosen_variants(game):
    for word in ("terço", "agora", "pique", "manto", "festa", "abafa"):
        assert word in game.answers
    for word in ("fugia", "curas", "zarpa", "andei", "amava"):
        assert game.index_of(word) is None


def test_game_invariants(game, extended_game):
    assert game.n_answers == game.n_probes == 6046
    assert extended_game.n_probes == 8629
    assert extended_game.probes[:6046] == game.answers
    assert list(game.answers_norm) == sorted(game.answers_norm)
    assert extended_game.index_of("areio") == 6046 + 212
    assert game.index_of("TERCO") == game.answers.index("terço")
    assert game.win_code == 242 and game.code_dtype == "uint8"
    assert math.isclose(min(game.icf), 6.1445, abs_tol=1e-4)
    assert game.answers[game.icf.index(min(game.icf))] == "muito"


def test_cedilla_kept_as_a_letter_regroups():
    plain = termo_game(fold_cedilla=False)
    assert plain.n_answers > 6046
    assert plain.index_of("acude") != plain.index_of("açude")


def test_game_rejects_bad_lists():
    with pytest.raises(TermoError, match="start with the answer list"):
        Game("x", 5, ("abcde",), ("fghij",), (1.0,))
    with pytest.raises(TermoError, match="twice"):
        termo_like("x", ("abcde", "ábcde"), ("abcde", "ábcde"), (1.0, 2.0))


def test_loader_rejects_stale_lists(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("saude\nsaúde\n", encoding="utf-8")
    with pytest.raises(TermoError, match="duplicates line 1"):
        lexicon.load_word_list(path)
    path.write_text("sa1de\n", encoding="utf-8")
    with pytest.raises(TermoError, match="not a five-letter word"):
        lexicon.load_word_list(path)
