"""Strategy trees (`termo.trees`): the builders and the evaluator.

The evaluator is checked against an independent plain-Python replay (tests/tree_fixtures.py):
every answer walked down the tree with the two-pass colours of `termo.core.feedback` and the
game's own win rule (`Game.wins`), the mean summed with `math.fsum`. Builders run on Nerdle Mini
(206 answers, commutative wins, uniform prior) and on a small Termo-rule game with a
word-frequency prior. The tree files, the store and walking: tests/test_tree_store.py.
"""

from __future__ import annotations

import pytest

from termo.core.errors import TermoError

from tree_fixtures import brute_force, check_against_brute_force, mini, mini_practical, tiny, tiny_level3  # noqa: F401


# ----------------------------------------------------------------------------- builders


def test_practical_tree_of_nerdle_mini_covers_every_answer(mini, mini_practical):
    data = check_against_brute_force(mini_practical, mini)
    assert mini_practical.opener == mini.default_opener
    # better than the level-3 opener table's best Mini value (4*7=28: 2.5534 at level 3)
    assert data["mean"] < 2.5825
    assert data["losses"] == 0


def test_commutative_wins_end_a_branch(mini, mini_practical):
    """Under the commutative rule a rearrangement of the answer wins: the tree never needs a
    branch for it, and the replay counts it as solved."""
    pairs = [(i, j) for group in mini.win_classes for i in group for j in group if i != j and j < mini.n_answers]
    assert pairs
    turns = brute_force(mini_practical, mini)
    assert 0 not in turns


def test_level3_playout_covers_every_answer_and_follows_the_solver(tiny, tiny_level3):
    from termo.engine.session import Session
    from termo.engine.solver import Solver
    from termo.trees.walker import next_guess

    data = check_against_brute_force(tiny_level3, tiny)
    assert "mean_uniform" in data  # a word-frequency prior: the mean is weighed by it
    solver = Solver(tiny, level=3)
    # the tree's move after a few histories is the live level-3 decision
    checked = 0
    for path, node in tiny_level3.root.walk():
        if not path or len(path) > 2 or not node.children:
            continue
        session = Session(tiny)
        walk = tiny_level3.root
        history = []
        for code in path:
            from termo.core.feedback import decode

            session.play(tiny.probes[walk.guess], decode(code))
            history.append((walk.guess, code))
            walk = walk.children[code]
        assert next_guess(tiny_level3, history, tiny.win_code) == node.guess
        assert solver.decide(session.candidate_list(), session.turn).index == node.guess
        checked += 1
        if checked >= 6:
            break
    assert checked >= 3


def test_practical_builder_on_a_weighted_game(tiny):
    from termo.trees.build import build_tree

    tree = build_tree(tiny, "practical", tiny.probes[0])
    check_against_brute_force(tree, tiny)


def test_exact_adapter_with_a_fake_solver(mini, mini_practical):
    """The exact builder turns the solver's nested plain data into a tree (a fake solver here
    hands back the practical tree); bad indices and codes are refused."""
    from termo.trees.build import build_tree
    from termo.trees.evaluate import evaluate

    def plain(node):
        return {"guess": node.guess, "children": {code: plain(kid) for code, kid in node.children.items()}}

    class Result:
        mean, proved, seconds = 2.5, True, 0.1

        def tree(self):
            return plain(mini_practical.root)

    calls = []

    def solve(game, opener=None, hard=False, t=1.0):
        calls.append((game.label, opener, hard))
        return Result()

    tree = build_tree(mini, "exact", mini.default_opener, solve=solve)
    assert calls == [("nerdle-mini", mini.index_of(mini.default_opener), False)]
    assert tree.method == "exact" and tree.info["proved"] is True
    assert evaluate(tree, mini)["mean"] == evaluate(mini_practical, mini)["mean"]

    class Bad(Result):
        def tree(self):
            return {"guess": 0, "children": {mini.win_code: {"guess": 1}}}

    with pytest.raises(TermoError, match="bad pattern code"):
        build_tree(mini, "exact", solve=lambda *a, **k: Bad())


