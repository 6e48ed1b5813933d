"""The bounds of the CLI's count options, checked in one place.

Every option that sizes work (a beam, a depth, a battery, a number of rows, a chunk) has a
largest value, said in its ``--help`` and checked here before any work starts, so that no
command line can ask for unbounded memory or time: a value out of range is one line on stderr
and exit code 2 (a `TermoError`). The bounds of a level-3 search (``--beam`` at most the game's
probes, ``--depth`` at most its tries minus one) belong to the library's
`termo.interface.suggest.Config`; :func:`check_search` asks it.
"""

from __future__ import annotations

from termo.core.errors import TermoError
from termo.interface.requests import check_int

# static bounds (the ones that do not depend on the game)
MAX_PATTERNS = 50  # bench second-guess: one plot panel per pattern
MAX_SEED = 2**64 - 1  # a 64-bit seed (numpy's default_rng takes non-negative integers)
MAX_COLUMNS = 64  # robustness: each column is a whole sweep

BEAM_HELP = "100, or the game's probe count if smaller: the search's memory grows with the beam"
DEPTH_HELP = "the game's tries minus 1, 5 in a 6-try game: the search cannot look past the last try"


def _title(game) -> str:
    return getattr(game, "title", "") or getattr(game, "name", "the game")


def check_top(game, top: int, name: str = "top") -> int:
    """Rows of a probe ranking: at most the game's probes."""
    return check_int(name, top, 1, game.n_probes, f"{_title(game)} has {game.n_probes:,} probes")


def check_answers(game, n: int | None, name: str = "n") -> int | None:
    """A battery size: at most the game's answers (None: the default)."""
    if n is None:
        return None
    return check_int(name, n, 1, game.n_answers, f"{_title(game)} has {game.n_answers:,} answers")


def check_search(game, beam: int, depth: int) -> None:
    """The level-3 ``--beam``/``--depth`` of a bench command against ``game`` (the bounds of
    `termo.interface.suggest.Config`, with the options' names)."""
    from termo.interface.suggest import Config

    try:
        Config(level=3, beam=beam, depth=depth).check_game(game)
    except TermoError as err:
        text = str(err)
        raise err.reworded(text if text.startswith("--") else f"--{text}") from None
