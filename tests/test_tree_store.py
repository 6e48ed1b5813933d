"""Stored strategy trees: the tree file, `termo tree build|eval|show`, walking a tree in suggest and
play, and the shipped and cached trees the store serves. The builders and the evaluator:
tests/test_trees.py.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from termo.core.errors import TermoError
from termo.core.feedback import colours, encode
from termo.games import get_game

from tree_fixtures import mini, mini_practical  # noqa: F401 (fixtures)


# ----------------------------------------------------------------------------- the file


def test_round_trip_plain_and_gzip(tmp_path, mini, mini_practical):
    from termo.trees.fileformat import read_tree, write_tree

    for name in ("t.tree", "t.tree.gz"):
        path = write_tree(mini_practical, mini, tmp_path / name)
        back, game = read_tree(path)
        assert game is mini
        assert [(p, n.guess) for p, n in back.root.walk()] == [(p, n.guess) for p, n in mini_practical.root.walk()]
        assert (back.method, back.key, back.opener, back.beam, back.depth) == (
            "practical", mini_practical.key, mini.default_opener, 10, 1)
    plain = (tmp_path / "t.tree").read_bytes()
    assert gzip.decompress((tmp_path / "t.tree.gz").read_bytes()) == plain
    lines = plain.decode().splitlines()
    assert len(lines) == 1 + mini_practical.nodes
    assert lines[1] == f"- {mini.default_opener}"
    # the same tree gives the same bytes (no timestamp)
    write_tree(mini_practical, mini, tmp_path / "again.tree.gz")
    assert (tmp_path / "again.tree.gz").read_bytes() == (tmp_path / "t.tree.gz").read_bytes()


def _damage(text: str, how: str) -> str:
    head, *body = text.split("\n")
    if how == "guess":
        body[3] = body[3].rsplit(" ", 1)[0] + " 9*9=81"
    elif how == "drop":
        del body[5]
    elif how == "header":
        head = head.replace('"method":"practical"', '"method":"level3"')
    elif how == "version":
        head = head.replace("termo-tree/1", "termo-tree/9")
    elif how == "junk":
        return "hello\nworld\n"
    return "\n".join([head] + body)


@pytest.mark.parametrize("how, words", [
    ("guess", "checksum"), ("drop", "checksum"), ("header", "checksum"), ("version", "termo-tree/9"),
    ("junk", "not a tree header"),
])
def test_damaged_files_are_refused_with_one_line(tmp_path, mini, mini_practical, how, words, capsys):
    from cli.app import main
    from termo.trees.fileformat import read_tree, write_tree

    path = write_tree(mini_practical, mini, tmp_path / "t.tree")
    path.write_text(_damage(path.read_text(), how))
    with pytest.raises(TermoError, match=words):
        read_tree(path)
    code = main(["tree", "eval", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "not a usable tree file" in err


def _bomb(path, header: str, size: int) -> None:
    """A gzip file whose header line is sound and whose body inflates to ``size`` bytes."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"-" * (1 << 20)
    parts = [packer.compress(header.encode() + b"\n")]
    parts += [packer.compress(chunk) for _ in range(size // len(chunk))]
    path.write_bytes(b"".join(parts) + packer.flush())


def test_a_gzip_bomb_in_a_tree_folder_is_refused_before_it_is_inflated(tmp_path, mini, mini_practical, monkeypatch,
                                                                        capsys):
    """A small file that inflates to 256 MB: refused after at most the cap, memory bounded (the
    audit's 1.6 MB one cost 6.3 GB and 37 s); the other trees of the folder are still served."""
    import tracemalloc

    from termo.trees import fileformat, store
    from termo.trees.fileformat import read_header, write_tree

    folder = tmp_path / "trees"
    folder.mkdir()
    good = write_tree(mini_practical, mini, folder / f"{mini.label}-practical.tree.gz")
    head = gzip.decompress(good.read_bytes()).decode().split("\n", 1)[0]
    bomb = folder / f"{mini.label}-bomb.tree.gz"
    _bomb(bomb, head, 256 << 20)
    assert bomb.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(TermoError, match="more than"):
            read_header(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < fileformat.MAX_TREE_BYTES + (16 << 20)
    plain = folder / f"{mini.label}-big.tree"
    with open(plain, "wb") as handle:
        handle.truncate(fileformat.MAX_TREE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(TermoError, match="more than"):
        read_header(plain)
    monkeypatch.setattr(store, "shipped_dir", lambda: folder)
    found = store.candidates(mini)
    assert [t.method for t in found] == [mini_practical.method]


def test_a_resealed_file_with_bad_nodes_is_refused(tmp_path, mini, mini_practical):
    """Checksums recomputed after an edit: the node checks still catch a bad guess, a missing
    parent, a branch below the win and a tree of another game or rule."""
    from termo.core.cache import canonical_json, seal
    from termo.trees.fileformat import _digest, read_tree, write_tree

    path = write_tree(mini_practical, mini, tmp_path / "t.tree")
    head, *body = path.read_text().rstrip("\n").split("\n")

    def reseal(lines, **changes):
        payload = {k: v for k, v in json.loads(head).items() if k != "sha256"}
        payload.update(body_sha256=_digest(lines), nodes=len(lines), **changes)
        path.write_text(canonical_json(seal(payload)) + "\n" + "\n".join(lines) + "\n")

    eq = mini.answers[0]
    reseal(body[:1] + [f"BBBBBB.GGGGGB {eq}"])
    with pytest.raises(TermoError, match="parent"):
        read_tree(path)
    reseal(body[:1] + [f"GGGGGG {eq}"])
    with pytest.raises(TermoError, match="winning pattern"):
        read_tree(path)
    reseal(body[:1] + ["BBBBBB zzzzzz"])
    with pytest.raises(TermoError, match="not a guess"):
        read_tree(path)
    reseal(body[:1] + [f"BBBXBB {eq}"])
    with pytest.raises(TermoError, match="bad pattern"):
        read_tree(path)
    reseal(body)
    with pytest.raises(TermoError, match="not of 'nerdle'"):
        read_tree(path, get_game("nerdle"))
    reseal(body, win_rule="exact")  # the strict game: another matrix, another key
    with pytest.raises(TermoError, match="key differs"):
        read_tree(path)


# ----------------------------------------------------------------------------- the commands


def test_cli_build_eval_show(tmp_path, mini, capsys):
    from cli.app import main

    out = tmp_path / "mini.tree.gz"
    assert main(["tree", "build", "--game", "nerdle-mini", "--method", "practical", "--out", str(out), "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["file"] == str(out) and built["nodes"] > mini.n_answers // 2
    assert main(["tree", "eval", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("mean", "histogram", "worst", "losses", "answers"):
        assert key in data
    assert data["mean"] == built["mean"] and data["answers"] == 206
    assert main(["tree", "show", str(out), "--depth", "1"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"start -> {mini.default_opener}  (206 answers")
    assert main(["tree", "show", str(out), "--answer", "12/3=4", "--json"]) == 0
    path = json.loads(capsys.readouterr().out)
    assert path["solved"] and path["steps"][0]["guess"] == mini.default_opener
    assert path["steps"][-1]["pattern"] == "GGGGGG"
    assert main(["tree", "show", str(out), "--answer", "nope"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_build_without_out_goes_to_the_cache_and_is_walked(tmp_path, monkeypatch, capsys):
    from cli.app import main

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    assert main(["tree", "build", "--game", "nerdle-mini", "--method", "level3", "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["file"].startswith(str(tmp_path / "trees"))
    from termo.trees.store import find_tree

    game = get_game("nerdle-mini")
    found = find_tree(game, 3, 1.0, False, 10, 1, game.default_opener)
    assert found is not None
    # a level-3 playout serves only its own beam and depth, level 3, and not hard mode
    assert find_tree(game, 3, 1.0, False, 20, 1, game.default_opener) is None or found.method != "level3"
    assert all(tr.method != "level3" for tr in filter(None, [find_tree(game, 2, 1.0, False, 10, 1, None)]))
    assert find_tree(game, 3, 1.0, True, 10, 1, game.default_opener) is None


# ----------------------------------------------------------------------------- walking


def _history_on(tree, game, answer, rounds):
    """The first ``rounds`` history items the tree plays against ``answer``."""
    items, node = [], tree.root
    a = game.index_of(answer)
    for _ in range(rounds):
        pattern = colours(game.probes_norm[node.guess], game.answers_norm[a])
        items.append(f"{game.probes[node.guess]}:{pattern}")
        node = node.children[encode(pattern)]
    return items, node


def test_suggest_marks_tree_and_live(tmp_path, mini, mini_practical):
    from termo.interface.suggest import suggest
    from termo.trees.fileformat import write_tree

    path = write_tree(mini_practical, mini, tmp_path / "m.tree")
    items, node = _history_on(mini_practical, mini, "12/3=4", 1)
    data = suggest(mini, items, tree=str(path))
    assert data["source"] == "tree" and data["tree"] == "practical"
    assert data["word"] == mini.probes[node.guess] and data["alternatives"] == []
    assert data["expected"] >= 1.0
    # the opener is live (it is the tree's root anyway)
    opener = suggest(mini, [], tree=str(path))
    assert opener["source"] == "live" and opener["word"] == mini.default_opener
    # a round the tree does not play: the live ranking answers
    other = next(w for w in mini.answers if w not in (mini.default_opener, "12/3=4"))
    off = suggest(mini, [f"{other}:{colours(mini.normalize(other), '12/3=4')}"], tree=str(path))
    assert off["source"] == "live"
    # no tree in play: the keys as before (no "source")
    plain = suggest(mini, items, level=2)
    assert "source" not in plain and "tree" not in plain


def test_suggest_cli_walks_a_tree_file_and_no_tree_turns_it_off(tmp_path, mini, mini_practical, capsys):
    from cli.app import main
    from termo.trees.fileformat import write_tree

    path = write_tree(mini_practical, mini, tmp_path / "m.tree.gz")
    items, node = _history_on(mini_practical, mini, "12/3=4", 2)
    assert main(["suggest", "--game", "nerdle-mini", *items, "--tree", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == "tree" and data["word"] == mini.probes[node.guess]
    assert main(["suggest", "--game", "nerdle-mini", *items, "--no-tree", "--json"]) == 0
    assert "source" not in json.loads(capsys.readouterr().out)  # no tree in play
    # the shipped Mini tree serves the default configuration: off its path, "live"
    other = next(w for w in mini.answers if w not in (mini.default_opener, "12/3=4"))
    assert main(["suggest", "--game", "nerdle-mini", f"{other}:{colours(mini.normalize(other), '12/3=4')}",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "live"
    assert main(["suggest", "--game", "nerdle-mini", *items, "--tree", str(path), "--hard"]) == 2
    assert "other options" in capsys.readouterr().err
    assert main(["suggest", "--game", "wordle-ru", "--tree", str(path)]) == 2
    assert "not of 'wordle-ru'" in capsys.readouterr().err


def test_play_follows_the_tree_and_leaves_it(tmp_path, mini, mini_practical):
    """A scripted `Play` session: the suggestions come from the tree while the rounds follow it;
    a round with another guess leaves it and the live ranking answers from then on."""
    from termo.interface.play import Play
    from termo.interface.suggest import Advisor, Config

    items, node = _history_on(mini_practical, mini, "12/3=4", 2)
    first, second = (item.split(":") for item in items)
    out = []
    # round 1 on the tree, round 2 colours alone (the tree's word), then a new game that leaves it
    other = next(w for w in mini.answers if w not in (first[0], mini.probes[mini_practical.root.guess]))
    other_pattern = colours(mini.normalize(other), "12/3=4")
    lines = [f"{first[0]} {first[1]}", second[1], "new", f"{mini.default_opener} {first[1]}",
             f"{other} {other_pattern}", "quit"]
    play = Play(mini, Advisor(mini, Config(level=2), tree=mini_practical), lines, out.append, error=out.append)
    assert play.run() == 0
    text = "".join(out)
    blocks = text.split("for guess ")
    tree_blocks = [b for b in blocks if "(from the stored practical tree)" in b]
    assert len(tree_blocks) >= 3  # guesses 2 and 3 of game 1, guess 2 of game 2
    assert f"suggestion:      {mini.probes[node.guess]}" in tree_blocks[1]
    last = blocks[-1]
    assert last.startswith("3/6") and "stored" not in last  # off the tree: live (level 2)


@pytest.mark.slow
def test_piped_termo_play_nerdle_follows_the_shipped_tree_and_leaves_it():
    """`termo play --game nerdle` piped: the shipped practical tree answers while the rounds
    follow it, the live search once they leave it."""
    from termo.trees.store import find_tree

    game = get_game("nerdle")
    tree = find_tree(game, 3, 1.0, False, 10, 1, game.default_opener)
    assert tree is not None
    secret = "12+35=47"
    items, node = _history_on(tree, game, secret, 1)
    guess, pattern = items[0].split(":")
    wrong = next(w for w in game.answers[:50] if w != game.probes[node.guess]
                 and colours(game.normalize(w), secret) != game.win_pattern)
    script = f"{guess} {pattern}\n{wrong} {colours(game.normalize(wrong), secret)}\nquit\n"
    proc = subprocess.run([sys.executable, "-m", "cli", "play", "--game", "nerdle"], input=script,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    blocks = proc.stdout.split("for guess ")
    assert f"(from the stored {tree.method} tree)" in blocks[2] and game.probes[node.guess] in blocks[2]
    assert "stored" not in blocks[3]


# ----------------------------------------------------------------------------- the shipped and cached trees


def test_the_shipped_trees_serve_only_their_configuration():
    from termo.interface.suggest import Advisor, Config
    from termo.trees.store import find_tree

    game = get_game("nerdle")
    tree = find_tree(game, 3, 1.0, False, 10, 1, game.default_opener)
    # the default configuration plays the exact tree's opener (its proved 2.9519 beats the level-3
    # playout's 2.9748 from 48-32=16, which serves that opener instead)
    assert tree is not None and tree.method == "exact" and tree.opener == game.default_opener
    assert tree.info["proved"] is True and tree.info["eval"]["mean"] < 2.96
    level3 = find_tree(game, 3, 1.0, False, 10, 1, "48-32=16")
    assert level3 is not None and level3.method == "level3" and level3.info["eval"]["mean"] < 3.0
    assert find_tree(game, 2, 1.0, False, 10, 1, game.default_opener) is None
    assert find_tree(game, 3, 1.0, False, 20, 1, game.default_opener) is None
    assert find_tree(game, 3, 1.0, True, 10, 1, game.default_opener) is None
    assert find_tree(game, 3, 1.0, False, 10, 1, "52-34=18") is None
    assert find_tree(get_game("nerdle", strict=True), 3, 1.0, False, 10, 1, game.default_opener) is None
    assert Advisor(game, Config(), tree="auto").tree is not None
    assert Advisor(game, Config(opener="optimal"), tree="auto").tree is None
    assert Advisor(game, Config(), tree=None).tree is None
    assert find_tree(get_game("termo"), 3, 1.0, False, 10, 1, "tarso") is None  # nothing shipped for Termo


def test_rank_prefers_a_proved_exact_tree_then_the_lowest_noted_mean(mini_practical):
    import dataclasses

    from termo.trees.store import rank

    def variant(method, mean, **info):
        return dataclasses.replace(mini_practical, method=method, info={"eval": {"mean": mean}, **info})

    trees = [variant("level3", 2.6), variant("practical", 2.55), variant("exact", 2.56),
             variant("exact", 2.56, proved=True), variant("practical", None)]
    order = sorted(trees, key=rank)
    assert [(t.method, t.info["eval"]["mean"]) for t in order] == [
        ("exact", 2.56), ("practical", 2.55), ("exact", 2.56), ("level3", 2.6), ("practical", None)]
    assert order[0].info.get("proved") is True


def test_shipped_files_read_back_and_are_small():
    from termo.core.paths import data_dir
    from termo.trees.fileformat import read_tree

    files = sorted((data_dir() / "trees").glob("*.tree.gz"))
    assert {p.name for p in files} >= {"nerdle-practical.tree.gz", "nerdle-level3.tree.gz",
                                       "nerdle-mini-practical.tree.gz", "wordle-exact.tree.gz"}
    for path in files:
        assert path.stat().st_size < 512 * 1024
        tree, game = read_tree(path)
        assert game.index_of(tree.opener) == tree.root.guess
        # built from the game's interface opener, except Nerdle Classic's level-3 and practical
        # trees, built from its best first guess by entropy (the interface opener is the exact tree's)
        assert tree.opener == game.default_opener or (path.name in ("nerdle-level3.tree.gz", "nerdle-practical.tree.gz")
                                                      and tree.opener == "48-32=16")


def test_a_damaged_cached_tree_is_reported_dropped_and_not_walked(tmp_path, monkeypatch, mini, mini_practical, capsys):
    from termo.trees import store
    from termo.trees.fileformat import write_tree

    monkeypatch.setenv("TERMO_CACHE_DIR", str(tmp_path))
    path = write_tree(mini_practical, mini, store.cache_path(mini_practical))
    path.write_bytes(path.read_bytes()[:-40])
    found = store.find_tree(mini, 3, 1.0, False, 10, 1, mini.default_opener)
    assert found is None or found.info.get("eval")  # the shipped Mini tree still serves
    assert not path.exists()
    assert "stored trees: ignoring" in capsys.readouterr().err
