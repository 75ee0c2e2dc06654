"""The live page at a phone's size when its camera or the server goes away mid-session: it says so
in the page's language and picks up again (Playwright, headless Debian chromium)."""
from __future__ import annotations

import base64
from contextlib import contextmanager

import pytest
from playwright.sync_api import expect

# the page tests' skip marks and their fixtures: the in-thread server and the chromium
from tests.test_e2e_pages import (BROWSER_ARGS, CHROMIUM, PHONE, SIZES, FakeCapture, browser,  # noqa: F401
                                  frame_png, new_page, page_at, pytestmark, snap, thread_server)


@contextmanager
def live_page(browser, tmp_path, locale="zh-TW", **config):
    """The live page at a phone's size on an in-thread server (config: create_app's), closed after."""
    url, shutdown = thread_server(tmp_path, **config)
    ctx = browser.new_context(viewport=PHONE, locale=locale)
    try:
        page = ctx.new_page()
        page.goto(url + "/live")
        yield page
    finally:
        ctx.close()
        shutdown()


def test_an_unreachable_server_is_said_in_the_pages_language(browser, tmp_path):  # noqa: F811
    # the browser English, the page Chinese
    with live_page(browser, tmp_path, locale="en-US", CAMERA_OPENER=lambda index: FakeCapture()) as page:
        expect(page.locator("#src-server")).to_be_checked()
        page.click("#live-toggle")
        expect(page.locator("#live-status")).to_have_text("辨識中，約每秒一次", timeout=15_000)
        page.route("**/api/camera/frame", lambda route: route.abort())  # the server stops answering
        # once "錯誤：Failed to fetch", the browser's English
        expect(page.locator("#live-status")).to_have_text("錯誤：無法連線到伺服器", timeout=15_000)
        page.unroute("**/api/camera/frame")
        expect(page.locator("#live-status")).to_have_text("辨識中，約每秒一次", timeout=15_000)


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

    # the browser English, the page Chinese
    with live_page(browser, tmp_path, locale="en-US", CAMERA_OPENER=lambda index: FakeCapture()) as page:
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


def test_an_error_on_the_status_line_is_said_again_in_the_other_language(browser, tmp_path):  # noqa: F811
    """A refused photo's line once stayed in the language it was said in after the switch."""
    with live_page(browser, tmp_path) as page:
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


def test_a_file_that_is_no_photo_leaves_the_last_photo_and_a_good_read_clears_its_error(browser, tmp_path):  # noqa: F811
    """After a good photo, a file that is no photo once blanked the picture under the old photo's
    tiles, and its error stayed on the line after the photo was read well again."""
    with live_page(browser, tmp_path) as page:
        page.check("#src-file")
        status, view = page.locator("#live-status"), page.locator("#frame-view")
        page.set_input_files("#frame-input", files=[{"name": "hand.png", "mimeType": "image/png",
                                                     "buffer": base64.b64decode(frame_png(320))}])
        expect(status).to_have_text("每拍一張就更新一次")
        good = view.get_attribute("src")
        page.set_input_files("#frame-input", files=[{"name": "hand.jpg", "mimeType": "image/jpeg",
                                                     "buffer": b"not a photo at all"}])
        expect(status).to_have_attribute("data-kind", "error")
        assert view.get_attribute("src") == good  # the last good photo stays, with its tiles
        page.click('#live-targets button[data-target="pong"]')
        page.click('#live-keyboard button.key[data-tile="5p"]')  # the photo is read again with the pong
        expect(status).to_have_text("每拍一張就更新一次")
        expect(status).to_have_attribute("data-kind", "ok")


def test_dragons_entered_as_flowers_under_yueqing_go_when_the_table_changes(browser, tmp_path):  # noqa: F811
    with live_page(browser, tmp_path) as page:
        page.select_option("#rules", "yueqing")
        page.click('#live-targets button[data-target="flowers"]')
        page.click('#live-keyboard button.key[data-tile="P"]')
        page.click('#live-keyboard button.key[data-tile="1f"]')
        expect(page.locator("#my-melds button.tile-btn")).to_have_count(2)
        page.select_option("#rules", "tw-standard")  # a Taiwanese table has no 白板 flower: it goes, 春 stays
        expect(page.locator("#my-melds button.tile-btn")).to_have_count(1)
        expect(page.locator("#my-melds button.tile-btn img")).to_have_attribute("src", "/static/tiles/1f.png")


