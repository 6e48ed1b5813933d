"""The board a player keeps open, in a real browser (headless Chromium, as tests/test_web_browser.py):
no phantom or lost rounds, the board kept across reloads, a coloured keyboard, a visible busy
state, the game's language on the board's own text.

Slow or warming servers are played by holding the board's requests in Playwright's route
interception (`Gate`) or answering them there: the tests wait on the board's events (its hooks,
listed in docs/web.md), never on a time.
"""

from __future__ import annotations

import json

import pytest

from browser_board import *  # noqa: F403 (the fixtures, the page helpers and the board's hooks)

ABSENT5 = ["absent"] * 5
EMPTY5 = ["empty"] * 5


def held_round(page, pattern: str) -> Gate:
    """Colour the active row ``pattern`` and register it, its request held by the returned gate."""
    gate = Gate(page, "/api/suggest")
    click_pattern(page, pattern)
    page.click("#register")
    gate.wait_held()
    return gate


def press_keys(page, text: str) -> None:
    """A keydown per symbol of ``text`` on the board, as a keyboard layout with those keys sends
    (Playwright's keyboard knows only the US layout's keys)."""
    page.eval_on_selector("#board", """(board, text) => { for (const ch of Array.from(text)) {
        board.dispatchEvent(new KeyboardEvent("keydown", {key: ch, bubbles: true, cancelable: true})); } }""", text)


def busy(page) -> bool:
    return page.get_attribute("#status", "data-busy") == "true"


def tarso_blank(page) -> None:
    """The first round, tarso -> BBBBB (223 candidates left, filme next at level 3)."""
    click_pattern(page, "BBBBB")
    click_register(page)
    assert active_row(page) == 1 and candidates(page) == 223


# ----------------------------------------------------------------------------- 1. colours and words

def test_colours_stay_with_their_word_when_an_option_changes(page):
    open_board(page)
    tarso_blank(page)
    assert suggestion(page) == "filme"
    click_pattern(page, "BYGBB")  # the ghosted filme, coloured
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.select_option("#opt-level", "2")
    wait_idle(page)
    new = suggestion(page)
    assert new != "filme" and row_letters(page, 1) == new
    # filme's colours do not move onto the new suggestion: a round never played cannot be sent
    assert row_states(page, 1) == EMPTY5
    assert page.is_disabled("#register")
    # a typed word keeps its colours across an option change: they describe it
    page.keyboard.type("cline")
    click_pattern(page, "BYBBG")
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.select_option("#opt-level", "3")
    wait_idle(page)
    assert suggestion(page) == "filme"
    assert row_letters(page, 1) == "cline"
    assert row_states(page, 1) == ["absent", "present", "absent", "absent", "correct"]
    # typing over coloured tiles changes the word under them: the colours go
    page.keyboard.press("Backspace")
    assert row_states(page, 1)[4] == "empty" and row_states(page, 1)[1] == "empty"


def test_an_option_changed_during_a_search_keeps_the_round(page):
    open_board(page)
    gate = held_round(page, "BBBBB")
    assert busy(page)
    page.select_option("#opt-level", "2")  # during the search
    gate.wait_held(2)
    gate.release()
    wait_idle(page)
    # the round being searched was registered (asked again at level 2), not dropped; the new
    # suggestion is uncoloured
    assert active_row(page) == 1 and candidates(page) == 223
    assert row_letters(page, 0) == "tarso" and row_states(page, 0) == ABSENT5
    assert row_states(page, 1) == EMPTY5
    assert page.input_value("#opt-level") == "2"


# ----------------------------------------------------------------------------- 2. untouched rows

def test_a_double_click_or_a_double_enter_registers_nothing_more(page):
    open_board(page)
    click_pattern(page, "BBBBB")
    box = page.locator("#register").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.mouse.click(x, y)
    wait_idle(page)
    assert active_row(page) == 1 and suggestion(page) == "filme"
    # the second click of a double click lands after the answer, on the fresh row
    page.mouse.click(x, y)
    assert not busy(page), "the second click sent a round"
    assert page.is_disabled("#register")
    assert active_row(page) == 1 and row_states(page, 1) == EMPTY5
    # Enter twice likewise
    page.focus("#board")
    click_pattern(page, "BBBBB")
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.keyboard.press("Enter")
    wait_idle(page)
    assert active_row(page) == 2
    page.keyboard.press("Enter")
    assert not busy(page), "the second Enter sent a round"
    assert active_row(page) == 2 and row_states(page, 2) == EMPTY5
    text, kind = message(page)
    assert kind == "note" and text  # says what to do: colour the tiles first


