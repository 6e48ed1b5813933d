"""The board page of a mode of several boards (Dueto, Quarteto, Dordle, Quordle, Octordle,
Binerdle, Quad Nerdle), rendered on the server in the game's language (`web.mode_text`).

The boards are laid out as term.ooo and Octordle lay them out, on a phone too: 2 side by side,
4 in a 2×2 grid, 8 in two rows of four (`columns`). Each on-screen key holds one segment per
board in the same arrangement (term.ooo's quarters), coloured with what that board showed of the
symbol. A JSON block (``#mode-config``) tells the scripts (``/static/modes-state.js``, then
``/static/modes.js``) the mode, its boards, length, tries, keyboard and text. Every asset is the
package's own (``/static/...``): the board works offline.
"""

from __future__ import annotations

import html
import json
import re

from web.i18n import KEYBOARDS
from web.mode_text import mode_titles, strings
from web.pages import LOCALES, PAGE_GAMES, page_head

OBJECTIVES = ("finish", "score", "win")


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def columns(boards: int) -> int:
    """How many boards stand side by side: 2 -> 2, 4 -> 2 (2×2), 8 -> 4 (two rows of four)."""
    if boards <= 2:
        return boards
    if boards <= 4:
        return 2
    return 4


def mode_config(mode) -> dict:
    """What the board's scripts need to know about ``mode`` (plain data)."""
    game = mode.game
    return {
        "mode": mode.label,
        "title": mode.title or mode.label,
        "game": game.label,
        "boards": mode.boards,
        "columns": columns(mode.boards),
        "language": game.language,
        "locale": LOCALES.get(game.language, "en"),
        "length": game.word_length,
        "tries": mode.max_turns,
        "unit": game.unit,
        "alphabet": game.symbols or "".join(sorted(set("".join(game.probes_norm)))),
        "digit_colours": game.unit == "letters",
        "keyboard": KEYBOARDS.get(game.label) or [game.symbols],
        "text": strings(game.language),
    }


def _switcher(current: str) -> str:
    from termo.games import get_game

    games = "".join(f'<option value="{_e(g)}">{_e(get_game(g).title or g)}</option>' for g in PAGE_GAMES)
    modes = "".join(f'<option value="{_e(m)}"{" selected" if m == current else ""}>{_e(title)}</option>'
                    for m, title in mode_titles().items())
    return games + modes


def _board(config, b: int) -> str:
    """Board ``b`` (0-based): its heading and its rows of tiles (the script fills them)."""
    text = config["text"]
    rows = []
    for r in range(config["tries"]):
        tiles = "".join(
            f'<button type="button" class="tile" data-board="{b}" data-row="{r}" data-col="{c}" '
            f'data-state="empty" tabindex="-1" aria-label=""></button>' for c in range(config["length"]))
        rows.append(f'<div class="row" data-board="{b}" data-row="{r}" role="group">{tiles}</div>')
    label = text["board"].format(n=b + 1)
    return (f'<div class="mboard" data-board="{b}" data-solved="false" role="group" aria-label="{_e(label)}">'
            f'<div class="mboard-head"><span class="mboard-name">{_e(label)}</span>'
            f'<span class="mboard-badge" hidden></span></div>{"".join(rows)}</div>')


def _keys(config) -> str:
    """The on-screen keyboard: each symbol key with one segment per board, then Enter and Backspace."""
    text = config["text"]
    segs = "".join(f'<span class="seg" data-board="{b}" data-state="empty"></span>' for b in range(config["boards"]))
    rows = "".join(
        '<div class="keys-row">' + "".join(
            f'<button type="button" class="key" data-key="{_e(ch)}" tabindex="-1"><span class="segs" '
            f'aria-hidden="true">{segs}</span><span class="key-label">{_e(ch)}</span></button>' for ch in row)
        + "</div>" for row in config["keyboard"])
    return rows + (f'<div class="keys-row"><button type="button" class="key wide" data-key="Enter" tabindex="-1">'
                   f'{_e(text["enter"])}</button><button type="button" class="key wide" data-key="Backspace" '
                   f'tabindex="-1" aria-label="{_e(text["backspace_label"])}">{_e(text["backspace"])}</button></div>')


