"""The pages of several boards at once (Dueto, Quarteto, Octordle) in a real browser: headless
Chromium from the system packages, driven by Playwright (tests/browser_board.py: the server, the
browser, the skip without Chromium outside CI). One board app draws them (web/static/board.js), so
they keep what the one-board pages have: no phantom round, the board kept, the keyboard's colours,
high contrast, the warm-up note.

The whole-game tests type a guess (or keep the suggestion), colour each board's tiles with the
colours fixed answers give (by clicks, taps or keys; on a narrow screen in the large view of the
board being coloured), register the round, read the panel, see a board solved and marked (no
more rows) and win; on a desktop and on a phone. With ``$TERMO_SHOTS`` set, screenshots go to that
folder. The phantom-round tests use only hooks the pages had before one app drew every board, so
they can be run against a server of that code (``$TERMO_BROWSER_SERVER``), where they fail.
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest

from browser_board import *  # noqa: F403 (the fixtures and the page helpers)

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
SECRETS = {"dueto": ("nuvem", "porta"), "quarteto": ("nuvem", "porta", "canto", "livro")}
CLICKS = {"B": 1, "Y": 2, "G": 3}  # clicks from an uncoloured tile: grey, yellow, green
DIGITS = {"B": "1", "Y": "2", "G": "3"}
STATES = {"B": "absent", "Y": "present", "G": "correct"}
# the labels that must show whole (their text not cut): board headings, badges, keys, buttons
LABELS = ".mboard-name, .mboard-badge, .key-label, .key, button:not(.tile), h1, #compact, #message, #status"
CLIPPED = f"""() => Array.from(document.querySelectorAll({json.dumps(LABELS)}))
  .filter((e) => e.offsetParent !== null && e.textContent.trim() && e.scrollWidth > e.clientWidth)
  .map((e) => (e.id || e.className) + ': ' + e.textContent.trim())"""


@pytest.fixture(params=["desktop", "phone"])
def tab(request, browser, server):
    yield from new_tab(browser, server, request.param, **(DESKTOP if request.param == "desktop" else PHONE))


def shot(page, name: str) -> None:
    folder = os.environ.get("TERMO_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}-{page.kind}.png"), full_page=True)


def colours(guess: str, secret: str) -> str:
    from termo.core.feedback import feedback
    from termo.games import get_game

    game = get_game("termo")
    return feedback(game.word_of(guess), game.word_of(secret), length=game.word_length)


def asks(response) -> bool:
    """An answer of the board's API (a suggestion or the boards after the last try)."""
    return "/api/" in response.url and response.request.method == "POST"


def open_mode(page, name: str, level: str | None = "2") -> None:
    """``/name`` afresh (nothing kept), at ``level`` (level 2: quicker rounds)."""
    page.goto(page.base + "/" + name)
    page.evaluate("localStorage.clear()")
    page.goto(page.base + "/" + name)
    wait_ready(page)
    if level and page.input_value("#opt-level") != level:
        with page.expect_response(asks):
            page.select_option("#opt-level", level)
        wait_idle(page)


def solved_boards(page) -> list[int]:
    return page.eval_on_selector_all(".mboard[data-board][data-solved='true']", "bs => bs.map(b => Number(b.dataset.board))")


def plain(word: str) -> str:
    """``word`` without its accents (the tiles show the suggestion as written: lúmen)."""
    return "".join(ch for ch in unicodedata.normalize("NFD", word) if not unicodedata.combining(ch))


def row_word(page, board: int, row: int) -> str:
    return plain("".join(page.eval_on_selector_all(f".tile[data-board='{board}'][data-row='{row}']",
                                             "ts => ts.map(t => t.dataset.letter)")))


def row_colours(page, board: int, row: int) -> list[str]:
    return page.eval_on_selector_all(f".tile[data-board='{board}'][data-row='{row}']",
                                     "ts => ts.map(t => t.dataset.state)")


def press(page, selector: str) -> None:
    page.tap(selector) if getattr(page, "kind", "") == "phone" else page.click(selector)


def zoomed(page) -> bool:
    return page.evaluate("(document.querySelector('#board') || {dataset: {}}).dataset.layout") == "zoom"


def colour(page, board: int, row: int, pattern: str) -> None:
    """Board ``board``'s tiles of ``row`` clicked (a phone: tapped) to ``pattern``."""
    colour_board(page, board, row, pattern, tap=getattr(page, "kind", "") == "phone")


def register(page, by_key: bool) -> None:
    with page.expect_response(asks):
        if by_key:
            page.keyboard.press("Enter")
        else:
            press(page, "#register")
    wait_idle(page)


def whole_labels(page) -> None:
    assert page.evaluate(CLIPPED) == [], "labels cut"


