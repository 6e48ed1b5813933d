"""The web board in a real browser: headless Chromium from the system packages (Debian
``chromium``), driven by Playwright with ``executable_path`` (no browser is downloaded).

The server is ``termo serve`` started on loopback on a free port (its own process, the test
session's cache folder). Each test opens a fresh page and plays through the board's stable hooks
(listed in docs/web.md, "Hooks for tests"; the helpers are shared with bench/screenshots.py).
Without Chromium (or Playwright) the tests are skipped with the reason, except under CI (``$CI``
set), where a missing browser fails them: CI installs it (.ci/run).
"""

from __future__ import annotations

import pytest

from browser_board import *  # noqa: F403 (the fixtures, the page helpers and the board's hooks)


def test_termo_tiles_register_and_undo(page):
    open_board(page)
    assert page.get_attribute("html", "lang") == "pt"
    assert suggestion(page) == "tarso"
    assert candidates(page) == 6046
    assert row_letters(page, 0) == "tarso" and active_row(page) == 0
    ghost = page.eval_on_selector_all(".tile[data-row='0']", "ts => ts.map(t => t.dataset.ghost)")
    assert ghost == ["true"] * 5
    click_pattern(page, "BBBBB")  # one click each: absent
    assert row_states(page, 0) == ["absent"] * 5
    click_register(page)
    assert message(page) == ("", "")
    assert active_row(page) == 1
    assert row_states(page, 0) == ["absent"] * 5 and row_letters(page, 0) == "tarso"
    assert suggestion(page) == "filme"
    assert candidates(page) == 223
    assert row_letters(page, 1) == "filme"  # ghosted in the new active row
    assert page.locator("#candidates-list li").count() > 0
    assert page.locator("#alternatives tbody tr").count() > 0

    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.click("#undo")
    wait_idle(page)
    assert active_row(page) == 0
    assert suggestion(page) == "tarso" and candidates(page) == 6046
    assert row_states(page, 0) == ["empty"] * 5


def test_termo_tile_click_cycles_colours(page):
    open_board(page)
    tile = ".tile[data-row='0'][data-col='2']"
    seen = []
    for _ in range(4):
        page.click(tile)
        seen.append(page.get_attribute(tile, "data-state"))
    assert seen == ["absent", "present", "correct", "absent"]


def test_keyboard_only(page):
    open_board(page)
    # the board has the focus when the page opens; no mouse from here on
    assert page.evaluate("document.activeElement.id") == "board"
    page.keyboard.type("forte")
    assert row_letters(page, 0) == "forte"
    page.keyboard.press("Escape")  # back to the suggestion
    assert row_letters(page, 0) == "tarso"
    for _ in range(5):
        page.keyboard.press("1")  # absent, the cursor moves on
    assert row_states(page, 0) == ["absent"] * 5
    page.keyboard.press("ArrowLeft")  # the last tile: cycle it through the colours and back
    for _ in range(3):
        page.keyboard.press("Space")
    assert row_states(page, 0)[4] == "absent"
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.keyboard.press("Enter")
    wait_idle(page)
    assert suggestion(page) == "filme" and candidates(page) == 223
    # type another guess over the ghost, colour it by keys, register
    page.keyboard.type("cline")
    assert row_letters(page, 1) == "cline"
    page.keyboard.press("Backspace")
    page.keyboard.type("e")
    for key in "11111":
        page.keyboard.press(key)
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.keyboard.press("Enter")
    wait_idle(page)
    assert active_row(page) == 2 and row_letters(page, 1) == "cline"
    assert candidates(page) < 223
    # Ctrl+Z undoes the last round
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.keyboard.press("Control+z")
    wait_idle(page)
    assert active_row(page) == 1 and candidates(page) == 223
    # Tab reaches the buttons; Enter on "register round" is that button's own action (it is
    # enabled once the row has been touched: all grey here, by keys)
    page.keyboard.press("Escape")
    for key in "11111":
        page.keyboard.press(key)
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "register":
            break
    assert page.evaluate("document.activeElement.id") == "register"
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.keyboard.press("Enter")  # filme, all absent
    wait_idle(page)
    assert active_row(page) == 2 and row_letters(page, 1) == "filme"


