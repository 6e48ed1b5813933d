"""The one request module: where both front ends turn what a user gave into a request.

The CLI reads its options as text (``--level 3``, ``--t inf``), the web app as JSON values
(``"level": 3``, ``"t": "inf"``); both hand them to the functions here, which accept either
(an integer or its text, a number or its text), so one bad value gets one message, whichever
front end it came through, and a good one the same request:

- `load_game`: the game of a request (`termo.games.get_game`); `load_mode`: a game or a mode of
  several boards (a game is the mode of one board: `termo.games.get_mode`), for the commands that
  play either;
- `parse_int` / `check_int`: an integer option within its bounds; `parse_seconds` /
  `check_seconds`: a time budget;
- `parse_t`: a prior temperature (a positive number, or ``inf``); `as_float`: an integer as a number;
- `parse_config`: the solver configuration (level, T, beam, depth, opener, hard mode), with the
  bounds its game sets; `tree_spec`: what the advisor is told about stored strategy trees;
- `USER_ERRORS`: the errors that are the user's (one line, never a traceback).

Messages name an option by its flag (``--level``); the web app words them in its field names.
"""

from __future__ import annotations

import math

from backends import BackendUnavailable
from termo.core.errors import TermoError

USER_ERRORS = (TermoError, BackendUnavailable)

MAX_TIMEOUT = 86_400.0  # seconds (a day): no time budget is unbounded


def load_game(name: str | None = None, extended: bool = False, strict: bool = False):
    """The game a request names (None: ``$TERMO_GAME``, else termo; see `termo.games.get_game`)."""
    from termo.games import get_game

    return get_game(name, extended=extended, strict=strict)


def load_mode(name: str | None = None, extended: bool = False, strict: bool = False):
    """The game or mode a request names, as a `termo.games.mode.Mode` (one board for a game)."""
    from termo.games import get_mode

    return get_mode(name, extended=extended, strict=strict)


# ----------------------------------------------------------------------------- numbers


def parse_int(name: str, value, low: int, high: int | None = None, why: str = "") -> int:
    """An integer option ``--name`` (an int, or its text as typed) within ``[low, high]``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return check_int(name, value, low, high, why)
    text = _text(value)
    try:
        number = int(text.strip())
    except ValueError:
        raise TermoError(f"--{name} takes an integer, not {text!r}", "option.integer",
                         {"name": name, "value": text}) from None
    return check_int(name, number, low, high, why)


def _text(value) -> str:
    """A value that is not the number asked for, as a message echoes it (JSON's true/false)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_int(name: str, value: int, low: int, high: int | None = None, why: str = "") -> int:
    """``value`` of ``--name`` within ``[low, high]`` (``why``: the reason of the upper bound)."""
    if value < low:
        raise TermoError(f"--{name} must be at least {low}, not {value}", "option.at_least",
                         {"name": name, "low": low, "value": value})
    if high is not None and value > high:
        reason = f" ({why})" if why else ""
        raise TermoError(f"--{name} must be at most {high:,}{reason}, not {value:,}", "option.at_most",
                         {"name": name, "high": high, "value": value})
    return value


def check_seconds(name: str, value: float, low: float = 0.0, high: float = MAX_TIMEOUT) -> float:
    """A finite number of seconds for ``--name`` within ``[low, high]``."""
    if not math.isfinite(value) or value < low or value > high:
        raise TermoError(f"--{name} takes a number of seconds from {low:g} to {high:g}, not {value!r}")
    return value


def parse_seconds(name: str, text, low: float = 0.001, high: float = MAX_TIMEOUT):
    """``--name SECONDS`` (a number or its text): None stays None, else a finite number within
    ``[low, high]`` (one bound for every time budget)."""
    if text is None:
        return None
    try:
        value = float(str(text).strip())
    except ValueError:
        raise TermoError(f"--{name} takes a number of seconds, not {text!r}") from None
    return check_seconds(name, value, low, high)


def as_float(value):
    """An integer as a float (one too large for a float is infinite, as its text reads:
    ``float("1000...0")``); anything else as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return value


def parse_t(value) -> float:
    """A prior temperature: a number, or its text (``0.5``, ``inf``; see
    `termo.core.prior.parse_temperature`)."""
    from termo.core.prior import parse_temperature

    value = as_float(value)
    return parse_temperature(_text(value) if isinstance(value, bool) else value)


def parse_loss(value) -> float:
    """``--loss``: what an answer not found within the tries costs, in guesses beyond them: a
    number of at least 0, or ``inf`` (every answer must be found); None: level 3's 7."""
    if value is None:
        from termo.engine.tree_search import LOSS_COST

        return LOSS_COST
    value = as_float(value)
    try:
        cost = float(str(value).strip()) if not isinstance(value, bool) else math.nan
    except ValueError:
        cost = math.nan
    if not cost >= 0:
        raise TermoError(f"loss must be a cost of at least 0 guesses or inf, not {_text(value)[:40]!r}")
    return cost


# ----------------------------------------------------------------------------- the configuration


def parse_config(level, t, beam, depth, opener: str = "default", backend=None, hard: bool = False, game=None,
                 objective: str = "finish"):
    """Check the options and build a `termo.interface.suggest.Config` (TermoError on a bad value);
    with ``game`` (a game, or a mode of several boards), also what its solvers take and the
    bounds the game sets (`Config.check_mode`: the levels, objectives and options of its family;
    ``--beam`` at most its probes, ``--depth`` at most its tries minus one), before any work
    starts. Numbers may be given as numbers or as their text."""
    from termo.interface.positions import as_mode
    from termo.interface.suggest import Config

    lvl = parse_int("level", level, 1)
    if lvl not in (1, 2, 3):
        raise TermoError(f"--level must be 1, 2 or 3, not {lvl}", "option.level", {"value": lvl})
    if opener not in ("default", "optimal"):
        raise TermoError(f"--opener must be 'default' or 'optimal', not {opener!r}", "option.opener", {"value": opener})
    temperature = parse_t(t)
    config = Config(
        level=lvl,
        t=temperature,
        beam=parse_int("beam", beam, 1),
        depth=parse_int("depth", depth, 0),
        opener=opener,
        backend=backend,
        hard=bool(hard),
        objective=str(objective).strip().lower(),
    )
    if game is not None:
        try:
            config.check_mode(as_mode(game))
        except TermoError as err:
            text = str(err)
            raise (err if text.startswith("--") else err.reworded(f"--{text}")) from None
    return config


def tree_spec(tree: str | None, no_tree: bool):
    """What `termo.interface.suggest.Advisor` is told about trees: None (live only), a file, or "auto"."""
    if no_tree and tree is not None:
        raise TermoError("--tree and --no-tree exclude each other")
    if no_tree:
        return None
    return tree if tree is not None else "auto"
