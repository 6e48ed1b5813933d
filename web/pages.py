"""The board page of a game or of a mode of several boards, rendered on the server in the game's
language: one renderer for every board name (`render_board`).

A game is the mode of one board (`termo.games.get_mode` builds either), so one page draws B
boards: one board as the game's own grid, several side by side as term.ooo and Octordle lay them
out (each on-screen key then holds one segment per board, coloured with what that board showed of
the symbol; a phone shows the board being coloured large above small copies of them all). The
labels are written in the game's language (`web.i18n.page_text`), the colours are the game's, and
a JSON block (``#board-config``) tells the board's scripts (``/static/board-state.js``, then
``/static/board.js``, ``/static/board-after.js`` (the review, share text and statistics after the
game); a page of several boards also ``/static/board-layout.js``, which fits them to the screen)
the board's name, boards, length, tries, symbols and the interface text. The
options shown are the ones its solvers support (`termo.interface.suggest.supports`): the API
refuses the others. Every asset is served by the package (``/static/...``): no CDN, no external
font, so the board works offline.
"""

from __future__ import annotations

import html
import json

from web.i18n import COLOURS, DARK, HIGH_CONTRAST, KEYBOARDS, page_text

PAGE_GAMES = ("termo", "nerdle", "nerdle-mini", "wordle", "wordle-ru", "absurdle", "fibble")  # the games with a board page
LOCALES = {"pt": "pt-BR", "ru": "ru-RU", "en": "en"}  # number formats (decimal comma in pt and ru)
TEMPERATURES = ("0.5", "1", "2", "5", "inf")


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def board_names() -> tuple[str, ...]:
    """Every name with a board page: the games of `PAGE_GAMES`, then the registry's modes."""
    from termo.games.registry import MODE_NAMES

    return PAGE_GAMES + MODE_NAMES


def columns(boards: int) -> int:
    """How many boards stand side by side before the page fits them to the screen: 2 -> 2, 4 ->
    2 (2×2), 8 -> 4 (two rows of four)."""
    if boards <= 2:
        return boards
    if boards <= 4:
        return 2
    return 4


def _mode(board):
    """A `termo.games.mode.Mode` for ``board`` (a game: its one-board mode)."""
    from termo.interface.positions import as_mode

    return as_mode(board)


def board_config(board) -> dict:
    """What the board's scripts need to know about ``board`` (a game or a mode; plain data). One
    board: the game's name, length, tries, symbols, opener and text; several add ``boards`` and
    ``columns``, and have no opener (the mode's own is the solver's) and no candidate list (the API
    lists none for several boards)."""
    mode = _mode(board)
    game = mode.game
    base = game.label
    several = mode.boards > 1
    config = {
        "game": mode.label,
        "title": mode.shown,
        "language": game.language,
        "length": game.word_length,
        "tries": mode.max_turns,
        "symbols": game.symbols,
        # what may be typed: the game's symbols, else every symbol of its words (Termo: a-z; an
        # accented letter typed on the board is folded onto its base letter first)
        "alphabet": game.symbols or "".join(sorted(set("".join(game.probes_norm)))),
        "locale": LOCALES.get(game.language, "en"),
        "unit": game.unit,
        "opener": game.default_opener,
        "uniform_prior": bool(game.uniform_prior),
        "has_extended": base == "termo",
        "has_strict": base.startswith("nerdle"),
        "digit_colours": game.unit == "letters",  # 1/2/3 set colours only where digits are not symbols
        "keyboard": KEYBOARDS.get(base) or [game.symbols],
        "list": 200,  # candidates shown in the list
        "text": page_text(game.language, mode.boards),
        "dark": base in DARK,  # the page offers a dark theme (Termo's colours are dark already)
    }
    if several:
        del config["opener"], config["list"]
        config.update(boards=mode.boards, columns=columns(mode.boards), base=base)
    return config


def _several(config) -> bool:
    return config.get("boards", 1) > 1


