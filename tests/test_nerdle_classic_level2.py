"""Nerdle Classic at level 2, the answers pinned: the same answers with the matrix read a few
rows at a time from its cache instead of held in memory. The figures were printed by the version
that mapped both 628 MB layouts whole and spot-checked them through the maps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# word, bits and alternatives of each pinned answer: the opener, the interface's first guess (the
# first guess of the exact solver's tree, docs/exact.md), after the opener, and a state of 458
PINNED = json.loads((Path(__file__).parent / "data" / "nerdle-classic-level2.json").read_text(encoding="utf-8"))


def _cli(capsys, *args):
    from cli.app import main

    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _pinned(data):
    return {"word": data["word"], "bits": data["bits"], "alternatives": [[a["word"], a["bits"]] for a in data["alternatives"]]}


@pytest.mark.slow  # builds the Nerdle Classic pattern matrix (10-20 s, 1.3 GB of cache)
def test_nerdle_classic_level2_answers_are_pinned(capsys):
    assert _pinned(_cli(capsys, "opener", "--game", "nerdle", "--level", "2")) == PINNED["opener"]
    assert _pinned(_cli(capsys, "suggest", "--game", "nerdle", "--level", "2")) == PINNED["interface"]
    after = _cli(capsys, "suggest", "--game", "nerdle", "--level", "2", "48-32=16:YBBGYGYB")
    assert after["candidates"] == 10 and _pinned(after) == PINNED["after_opener"]
    big = _cli(capsys, "suggest", "--game", "nerdle", "--level", "2", "10+20=30:BBBYBYBB")  # over 256: the exact path
    assert big["candidates"] == 458 and _pinned(big) == PINNED["big_state"]
    ranked = _cli(capsys, "rank", "--by", "entropy", "--game", "nerdle", "--top", "3")
    assert [(r["word"], r["bits"], r["groups"]) for r in ranked] == [
        ("48-32=16", 9.775177603990592, 1689), ("48-36=12", 9.75731345202032, 1657), ("43-25=18", 9.75133179268679, 1629)]