def test_exact_method_without_the_solver_is_one_clear_line(tmp_path, capsys):
    import termo.exact as exact

    if getattr(exact, "solve", None) is not None:
        pytest.skip("the exact solver exists: --method exact builds")
    from cli.app import main

    code = main(["tree", "build", "--game", "nerdle-mini", "--method", "exact", "--out", str(tmp_path / "x.tree")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "exact solver" in err


# ----------------------------------------------------------------------------- more builders


def test_exact_solver_tree_of_nerdle_mini(mini, mini_practical):
    """The real exact solver's tree (`termo.exact.solve`) through the adapter: the replay gives
    the value it proved; on Mini from 4*7=28 the practical tree reaches that optimum."""
    exact = pytest.importorskip("termo.exact")
    if getattr(exact, "solve", None) is None:
        pytest.skip("no exact solver yet")
    from termo.trees.build import build_tree

    tree = build_tree(mini, "exact", mini.default_opener)
    data = check_against_brute_force(tree, mini)
    assert tree.info.get("proved") is True
    assert data["mean"] == pytest.approx(tree.info["mean"], abs=1e-12)
    assert data["total"] == sum(brute_force(mini_practical, mini))  # 525: the practical tree is optimal here


@pytest.mark.parametrize("method", ["practical", "level3"])
def test_hard_mode_trees_play_only_legal_guesses(tiny, method):
    from termo.core.feedback import decode
    from termo.engine.hard_mode import from_rounds, is_legal
    from termo.trees.build import build_tree

    tree = build_tree(tiny, method, tiny.probes[0], hard=True)
    assert tree.hard and "hard=1" in tree.key
    check_against_brute_force(tree, tiny)
    norm = tiny.probes_norm
    nodes = {(): tree.root}
    for path, node in tree.root.walk():
        nodes[path] = node
        rounds = []
        for i, code in enumerate(path):
            rounds.append((norm[nodes[path[:i]].guess], decode(code)))
        ok, why = is_legal(from_rounds(rounds, 5), norm[node.guess])
        assert ok, (path, why)


def test_eval_of_an_incomplete_tree_names_the_missing_answers(mini, mini_practical):
    import copy

    from termo.trees.evaluate import evaluate

    tree = copy.deepcopy(mini_practical)
    code = max(tree.root.children, key=lambda c: tree.root.children[c].count())
    cut = tree.root.children.pop(code)
    data = evaluate(tree, mini)
    lost = [a for a, k in zip(mini.answers, brute_force(tree, mini)) if k == 0]
    assert data["missing"] == len(lost) > 0 and data["mean"] is None and data["total"] is None
    assert data["missing_examples"] == lost[:5]
    assert data["losses"] >= data["missing"]
    assert cut.count() >= 1


def test_the_shipped_wordle_tree_is_selbys_optimum_for_salet():
    """The exact solver's proved strategy from salet, replayed by brute force: 7,920 guesses over
    the 2,315 answers (Selby's published optimum), and the tree suggest walks for Wordle."""
    from termo.core.paths import data_dir
    from termo.trees.fileformat import read_tree
    from termo.trees.store import find_tree

    tree, game = read_tree(data_dir() / "trees" / "wordle-exact.tree.gz")
    assert tree.opener == "salet" and tree.info["proved"] is True
    data = check_against_brute_force(tree, game)
    assert data["total"] == 7920 and data["losses"] == 0
    walked = find_tree(game, 3, 1.0, False, 10, 1, "salet")
    assert walked is not None and walked.method == "exact"


@pytest.mark.parametrize("name", ["nerdle-exact.tree.gz", "nerdle-practical.tree.gz", "nerdle-level3.tree.gz"])
def test_tree_eval_of_the_shipped_nerdle_trees_agrees_with_brute_force(name):
    """`termo tree eval` of each shipped Nerdle Classic tree equals the plain-Python replay over
    all 17,723 answers (commutative wins). The exact solver's tree (opener 54-38=16, proved optimal
    for that opener: 52,317 guesses) is below NerdleBuddy's published 2.964."""
    from termo.core.paths import data_dir
    from termo.trees.fileformat import read_tree

    tree, game = read_tree(data_dir() / "trees" / name)
    data = check_against_brute_force(tree, game)
    assert data["losses"] == 0
    if tree.method == "exact":
        assert data["total"] == 52317 and data["mean"] < 2.964 and tree.info["proved"] is True


@pytest.mark.parametrize("remaining", ["all", "unsolved"])
def test_practical_ranking_counts_against_plain_python(mini, remaining):
    """Step 2's Σ n_b² of every probe over a set (docs/trees.md): every group, or the unsolved
    ones only (``--remaining unsolved``: a commutative win may solve several answers at once)."""
    from collections import Counter

    from termo.trees.practical import PracticalBuilder

    b = PracticalBuilder(mini, remaining=remaining)
    xp = b.xp
    for cands in (list(range(mini.n_answers)), list(range(0, mini.n_answers, 3)), [1, 5, 9, 40]):
        c = xp.asarray(cands, dtype=xp.int64)
        pool = b.pool(c)
        sum_sq, _ = b.split_stats(c, pool)
        for g, got in zip(pool.tolist(), sum_sq.tolist()):
            counts = Counter(int(b.m[g][a]) for a in cands)
            want = sum(k * k for code, k in counts.items() if remaining == "all" or code != mini.win_code)
            assert got == want


def test_practical_unsolved_reading_builds_a_complete_tree(mini):
    from termo.trees.build import build_tree

    tree = build_tree(mini, "practical", practical={"remaining": "unsolved", "samples": 50})
    check_against_brute_force(tree, mini)
    assert tree.info["remaining"] == "unsolved" and tree.info["samples"] == 50


@pytest.mark.parametrize("args", [["--remaining", "some"], ["--samples", "-1"], ["--samples", "x"],
                                  ["--method", "level3", "--samples", "10"]])
def test_practical_options_refuse_bad_input(tmp_path, capsys, args):
    from cli.app import main

    code = main(["tree", "build", "--game", "nerdle-mini", "--out", str(tmp_path / "t.tree"), *args])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
