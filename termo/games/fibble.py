"""Fibble: a game whose every row of colours tells exactly one lie (docs/rules.md §13.2).

One secret answer, as in the base game, but in each row of a wrong guess exactly one tile shows a
colour other than its true one (any tile, either other colour: the feedback model
`termo.core.feedback_model.ONE_LIE`); a guess that is the answer wins and is shown all green. Nine
rows. The base game gives the lists, the prior and the typed forms: ``base="wordle"`` (English
Wordle, original lists) or ``base="termo"`` (Termo, its accents and ICF prior).
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

from termo.core.errors import TermoError
from termo.core.feedback_model import ONE_LIE
from termo.games.base import Game

ROWS = 9
BASES = {  # base -> (registry name, title, description)
    "wordle": ("fibble", "Fibble", "Fibble: English Wordle's original lists, one lie in every row, 9 rows"),
    "termo": ("fibble-termo", "Fibble (Termo)", "Fibble on Termo's lists and prior: one lie in every row, 9 rows"),
}


@lru_cache(maxsize=None)
def fibble_game(base: str = "wordle", extended: bool = False) -> Game:
    if base not in BASES:
        raise TermoError(f"unknown Fibble base game {str(base)[:40]!r}; choose one of: {', '.join(BASES)}")
    if base == "termo":
        from termo.games.termo_pt import termo_game

        game = termo_game(extended=extended)
    else:
        from termo.games.wordle_en import wordle_game

        game = wordle_game()
    name, title, description = BASES[base]
    return dataclasses.replace(game, name=name + ("-extended" if game.extended else ""), key=name, title=title,
                               max_turns=ROWS, feedback=ONE_LIE, description=description,
                               normal_forms=(game.answers_norm, game.probes_norm))


def make(extended: bool = False, strict: bool = False, base: str = "wordle") -> Game:
    """Registry factory: ``base`` is the game whose lists are played (wordle or termo)."""
    return fibble_game(base, extended)