def check_panel(page, boards: int, solved: set) -> None:
    info = page.eval_on_selector_all("#boards-info li", "ls => ls.map(l => [l.dataset.solved, Number(l.dataset.count)])")
    assert len(info) == boards
    for b, (flag, count) in enumerate(info):
        assert (flag == "true") == (b in solved) and count >= 1
    if len(solved) < boards:
        assert page.locator("#boards-info li[data-solved='false'] .sample").first.inner_text().strip()
        reason = page.inner_text("#reason")  # the catalogue's words, in the page's language
        assert reason.startswith(("a maior entropia conjunta", "o tabuleiro")), reason


def check_keys(page, guess_norm: str, patterns: dict) -> None:
    """Each board's segment of the guess's first key shows what that board's colours said."""
    ch = guess_norm[0]
    states = page.eval_on_selector_all(f"#keyboard .key[data-key='{ch}'] .seg", "ss => ss.map(s => s.dataset.state)")
    for b, pattern in patterns.items():
        best = max((pattern[i] for i, c in enumerate(guess_norm) if c == ch), key="BYG".index)
        assert states[b] in (STATES[best], "correct"), (b, states)


def play(page, name: str, by_keys: bool) -> int:
    """The whole game against `SECRETS[name]`; the turn it was won."""
    from termo.games import get_game

    game = get_game("termo")
    secrets = SECRETS[name]
    solved: set = set()
    for turn in range(12):
        if turn == 0:  # type a guess of our own over the ghost (physical keys, or the screen's)
            guess = "forte"
            for ch in guess:
                page.keyboard.press(ch) if getattr(page, "kind", "") != "phone" else press(page, f"#keyboard .key[data-key='{ch}']")
        else:
            guess = suggestion(page)
        assert guess
        for b in range(len(secrets)):
            expected = "" if b in solved else game.word_of(guess)
            assert row_word(page, b, turn) == expected, (b, turn)
        patterns = {b: colours(guess, s) for b, s in enumerate(secrets) if b not in solved}
        if by_keys:
            for b in sorted(patterns):
                for code in patterns[b]:
                    page.keyboard.press(DIGITS[code])
        else:
            for b, pattern in patterns.items():
                colour(page, b, turn, pattern)
        for b, pattern in patterns.items():
            assert row_colours(page, b, turn) == [STATES[c] for c in pattern]
        register(page, by_keys)
        assert page.get_attribute("#message", "data-kind") in ("", "win"), page.inner_text("#message")
        solved |= {b for b, p in patterns.items() if p == "G" * 5}
        assert set(solved_boards(page)) == solved
        check_keys(page, game.word_of(guess), patterns)
        whole_labels(page)  # a solved board's badge too
        if turn == 0:
            shot(page, f"{name}-1")
        if len(solved) == len(secrets):
            return turn + 1
        check_panel(page, len(secrets), solved)
        if solved and not page.evaluate("window.__shotSolved"):
            page.evaluate("window.__shotSolved = true")
            shot(page, f"{name}-solved")
        for b in solved:  # a solved board takes no more rows
            assert page.get_attribute(f".row[data-board='{b}'][data-row='{turn + 1}']", "data-done") == "true"
            assert row_word(page, b, turn + 1) == ""
    raise AssertionError("the game was not won in time")


# ----------------------------------------------------------------------------- whole games

def test_dueto_whole_game(tab):
    tab.goto(tab.base + "/dueto")
    wait_ready(tab)
    assert tab.input_value("#opt-level") == "3"  # the CLI's default, as the one-board pages
    reason = tab.inner_text("#reason")  # level 3's reason in the page's language, from reason_messages
    # (Dueto's first guess is level 2's, not searched: the catalogue's sentence for it)
    assert reason.startswith(("a maior entropia conjunta", "o tabuleiro")), reason
    assert "unsolved" not in reason and "search:" not in reason, reason
    open_mode(tab, "dueto")
    assert tab.get_attribute("html", "lang") == "pt"
    assert suggestion(tab) == "tarso"
    assert tab.inner_text(".mboard[data-board='1'] .mboard-name") == "Tabuleiro 2"
    shot(tab, "dueto-0")
    won = play(tab, "dueto", by_keys=False)
    assert won <= 7
    message = tab.inner_text("#message")
    assert tab.get_attribute("#message", "data-kind") == "win"
    assert message == f"Todos os tabuleiros resolvidos em {won}/7!"
    assert tab.locator("#register").is_disabled()
    # after the game: the review of every turn (the joint state's values), the share text (term.ooo's)
    tab.wait_for_function("document.querySelectorAll('#review tbody tr').length > 0", timeout=120_000)
    assert tab.inner_text("#review-section h2") == "Análise das suas palavras"
    assert len(tab.locator("#review tbody tr").all()) == won
    assert tab.inner_text("#share-text").startswith(f"joguei term.ooo/2 {won}/7")
    shot(tab, "dueto-won")


