"""The live page at a phone's size when its camera or the server goes away mid-session: it says so
in the page's language and picks up again (Playwright, headless Debian chromium)."""
from __future__ import annotations

from playwright.sync_api import expect

# the page tests' skip marks and their fixtures: the in-thread server and the chromium
from tests.test_e2e_pages import (BROWSER_ARGS, CHROMIUM, PHONE, FakeCapture, browser,  # noqa: F401
                                  pytestmark, thread_server)


def test_an_unreachable_server_is_said_in_the_pages_language(browser, tmp_path):  # noqa: F811
    url, shutdown = thread_server(tmp_path, CAMERA_OPENER=lambda index: FakeCapture())
    ctx = browser.new_context(viewport=PHONE, locale="en-US")  # the browser English, the page Chinese
    try:
        page = ctx.new_page()
        page.goto(url + "/live")
        expect(page.locator("#src-server")).to_be_checked()
        page.click("#live-toggle")
        expect(page.locator("#live-status")).to_have_text("辨識中，約每秒一次", timeout=15_000)
        page.route("**/api/camera/frame", lambda route: route.abort())  # the server stops answering
        # once "錯誤：Failed to fetch", the browser's English
        expect(page.locator("#live-status")).to_have_text("錯誤：無法連線到伺服器", timeout=15_000)
        page.unroute("**/api/camera/frame")
        expect(page.locator("#live-status")).to_have_text("辨識中，約每秒一次", timeout=15_000)
    finally:
        ctx.close()
        shutdown()
