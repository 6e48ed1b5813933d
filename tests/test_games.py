"""The games registry and the letter games' rules (normalisation, validation, lists, CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from termo.core.errors import TermoError
from termo.core.feedback import colours
from termo.games import GAME_NAMES, get_game, resolve_name
from termo.engine.session import Session


def run_cli(*args, env=None):
    return subprocess.run(["termo", *args],
                          capture_output=True, text=True, env=env, timeout=600)


def test_registry_names_and_default(monkeypatch):
    assert GAME_NAMES == ("termo", "nerdle", "nerdle-mini", "wordle", "wordle-ru", "wordle-nyt", "wordle-nyt-2022",
                          "absurdle", "fibble", "fibble-termo")
    monkeypatch.delenv("TERMO_GAME", raising=False)
    assert resolve_name(None) == "termo"
    monkeypatch.setenv("TERMO_GAME", "wordle")
    assert resolve_name(None) == "wordle"
    assert resolve_name("Wordle_RU") == "wordle-ru"
    with pytest.raises(TermoError, match="unknown game 'chess'; choose one of: termo, nerdle"):
        resolve_name("chess")


def test_termo_is_unchanged():
    g = get_game("termo")
    assert (g.n_answers, g.n_probes, g.n_patterns, g.win_code, g.code_dtype) == (6046, 6046, 243, 242, "uint8")
    assert g.default_opener == "tarso" and g.language == "pt" and g.max_turns == 6
    assert get_game("termo", extended=True).n_probes == 8629
    assert g.index_of("SAÚDE") == g.index_of("saude")


def test_english_wordle_lists_and_rules():
    g = get_game("wordle")
    assert (g.n_answers, g.n_probes) == (2315, 12972)
    assert g.probes[: g.n_answers] == g.answers and g.uniform_prior and set(g.icf) == {0.0}
    assert g.default_opener == "salet" and g.index_of("SALET") is not None
    s = Session(g)
    with pytest.raises(TermoError, match="letters only"):
        s.check_guess("sal3t")
    with pytest.raises(TermoError, match="not a symbol"):
        s.check_guess("salét")  # English has no accents to fold
    assert s.check_guess("zzzzz").warnings  # a word outside the lists is accepted with a warning


def test_russian_wordle_folds_only_yo():
    g = get_game("wordle-ru")
    assert g.n_answers == 725
    assert g.n_probes == 6241  # 6,372 allowed spellings, 131 of them fold onto another
    assert g.normalize("ЁЖИК") == "ежик"
    assert g.normalize("йогурт") == "йогурт"  # й keeps its breve: a letter of its own
    assert "й" in g.symbols and "ё" not in g.symbols
    i = g.index_of("бабьё")  # both spellings are allowed (neither an answer): one probe, shown with ё
    assert i is not None and g.index_of("бабье") == i and g.probes[i] == "бабьё"
    assert g.probes[g.index_of("бельё")] == "белье"  # an answer keeps the answer list's spelling
    assert colours(g.normalize("актёр"), g.normalize("актер")) == "GGGGG"


def test_game_summary_keys():
    row = get_game("wordle").summary()
    assert {"name", "answers", "probes"} <= set(row)
    assert (row["name"], row["answers"], row["probes"]) == ("wordle", 2315, 12972)


def test_suggest_works_in_each_letter_game(tmp_path):
    from termo.interface.suggest import suggest

    data = suggest(get_game("wordle"), ["salet:BBYBB"], level=2)
    assert data["candidates"] > 0 and data["word"]
    ru = suggest(get_game("wordle-ru"), [], level=2)
    assert ru["candidates"] == 725


def test_cli_game_option_and_env():
    out = run_cli("suggest", "--game", "wordle", "salet:BBYBB", "--level", "2", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["candidates"] == 99
    env = dict(os.environ, TERMO_GAME="wordle")
    again = run_cli("suggest", "salet:BBYBB", "--level", "2", "--json", env=env)
    assert json.loads(again.stdout) == json.loads(out.stdout)
    bad = run_cli("suggest", "--game", "chess")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "unknown game" in bad.stderr


def test_termo_studies_refuse_other_games():
    out = run_cli("bench", "areio", "--game", "wordle")
    assert out.returncode == 2 and "does not apply to wordle" in out.stderr


def test_matrix_cache_is_keyed_by_game(tmp_path, monkeypatch):
    from termo.engine.matrix import cache_paths

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    names = {cache_paths(get_game(n))[0].name for n in ("termo", "wordle", "wordle-ru")}
    assert len(names) == 3 and all(n.startswith(("matrix-termo-", "matrix-wordle-")) for n in names)


def test_each_letter_game_matrix_matches_the_scalar_rule(backend):
    """Cross-backend: a small slice of each letter game's matrix equals the two-pass rule."""
    import dataclasses

    from termo.core.feedback import encode
    from termo.games.base import Game
    from termo.engine.matrix import build_matrix

    for name in ("wordle", "wordle-ru"):
        full = get_game(name)
        small = dataclasses.replace(full, name=f"{name}-small", answers=full.answers[:40],
                                    probes=full.answers[:40] + full.probes[full.n_answers: full.n_answers + 25],
                                    icf=full.icf[:40])
        assert isinstance(small, Game)
        got = backend.to_numpy(build_matrix(small, backend))
        for p, g in enumerate(small.probes_norm):
            for a, w in enumerate(small.answers_norm):
                assert int(got[p, a]) == encode(colours(g, w))