def _options(values, selected, labels=None) -> str:
    out = []
    for value in values:
        label = (labels or {}).get(value, value)
        attr = " selected" if value == selected else ""
        out.append(f'<option value="{_e(value)}"{attr}>{_e(label)}</option>')
    return "".join(out)


def _rows(config, board=None) -> str:
    """The rows of tiles of one board (empty: the script fills them); ``board``: its index on a
    page of several (the tiles then carry ``data-board``)."""
    mark = "" if board is None else f'data-board="{board}" '
    rows = []
    for r in range(config["tries"]):
        tiles = "".join(
            f'<button type="button" class="tile" {mark}data-row="{r}" data-col="{c}" data-state="empty" '
            f'tabindex="-1" aria-label=""></button>'
            for c in range(config["length"]))
        rows.append(f'<div class="row" {mark}data-row="{r}" role="group">{tiles}</div>')
    return "".join(rows)


def _boards(config, text) -> str:
    """The boards of a page of several: the large view of the board being coloured (``#zoom``,
    shown on a narrow screen; its tiles mirror that board's) and every board with its heading."""
    zoom_rows = "".join(
        '<div class="row">' + "".join(
            f'<button type="button" class="tile" data-zrow="{r}" data-zcol="{c}" data-state="empty" '
            f'tabindex="-1"></button>' for c in range(config["length"])) + "</div>"
        for r in range(config["tries"]))
    zoom = (f'<div id="zoom" class="mboard" aria-hidden="true" hidden><div class="mboard-head">'
            f'<span class="mboard-name"></span><span class="mboard-badge"></span></div>{zoom_rows}</div>')
    boards = []
    for b in range(config["boards"]):
        label = text["board"].format(n=b + 1)
        boards.append(
            f'<div class="mboard" data-board="{b}" data-solved="false" role="group" aria-label="{_e(label)}">'
            f'<div class="mboard-head"><span class="mboard-name">{_e(label)}</span>'
            f'<span class="mboard-badge" hidden></span></div>{_rows(config, b)}</div>')
    return zoom + "".join(boards)


def _key(ch, segs: str) -> str:
    if not segs:
        return f'<button type="button" class="key" data-key="{_e(ch)}" tabindex="-1">{_e(ch)}</button>'
    return (f'<button type="button" class="key" data-key="{_e(ch)}" tabindex="-1"><span class="segs" '
            f'aria-hidden="true">{segs}</span><span class="key-label">{_e(ch)}</span></button>')


def _keys(config, text) -> str:
    """The on-screen keyboard: the game's symbols row by row, Enter and Backspace. One board: a row
    of their own; several: at the ends of the last row (a row less to fit), each symbol key holding
    one segment per board."""
    enter = (f'<button type="button" class="key wide" data-key="Enter" tabindex="-1">'
             f'{_e(text["enter"])}</button>')
    backspace = (f'<button type="button" class="key wide" data-key="Backspace" '
                 f'tabindex="-1" aria-label="{_e(text["backspace_label"])}">{_e(text["backspace"])}</button>')
    if not _several(config):
        keys = "".join('<div class="keys-row">' + "".join(_key(ch, "") for ch in row) + "</div>"
                       for row in config["keyboard"])
        return keys + f'<div class="keys-row">{enter}{backspace}</div>'
    segs = "".join(f'<span class="seg" data-board="{b}" data-state="empty"></span>' for b in range(config["boards"]))
    rows = config["keyboard"]
    out = []
    for i, row in enumerate(rows):
        keys = "".join(_key(ch, segs) for ch in row)
        out.append('<div class="keys-row">' + (enter + keys + backspace if i == len(rows) - 1 else keys) + "</div>")
    return "".join(out)


