"""The board in headless Chromium for the browser tests (tests/test_web_browser.py,
tests/test_web_board.py): ``termo serve`` on loopback for the module, the browser, a fresh page
per test, and the board's stable hooks (shared with bench/screenshots.py). Without Chromium (or
Playwright) the tests are skipped with the reason, except under CI (``$CI`` set), where a missing
browser fails them.

A test module takes them all with ``from browser_board import *`` (the fixtures must be names of
the module). ``$TERMO_BROWSER_SERVER`` (a base address, ``http://127.0.0.1:8899``) runs the tests
against a server already running instead, e.g. one of an older checkout: a test that reproduces
a bug is shown to fail there."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import pytest

from bench.screenshots import (
    active_row,
    candidates,
    chromium_path,
    click_pattern,
    click_register,
    colour_board,
    mode_round,
    row_letters,
    row_states,
    suggestion,
    wait_idle,
    wait_ready,
)
from bench.server_http import HOST, Server, free_port

__all__ = [
    # fixtures
    "server", "browser", "page",
    # the page
    "open_board", "message", "new_tab", "warming_health", "Gate", "EVENT",
    # the board's hooks
    "active_row", "candidates", "click_pattern", "click_register", "row_letters", "row_states", "suggestion",
    "wait_idle", "wait_ready",
    # several boards
    "colour_board", "mode_round",
]

CHROMIUM = chromium_path()
EVENT = 15_000  # ms: the safety net for a board event that a healthy run shows at once


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (required under CI: .ci/run installs the system package `chromium`)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def server():
    """``termo serve`` on 127.0.0.1 and a free port, for the whole module (or the one at
    ``$TERMO_BROWSER_SERVER``)."""
    given = os.environ.get("TERMO_BROWSER_SERVER")
    if given:
        yield given.rstrip("/")
        return
    port = free_port()
    log = Path(tempfile.mkdtemp(prefix="termo-browser-")) / "server.log"
    proc = Server(f"{sys.executable} -m cli serve --host {{host}} --port {{port}} --warm none", port, log)
    proc.start()
    yield f"http://{HOST}:{port}"
    proc.stop()


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        _unavailable("no Chromium installed (the system package `chromium`, /usr/bin/chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright is not installed (the `test` extra)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield chromium
        chromium.close()


def new_tab(browser, server, kind: str = "desktop", timeout: int = 120_000, **context):
    """A page of a new browser context (``context``: its viewport, touch...), ``base`` the server's
    address and ``kind`` its name; yields it, then fails on any JavaScript error the page raised."""
    context = browser.new_context(**(context or {"viewport": {"width": 1280, "height": 900}}))
    context.set_default_timeout(timeout)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda err: errors.append(str(err)))
    tab.base = server
    tab.kind = kind
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def warming_health(page) -> dict:
    """Answer the page's ``GET /api/health`` as a server still warming up until ``state["ready"]``
    is set (the returned ``state``)."""
    state = {"ready": False}
    page.route("**/api/health", lambda route: route.fulfill(
        status=200, content_type="application/json",
        body=json.dumps({"ok": True, "ready": state["ready"], "warming": [] if state["ready"] else ["termo"]})))
    return state


@pytest.fixture
def page(browser, server):
    yield from new_tab(browser, server)


def open_board(page, path: str = "/"):
    page.goto(page.base + path)
    wait_ready(page)


def message(page) -> tuple[str, str]:
    return page.inner_text("#message").strip(), page.get_attribute("#message", "data-kind") or ""


class Gate:
    """Holds the page's requests whose address contains ``path`` (route interception) until
    `release`."""

    def __init__(self, page, path: str):
        self.page = page
        self.held = []
        self.open = False
        page.route(lambda url: path in url, self._route)

    def _route(self, route):
        if self.open:
            route.continue_()
        else:
            self.held.append(route)

    def wait_held(self, n: int = 1) -> None:
        """Until ``n`` requests are held (the route callback runs while Playwright waits)."""
        for _ in range(EVENT // 20):
            if len(self.held) >= n:
                return
            self.page.wait_for_timeout(20)
        raise AssertionError(f"no request held after {EVENT} ms")

    def release(self) -> None:
        self.open = True
        for route in self.held:
            try:
                route.continue_()
            except Exception:  # the board dropped that request (aborted): nothing to continue
                pass
        self.held.clear()