def _head(config) -> str:
    return page_head(config, config["text"], _switcher(config["mode"]), stylesheets=("board.css", "modes.css"),
                     body_class="modes-page")


def _play(config) -> str:
    text = config["text"]
    boards = "".join(_board(config, b) for b in range(config["boards"]))
    help_text = text["colour_help"]
    if not config["digit_colours"]:  # Nerdle: the digits are symbols, not colours
        help_text = re.sub(r" · 1/2/3[^·]*(?= ·)", "", help_text)
    return f"""<main id="app" class="modes" data-mode="{_e(config['mode'])}" data-boards="{config['boards']}"
 data-length="{config['length']}" data-tries="{config['tries']}">
<section id="play">
  <p class="subtitle">{_e(text['subtitle'])}</p>
  <p id="compact" aria-hidden="true"></p>
  <div id="boards" tabindex="0" data-boards="{config['boards']}" aria-describedby="keyboard-help"
   style="--cols:{config['columns']};--len:{config['length']};--boards:{config['boards']}">{boards}</div>
  <p id="message" role="alert" aria-live="assertive"></p>
  <p id="status" aria-live="polite"></p>
  <div class="buttons">
    <button type="button" id="register" disabled title="{_e(text['touch_first'])}">{_e(text['register'])}</button>
    <button type="button" id="undo">{_e(text['undo'])}</button>
    <button type="button" id="new-game">{_e(text['new_game'])}</button>
  </div>
  <div id="keyboard" aria-label="{_e(text['keyboard'])}" style="--cols:{config['columns']};--boards:{config['boards']}">{_keys(config)}</div>
  <p id="keyboard-help" class="note">{_e(help_text)}</p>
</section>
"""


def _panel(config) -> str:
    text = config["text"]
    levels = "".join(f'<option value="{k}"{" selected" if k == "2" else ""}>{_e(text["level_" + k])}</option>'
                     for k in ("2", "3"))
    goals = "".join(f'<option value="{k}">{_e(text["objective_" + k])}</option>' for k in OBJECTIVES)
    return f"""<aside id="panel">
  <section id="suggestion-section">
    <h2>{_e(text['suggestion'])}</h2>
    <p id="outcome" hidden></p>
    <p><strong id="suggestion" data-word=""></strong></p>
    <p class="figures"><span id="suggestion-bits"></span> <span id="suggestion-psolve"></span>
    <span id="suggestion-expected"></span></p>
    <h3>{_e(text['reason'])}</h3>
    <p id="reason"></p>
  </section>
  <section>
    <h2>{_e(text['boards'])}</h2>
    <ol id="boards-info"></ol>
  </section>
  <section id="alternatives-section">
    <h2>{_e(text['alternatives'])}</h2>
    <table id="alternatives"><thead><tr><th>{_e(text['word'])}</th><th title="{_e(text['bits_help'])}">{_e(text['bits'])}</th>
    <th title="{_e(text['p_solve'])}">%</th></tr></thead><tbody></tbody></table>
    <p class="note">{_e(text['bits'])}: {_e(text['bits_help'])} · %: {_e(text['p_solve'])}</p>
  </section>
  <section id="options">
    <h2>{_e(text['options'])}</h2>
    <label>{_e(text['level'])} <select id="opt-level">{levels}</select></label>
    <label title="{_e(text['objective_help'])}">{_e(text['objective'])} <select id="opt-objective">{goals}</select></label>
    <p class="note">{_e(text['objective_help'])}</p>
    <label><input type="checkbox" id="opt-contrast"> {_e(text['high_contrast'])}</label>
  </section>
</aside>
"""


def render_mode(mode) -> str:
    """The board page of ``mode`` (a `termo.games.mode.Mode` of the registry)."""
    config = mode_config(mode)
    blob = json.dumps(config, ensure_ascii=False).replace("</", "<\\/")
    return _head(config) + _play(config) + _panel(config) + f"""</main>
<script type="application/json" id="mode-config">{blob}</script>
<script src="/static/modes-state.js"></script>
<script src="/static/modes.js"></script>
</body>
</html>
"""
