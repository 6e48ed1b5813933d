"""The mode boards' interface text (Dueto, Quarteto: Portuguese; Dordle, Quordle, Octordle,
Binerdle, Quad Nerdle: English) and the joint solver's reasons in each board language.

`strings(language)` is the page's table (the single board's `web.i18n.strings` under it, so the
shared labels are said once); `reason_messages(reason, game)` is ``{"en", "pt", "ru"}`` for a
reason of `termo.engine.multi.level2` (the catalogue's own when the reason carries a code, else read back
from its English text here), or None for a reason neither knows (the board then shows the line).
"""

from __future__ import annotations

import re

from termo.core.messages import format_number, messages_of
from web.i18n import strings as board_strings

MODE_STRINGS = {
    "en": {
        "subtitle": "Type the guess once, then colour each board's tiles as the game shows them "
                    "(click a tile: grey, yellow, green) and register the round.",
        "board": "Board {n}",
        "board_solved": "Board {n}: solved in {turn}",
        "board_left": "Board {n}: {count} left",
        "boards": "Boards",
        "solved_badge": "solved in {turn}",
        "p_solve": "chance to solve a board now",
        "objective": "Goal",
        "objective_finish": "finish sooner",
        "objective_score": "lowest score",
        "objective_win": "win (every board in time)",
        "objective_help": "finish: the expected turn of the last board · score: the expected sum of the boards' "
                          "turns · win: the chance of solving every board within the tries",
        "level_2": "2 · joint entropy",
        "level_3": "3 · expected objective",
        "won": "Every board solved in {n}/{tries}!",
        "lost_boards": "Out of tries. Unsolved: {boards}",
        "lost_board": "board {n} (maybe {words})",
        "colour_help": "Keys: type the guess · ←/→ choose a tile (across the boards) · Space or ↑/↓ change "
                       "its colour · 1/2/3 grey/yellow/green · Enter registers · Backspace deletes · "
                       "Ctrl+Z undoes · Esc returns to the suggestion",
        "tile_label": "board {board}, tile {col} of row {row}: {letter}, {state}",
        "key_label": "{key}: {states}",
        "unknown": "not played",
    },
    "pt": {
        "subtitle": "Digite a palavra uma vez e pinte as letras de cada tabuleiro com as cores do jogo "
                    "(clique numa letra: cinza, amarelo, verde); depois registre a rodada.",
        "board": "Tabuleiro {n}",
        "board_solved": "Tabuleiro {n}: resolvido na {turn}ª",
        "board_left": "Tabuleiro {n}: {count} restantes",
        "boards": "Tabuleiros",
        "solved_badge": "resolvido na {turn}ª",
        "p_solve": "chance de resolver um tabuleiro agora",
        "objective": "Objetivo",
        "objective_finish": "terminar antes",
        "objective_score": "menor pontuação",
        "objective_win": "vencer (todos a tempo)",
        "objective_help": "terminar: a rodada esperada do último tabuleiro · pontuação: a soma esperada das "
                          "rodadas dos tabuleiros · vencer: a chance de resolver todos dentro das tentativas",
        "level_2": "2 · entropia conjunta",
        "level_3": "3 · objetivo esperado",
        "won": "Todos os tabuleiros resolvidos em {n}/{tries}!",
        "lost_boards": "As tentativas acabaram. Sem resolver: {boards}",
        "lost_board": "tabuleiro {n} (talvez {words})",
        "colour_help": "Teclas: digite a palavra · ←/→ escolhem a letra (de um tabuleiro ao outro) · Espaço "
                       "ou ↑/↓ trocam a cor · 1/2/3 cinza/amarelo/verde · Enter registra · Backspace apaga · "
                       "Ctrl+Z volta · Esc volta à sugestão",
        "tile_label": "tabuleiro {board}, letra {col} da linha {row}: {letter}, {state}",
        "key_label": "{key}: {states}",
        "unknown": "não jogada",
    },
}

# the joint solver's English reasons (termo.engine.multi.level2), read back into their parts
_REASONS = (
    (re.compile(r"^the largest joint entropy over (?P<n>\d+) unsolved boards?: (?P<bits>[\d.]+) bits$"), "entropy"),
    (re.compile(r"^board (?P<board>\d+) has one candidate left: solve it$"), "forced"),
    (re.compile(r"^all (?P<n>\d+) boards solved in (?P<turn>\d+)/(?P<tries>\d+)$"), "won"),
)
_TEMPLATES = {
    "entropy": {
        "en": "the largest joint entropy over {n} unsolved {boards}: {bits} bits",
        "pt": "a maior entropia conjunta nos {n} {boards} sem resolver: {bits} bits",
        "ru": "наибольшая совместная энтропия по {n} нерешённым доскам: {bits} бит",
    },
    "forced": {
        "en": "board {board} has one candidate left: play it to solve that board",
        "pt": "o tabuleiro {board} tem uma só candidata: jogue-a para resolvê-lo",
        "ru": "на доске {board} остался один кандидат: сыграйте его",
    },
    "won": {
        "en": "all {n} boards solved in {turn}/{tries}",
        "pt": "os {n} tabuleiros resolvidos em {turn}/{tries}",
        "ru": "все {n} доски решены за {turn}/{tries}",
    },
}
_BOARDS = {"en": ("board", "boards"), "pt": ("tabuleiro", "tabuleiros"), "ru": ("доска", "доски")}


def mode_titles() -> dict[str, str]:
    """Each mode's name and title, without building its game (the registry's table: the single
    boards' switcher lists the modes without loading their word lists)."""
    from termo.games.registry import mode_titles as titles

    return titles()


def strings(language: str) -> dict:
    """The mode page's text in ``language`` (English for a language without a table)."""
    return {**board_strings(language), **MODE_STRINGS.get(language, MODE_STRINGS["en"])}


def reason_messages(reason, game: str = "") -> dict | None:
    """The reason in en, pt and ru (see the module docstring)."""
    if not isinstance(reason, str) or not reason:
        return None
    catalogued = messages_of(reason)
    if catalogued is not None:
        return catalogued
    for pattern, kind in _REASONS:
        found = pattern.match(reason)
        if found:
            return {lang: _render(kind, found.groupdict(), lang) for lang in _TEMPLATES[kind]}
    return None


def _render(kind: str, parts: dict, lang: str) -> str:
    values = dict(parts)
    if "bits" in values:
        values["bits"] = format_number(float(values["bits"]), lang, ".3f")
    if "n" in values:
        one, many = _BOARDS[lang]
        values["boards"] = one if int(values["n"]) == 1 else many
    return _TEMPLATES[kind][lang].format(**values)
