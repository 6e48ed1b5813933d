"""Lazy registry of games: a game's module is imported (and its lists read) only when asked for.

Each row names the module holding the game's factory ``make(extended=False, strict=False)``.
``TERMO_GAME`` chooses the game when a command is not told (default ``termo``).
"""

from __future__ import annotations

import importlib
import os

from termo.core.errors import TermoError

# name -> (module with make(), one-line description)
_SPECS = {
    "termo": ("termo.games.termo_pt", "Termo (term.ooo): Portuguese, 5 letters, 6 tries, accents ignored"),
    "nerdle": ("termo.games.nerdle", "Nerdle Classic: 8-tile equations, 6 tries"),
    "nerdle-mini": ("termo.games.nerdle", "Nerdle Mini: 6-tile equations, 6 tries"),
    "wordle": ("termo.games.wordle_en", "English Wordle, original lists (2,315 answers, 12,972 guesses)"),
    "wordle-ru": ("termo.games.wordle_ru", "Russian Wordle (wordle.belousov.one lists)"),
}
GAME_NAMES = tuple(_SPECS)
DEFAULT_GAME = "termo"
ENV_VAR = "TERMO_GAME"


def resolve_name(name: str | None = None) -> str:
    """The registry name for ``name`` (None: ``$TERMO_GAME``, else termo); TermoError if unknown."""
    raw = name if name is not None else os.environ.get(ENV_VAR) or DEFAULT_GAME
    key = str(raw).strip().lower().replace("_", "-")
    if key not in _SPECS:
        shown = str(raw)[:40]
        raise TermoError(f"unknown game {shown!r}; choose one of: {', '.join(GAME_NAMES)}", "game.unknown",
                         {"name": shown, "choices": list(GAME_NAMES)})
    return key


def get_game(name: str | None = None, extended: bool = False, strict: bool = False, **options):
    """The game called ``name`` (see :func:`resolve_name`), built once per option set."""
    key = resolve_name(name)
    module = importlib.import_module(_SPECS[key][0])
    if key.startswith("nerdle"):
        options.setdefault("mini", key == "nerdle-mini")
    return module.make(extended=extended, strict=strict, **options)


def describe(name: str) -> str:
    return _SPECS[resolve_name(name)][1]
