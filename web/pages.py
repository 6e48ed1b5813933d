"""The board page of a game, rendered on the server in the game's language.

One HTML document per game (`render_board`): the labels are written in the game's language
(`web.i18n`), the colours are the game's, and a JSON block (``#board-config``) tells the board's
scripts (``/static/board-state.js``, then ``/static/board.js``) the game's name, length, tries, symbols, opener and the interface
text. Every asset is served by the package (``/static/...``): no CDN, no external font, so the
board works offline.
"""

from __future__ import annotations

import html
import json

from web.i18n import COLOURS, HIGH_CONTRAST, KEYBOARDS, strings

PAGE_GAMES = ("termo", "nerdle", "nerdle-mini", "wordle", "wordle-ru")
LOCALES = {"pt": "pt-BR", "ru": "ru-RU", "en": "en"}  # number formats (decimal comma in pt and ru)
TEMPERATURES = ("0.5", "1", "2", "5", "inf")


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def board_config(game) -> dict:
    """What the board's script needs to know about ``game`` (plain data)."""
    name = game.label
    text = strings(game.language)
    return {
        "game": name,
        "title": game.title or name,
        "language": game.language,
        "length": game.word_length,
        "tries": game.max_turns,
        "symbols": game.symbols,
        # what may be typed: the game's symbols, else every symbol of its words (Termo: a-z; an
        # accented letter typed on the board is folded onto its base letter first)
        "alphabet": game.symbols or "".join(sorted(set("".join(game.probes_norm)))),
        "locale": LOCALES.get(game.language, "en"),
        "unit": game.unit,
        "opener": game.default_opener,
        "uniform_prior": bool(game.uniform_prior),
        "has_extended": name == "termo",
        "has_strict": name.startswith("nerdle"),
        "digit_colours": game.unit == "letters",  # 1/2/3 set colours only where digits are not symbols
        "keyboard": KEYBOARDS.get(name) or [game.symbols],
        "list": 200,  # candidates shown in the list
        "text": text,
    }


def _options(values, selected, labels=None) -> str:
    out = []
    for value in values:
        label = (labels or {}).get(value, value)
        attr = " selected" if value == selected else ""
        out.append(f'<option value="{_e(value)}"{attr}>{_e(label)}</option>')
    return "".join(out)


def _tiles(config) -> str:
    """The board's rows of tiles (empty: the script fills them)."""
    rows = []
    for r in range(config["tries"]):
        tiles = "".join(
            f'<button type="button" class="tile" data-row="{r}" data-col="{c}" data-state="empty" '
            f'tabindex="-1" aria-label=""></button>'
            for c in range(config["length"]))
        rows.append(f'<div class="row" data-row="{r}" role="group">{tiles}</div>')
    return "".join(rows)


def _keys(config, text) -> str:
    """The on-screen keyboard: the game's symbols row by row, then Enter and Backspace."""
    keys = "".join(
        '<div class="keys-row">' + "".join(
            f'<button type="button" class="key" data-key="{_e(ch)}" tabindex="-1">{_e(ch)}</button>' for ch in row)
        + "</div>" for row in config["keyboard"])
    keys += (f'<div class="keys-row"><button type="button" class="key wide" data-key="Enter" tabindex="-1">'
             f'{_e(text["enter"])}</button><button type="button" class="key wide" data-key="Backspace" '
             f'tabindex="-1" aria-label="{_e(text["backspace_label"])}">{_e(text["backspace"])}</button></div>')
    return keys


def _head(config, text, titles: dict[str, str], links) -> str:
    """From the doctype to the header: the title, the game's colours, the game switcher, the links."""
    name = config["game"]
    switcher = "".join(
        f'<option value="{_e(g)}"{" selected" if g == name else ""}>{_e(titles.get(g, g))}</option>'
        for g in PAGE_GAMES) + _mode_options()
    links_html = "".join(f'<a href="{_e(path)}">{_e(label)}</a>' for path, label in links)
    return page_head(config, text, switcher, links_html)


