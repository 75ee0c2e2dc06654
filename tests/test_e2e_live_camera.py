"""The live page at a phone's size when its camera or the server goes away mid-session: it says so
in the page's language and picks up again (Playwright, headless Debian chromium)."""
from __future__ import annotations

from playwright.sync_api import expect

# the page tests' skip marks and their fixtures: the in-thread server and the chromium
from tests.test_e2e_pages import (BROWSER_ARGS, CHROMIUM, PHONE, FakeCapture, browser,  # noqa: F401
                                  pytestmark, snap, thread_server)


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


def test_a_camera_that_stops_is_said_and_can_start_again(browser, tmp_path):  # noqa: F811
    url, shutdown = thread_server(tmp_path)  # no table camera: this device's camera is the source
    # a second chromium from the same Playwright, with Chromium's fake camera allowed
    b = browser.browser_type.launch(executable_path=CHROMIUM, args=BROWSER_ARGS + [
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"])
    try:
        for lang, running, lost in (("zh", "辨識中，約每秒一次", "相機中斷了（拔掉或被關掉）：按「開始」重新使用，或改用拍照上傳"),
                                    ("en", "Recognizing about once a second",
                                     "The camera stopped (unplugged or turned off): press Start to use it again, or upload photos")):
            ctx = b.new_context(viewport=PHONE, locale="zh-TW", permissions=["camera"])
            ctx.add_init_script(f"localStorage.setItem('mahjong.lang', '{lang}')")
            page = ctx.new_page()
            page.goto(url + "/live")
            expect(page.locator("#src-browser")).to_be_checked()
            page.click("#live-toggle")
            expect(page.locator("#live-status")).to_have_text(running, timeout=15_000)
            # the camera goes (its track ends): once the frozen last picture went on being read as live
            page.evaluate("() => document.querySelector('#video').srcObject.getTracks().forEach((t) => t.stop())")
            expect(page.locator("#live-status")).to_have_text(lost, timeout=15_000)
            expect(page.locator("#live-status")).to_have_attribute("data-kind", "error")
            snap(page, f"live-camera-lost-{lang}-phone")
            page.click("#live-toggle")  # back: Start asks for the camera again
            expect(page.locator("#live-status")).to_have_text(running, timeout=15_000)
            ctx.close()
    finally:
        b.close()
        shutdown()


def test_a_table_camera_that_stops_answering_is_not_said_to_be_missing(browser, tmp_path):  # noqa: F811
    """A stalled camera answers 503 camera_not_answering (webapp/camera.py): the page said 伺服器沒有接攝影機
    ("no camera attached") of a camera that is attached, and never what the server said."""
    import json

    url, shutdown = thread_server(tmp_path, CAMERA_OPENER=lambda index: FakeCapture())
    ctx = browser.new_context(viewport=PHONE, locale="en-US")  # the browser English, the page Chinese
    try:
        page = ctx.new_page()
        page.goto(url + "/live")
        expect(page.locator("#src-server")).to_be_checked()
        page.click("#live-toggle")
        expect(page.locator("#live-status")).to_have_text("辨識中，約每秒一次", timeout=15_000)
        page.route("**/api/camera/frame", lambda route: route.fulfill(
            status=503, content_type="application/json",
            body=json.dumps({"error": "the camera is not answering; check its cable, or restart the server",
                             "code": "camera_not_answering", "params": {}})))
        expect(page.locator("#live-status")).to_have_text("錯誤：攝影機沒有回應；請檢查連接線，或重新啟動伺服器",
                                                          timeout=15_000)
        page.route("**/api/camera/frame", lambda route: route.fulfill(
            status=404, content_type="application/json",
            body=json.dumps({"error": "no camera attached", "code": "no_camera", "params": {}})))
        expect(page.locator("#live-status")).to_have_text("錯誤：伺服器沒有接攝影機", timeout=15_000)
    finally:
        ctx.close()
        shutdown()


def test_an_error_on_the_status_line_is_said_again_in_the_other_language(browser, tmp_path):  # noqa: F811
    """A refused photo's line once stayed in the language it was said in after the switch."""
    url, shutdown = thread_server(tmp_path)
    ctx = browser.new_context(viewport=PHONE, locale="zh-TW")
    try:
        page = ctx.new_page()
        page.goto(url + "/live")
        page.check("#src-file")
        page.set_input_files("#frame-input", files=[{"name": "hand.jpg", "mimeType": "image/jpeg",
                                                     "buffer": b"not a photo at all"}])
        status = page.locator("#live-status")
        expect(status).to_have_attribute("data-kind", "error")
        expect(status).to_contain_text("錯誤：")
        said_zh = status.inner_text()
        page.click("#lang-switch")
        expect(status).to_contain_text("Error: ")
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in status.inner_text()), status.inner_text()
        page.click("#lang-switch")
        expect(status).to_have_text(said_zh)
    finally:
        ctx.close()
        shutdown()
