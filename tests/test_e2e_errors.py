"""Issue 11 item 2 in the browser: static/js/api.js words each error code in the page's language,
whatever the browser's own language (Playwright, headless Debian chromium)."""
from __future__ import annotations


# the page tests' skip marks and their fixtures: the in-thread server and the chromium
from tests.test_e2e_pages import SHOTS, browser, fake_server, pytestmark  # noqa: F401

SCORE_15 = """async () => {
  const { post } = await import("/static/js/api.js");
  try { await post("/api/score", {concealed: "123456789m123456p", winning_tile: "5s"}); return null; }
  catch (e) { return {message: e.message, code: e.code, params: e.params, status: e.status}; }
}"""


def test_api_js_words_the_code_in_the_pages_language(fake_server, browser):
    ctx = browser.new_context(locale="en-US")  # the browser says English; the page is Chinese
    page = ctx.new_page()
    page.goto(fake_server + "/")
    zh = page.evaluate(SCORE_15)
    assert zh == {"message": "手牌 15 張、副露 0 組；手牌應該是 16 張", "code": "concealed_count",
                  "params": {"n": 15, "melds": 0, "expected": 16, "size": 16}, "status": 400}
    page.evaluate("localStorage.setItem('mahjong.lang', 'en')")
    page.reload()
    en = page.evaluate(SCORE_15)
    assert en["message"] == "15 concealed tiles with 0 meld(s); expected 16" and en["code"] == "concealed_count"
    ctx.close()


def test_a_code_the_pages_do_not_know_keeps_the_servers_words(fake_server, browser):
    ctx = browser.new_context(locale="zh-TW")
    page = ctx.new_page()
    page.goto(fake_server + "/")
    page.route("**/api/messages/zh", lambda route: route.fulfill(status=200, content_type="application/json",
                                                                 body="{}"))
    out = page.evaluate(SCORE_15)
    # the page sent its language, so the server's own wording is Chinese too
    assert out["message"] == "手牌 15 張、副露 0 組；手牌應該是 16 張"
    ctx.close()


def test_the_bad_game_link_follows_the_pages_language(fake_server, browser):
    ctx = browser.new_context(locale="en-US")
    page = ctx.new_page()
    page.goto(fake_server + "/")  # the page sets the lang cookie (zh by default)
    r = page.goto(fake_server + "/games/0123456789ab")
    assert r.status == 404 and page.inner_text("#error-message").strip() == "找不到牌局 0123456789ab"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "error-bad-game-link.png"))
    page.click("text=牌局紀錄 >> nth=-1")  # the way back the page offers
    assert page.url.endswith("/games")
    ctx.close()
