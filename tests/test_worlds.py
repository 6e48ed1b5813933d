"""The one World of the studies (termo.worlds.world): the analysis's open/closed worlds and the
robustness study's closed worlds are the same value; labels and recorded keys do not move."""

from __future__ import annotations

import math

from termo.analysis.worlds import closed_world, full_world, open_world
from termo.worlds.world import World, termo_answers, termo_defaults
from termo.robustness import world as robustness_world


def test_one_world_class():
    assert robustness_world.World is World
    assert type(full_world()) is World and type(closed_world(300)) is World


def test_describe_keeps_the_robustness_keys():
    # the checkpoint digests hash describe(): its keys and values must not change
    assert World(size=90).describe() == {"extended": False, "size": 90, "rounds": 6, "loss": 7.0, "game": None}
    assert World(game="termo").describe() == {"extended": False, "size": None, "rounds": 6, "loss": 7.0,
                                              "game": "termo"}


def test_kinds_and_names():
    assert World().kind == "full" and World(size=90).kind == "closed"
    assert full_world(t=1.0).name == "full T=1"
    assert full_world(t=math.inf, extended=True).name == "full T=inf ext"
    assert open_world(300).name == "open N=300 T=inf" and open_world(None, t=2.0).name == "open N=all T=2"
    assert closed_world(300, 0.5).name == "closed N=300 T=0.5" and closed_world(10**6).name == "closed N=all T=inf"


def test_closed_world_is_the_robustness_closed_world():
    """The analysis's closed game and the robustness sub-matrix world hold the same words."""
    closed = closed_world(40).load_game()
    data = robustness_world.load_game_world(World(size=40, game="termo"))
    assert closed.answers == closed.probes == data.answers == data.probes
    assert closed.icf == data.icf
    assert World(size=40, game="termo").cut() == sorted(World(size=40, kind="open", game="termo").initial)


def test_secrets_of_each_kind():
    assert full_world().initial is None and full_world().n_secrets == termo_answers() == 6046
    assert open_world(300).n_secrets == 300 and len(open_world(300).initial) == 300
    assert open_world(None).initial == tuple(range(6046))
    assert closed_world(300).initial is None and closed_world(300).candidates() == list(range(300))


def test_termo_defaults():
    assert termo_defaults() == (6, 243)
    assert termo_defaults(4, None) == (4, 243) and termo_defaults(None, 9) == (6, 9)
