"""Games as plugins: each game is a module that builds a :class:`~termo.games.base.Game`.

``get_game(name)`` looks a game up in the registry (``termo``, ``nerdle``, ``nerdle-mini``,
``wordle``, ``wordle-ru``, ``wordle-nyt``, ``wordle-nyt-2022``); ``get_mode(name)`` a mode of several boards of one game (``dueto``,
``quarteto``, ``dordle``, ``quordle``, ``octordle``, ``binerdle``, ``quad-nerdle``). The package imports no plugin: a game's module loads when it is asked for.
"""

from termo.games.base import EXACT, Game
from termo.games.mode import Mode
from termo.games.registry import DEFAULT_GAME, GAME_NAMES, MODE_NAMES, get_game, get_mode, resolve_name

__all__ = ["EXACT", "Game", "Mode", "DEFAULT_GAME", "GAME_NAMES", "MODE_NAMES", "get_game", "get_mode", "resolve_name"]
