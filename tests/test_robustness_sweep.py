"""The robustness grid: beam and all-openers modes, checkpoints and resume after a kill, Dask, CLI."""

from __future__ import annotations

import json
import math
import signal
import time

import pytest

from termo.core.chunks import CheckpointStore
from termo.robustness.sweep import SweepConfig, run_sweep
from termo.robustness.world import Column, World, grid_columns, load_world

from cli_processes import termo_process

SMALL = World(size=90)
COLUMNS = [Column("T=0.7", 0.7, 90), Column("T=1", 1.0, 90), Column("T=inf", math.inf, 90)]


def check_grid(result):
    cols = result["columns"]
    for j, col in enumerate(cols):
        values = [row[j] for row in result["expected"].values()]
        assert col["best_expected"] <= min(values)
        if col["best_word"] in result["expected"]:
            assert result["expected"][col["best_word"]][j] == col["best_expected"]
        if col["best_bits_word"] in result["regret_vs_bits"]:
            assert result["regret_vs_bits"][col["best_bits_word"]][j] == 0.0
    assert all(x >= -1e-9 for row in result["regret"].values() for x in row)
    worst = result["worst_regret"]
    assert worst[result["robust_opener"]] == min(worst.values())
    for word, row in result["regret"].items():
        assert worst[word] == max(row)


def test_beam_mode_small_world():
    result = run_sweep(SweepConfig(world=SMALL, columns=COLUMNS, mode="beam"))
    check_grid(result)
    assert len(result["columns"]) == 3
    for col in result["columns"]:
        assert len(col["beam"]) == 10
        assert col["best_bits_word"] == col["beam"][0]
    # every column's bits reference and best opener is evaluated in every column
    for col in result["columns"]:
        assert col["best_bits_word"] in result["expected"]


def test_all_mode_is_the_true_optimum_and_contains_beam():
    beam = run_sweep(SweepConfig(world=SMALL, columns=COLUMNS, mode="beam"))
    full = run_sweep(SweepConfig(world=SMALL, columns=COLUMNS, mode="all", chunk_size=25))
    check_grid(full)
    assert len(full["expected"]) == 90
    for j, col in enumerate(full["columns"]):
        assert col["best_expected"] <= beam["columns"][j]["best_expected"]
        assert col["best_expected"] == min(row[j] for row in full["expected"].values())
        assert col["top10"][0] == [col["best_word"], col["best_expected"]]
    for word, row in beam["expected"].items():
        assert full["expected"][word] == row  # the same values whatever the chunking


def test_chunking_and_checkpoints_do_not_change_the_result(tmp_path):
    a = run_sweep(SweepConfig(world=SMALL, columns=COLUMNS[:1], mode="all", chunk_size=90))
    store = CheckpointStore(tmp_path / "ck")
    info = {}
    b = run_sweep(SweepConfig(world=SMALL, columns=COLUMNS[:1], mode="all", chunk_size=7), store=store, info=info)
    assert a == b
    assert info["chunks_computed"] == 13 and info["chunks_resumed"] == 0
    c = run_sweep(SweepConfig(world=SMALL, columns=COLUMNS[:1], mode="all", chunk_size=7), store=store, info=info)
    assert c == a
    assert info["chunks_computed"] == 0 and info["chunks_resumed"] == 13


def test_damaged_checkpoint_is_recomputed(tmp_path):
    store = CheckpointStore(tmp_path)
    run_sweep(SweepConfig(world=SMALL, columns=COLUMNS[:1], mode="all", chunk_size=30), store=store)
    files = sorted(tmp_path.glob("*.json"))
    files[0].write_text("{not json")
    data = json.loads(files[1].read_text())
    data["openers"] = data["openers"][::-1]
    files[1].write_text(json.dumps(data))
    info = {}
    again = run_sweep(SweepConfig(world=SMALL, columns=COLUMNS[:1], mode="all", chunk_size=30), store=store, info=info)
    assert info["chunks_computed"] == 2 and info["chunks_resumed"] == 1
    assert again == run_sweep(SweepConfig(world=SMALL, columns=COLUMNS[:1], mode="all", chunk_size=30))


def _cli(args, **kw):
    return termo_process(["robustness", *args], **kw)


class Crash(RuntimeError):
    pass


class CrashingExecutor:
    """Runs chunks in process and dies after ``n`` of them (a crash in the middle of a run)."""

    name = "local"

    def __init__(self, n):
        self.n = n

    def run(self, tasks):
        from termo.core.executors import run_task

        for i, task in enumerate(tasks):
            if i == self.n:
                raise Crash("killed")
            yield task, run_task(task)

    def close(self):
        pass


