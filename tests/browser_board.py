"""The board in headless Chromium for the browser tests (tests/test_web_browser.py,
tests/test_web_board.py): ``termo serve`` on loopback for the module, the browser, a fresh page
per test, and the board's stable hooks (shared with bench/screenshots.py). Without Chromium (or
Playwright) the tests are skipped with the reason, except under CI (``$CI`` set), where a missing
browser fails them.

A test module takes them all with ``from browser_board import *`` (the fixtures must be names of
the module)."""

from __future__ import annotations

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
    "open_board", "message",
    # the board's hooks
    "active_row", "candidates", "click_pattern", "click_register", "row_letters", "row_states", "suggestion",
    "wait_idle", "wait_ready",
]

CHROMIUM = chromium_path()


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (required under CI: .ci/run installs the system package `chromium`)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def server():
    """``termo serve`` on 127.0.0.1 and a free port, for the whole module."""
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


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(120_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda err: errors.append(str(err)))
    tab.base = server
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def open_board(page, path: str = "/"):
    page.goto(page.base + path)
    wait_ready(page)


def message(page) -> tuple[str, str]:
    return page.inner_text("#message").strip(), page.get_attribute("#message", "data-kind") or ""