def page_head(config, text, switcher: str, links_html: str = "") -> str:
    """From the doctype to the header: the title, the style sheet, the colours of the board's game
    (and the high-contrast palette), the header with the game switcher (``switcher``: its
    options), the links and the API docs."""
    base = config.get("base", config["game"])
    colours = COLOURS.get(base, COLOURS["wordle"])
    title = text["title"].format(game=config["title"])
    style = "".join(f"--{key}:{value};" for key, value in colours.items())
    high_contrast = "".join(f"--{key}:{value};" for key, value in HIGH_CONTRAST.items())
    # the dark theme (the light games' toggle): above the page's own colours, under high contrast
    dark = "".join(f"--{key}:{value} !important;" for key, value in DARK.get(base, {}).items())
    dark_style = f'body[data-theme="dark"]{{{dark}}}' if dark else ""
    classes = f"game-{_e(base)}" + (" modes-page" if _several(config) else "")
    return f"""<!doctype html>
<html lang="{_e(config['language'])}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)}</title>
<link rel="stylesheet" href="/static/board.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<style>{dark_style}body[data-contrast="high"] > *{{{high_contrast}}}</style>
</head>
<body class="{classes}" style="{_e(style)}">
<header>
  <h1>{_e(title)}</h1>
  <nav><label for="game-switcher">{_e(text['switch_game'])}</label>
  <select id="game-switcher">{switcher}</select>
  {links_html}
  <a href="/docs" id="api-docs">{_e(text['api_docs'])}</a></nav>
</header>
"""


def _switcher(name: str, titles: dict[str, str]) -> str:
    """The game switcher's options: every board name (`board_names`), ``name`` selected."""
    from termo.games.registry import mode_titles

    titles = {**titles, **mode_titles()}
    return "".join(f'<option value="{_e(g)}"{" selected" if g == name else ""}>{_e(titles.get(g, g))}</option>'
                   for g in board_names())


def _play(config, text) -> str:
    """The board itself: the boards, the message lines, the buttons, the keyboard."""
    name = config["game"]
    digits = text["digits_help"] if config["digit_colours"] else ""
    keys = _keys(config, text)
    if _several(config):
        b, cols, length = config["boards"], config["columns"], config["length"]
        main = (f'<main id="app" class="modes" data-game="{_e(name)}" data-boards="{b}" data-length="{length}" '
                f'data-tries="{config["tries"]}">')
        board = (f'<div id="board" class="boards" data-game="{_e(name)}" data-boards="{b}" data-layout="grid" '
                 f'tabindex="0" aria-describedby="keyboard-help" style="--cols:{cols};--len:{length};--boards:{b}">'
                 f'{_boards(config, text)}</div>')
        keyboard = f'<div id="keyboard" aria-label="{_e(text["keyboard"])}" style="--cols:{cols};--boards:{b}">'
    else:
        main = f'<main id="app" data-game="{_e(name)}" data-length="{config["length"]}" data-tries="{config["tries"]}">'
        board = (f'<div id="board" data-game="{_e(name)}" tabindex="0" aria-describedby="keyboard-help">'
                 f'{_rows(config)}</div>')
        keyboard = f'<div id="keyboard" aria-label="{_e(text["keyboard"])}">'
    return f"""{main}
<section id="play">
  <p class="subtitle">{_e(text['subtitle'])}</p>
  <p id="notice" class="notice" role="status" hidden>{_e(text['warmup'])}</p>
  <p id="compact" aria-hidden="true"></p>
  {board}
  <p id="message" role="alert" aria-live="assertive"></p>
  <p id="status" aria-live="polite"></p>
  <div class="buttons">
    <button type="button" id="register" disabled title="{_e(text['touch_first'])}">{_e(text['register'])}</button>
    <button type="button" id="undo">{_e(text['undo'])}</button>
    <button type="button" id="new-game">{_e(text['new_game'])}</button>
  </div>
  {keyboard}{keys}</div>
  <p id="keyboard-help" class="note">{_e(text['keyboard_help'].format(digits=digits))}</p>
</section>
"""


def _suggestion(config, text) -> str:
    """The panel's first section: the suggestion, its figures and why."""
    flag = "" if _several(config) else ' <span id="suggestion-flag"></span>'
    figures = ('<p class="figures"><span id="suggestion-bits"></span> <span id="suggestion-psolve"></span> '
               '<span id="suggestion-expected"></span></p>' if _several(config)
               else '<p><span id="suggestion-bits"></span> <span id="suggestion-expected"></span></p>')
    return f"""  <section id="suggestion-section">
    <h2>{_e(text['suggestion'])}</h2>
    <p id="outcome" hidden></p>
    <p><strong id="suggestion" data-word=""></strong>{flag}</p>
    {figures}
    <h3 id="reason-title">{_e(text['reason'])}</h3>
    <p id="reason"></p>
  </section>
"""


