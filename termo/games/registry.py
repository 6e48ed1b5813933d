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


# --------------------------------------------------------------------------- modes
# name -> (base game, boards, shared turn limit, title): several boards of one game at once
# (`termo.games.mode.Mode`). They are not games of ``--game`` yet: GAME_NAMES lists none of them.
_MODES = {
    "dueto": ("termo", 2, 7, "Dueto"),
    "quarteto": ("termo", 4, 9, "Quarteto"),
    "dordle": ("wordle", 2, 7, "Dordle"),
    "quordle": ("wordle", 4, 9, "Quordle"),
    "octordle": ("wordle", 8, 13, "Octordle"),
    "binerdle": ("nerdle", 2, 7, "Binerdle"),
    "quad-nerdle": ("nerdle", 4, 10, "Quad Nerdle"),
}
MODE_NAMES = tuple(_MODES)


def get_mode(name: str | None = None, **options):
    """The mode called ``name``: one of `MODE_NAMES`, or a game's name (its one-board mode, see
    `termo.games.mode.Mode.single`); ``options`` go to `get_game` for the base game."""
    from termo.games.mode import Mode

    key = str(name).strip().lower().replace("_", "-") if name is not None else None
    if key not in _MODES:
        try:
            return Mode.single(get_game(name, **options))
        except TermoError as err:
            if err.code != "game.unknown":
                raise
            shown = str(name)[:40]
            choices = list(GAME_NAMES + MODE_NAMES)
            raise TermoError(f"unknown game or mode {shown!r}; choose one of: {', '.join(choices)}",
                             "game.unknown", {"name": shown, "choices": choices}) from None
    base, boards, turns, title = _MODES[key]
    return Mode(get_game(base, **options), boards, turns, key=key, title=title)