def test_piped_play_of_a_whole_nerdle_game():
    """`termo play --game nerdle` with piped input: the suggested equation is played each turn and
    the colours come from a fixed secret, until the game is won."""
    from termo.games.nerdle import make

    game = make()
    secret = "12+35=47"
    lines, guess = [], game.default_opener
    for _ in range(6):
        pattern = colours(game.normalize(guess), secret)
        lines.append(f"{guess} {pattern}")
        if pattern == game.win_pattern:
            break
        out = run_cli("suggest", "--game", "nerdle", *[ln.replace(" ", ":") for ln in lines],
                      "--level", "2", "--json")
        assert out.returncode == 0, out.stderr
        guess = json.loads(out.stdout)["word"]
    assert lines[-1].endswith(game.win_pattern)
    proc = subprocess.run(["termo", "play", "--game", "nerdle", "--level", "2"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "solved in" in proc.stdout and secret in proc.stdout


def test_a_commutative_rearrangement_wins_and_strict_does_not():
    from termo.games.nerdle import make

    game, strict = make(), make(strict=True)
    a, b = game.index_of("12+35=47"), game.index_of("35+12=47")
    assert game.wins(b, a) and not strict.wins(b, a)
    out = run_cli("feedback", "35+12=47", "12+35=47", "--game", "nerdle", "--json")
    assert json.loads(out.stdout)["pattern"] == "GGGGGGGG"
    out = run_cli("feedback", "35+12=47", "12+35=47", "--game", "nerdle", "--strict", "--json")
    assert json.loads(out.stdout)["pattern"] != "GGGGGGGG"
    s = Session(game)
    with pytest.raises(TermoError, match="not a valid guess"):
        s.check_guess("12+35=48")  # false: the real game accepts only true equations


@pytest.mark.parametrize("name", ["nerdle-mini", "wordle-ru"])
def test_decisions_agree_on_every_backend(name, other_backend):
    """Cross-backend equivalence on a small game of each kind (equations; letters in Cyrillic)."""
    import dataclasses

    from termo.engine.solver import Solver

    full = get_game(name)
    small = full if full.n_answers < 300 else dataclasses.replace(
        full, name=f"{name}-small", answers=full.answers[::7], probes=full.answers[::7], icf=full.icf[::7])
    cands = list(range(0, small.n_answers, 2))
    for level in (2, 3):
        ref = Solver(small, level=level, backend="numpy").decide(cands, 2)
        got = Solver(small, level=level, backend=other_backend).decide(cands, 2)
        assert (got.index, [a.index for a in got.alternatives]) == (ref.index, [a.index for a in ref.alternatives])
        assert got.choice.expected == ref.choice.expected
        assert abs(got.choice.bits - ref.choice.bits) <= 1e-12
