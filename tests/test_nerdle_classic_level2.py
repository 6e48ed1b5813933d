"""Nerdle Classic at level 2, the answers pinned: the same answers with the matrix read a few
rows at a time from its cache instead of held in memory. The figures were printed by the version
that mapped both 628 MB layouts whole and spot-checked them through the maps."""

from __future__ import annotations

import json

import pytest

OPENER = ("48-32=16", 9.775177603990592, [("48-36=12", 9.75731345202032), ("43-25=18", 9.75133179268679),
                                          ("46-27=19", 9.745805642161757), ("45-27=18", 9.743246470310378),
                                          ("46-29=17", 9.743076673162479)])
AFTER_OPENER = ("1-7+11=5", 3.3219280948873635, [("11+1-7=5", 3.3219280948873635), ("11+3-9=5", 3.3219280948873635),
                                                 ("11+64=75", 3.3219280948873635), ("11+74=85", 3.3219280948873635),
                                                 ("11+84=95", 3.3219280948873635)])
# the interface opener, the first guess of the exact solver's tree (docs/exact.md), then the best by entropy
INTERFACE = ("54-38=16", 9.719802446285874, [("48-32=16", 9.775177603990592), ("48-36=12", 9.75731345202032),
                                             ("43-25=18", 9.75133179268679), ("46-27=19", 9.745805642161757),
                                             ("45-27=18", 9.743246470310378)])
BIG_STATE = ("7*94=658", 7.903126489082295, [("4*68=272", 7.895210216362993), ("9*84=756", 7.8737008868823555),
                                             ("57-8*6=9", 7.803238703139381), ("6*47=282", 7.799600859816007),
                                             ("4*57=228", 7.796011532693732)])


def _cli(capsys, *args):
    from cli.app import main

    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _pinned(data):
    return data["word"], data["bits"], [(a["word"], a["bits"]) for a in data["alternatives"]]


@pytest.mark.slow  # builds the Nerdle Classic pattern matrix (10-20 s, 1.3 GB of cache)
def test_nerdle_classic_level2_answers_are_pinned(capsys):
    assert _pinned(_cli(capsys, "opener", "--game", "nerdle", "--level", "2")) == OPENER
    assert _pinned(_cli(capsys, "suggest", "--game", "nerdle", "--level", "2")) == INTERFACE
    after = _cli(capsys, "suggest", "--game", "nerdle", "--level", "2", "48-32=16:YBBGYGYB")
    assert after["candidates"] == 10 and _pinned(after) == AFTER_OPENER
    big = _cli(capsys, "suggest", "--game", "nerdle", "--level", "2", "10+20=30:BBBYBYBB")  # over 256: the exact path
    assert big["candidates"] == 458 and _pinned(big) == BIG_STATE
    ranked = _cli(capsys, "rank", "--by", "entropy", "--game", "nerdle", "--top", "3")
    assert [(r["word"], r["bits"], r["groups"]) for r in ranked] == [
        ("48-32=16", 9.775177603990592, 1689), ("48-36=12", 9.75731345202032, 1657), ("43-25=18", 9.75133179268679, 1629)]