def test_dueto_refused_round_is_said_in_portuguese(tab):
    open_mode(tab, "dueto")
    colour(tab, 0, 0, "GGGGG")
    colour(tab, 1, 0, "GGGGG")
    register(tab, by_key=False)
    kind, text = tab.get_attribute("#message", "data-kind"), tab.inner_text("#message")
    assert kind == "error" and "cada tabuleiro tem a sua resposta" in text, text
    assert "GGGGG" not in text and solved_boards(tab) == []
    # Undo is not needed: nothing was applied; the colours stay to be corrected
    assert row_colours(tab, 0, 0) == ["correct"] * 5


def check_grid(page) -> None:
    """A 2×2 grid or a row of four: boards 1 and 2 side by side, 3 after them, within the screen's width."""
    boxes = page.eval_on_selector_all(".mboard[data-board]", "bs => bs.map(b => { const r = b.getBoundingClientRect(); "
                                                            "return [Math.round(r.left), Math.round(r.top), Math.round(r.right)]; })")
    assert boxes[0][1] == boxes[1][1] and boxes[1][0] > boxes[0][0]
    assert boxes[2][1] > boxes[0][1] or boxes[2][0] > boxes[1][0]
    assert max(b[2] for b in boxes) <= page.evaluate("document.documentElement.clientWidth")


def test_quarteto_whole_game_by_clicks_or_taps(tab):
    open_mode(tab, "quarteto")
    assert suggestion(tab) == "tarso"
    if not zoomed(tab):
        check_grid(tab)
    shot(tab, "quarteto-0")
    won = play(tab, "quarteto", by_keys=False)
    assert won <= 9
    assert tab.inner_text("#message") == f"Todos os tabuleiros resolvidos em {won}/9!"
    shot(tab, "quarteto-won")


def test_quarteto_whole_game_by_keys(page):
    """The physical keys only (a desktop): type, 1/2/3 across the boards, Enter."""
    page.kind = "keys"
    open_mode(page, "quarteto")
    page.focus("#board")
    won = play(page, "quarteto", by_keys=True)
    assert won <= 9 and page.get_attribute("#message", "data-kind") == "win"


# ----------------------------------------------------------------------------- no phantom round

def grey_ghost(page, row: int) -> str:
    """Colour the ghosted suggestion grey on both boards of Dueto (one click a tile); the word."""
    word = suggestion(page)
    for board in (0, 1):
        colour(page, board, row, "BBBBB")
        assert row_colours(page, board, row) == ["absent"] * 5
    return word


def test_no_phantom_round_on_dueto_when_the_level_changes(page):
    """The phantom round: the ghost coloured grey, then the level changed: the new suggestion is another
    word, so the grey colours (they were LINDE's) go and Register stays off; before, they stayed
    on FILME and Register sent filme:BBBBB/BBBBB, a round never played."""
    open_mode(page, "dueto")
    colour(page, 0, 0, "BBBBB")
    colour(page, 1, 0, "BBBBB")
    register(page, by_key=False)
    first = grey_ghost(page, 1)
    assert not page.locator("#register").is_disabled()
    with page.expect_response(asks):
        page.select_option("#opt-level", "3")
    wait_idle(page)
    second = suggestion(page)
    assert second and second != first, (first, second)  # after tarso BBBBB/BBBBB: linde, then filme
    assert row_word(page, 0, 1) == plain(second)
    for board in (0, 1):
        assert row_colours(page, board, 1) == ["empty"] * 5, "the colours of another word stayed"
    assert page.locator("#register").is_disabled()
    page.click("#register", force=True)
    page.keyboard.press("Enter")
    assert page.get_attribute("#status", "data-busy") != "true", "a round was sent"
    assert page.get_attribute(".row[data-board='0'][data-row='1']", "data-active") == "true"


def test_no_phantom_round_on_dueto_when_the_level_changes_during_a_search(page):
    """The level changed while a round is being searched: that round is asked again at the new
    level (it is not lost), and the new suggestion's row is uncoloured."""
    open_mode(page, "dueto")
    colour(page, 0, 0, "BBBBB")
    colour(page, 1, 0, "BBBBB")
    gate = Gate(page, "/suggest")
    page.click("#register")
    gate.wait_held()
    page.select_option("#opt-level", "3")  # during the search
    gate.wait_held(2)
    gate.release()
    wait_idle(page)
    for board in (0, 1):
        assert row_word(page, board, 0) == "tarso" and row_colours(page, board, 0) == ["absent"] * 5
        assert page.get_attribute(f".row[data-board='{board}'][data-row='1']", "data-active") == "true"
        assert row_colours(page, board, 1) == ["empty"] * 5
    assert page.locator("#register").is_disabled()
    assert page.input_value("#opt-level") == "3"