# ----------------------------------------------------------------------------- 3. undo while searching

def test_undo_during_a_search_takes_back_only_that_round(page):
    open_board(page)
    tarso_blank(page)
    gate = held_round(page, "BYBBB")
    assert busy(page)
    page.click("#undo")
    gate.release()  # whatever was asked is answered now
    wait_idle(page)
    # the first, correct round stays; the round being searched is back on its row, as it was
    assert active_row(page) == 1 and candidates(page) == 223
    assert row_letters(page, 0) == "tarso" and row_states(page, 0) == ABSENT5
    assert row_letters(page, 1) == "filme"
    assert row_states(page, 1) == ["absent", "present", "absent", "absent", "absent"]
    assert suggestion(page) == "filme"


# ----------------------------------------------------------------------------- 4. kept boards

def test_the_board_survives_a_reload_and_a_game_switch_and_new_game_clears_it(page):
    open_board(page)
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.select_option("#opt-level", "2")
    wait_idle(page)
    opener = suggestion(page)
    click_pattern(page, "BBBBB")
    click_register(page)
    second = suggestion(page)
    shown = candidates(page)
    page.click(".tile[data-row='1'][data-col='0']")
    page.click(".tile[data-row='1'][data-col='0']")  # present: the row being filled
    assert row_states(page, 1)[0] == "present"

    page.reload()
    wait_ready(page)
    assert page.input_value("#opt-level") == "2"
    assert active_row(page) == 1 and candidates(page) == shown
    assert row_letters(page, 0) == opener and row_states(page, 0) == ABSENT5
    assert suggestion(page) == second and row_states(page, 1)[0] == "present"

    page.goto(page.base + "/wordle")  # another game has its own board
    wait_ready(page)
    assert active_row(page) == 0
    page.goto(page.base + "/termo")
    wait_ready(page)
    assert active_row(page) == 1 and candidates(page) == shown and page.input_value("#opt-level") == "2"

    # the address carries the position: it opens in a fresh browser profile too
    shared = page.url
    assert "#" in shared and "h=" in shared
    other = page.context.browser.new_context()
    try:
        tab = other.new_page()
        tab.goto(shared)
        wait_ready(tab)
        assert active_row(tab) == 1 and row_letters(tab, 0) == opener
        assert tab.input_value("#opt-level") == "2"
    finally:
        other.close()

    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.click("#new-game")
    wait_idle(page)
    assert active_row(page) == 0
    page.reload()
    wait_ready(page)
    assert active_row(page) == 0 and row_states(page, 0) == EMPTY5
    assert candidates(page) == 6046


# ----------------------------------------------------------------------------- 6. busy and warming

def test_a_warming_server_shows_the_busy_state_on_the_board(page):
    health = warming_health(page)
    gate = Gate(page, "/api/suggest")
    page.goto(page.base + "/")
    # the first interaction: the row locked, Register disabled, the note about the first run
    page.wait_for_selector(".row[data-row='0'][data-busy='true']", state="attached", timeout=EVENT)
    page.wait_for_selector("#notice", state="visible", timeout=EVENT)
    assert busy(page) and page.is_disabled("#register")
    gate.wait_held()
    page.focus("#board")
    page.keyboard.type("forte")  # typed letters do not land on the row being searched
    assert row_letters(page, 0) == ""
    health["ready"] = True
    gate.release()
    wait_ready(page)
    page.wait_for_selector("#notice", state="hidden", timeout=EVENT)
    assert suggestion(page) == "tarso" and row_letters(page, 0) == "tarso"
    assert page.get_attribute(".row[data-row='0']", "data-busy") == "false"


def test_a_slow_search_shows_its_time_and_greys_the_old_suggestion(page):
    open_board(page)
    gate = held_round(page, "BBBBB")
    assert page.get_attribute("#suggestion-section", "data-stale") == "true"
    assert page.get_attribute(".row[data-row='0']", "data-busy") == "true"
    assert page.is_disabled("#register")
    # a request over a second: the elapsed seconds, and the note (once) about the first run
    page.wait_for_selector("#notice", state="visible", timeout=EVENT)
    page.wait_for_function("/\\d/.test(document.querySelector('#status').textContent)", timeout=EVENT)
    page.click(".tile[data-row='0'][data-col='0']", force=True)  # locked: the colour does not change
    assert row_states(page, 0) == ABSENT5
    gate.release()
    wait_idle(page)
    assert page.is_hidden("#notice")
    assert page.get_attribute("#suggestion-section", "data-stale") == "false"
    assert active_row(page) == 1 and suggestion(page) == "filme"