def _candidates(config, text) -> str:
    """The candidates left: one board's count and list, or each board's count and likeliest."""
    if _several(config):
        return f"""  <section id="boards-section">
    <h2>{_e(text['boards'])}</h2>
    <ol id="boards-info"></ol>
  </section>
"""
    listed = text['candidates_list_uniform' if config['uniform_prior'] else 'candidates_list']
    return f"""  <section>
    <h2>{_e(text['candidates'])}: <span id="candidates-count">…</span></h2>
    <details id="candidates-details" open><summary>{_e(listed)}</summary>
    <ol id="candidates-list"></ol></details>
  </section>
"""


def _alternatives(config, text) -> str:
    if _several(config):
        head = (f'<tr><th>{_e(text["word"])}</th><th title="{_e(text["bits_help"])}">{_e(text["bits"])}</th>'
                f'<th title="{_e(text["p_solve"])}">%</th></tr>')
        help_text = f'{_e(text["bits"])}: {_e(text["bits_help"])} · %: {_e(text["p_solve"])}'
    else:
        head = (f'<tr><th title="{_e(text["star_help"])}">{_e(text["word"])}</th>\n'
                f'    <th title="{_e(text["bits_help"])}">{_e(text["bits"])}</th>\n'
                f'    <th title="{_e(text["expected_help"])}">{_e(text["expected"])}</th></tr>')
        help_text = (f'{_e(text["star_help"])} · {_e(text["bits"])}: {_e(text["bits_help"])} · '
                     f'{_e(text["expected"])}: {_e(text["expected_help"])}')
    return f"""  <section id="alternatives-section">
    <h2>{_e(text['alternatives'])}</h2>
    <p id="alternatives-note" class="note" hidden>{_e(text['from_tree'])}</p>
    <table id="alternatives"><thead>{head}</thead><tbody></tbody></table>
    <p class="note" id="alternatives-help">{help_text}</p>
  </section>
"""


def _option_controls(config, text, family) -> str:
    """The options the board's solvers support (``family``: `termo.core.supports.Supports`)."""
    levels = tuple(str(n) for n in sorted(family.levels, reverse=True))
    out = [f'<label>{_e(text["level"])} <select id="opt-level">'
           f'{_options(levels, "3", {k: text[f"level_{k}"] for k in levels})}</select></label>']
    if len(family.objectives) > 1:
        goals = _options(family.objectives, family.objectives[0], {k: text["objective_" + k] for k in family.objectives})
        out.append(f'<label title="{_e(text["objective_help"])}">{_e(text["objective"])} '
                   f'<select id="opt-objective">{goals}</select></label>'
                   f'<span class="note">{_e(text["objective_help"])}</span>')
    # T weighs the word frequencies: a uniform-prior game has none, so no selector there
    out.append("" if config["uniform_prior"] else (
        f'<label title="{_e(text["t_help"])}">{_e(text["temperature"])} <select id="opt-t">'
        f'{_options(TEMPERATURES, "1", {"inf": text["uniform"]})}</select></label>'
        f'<span class="note">{_e(text["t_help"])}</span>'))
    out.append(f'<p class="note">{_e(text["uniform_game"])}</p>' if config["uniform_prior"] else "")
    out.append(f'<label><input type="checkbox" id="opt-extended"> {_e(text["extended"])}</label>'
               if config["has_extended"] else "")
    if family.hard:
        out.append(f'<label><input type="checkbox" id="opt-hard"> {_e(text["hard"])}</label>')
    out.append(f'<label><input type="checkbox" id="opt-strict"> {_e(text["strict"])}</label>'
               if config["has_strict"] else "")
    out.append(f'<label><input type="checkbox" id="opt-contrast"> {_e(text["high_contrast"])}</label>')
    if config.get("dark"):
        out.append(f'<label><input type="checkbox" id="opt-dark"> {_e(text["dark"])}</label>')
    return "\n    ".join(c for c in out if c or not _several(config))


