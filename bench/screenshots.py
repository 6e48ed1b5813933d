"""Screenshots of the web board (`termo serve`) in headless Chromium, for docs/screenshots/.

Each game's board (Termo at ``/``, Nerdle, Nerdle Mini, English and Russian Wordle at ``/{game}``)
on a desktop (1280x800) and a phone (390x844): as it loads, after one registered round (the
suggestion's tiles set from a fixed answer; on the desktop also a shot before it is registered),
and finished (the suggestions played against that answer until the win), full page; each mode of
several boards (``/dueto`` ... ``/quad-nerdle``) at both sizes after one round (an answer typed,
each board coloured by its fixed answer: the first board solved), the window only (the page fits
it: the panel is below on a phone); and the Nerdle puzzle pages (today, archive, statistics) at
both sizes.
The server is started on loopback on a free port with the same command as the benchmark; the
browser is the system Chromium driven by Playwright (``executable_path``; nothing downloaded).

Usage: python bench/screenshots.py [--out docs/screenshots] [--chromium /usr/bin/chromium] [--only NAME,...]
Writes <out>/<game>-<desktop|phone>[-colouring|-played|-finished].png,
<out>/<mode>-<desktop|phone>.png and <out>/nerdle-<page>-<width>.png, and prints the paths.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.server_http import DEFAULT_SERVER_CMD, HOST, Server, free_port  # noqa: E402

PAGES = [("termo", "/"), ("nerdle", "/nerdle"), ("nerdle-mini", "/nerdle-mini"), ("wordle", "/wordle"),
         ("wordle-ru", "/wordle-ru")]
MODES = ("dueto", "quarteto", "dordle", "quordle", "octordle", "binerdle", "quad-nerdle")
VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}
# the Nerdle puzzle pages (plain pages, no board)
PUZZLE_PAGES = [("nerdle-today", "/nerdle/today"), ("nerdle-archive", "/nerdle/archive"),
                ("nerdle-stats", "/nerdle/stats")]


def the_answer(game_name: str) -> str:
    """The fixed answer the shots play against (Termo: one that gives tarso BBBBB, the
    reference's example)."""
    from termo.games import get_game

    game = get_game(game_name)
    if game_name == "termo":
        return "nuvem"
    return game.answers_norm[len(game.answers_norm) // 3]


def colours_for(game_name: str, guess: str) -> str:
    from termo.core.feedback import feedback
    from termo.games import get_game

    game = get_game(game_name)
    return feedback(guess, the_answer(game_name), length=game.word_length)


def first_round(game_name: str) -> tuple[str, str]:
    """The "played" shot's round: the game's opener (the board's first suggestion) with the
    colours of the fixed answer (Termo: tarso BBBBB)."""
    from termo.games import get_game

    opener = get_game(game_name).default_opener
    return opener, colours_for(game_name, opener)


def chromium_path(given: str | None = None) -> str | None:
    """The Chromium to drive: ``given``, else ``$TERMO_CHROMIUM`` (only that one when set), else
    the system package's (/usr/bin/chromium, or chromium / chromium-browser on PATH); None if absent."""
    chosen = given or os.environ.get("TERMO_CHROMIUM")
    candidates = (chosen,) if chosen else ("/usr/bin/chromium", shutil.which("chromium"),
                                           shutil.which("chromium-browser"))
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return candidate
    return None


# ----------------------------------------------------------------------------- driving the board
# The board's stable hooks are listed in docs/web.md ("Hooks for tests"); the browser tests
# (tests/browser_board.py, for test_web_browser.py and test_web_board.py) use these helpers too.
CLICKS = {"B": 1, "Y": 2, "G": 3}  # clicks from an uncoloured tile: absent -> present -> correct


def wait_idle(page, timeout: float = 120_000) -> None:
    """Until no request of the board is running (``#status[data-busy]`` is not "true")."""
    page.wait_for_function("document.querySelector('#status').dataset.busy !== 'true'", timeout=timeout)


def wait_ready(page, timeout: float = 120_000) -> None:
    """Until the first suggestion has arrived and nothing is running."""
    page.wait_for_selector("body[data-ready='true']", state="attached", timeout=timeout)
    wait_idle(page, timeout)


def active_row(page) -> int | None:
    """The index of the active row (None once the game is over)."""
    return page.evaluate("(() => { const r = document.querySelector('.row[data-active=\"true\"]');"
                         " return r ? Number(r.dataset.row) : null; })()")


def suggestion(page) -> str:
    return page.get_attribute("#suggestion", "data-word") or ""


def candidates(page) -> int | None:
    text = page.inner_text("#candidates-count").strip()
    return int(text) if text.isdigit() else None


def row_letters(page, row: int) -> str:
    return "".join(page.eval_on_selector_all(f".tile[data-row='{row}']", "ts => ts.map(t => t.dataset.letter)"))


def row_states(page, row: int) -> list[str]:
    return page.eval_on_selector_all(f".tile[data-row='{row}']", "ts => ts.map(t => t.dataset.state)")


def type_with_keys(page, guess: str) -> None:
    """Type ``guess`` by clicking the on-screen keyboard."""
    for ch in guess:
        page.click(f"#keyboard .key[data-key='{ch}']")


def click_pattern(page, pattern: str) -> None:
    """Click the active row's tiles until they show ``pattern`` (B absent, Y present, G correct)."""
    row = active_row(page)
    for col, code in enumerate(pattern):
        for _ in range(CLICKS[code]):
            page.click(f".tile[data-row='{row}'][data-col='{col}']")


def click_register(page) -> None:
    """Click "register round" and wait for the server's answer to be shown."""
    with page.expect_response(lambda r: "/api/" in r.url and r.request.method == "POST"):
        page.click("#register")
    wait_idle(page)


def colour_board(page, board: int, row: int, pattern: str, tap: bool = False) -> None:
    """A page of several boards: click (``tap``: tap) board ``board``'s tiles of ``row`` to
    ``pattern``; where the page shows the board being coloured large (``#board[data-layout=zoom]``),
    in that view (a tap on the board's small copy shows it there)."""
    press = page.tap if tap else page.click
    large = page.evaluate("(document.querySelector('#board') || {dataset: {}}).dataset.layout") == "zoom"
    if large and page.get_attribute("#zoom", "data-shows") != str(board):
        press(f".mboard[data-board='{board}']")
    tiles = ("#zoom .tile[data-zrow='{row}'][data-zcol='{col}']" if large
             else ".tile[data-board='{board}'][data-row='{row}'][data-col='{col}']")
    for col, code in enumerate(pattern):
        for _ in range(CLICKS[code]):
            press(tiles.format(board=board, row=row, col=col))


def mode_round(page, name: str, tap: bool = False) -> str:
    """On mode ``name``'s page: type an answer (board 1's fixed answer, so that board is solved),
    colour every board as its fixed answer colours it, register; the word typed."""
    from termo.core.feedback import feedback
    from termo.games import get_mode

    mode = get_mode(name)
    answers = mode.game.answers_norm
    word = answers[len(answers) // 3]
    page.focus("#board")
    page.keyboard.type(word)
    for b in range(mode.boards):
        colour_board(page, b, 0, feedback(word, answers[len(answers) // 3 + 7 * b], length=mode.game.word_length), tap)
    click_register(page)
    return word


def register_round(page, guess: str | None, pattern: str) -> None:
    """Type ``guess`` on the on-screen keyboard (None: keep the ghosted suggestion), click the
    tiles to ``pattern``, register."""
    if guess:
        type_with_keys(page, guess)
    click_pattern(page, pattern)
    click_register(page)



def _mode_shots(context, base: str, name: str, label: str, args) -> list[Path]:
    """Mode ``name``'s page after one round (``--no-played``: as it loads), the window only: the
    page fits it."""
    page = context.new_page()
    page.goto(f"{base}/{name}")
    wait_ready(page, timeout=600_000)
    if not args.no_played:
        mode_round(page, name, tap=label == "phone")
    target = args.out / f"{name}-{label}.png"
    page.screenshot(path=str(target))
    page.close()
    return [target]


def main(argv=None) -> list[Path]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--chromium", default=None)
    parser.add_argument("--server-cmd", default=DEFAULT_SERVER_CMD)
    parser.add_argument("--no-played", action="store_true", help="only the pages as they load")
    parser.add_argument("--only", default=None, help="these pages only (names: termo, dueto, nerdle-today, ...)")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    chromium = chromium_path(args.chromium)
    if chromium is None:
        parser.error("no Chromium found (install the system package `chromium` or pass --chromium)")
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = Server(args.server_cmd, port, Path(tempfile.mkdtemp(prefix="screenshots-")) / "server.log")
    server.start()
    written = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True)
            for label, (width, height) in VIEWPORTS.items():
                context = browser.new_context(viewport={"width": width, "height": height},
                                              device_scale_factor=1, is_mobile=label == "phone",
                                              has_touch=label == "phone")
                context.set_default_timeout(600_000)  # a level-3 round on a loaded machine
                for game, path in PAGES:
                    if only and game not in only:
                        continue
                    page = context.new_page()
                    page.goto(f"http://{HOST}:{port}{path}")
                    wait_ready(page, timeout=600_000)  # a fresh cache builds Nerdle's matrices first
                    target = args.out / f"{game}-{label}.png"
                    page.screenshot(path=str(target), full_page=True)
                    written.append(target)
                    if not args.no_played:
                        _, pattern = first_round(game)
                        click_pattern(page, pattern)  # the ghosted suggestion, coloured
                        if label == "desktop":
                            target = args.out / f"{game}-{label}-colouring.png"
                            page.screenshot(path=str(target), full_page=True)
                            written.append(target)
                        click_register(page)
                        target = args.out / f"{game}-{label}-played.png"
                        page.screenshot(path=str(target), full_page=True)
                        written.append(target)
                        # play the suggestions against the answer to the end of the game
                        while active_row(page) is not None and suggestion(page):
                            click_pattern(page, colours_for(game, suggestion(page)))
                            click_register(page)
                        target = args.out / f"{game}-{label}-finished.png"
                        page.screenshot(path=str(target), full_page=True)
                        written.append(target)
                    page.close()
                for name in MODES:
                    if only and name not in only:
                        continue
                    written += _mode_shots(context, f"http://{HOST}:{port}", name, label, args)
                for name, path in PUZZLE_PAGES:
                    if only and name not in only:
                        continue
                    page = context.new_page()
                    response = page.goto(f"http://{HOST}:{port}{path}")
                    page.wait_for_load_state("networkidle")
                    if response is not None and response.status < 500:
                        target = args.out / f"{name}-{label}.png"
                        page.screenshot(path=str(target), full_page=True)
                        written.append(target)
                    page.close()
                context.close()
            browser.close()
    finally:
        server.stop()
    for target in written:
        print(target.relative_to(ROOT) if target.is_relative_to(ROOT) else target)
    return written


if __name__ == "__main__":
    main()