def page_head(config, text, switcher: str, links_html: str | None = None, stylesheets=("board.css",),
              body_class: str = "") -> str:
    """The head of a board page, one board or several (`web.mode_pages`): the doctype, the title,
    the stylesheets, the colours of ``config["game"]`` (and the high-contrast palette), and the
    header with the game switcher (``switcher``: its options), the links (a line of their own
    when given) and the API docs."""
    colours = COLOURS.get(config["game"], COLOURS["wordle"])
    title = text["title"].format(game=config["title"])
    style = "".join(f"--{key}:{value};" for key, value in colours.items())
    high_contrast = "".join(f"--{key}:{value};" for key, value in HIGH_CONTRAST.items())
    sheets = "".join(f'<link rel="stylesheet" href="/static/{_e(sheet)}">\n' for sheet in stylesheets)
    classes = f"game-{_e(config['game'])}" + (f" {_e(body_class)}" if body_class else "")
    links_line = "" if links_html is None else f"  {links_html}\n"
    return f"""<!doctype html>
<html lang="{_e(config['language'])}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)}</title>
{sheets}<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<style>body[data-contrast="high"] > *{{{high_contrast}}}</style>
</head>
<body class="{classes}" style="{_e(style)}">
<header>
  <h1>{_e(title)}</h1>
  <nav><label for="game-switcher">{_e(text['switch_game'])}</label>
  <select id="game-switcher">{switcher}</select>
{links_line}  <a href="/docs" id="api-docs">{_e(text['api_docs'])}</a></nav>
</header>
"""


def _mode_options() -> str:
    """The modes of several boards in the game switcher (their pages: `web.mode_routes`)."""
    from web.mode_text import mode_titles

    return "".join(f'<option value="{_e(name)}">{_e(title)}</option>' for name, title in mode_titles().items())


def _play(config, text) -> str:
    """The board itself: the rows, the message lines, the buttons, the keyboard."""
    name = config["game"]
    digits = text["digits_help"] if config["digit_colours"] else ""
    tiles = _tiles(config)
    keys = _keys(config, text)
    return f"""<main id="app" data-game="{_e(name)}" data-length="{config['length']}" data-tries="{config['tries']}">
<section id="play">
  <p class="subtitle">{_e(text['subtitle'])}</p>
  <p id="notice" class="notice" role="status" hidden>{_e(text['warmup'])}</p>
  <p id="compact" aria-hidden="true"></p>
  <div id="board" data-game="{_e(name)}" tabindex="0" aria-describedby="keyboard-help">{tiles}</div>
  <p id="message" role="alert" aria-live="assertive"></p>
  <p id="status" aria-live="polite"></p>
  <div class="buttons">
    <button type="button" id="register" disabled title="{_e(text['touch_first'])}">{_e(text['register'])}</button>
    <button type="button" id="undo">{_e(text['undo'])}</button>
    <button type="button" id="new-game">{_e(text['new_game'])}</button>
  </div>
  <div id="keyboard" aria-label="{_e(text['keyboard'])}">{keys}</div>
  <p id="keyboard-help" class="note">{_e(text['keyboard_help'].format(digits=digits))}</p>
</section>
"""


