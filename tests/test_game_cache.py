"""The parsed-game cache (termo.games.parsed): a game read from its record is the game parsed
afresh; a stale, damaged or missing record is parsed again and written back; the cache is only
a speed-up (a folder that cannot be written changes nothing)."""

from __future__ import annotations

import dataclasses
import functools
import json
import shutil
from pathlib import Path

import pytest

from termo.core import manifest
from termo.core.cache import seal
from termo.core.errors import TermoError
from termo.games import lexicon, nerdle, parsed, termo_pt, wordle_en, wordle_ru
from termo.games.base import Game

ROOT = Path(__file__).resolve().parent.parent

BUILDERS = {  # the plugins' builders without their memoisation: each call reads the lists again
    "termo": lambda: termo_pt.termo_game.__wrapped__(),
    "termo-extended": lambda: termo_pt.termo_game.__wrapped__(extended=True),
    "wordle": lambda: wordle_en.edition_game.__wrapped__("original"),
    "wordle-nyt": lambda: wordle_en.edition_game.__wrapped__("nyt"),
    "wordle-nyt-2022": lambda: wordle_en.edition_game.__wrapped__("nyt-2022"),
    "wordle-ru": lambda: wordle_ru.wordle_ru_game.__wrapped__(),
    "nerdle": lambda: nerdle.make.__wrapped__(),
    "nerdle-strict": lambda: nerdle.make.__wrapped__(strict=True),
    "nerdle-mini": lambda: nerdle.make.__wrapped__(mini=True),
}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache folder, the cache on."""
    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(parsed.ENV_VAR, raising=False)
    return tmp_path / "cache"


def fresh(name: str, monkeypatch) -> Game:
    """The game parsed afresh (the cache off)."""
    with monkeypatch.context() as m:
        m.setenv(parsed.ENV_VAR, "0")
        return BUILDERS[name]()


def fields_of(game: Game) -> dict:
    """Every compared field of ``game``, a ``functools.partial`` as its function and arguments
    (two builds make two partial objects, which compare by identity)."""
    out = {}
    for f in dataclasses.fields(Game):
        if f.compare:
            value = getattr(game, f.name)
            if isinstance(value, functools.partial):
                value = (value.func, value.args, sorted(value.keywords.items()))
            out[f.name] = value
    return out


def same_game(a: Game, b: Game) -> None:
    assert fields_of(a) == fields_of(b)  # lists, prior scores, rules
    assert a.answers_norm == b.answers_norm and a.probes_norm == b.probes_norm
    assert a.icf == b.icf and all(type(x) is float for x in a.icf)
    assert a._index == b._index


@pytest.mark.parametrize("name", list(BUILDERS))
def test_a_game_read_from_its_record_is_the_game_parsed_afresh(name, cache, monkeypatch):
    want = fresh(name, monkeypatch)
    assert not cache.exists()  # the cache off: nothing read or written
    first = BUILDERS[name]()  # parsed, record written
    variant = {"termo-extended": "termo", "nerdle-strict": "nerdle"}.get(name, name)
    assert parsed.record_path(variant).is_file()
    second = BUILDERS[name]()  # read from the record
    same_game(first, want)
    same_game(second, want)


def test_a_record_is_read_instead_of_parsing(cache, monkeypatch):
    want = {name: BUILDERS[name]() for name in ("termo", "termo-extended")}

    def refuse(*args, **kwargs):
        raise AssertionError("parsed again")

    monkeypatch.setattr(lexicon, "load_word_list", refuse)
    monkeypatch.setattr(lexicon, "load_icf", refuse)
    for name, game in want.items():
        same_game(BUILDERS[name](), game)


def _data_copy(tmp_path, monkeypatch) -> Path:
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("trees"))
    monkeypatch.setenv("TERMO_DATA_DIR", str(data))
    return data


def test_a_stale_record_is_parsed_again_and_replaced(cache, tmp_path, monkeypatch, capsys):
    data = _data_copy(tmp_path, monkeypatch)
    before = BUILDERS["wordle-ru"]()
    key = json.loads(parsed.record_path("wordle-ru").read_text("utf-8"))["key"]
    answers = (data / wordle_ru.ANSWERS_FILE).read_text("utf-8").splitlines()
    dropped = next(w for w in answers if w.strip())
    (data / wordle_ru.ANSWERS_FILE).write_text("\n".join(a for a in answers if a != dropped) + "\n", "utf-8")
    manifest.write([wordle_ru.ANSWERS_FILE], data)  # an intended change, sealed again
    after = BUILDERS["wordle-ru"]()
    assert after.n_answers == before.n_answers - 1 and dropped not in after.answers
    same_game(after, fresh("wordle-ru", monkeypatch))
    assert json.loads(parsed.record_path("wordle-ru").read_text("utf-8"))["key"] != key
    assert capsys.readouterr().err == ""  # stale is not damaged: replaced without a word


def test_a_code_change_makes_the_record_stale(cache, monkeypatch):
    BUILDERS["nerdle-mini"]()
    key = json.loads(parsed.record_path("nerdle-mini").read_text("utf-8"))["key"]
    monkeypatch.setattr(parsed, "FORMAT", parsed.FORMAT + "-next")
    BUILDERS["nerdle-mini"]()
    assert json.loads(parsed.record_path("nerdle-mini").read_text("utf-8"))["key"] != key


def _rewrite(path: Path, edit) -> None:
    record = json.loads(path.read_text("utf-8"))
    edit(record)
    path.write_text(json.dumps(record, ensure_ascii=False), "utf-8")


def _swap_two_words(record):
    words = record["value"]["answers"]
    words[0], words[1] = words[1], words[0]


def _reseal_bad_lengths(record):
    """A sound seal over a value of the wrong shape (one prior score short)."""
    payload = {k: v for k, v in record.items() if k != "sha256"}
    payload["value"]["icf"] = payload["value"]["icf"][:-1]
    record.clear()
    record.update(seal(payload))


@pytest.mark.parametrize("damage", ["edited", "not JSON", "resealed with bad lengths", "empty"])
def test_a_damaged_record_is_reported_parsed_again_and_rewritten(damage, cache, monkeypatch, capsys):
    want = BUILDERS["wordle"]()
    path = parsed.record_path("wordle")
    if damage == "edited":
        _rewrite(path, _swap_two_words)  # still JSON, still the key: the checksum says no
    elif damage == "not JSON":
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    elif damage == "resealed with bad lengths":
        _rewrite(path, _reseal_bad_lengths)
    else:
        path.write_bytes(b"")
    capsys.readouterr()
    same_game(BUILDERS["wordle"](), want)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "parsed game lists: ignoring" in err and "parsed again" in err
    same_game(BUILDERS["wordle"](), want)  # rewritten sound: read back without a word
    assert capsys.readouterr().err == ""


def test_a_missing_record_is_parsed_and_written(cache, monkeypatch, capsys):
    want = BUILDERS["nerdle-mini"]()
    parsed.record_path("nerdle-mini").unlink()
    same_game(BUILDERS["nerdle-mini"](), want)
    assert parsed.record_path("nerdle-mini").is_file() and capsys.readouterr().err == ""


def test_a_cache_folder_that_cannot_be_written_only_costs_the_speed_up(tmp_path, monkeypatch, capsys):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("TERMO_CACHE_DIR", str(blocked))
    monkeypatch.delenv(parsed.ENV_VAR, raising=False)
    same_game(BUILDERS["nerdle-mini"](), fresh("nerdle-mini", monkeypatch))
    assert capsys.readouterr().err == ""


def test_a_damaged_word_list_is_still_refused(cache, tmp_path, monkeypatch):
    data = _data_copy(tmp_path, monkeypatch)
    BUILDERS["termo"]()  # a sound record of the sound lists
    lines = (data / lexicon.LEXICON_FILE).read_text("utf-8").splitlines()
    (data / lexicon.LEXICON_FILE).write_text("\n".join(lines + [lines[0]]) + "\n", "utf-8")
    with pytest.raises(TermoError, match="is damaged"):  # not the shipped bytes (termo.core.manifest)
        BUILDERS["termo"]()
    manifest.write([lexicon.LEXICON_FILE], data)  # sealed as intended: the list's own checks refuse it
    with pytest.raises(TermoError, match="duplicates line 1"):
        BUILDERS["termo"]()


def test_normal_forms_given_to_a_game_must_match_its_lists():
    game = termo_pt.termo_game()
    kwargs = {f.name: getattr(game, f.name) for f in dataclasses.fields(Game) if f.init}
    rebuilt = Game(**kwargs, normal_forms=(game.answers_norm, game.probes_norm))
    same_game(rebuilt, game)
    with pytest.raises(TermoError, match="normal forms"):
        Game(**kwargs, normal_forms=(game.answers_norm[:-1], game.probes_norm))
    other = dataclasses.replace(rebuilt, answers=game.answers[:10], probes=game.answers[:10], icf=game.icf[:10])
    assert other.probes_norm == game.probes_norm[:10]  # replace computes them again