def test_a_language_switch_says_the_servers_lines_and_a_lost_connection_again(browser, tmp_path):  # noqa: F811
    """The tile count the server words stayed in the old language after a switch until the next
    photo, and so did 'cannot reach the server' (it had no key to be said again by)."""
    with live_page(browser, tmp_path) as page:
        page.check("#src-file")
        page.click('#live-targets button[data-target="pong"]')
        page.click('#live-keyboard button.key[data-tile="E"]')  # 16 tiles in the photo and a pong: 19
        photo = {"name": "hand.png", "mimeType": "image/png", "buffer": base64.b64decode(frame_png(320))}
        page.set_input_files("#frame-input", files=[photo])
        message = page.locator("#live-message")
        expect(message).to_have_text("照片裡 16 張牌，加上輸入的副露 1 組，共 19 張；一手牌是 16 或 17 張")
        page.click("#lang-switch")
        expect(message).to_have_text("16 tiles in the picture and 1 meld(s) entered make 19; a hand has 16 or 17")
        page.route("**/api/live", lambda route: route.abort())  # the server stops answering
        page.set_input_files("#frame-input", files=[photo])
        status = page.locator("#live-status")
        expect(status).to_have_text("Error: Cannot reach the server")
        page.click("#lang-switch")
        expect(status).to_have_text("錯誤：無法連線到伺服器")


PICTURE_SHOWN = """() => { const img = document.querySelector('#frame-view');
  return !img.hidden && img.complete && img.naturalWidth > 0; }"""


@pytest.mark.parametrize("size", SIZES)
def test_the_table_camera_asks_for_the_pin_once_then_shows_its_picture(new_page, tmp_path, size):  # noqa: F811
    """With a table PIN the camera's picture needs it (it shows the people at the table): Start asks
    for the PIN once, a refusal says what is needed and is not asked again every second, and after
    the PIN the picture shows and is read."""
    url, shutdown = thread_server(tmp_path, TABLE_PIN="2468", CAMERA_OPENER=lambda index: FakeCapture())
    try:
        page = page_at(new_page, size, url + "/live")
        refused = []
        page.on("response", lambda r: refused.append(r.url) if r.status == 403 else None)
        status, dialog = page.locator("#live-status"), page.locator("dialog.pin-dialog")
        expect(page.locator("#src-server")).to_be_checked()  # whether a camera is attached is no secret
        page.click("#live-toggle")
        expect(dialog).to_be_visible()
        page.click('dialog.pin-dialog button[value="cancel"]')
        expect(status).to_have_text("錯誤：桌邊攝影機的畫面要先輸入牌桌密碼，請按「開始」輸入")
        expect(status).to_have_attribute("data-kind", "error")
        page.wait_for_timeout(2500)  # no loop: no second question, no second refused frame
        expect(dialog).to_have_count(0)
        assert [u.split("/api/")[1] for u in refused] == ["camera/frame"], refused
        page.click("#lang-switch")
        expect(status).to_have_text("Error: The table camera's picture needs the table PIN; press Start to enter it")
        page.click("#lang-switch")

        page.click("#live-toggle")  # Start asks again, once
        expect(dialog).to_be_visible()
        expect(status).to_have_text("尚未開始")  # not the last try's "press Start" behind the question
        page.fill("#pin-input", "2468")
        snap(page, f"live-table-camera-pin-{size}")
        page.click('dialog.pin-dialog button[type="submit"]')
        expect(status).to_have_text("辨識中，約每秒一次", timeout=15_000)
        page.wait_for_function(PICTURE_SHOWN, timeout=10_000)
        expect(page.locator("#frame-view")).to_have_attribute("data-mode", "stream")  # the stream, let in by the cookie
        expect(page.locator('#waits li[data-tile="5s"]')).to_be_visible(timeout=15_000)
        expect(dialog).to_have_count(0)
        assert len(refused) == 2, refused  # one frame refused per Start, before its question
        snap(page, f"live-table-camera-unlocked-{size}")
        page.click("#live-toggle")
        assert not page.js_errors, page.js_errors
    finally:
        shutdown()