def _panel(config, text) -> str:
    """The side panel: the suggestion, the candidates, the alternatives, the options."""
    levels = _options(("3", "2", "1"), "3", {k: text[f"level_{k}"] for k in ("1", "2", "3")})
    temps = _options(TEMPERATURES, "1", {"inf": text["uniform"]})
    extended = (f'<label><input type="checkbox" id="opt-extended"> {_e(text["extended"])}</label>'
                if config["has_extended"] else "")
    strict = (f'<label><input type="checkbox" id="opt-strict"> {_e(text["strict"])}</label>'
              if config["has_strict"] else "")
    uniform = f'<p class="note">{_e(text["uniform_game"])}</p>' if config["uniform_prior"] else ""
    # T weighs the word frequencies: a uniform-prior game has none, so no selector there
    temperature = "" if config["uniform_prior"] else (
        f'<label title="{_e(text["t_help"])}">{_e(text["temperature"])} <select id="opt-t">{temps}</select></label>'
        f'<span class="note">{_e(text["t_help"])}</span>')
    return f"""<aside id="panel">
  <section id="suggestion-section">
    <h2>{_e(text['suggestion'])}</h2>
    <p id="outcome" hidden></p>
    <p><strong id="suggestion" data-word=""></strong> <span id="suggestion-flag"></span></p>
    <p><span id="suggestion-bits"></span> <span id="suggestion-expected"></span></p>
    <h3 id="reason-title">{_e(text['reason'])}</h3>
    <p id="reason"></p>
  </section>
  <section>
    <h2>{_e(text['candidates'])}: <span id="candidates-count">…</span></h2>
    <details id="candidates-details" open><summary>{_e(text['candidates_list_uniform' if config['uniform_prior'] else 'candidates_list'])}</summary>
    <ol id="candidates-list"></ol></details>
  </section>
  <section id="alternatives-section">
    <h2>{_e(text['alternatives'])}</h2>
    <p id="alternatives-note" class="note" hidden>{_e(text['from_tree'])}</p>
    <table id="alternatives"><thead><tr><th title="{_e(text['star_help'])}">{_e(text['word'])}</th>
    <th title="{_e(text['bits_help'])}">{_e(text['bits'])}</th>
    <th title="{_e(text['expected_help'])}">{_e(text['expected'])}</th></tr></thead><tbody></tbody></table>
    <p class="note" id="alternatives-help">{_e(text['star_help'])} · {_e(text['bits'])}: {_e(text['bits_help'])} · {_e(text['expected'])}: {_e(text['expected_help'])}</p>
  </section>
  <section id="options">
    <h2>{_e(text['options'])}</h2>
    <label>{_e(text['level'])} <select id="opt-level">{levels}</select></label>
    {temperature}
    {uniform}
    {extended}
    <label><input type="checkbox" id="opt-hard"> {_e(text['hard'])}</label>
    {strict}
    <label><input type="checkbox" id="opt-contrast"> {_e(text['high_contrast'])}</label>
  </section>
</aside>
"""


def render_board(game, titles: dict[str, str], links=()) -> str:
    """The board page of ``game``; ``titles`` maps each page's game name to its title (switcher);
    ``links``: ``(path, label)`` of other pages shown in the header (the Nerdle puzzle pages)."""
    config = board_config(game)
    text = config["text"]
    blob = json.dumps(config, ensure_ascii=False).replace("</", "<\\/")
    return _head(config, text, titles, links) + _play(config, text) + _panel(config, text) + f"""</main>
<script type="application/json" id="board-config">{blob}</script>
<script src="/static/board-state.js"></script>
<script src="/static/board.js"></script>
</body>
</html>
"""


def render_not_found(name: str, titles: dict[str, str]) -> str:
    """The page for a path that is no board: what was asked, and a link to every board."""
    from web.mode_text import mode_titles

    links = "".join(f'<li><a href="/{_e(g)}">{_e(titles.get(g, g))}</a></li>' for g in PAGE_GAMES)
    links += "".join(f'<li><a href="/{_e(m)}">{_e(title)}</a></li>' for m, title in mode_titles().items())
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Page not found</title>
<link rel="stylesheet" href="/static/board.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
</head>
<body class="plain" style="--background:#FFFFFF;--text:#1A1A1B;--panel:#F4F5F6">
<main class="plain-page">
<h1>Page not found</h1>
<p>There is no board called “{_e(name[:40])}”. Choose a game:</p>
<ul id="boards">{links}</ul>
<p><a href="/">Back to the Termo board</a></p>
</main>
</body>
</html>
"""