def test_crash_then_resume_gives_identical_document(tmp_path):
    from termo.robustness.report import markdown, to_jsonable

    config = SweepConfig(world=SMALL, columns=COLUMNS[1:], mode="all", chunk_size=10)
    store = CheckpointStore(tmp_path)
    with pytest.raises(Crash):
        run_sweep(config, store=store, executor=CrashingExecutor(5))
    assert len(list(tmp_path.glob("*.json"))) == 5
    info = {}
    resumed = run_sweep(config, store=store, info=info)
    assert info["chunks_resumed"] == 5 and info["chunks_computed"] == 13
    fresh = run_sweep(config)
    assert json.dumps(to_jsonable(resumed)) == json.dumps(to_jsonable(fresh))
    assert markdown(resumed) == markdown(fresh)


@pytest.mark.slow
def test_kill_then_resume_gives_identical_json(tmp_path):
    """A real SIGKILL of the CLI in the middle of a run, then ``--resume`` (about a minute)."""
    args = ["--openers", "all", "--world", "160", "--columns", "T=1,T=inf", "--chunk", "8"]
    killed = tmp_path / "killed"
    proc = _cli(args + ["--out", str(killed)])
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        if len(list((killed / "checkpoints").glob("*.json"))) >= 3:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(list((killed / "checkpoints").glob("*.json")))
    assert 3 <= done_before < 40
    assert not (killed / "robustness.json").exists()
    resumed = _cli(args + ["--out", str(killed), "--resume"])
    out, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err.decode()
    assert f"{done_before} resumed" in err.decode()
    fresh = tmp_path / "fresh"
    clean = _cli(args + ["--out", str(fresh)])
    out, err = clean.communicate(timeout=600)
    assert clean.returncode == 0, err.decode()
    assert (killed / "robustness.json").read_bytes() == (fresh / "robustness.json").read_bytes()
    assert (killed / "robustness.md").read_bytes() == (fresh / "robustness.md").read_bytes()


def test_dask_local_cluster_matches_in_process():
    distributed = pytest.importorskip("dask.distributed")
    from termo.core.executors import DaskExecutor

    cols = [Column("T=1", 1.0, 70), Column("T=inf", math.inf, 70)]
    config = SweepConfig(world=World(size=70), columns=cols, mode="all", chunk_size=9)
    local = run_sweep(config)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        info = {}
        remote = run_sweep(config, executor=DaskExecutor(client), info=info)
    assert remote == local
    assert info["executor"] == "dask" and info["chunks_computed"] == 16


def test_cli_json_contract(capsys, tmp_path):
    from cli.app import main

    code = main(["robustness", "--world", "80", "--columns", "T=1,T=inf", "--out", str(tmp_path), "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    for key in ("columns", "expected", "regret", "worst_regret", "robust_opener"):
        assert key in doc
    for col in doc["columns"]:
        for key in ("M", "T", "best_bits_word", "best_word", "best_expected"):
            assert key in col
    assert doc["columns"][1]["T"] == "inf"
    assert all(len(row) == 2 for row in doc["expected"].values())
    assert (tmp_path / "robustness.md").exists() and (tmp_path / "regret_heatmap.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "args",
    [["--openers", "some"], ["--columns", "abc"], ["--columns", "0.5"], ["--world", "1"], ["--past", "/no/such/file"]],
)
def test_cli_bad_input(capsys, tmp_path, args):
    from cli.app import main

    code = main(["robustness", "--world", "60", "--out", str(tmp_path), *args])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_grid_columns_full_game():
    data = load_world(World())
    cols = grid_columns(data)
    assert [c.label for c in cols] == ["M=300", "T=1", "M=600", "M=1200", "M=2400", "M=4800", "M=6046"]
    assert math.isinf(cols[-1].t) and cols[1].t == 1.0


@pytest.mark.slow
def test_beam_mode_reference_values():
    """The reference grid (docs/robustness.md): eight openers, column-prior tie-breaks."""
    result = run_sweep(SweepConfig(mode="beam"))
    check_grid(result)
    labels = [c["label"] for c in result["columns"]]
    inf_col = labels.index("M=6046")
    t1_col = labels.index("T=1")
    assert round(result["expected"]["cairo"][inf_col], 6) == 3.864208
    assert round(result["expected"]["corta"][inf_col], 6) == 3.825008
    assert result["regret_vs_bits"]["tarso"][t1_col] == 0.0
    assert len(result["expected"]) == 8
