"""Partition metrics, rankings and the second-guess study (termo.engine.partition, termo.analysis.second_guess,
cli/partition_commands.py).

Oracles: every vectorised count is checked against a plain-Python reference built from
``termo.core.feedback.colours`` over small games; the bits against the engine's own ``Sweeper``; the
rankings against plain ``sorted`` over the stated tie-break chains.
"""

from __future__ import annotations

import importlib.util
import json
import math
from collections import Counter

import pytest

from termo.core.errors import TermoError
from termo.core.feedback import colours, encode
from termo.engine.partition import (
    CRITERIA,
    State,
    guess_metrics,
    make_state,
    partition_stats,
    rank_probes,
    ranking,
    sweeper_for,
)

ROUND = 1e-9


def _have(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


# ------------------------------------------------------------------ small games and the reference


@pytest.fixture(scope="module")
def small(game):
    """40 answers and 25 extra probes of Termo's lists (every 97th word), with their ICF scores."""
    from termo.games.termo_pt import termo_like

    answers = game.answers[::151][:40]
    extras = tuple(w for w in game.answers[7::97] if w not in answers)[:25]
    icf = [game.icf[game.answers.index(w)] for w in answers]
    return termo_like("small-partition", answers, answers + extras, icf)


def reference(game, candidates, t, probe_words=None):
    """Plain Python: per probe word, groups / largest / Σn² / Σ P_b n_b / bits / wins over ``candidates``."""
    if math.isinf(t):
        raw = [1.0 for _ in candidates]
    else:
        raw = [math.exp(-game.icf[c] / t) for c in candidates]
    total = sum(raw)
    weight = {c: r / total for c, r in zip(candidates, raw)}
    out = {}
    words = probe_words if probe_words is not None else game.probes_norm
    win = "G" * game.word_length
    for word in words:
        p = game.index_of(word)  # a listed probe may win under a non-exact rule too
        pats = {c: win if p is not None and game.wins(p, c) else colours(word, game.answers_norm[c])
                for c in candidates}
        counts = Counter(pats.values())
        mass = Counter()
        for c, p in pats.items():
            mass[p] += weight[c]
        # every answer the guess wins is solved: a group of one each (a non-exact rule may put
        # several answers in the all-green group)
        size = {p: (1 if p == win else counts[p]) for p in counts}
        out[word] = {
            "groups": len(counts),
            "largest": max(size.values()),
            "sum_sq": sum(size[p] * counts[p] for p in counts),
            "weighted": sum(mass[p] * size[p] for p in counts),
            "bits": -sum(m * math.log2(m) for m in mass.values() if m > 0),
            "wins": win in counts,
        }
    return out


def _history_for(game, guess: str, secret_index: int) -> str:
    return f"{guess}:{colours(game.normalize(guess), game.answers_norm[secret_index])}"


@pytest.mark.parametrize("t", [1.0, 0.5, math.inf])
@pytest.mark.parametrize("with_history", [False, True])
def test_stats_match_plain_python(small, t, with_history):
    history = [_history_for(small, small.probes[-1], 3)] if with_history else []
    state = make_state(small, history, t)
    cands = state.candidates.tolist()
    ref = reference(small, cands, t)
    stats = partition_stats(state)
    sweeper = sweeper_for(state)
    for p, word in enumerate(small.probes_norm):
        r = ref[word]
        assert int(stats.groups[p]) == r["groups"]
        assert int(stats.largest[p]) == r["largest"]
        assert int(stats.sum_sq[p]) == r["sum_sq"]
        assert bool(stats.wins[p]) == r["wins"]
        assert float(stats.weighted[p]) == pytest.approx(r["weighted"], rel=1e-12, abs=1e-12)
        # can be the answer == still a candidate (exact win rule)
        assert r["wins"] == (p in cands)
        metrics, warnings = guess_metrics(state, small.probes[p])
        assert warnings == ()
        assert metrics["groups"] == r["groups"] and metrics["largest_group"] == r["largest"]
        assert metrics["expected_remaining"] == r["sum_sq"] / len(cands)
        assert metrics["bits"] == pytest.approx(r["bits"], abs=1e-12)
        # the engine's own convention, bit for bit
        assert metrics["bits"] == (sweeper.entropy_of(p, cands) if len(cands) > 1 else 0.0)
        assert metrics["can_be_answer"] == r["wins"]
        assert metrics["wins"] == int(r["wins"])  # the exact rule: at most one
        assert metrics["expected_unsolved"] == (r["sum_sq"] - int(r["wins"])) / len(cands)
        assert metrics["candidates"] == len(cands)
        assert metrics["worst_case_bits_left"] == math.log2(r["largest"])


def test_non_exact_win_rule_comes_from_the_matrix(small):
    """A game whose win rule groups probes: an extra probe equivalent to answer 2 can be the answer,
    and answers 0 and 1 win against each other (one group for both)."""
    import dataclasses

    keys = list(range(small.n_probes))
    keys[1] = keys[0]
    extra = small.n_probes - 1
    keys[extra] = keys[2]
    g = dataclasses.replace(small, name="small-commutative", win_rule="test-equivalence", win_keys=tuple(keys))
    state = make_state(g, [], math.inf)
    ref = reference(g, state.candidates.tolist(), math.inf)
    stats = partition_stats(state)
    for p, word in enumerate(g.probes_norm):
        r = ref[word]
        assert (int(stats.groups[p]), int(stats.largest[p]), int(stats.sum_sq[p]), bool(stats.wins[p])) == (
            r["groups"], r["largest"], r["sum_sq"], r["wins"])
    assert bool(stats.wins[extra]) and not reference(small, state.candidates.tolist(), math.inf)[
        small.probes_norm[extra]]["wins"]
    metrics, _ = guess_metrics(state, g.probes[extra])
    assert metrics["can_be_answer"] is True


def test_blocks_and_subsets_give_the_same_counts(small):
    state = make_state(small, [], 1.0)
    whole = partition_stats(state)
    tiny = partition_stats(state, cells=1)  # one probe per block
    some = [5, 0, 44, 17]
    subset = partition_stats(state, probes=some)
    for key in ("groups", "largest", "sum_sq", "wins"):
        assert getattr(tiny, key).tolist() == getattr(whole, key).tolist()
        assert getattr(subset, key).tolist() == [getattr(whole, key)[p] for p in some]
    assert tiny.weighted.tolist() == whole.weighted.tolist()


def test_uniform_weighted_equals_expected_remaining(small):
    state = make_state(small, [], math.inf)
    stats = partition_stats(state)
    assert stats.weighted.tolist() == (stats.sum_sq / state.n).tolist()


def test_backends_agree(small, other_backend):
    state = make_state(small, [_history_for(small, small.probes[-2], 11)], 1.0)
    ref = partition_stats(state, backend="numpy")
    got = partition_stats(state, backend=other_backend)
    for key in ("groups", "largest", "sum_sq", "wins"):
        assert getattr(got, key).tolist() == getattr(ref, key).tolist()
    assert got.weighted.tolist() == pytest.approx(ref.weighted.tolist(), rel=1e-12, abs=1e-12)


def test_guess_outside_the_probe_list(small):
    state = make_state(small, [], 1.0)
    word = "zuzuz"
    assert small.index_of(word) is None
    metrics, warnings = guess_metrics(state, word)
    r = reference(small, state.candidates.tolist(), 1.0, [word])[word]
    assert metrics["probe"] is None and metrics["in_probe_list"] is False
    assert len(warnings) == 1 and "not in the word list" in warnings[0]
    assert (metrics["groups"], metrics["largest_group"]) == (r["groups"], r["largest"])
    assert metrics["bits"] == pytest.approx(r["bits"], abs=1e-12)
    assert metrics["can_be_answer"] is False
    with pytest.raises(TermoError):
        guess_metrics(state, "zz1zz")
    with pytest.raises(TermoError):
        guess_metrics(state, "abc")


def test_single_candidate_state(small):
    full = make_state(small, [], 1.0)
    one = State(small, full.candidates[:1], 1.0, full.prior)
    rows = rank_probes(one, "entropy", 3)
    assert rows[0]["probe"] == int(one.candidates[0]) and rows[0]["can_be_answer"]
    assert all(r["bits"] == 0.0 and r["groups"] == 1 for r in rows)


# ------------------------------------------------------------------ rankings and their tie-breaks


def _reference_order(state, by):
    """Plain sorted() over the stated chains (bits keys from the engine's own sweep)."""
    r = ranking(state)
    sweeper = sweeper_for(state)
    cands = set(state.candidates.tolist())
    prior = sweeper.probe_prior.tolist()
    n = state.game.n_probes

    def entropy_key(p):
        return (-round(float(r.bits[p]) / ROUND), p not in cands, -prior[p], p)

    if by == "entropy":
        key = entropy_key
    elif by == "minimax":
        key = lambda p: (int(r.stats.largest[p]),) + entropy_key(p)  # noqa: E731
    else:
        key = lambda p: (int(r.stats.sum_sq[p]),) + entropy_key(p)  # noqa: E731
    return sorted(range(n), key=key), r


@pytest.mark.parametrize("by", CRITERIA)
@pytest.mark.parametrize("t", [1.0, math.inf])
def test_rank_orders_follow_the_stated_chains(small, by, t):
    state = make_state(small, [_history_for(small, small.probes[-3], 20)], t)
    expected, r = _reference_order(state, by)
    assert r.order(by).tolist() == expected
    rows = rank_probes(state, by, 7)
    assert [row["probe"] for row in rows] == expected[:7]
    assert [row["rank"] for row in rows] == list(range(1, 8))
    for row in rows:
        assert row["word"] == small.probes[row["probe"]]
        assert r.rank_of(row["probe"], by) == row["rank"]


def test_minimax_ties_exist_and_are_broken_by_entropy(small):
    state = make_state(small, [], math.inf)
    r = ranking(state)
    order = r.order("minimax").tolist()
    largest = [int(r.stats.largest[p]) for p in order]
    assert largest == sorted(largest)
    pos = {p: i for i, p in enumerate(r.entropy_order.tolist())}
    ties = 0
    for value in set(largest):
        tied = [p for p in order if int(r.stats.largest[p]) == value]
        ties += len(tied) > 1
        assert [pos[p] for p in tied] == sorted(pos[p] for p in tied)
    assert ties > 0  # the small game has ties: the chain matters


def test_entropy_rank_top_is_level_two_choice(small):
    from termo.engine.level2 import choose_index

    state = make_state(small, [], 1.0)
    sweeper = sweeper_for(state)
    assert rank_probes(state, "entropy", 1)[0]["probe"] == choose_index(
        sweeper, small.icf, state.candidates.tolist(), 1, small.max_turns)


def test_bad_criterion_and_top(small):
    state = make_state(small, [], 1.0)
    with pytest.raises(TermoError):
        rank_probes(state, "bogus")
    with pytest.raises(TermoError):
        rank_probes(state, "entropy", 0)


def test_history_ending_in_a_win_is_refused(small):
    with pytest.raises(TermoError, match="win"):
        make_state(small, [f"{small.answers[0]}:GGGGG"], 1.0)


# ------------------------------------------------------------------ second-guess study (library)


def test_second_guess_study_on_small_game(small, tmp_path):
    from termo.analysis.second_guess import second_guess_study, write_second_guess

    opener = small.probes[-1]
    data = second_guess_study(small, opener, patterns=3, top=4, t=math.inf)
    assert data["initial_bits"] == math.log2(small.n_answers)
    assert data["opener"]["word"] == opener
    state = make_state(small, [], math.inf)
    ref = reference(small, state.candidates.tolist(), math.inf, [small.probes_norm[-1]])[small.probes_norm[-1]]
    assert data["opener"]["largest_group"] == ref["largest"]
    assert data["opener"]["worst_case_bits_left"] == math.log2(ref["largest"])
    sizes = [p["answers"] for p in data["patterns"]]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == ref["largest"]
    for p in data["patterns"]:
        members = [a for a in range(small.n_answers)
                   if encode(colours(small.probes_norm[-1], small.answers_norm[a])) == p["code"]]
        assert len(members) == p["answers"]
        sub = State(small, state.candidates[members], math.inf, state.prior)
        assert [r["probe"] for r in p["second_guesses"]] == ranking(sub).order("entropy").tolist()[:4]
        for r in p["second_guesses"]:
            assert r["can_be_answer"] == (r["probe"] in members)
    assert set(data["best_openers"]) == set(CRITERIA)
    paths = write_second_guess(data, tmp_path)
    assert json.loads(open(paths["json"], encoding="utf-8").read())["opener"]["word"] == opener
    assert "Top second guesses" in open(paths["markdown"], encoding="utf-8").read()
    assert paths["plots"] and open(paths["plots"][0], "rb").read(4) == b"\x89PNG"


def test_default_out_dir_is_outside_the_repository(monkeypatch, tmp_path):
    from pathlib import Path

    from termo.analysis.second_guess import default_out_dir

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    out = default_out_dir()
    repo = Path(__file__).resolve().parents[1]
    assert out == tmp_path / "results" and repo not in out.resolve().parents


# ------------------------------------------------------------------ CLI

METRIC_KEYS = {"word", "groups", "largest_group", "expected_remaining", "bits", "can_be_answer", "candidates"}
RANK_KEYS = {"rank", "word", "bits", "largest_group", "expected_remaining", "groups", "can_be_answer"}


def run_cli(argv, capsys):
    from cli.app import main

    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_partition_json(capsys, game):
    code, out, err = run_cli(["partition", "filme", "tarso:BBBBB", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert METRIC_KEYS <= set(data)
    from termo.engine.session import candidates_after

    assert data["candidates"] == candidates_after(game, ["tarso:BBBBB"]).n_candidates
    state = make_state(game, ["tarso:BBBBB"], 1.0)
    assert data["bits"] == sweeper_for(state).entropy_of(game.index_of("filme"), state.candidates)
    assert data["word"] == "filme" and data["can_be_answer"] is True


def test_cli_partition_off_list_warns(capsys):
    code, out, err = run_cli(["partition", "zuzuz", "--json", "--game", "termo"], capsys)
    assert code == 0
    assert json.loads(out)["in_probe_list"] is False
    assert "warning:" in err and "not in the word list" in err


def test_cli_rank_json(capsys):
    code, out, err = run_cli(["rank", "tarso:BBBBB", "--by", "minimax", "--top", "4", "--json"], capsys)
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 4 and all(RANK_KEYS <= set(r) for r in rows)
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    largest = [r["largest_group"] for r in rows]
    assert largest == sorted(largest)


def test_cli_rank_text(capsys):
    code, out, _ = run_cli(["rank", "tarso:BBBBB", "filme:BBBYY", "--top", "3"], capsys)
    assert code == 0 and "by entropy" in out and len(out.strip().splitlines()) == 5


@pytest.mark.parametrize("argv, fragment", [
    (["partition", "tars"], "letters"),
    (["partition", "tarso", "tarso"], "bad history item"),
    (["partition", "tarso", "tarso:GGGGG"], "win"),
    (["partition", "tarso", "tarso:XXXXX"], "colour"),
    (["partition", "tarso", "--t", "-1"], "temperature"),
    (["partition", "tarso", "--game", "nope"], "unknown game"),
    (["rank", "--by", "best"], "--by"),
    (["rank", "--top", "zero"], "--top"),
    (["rank", "--top", "0"], "--top"),
    (["bench", "second-guess", "--patterns", "0"], "--patterns"),
    (["bench", "second-guess", "--opener", "xy"], "letters"),
])
def test_cli_bad_input_is_one_line_and_exit_2(argv, fragment, capsys):
    code, out, err = run_cli(argv, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("termo: error:") and fragment in lines[0]


def test_cli_second_guess_is_a_bench_command(capsys, tmp_path):
    code, out, err = run_cli(["bench", "second-guess", "--opener", "tarso", "--patterns", "2", "--top", "3",
                              "--no-compare", "--out", str(tmp_path), "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["opener"]["word"] == "tarso" and len(data["patterns"]) == 2
    assert all(len(p["second_guesses"]) == 3 for p in data["patterns"])
    assert data["initial_bits"] == math.log2(6046) and data["t"] == "inf"
    for suffix in ("json", "md", "png"):
        assert (tmp_path / f"second-guess-termo.{suffix}").is_file()
    assert "written:" in err


# ------------------------------------------------------------------ other games (when their plugins exist)


@pytest.mark.skipif(not _have("termo.games.wordle_ru"), reason="the wordle-ru plugin (termo.games.wordle_ru) is missing")
def test_wordle_ru_second_guess(capsys, tmp_path):
    code, out, err = run_cli(["bench", "second-guess", "--game", "wordle-ru", "--opener", "норка", "--out",
                              str(tmp_path), "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    from termo.games import get_game

    g = get_game("wordle-ru")
    assert data["initial_bits"] == math.log2(g.n_answers)
    op = data["opener"]
    assert op["word"] == "норка" and op["worst_case_bits_left"] == math.log2(op["largest_group"])
    assert 5.0 < op["bits"] < 6.5  # the study: 5.69 bits on its own lists
    assert len(data["patterns"]) == 5 and all(len(p["second_guesses"]) == 5 for p in data["patterns"])
    assert data["published"]["opener"] == "норка" and "differ" in data["note"]
    assert (tmp_path / "second-guess-wordle-ru.png").is_file()
    # ё folds into е, й stays: partition accepts either spelling of a probe
    code, out, err = run_cli(["partition", "норка", "--game", "wordle-ru", "--json"], capsys)
    assert code == 0 and json.loads(out)["largest_group"] == op["largest_group"]
    assert json.loads(out)["bits"] == op["bits"]


@pytest.mark.skipif(not _have("termo.games.nerdle"), reason="the nerdle plugin (termo.games.nerdle) is missing")
def test_nerdle_mini_matches_the_plain_rule(capsys):
    """Nerdle Mini (commutative win rule): counts against ``termo.engine.matrix.expected_code`` cell by
    cell, and a history item narrows the candidates as the plain rule says."""
    from termo.core.feedback import decode
    from termo.games import get_game
    from termo.engine.matrix import expected_code

    g = get_game("nerdle-mini")
    state = make_state(g, [], math.inf)
    stats = partition_stats(state)
    for p in range(0, g.n_probes, 5):
        counts = Counter(expected_code(g, p, a) for a in range(g.n_answers))
        size = {c: (1 if c == g.win_code else n) for c, n in counts.items()}  # each win: a group of one
        assert int(stats.groups[p]) == len(counts) and int(stats.largest[p]) == max(size.values())
        assert int(stats.sum_sq[p]) == sum(size[c] * n for c, n in counts.items())
        assert bool(stats.wins[p]) == (g.win_code in counts)
    opener, secret = 0, g.n_answers // 2
    code = expected_code(g, opener, secret)
    item = f"{g.probes[opener]}:{decode(code, g.word_length)}"
    left = [a for a in range(g.n_answers) if expected_code(g, opener, a) == code]
    guess = g.probes[left[0]]
    rc, out, err = run_cli(["partition", guess, item, "--game", "nerdle-mini", "--json"], capsys)
    assert rc == 0, err
    data = json.loads(out)
    assert METRIC_KEYS <= set(data) and data["candidates"] == len(left)
    sub = Counter(expected_code(g, left[0], a) for a in left)
    assert data["groups"] == len(sub)
    assert data["largest_group"] == max(1 if c == g.win_code else n for c, n in sub.items())
    assert data["can_be_answer"] is True
    rc, out, err = run_cli(["rank", item, "--game", "nerdle-mini", "--by", "minimax", "--top", "3", "--json"], capsys)
    assert rc == 0 and [r["rank"] for r in json.loads(out)] == [1, 2, 3]
    rc, out, err = run_cli(["partition", "1+1=3+", "--game", "nerdle-mini"], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1


@pytest.mark.slow  # builds the 17,723 x 17,723 matrix (about 10 s, 1.3 GB)
@pytest.mark.skipif(not _have("termo.games.nerdle"), reason="the nerdle plugin (termo.games.nerdle) is missing")
@pytest.mark.parametrize("guess, groups, remaining", [("52-34=18", 1703, 33), ("11+11=22", 415, 319)])
def test_nerdle_published_openers(capsys, guess, groups, remaining):
    code, out, err = run_cli(["partition", guess, "--game", "nerdle", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["candidates"] == 17723
    assert data["groups"] == groups
    assert data["expected_remaining"] == pytest.approx(remaining, abs=1.0)


def test_a_guess_that_wins_both_answers_leaves_nothing(capsys):
    """Nerdle's commutative rule: after 10-2=8:BBBYYG only 4*7=28 and 7*4=28 are left, and
    4*7=28 wins against both: largest group 1, expected remaining 1 (it said 2 and 2), 0 bits
    (it printed -0.0000). Under the exact rule the win group never holds more than one answer."""
    import json

    from cli.app import main
    from termo.games.registry import get_game
    from termo.engine.partition import guess_metrics, make_state, rank_probes

    game = get_game("nerdle-mini")
    state = make_state(game, ["10-2=8:BBBYYG"])
    assert sorted(game.answers[i] for i in state.candidates.tolist()) == ["4*7=28", "7*4=28"]
    row, _ = guess_metrics(state, "4*7=28")
    assert (row["groups"], row["largest_group"], row["expected_remaining"]) == (1, 1, 1.0)
    assert row["worst_case_bits_left"] == 0.0 and str(row["bits"]) == "0.0"
    ranked = {r["word"]: r for r in rank_probes(state, by="remaining", top=game.n_probes)}
    assert ranked["4*7=28"]["largest_group"] == 1 and ranked["4*7=28"]["expected_remaining"] == 1.0
    assert ranked["7*4=28"]["expected_remaining"] == 1.0
    assert (row["wins"], row["expected_unsolved"]) == (2, 0.0)  # nothing is left unsolved
    code = main(["partition", "--game", "nerdle-mini", "4*7=28", "10-2=8:BBBYYG"])
    out = capsys.readouterr().out
    assert code == 0 and "largest group:        1" in out and "-0.0000" not in out
    assert "expected unsolved:    0.0000 (it wins against 2 of 2 candidates)" in out
    assert main(["partition", "--game", "nerdle-mini", "4*7=28", "10-2=8:BBBYYG", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["expected_remaining"] == 1.0