# ----------------------------------------------------------------------------- 7. the keyboard

def known(rounds) -> dict[str, str]:
    """What the keys show: per symbol the best state, an accented letter on its base letter's key
    (nível colours the key i)."""
    import unicodedata

    rank = {"absent": 1, "present": 2, "correct": 3}
    name = {"B": "absent", "Y": "present", "G": "correct"}
    out: dict[str, str] = {}
    for guess, pattern in rounds:
        base = [unicodedata.normalize("NFD", ch)[0] for ch in guess]
        for ch, code in zip(base, pattern):
            if ch not in out or rank[name[code]] > rank[out[ch]]:
                out[ch] = name[code]
    return out


@pytest.mark.parametrize("path,name", [("/termo", "termo"), ("/nerdle-mini", "nerdle-mini")])
def test_the_keyboard_shows_what_the_rounds_showed(page, path, name):
    from termo.core.feedback import feedback
    from termo.games import get_game

    game = get_game(name)
    answer = game.answers_norm[len(game.answers_norm) // 5]
    open_board(page, path)
    if name != "termo":
        with page.expect_response(lambda r: "/api/suggest" in r.url):
            page.select_option("#opt-level", "2")
        wait_idle(page)
    keys = page.eval_on_selector_all("#keyboard .key", "ks => ks.map(k => k.dataset.key)")
    symbols = [k for k in keys if k not in ("Enter", "Backspace")]
    rounds = []
    for _ in range(2):
        guess = suggestion(page)
        if not guess:
            break
        pattern = feedback(guess, answer, length=game.word_length)
        click_pattern(page, pattern)
        click_register(page)
        rounds.append((guess, pattern))
        expected = known(rounds)
        shown = dict(page.eval_on_selector_all(
            "#keyboard .key", "ks => ks.map(k => [k.dataset.key, k.dataset.state || 'empty'])"))
        for key in symbols:
            assert shown[key] == expected.get(key, "empty"), (key, rounds)
    assert any(v != "empty" for v in known(rounds).values())


# ----------------------------------------------------------------------------- 5. the board's language

def test_the_board_speaks_the_games_language(page):
    open_board(page)  # Termo: Portuguese
    assert page.get_attribute("#keyboard .key[data-key='Backspace']", "aria-label") == "Apagar"
    assert "," in page.inner_text("#suggestion-bits")  # 3,xxxx: the decimal comma
    page.keyboard.type("fo")
    click_pattern(page, "B")
    page.click("#register")
    text, kind = message(page)
    assert kind == "error" and "5 letras" in text and "letters" not in text
    page.keyboard.press("Escape")
    # fullwidth letters are the letters; Cyrillic is refused in Portuguese
    press_keys(page, "ｆｏｒｔｅ")
    assert row_letters(page, 0) == "forte"
    page.keyboard.press("Escape")
    press_keys(page, "д")
    text, kind = message(page)
    assert kind == "error" and "д" in text and "não é uma letra" in text
    assert row_letters(page, 0) == "tarso"  # the ghost: nothing typed

    open_board(page, "/wordle-ru")
    assert page.get_attribute("#keyboard .key[data-key='Backspace']", "aria-label") == "Стереть"
    page.keyboard.type("z")
    text, kind = message(page)
    assert kind == "error" and "не буква" in text


def test_server_messages_are_shown_in_the_games_language(page):
    open_board(page)
    refusal = {"detail": "impossible colours GGGGY for tarso", "code": "impossible_pattern",
               "params": {}, "messages": {"en": "impossible colours", "pt": "cores impossíveis para tarso",
                                          "ru": "невозможные цвета"}}
    page.route("**/api/suggest", lambda route: route.fulfill(
        status=422, content_type="application/json", body=json.dumps(refusal)))
    click_pattern(page, "GGGGY")
    page.click("#register")
    page.wait_for_selector("#message[data-kind='error']", timeout=EVENT)
    text, _ = message(page)
    assert "cores impossíveis para tarso" in text and "GGGGY" not in text
    assert active_row(page) == 0


# ----------------------------------------------------------------------------- 8. small things

def test_small_things_players_notice(page, browser):
    # uniform-prior games have no T selector; the T of Termo is explained
    open_board(page, "/nerdle-mini")
    assert page.locator("#opt-t").count() == 0
    open_board(page)
    assert page.locator("#opt-t").count() == 1
    assert page.get_attribute("#opt-t >> xpath=..", "title")
    assert page.inner_text("#alternatives-help").startswith("*")

    # a move of the stored strategy says why it has no alternatives
    answer = {"candidates": 6046, "word": "tarso", "bits": 5.9, "expected": 3.4, "is_candidate": True,
              "reason": "stored strategy", "alternatives": [], "source": "tree"}
    page.route("**/api/suggest", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(answer)))
    with page.expect_response(lambda r: "/api/suggest" in r.url):
        page.select_option("#opt-level", "2")
    wait_idle(page)
    assert page.is_visible("#alternatives-note")
    page.unroute("**/api/suggest")

    # the phone: a compact line above the board
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        tab = phone.new_page()
        tab.goto(page.base + "/")
        wait_ready(tab)
        line = tab.locator("#compact")
        assert line.is_visible()
        assert "TARSO" in line.inner_text() and "6046" in line.inner_text()
        assert line.bounding_box()["y"] < tab.locator("#board").bounding_box()["y"]
    finally:
        phone.close()

    # the high-contrast palette: orange and blue, kept for the next page
    page.check("#opt-contrast")
    click_pattern(page, "G")
    tile = page.locator(".tile[data-row='0'][data-col='0']")
    assert tile.evaluate("t => getComputedStyle(t).backgroundColor") == "rgb(245, 121, 58)"
    page.reload()
    wait_ready(page)
    assert page.get_attribute("body", "data-contrast") == "high"


