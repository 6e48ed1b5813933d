"""Opener tables (`termo openers`): the full-beam evaluator on any game and prior, against a
brute-force playout; shared ranks at 4 decimals; the --json contract; kill and --resume."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from backends import host
from termo.core.chunks import CheckpointStore
from termo.robustness.opener_table import TableConfig, rank_rows, rounded, run_table
from termo.robustness.world import Column, World, evaluate_chunk, load_game_world, uniform_column

REPO = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------------------------
# Brute-force oracle: play every game, answer by answer, with the greedy follow-up written naively
# ----------------------------------------------------------------------------------------------
def playout_table(matrix, prior, rounds, loss, win, openers, follow_up="entropy"):
    """Expected guesses of each opener: every answer played to its end (or the loss) with the
    rules' greedy tail: one candidate → play it; two → the more probable (first index on ties);
    otherwise the §5.2 first probe (entropy on the 1e-9 grid, candidates first, probe prior,
    index), or with ``follow_up="candidates-remaining"`` the candidate with the least Σ n_b² over
    its non-winning groups, then entropy, probe prior, index. A game is won when the guess's code
    is the win code (the game's win rule)."""
    m = [[int(x) for x in row] for row in matrix]
    n = len(prior)
    pp = list(prior) + [0.0] * (len(m) - n)
    chosen: dict = {}

    def entropy(g, S):
        tot = sum(prior[c] for c in S)
        mass: dict = {}
        for c in S:
            mass[m[g][c]] = mass.get(m[g][c], 0.0) + (prior[c] / tot if tot > 0 else 1.0 / len(S))
        return -sum(p * math.log2(p) for p in mass.values() if p > 0)

    def next_guess(S):
        key = tuple(S)
        if key not in chosen:
            if len(S) == 1:
                chosen[key] = S[0]
            elif len(S) == 2:
                chosen[key] = S[0] if prior[S[0]] >= prior[S[1]] else S[1]
            elif follow_up == "candidates-remaining":
                def unsolved(g):
                    codes = [m[g][c] for c in S]
                    return sum(codes.count(c) ** 2 for c in set(codes) if c != win)

                chosen[key] = min(S, key=lambda g: (unsolved(g), -round(entropy(g, S) / 1e-9), -pp[g], g))
            else:
                members = set(S)
                chosen[key] = max(range(len(m)), key=lambda g: (round(entropy(g, S) / 1e-9), g in members,
                                                                pp[g], -g))
        return chosen[key]

    total = sum(prior)
    out = []
    for opener in openers:
        expected = 0.0
        for answer in range(n):
            S, guess, turn = list(range(n)), opener, 1
            while m[guess][answer] != win:
                code = m[guess][answer]
                S = [x for x in S if m[guess][x] == code]
                turn += 1
                if turn > rounds:
                    turn = rounds + loss
                    break
                guess = next_guess(S)
            expected += prior[answer] * turn
        out.append(expected / total)
    return out


def test_candidates_remaining_evaluator_equals_playout_on_nerdle_mini():
    """The candidates-remaining follow-up (``termo openers --follow-up``): every Nerdle Mini opener
    played game by game equals the batched evaluator."""
    from termo.games import get_game
    from termo.engine.matrix import pattern_matrix
    from termo.robustness.greedy_tree import GreedyTreeEvaluator

    game = get_game("nerdle-mini")
    matrix = host().to_numpy(pattern_matrix(game, backend=host()))
    n = game.n_answers
    prior = [1.0 / n] * n
    ev = GreedyTreeEvaluator(matrix, prior, rounds=game.max_turns, n_patterns=game.n_patterns,
                             follow_up="candidates-remaining")
    got = ev.expected_values(list(range(n)))
    want = playout_table(matrix, prior, game.max_turns, 7.0, game.win_code, list(range(n)), "candidates-remaining")
    assert max(abs(a - b) for a, b in zip(got, want)) < 1e-12


def _world_values(world: World, column: Column | None = None):
    data = load_game_world(world)
    column = column or uniform_column(data)
    n = len(data.answers)
    return data, column, evaluate_chunk(world, column, list(range(n)))


@pytest.mark.parametrize("strict", [False, True], ids=["commutative", "exact"])
def test_evaluator_equals_playout_on_nerdle_mini(strict, monkeypatch):
    """Every opener of Nerdle Mini: the batched evaluator equals the game-by-game playout, under
    the commutative win rule (a rearranged equation wins) and the exact one."""
    from termo.games import get_game
    from termo.engine.matrix import pattern_matrix
    from termo.robustness.greedy_tree import GreedyTreeEvaluator

    game = get_game("nerdle-mini", strict=strict)
    matrix = host().to_numpy(pattern_matrix(game, backend=host()))
    n = game.n_answers
    prior = [1.0 / n] * n
    ev = GreedyTreeEvaluator(matrix, prior, rounds=game.max_turns, n_patterns=game.n_patterns)
    got = ev.expected_values(list(range(n)))
    want = playout_table(matrix, prior, game.max_turns, 7.0, game.win_code, list(range(n)))
    assert max(abs(a - b) for a, b in zip(got, want)) < 1e-12


def test_evaluator_equals_playout_with_a_word_prior():
    """A closed Termo world of 40 words under T = 1 (a non-uniform prior)."""
    world = World(size=40, game="termo")
    data = load_game_world(world)
    column = Column("T=1", 1.0, 40)
    got = evaluate_chunk(world, column, list(range(40)))
    from termo.robustness.world import column_prior

    prior = [float(x) for x in column_prior(data, column)]
    want = playout_table(data.matrix, prior, world.rounds, world.loss, data.n_patterns - 1, list(range(40)))
    assert max(abs(a - b) for a, b in zip(got, want)) < 1e-12


# ----------------------------------------------------------------------------------------------
# Ranks
# ----------------------------------------------------------------------------------------------
def test_ties_at_four_decimals_share_a_rank():
    rows = rank_rows([("b", 2.98304), ("a", 2.98301), ("c", 2.9829), ("d", 3.1), ("e", 2.98349), ("f", 2.98351)])
    assert [(r["word"], r["expected"], r["rank"]) for r in rows] == [
        ("c", 2.9829, 1), ("a", 2.983, 2), ("b", 2.983, 2), ("e", 2.9835, 4), ("f", 2.9835, 4), ("d", 3.1, 6)]
    assert rank_rows([]) == []
    assert rounded(math.inf) == math.inf


def test_table_values_are_the_evaluator_values():
    world = World(game="nerdle-mini")
    data, column, values = _world_values(world)
    table = run_table(TableConfig(game="nerdle-mini", chunk_size=50))
    by_word = {r["word"]: r for r in table["openers"]}
    assert len(by_word) == len(data.answers) == table["n_openers"] and table["complete"]
    for word, value in zip(data.answers, values):
        assert by_word[word]["expected"] == round(value, 4)
    ranks = [r["rank"] for r in table["openers"]]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    for i, row in enumerate(table["openers"]):  # competition ranking: rank = 1 + number strictly better
        assert row["rank"] == 1 + sum(1 for r in table["openers"] if r["expected"] < row["expected"])
        if i and table["openers"][i - 1]["rank"] == row["rank"]:
            assert table["openers"][i - 1]["word"] < row["word"]


def test_chunking_checkpoints_and_limit_do_not_change_values(tmp_path):
    whole = run_table(TableConfig(game="nerdle-mini", chunk_size=206))
    store = CheckpointStore(tmp_path)
    info: dict = {}
    part = run_table(TableConfig(game="nerdle-mini", chunk_size=7, limit=30), store=store, info=info)
    assert info["chunks_computed"] == 5 and not part["complete"] and part["n_openers"] == 30
    values = {r["word"]: r["expected"] for r in whole["openers"]}
    assert all(values[r["word"]] == r["expected"] for r in part["openers"])
    again = run_table(TableConfig(game="nerdle-mini", chunk_size=7, limit=30), store=store, info=info)
    assert again == part and info["chunks_resumed"] == 5 and info["chunks_computed"] == 0


def test_jax_backend_gives_the_same_table():
    pytest.importorskip("jax")
    numpy_table = run_table(TableConfig(game="nerdle-mini"))
    assert run_table(TableConfig(game="nerdle-mini", backend="jax")) == numpy_table


def test_dask_cluster_matches_in_process():
    distributed = pytest.importorskip("dask.distributed")
    from termo.core.executors import DaskExecutor

    config = TableConfig(game="nerdle-mini", chunk_size=40)
    local = run_table(config)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        info: dict = {}
        remote = run_table(config, executor=DaskExecutor(client), info=info)
    assert remote == local and info["executor"] == "dask" and info["chunks_computed"] == 6


# ----------------------------------------------------------------------------------------------
# CLI
# ----------------------------------------------------------------------------------------------
def test_cli_json_is_one_object_per_opener(capsys, tmp_path):
    from cli.app import main

    out = tmp_path / "table.json"
    code = main(["openers", "--game", "nerdle-mini", "--json", "--checkpoint-dir", str(tmp_path / "ck"),
                 "--out", str(out)])
    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert isinstance(rows, list) and len(rows) == 206
    assert all(set(r) == {"word", "expected", "rank"} for r in rows)
    assert rows == sorted(rows, key=lambda r: (r["rank"], r["word"]))
    assert all(round(r["expected"], 4) == r["expected"] for r in rows)
    assert len({r["rank"] for r in rows}) < len(rows)  # Nerdle Mini has ties at 4 decimals
    doc = json.loads(out.read_text())
    assert doc["openers"] == rows and doc["game"] == "nerdle-mini" and doc["prior"] == "uniform"


def test_cli_text_output(capsys, tmp_path):
    from cli.app import main

    code = main(["openers", "--game", "nerdle-mini", "--limit", "12", "--checkpoint-dir", str(tmp_path)])
    text = capsys.readouterr().out
    assert code == 0
    assert "partial table" in text and "best:" in text and "rank" in text


def test_cli_prints_its_table_when_the_checkpoints_cannot_be_written(capsys, tmp_path, monkeypatch):
    """A full cache disk loses the checkpoints, not the table: one stderr line says where and why."""
    import errno

    from cli.app import main
    from termo.core import chunks as checkpoint

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(checkpoint, "atomic_write_json", full)
    folder = tmp_path / "ck"
    code = main(["openers", "--game", "nerdle-mini", "--limit", "12", "--chunk", "4", "--checkpoint-dir", str(folder)])
    out, err = capsys.readouterr()
    assert code == 0 and "best:" in out and "rank" in out
    lines = [line for line in err.splitlines() if "not stored" in line]
    assert len(lines) == 1 and str(folder) in lines[0] and "disk is full" in lines[0]
    assert "the output" not in err


def test_cli_local_workers_give_the_same_output(tmp_path):
    """``--workers 2``: a local Dask cluster of two processes, same stdout as in process."""
    pytest.importorskip("dask.distributed")
    args = ["--game", "nerdle-mini", "--limit", "40", "--chunk", "5", "--json"]
    runs = []
    for extra in (["--workers", "2"], []):
        proc = _cli(args + extra + ["--checkpoint-dir", str(tmp_path / f"ck{len(runs)}")])
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
        runs.append(out)
    assert runs[0] == runs[1] and len(json.loads(runs[0])) == 40


def test_only_evaluates_the_named_openers_with_the_table_values(capsys, tmp_path):
    """``--only A B`` and ``--only A --only B``: the named openers, in the --json shape of a whole
    table, their values those of the whole table, ranked among themselves."""
    from cli.app import main

    whole = {r["word"]: r["expected"] for r in run_table(TableConfig(game="nerdle-mini"))["openers"]}
    for args in (["--only", "54/9=6", "4*7=28", "3*8=24"], ["--only", "54/9=6", "--only", "4*7=28", "--only", "3*8=24"]):
        code = main(["openers", "--game", "nerdle-mini", "--json", "--checkpoint-dir", str(tmp_path), *args])
        rows = json.loads(capsys.readouterr().out)
        assert code == 0
        assert [(r["word"], r["rank"]) for r in rows] == [("4*7=28", 1), ("3*8=24", 2), ("54/9=6", 2)]
        assert all(r["expected"] == whole[r["word"]] for r in rows)
    table = run_table(TableConfig(game="nerdle-mini", only=("3*8=24", "3*8=24")))
    assert table["n_openers"] == 1 and not table["complete"]


def test_candidates_remaining_follow_up_is_its_own_table(tmp_path):
    """``--follow-up candidates-remaining``: another method in the table and in its checkpoint keys
    (never mixed with the default's), the same openers, values of its own."""
    entropy = run_table(TableConfig(game="nerdle-mini"), store=CheckpointStore(tmp_path))
    other = run_table(TableConfig(game="nerdle-mini", follow_up="candidates-remaining"), store=CheckpointStore(tmp_path))
    assert (entropy["follow_up"], other["follow_up"]) == ("entropy", "candidates-remaining")
    assert entropy["method"] != other["method"]
    assert [r["word"] for r in entropy["openers"]] != [] and len(other["openers"]) == len(entropy["openers"])
    assert other == run_table(TableConfig(game="nerdle-mini", follow_up="candidates-remaining"))


@pytest.mark.parametrize("args", [["--limit", "0"], ["--limit", "99999"], ["--game", "chess"], ["--workers", "0"],
                                  ["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], ["--t", "-1"],
                                  ["--scheduler", "ucx://h:1"], ["--chunk", "0"], ["--only", "1+1=3"],
                                  ["--only", "4*7=28", "--limit", "3"], ["--follow-up", "minimax"], ["stray"]])
def test_cli_bad_input(capsys, tmp_path, args):
    from cli.app import main

    code = main(["openers", "--game", "nerdle-mini", "--checkpoint-dir", str(tmp_path), *args])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def _cli(args, **kw):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TERMO_DATA_DIR", str(REPO / "data"))
    env["TERMO_PROGRESS_INTERVAL"] = "1"
    return subprocess.Popen([sys.executable, "-m", "cli", "openers", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


@pytest.mark.slow
def test_kill_then_resume_of_a_classic_run_gives_identical_output(tmp_path):
    """Nerdle Classic restricted with --limit: a real SIGKILL mid-run, then --resume; stdout and
    --out equal to an uninterrupted run's (a few minutes: Classic's matrix is 17,723²)."""
    args = ["--game", "nerdle", "--limit", "24", "--chunk", "3", "--json"]
    killed = tmp_path / "killed"
    proc = _cli(args + ["--checkpoint-dir", str(killed), "--out", str(tmp_path / "killed.json")])
    deadline = time.time() + 900
    while time.time() < deadline and proc.poll() is None:
        if len(list(killed.glob("*.json"))) >= 2:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(list(killed.glob("*.json")))
    assert 2 <= done_before < 8
    assert not (tmp_path / "killed.json").exists()
    resumed = _cli(args + ["--checkpoint-dir", str(killed), "--out", str(tmp_path / "killed.json"), "--resume"])
    out_resumed, err = resumed.communicate(timeout=1800)
    assert resumed.returncode == 0, err.decode()
    assert f"{done_before} resumed" in err.decode()
    clean = _cli(args + ["--checkpoint-dir", str(tmp_path / "fresh"), "--out", str(tmp_path / "fresh.json")])
    out_fresh, err = clean.communicate(timeout=1800)
    assert clean.returncode == 0, err.decode()
    assert out_resumed == out_fresh and len(json.loads(out_fresh)) == 24
    assert (tmp_path / "killed.json").read_bytes() == (tmp_path / "fresh.json").read_bytes()