def test_impossible_pattern_is_explained_and_not_applied(page):
    open_board(page)
    click_pattern(page, "GGGGY")  # four greens and one yellow: no word gives that
    click_register(page)
    text, kind = message(page)
    assert kind == "error" and text
    assert active_row(page) == 0 and candidates(page) == 6046
    assert suggestion(page) == "tarso"
    # a pattern possible in itself that leaves no candidate after the first round
    page.keyboard.press("Escape")  # the refused colours cleared
    assert row_states(page, 0) == ["empty"] * 5
    click_pattern(page, "BBBBB")
    click_register(page)
    assert candidates(page) == 223
    page.keyboard.type("forte")
    click_pattern(page, "BGGGB")  # o, r, t green although tarso showed them absent
    click_register(page)
    text, kind = message(page)
    assert kind == "error" and text
    assert active_row(page) == 1 and candidates(page) == 223


@pytest.mark.parametrize("name", [
    "nerdle-mini",
    # Nerdle Classic: a fresh cache folder builds its 2 x 628 MB matrices first (~35 s here)
    pytest.param("nerdle", marks=pytest.mark.slow),
])
def test_nerdle_game_to_a_win(page, name):
    from termo.core.feedback import feedback
    from termo.games import get_game

    game = get_game(name)
    answer = game.answers_norm[len(game.answers_norm) // 3]
    open_board(page, f"/{name}")
    assert page.get_attribute("#board", "data-game") == name
    assert suggestion(page) == game.default_opener
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.select_option("#opt-level", "2")  # level 2: quicker rounds
    wait_idle(page)
    for turn in range(game.max_turns):
        guess = suggestion(page)
        assert guess, f"no suggestion at turn {turn + 1}"
        pattern = feedback(guess, answer, length=game.word_length)
        click_pattern(page, pattern)
        click_register(page)
        text, kind = message(page)
        assert kind != "error", text
        if kind == "win":
            break
    else:
        pytest.fail(f"not won in {game.max_turns} tries; answer {answer}")
    assert active_row(page) is None  # the game is over
    assert str(turn + 1) in text


def test_every_board_page_loads(page):
    for path, lang in (("/termo", "pt"), ("/wordle", "en"), ("/wordle-ru", "ru")):
        open_board(page, path)
        assert page.get_attribute("html", "lang") == lang, path
        assert suggestion(page), path
        assert candidates(page) > 0, path


CONTRAST = """(el) => {
  const s = getComputedStyle(el);
  const parse = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return m.length > 3 ? m : m.concat([1]); };
  const bg = parse(s.backgroundColor), fg = parse(s.color);
  const text = [0, 1, 2].map((i) => fg[3] * fg[i] + (1 - fg[3]) * bg[i]);  // the text blended over the tile
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const a = lum(text), b = lum(bg.slice(0, 3));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


@pytest.mark.parametrize("path", ["/termo", "/nerdle", "/wordle", "/wordle-ru"])
def test_coloured_tiles_are_readable(page, path):
    """The ghosted suggestion's symbols stay readable once its tiles are coloured: the contrast
    of the text (blended by its opacity) against the tile at least 3:1 (WCAG's bar for large
    text and UI components) for absent, present and correct, in the game's palette and in the
    high-contrast one; the Register button's text at least 4.5:1 (it was 2.8-3.1:1)."""
    open_board(page, path)
    click_pattern(page, "BYG")  # tiles 0, 1, 2 of the active row
    for col, state in enumerate(("absent", "present", "correct")):
        tile = page.locator(f".tile[data-row='0'][data-col='{col}']")
        assert tile.get_attribute("data-state") == state
        assert tile.get_attribute("data-ghost") == "true"
        ratio = tile.evaluate(CONTRAST)
        assert ratio >= 3, f"{path}: {state} tile text contrast {ratio:.2f}:1"
    ratio = page.locator("#register").evaluate(CONTRAST)
    assert ratio >= 4.5, f"{path}: Register text contrast {ratio:.2f}:1"
    page.check("#opt-contrast")
    for col, state in enumerate(("absent", "present", "correct")):
        ratio = page.locator(f".tile[data-row='0'][data-col='{col}']").evaluate(CONTRAST)
        assert ratio >= 3, f"{path} (high contrast): {state} tile text contrast {ratio:.2f}:1"
