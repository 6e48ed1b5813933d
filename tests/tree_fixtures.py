"""The trees the strategy-tree tests share (tests/test_trees.py, tests/test_tree_store.py): Nerdle
Mini and its practical tree, a small Termo-rule game with a word-frequency prior and its level-3
playout, and the independent plain-Python replay the evaluator is checked against (every answer
walked down the tree with the two-pass colours of `termo.core.feedback` and the game's own win
rule, `Game.wins`; the mean summed with `math.fsum`)."""

from __future__ import annotations

import math

import pytest

from solver_oracles import tiny_game
from termo.core.feedback import colours, encode
from termo.games import get_game


@pytest.fixture(scope="module")
def mini():
    return get_game("nerdle-mini")


@pytest.fixture(scope="module")
def tiny():
    return tiny_game(80, 20)


@pytest.fixture(scope="module")
def mini_practical(mini):
    from termo.trees.build import build_tree

    return build_tree(mini, "practical")


@pytest.fixture(scope="module")
def tiny_level3(tiny):
    from termo.trees.build import build_tree

    return build_tree(tiny, "level3", tiny.probes[0])


def brute_force(tree, game):
    """Guesses per answer by walking the tree with scalar colours and `Game.wins` (no matrix)."""
    turns = []
    for a, answer in enumerate(game.answers_norm):
        node, k = tree.root, 1
        while True:
            if game.wins(node.guess, a):
                turns.append(k)
                break
            code = encode(colours(game.probes_norm[node.guess], answer))
            node = node.children.get(code)
            k += 1
            if node is None or k > 40:
                turns.append(0)
                break
    return turns


def check_against_brute_force(tree, game):
    from termo.core.prior import prior_weights
    from termo.trees.evaluate import evaluate

    data = evaluate(tree, game)
    turns = brute_force(tree, game)
    assert 0 not in turns, "the tree misses an answer"
    w = [float(x) for x in prior_weights(game.icf, tree.t)]
    assert data["answers"] == game.n_answers == len(turns)
    assert data["mean"] == pytest.approx(math.fsum(wi * k for wi, k in zip(w, turns)), abs=1e-12)
    assert data["total"] == sum(turns)
    assert data["worst"] == max(turns)
    assert data["histogram"] == [turns.count(k) for k in range(1, max(turns) + 1)]
    assert data["losses"] == sum(1 for k in turns if k > game.max_turns)
    assert data["missing"] == 0
    return data
