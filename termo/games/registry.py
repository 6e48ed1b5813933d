"""Lazy registry of games: a game's module is imported (and its lists read) only when asked for.

Each row names the module holding the game's factory ``make(extended=False, strict=False, **options)``
and the options that make it this game (one plugin may build several: Nerdle and Nerdle Mini,
English Wordle on each of its list editions).
``TERMO_GAME`` chooses the game when a command is not told (default ``termo``).
"""

from __future__ import annotations

import importlib
import os

from termo.core.errors import TermoError

# name -> (module with make(), one-line description, options of make() fixed by this row)
_SPECS = {
    "termo": ("termo.games.termo_pt", "Termo (term.ooo): Portuguese, 5 letters, 6 tries, accents ignored", ()),
    "nerdle": ("termo.games.nerdle", "Nerdle Classic: 8-tile equations, 6 tries", (("mini", False),)),
    "nerdle-mini": ("termo.games.nerdle", "Nerdle Mini: 6-tile equations, 6 tries", (("mini", True),)),
    "wordle": ("termo.games.wordle_en", "English Wordle, original lists (2,315 answers, 12,972 guesses)", ()),
    "wordle-ru": ("termo.games.wordle_ru", "Russian Wordle (wordle.belousov.one lists)", ()),
    "wordle-nyt": ("termo.games.wordle_en", "English Wordle, NYT lists (3,158 answers of 2023-07-01, 14,855 guesses)",
                   (("answer_list", "nyt"),)),
    "wordle-nyt-2022": ("termo.games.wordle_en",
                        "English Wordle, NYT lists (2,309 answers of 2022-08-30, 14,855 guesses)",
                        (("answer_list", "nyt-2022"),)),
    "absurdle": ("termo.games.absurdle", "Absurdle (qntm): the adversary keeps the largest group of answers "
                 "(2,311 answers, 12,927 guesses)", ()),
    "fibble": ("termo.games.fibble", "Fibble: English Wordle with one lie in every row of colours, 9 rows",
               (("base", "wordle"),)),
    "fibble-termo": ("termo.games.fibble", "Fibble on Termo: one lie in every row of colours, 9 rows",
                     (("base", "termo"),)),
}
GAME_NAMES = tuple(_SPECS)
DEFAULT_GAME = "termo"
ENV_VAR = "TERMO_GAME"


def resolve_name(name: str | None = None) -> str:
    """The registry name for ``name`` (None: ``$TERMO_GAME``, else termo); TermoError if unknown,
    or if it names a mode of several boards (`get_mode` builds those)."""
    raw = _raw(name)
    key = _key(raw)
    if key in _MODES:
        base, boards, turns, title, _ = _MODES[key]
        raise TermoError(f"{key!r} is a mode of {boards} {_base_title(base)} boards "
                         f"({turns} tries); this command plays one board: modes are played by `termo suggest` "
                         f"and `termo play` (docs/modes.md)")
    if key not in _SPECS:
        shown = str(raw)[:40]
        raise TermoError(f"unknown game {shown!r}; choose one of: {', '.join(GAME_NAMES)} "
                         f"(modes: {', '.join(MODE_NAMES)})", "game.unknown",
                         {"name": shown, "choices": list(GAME_NAMES + MODE_NAMES)})
    return key


def _raw(name: str | None) -> str:
    return name if name is not None else os.environ.get(ENV_VAR) or DEFAULT_GAME


def _key(raw) -> str:
    return str(raw).strip().lower().replace("_", "-")


def mode_name(name: str | None = None) -> str | None:
    """The mode ``name`` names (None: ``$TERMO_GAME``), or None when it names no mode."""
    key = _key(_raw(name))
    return key if key in _MODES else None


def get_game(name: str | None = None, extended: bool = False, strict: bool = False, **options):
    """The game called ``name`` (see :func:`resolve_name`), built once per option set."""
    key = resolve_name(name)
    module_name, _, fixed = _SPECS[key]
    return importlib.import_module(module_name).make(extended=extended, strict=strict, **{**options, **dict(fixed)})


def describe(name: str) -> str:
    return _SPECS[resolve_name(name)][1]


