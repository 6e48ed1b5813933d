"""The HTTP API, one router per resource (`ROUTERS`, included by `web.app.create_app`):

- `web.routes.suggest`: what to play next (``POST /api/suggest``, its several-board alias
  ``POST /api/mode/suggest``) and the opener (``GET /api/opener``);
- `web.routes.positions`: the candidates a history leaves (``POST /api/candidates``, its
  several-board alias ``POST /api/mode/boards``);
- `web.routes.words`: a guess against an answer and its groups (``POST /api/feedback``,
  ``POST /api/partition``);
- `web.routes.games`: the games and modes (``GET /api/games``, ``GET /api/modes``) and the
  server's health (``GET /api/health``);
- `web.routes.review`: the review of a game and its share text (``POST /api/review``).

What they share (the worker pools, the call of a library function, the answer) is
`web.routes.common`. The pages are `web.routes.pages` (every board, ``/docs``; included last:
``/{name}``) and `web.routes.puzzles` (Nerdle's puzzle pages and their API). A game is the mode of one board: every endpoint that plays takes either.
"""

from web.routes import games, positions, review, suggest, words

ROUTERS = (suggest.router, positions.router, words.router, games.router, review.router)