# ----------------------------------------------------------------------------- what the one-board pages have

def test_a_mode_board_is_kept_across_a_reload_and_in_the_address(page, browser):
    open_mode(page, "dueto")
    colour(page, 0, 0, "BBBBB")
    colour(page, 1, 0, "BYBBB")
    register(page, by_key=False)
    second = suggestion(page)
    colour(page, 1, 1, "Y")  # the row being filled
    page.reload()
    wait_ready(page)
    assert page.input_value("#opt-level") == "2" and suggestion(page) == second
    assert row_colours(page, 1, 0) == ["absent", "present", "absent", "absent", "absent"]
    assert row_colours(page, 1, 1)[0] == "present" and row_colours(page, 0, 1)[0] == "empty"
    shared = page.url
    assert "h=tarso%3ABBBBB%2FBYBBB" in shared or "h=tarso:BBBBB/BYBBB" in shared, shared
    other = browser.new_context()
    try:
        tab = other.new_page()
        tab.goto(shared)
        wait_ready(tab)
        assert row_word(tab, 1, 0) == "tarso" and suggestion(tab) == second
    finally:
        other.close()
    with page.expect_response(asks):
        page.click("#new-game")
    wait_idle(page)
    page.reload()
    wait_ready(page)
    assert row_word(page, 0, 0) == "tarso" and row_colours(page, 0, 0) == ["empty"] * 5  # the ghost, afresh


def test_a_mode_board_has_the_keyboard_colours_high_contrast_and_the_warm_up_note(page):
    health = warming_health(page)
    gate = Gate(page, "/api/suggest")
    page.goto(page.base + "/quarteto")
    page.wait_for_selector("#notice", state="visible", timeout=EVENT)  # the first run's note
    assert page.get_attribute("#status", "data-busy") == "true" and page.is_disabled("#register")
    health["ready"] = True
    gate.release()
    wait_ready(page)
    page.wait_for_selector("#notice", state="hidden", timeout=EVENT)
    with page.expect_response(asks):
        page.select_option("#opt-level", "2")
    wait_idle(page)
    colour(page, 0, 0, "GBBBB")
    colour(page, 1, 0, "YBBBB")
    register(page, by_key=False)
    # tarso: t correct on board 1, present on board 2, absent on the boards left uncoloured
    segs = page.eval_on_selector_all("#keyboard .key[data-key='t'] .seg", "ss => ss.map(s => s.dataset.state)")
    assert segs == ["correct", "present", "absent", "absent"]
    page.check("#opt-contrast")
    assert page.get_attribute("body", "data-contrast") == "high"
    shown = page.eval_on_selector("#keyboard .key[data-key='t'] .seg[data-board='0']",
                                  "s => getComputedStyle(s).backgroundColor")
    assert shown == "rgb(245, 121, 58)"  # the high-contrast orange


def test_the_switcher_names_its_own_page_after_back(page):
    """Switch game, press Back: the switcher shows this page's game (the browser restored the
    select as it was left: Wordle on the Termo page)."""
    for start, other in (("/", "wordle"), ("/dueto", "quordle")):
        open_board(page, start)
        page.select_option("#game-switcher", other)
        page.wait_for_url(f"**/{other}*")
        wait_ready(page)
        page.go_back()
        wait_ready(page)
        assert page.input_value("#game-switcher") == ("termo" if start == "/" else start[1:])


# ----------------------------------------------------------------------------- the phone's large view

def test_octordle_on_a_phone_colours_in_the_large_view(browser, server):
    context = browser.new_context(**PHONE)
    context.set_default_timeout(120_000)
    page = context.new_page()
    page.base, page.kind = server, "phone"
    try:
        open_mode(page, "octordle")
        assert zoomed(page) and page.get_attribute("#zoom", "data-shows") == "0"
        size = page.eval_on_selector("#zoom .tile", "t => t.getBoundingClientRect().width")
        assert size >= 24
        press(page, ".mboard[data-board='5']")  # a small board: shown large
        assert page.get_attribute("#zoom", "data-shows") == "5"
        assert page.get_attribute(".mboard[data-board='5']", "data-zoomed") == "true"
        press(page, "#zoom .tile[data-zrow='0'][data-zcol='2']")
        assert row_colours(page, 5, 0)[2] == "absent" and row_colours(page, 0, 0)[2] == "empty"
        page.keyboard.press("Escape")
        for _ in range(6):  # 1/2/3 move the cursor on, to the next board's first tile: the large view follows
            page.keyboard.press("1")
        assert page.get_attribute("#zoom", "data-shows") == "1"
        whole_labels(page)
    finally:
        context.close()