def test_a_won_game_shows_its_result_and_register_is_off(page):
    open_board(page, "/nerdle-mini")
    from termo.core.feedback import feedback
    from termo.games import get_game

    game = get_game("nerdle-mini")
    answer = game.default_opener
    click_pattern(page, feedback(answer, answer, length=game.word_length))
    click_register(page)
    assert message(page)[1] == "win"
    assert page.is_visible("#outcome") and "1/" in page.inner_text("#outcome")
    assert page.is_disabled("#register")


def test_the_404_page_is_for_a_player(page):
    response = page.goto(page.base + "/no-such-board")
    assert response.status == 404
    assert page.locator("meta[name='viewport']").count() == 1
    links = page.eval_on_selector_all("#boards a", "as => as.map(a => a.getAttribute('href'))")
    assert "/termo" in links and "/wordle-ru" in links


def test_the_puzzle_and_api_pages_read_for_a_player(page):
    page.goto(page.base + "/nerdle/today")  # this server has no source for today's answer
    text = page.inner_text("body")
    assert "--today-source" not in text and "source" in text
    assert page.locator("a[href='/']").count() == 1  # back to the boards
    page.goto(page.base + "/docs")
    text = page.inner_text("body")
    assert "``" not in text and ":func:" not in text
    assert page.locator("a[href='/']").count() == 1


def test_a_kept_board_the_server_refuses_starts_a_new_game_and_says_so(page):
    kept = {"history": [{"guess": "tarso", "pattern": "GGGGY"}], "options": {"level": "3"}, "row": None}
    page.add_init_script(f"localStorage.setItem('termo-board:v1:termo', {json.dumps(json.dumps(kept))})")
    open_board(page)
    text, kind = message(page)
    assert kind == "error" and text
    assert active_row(page) == 0 and candidates(page) == 6046 and suggestion(page) == "tarso"


def test_a_server_that_does_not_answer_is_said_in_the_games_language(page):
    open_board(page, "/wordle-ru")
    page.route("**/api/suggest", lambda route: route.abort())
    click_pattern(page, "BBBBB")
    page.click("#register")
    page.wait_for_selector("#message[data-kind='error']", timeout=EVENT)
    text, _ = message(page)
    assert text.startswith("Сервер не ответил") and "fetch" not in text
    assert active_row(page) == 0 and not busy(page)


def test_a_move_of_the_stored_strategy_says_why_there_are_no_alternatives(page):
    open_board(page, "/wordle")
    assert suggestion(page) == "salet"
    click_pattern(page, "BBBBB")
    click_register(page)  # answered from the stored exact tree (data/trees/wordle-exact.tree.gz)
    assert page.is_visible("#alternatives-note")
    assert page.locator("#alternatives tbody tr").count() == 0