# --------------------------------------------------------------------------- modes
# name -> (base game, boards, shared turn limit, title, options of the base game): several boards
# of one game at once (`termo.games.mode.Mode`, docs/modes.md). ``--game`` takes them in the
# commands that play modes (suggest, play); `GAME_NAMES` lists none of them. A new mode is one
# line here, as Sedecordle and Duotrigordle are.
_MODES = {
    "dueto": ("termo", 2, 7, "Dueto", ()),
    "quarteto": ("termo", 4, 9, "Quarteto", ()),
    "dordle": ("wordle", 2, 7, "Dordle", ()),
    "quordle": ("wordle", 4, 9, "Quordle", (("answer_list", "quordle"),)),
    "octordle": ("wordle", 8, 13, "Octordle", ()),
    "binerdle": ("nerdle", 2, 7, "Binerdle", ()),
    "quad-nerdle": ("nerdle", 4, 10, "Quad Nerdle", ()),
    "sedecordle": ("wordle", 16, 21, "Sedecordle", ()),
    "duotrigordle": ("wordle", 32, 37, "Duotrigordle", ()),
}
MODE_NAMES = tuple(_MODES)


# --------------------------------------------------------------------------- share texts
# name -> (the header's first words, how the puzzle number is written, the "present" square, the
# score in the header): the share text each game and mode writes after a game
# (`termo.games.share`, docs/review.md). The number: "#" writes ``#1302``, "," writes ``1,234``
# (Wordle), "" writes ``245``. The score: "turns" writes ``3/6`` (the turn of the last solve, ``X``
# when lost), "boards" each board's turn (``4&6/7``), "" none (the line of digits says it).
# Every game and mode has a row; a new one is one line here.
_SHARE = {
    "termo": ("joguei term.ooo", "#", "🟨", "turns"),
    "nerdle": ("nerdlegame", "", "🟪", "turns"),
    "nerdle-mini": ("mini nerdlegame", "", "🟪", "turns"),
    "wordle": ("Wordle", ",", "🟨", "turns"),
    "wordle-nyt": ("Wordle", ",", "🟨", "turns"),
    "wordle-nyt-2022": ("Wordle", ",", "🟨", "turns"),
    "wordle-ru": ("wordle.belousov.one", "#", "🟨", "turns"),
    "dueto": ("joguei term.ooo/2", "#", "🟨", "turns"),
    "quarteto": ("joguei term.ooo/4", "#", "🟨", "turns"),
    "dordle": ("Daily Dordle", "#", "🟨", "boards"),
    "quordle": ("Daily Quordle", "", "🟨", ""),
    "octordle": ("Daily Octordle", "#", "🟨", ""),
    "sedecordle": ("Daily Sedecordle", "#", "🟨", ""),
    "duotrigordle": ("Daily Duotrigordle", "#", "🟨", ""),
    "binerdle": ("binerdle", "#", "🟪", "turns"),
    "quad-nerdle": ("quad nerdle", "#", "🟪", "turns"),
}


def share_spec(name: str) -> tuple[str, str, str, str]:
    """The share-text row of the game or mode ``name`` (see `_SHARE`)."""
    key = _key(name)
    if key not in _SHARE:
        raise TermoError(f"{str(name)[:40]!r} has no share text format", "share.no_format", {"name": str(name)[:40]})
    return _SHARE[key]


def share_names() -> tuple[str, ...]:
    """Every game and mode with a share text, games first (the order a header is matched in)."""
    return tuple(_SHARE)


def _base_title(base: str) -> str:
    return {"termo": "Termo", "wordle": "English Wordle", "nerdle": "Nerdle Classic"}.get(base, base)


def describe_mode(name: str) -> str:
    """One line about a mode: its boards, tries and base game."""
    base, boards, turns, title, options = _MODES[_key(name)]
    lists = " (Quordle's 2,305 answers)" if dict(options).get("answer_list") == "quordle" else ""
    return f"{title}: {boards} boards of {_base_title(base)}{lists}, {turns} tries"


def get_mode(name: str | None = None, **options):
    """The mode called ``name`` (None: ``$TERMO_GAME``, else termo): one of `MODE_NAMES`, or a
    game's name (its one-board mode, see `termo.games.mode.Mode.single`); ``options`` go to
    `get_game` for the base game."""
    from termo.games.mode import Mode

    key = mode_name(name)
    if key is None:  # a game (an unknown name: `resolve_name`'s line, which lists the modes too)
        return Mode.single(get_game(name, **options))
    base, boards, turns, title, fixed = _MODES[key]
    return Mode(get_game(base, **{**options, **dict(fixed)}), boards, turns, key=key, title=title)


def listing() -> list[dict]:
    """``termo games --json`` and ``GET /api/games``: every game's `Game.summary`, then every
    mode's `Mode.summary` with its description (a mode's row is the one with ``boards``)."""
    rows = [get_game(name).summary() for name in GAME_NAMES]
    return rows + [{**get_mode(name).summary(), "description": describe_mode(name)} for name in MODE_NAMES]


def mode_titles() -> dict[str, str]:
    """Each mode's name and title, read from the table without building its game."""
    return {name: spec[3] for name, spec in _MODES.items()}
