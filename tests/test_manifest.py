"""The shipped data sealed by its manifest (``data/SHA256SUMS``, `termo.core.manifest`): the
committed manifest lists every file of ``data/`` with its digest; a byte flipped in any shipped
word list (in a copy of the data folder, through ``$TERMO_DATA_DIR``) stops the command with
exit 2 and one line naming the file, whether the parsed lists were cached before or not, never a
silently different game; an intended change is sealed again with ``--write``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import faults
from termo.core import manifest
from termo.core.errors import TermoError

ROOT = Path(__file__).resolve().parents[1]
# the command that reads each shipped word list: `termo games` builds every game (its lists, and
# Termo's ICF scores); `termo lexicon` rebuilds Termo's lists from the raw fserb/pt-br sources
GAMES, LEXICON = ["games"], ["lexicon"]
READERS = {name: GAMES for name in (
    "lexicon.txt", "probes_extra.txt", "icf.csv", "nerdle_classic.txt", "nerdle_mini.txt",
    "wordle_en_answers.txt", "wordle_en_allowed.txt", "wordle_nyt_answers_20230701.txt",
    "wordle_nyt_answers_20220830.txt", "wordle_nyt_allowed_20220830.txt", "wordle_ru_answers.txt",
    "wordle_ru_allowed.txt", "absurdle_answers.txt", "absurdle_allowed.txt")} | {
    "fserb_lexico.txt": LEXICON, "fserb_conjugacoes.txt": LEXICON}
NOT_LISTS = {"LICENSE.destermo", "LICENSE.fserb-pt-br", "SOURCES.wordle.txt", "SOURCES.absurdle.txt",
             "openers.json"}  # and trees/


def test_the_committed_manifest_matches_the_data_folder():
    assert manifest.differences(ROOT / "data") == [], "after an intended change: python -m termo.core.manifest --write FILE"
    listed = manifest.listed(ROOT / "data")
    assert "wordle_en_answers.txt" in listed and "trees/nerdle-exact.tree.gz" in listed and "openers.json" in listed


def test_every_word_list_has_a_reader_here():
    """A new shipped list must be added to READERS (so its damage is tested)."""
    lists = {name for name in manifest.listed(ROOT / "data") if not name.startswith("trees/")} - NOT_LISTS
    assert lists == set(READERS)


@pytest.fixture(scope="module")
def copied(tmp_path_factory):
    """A copy of the data folder and a cache folder whose parsed lists were made from it (the
    realistic case: a file rots after the first runs)."""
    root = tmp_path_factory.mktemp("sealed")
    data, cache = root / "data", root / "cache"
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("__pycache__", "trees"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERMO_DATA_DIR=str(data), TERMO_CACHE_DIR=str(cache))
    env.pop("TERMO_GAME", None)
    for args in (GAMES, LEXICON):
        done = _termo(args, env)
        assert done.returncode == 0, done.stderr
    return data, env


def _termo(args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_flipped_byte_in_a_word_list_stops_with_its_name(copied, name):
    data, env = copied
    path = data / name
    good = path.read_bytes()
    offset = len(good) // 2  # the middle of the list: a letter of a word
    try:
        faults.flip_byte(path, offset)
        done = _termo(READERS[name], env)  # its parsed lists were cached from the sound file
        lines = done.stderr.splitlines()
        assert done.returncode == 2 and done.stdout == "" and len(lines) == 1, done
        assert lines[0].startswith("termo: error: ") and str(path) in lines[0] and "damaged" in lines[0]
    finally:
        path.write_bytes(good)


def test_the_parse_checks_what_it_reads(tmp_path, monkeypatch):
    """Every parser of a shipped list (run when the parsed lists are not cached) checks what it
    read against the manifest; a file outside the data folder is not checked."""
    from termo.games import equations, lexicon, nerdle, words

    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("__pycache__", "trees"))
    monkeypatch.setenv("TERMO_DATA_DIR", str(data))
    reads = {"wordle_ru_answers.txt": lambda: words.read_words(data / "wordle_ru_answers.txt"),
             "nerdle_mini.txt": lambda: nerdle.read_equations("nerdle_mini.txt", equations.MINI),
             "lexicon.txt": lambda: lexicon.load_word_list(data / "lexicon.txt"),
             "icf.csv": lambda: lexicon.load_icf(data / "icf.csv"),
             "fserb_lexico.txt": lambda: lexicon.rebuild()}
    for name, read in reads.items():
        assert read()
        faults.flip_byte(data / name, 100)
        with pytest.raises(TermoError, match="is damaged"):
            read()
        faults.flip_byte(data / name, 100)
    elsewhere = tmp_path / "mine.txt"
    elsewhere.write_text("abcde\n", "utf-8")
    assert words.read_words(elsewhere) == ["abcde"]
    (data / "extra.txt").write_text("abcde\n", "utf-8")
    with pytest.raises(TermoError, match="not a shipped data file"):
        words.read_words(data / "extra.txt")


def _manifest(args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "termo.core.manifest", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_an_intended_change_is_sealed_again(tmp_path):
    """``python -m termo.core.manifest`` names what differs (exit 1); ``--write FILE`` seals that
    file again, leaving the other entries as they were; the game then plays the new list."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERMO_DATA_DIR=str(data), TERMO_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TERMO_GAME", None)
    assert _manifest([], env).returncode == 0
    answers = data / "wordle_ru_answers.txt"
    words = answers.read_text("utf-8").split()
    answers.write_text("\n".join(words[1:]) + "\n", "utf-8")  # one answer dropped, on purpose
    faults.flip_byte(data / "wordle_en_answers.txt", 200)  # and one list damaged
    check = _manifest([], env)
    assert check.returncode == 1
    assert "wordle_ru_answers.txt: changed" in check.stdout and "wordle_en_answers.txt: changed" in check.stdout
    assert _termo(["lexicon", "--game", "wordle-ru"], env).returncode == 2
    assert _manifest(["--write", str(answers)], env).returncode == 0
    check = _manifest([], env)
    assert check.returncode == 1 and "wordle_ru_answers.txt" not in check.stdout  # the damaged one is still named
    done = _termo(["lexicon", "--game", "wordle-ru", "--json"], env)
    assert done.returncode == 0 and json.loads(done.stdout)["answers"] == len(words) - 1
