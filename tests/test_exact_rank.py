"""Every first word ranked with proof (termo.exact.ranking, `termo optimal --rank`).

The oracle is the brute force of tests/test_exact.py: every first word's exact total by
exhaustive recursion over every probe; the ranking must be its N best (ties at the N-th place
included), with the same totals, in normal and hard mode, uniform and weighted. Then the runs:
checkpoints reused and damaged ones rejected, in process and on local Dask workers, and a real
kill of a distributed run resumed with byte-identical output.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import time

import pytest

from termo.engine import hard_mode
from termo.exact.ranking import rank_first_words, rank_store
from termo.exact.search import answer_weights

from cli_processes import termo_process
from test_exact import Oracle, uniform
from solver_oracles import tiny_game


@pytest.fixture(scope="module")
def small():
    return tiny_game(24, 8, step=211, offset=5)


def oracle_ranking(game, hard, n):
    """``[(total, word), ...]`` of the N best first words (ties at the N-th included), by brute force."""
    weights, _ = answer_weights(game, 1.0)
    oracle = Oracle(game, weights, hard)
    root = tuple(range(game.n_answers))
    c0 = hard_mode.free(game.word_length) if hard else None
    totals = sorted((oracle.guess_cost(root, game.max_turns, p, c0), p) for p in range(game.n_probes))
    cut = totals[n - 1][0]
    return [(v, p) for v, p in totals if v <= cut * (1 + 1e-12)]


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [1, 3])
def test_ranking_matches_the_oracle(small, weighted, hard, n):
    game = small if weighted else uniform(small)
    got = rank_first_words(game, n, hard=hard)
    expect = oracle_ranking(game, hard, n)
    assert got["proved"] and got["rank"] == n
    assert [row["word"] for row in got["ranking"]] == [game.probes[p] for _, p in expect]
    scale = sum(float(w) for w in answer_weights(game, 1.0)[0]) if weighted else game.n_answers
    for row, (value, _) in zip(got["ranking"], expect):
        if weighted:
            assert row["mean"] == pytest.approx(value / scale, rel=1e-12, abs=0)
        else:
            assert row["total"] == value and row["mean"] == value / game.n_answers
    assert (got["settled_by_first_pass"] + got["settled_by_bound"] + got["settled_by_search"]
            + got["solved_exactly"]) == game.n_probes


@pytest.mark.parametrize("turns", [3, 4])
def test_ranking_without_losses_matches_the_oracle(small, turns):
    """``loss = inf``: first words that must lose an answer have no finite total and never rank."""
    game = dataclasses.replace(uniform(small), max_turns=turns)
    weights, _ = answer_weights(game, 1.0)
    oracle = Oracle(game, weights, False, loss=math.inf)
    root = tuple(range(game.n_answers))
    totals = sorted((oracle.guess_cost(root, turns, p), p) for p in range(game.n_probes))
    finite = [(v, p) for v, p in totals if math.isfinite(v)]
    got = rank_first_words(game, 2, loss=math.inf)
    cut = finite[min(2, len(finite)) - 1][0] if finite else math.inf
    assert [(row["total"], row["word"]) for row in got["ranking"]] == [(v, game.probes[p]) for v, p in finite
                                                                        if v <= cut]
    assert got["loss"] == math.inf and got["proved"]


def test_checkpoints_are_reused_and_a_damaged_one_is_recomputed(small, tmp_path):
    game = uniform(small)
    first = rank_first_words(game, 3, chunk=4, store=rank_store(tmp_path))
    files = sorted(tmp_path.glob("*.json"))
    assert files
    info = {}
    again = rank_first_words(game, 3, chunk=4, store=rank_store(tmp_path), info=info)
    assert again == first and info["chunks_computed"] == 0 and info["chunks_resumed"] == len(files)
    files[0].write_text(files[0].read_text().replace('"exact"', '"exakt"', 1).replace('"out"', '"ou"', 1))
    said = []
    info = {}
    third = rank_first_words(game, 3, chunk=4, store=rank_store(tmp_path), warn=said.append, info=info)
    assert third == first and info["chunks_computed"] == 1 and len(said) == 1 and "rejected" in said[0]


def test_progress_counts_the_words_read_from_checkpoints_in_every_round(small, tmp_path):
    """A resumed run reports how many words came from checkpoints, over every round, so the
    command's time left is estimated from its own work (it once counted only the seeds' round)."""
    game = uniform(small)
    rank_first_words(game, 3, chunk=4, store=rank_store(tmp_path))
    reports = []
    info = {}
    rank_first_words(game, 3, chunk=4, store=rank_store(tmp_path), info=info,
                     progress=lambda done, total, note="", resumed=0: reports.append((done, resumed)))
    assert info["chunks_computed"] == 0 and reports
    words_in_chunks = sum(len(json.loads(f.read_text())["openers"]) for f in tmp_path.glob("*.json"))
    assert reports[-1][1] == words_in_chunks
    assert [r for _, r in reports] == sorted(r for _, r in reports)  # it only grows
    from cli.common import resumed_left_out  # what optimal --rank reports through
    seen = []
    report = resumed_left_out(lambda done, total: seen.append((done, total)))
    report(40, 100, "round", 40)
    report(52, 100, "round", 48)
    assert seen == [(0, 60), (4, 52)]


def test_a_fresh_store_ignores_old_chunks(small, tmp_path):
    game = uniform(small)
    rank_first_words(game, 2, chunk=4, store=rank_store(tmp_path))
    info = {}
    rank_first_words(game, 2, chunk=4, store=rank_store(tmp_path, reuse=False), info=info)
    assert info["chunks_resumed"] == 0


def test_bad_rank_is_one_clear_error(small):
    from termo.core.errors import TermoError

    with pytest.raises(TermoError, match="--rank"):
        rank_first_words(uniform(small), 0)


# --------------------------------------------------------------------------- the command
def _cli(args, **kw):
    return termo_process(["optimal", *args], progress_interval="1", **kw)


def test_cli_without_opener_proves_the_best_first_word(capsys, tmp_path):
    """No --opener: every first word is ranked (resumable, --rank 1), then the best one's proof is
    printed as a fixed opener's would be, with "opener" null."""
    from cli.app import main

    code = main(["optimal", "--game", "nerdle-mini", "--checkpoint-dir", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["opener"] is None and out["first_guess"] == "4*7=28" and out["total"] == 525 and out["proved"]
    assert out["first_words"] == 206


def test_cli_ranks_nerdle_mini(capsys, tmp_path):
    """Nerdle Mini's proven best first guess, 4*7=28, 525 guesses over the 206 answers (docs/exact.md)."""
    from cli.app import main

    code = main(["optimal", "--game", "nerdle-mini", "--rank", "2", "--checkpoint-dir", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["best"] == "4*7=28" and out["ranking"][0]["total"] == 525 and out["proved"]
    assert [row["word"] for row in out["ranking"]] == ["4*7=28", "28/7=4"]


def test_status_on_another_rankings_checkpoints_says_so(capsys, tmp_path):
    """--status with options other than the run's (here --hard) found none of its checkpoints and
    said "0 settled" alone: one stderr line now names the options that differ."""
    from cli.app import main

    assert main(["optimal", "--game", "nerdle-mini", "--rank", "2", "--checkpoint-dir", str(tmp_path), "--json"]) == 0
    capsys.readouterr()
    assert main(["optimal", "--game", "nerdle-mini", "--rank", "2", "--checkpoint-dir", str(tmp_path), "--status",
                 "--hard"]) == 0
    out, err = capsys.readouterr()
    assert "0 of 206 first words settled" in out
    assert [line for line in err.splitlines() if "checkpoints in" in line] == [
        f"termo: none of the {len(list(tmp_path.glob('*.json')))} checkpoints in {tmp_path} is of this ranking "
        "(they were made with hard False, here True: give that run's options)"]
    assert main(["optimal", "--game", "nerdle-mini", "--rank", "2", "--checkpoint-dir", str(tmp_path), "--status"]) == 0
    assert "is of this ranking" not in capsys.readouterr().err  # the run's own options: nothing to say


@pytest.mark.parametrize("args", [["--rank", "0"], ["--rank", "2", "--opener", "4*7=28"], ["--rank", "2", "--time", "5"],
                                  ["--workers", "2", "--opener", "4*7=28"], ["--resume", "--time", "5"],
                                  ["--rank", "2", "--workers", "0"], ["--loss", "-1"], ["--loss", "many"],
                                  ["--rank", "2", "--chunk", "0"],
                                  ["--rank", "2", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"]])
def test_cli_bad_input(capsys, tmp_path, args):
    from cli.app import main

    code = main(["optimal", "--game", "nerdle-mini", "--checkpoint-dir", str(tmp_path), *args]
                if "--rank" in args else ["optimal", "--game", "nerdle-mini", *args])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "Traceback" not in err


DISTRIBUTED_MINI = ["--game", "nerdle-mini", "--rank", "5", "--chunk", "1", "--workers", "2", "--json"]


def _running_with_checkpoints(folder, at_least: int = 12):
    """The Nerdle Mini ranking on 2 local workers, one first word a chunk, in a session of its
    own, once ``at_least`` chunks are checkpointed in ``folder`` (the 10 seeds and a first word or
    two after them), or once it ended."""
    proc = _cli(DISTRIBUTED_MINI + ["--checkpoint-dir", str(folder)], start_new_session=True)
    deadline = time.time() + 900
    while time.time() < deadline and proc.poll() is None and len(list(folder.glob("*.json"))) < at_least:
        time.sleep(0.01)
    return proc


def test_kill_then_resume_of_a_distributed_run_gives_identical_output(tmp_path):
    """`--workers 2` on Nerdle Mini, one first word a chunk: a real SIGKILL of the whole run (the
    driver and its Dask workers) once some chunks are checkpointed, then --resume; stdout equals
    an uninterrupted run's, byte for byte."""
    pytest.importorskip("dask.distributed")
    args = DISTRIBUTED_MINI
    killed = tmp_path / "killed"
    proc = _running_with_checkpoints(killed)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(list(killed.glob("*.json")))
    assert 12 <= done_before < 206
    resumed = _cli(args + ["--checkpoint-dir", str(killed), "--resume"])
    out_resumed, err = resumed.communicate(timeout=900)
    assert resumed.returncode == 0, err.decode()
    assert f"{done_before} resumed" in err.decode()
    clean = _cli(args + ["--checkpoint-dir", str(tmp_path / "fresh")])
    out_fresh, err = clean.communicate(timeout=900)
    assert clean.returncode == 0, err.decode()
    assert out_resumed == out_fresh
    assert json.loads(out_fresh)["best"] == "4*7=28"


def test_sigterm_stops_a_distributed_run_and_its_workers(tmp_path):
    """SIGTERM to the command alone (as `kill PID` or a job scheduler sends it) stops it as Ctrl-C
    does: one line, exit 143, and its local Dask workers end with it (they used to go on
    computing, orphaned); the chunks finished are kept for --resume."""
    pytest.importorskip("dask.distributed")
    folder = tmp_path / "stopped"
    proc = _running_with_checkpoints(folder)
    assert proc.poll() is None, "the run finished before it could be stopped"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 143, err.decode()
    assert err.decode().rstrip().endswith("termo: terminated") and "Traceback" not in err.decode()
    lines = [line for line in err.decode().replace("\r", "\n").splitlines() if line.strip()]
    assert all(line.startswith("termo: ") for line in lines), lines  # no Dask or resource-tracker lines
    group_left = True
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            os.killpg(proc.pid, 0)  # any process left in the run's session (its workers)?
        except ProcessLookupError:
            group_left = False
            break
        time.sleep(0.05)
    if group_left:
        os.killpg(proc.pid, signal.SIGKILL)
    assert not group_left, "a worker process outlived the run"
    assert len(list(folder.glob("*.json"))) >= 12