def _review(text) -> str:
    """After the game (``/static/board-after.js`` fills it when the game ends): the review of every
    guess (docs/review.md) and the share text with its button."""
    heads = f'<th title="{_e(text["review_turn"])}">#</th>' + "".join(
        f"<th>{_e(text[key])}</th>" for key in ("word", "review_cost", "review_verdict", "review_best", "review_luck"))
    return f"""  <section id="review-section" hidden>
    <h2>{_e(text['review'])}</h2>
    <p id="review-status" aria-live="polite"></p>
    <p id="review-scores"></p>
    <div class="scroll-x"><table id="review"><thead><tr>{heads}</tr></thead><tbody></tbody></table></div>
    <p class="note" id="review-method"></p>
    <p class="note">{_e(text['review_help'])}</p>
    <button type="button" id="share" disabled>{_e(text['share'])}</button>
    <p id="share-status" class="note" aria-live="polite"></p>
    <pre id="share-text"></pre>
  </section>
"""


def _stats_and_help(text) -> str:
    """The player's statistics and streaks on this board (kept in the browser) and how to play."""
    figures = "".join(f'<div><dt>{_e(text[key])}</dt><dd data-stat="{key}">0</dd></div>'
                      for key in ("played", "win_pct", "streak", "max_streak"))
    return f"""  <section id="stats-section">
    <details id="stats-details"><summary>{_e(text['stats'])}</summary>
    <dl id="stats">{figures}</dl>
    <h3>{_e(text['distribution'])}</h3>
    <ol id="distribution"></ol>
    <p class="note">{_e(text['stats_note'])}</p></details>
  </section>
  <section id="how-to-section">
    <details id="how-to"><summary>{_e(text['how_to'])}</summary><p>{_e(text['how_to_text'])}</p></details>
  </section>
"""


def _panel(config, text, family) -> str:
    """The side panel: the suggestion, the review after the game, the candidates, the
    alternatives, the options, the statistics and how to play."""
    return f"""<aside id="panel">
{_suggestion(config, text)}{_review(text)}{_candidates(config, text)}{_alternatives(config, text)}  <section id="options">
    <h2>{_e(text['options'])}</h2>
    {_option_controls(config, text, family)}
  </section>
{_stats_and_help(text)}</aside>
"""


def render_board(board, titles: dict[str, str], links=()) -> str:
    """The board page of ``board`` (a game, or a `termo.games.mode.Mode`: one page for any number
    of boards); ``titles`` maps each game with a page to its title (switcher; the modes' come from
    the registry); ``links``: ``(path, label)`` of other pages shown in the header (the Nerdle
    puzzle pages)."""
    from termo.interface.suggest import supports

    mode = _mode(board)
    config = board_config(mode)
    text = config["text"]
    blob = json.dumps(config, ensure_ascii=False).replace("</", "<\\/")
    links_html = "".join(f'<a href="{_e(path)}">{_e(label)}</a>' for path, label in links)
    scripts = ("board-state.js", "board-layout.js", "board.js", "board-after.js") if _several(config) \
        else ("board-state.js", "board.js", "board-after.js")
    tags = "".join(f'<script src="/static/{name}"></script>\n' for name in scripts)
    return (page_head(config, text, _switcher(config["game"], titles), links_html) + _play(config, text)
            + _panel(config, text, supports(mode)) + f"""</main>
<script type="application/json" id="board-config">{blob}</script>
{tags}</body>
</html>
""")


def render_not_found(name: str, titles: dict[str, str]) -> str:
    """The page for a path that is no board: what was asked, and a link to every board."""
    from termo.games.registry import mode_titles

    titles = {**titles, **mode_titles()}
    links = "".join(f'<li><a href="/{_e(g)}">{_e(titles.get(g, g))}</a></li>' for g in board_names())
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
