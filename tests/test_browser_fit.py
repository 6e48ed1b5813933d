"""Every mode's page fits the screen, in a real browser (headless Chromium, tests/browser_board.py):
at 1280×800 (a laptop) and 390×844 (a phone), as the page opens, the boards, the keyboard and
Register are inside the window with nothing scrolled; a phone shows the board being coloured with
tiles of at least 24 px (web/static/board-layout.js: the large view beside or below small copies
of every board when the boards side by side would be smaller); no label is cut (a text wider than
its box: ``scrollWidth > clientWidth``). A round played keeps it so (a solved board's badge, the
panel's figures). The figures measured are printed (``pytest -s``) for docs/web.md.
"""

from __future__ import annotations

import json

import pytest

from browser_board import *  # noqa: F403 (the fixtures and the page helpers)

SIZES = {"desktop": {"viewport": {"width": 1280, "height": 800}},
         "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
                   "device_scale_factor": 2}}
MIN_TILE = {"desktop": 16, "phone": 24}  # px: the tiles of the board being coloured
LABELS = ".mboard-name, .mboard-badge, .key-label, .key, button:not(.tile), h1, #compact, #message, #status, label"
FIGURES = """(labels) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const board = document.querySelector('#board');
  const zoom = document.querySelector('#zoom');
  const large = zoom && !zoom.hidden;
  const shown = Array.from(document.querySelectorAll('.mboard[data-board]')).concat(large ? [zoom] : []);
  const coloured = large ? zoom : document.querySelector('.mboard[data-board]');
  const clipped = Array.from(document.querySelectorAll(labels))
    .filter((e) => e.offsetParent !== null && e.textContent.trim() && e.scrollWidth > e.clientWidth)
    .filter((e) => !(e.tagName === 'LABEL' && e.closest('nav')))  // the switcher's label, read aloud only on a phone
    .map((e) => (e.id || e.className) + ': ' + e.textContent.trim());
  return {layout: board.dataset.layout, scroll: [scrollX, scrollY], window: [innerWidth, innerHeight],
    boards: shown.map(box), keyboard: box(document.querySelector('#keyboard')),
    register: box(document.querySelector('#register')),
    tile: coloured.querySelector('.tile').getBoundingClientRect().width,
    small: large ? document.querySelector('.mboard[data-board] .tile').getBoundingClientRect().width : null,
    clipped};
}"""
MODES = ("dueto", "quarteto", "dordle", "quordle", "octordle", "binerdle", "quad-nerdle")


@pytest.fixture(params=list(SIZES))
def screen(request, browser, server):
    # a level-3 opener on a loaded machine: a long timeout
    yield from new_tab(browser, server, request.param, 300_000, **SIZES[request.param])


def figures(page) -> dict:
    return page.evaluate(FIGURES, LABELS)


def check_fit(page, name: str, when: str) -> dict:
    got = figures(page)
    width, height = got["window"]
    assert got["scroll"] == [0, 0], (name, when, got["scroll"])
    for what, boxes in (("boards", got["boards"]), ("keyboard", [got["keyboard"]]), ("register", [got["register"]])):
        for left, top, right, bottom in boxes:
            assert left >= 0 and top >= 0 and right <= width and bottom <= height, (name, when, what, got)
    assert got["tile"] >= MIN_TILE[page.kind], (name, when, got["tile"])
    assert got["clipped"] == [], (name, when, got["clipped"])
    return got


@pytest.mark.parametrize("name", MODES)
def test_every_mode_fits_the_screen(screen, name):
    page = screen
    page.goto(f"{page.base}/{name}")
    page.evaluate("localStorage.clear()")
    page.goto(f"{page.base}/{name}")
    wait_ready(page)
    opened = check_fit(page, name, "opened")
    # a round: an answer typed, every board coloured by its fixed answer (the first one's: solved)
    word = mode_round(page, name, tap=page.kind == "phone")
    assert page.get_attribute("#message", "data-kind") in ("", "note"), page.inner_text("#message")
    assert page.get_attribute(".mboard[data-board='0']", "data-solved") == "true", word
    played = check_fit(page, name, "played")
    boards = len(opened["boards"]) - (1 if opened["layout"] == "zoom" else 0)
    print(json.dumps({"mode": name, "screen": page.kind, "boards": boards, "layout": opened["layout"],
                      "tile": round(opened["tile"], 1), "small": opened["small"] and round(opened["small"], 1),
                      "register_y": [round(opened["register"][1]), round(opened["register"][3])],
                      "keyboard_bottom": round(opened["keyboard"][3]), "played_tile": round(played["tile"], 1)}))
