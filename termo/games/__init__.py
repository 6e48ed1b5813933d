"""Games as plugins: each game is a module that builds a :class:`~termo.games.base.Game`.

``get_game(name)`` looks a game up in the registry (``termo``, ``nerdle``, ``nerdle-mini``,
``wordle``, ``wordle-ru``). The package imports no plugin: a game's module loads when it is asked for.
"""

from termo.games.base import EXACT, Game
from termo.games.registry import DEFAULT_GAME, GAME_NAMES, get_game, resolve_name

__all__ = ["EXACT", "Game", "DEFAULT_GAME", "GAME_NAMES", "get_game", "resolve_name"]
