"""After the game, in headless Chromium (tests/browser_board.py): a whole English game played on
the board to a win, then the review panel (every guess with its cost, verdict and luck, the skill
and luck scores, in the page's language), the share text copied by its button (read back from the
clipboard), the statistics and streak counted once (Undo out of the end takes the game back, the
same end again counts it once), how to play, and the dark theme of the light games kept across a
reload; in English, Portuguese and Russian, on a desktop and a phone."""

from __future__ import annotations

import pytest

from browser_board import *  # noqa: F403 (the fixtures and the page helpers)

CLIPBOARD = {"viewport": {"width": 1280, "height": 900}, "permissions": ["clipboard-read", "clipboard-write"]}


@pytest.fixture
def tab(browser, server):
    yield from new_tab(browser, server, **CLIPBOARD)


def stat(page, key: str) -> str:
    # text_content: the figures sit in a <details> closed until a game ends (inner_text reads "")
    return page.text_content(f"#stats [data-stat='{key}']").strip()


def play_to_the_end(page, game_name: str, answer: str) -> int:
    """The suggestions played against ``answer`` until the game ends; the turns played."""
    from termo.core.feedback import feedback
    from termo.games import get_game

    game = get_game(game_name)
    for turn in range(game.max_turns):
        guess = suggestion(page)
        assert guess, f"no suggestion at turn {turn + 1}"
        click_pattern(page, feedback(game.word_of(guess), game.word_of(answer), length=game.word_length))
        click_register(page)
        if message(page)[1] == "win":
            return turn + 1
    pytest.fail(f"not won in {game.max_turns} tries; answer {answer}")


def test_wordle_review_share_and_stats(tab):
    tab.goto(tab.base + "/wordle")
    tab.evaluate("localStorage.clear()")
    open_board(tab, "/wordle")
    assert tab.locator("#review-section").is_hidden()
    assert stat(tab, "played") == "0"
    with tab.expect_response(lambda r: "/api/suggest" in r.url):
        tab.select_option("#opt-level", "2")  # quicker rounds
    wait_idle(tab)
    turns = play_to_the_end(tab, "wordle", "cigar")
    # the review: one row per guess, each with a verdict in English, the scores
    tab.wait_for_function("document.querySelectorAll('#review tbody tr').length > 0", timeout=EVENT * 8)
    rows = tab.eval_on_selector_all("#review tbody tr", "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent))")
    assert len(rows) == turns
    assert rows[-1][1] == "CIGAR"
    for row in rows:
        assert row[3] in {"perfect", "near perfect", "good", "fair", "not great", "bad", "very bad"}, row
    assert tab.inner_text("#review-scores").startswith("Skill ")
    # the share text: the game's own, colours only, copied by the button
    share = tab.inner_text("#share-text").strip()
    assert share.startswith("Wordle ") and f" {turns}/6" in share.splitlines()[0]
    assert "cigar" not in share.lower() and share.splitlines()[-1] == "🟩" * 5
    tab.click("#share")
    tab.wait_for_function("document.querySelector('#share-status').textContent !== ''", timeout=EVENT)
    assert tab.evaluate("navigator.clipboard.readText()").strip() == share
    # the statistics: one game won, a streak of one, its turn in the distribution
    assert (stat(tab, "played"), stat(tab, "win_pct"), stat(tab, "streak"), stat(tab, "max_streak")) == ("1", "100", "1", "1")
    assert tab.inner_text(f"#distribution li[data-turn='{turns}'] .bar").strip() == "1"
    # Undo out of the end takes the game back and hides the review; the same end counts once
    with tab.expect_response(lambda r: "/api/suggest" in r.url):
        tab.click("#undo")
    wait_idle(tab)
    assert tab.locator("#review-section").is_hidden() and stat(tab, "played") == "0"
    click_pattern(tab, "GGGGG")
    click_register(tab)
    assert stat(tab, "played") == "1" and stat(tab, "streak") == "1"
    # a reload shows the same, counted once
    open_board(tab, "/wordle")
    assert stat(tab, "played") == "1"


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2,
         "permissions": ["clipboard-read", "clipboard-write"]}
# per page: its answer (None: a third into its list), the review's heading, the scores' first word,
# the share text's first word, the first words of how to play
LANGUAGES = {
    "termo": ("fardo", "Análise das suas palavras", "Habilidade ", "joguei term.ooo", "Jogue no próprio site"),
    "wordle-ru": (None, "Разбор ваших ходов", "Мастерство ", "wordle.belousov.one", "Играйте в самой игре"),
}


@pytest.mark.parametrize("kind", ["desktop", "phone"])
@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_review_share_stats_in_the_game_language(browser, server, name, kind):
    from termo.games import get_game

    answer, heading, scores, share, how_to = LANGUAGES[name]
    answer = answer or get_game(name).answers_norm[len(get_game(name).answers_norm) // 3]
    for tab in new_tab(browser, server, kind, **(PHONE if kind == "phone" else CLIPBOARD)):
        tab.goto(tab.base + "/" + name)
        tab.evaluate("localStorage.clear()")
        open_board(tab, "/" + name)
        with tab.expect_response(lambda r: "/api/suggest" in r.url):
            tab.select_option("#opt-level", "2")
        wait_idle(tab)
        turns = play_to_the_end(tab, name, answer)
        tab.wait_for_function("document.querySelectorAll('#review tbody tr').length > 0", timeout=EVENT * 8)
        assert tab.inner_text("#review-section h2") == heading
        assert tab.inner_text("#review-scores").startswith(scores)
        assert len(tab.locator("#review tbody tr").all()) == turns
        assert tab.inner_text("#share-text").startswith(share)
        tab.click("#share")
        tab.wait_for_function("document.querySelector('#share-status').textContent !== ''", timeout=EVENT)
        assert tab.evaluate("navigator.clipboard.readText()").strip() == tab.inner_text("#share-text").strip()
        assert stat(tab, "played") == "1" and stat(tab, "streak") == "1"
        # the review's table stays inside the screen's width (it scrolls sideways where it must)
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        tab.click("#how-to summary")
        assert tab.inner_text("#how-to p").startswith(how_to)
        assert tab.locator("#opt-dark").count() == (0 if name == "termo" else 1)  # Termo's colours are dark already


def test_dark_theme_of_the_light_games(tab):
    for path, background in (("/wordle", "rgb(18, 18, 19)"), ("/nerdle-mini", "rgb(16, 16, 16)")):
        tab.goto(tab.base + path)
        tab.evaluate("localStorage.clear()")
        open_board(tab, path)
        assert tab.get_attribute("body", "data-theme") == "light"  # the system's choice: light here
        tab.check("#opt-dark")
        assert tab.get_attribute("body", "data-theme") == "dark"
        assert tab.evaluate("getComputedStyle(document.body).backgroundColor") == background
        open_board(tab, path)
        assert tab.get_attribute("body", "data-theme") == "dark" and tab.is_checked("#opt-dark")
    tab.goto(tab.base + "/dordle")  # one choice for every light board, modes included
    wait_ready(tab)
    assert tab.get_attribute("body", "data-theme") == "dark"
