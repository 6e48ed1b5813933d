"""The boards of several boards at once (Dueto, Quarteto) in a real browser: headless Chromium from
the system packages, driven by Playwright (tests/browser_board.py: the server, the browser, the
skip without Chromium outside CI).

Each test plays a whole game against fixed answers: it types a guess (or keeps the suggestion),
colours each board's tiles with the colours the answers give (by clicks or taps, or by keys),
registers the round, reads the suggestion panel, sees a board solved and marked (no more rows),
and wins; on a desktop and on a phone. With ``$TERMO_SHOTS`` set, screenshots go to that folder.
"""

from __future__ import annotations

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


@pytest.fixture(params=["desktop", "phone"])
def tab(request, browser, server):
    context = browser.new_context(**(DESKTOP if request.param == "desktop" else PHONE))
    context.set_default_timeout(120_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.base = server
    page.kind = request.param
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


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


def open_mode(page, name: str) -> None:
    page.goto(page.base + "/" + name)
    page.evaluate("localStorage.clear()")
    page.goto(page.base + "/" + name)
    wait_ready(page)
    page.select_option("#opt-level", "2")
    wait_idle(page)  # the new level asks again: keys typed while that runs are ignored


def solved_boards(page) -> list[int]:
    return page.eval_on_selector_all(".mboard[data-solved='true']", "bs => bs.map(b => Number(b.dataset.board))")


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
    page.tap(selector) if page.kind == "phone" else page.click(selector)


def colour_board(page, board: int, row: int, pattern: str) -> None:
    for col, code in enumerate(pattern):
        for _ in range(CLICKS[code]):
            press(page, f".tile[data-board='{board}'][data-row='{row}'][data-col='{col}']")


def register(page, by_key: bool) -> None:
    with page.expect_response(lambda r: "/api/mode/" in r.url):
        if by_key:
            page.keyboard.press("Enter")
        else:
            press(page, "#register")
    wait_idle(page)


def check_panel(page, boards: int, solved: set) -> None:
    info = page.eval_on_selector_all("#boards-info li", "ls => ls.map(l => [l.dataset.solved, Number(l.dataset.count)])")
    assert len(info) == boards
    for b, (flag, count) in enumerate(info):
        assert (flag == "true") == (b in solved) and count >= 1
    if len(solved) < boards:
        assert page.locator("#boards-info li[data-solved='false'] .sample").first.inner_text().strip()
        reason = page.inner_text("#reason")
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
                page.keyboard.press(ch) if page.kind != "phone" else press(page, f"#keyboard .key[data-key='{ch}']")
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
                colour_board(page, b, turn, pattern)
        for b, pattern in patterns.items():
            assert row_colours(page, b, turn) == [STATES[c] for c in pattern]
        register(page, by_keys)
        assert page.get_attribute("#message", "data-kind") in ("", "win"), page.inner_text("#message")
        solved |= {b for b, p in patterns.items() if p == "G" * 5}
        assert set(solved_boards(page)) == solved
        check_keys(page, game.word_of(guess), patterns)
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


def test_dueto_whole_game(tab):
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
    shot(tab, "dueto-won")


def test_dueto_refused_round_is_said_in_portuguese(tab):
    open_mode(tab, "dueto")
    colour_board(tab, 0, 0, "GGGGG")
    colour_board(tab, 1, 0, "GGGGG")
    register(tab, by_key=False)
    kind, text = tab.get_attribute("#message", "data-kind"), tab.inner_text("#message")
    assert kind == "error" and "cada tabuleiro tem a sua resposta" in text, text
    assert "GGGGG" not in text and solved_boards(tab) == []
    # Undo is not needed: nothing was applied; the colours stay to be corrected
    assert row_colours(tab, 0, 0) == ["correct"] * 5


def check_grid(page) -> None:
    """A 2×2 grid: boards 1 and 2 side by side, 3 and 4 below them, within the screen's width."""
    boxes = page.eval_on_selector_all(".mboard", "bs => bs.map(b => { const r = b.getBoundingClientRect(); "
                                                 "return [Math.round(r.left), Math.round(r.top), Math.round(r.right)]; })")
    assert boxes[0][1] == boxes[1][1] and boxes[2][1] == boxes[3][1] and boxes[2][1] > boxes[0][1]
    assert boxes[0][0] == boxes[2][0] and boxes[1][0] > boxes[0][0]
    assert max(b[2] for b in boxes) <= page.evaluate("document.documentElement.clientWidth")


def test_quarteto_whole_game_by_clicks_or_taps(tab):
    open_mode(tab, "quarteto")
    assert suggestion(tab) == "tarso"
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
    page.focus("#boards")
    won = play(page, "quarteto", by_keys=True)
    assert won <= 9 and page.get_attribute("#message", "data-kind") == "win"
