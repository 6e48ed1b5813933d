"""Games as plugins: each game is a module that builds a :class:`~termo.games.base.Game`.

``get_game(name)`` looks a game up in the registry (``termo``, ``nerdle``, ``nerdle-mini``,
``wordle``, ``wordle-ru``); ``termo_game()`` is the Termo game itself.
"""

from termo.games.base import EXACT, Game
from termo.games.registry import DEFAULT_GAME, GAME_NAMES, get_game, resolve_name
from termo.games.termo_pt import termo_game

__all__ = ["EXACT", "Game", "DEFAULT_GAME", "GAME_NAMES", "get_game", "resolve_name", "termo_game"]
