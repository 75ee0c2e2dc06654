"""Browser tests of the four pages (Playwright, headless Debian chromium).

Two kinds of server: the real app started as `python app.py` in a subprocess (what a user runs;
it recognizes photos only when models/ holds weights), and the app built by create_app in a
thread with a fake recognizer, so that the photo -> correction -> score -> game flow and the live
view get known tiles. Screenshots of every page (laptop 1280×800 and phone 390×844) go to
build/screenshots/ (git-ignored): the test run's artefacts, to be looked at.

Needs /usr/bin/chromium (apt-get install chromium) and the pinned `playwright` package; never
`playwright install` (that downloads a browser).
"""
from __future__ import annotations

import base64
import csv
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.app_support import row

CHROMIUM = "/usr/bin/chromium"
try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="the playwright package is not installed (pip install playwright)"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (apt-get install -y chromium)"),
]

ROOT = Path(__file__).resolve().parent.parent
PHOTOS = sorted((ROOT / "tests/fixtures/vision/images").glob("*.jpg"))
SHOTS = ROOT / "build" / "screenshots"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--headless", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
FETCH = {"X-Requested-With": "fetch"}

# class indices of the recognizer: 0-8 = 1m-9m, 9-17 = 1p-9p, 18-26 = 1s-9s, 27 = E
M = list(range(0, 9))
P1, P2, P3, P4, P5 = 9, 10, 11, 12, 13
S1, S5, S7 = 18, 22, 24
EAST = 27
# the README's example: 123m456m789m123p45p77s + 3p claimed (門清 1 台); the last 7s is misread as 1s
PHOTO_HAND = M + [P1, P2, P3, P4, P5, S7, S1]
PHOTO_WINNING = P3
READY_16 = M + [P1, P2, P3, P4, P5, 14, S5]          # 123456789m 123456p 5s: waits on 5s
FULL_17 = READY_16 + [EAST]                            # one more tile: discard advice
WIN_17 = READY_16 + [S5]                               # the drawn 5s completes it: a win, no discard
ROW_17 = PHOTO_HAND[:-1] + [S7, PHOTO_WINNING]         # the photo hand in one row, the drawn 3p rightmost


CALIBRATION_WIDTH = 700  # a photo this wide is a calibration photo: the 42 faces as rows of 7


def calibration_grid() -> list[list[float]]:
    return [[20 + 95 * (i % 7), 20 + 125 * (i // 7), 90 + 95 * (i % 7), 115 + 125 * (i // 7)] for i in range(42)]


def calibration_photo(path: Path, covered: tuple = ()) -> Path:
    """The app's own tile pictures laid out in the calibration order on felt, as a player would;
    the places in `covered` under a plain card."""
    import cv2
    import numpy as np
    order = [*(f"{n}{s}" for s in "mps" for n in range(1, 10)), *"ESWNCFP", *(f"{n}f" for n in range(1, 9))]
    photo = np.full((780, CALIBRATION_WIDTH, 3), (60, 110, 40), np.uint8)
    for tile, (x1, y1, x2, y2) in zip(order, calibration_grid()):
        face = cv2.imread(str(ROOT / "static" / "tiles" / f"{tile}.png"), cv2.IMREAD_COLOR)
        photo[y1:y2, x1:x2] = cv2.resize(face, (x2 - x1, y2 - y1))
    for i in covered:
        x1, y1, x2, y2 = calibration_grid()[i]
        photo[y1 + 3:y2 - 3, x1 + 3:x2 - 3] = (225, 235, 240)
    cv2.imwrite(str(path), photo)
    return path


class FakeRecognizer:
    """Stands in for the vision model. A photo 640 px wide gets the photo hand; live frames choose by
    width; a calibration photo (CALIBRATION_WIDTH) gets the 42 faces."""

    config = {"det_conf": 0.25}

    def detect(self, image):
        import numpy as np
        boxes = calibration_grid() if image.shape[1] == CALIBRATION_WIDTH else [d["box"] for d in self.recognize(image)]
        return np.array(boxes, np.float32).reshape(-1, 4), None

    def recognize(self, image):
        width = image.shape[1]
        if width == 320:
            return row(READY_16)
        if width == 400:
            return row(FULL_17)
        if width == 360:
            return row(WIN_17)
        if width == 500:
            return row(ROW_17)
        if width == 560:  # the photo hand and a sure 東 lying apart below it: it fits no group
            stray = {"cls": EAST, "box": [10, 500, 44, 546], "rotation": "upright", "confidence": 0.95}
            return row(PHOTO_HAND, apart=[PHOTO_WINNING], unsure=[len(PHOTO_HAND) - 1]) + [stray]
        return row(PHOTO_HAND, apart=[PHOTO_WINNING], unsure=[len(PHOTO_HAND) - 1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/health", timeout=2) as r:
                return json.load(r)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture(scope="module")
def real_server(tmp_path_factory):
    """`python app.py` as a user starts it, on a free port and an empty data folder."""
    port = free_port()
    data = tmp_path_factory.mktemp("data")
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "MAHJONG_DATA": str(data)}
    env.pop("TABLE_PIN", None)
    log = open(data / "server.log", "wb")
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        health = wait_healthy(url)
        yield {"url": url, "health": health}
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def thread_server(tmp_path, **config):
    """create_app with a fake recognizer, served by werkzeug in a thread; returns (url, shutdown)."""
    import logging

    from werkzeug.serving import make_server
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request in the test output

    from app import create_app
    settings = {"DATA_DIR": tmp_path / "data", "MODELS_DIR": tmp_path / "models", "TESTING": True,
                "RECOGNIZER": FakeRecognizer(), "TABLE_PIN": None}
    settings.update(config)
    server = make_server("127.0.0.1", 0, create_app(settings), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{server.server_port}", server.shutdown


@pytest.fixture(scope="module")
def fake_server(tmp_path_factory):
    url, shutdown = thread_server(tmp_path_factory.mktemp("fake"))
    yield url
    shutdown()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield b
        b.close()


@pytest.fixture
def new_page(browser):
    contexts = []

    def make(viewport=DESKTOP):
        ctx = browser.new_context(viewport=viewport, locale="zh-TW")
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.js_errors = errors
        # the server's Content-Security-Policy must never have to refuse anything the pages do
        page.on("console", lambda m: "Content Security Policy" in m.text and csp_refusals.append(m.text))
        return page

    csp_refusals = []
    yield make
    for ctx in contexts:
        ctx.close()
    assert not csp_refusals, csp_refusals


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def no_horizontal_scroll(page):
    width, client = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width <= client, f"page is {width}px wide in a {client}px window"


# ---------- helpers that drive the score page ----------

def press(page, *tiles):
    for x in tiles:
        page.click(f'#hand-keyboard button.key[data-tile="{x}"]')


def target(page, name):
    page.click(f'#hand-editor .targets button[data-target="{name}"]')


def enter_readme_hand(page):
    """123m456m789m123p45p77s by the tile keyboard, 3p as the winning tile."""
    target(page, "concealed")
    press(page, *[f"{n}m" for n in range(1, 10)], "1p", "2p", "3p", "4p", "5p", "7s", "7s")
    target(page, "winning")
    press(page, "3p")
    expect(page.locator("#concealed-count")).to_have_class("count ok")


def choose_yueqing(page):
    """The 乐清 table on the score page, once the rule list has loaded."""
    expect(page.locator('#rules option[value="yueqing"]')).to_have_count(1)
    page.select_option("#rules", "yueqing")


def claimed_by_south_from_west(page):
    page.check("#win-claimed")
    page.select_option("#seat-wind", "S")
    page.select_option("#discarder", "W")
    page.select_option("#round-wind", "E")
    page.select_option("#dealer", "E")


def check_menqing_one_tai(page):
    expect(page.locator("#verdict")).to_have_class("verdict yes")
    expect(page.locator("#total-tai")).to_have_text("1")
    rows = page.locator("#breakdown tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-entry", "menqing")
    expect(rows.first).to_contain_text("門清")
    expect(rows.first).to_contain_text("Concealed hand")
    expect(page.locator('#payments [data-seat="S"] strong')).to_have_text("+120")
    expect(page.locator('#payments [data-seat="W"] strong')).to_have_text("-120")
    expect(page.locator('#payments [data-seat="E"] strong')).to_have_text("0")


# ---------- (b) manual entry, (d) phone layout ----------

@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_manual_entry_scores_exact_tai(real_server, new_page, viewport):
    page = new_page(PHONE if viewport == "phone" else DESKTOP)
    page.goto(real_server["url"] + "/")
    expect(page.locator("#rules option")).not_to_have_count(0)
    page.select_option("#rules", "tw-standard")
    enter_readme_hand(page)
    # undo and redo one key: the keyboard's own correction path
    target(page, "concealed")
    press(page, "E")
    page.click("#key-undo")
    expect(page.locator('#hand-editor [data-zone="concealed"] .tile-btn')).to_have_count(16)
    claimed_by_south_from_west(page)
    page.click("#score-button")
    check_menqing_one_tai(page)
    expect(page.locator(".sets .set")).to_have_count(6)
    no_horizontal_scroll(page)
    shot(page, f"score-result-{viewport}")
    assert not page.js_errors


def test_not_a_win_says_why(real_server, new_page):
    page = new_page()
    page.goto(real_server["url"] + "/")
    target(page, "concealed")
    press(page, *[f"{n}m" for n in range(1, 10)], "1p", "2p", "3p", "4p", "5p", "7s", "8s")
    target(page, "winning")
    press(page, "3p")
    page.click("#score-button")
    expect(page.locator("#verdict")).to_have_class("verdict no")
    expect(page.locator("#reason")).not_to_be_empty()
    expect(page.locator("#record-section")).to_be_hidden()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_every_page_fits_and_renders(real_server, new_page, viewport):
    url = real_server["url"]
    req = urllib.request.Request(f"{url}/api/games", method="POST", headers={**FETCH, "Content-Type": "application/json"},
                                 data=json.dumps({"players": ["阿明", "小華", "美玲", "志強"], "rules": "tw-standard",
                                                  "base": 100, "per_tai": 20, "first_dealer": 0}).encode())
    game = json.load(urllib.request.urlopen(req))
    page = new_page(PHONE if viewport == "phone" else DESKTOP)
    for path, name, ready in [("/", "score", "#hand-keyboard"), ("/live", "live", "#live-keyboard .key"),
                              ("/games", "games", f'#game-list li[data-game="{game["id"]}"]'),
                              (f"/games/{game['id']}", "game", "#scoreboard .player")]:
        page.goto(url + path)
        expect(page.locator(ready).first).to_be_visible()
        expect(page.locator('nav.top a[aria-current="page"]')).to_have_count(1)
        no_horizontal_scroll(page)
        shot(page, f"{name}-{viewport}")
        if name == "games" and viewport == "desktop":  # a laptop lists a game on one line, its button at the end
            row = page.locator(f'#game-list li[data-game="{game["id"]}"]')
            names, button = row.locator(".names").bounding_box(), row.locator(".button").bounding_box()
            assert button["y"] < names["y"] + names["height"] and button["x"] > names["x"] + names["width"]
    assert not page.js_errors


# ---------- (e) English ----------

def test_english_switch(real_server, new_page):
    page = new_page()
    page.goto(real_server["url"] + "/")
    expect(page.locator("#score-button")).to_have_text("算台")
    page.click("#lang-switch")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#score-button")).to_have_text("Score")
    expect(page.locator('nav.top a[href="/games"]')).to_have_text("Games")
    expect(page.locator('#hand-keyboard button.key[data-tile="1m"]')).to_have_attribute("aria-label", "1 Characters")
    page.reload()  # the choice is remembered
    expect(page.locator("#lang-switch")).to_have_text("中文")
    enter_readme_hand(page)
    claimed_by_south_from_west(page)
    page.click("#score-button")
    expect(page.locator("#verdict")).to_have_text("Win! 1 tai")
    expect(page.locator('#payments [data-seat="S"] .seat')).to_have_text("South")
    shot(page, "score-english-desktop")
    page.goto(real_server["url"] + "/games")
    expect(page.locator("#create-game")).to_have_text("Start game")
    page.click("#lang-switch")
    expect(page.locator("#create-game")).to_have_text("開局")
    # the live view's status line follows a change of language too
    page.goto(real_server["url"] + "/live")
    expect(page.locator("#live-status")).to_have_text("尚未開始")
    page.click("#lang-switch")
    expect(page.locator("#live-status")).to_have_text("Not started")


def test_a_missing_winning_tile_is_asked_for_in_plain_english(fake_server, new_page):
    """Scoring before the winning tile is chosen: the English page once said "(winning_tile is
    missing)", the API's field name; the player is asked for the tile in words, as in Chinese."""
    page = new_page()
    page.goto(fake_server + "/")
    page.click("#lang-switch")
    target(page, "concealed")
    press(page, *[f"{n}m" for n in range(1, 10)], "1p", "2p", "3p", "4p", "5p", "7s", "7s")
    page.click("#score-button")
    expect(page.locator("#score-status")).to_have_text("Error: choose the winning tile")
    page.click("#lang-switch")
    page.click("#score-button")
    expect(page.locator("#score-status")).to_have_text("錯誤：還沒選胡的那張牌")
    assert not page.js_errors


# ---------- (a) a real photo on the real server ----------

def test_photo_on_real_server(real_server, new_page):
    """With weights in models/ the photo is recognized; without, the page says so and manual entry works."""
    page = new_page()
    page.goto(real_server["url"] + "/")
    page.set_input_files("#photo-input", str(PHOTOS[0]))
    status = page.locator("#photo-status")
    if not real_server["health"]["model"]:
        expect(status).to_have_attribute("data-kind", "error", timeout=30_000)
        expect(status).to_contain_text("辨識模型")
        enter_readme_hand(page)
        claimed_by_south_from_west(page)
        page.click("#score-button")
        check_menqing_one_tai(page)
        return
    expect(status).not_to_have_attribute("data-kind", "info", timeout=60_000)  # recognition is done
    assert status.get_attribute("data-kind") == "ok", f"recognition of {PHOTOS[0].name}: {status.text_content()}"
    expect(page.locator("#annotated")).to_be_visible()
    tiles = page.locator("#hand-editor .tile-btn")
    assert tiles.count() > 0
    first = tiles.first
    before = first.get_attribute("data-tile")
    new = "9s" if before != "9s" else "1m"
    first.click()
    page.click(f'#tile-sheet button.key[data-tile="{new}"]')
    expect(page.locator("#hand-editor .tile-btn.corrected")).to_have_count(1)
    page.click("#score-button")
    # a real photo need not hold a complete hand: a verdict or the engine's one-line reason
    expect(page.locator("#verdict:visible, #score-status[data-kind=error]:visible").first).to_be_visible()
    expect(page.locator("#examples-count")).to_contain_text("1")
    shot(page, "score-photo-real-desktop")


# ---------- (a) photo -> correction -> score -> game, with known tiles ----------

def test_photo_corrected_scored_and_recorded(fake_server, new_page):
    page = new_page()
    page.on("dialog", lambda d: d.accept())
    # a game to record into, made on the games page
    page.goto(fake_server + "/games")
    for i, name in enumerate(["阿明", "小華", "美玲", "志強"]):
        page.fill(f"#p{i}", name)
    page.select_option("#first-dealer", "0")
    page.click("#create-game")
    page.wait_for_url("**/games/*")
    game_id = page.url.rstrip("/").split("/")[-1]

    page.goto(fake_server + "/")
    page.set_input_files("#photo-input", str(PHOTOS[0]))
    expect(page.locator("#photo-status")).to_have_attribute("data-kind", "ok")
    expect(page.locator("#annotated")).to_be_visible()
    flagged = page.locator("#hand-editor .tile-btn.flagged")
    expect(flagged).to_have_count(1)
    expect(flagged).to_have_attribute("data-tile", "1s")
    expect(page.locator('[data-zone="winning"] .tile-btn')).to_have_attribute("data-tile", "3p")
    shot(page, "score-photo-flagged-desktop")
    flagged.click()
    expect(page.locator("#tile-sheet")).to_be_visible()
    shot(page, "score-picker-desktop")
    page.click('#tile-sheet button.key[data-tile="7s"]')
    expect(page.locator("#tile-sheet")).to_be_hidden()
    expect(page.locator("#hand-editor .tile-btn.flagged")).to_have_count(0)
    expect(page.locator("#hand-editor .tile-btn.corrected")).to_have_attribute("data-tile", "7s")

    claimed_by_south_from_west(page)
    page.click("#score-button")
    check_menqing_one_tai(page)
    expect(page.locator("#examples-count")).to_contain_text("1")
    expect(page.locator("#adapt-button")).to_be_enabled()

    # record: the hand's winds map onto the game's seats (player 0 deals, so 小華 sits 南 and 美玲 西)
    expect(page.locator("#record-section")).to_be_visible()
    expect(page.locator("#record-game")).to_have_value(game_id)
    expect(page.locator("#record-winner")).to_have_value("1")
    expect(page.locator("#record-discarder")).to_have_value("2")
    expect(page.locator("#record-tai")).to_have_value("1")
    page.click("#record-button")
    expect(page.locator("#record-status")).to_contain_text("1")
    expect(page.locator("#record-button")).to_be_disabled()  # the same hand is not recorded twice
    shot(page, "score-recorded-desktop")

    page.click("#record-status a")
    page.wait_for_url(f"**/games/{game_id}")
    expect(page.locator("#total-1")).to_have_text("120")
    expect(page.locator("#total-2")).to_have_text("-120")
    expect(page.locator('#history tr[data-hand="1"] img.thumb')).to_be_visible()


def test_game_page_hands_chart_edit_export_import(fake_server, new_page):
    page = new_page()
    page.on("dialog", lambda d: d.accept())
    page.clock.install()  # polling runs only when the test lets time pass
    req = page.request.post(fake_server + "/api/games", headers=FETCH, data={
        "players": ["東哥", "南姐", "西弟", "北妹"], "rules": "tw-standard", "base": 100, "per_tai": 20, "first_dealer": 0})
    game = req.json()
    base = f"{fake_server}/api/games/{game['id']}"
    page.goto(f"{fake_server}/games/{game['id']}")
    expect(page.locator("#scoreboard .player")).to_have_count(4)
    expect(page.locator('#scoreboard .player[data-player="0"]')).to_have_class("player dealer")

    # hand 1: 南姐 wins 3 台 off 西弟; a 台 typed wrong is said, never recorded as something else
    page.select_option("#winner", "1")
    page.select_option("#discarder", "2")
    for wrong in ("-3", "2.5", ""):
        page.fill("#tai", wrong)
        page.click("#add-hand")
        expect(page.locator("#form-status")).to_have_text("台數要填 0 或以上的整數")
        expect(page.locator("#tai")).to_have_attribute("aria-invalid", "true")
    assert page.request.get(base).json()["hands"] == []
    page.fill("#tai", "3")
    page.click("#add-hand")
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(1)
    expect(page.locator("#total-1")).to_have_text("160")
    # hand 2: a draw
    page.check("#type-draw")
    page.click("#add-hand")
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(2)
    # hand 3 comes from another phone: the page shows it after its next poll
    r = page.request.post(f"{base}/hands", headers=FETCH, data={"type": "win", "winner": 3, "discarder": None, "tai": 2,
                                                                "version": page.request.get(base).json()["version"]})
    assert r.ok, r.text()
    page.clock.run_for(3500)
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(3)
    expect(page.locator("#chart svg polyline")).to_have_count(4)
    totals = page.request.get(base).json()["totals"]
    for i, v in enumerate(totals):
        expect(page.locator(f"#total-{i}")).to_have_text(str(v))

    # a stale change is refused, reloaded and explained
    page.request.post(f"{base}/hands", headers=FETCH, data={"type": "draw", "counting_kong": False,
                                                            "version": page.request.get(base).json()["version"]})
    page.check("#type-draw")
    page.click("#add-hand")
    expect(page.locator("#form-status")).to_have_attribute("data-kind", "error")
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(4)

    # edit hand 1 to 5 台, then delete hand 2
    page.click('#history tr[data-hand="1"] button[data-action="edit"]')
    expect(page.locator("#tai")).to_have_value("3")
    page.fill("#tai", "5")
    page.click("#add-hand")
    expect(page.locator('#history tr[data-hand="1"]')).to_contain_text("5")
    page.click('#history tr[data-hand="2"] button[data-action="delete"]')
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(3)
    shot(page, "game-history-desktop")

    # CSV: one row per hand with names, 台 and deltas that match the page
    state = page.request.get(base).json()
    text = page.request.get(fake_server + page.locator("#export-csv").get_attribute("href")).text()
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    assert rows[0][:5] == ["n", "type", "winner", "discarder", "tai"]
    assert len(rows) == 1 + len(state["hands"])
    assert rows[1][1:4] == ["win", "南姐", "西弟"]
    assert int(rows[1][4]) == state["hands"][0]["tai"]
    assert [float(x) for x in rows[-1][-4:]] == [float(v) for v in state["totals"]]

    # JSON export -> import on the games page gives the same totals
    exported = page.request.get(fake_server + page.locator("#export-json").get_attribute("href")).body()
    page.goto(fake_server + "/games")
    page.set_input_files("#import-input", files=[{"name": "game.json", "mimeType": "application/json",
                                                  "buffer": exported}])
    page.wait_for_url(lambda u: "/games/" in u and game["id"] not in u)
    for i, v in enumerate(state["totals"]):
        expect(page.locator(f"#total-{i}")).to_have_text(str(v))
    assert not page.js_errors


def test_pin_is_asked_once(tmp_path, new_page):
    url, shutdown = thread_server(tmp_path, TABLE_PIN="2468")
    try:
        page = new_page()
        page.goto(url + "/games")
        page.click("#create-game")
        expect(page.locator("dialog.pin-dialog")).to_be_visible()
        page.fill("#pin-input", "1111")
        page.click('dialog.pin-dialog button[type="submit"]')
        expect(page.locator("dialog.pin-dialog [role=alert]")).to_be_visible()
        page.fill("#pin-input", "2468")
        page.click('dialog.pin-dialog button[type="submit"]')
        page.wait_for_url("**/games/*")
        page.check("#type-draw")
        page.click("#add-hand")  # the PIN is kept: no second question
        expect(page.locator("#history tbody tr[data-hand]")).to_have_count(1)
        expect(page.locator("dialog.pin-dialog")).to_have_count(0)
    finally:
        shutdown()


def test_a_pin_refused_for_too_many_guesses_is_not_called_wrong(tmp_path, new_page):
    """After five wrong guesses the server refuses any PIN for a while (pin_wait): the right PIN typed
    then must not be called wrong, or the player tries other PINs and waits longer."""
    url, shutdown = thread_server(tmp_path, TABLE_PIN="2468")
    try:
        page = new_page()
        page.goto(url + "/games")
        page.click("#create-game")
        alert = page.locator("dialog.pin-dialog [role=alert]")
        for _ in range(5):
            page.fill("#pin-input", "1111")
            page.click('dialog.pin-dialog button[type="submit"]')
            expect(alert).to_have_text("密碼錯誤，請再試一次")
            page.evaluate("() => { document.querySelector('dialog.pin-dialog [role=alert]').textContent = ''; }")
        page.fill("#pin-input", "2468")
        page.click('dialog.pin-dialog button[type="submit"]')
        expect(alert).to_contain_text("秒後再試")
        expect(page.locator("dialog.pin-dialog")).to_be_visible()
    finally:
        shutdown()


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_a_device_that_holds_the_pin_can_give_it_back(tmp_path, new_page, size):
    """A phone lent at the table kept the PIN for 30 days (its cookie, and the PIN the tab keeps):
    nothing on the pages could lock it again. The header's lock button shows while the device
    holds the PIN; pressed, the next change asks for the PIN again."""
    url, shutdown = thread_server(tmp_path, TABLE_PIN="2468")
    try:
        page = page_at(new_page, size, url + "/games")
        lock = page.locator("#pin-lock")
        expect(lock).to_be_hidden()  # no PIN given yet
        page.click("#create-game")
        page.fill("#pin-input", "2468")
        page.click('dialog.pin-dialog button[type="submit"]')
        page.wait_for_url("**/games/*")
        expect(lock).to_be_visible()  # a new page asks the server: this device holds the PIN
        expect(lock).to_have_text("鎖上本機")
        no_horizontal_scroll(page)
        snap(page, f"pin-lock-{size}")
        page.click("#lang-switch")
        expect(lock).to_have_text("Lock device")
        expect(lock).to_have_attribute(
            "aria-label", "Lock this device: changes, scoring and the table camera will need the table PIN again")
        header = page.evaluate("() => document.querySelector('header.top').getBoundingClientRect().height")
        assert header < (130 if size == "phone" else 70), header  # the long English brand wraps beside the buttons
        no_horizontal_scroll(page)
        snap(page, f"pin-lock-{size}-en")
        page.click("#lang-switch")
        lock.focus()
        page.keyboard.press("Enter")
        expect(lock).to_be_hidden()
        expect(page.locator("#pin-lock-note")).to_have_text("已鎖上")  # said where the button was
        expect(page.locator("#lang-switch")).to_be_focused()  # not the brand link: Enter again stays here
        snap(page, f"pin-locked-{size}")
        assert page.evaluate("() => sessionStorage.length") == 0
        page.check("#type-draw")
        page.click("#add-hand")  # a change: the PIN is asked again
        expect(page.locator("dialog.pin-dialog")).to_be_visible()
        page.fill("#pin-input", "2468")
        page.click('dialog.pin-dialog button[type="submit"]')
        expect(page.locator("#history tbody tr[data-hand]")).to_have_count(1)
        expect(lock).to_be_visible()  # given again in the dialog: the button is back
        page.reload()
        expect(lock).to_be_visible()
        assert not page.js_errors
    finally:
        shutdown()


def test_a_lock_in_one_tab_locks_the_others(tmp_path, new_page):
    """Tabs share the PIN session (the cookie) but each kept the PIN itself, sent as X-Table-Pin with
    every change: locked in one tab, another tab's next change went through on its own PIN, before
    and after a reload, with no lock button left to press."""
    url, shutdown = thread_server(tmp_path, TABLE_PIN="2468")
    try:
        other = new_page()
        other.goto(url + "/games")
        other.click("#create-game")
        other.fill("#pin-input", "2468")
        other.click('dialog.pin-dialog button[type="submit"]')
        other.wait_for_url("**/games/*")
        expect(other.locator("#pin-lock")).to_be_visible()
        here = other.context.new_page()  # a second tab of the same browser
        here.set_default_timeout(10_000)
        here.js_errors = []
        here.on("pageerror", lambda e: here.js_errors.append(str(e)))
        here.goto(url + "/games")
        expect(here.locator("#pin-lock")).to_be_visible()  # the cookie is the whole browser's
        here.click("#pin-lock")
        expect(here.locator("#pin-lock")).to_be_hidden()
        expect(other.locator("#pin-lock")).to_be_hidden()  # the other tab's button follows
        for reload in (False, True):
            if reload:
                other.reload()
            other.check("#type-draw")
            other.click("#add-hand")
            expect(other.locator("dialog.pin-dialog")).to_be_visible()  # its kept PIN is void
            other.click('dialog.pin-dialog button[value="cancel"]')
            expect(other.locator("dialog.pin-dialog")).to_have_count(0)
        expect(other.locator("#history tbody tr[data-hand]")).to_have_count(0)
        other.click("#add-hand")
        other.fill("#pin-input", "2468")  # given again after the lock: kept again
        other.click('dialog.pin-dialog button[type="submit"]')
        expect(other.locator("#history tbody tr[data-hand]")).to_have_count(1)
        expect(here.locator("#pin-lock")).to_be_visible()
        other.check("#type-draw")
        other.click("#add-hand")
        expect(other.locator("#history tbody tr[data-hand]")).to_have_count(2)
        expect(other.locator("dialog.pin-dialog")).to_have_count(0)
        assert not other.js_errors and not here.js_errors
    finally:
        shutdown()


def test_no_lock_button_where_no_pin_is_set(fake_server, new_page):
    page = new_page()
    page.goto(fake_server + "/games")
    page.wait_for_load_state("networkidle")
    expect(page.locator("#pin-lock")).to_be_hidden()


# ---------- (c) live view fed recorded frames ----------

def frame_png(width: int) -> str:
    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (width, 240), (40, 110, 70)).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


FEED = """async (b64) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return window.__liveFeed(new Blob([bytes], {type: "image/png"}));
}"""


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_live_view_follows_frames(fake_server, new_page, tmp_path, viewport):
    page = new_page(PHONE if viewport == "phone" else DESKTOP)
    page.goto(fake_server + "/live")
    expect(page.locator("#src-server")).to_be_disabled()  # no camera on the server here
    page.check("#src-file")
    expect(page.locator("#frame-label")).to_be_visible()
    ready, full = frame_png(320), frame_png(400)

    res = page.evaluate(FEED, ready)
    assert res["waits"]["waits"] == [{"tile": "5s", "remaining": 3}]
    expect(page.locator("#shanten")).to_have_attribute("data-shanten", "0")
    expect(page.locator('#waits li[data-tile="5s"]')).to_contain_text("3")
    expect(page.locator("#seen-tiles img")).to_have_count(16)

    # two 5s seen on the table: the photo is read again with them, one copy left (no new photo needed)
    page.click('#live-keyboard button.key[data-tile="5s"]')
    page.click('#live-keyboard button.key[data-tile="5s"]')
    expect(page.locator("#seen-list .tile-btn")).to_have_count(2)
    expect(page.locator('#waits li[data-tile="5s"]')).to_contain_text("1")
    page.evaluate(FEED, ready)
    expect(page.locator('#waits li[data-tile="5s"]')).to_contain_text("1")

    # the player draws E: 17 tiles -> discard advice, best first. With two 5s seen, keeping E
    # (3 copies left) beats keeping 5s (1 left), so the advice is to discard 5s and wait on E.
    page.evaluate(FEED, full)
    expect(page.locator("#advice-box")).to_be_visible()
    best = page.locator("#advice li").first
    expect(best).to_have_attribute("data-discard", "5s")
    expect(best.locator('.useful img[data-tile="E"]')).to_have_count(1)
    expect(page.locator("#waits-box")).to_be_hidden()
    frames = lambda: int(re.search(r"\d+", page.locator("#frame-count").inner_text())[0])  # noqa: E731
    before = frames()

    # the same through the page's own file input
    path = tmp_path / "frame.png"
    path.write_bytes(base64.b64decode(ready))
    page.set_input_files("#frame-input", str(path))
    expect(page.locator("#waits-box")).to_be_visible()
    expect(page.locator("#frame-count")).to_contain_text(str(before + 1))
    no_horizontal_scroll(page)
    shot(page, f"live-hints-{viewport}")

    # every other E seen too: discarding 5s would leave a wait on E with no copy left, so it
    # ranks after discarding E, and its hint says so instead of "0 tiles improve"
    for _ in range(3):
        page.click('#live-keyboard button.key[data-tile="E"]')
    expect(page.locator("#seen-list .tile-btn")).to_have_count(5)
    res = page.evaluate(FEED, full)
    assert res["advice"]["discards"][0]["discard"] == "E"
    expect(page.locator("#advice li").first).to_have_attribute("data-discard", "E")
    dead = page.locator('#advice li[data-discard="5s"] .hint')
    expect(dead).to_contain_text(re.compile("改良|reshape"))
    expect(dead).not_to_contain_text(re.compile("進張|improve"))
    no_horizontal_scroll(page)
    shot(page, f"live-hints-dead-{viewport}")
    # another rule table: the photo is read again under it, not left scored under the old one
    before = frames()
    page.select_option("#rules", "yueqing")
    expect(page.locator("#frame-count")).to_contain_text(str(before + 1))
    assert not page.js_errors


# ---------- issue 11: answers where the player looks, the same 台 everywhere, phone layouts ----------

VIEWPORTS = {"laptop": DESKTOP, "phone": PHONE}
SIZES = ["laptop", "phone"]

IN_VIEW = """(sel) => {
  const node = document.querySelector(sel);
  if (!node || node.hidden || !node.getClientRects().length) return false;
  const r = node.getBoundingClientRect();
  const header = document.querySelector("header.top").getBoundingClientRect().bottom;
  return r.top >= header - 1 && r.bottom <= window.innerHeight + 1;
}"""


def expect_in_view(page, selector):
    """`selector` is on screen, below the sticky header (a smooth scroll may still be running)."""
    page.wait_for_function(IN_VIEW, arg=selector, timeout=5_000)


def page_at(new_page, size, url):
    """A new page at laptop or phone size, opened at `url`."""
    page = new_page(VIEWPORTS[size])
    page.goto(url)
    return page


def snap(page, name):
    """A screenshot of what the player sees, once any smooth scroll has come to rest."""
    page.wait_for_function("""() => new Promise((done) => {
      const y = window.scrollY; setTimeout(() => done(window.scrollY === y), 150); })""", polling=200)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


# the smallest tap target and the least space between two (static/css/app.css --tap, --tap-gap)
TAP, TAP_GAP = 44, 4
TAP_SIZES = """(sel) => {
  const r = [...document.querySelectorAll(sel)].filter((b) => b.getClientRects().length)
    .map((b) => b.getBoundingClientRect());
  let gap = Infinity;  // between the nearest two: the larger of the horizontal and vertical space
  r.forEach((a, i) => r.slice(i + 1).forEach((b) => {
    gap = Math.min(gap, Math.max(b.left - a.right, a.left - b.right, b.top - a.bottom, a.top - b.bottom));
  }));
  return { n: r.length, width: Math.min(...r.map((x) => x.width)), height: Math.min(...r.map((x) => x.height)), gap };
}"""


def expect_tap_targets(page, selector, count):
    """`count` targets, each at least TAP × TAP CSS px, TAP_GAP apart (getBoundingClientRect)."""
    size = page.evaluate(TAP_SIZES, selector)
    assert size["n"] == count, (selector, size)
    assert size["width"] >= TAP and size["height"] >= TAP and size["gap"] >= TAP_GAP, (selector, size)
    return size


def make_game(url, players, first_dealer=0, rules="tw-standard", hands=()):
    def call(method, path, body):
        req = urllib.request.Request(url + path, method=method, headers={**FETCH, "Content-Type": "application/json"},
                                     data=json.dumps(body).encode())
        return json.load(urllib.request.urlopen(req))
    game = call("POST", "/api/games", {"players": players, "rules": rules, "base": 100, "per_tai": 20,
                                       "first_dealer": first_dealer})
    for hand in hands:
        game = call("POST", f"/api/games/{game['id']}/hands", {**hand, "version": game["version"]})
    return game


def photo_png(path, width, height=300):
    from PIL import Image
    Image.new("RGB", (width, height), (30, 90, 60)).save(path, "PNG")
    return str(path)


@pytest.mark.parametrize("size", SIZES)
def test_score_errors_and_result_where_the_player_looks(fake_server, new_page, size):
    """15 tiles + a winning tile: the error shows next to 算台, on screen; the result headline is not
    under the sticky header."""
    page = page_at(new_page, size, fake_server + "/")
    target(page, "concealed")
    press(page, *[f"{n}m" for n in range(1, 10)], "1p", "2p", "3p", "4p", "5p", "7s")
    target(page, "winning")
    press(page, "3p")
    page.click("#score-button")
    status = page.locator("#score-status")
    expect(status).to_have_attribute("data-kind", "error")
    expect(status).not_to_be_empty()
    expect_in_view(page, "#score-status")
    expect_in_view(page, "#score-button")
    snap(page, f"i11-1-score-error-{size}")
    target(page, "concealed")
    press(page, "7s")
    claimed_by_south_from_west(page)
    page.click("#score-button")
    check_menqing_one_tai(page)
    expect(status).to_be_hidden()
    expect_in_view(page, "#verdict")
    snap(page, f"i11-1-score-result-{size}")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_yueqing_asks_for_the_caishen_first(fake_server, new_page, size):
    page = page_at(new_page, size, fake_server + "/")
    choose_yueqing(page)
    expect(page.locator("#caishen-field")).to_be_visible()
    enter_readme_hand(page)
    requests = []
    page.on("request", lambda r: requests.append(r.url) if "/api/score" in r.url else None)
    page.click("#score-button")
    note = page.locator("#caishen-error")
    expect(note).to_be_visible()
    expect(note).to_contain_text("財神")
    expect_in_view(page, "#caishen-field")
    expect(page.locator("#caishen")).to_be_focused()
    assert not requests  # nothing is scored before the 財神 is named
    expect(page.locator("#result-section")).to_be_hidden()
    snap(page, f"i11-9-caishen-{size}")
    page.select_option("#caishen", "9s")
    expect(note).to_be_hidden()
    page.click("#score-button")
    expect(page.locator("#verdict")).to_be_visible()
    assert requests
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_score_from_a_game_gives_the_game_the_same_tai(fake_server, new_page, size):
    """The dealer 阿明 has won twice (連莊 2): a hand scored from the game counts 莊家 1 + 連莊拉莊 4 on the
    dealer's payments, the game records exactly those payments, and its history shows 1 台 + 5 台 apart."""
    players = [f"阿明{size}", "小華", "美玲", "志強"]
    self_draw = {"type": "win", "winner": 0, "discarder": None, "tai": 2}
    game = make_game(fake_server, players, hands=[self_draw, self_draw])
    assert game["state"]["streak"] == 2
    page = page_at(new_page, size, f"{fake_server}/games/{game['id']}")
    page.click("#score-link")
    page.wait_for_url(f"**/?game={game['id']}")
    expect(page.locator("#from-game")).to_have_value(game["id"])
    expect(page.locator("#streak")).to_have_value("2")
    expect(page.locator("#streak")).to_be_disabled()
    expect(page.locator("#dealer")).to_have_value("E")
    expect(page.locator("#from-game-line")).to_contain_text("連莊 2")
    expect(page.locator('#seat-wind option[value="S"]')).to_have_text("南 小華")
    enter_readme_hand(page)
    page.check("#win-claimed")
    page.select_option("#seat-wind", "S")      # 小華 wins
    page.select_option("#discarder", "E")      # off the dealer 阿明
    page.click("#score-button")
    expect(page.locator("#total-tai")).to_have_text("6")
    streak_row = page.locator('#breakdown tr[data-entry="dealer_streak"]')
    expect(streak_row.locator("td.num")).to_contain_text("4")
    expect(streak_row.locator("td.num .per")).to_have_text("（2 台 × 2 次）")
    expect(page.locator('#payments [data-seat="S"] strong')).to_have_text("+220")
    expect(page.locator('#payments [data-seat="E"] strong')).to_have_text("-220")
    expect(page.locator('#payments [data-seat="S"] .seat')).to_have_text("南 小華")
    expect_in_view(page, "#verdict")
    snap(page, f"i11-4-score-from-game-{size}")
    expect(page.locator("#record-game")).to_have_value(game["id"])
    expect(page.locator("#record-game")).to_be_disabled()
    expect(page.locator("#record-winner")).to_have_value("1")
    expect(page.locator("#record-discarder")).to_have_value("0")
    expect(page.locator("#record-tai")).to_have_value("1")
    page.click("#record-button")
    expect(page.locator("#record-status")).to_contain_text("1 台 + 莊家/連莊 5 台")
    hand = page.request.get(f"{fake_server}/api/games/{game['id']}").json()["hands"][-1]
    assert (hand["tai"], hand["hand_tai"], hand["deltas"]["1"], hand["deltas"]["0"]) == (6, 1, 220, -220)
    page.click("#record-status a")
    row3 = page.locator('#history tr[data-hand="3"]')
    expect(row3.locator(".hand-tai")).to_have_text("1 台")
    expect(row3.locator(".dealer-tai")).to_contain_text("莊家/連莊 5 台")
    expect(row3.locator('td.delta[data-player="1"]')).to_have_text("+220")
    row3.scroll_into_view_if_needed()
    snap(page, f"i11-4-game-history-{size}")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_seventeen_tiles_in_one_row(fake_server, new_page, tmp_path, size):
    """No tile set apart: the rightmost of 17 is the winning tile, shown, and one tap picks another."""
    page = page_at(new_page, size, fake_server + "/")
    page.set_input_files("#photo-input", photo_png(tmp_path / "row.png", 500))
    expect(page.locator("#photo-status")).to_have_attribute("data-kind", "ok")
    expect(page.locator('[data-zone="winning"] .tile-btn[data-id]')).to_have_attribute("data-tile", "3p")
    expect(page.locator("#concealed-count")).to_have_class("count ok")
    guess = page.locator("#winning-guess")
    expect(guess).to_be_visible()
    expect_tap_targets(page, "#winning-guess button", 14)  # 123456789m 1245p 7s: each other tile once
    guess.scroll_into_view_if_needed()
    snap(page, f"i11-5-row17-{size}")
    claimed_by_south_from_west(page)
    page.click("#score-button")
    check_menqing_one_tai(page)
    # one tap: win on 9m instead (the hand stays 16 + 1)
    page.click('#winning-guess button[data-pick="9m"]')
    expect(page.locator('[data-zone="winning"] .tile-btn[data-id]')).to_have_attribute("data-tile", "9m")
    expect(page.locator('[data-zone="concealed"] .tile-btn[data-tile="3p"]')).to_have_count(2)
    expect(page.locator("#concealed-count")).to_have_class("count ok")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_tiles_to_tap_are_big_enough_for_a_finger(fake_server, new_page, size):
    """At 390 px wide a phone cannot fit nine 44 px keys in a row: each keyboard row's two groups stack
    (1-5 / 6-9), the hand's tiles fill 44 px, and the tile sheet's keys too. The laptop keeps its
    one-line rows; neither page scrolls sideways, in either language."""
    page = page_at(new_page, size, fake_server + "/")
    page.set_input_files("#photo-input", str(PHOTOS[0]))
    expect(page.locator("#photo-status")).to_have_attribute("data-kind", "ok")
    expect_tap_targets(page, "#hand-editor .zones button.tile-btn", len(PHOTO_HAND) + 1)
    keys = expect_tap_targets(page, "#hand-keyboard button.key", 42)
    row = page.evaluate("""() => [...document.querySelectorAll('#hand-keyboard .key-row')[0].children]
      .map((g) => [...g.querySelectorAll('button')].map((b) => Math.round(b.getBoundingClientRect().top)))""")
    assert (row[0][0] == row[1][0]) == (size == "laptop"), row  # 6萬 beside 5萬 on a laptop, under 1萬 on a phone
    page.locator("#hand-editor .tile-btn.flagged").click()
    expect(page.locator("#tile-sheet")).to_be_visible()
    sheet = expect_tap_targets(page, "#tile-sheet button.key", 42)
    snap(page, f"tap-sheet-{size}")
    page.keyboard.press("Escape")
    no_horizontal_scroll(page)
    page.click("#lang-switch")  # English words are longer: still no sideways scroll
    expect_tap_targets(page, "#hand-editor .zones button.tile-btn", len(PHOTO_HAND) + 1)
    no_horizontal_scroll(page)
    shot(page, f"tap-score-en-{size}")
    if size == "phone":
        print("phone tap targets: keyboard", keys, "sheet", sheet)
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_annotated_photo_labels_read_at_the_shown_size(fake_server, new_page, size):
    """The photo's labels (vision/draw.py: LABEL_HEIGHT of the photo's width) stand at least 9 CSS px
    tall as the page shows the photo, and one tap opens the photo full size."""
    from vision.draw import LABEL_HEIGHT
    page = page_at(new_page, size, fake_server + "/")
    page.set_input_files("#photo-input", str(PHOTOS[0]))
    expect(page.locator("#photo-status")).to_have_attribute("data-kind", "ok")
    page.wait_for_function("() => document.querySelector('#annotated').naturalWidth > 0")
    shown = page.evaluate("document.querySelector('#annotated').getBoundingClientRect().width")
    assert LABEL_HEIGHT * shown >= 9, shown
    link = page.locator("#annotated-link")
    expect(link).to_have_attribute("href", re.compile(r"^/photos/[0-9a-f]{64}/annotated$"))
    expect(link).to_have_attribute("target", "_blank")
    snap(page, f"annotated-{size}")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_history_reads_on_a_phone(fake_server, new_page, size):
    game = make_game(fake_server, ["阿德", "小美", "阿明", "Bob"], hands=[
        {"type": "win", "winner": 0, "discarder": 1, "tai": 5},
        {"type": "win", "winner": 2, "discarder": None, "tai": 3},
        {"type": "draw"}])
    page = page_at(new_page, size, f"{fake_server}/games/{game['id']}")
    row1 = page.locator('#history tr[data-hand="1"]')
    expect(row1).to_be_visible()
    row1.scroll_into_view_if_needed()
    result = row1.locator("td.result")
    expect(result.locator(".who")).to_have_text("阿德 胡")
    expect(result.locator(".how")).to_have_text("小美 放槍")
    box = result.bounding_box()
    who = result.locator(".who").bounding_box()
    assert box["width"] > 200, box                      # not one character wide
    assert who["height"] < 32, who                     # "阿德 胡" on one line
    delta = row1.locator('td.delta[data-player="1"]')
    expect(delta).to_have_text("-220")
    if size == "phone":
        expect(page.locator("#history thead")).to_be_hidden()
        # each amount sits under its player's name, four to a row
        label = delta.evaluate("(n) => getComputedStyle(n, '::before').content")
        assert "小美" in label
        d0, d3 = (row1.locator(f'td.delta[data-player="{i}"]').bounding_box() for i in (0, 3))
        assert abs(d0["y"] - d3["y"]) < 2 and d3["x"] > d0["x"]
    else:
        expect(page.locator("#history thead")).to_be_visible()  # the laptop keeps its table
    no_horizontal_scroll(page)
    snap(page, f"i11-6-history-{size}")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_live_hints_sit_under_the_picture(fake_server, new_page, size):
    page = page_at(new_page, size, fake_server + "/live")
    page.evaluate(FEED, frame_png(320))
    expect(page.locator('#waits li[data-tile="5s"]')).to_be_visible()
    video = page.locator("#video-box").bounding_box()
    hints = page.locator("#hints-card").bounding_box()
    if size == "phone":
        assert 0 <= hints["y"] - (video["y"] + video["height"]) < 30, (video, hints)  # right under the picture
    else:
        assert hints["x"] > video["x"] + video["width"] - 1 and abs(hints["y"] - video["y"]) < 2  # beside it
    page.locator("#video-box").scroll_into_view_if_needed()
    snap(page, f"i11-6-live-{size}")
    assert not page.js_errors


class FakeCapture:
    def __init__(self, width=320):
        import numpy as np
        self.image = np.full((240, width, 3), 90, dtype=np.uint8)

    def isOpened(self):
        return True

    def read(self):
        return True, self.image.copy()

    def release(self):
        pass


@pytest.mark.parametrize("size", SIZES)
def test_live_picks_the_source_that_works(fake_server, new_page, tmp_path, size):
    """No camera anywhere: photo upload, said plainly, and no /api/camera/frame 404 on load.
    With a camera on the server: the table camera, and its frames give hints."""
    page = new_page(VIEWPORTS[size])
    misses = []
    page.on("response", lambda r: misses.append(r.url) if r.status == 404 else None)
    page.goto(fake_server + "/live")
    expect(page.locator("#src-file")).to_be_checked()
    expect(page.locator("#source-line")).to_contain_text("影像來源：拍照上傳")
    expect(page.locator("#source-line")).to_contain_text("桌邊沒有接攝影機")
    expect(page.locator("#src-server")).to_be_disabled()
    expect(page.locator("#frame-label")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert not misses
    snap(page, f"i11-7-live-no-camera-{size}")

    url, shutdown = thread_server(tmp_path, CAMERA_OPENER=lambda index: FakeCapture())
    try:
        page.goto(url + "/live")
        expect(page.locator("#src-server")).to_be_checked()
        expect(page.locator("#source-line")).to_have_text("影像來源：桌邊攝影機")
        page.click("#live-toggle")
        expect(page.locator('#waits li[data-tile="5s"]')).to_be_visible(timeout=15_000)
        page.click("#live-toggle")
        snap(page, f"i11-7-live-table-camera-{size}")
    finally:
        shutdown()
    assert not page.js_errors


def test_live_uses_this_devices_camera_when_the_table_has_none(fake_server, browser):
    """A browser with a camera (Chromium's fake one) on localhost: its camera is the default and runs."""
    # a second chromium from the same Playwright: a second sync_playwright() in one process fails
    # once another test module's browser is up
    b = browser.browser_type.launch(executable_path=CHROMIUM, args=BROWSER_ARGS + [
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"])
    try:
        for size in SIZES:
            ctx = b.new_context(viewport=VIEWPORTS[size], locale="zh-TW", permissions=["camera"])
            page = ctx.new_page()
            page.goto(fake_server + "/live")
            expect(page.locator("#src-browser")).to_be_checked()
            expect(page.locator("#source-line")).to_contain_text("這台裝置的相機")
            page.click("#live-toggle")
            expect(page.locator("#live-status")).to_have_attribute("data-kind", "ok", timeout=15_000)
            expect(page.locator("#frame-count")).not_to_be_empty()
            snap(page, f"i11-7-live-browser-camera-{size}")
            page.click("#live-toggle")
            ctx.close()
    finally:
        b.close()


@pytest.mark.parametrize("size", SIZES)
def test_flower_pictures_follow_the_tile_set(fake_server, new_page, size):
    page = page_at(new_page, size, fake_server + "/")
    key7 = page.locator('#hand-keyboard button.key[data-tile="7f"] img')
    # by default the numbers printed on the flowers decide; its pictures are the taiwan ones
    expect(page.locator("#tileset")).to_have_value("printed")
    expect(key7).to_have_attribute("src", "/static/tiles/7f.png")
    expect(key7).to_have_attribute("alt", "竹(3)")
    snap(page, f"i10-tileset-printed-{size}")
    page.select_option("#tileset", "hk-index")
    expect(key7).to_have_attribute("src", "/static/tiles/hk-index/7f.png")
    expect(key7).to_have_attribute("alt", "菊(3)")
    expect(page.locator('#hand-keyboard button.key[data-tile="8f"] img')).to_have_attribute("alt", "竹(4)")
    # the new picture loads (waited for: on a busy machine it may still be on its way)
    page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=key7.element_handle(), timeout=10000)
    page.locator('#hand-keyboard button.key[data-tile="1f"]').scroll_into_view_if_needed()
    snap(page, f"i11-8-flowers-hk-{size}")
    # the choice holds on the live page too
    page.goto(fake_server + "/live")
    expect(page.locator("#tileset")).to_have_value("hk-index")
    expect(page.locator('#live-keyboard button.key[data-tile="8f"] img')).to_have_attribute(
        "src", "/static/tiles/hk-index/8f.png")
    page.select_option("#tileset", "taiwan")
    expect(page.locator('#live-keyboard button.key[data-tile="8f"] img')).to_have_attribute("src", "/static/tiles/8f.png")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_record_dropdown_tells_twin_games_apart(fake_server, new_page, size):
    players = ["阿明", "小華", f"Bob{size}", "小美"]
    first = make_game(fake_server, players)
    exported = urllib.request.urlopen(f"{fake_server}/api/games/{first['id']}/export.json").read()
    req = urllib.request.Request(f"{fake_server}/api/games/import", method="POST", data=exported,
                                 headers={**FETCH, "Content-Type": "application/json"})
    urllib.request.urlopen(req)
    page = page_at(new_page, size, fake_server + "/")
    enter_readme_hand(page)
    claimed_by_south_from_west(page)
    page.click("#score-button")
    options = page.locator("#record-game option").all_text_contents()
    twins = [o for o in options if f"Bob{size}" in o]
    assert len(twins) == 2 and all(" · " in o and "手" in o for o in twins), twins
    page.locator("#record-section").scroll_into_view_if_needed()
    snap(page, f"i11-9-record-dropdown-{size}")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_live_view_says_a_win_is_a_win(fake_server, new_page, size):
    """17 tiles that already win: 胡了 with the hand's 台, self-drawn by default, changeable."""
    page = page_at(new_page, size, fake_server + "/live")
    res = page.evaluate(FEED, frame_png(360))
    assert res["advice"]["win"] is True and res["advice"]["discards"] == []
    expect(page.locator("#win-box")).to_be_visible()
    expect(page.locator("#advice-box")).to_be_hidden()
    expect(page.locator("#live-self")).to_be_checked()
    win = page.locator("#live-win")
    expect(win).to_contain_text("胡了！共")
    self_text = win.text_content()
    expect(page.locator('#live-breakdown tr[data-entry="menqing_zimo"]')).to_have_count(1)
    page.locator("#hints-card").scroll_into_view_if_needed()
    snap(page, f"i11-3-live-win-self-{size}")
    page.check("#live-claimed")
    expect(page.locator('#live-breakdown tr[data-entry="menqing"]')).to_have_count(1)
    expect(win).not_to_have_text(self_text)
    snap(page, f"i11-3-live-win-claimed-{size}")
    assert not page.js_errors


def test_live_count_tells_the_picture_from_the_melds_entered(fake_server, new_page):
    """16 tiles on camera and a pong typed in: the page once said "19 tiles seen" (and "3 tiles
    seen" of a picture with none); it says what the picture holds and what the player added."""
    page = page_at(new_page, "laptop", fake_server + "/live")
    page.click('#live-targets button[data-target="pong"]')
    page.click('#live-keyboard button.key[data-tile="E"]')
    page.evaluate(FEED, frame_png(320))
    expect(page.locator("#live-message")).to_have_text("照片裡 16 張牌，加上輸入的副露 1 組，共 19 張；一手牌是 16 或 17 張")
    page.click("#lang-switch")
    page.evaluate(FEED, frame_png(320))
    expect(page.locator("#live-message")).to_have_text(
        "16 tiles in the picture and 1 meld(s) entered make 19; a hand has 16 or 17")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_live_win_is_scored_from_the_player_s_own_seat(fake_server, new_page, size):
    """The live 台 once always took the player for the 東 dealer: a 南 player holding 蘭 (2f) was
    told 5 台 with no seat flower. The win box asks the seat, round and dealer, and scores from them."""
    page = page_at(new_page, size, fake_server + "/live")
    page.click('#live-targets button[data-target="flowers"]')
    page.click('#live-keyboard button.key[data-tile="2f"]')
    page.evaluate(FEED, frame_png(360))
    win = page.locator("#live-win")
    expect(win).to_have_text("胡了！共 5 台")
    expect(page.locator("#live-seat")).to_have_value("E")
    expect(page.locator('#live-breakdown tr[data-entry="seat_flower"]')).to_have_count(0)
    page.select_option("#live-seat", "S")
    expect(win).to_have_text("胡了！共 6 台")
    expect(page.locator('#live-breakdown tr[data-entry="seat_flower"]')).to_have_count(1)
    expect(page.locator('#live-seat option[value="S"]')).to_have_text("南")
    page.click("#lang-switch")
    expect(page.locator('#live-seat option[value="S"]')).to_have_text("South")
    expect(page.locator("#live-seat")).to_have_value("S")
    no_horizontal_scroll(page)
    page.locator("#win-box").scroll_into_view_if_needed()
    snap(page, f"live-win-seat-{size}")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_one_damaged_game_leaves_the_others_listed(tmp_path, new_page, size):
    """A game whose record was damaged behind the server's back (its players no JSON) is listed
    with its error in the page's language, and every other game is still listed."""
    import sqlite3

    url, shutdown = thread_server(tmp_path)
    try:
        games = [make_game(url, [f"{name}{k}" for name in "東南西北"]) for k in range(3)]
        with sqlite3.connect(tmp_path / "data" / "mahjong.sqlite3") as conn:
            conn.execute("UPDATE games SET players = 'not json[' WHERE id = ?", (games[1]["id"],))
        page = page_at(new_page, size, url + "/games")
        for g in games:
            expect(page.locator(f'#game-list li[data-game="{g["id"]}"]')).to_be_visible()
        expect(page.locator(f'#game-list li[data-game="{games[1]["id"]}"]')).to_contain_text("這局無法顯示")
        expect(page.locator(f'#game-list li[data-game="{games[0]["id"]}"]')).to_contain_text("東0")
        no_horizontal_scroll(page)
        assert not page.js_errors, page.js_errors
        page.locator(f'#game-list li[data-game="{games[1]["id"]}"]').scroll_into_view_if_needed()
        snap(page, f"games-one-damaged-{size}")
        # the score page offers the games still open to record into: the damaged one is no choice
        score = page_at(new_page, size, url + "/")
        expect(score.locator(f'#record-game option[value="{games[0]["id"]}"]')).to_have_count(1)
        expect(score.locator(f'#record-game option[value="{games[1]["id"]}"]')).to_have_count(0)
        assert not score.js_errors, score.js_errors
    finally:
        shutdown()


@pytest.mark.parametrize("size", SIZES)
def test_a_flagged_tile_says_why_and_corrections_save_without_scoring(tmp_path, new_page, size):
    """The player sees why a tile is flagged, at the tile and in its sheet, and saves a corrected
    photo for adapting with its own button: no 算台 (which a photo of loose tiles cannot pass) needed."""
    url, shutdown = thread_server(tmp_path)
    try:
        page = page_at(new_page, size, url + "/")
        # a file that is no photo dropped on the drop zone: said, not silently ignored
        page.evaluate("""() => { const dt = new DataTransfer();
          dt.items.add(new File(["hello"], "notes.txt", { type: "text/plain" }));
          document.querySelector("#dropzone").dispatchEvent(
            new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true })); }""")
        expect(page.locator("#photo-status")).to_have_text("拖進來的不是照片；請拖一張 JPEG、PNG、WebP 或 HEIC 照片")
        page.set_input_files("#photo-input", str(PHOTOS[0]))
        expect(page.locator("#photo-status")).to_have_attribute("data-kind", "ok")
        flagged = page.locator("#hand-editor .tile-btn.flagged")
        expect(flagged).to_have_count(1)
        expect(flagged).to_have_attribute("aria-label", re.compile(r"不確定是哪一張牌 · 辨識信心 \d+%"))
        save = page.locator("#save-corrections")
        expect(save).to_be_visible()
        expect(save).to_be_disabled()  # nothing corrected yet
        expect(page.locator("#examples-help")).to_be_visible()
        with page.expect_request(lambda r: r.url.endswith("/upright")):  # its crop: the photo as read, unmarked
            flagged.click()
        expect(page.locator("#sheet-why")).to_contain_text("不確定是哪一張牌")
        expect(page.locator("#sheet-why")).to_contain_text("辨識信心")
        expect(page.locator("#sheet-crop")).to_have_attribute("data-drawn", "1")  # the tile's part of the photo
        snap(page, f"score-flag-why-{size}")
        page.click('#tile-sheet button.key[data-tile="7s"]')
        page.locator("#hand-editor .tile-btn:not(.flagged)").first.click()  # a sure tile's sheet: no reason line
        expect(page.locator("#sheet-why")).to_have_count(0)
        assert "null" not in page.locator("#tile-sheet").inner_text()
        page.keyboard.press("Escape")
        expect(save).to_be_enabled()
        save.click()
        expect(page.locator("#corrections-status")).to_have_text("已把更正送出當作訓練樣本（共 1 張照片）")
        expect(page.locator("#examples-count")).to_have_text("已收集 1 張更正過的照片")  # said once, the count here
        expect(page.locator("#adapt-button")).to_be_enabled()
        save.click()  # the same corrections again: said, not stored twice
        expect(page.locator("#corrections-status")).to_have_text("這張照片的更正已經存過了（共 1 張照片）")
        save.scroll_into_view_if_needed()
        snap(page, f"score-corrections-saved-{size}")
        # the saved photo is listed with its tiles, and can be forgotten (a correction saved wrong)
        saved = page.locator("#examples-list li")
        expect(saved).to_have_count(1)
        expect(saved).to_contain_text("17 張牌")
        saved.scroll_into_view_if_needed()
        snap(page, f"score-corrections-listed-{size}")
        page.click("#lang-switch")  # the list and the count follow the page's language at once
        expect(saved).to_contain_text("17 tiles")
        expect(saved.locator("button")).to_have_text("Remove")
        expect(page.locator("#examples-count")).to_have_text("1 corrected photo collected")
        page.click("#lang-switch")
        expect(saved).to_contain_text("17 張牌")
        saved.locator("button").click()
        expect(saved).to_have_count(0)
        expect(page.locator("#examples-count")).to_have_text("已收集 0 張更正過的照片")
        expect(page.locator("#adapt-button")).to_be_disabled()
        save.click()  # forgotten, so the same corrections save again
        expect(page.locator("#corrections-status")).to_have_text("已把更正送出當作訓練樣本（共 1 張照片）")
        no_horizontal_scroll(page)
        assert not page.js_errors
    finally:
        shutdown()


@pytest.mark.parametrize("size", SIZES)
def test_a_sure_tile_that_fits_no_group_is_not_marked_as_doubtful(fake_server, new_page, size, tmp_path):
    """Among a photo's unplaced tiles only the ones read in doubt wear the mark: in a photo of loose
    tiles every tile is unplaced, and marking them all hid the misread few."""
    page = page_at(new_page, size, fake_server + "/")
    page.set_input_files("#photo-input", photo_png(tmp_path / "stray.png", 560))
    expect(page.locator("#photo-status")).to_have_attribute("data-kind", "ok")
    stray = page.locator('[data-zone="unplaced"] .tile-btn')
    expect(stray).to_have_count(1)
    expect(stray).to_have_attribute("data-tile", "E")
    expect(stray).not_to_have_class(re.compile(r"\bflagged\b"))
    expect(page.locator("#hand-editor .tile-btn.flagged")).to_have_count(1)  # the unsure 1s alone
    expect(page.locator("#hand-editor .tile-btn.flagged")).to_have_attribute("data-tile", "1s")
    snap(page, f"score-unplaced-unmarked-{size}")
    assert not page.js_errors


def adapt_server(tmp_path, steps: str):
    """thread_server with a classifier to adapt, whose adapt says `steps` (Python calling
    training.adapt_progress's progress and model) and then runs a minute: (url, shutdown)."""
    command = [sys.executable, "-c", f"import time\nfrom training.adapt_progress import model, progress\n{steps}\n"
               "time.sleep(60)"]
    models = tmp_path / "models"
    models.mkdir()
    (models / "classifier.pt").write_bytes(b"weights")
    return thread_server(tmp_path, ADAPT_COMMAND=command, TRAINING_MISSING=list, MODELS_DIR=models)


def test_a_running_adapt_shows_its_time_and_can_be_stopped(tmp_path, new_page):
    """While adapt runs the page shows how long it has run, its steps in the page's language (the
    log folded away), and a stop button; stopped, it says so and offers the run again."""
    url, shutdown = adapt_server(tmp_path, "progress('adapt_step_reading', n=1)\n"
                                 "progress('adapt_step_model', model=model('suit_reader'))\n"
                                 "for p in (10, 20, 30): progress('adapt_step_tuning', percent=p)")
    try:
        page = page_at(new_page, "phone", url + "/")
        page.set_input_files("#photo-input", str(PHOTOS[0]))
        page.locator("#hand-editor .tile-btn.flagged").click()
        page.click('#tile-sheet button.key[data-tile="7s"]')
        page.click("#save-corrections")
        expect(page.locator("#examples-count")).to_have_text("已收集 1 張更正過的照片")
        page.click("#adapt-button")
        expect(page.locator("#adapt-status")).to_contain_text("模型調整中")
        expect(page.locator("#adapt-status")).to_contain_text("已進行")
        steps = page.locator("#adapt-steps li .what")
        expect(steps).to_have_text(["讀取 1 張更正過的照片", "筒條辨識", "這次調整已完成 30%"])  # the latest percent
        expect(page.locator("#adapt-log")).to_be_hidden()  # folded: the terminal's English is for what went wrong
        page.click("#adapt-log-box summary")
        expect(page.locator("#adapt-log")).to_contain_text("[adapt 0:00] reading 1 corrected photo")
        stop = page.locator("#adapt-stop")
        expect(stop).to_be_visible()
        expect(page.locator("#examples-list button")).to_be_disabled()  # adapt reads them
        stop.scroll_into_view_if_needed()
        snap(page, "score-adapt-running-phone")
        page.click("#lang-switch")
        expect(steps).to_have_text(["reading 1 corrected photo", "Dots and Bamboo reader", "30% of this tuning"])
        expect(page.locator("#examples-count")).to_have_text("1 corrected photo collected")
        stop.scroll_into_view_if_needed()
        snap(page, "score-adapt-running-phone-en")
        stop.click()
        expect(page.locator("#adapt-status")).to_have_text(
            "Adaptation stopped: no model had been replaced yet; the ones you had are in use")
        expect(stop).to_be_hidden()
        expect(page.locator("#adapt-button")).to_be_enabled()
        expect(page.locator("#examples-list button")).to_be_enabled()
        assert not page.js_errors
    finally:
        shutdown()


def test_the_pages_wordings_match_in_both_languages(fake_server, new_page):
    """Every key of the page's Chinese wording has an English one and the reverse, each naming the
    same values; English forms by count have both ({one, other}: the caller passes the count as n)."""
    page = page_at(new_page, "laptop", fake_server + "/")
    problems = page.evaluate("""async () => {
      const zh = (await import("/static/js/lang/zh.js")).default, en = (await import("/static/js/lang/en.js")).default;
      const flat = (d, pre = "") => Object.entries(d).flatMap(([k, v]) =>
        v && typeof v === "object" && typeof v.other !== "string" ? flat(v, pre + k + ".") : [[pre + k, v]]);
      const names = (v) => new Set([...(typeof v === "string" ? [v] : Object.values(v)).join(" ")
        .matchAll(/\\{(\\w+)\\}/g)].map((m) => m[1]));
      const Z = Object.fromEntries(flat(zh)), E = Object.fromEntries(flat(en)), out = [];
      for (const k of new Set([...Object.keys(Z), ...Object.keys(E)])) {
        if (!(k in Z) || !(k in E)) { out.push(`${k}: in one language only`); continue; }
        if (typeof Z[k] !== "string") out.push(`${k}: Chinese has one form`);
        for (const n of names(Z[k])) if (!names(E[k]).has(n)) out.push(`${k}: {${n}} only in Chinese`);
        if (typeof E[k] === "object" && !(E[k].one && E[k].other)) out.push(`${k}: forms need one and other`);
      }
      return out;
    }""")
    assert problems == []
    assert not page.js_errors


def test_landmark_names_are_in_the_page_s_language(fake_server, new_page):
    """A screen reader names the menu and the live picture: they were "main" and "video" on the
    Chinese page too; each follows the language switch."""
    page = page_at(new_page, "laptop", fake_server + "/live")
    nav, video = page.locator("nav.top"), page.locator("#video-box")
    expect(nav).to_have_attribute("aria-label", "主選單")
    expect(video).to_have_attribute("aria-label", "畫面")
    page.click("#lang-switch")
    expect(nav).to_have_attribute("aria-label", "Main menu")
    expect(video).to_have_attribute("aria-label", "Picture")
    assert not page.js_errors


def test_a_calibration_photo_is_checked_tile_by_tile_then_adapted_from(tmp_path, new_page):
    """The player lays out the 42 faces, uploads the photo, sees each tile cut from it above the
    tile it will be learnt as, and adapts from it; a photo of another count says how many it found."""
    url, shutdown = adapt_server(tmp_path, "progress('adapt_step_one_photo', model=model('classifier'), n=42)")
    try:
        for size in ("phone", "laptop"):
            page = page_at(new_page, size, url + "/")
            expect(page.locator("#calibration-order .calibration-slot")).to_have_count(42)
            page.locator("#calibration-block").scroll_into_view_if_needed()
            snap(page, f"score-calibration-order-{size}")
            page.set_input_files("#calibration-input", str(PHOTOS[0]))  # the photo hand: 17 tiles
            expect(page.locator("#calibration-status")).to_contain_text("照片裡找到 17 張牌，校正照片要 42 種牌各一張")
            expect(page.locator("#calibration-check")).to_be_hidden()
            # a tile covered over still counts among the 42: its crop is framed and the line says so
            page.set_input_files("#calibration-input", str(calibration_photo(tmp_path / "covered.jpg", covered=(4,))))
            expect(page.locator("#calibration-status")).to_contain_text("其中 1 張看起來是空白的")
            expect(page.locator("#calibration-tiles li.blank")).to_have_count(1)
            expect(page.locator("#calibration-tiles li").nth(4)).to_have_class("blank")
            page.locator("#calibration-tiles li.blank").scroll_into_view_if_needed()
            snap(page, f"score-calibration-blank-{size}")
            page.set_input_files("#calibration-input", str(calibration_photo(tmp_path / "laid-out.jpg")))
            tiles = page.locator("#calibration-tiles li")
            expect(tiles).to_have_count(42)
            expect(page.locator("#calibration-tiles li.blank")).to_have_count(0)
            expect(page.locator("#calibration-status")).to_have_text("找到 42 張牌：請確認每一張都和下面的牌對得上")
            assert tiles.first.get_attribute("data-tile") == "1m" and tiles.last.get_attribute("data-tile") == "8f"
            expect(tiles.nth(27).locator(".name")).to_have_text("東")
            # a flower is learnt by its printed number, whatever plant a set prints it on
            expect(tiles.nth(40).locator(".name")).to_have_text("花牌 3")
            expect(tiles.nth(34).locator(".name")).to_have_text("季節牌 1")
            # each crop is the photo's own tile: the cut of 1萬 is not felt
            drawn = page.evaluate("""() => { const c = document.querySelector('#calibration-tiles canvas');
              const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let light = 0;
              for (let i = 0; i < d.length; i += 4) light += d[i] > 180 && d[i + 1] > 180; return light / (d.length / 4); }""")
            assert drawn > 0.3
            page.locator("#calibration-check").scroll_into_view_if_needed()
            snap(page, f"score-calibration-check-{size}")
            if size == "laptop":  # a reload shows the kept photo's check, to adapt from it again
                page.reload()
                expect(page.locator("#calibration-status")).to_have_text("上次上傳的校正照片（42 張牌）：可以再用它調整一次")
                expect(page.locator("#calibration-tiles li")).to_have_count(42)
            if size == "phone":
                expect(page.locator("#adapt-button")).to_be_disabled()  # no corrected photo saved
                page.click("#calibration-adapt")
                expect(page.locator("#adapt-status")).to_contain_text("模型調整中")
                expect(page.locator("#adapt-status")).to_be_in_viewport()  # said where the player looks
                expect(page.locator("#calibration-adapt")).to_be_disabled()
                expect(page.locator("#adapt-button")).to_be_disabled()
                expect(page.locator("#adapt-steps li .what")).to_have_text(["牌面辨識：用這張照片的 42 張牌調整"])
                page.click("#lang-switch")
                expect(page.locator("#calibration-tiles li").nth(27).locator(".name")).to_have_text("East")
                expect(page.locator("#adapt-steps li .what")).to_have_text(["tile reader: tuning on the photo's 42 tiles"])
                expect(page.locator("#calibration-tiles li").nth(40).locator(".name")).to_have_text("Flower 3")
                page.click("#adapt-stop")
                expect(page.locator("#adapt-status")).to_have_text(
                    "Adaptation stopped: no model had been replaced yet; the ones you had are in use")
                expect(page.locator("#calibration-adapt")).to_be_enabled()
                expect(page.locator("#adapt-button")).to_be_disabled()  # still no corrected photo
            assert not page.js_errors
    finally:
        shutdown()


TAP_CHECK = """(sel) => { const out = [];
  const boxes = [...document.querySelectorAll(sel)].filter((n) => n.offsetParent !== null)
    .map((n) => [n, n.getBoundingClientRect()]);
  for (const [n, r] of boxes) if (r.width < 44 || r.height < 44) out.push(`${sel}: ${n.textContent.trim() || n.className} ${Math.round(r.width)}x${Math.round(r.height)}`);
  for (const [a, r] of boxes) for (const [b, q] of boxes) {
    if (a === b) continue;
    const dx = Math.max(q.left - r.right, r.left - q.right), dy = Math.max(q.top - r.bottom, r.top - q.bottom);
    if (Math.max(dx, dy) < 4 && a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)
      out.push(`${sel}: ${a.textContent.trim()} and ${b.textContent.trim()} ${Math.max(dx, dy).toFixed(1)} px apart`);
  }
  return out; }"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_page_s_tap_targets_on_a_phone(fake_server, new_page, lang):
    """Where a helper's walk found targets too small or touching: the nav, the game history's edit
    and delete, the live page's meld buttons, the scoring options, the brand link."""
    game = new_page().request.post(fake_server + "/api/games", headers=FETCH, data={
        "players": ["阿明", "阿華", "阿強", "阿珍"], "rules": "tw-standard", "base": 100, "per_tai": 20, "first_dealer": 0}).json()
    new_page().request.post(f"{fake_server}/api/games/{game['id']}/hands", headers=FETCH, data={
        "type": "win", "winner": 1, "discarder": 2, "tai": 3, "version": game["version"]})
    checks = {"/": ["nav.top a, .brand", "#flags label", "#key-undo, #key-clear, #save-corrections"],
              "/live": ["nav.top a", "#live-targets button"],
              f"/games/{game['id']}": ["nav.top a", "#history .actions button"]}
    page = page_at(new_page, "phone", fake_server + "/")
    if lang == "en":
        page.click("#lang-switch")
    page.set_input_files("#photo-input", str(PHOTOS[0]))
    expect(page.locator("#corrections-row")).to_be_visible()
    problems = []
    for url, sels in checks.items():
        if url != "/":
            page.goto(fake_server + url)
            page.wait_for_load_state("networkidle")
        for sel in sels:
            problems += page.evaluate(TAP_CHECK, sel)
    assert problems == []


# a field marked wrong has a red border (and a red outline unless the focus ring shows in its place)
RED_FRAME = """(sel) => { const s = getComputedStyle(document.querySelector(sel));
  return s.borderTopColor === "rgb(179, 38, 30)"; }"""


@pytest.mark.parametrize("size", SIZES)
def test_a_tai_typed_right_is_not_framed_as_an_error(fake_server, new_page, size):
    """A helper's walk: after a hand was recorded the 台 field stayed framed in red (aria-invalid
    "false" matched the error style), as if the next 台 typed were wrong too."""
    game = make_game(fake_server, ["阿明", "阿華", "阿強", "阿珍"])
    page = page_at(new_page, size, f"{fake_server}/games/{game['id']}")
    expect(page.locator("#scoreboard .player")).to_have_count(4)
    page.fill("#tai", "2.5")
    page.click("#add-hand")
    expect(page.locator("#form-status")).to_have_text("台數要填 0 或以上的整數")
    assert page.evaluate(RED_FRAME, "#tai")
    page.fill("#tai", "2")
    page.click("#add-hand")
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(1)
    assert not page.evaluate(RED_FRAME, "#tai")
    page.fill("#tai", "3")
    page.click("#add-hand")
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(2)
    assert not page.evaluate(RED_FRAME, "#tai")
    snap(page, f"h58b-tai-field-{size}")


@pytest.mark.parametrize("size", SIZES)
def test_record_form_in_english_names_seats_in_english(fake_server, new_page, size):
    """A helper's walk: in English the record form offered "Dee（East）" (Chinese full-width
    brackets written into the code), and said "Recorded as hand 1 4 tai …", two numbers run together."""
    game = make_game(fake_server, ["Ann", "Bob", "Cy", f"Dee{size}"])
    page = page_at(new_page, size, f"{fake_server}/?game={game['id']}")
    page.click("#lang-switch")
    expect(page.locator("#from-game")).to_have_value(game["id"])
    enter_readme_hand(page)
    page.check("#win-claimed")
    page.select_option("#seat-wind", "S")      # Bob wins
    page.select_option("#discarder", "W")      # off Cy
    page.click("#score-button")
    expect(page.locator("#record-section")).to_be_visible()
    expect(page.locator("#record-winner option")).to_have_text(
        ["Ann (East)", "Bob (South)", "Cy (West)", f"Dee{size} (North)"])
    expect(page.locator("#record-winner")).to_have_value("1")
    page.click("#record-button")
    expect(page.locator("#record-status")).to_contain_text("Recorded as hand 1 · 1 tai")
    page.click("#lang-switch")  # back in Chinese: the brackets are the Chinese ones again; Bob deals now
    expect(page.locator("#record-winner option").first).to_have_text("Ann（北）")
    assert not page.js_errors


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_importing_a_file_that_is_not_json_says_so_in_the_page_s_language(fake_server, new_page, lang):
    """A helper's walk: a wrong file chosen for import showed the browser's parser error,
    "錯誤：Unexpected token 'o', "not json" is not valid JSON", English and no help."""
    page = page_at(new_page, "phone", f"{fake_server}/games")
    if lang == "en":
        page.click("#lang-switch")
    page.set_input_files("#import-input", files=[{"name": "scores.csv", "mimeType": "application/json",
                                                 "buffer": b"not json,1,2\n"}])
    status = page.locator("#list-status")
    expect(status).to_have_text({"zh": "scores.csv 不是匯出成 JSON 的牌局：請選「匯出 JSON」存下的檔案",
                                 "en": "scores.csv is not a game exported as JSON: choose the file that Export JSON "
                                       "saved"}[lang])
    expect(status).to_have_attribute("data-kind", "error")
    assert page.url.endswith("/games")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_editing_an_old_hand_names_the_players_by_their_winds_then(fake_server, new_page, size):
    """After the deal passed, the edit form of hand 1 names 阿明 East (he dealt it), not North as he
    sits now; leaving the edit names the next hand's winds again, in the page's language."""
    game = new_page().request.post(fake_server + "/api/games", headers=FETCH, data={
        "players": ["阿明", "阿華", "阿強", "阿珍"], "rules": "tw-standard", "base": 100, "per_tai": 20, "first_dealer": 0}).json()
    r = new_page().request.post(f"{fake_server}/api/games/{game['id']}/hands", headers=FETCH, data={
        "type": "win", "winner": 1, "discarder": 2, "tai": 3, "version": game["version"]})
    assert r.ok and r.json()["hands"][0]["seat_winds"] == ["E", "S", "W", "N"]
    assert r.json()["state"]["seat_winds"] == ["N", "E", "S", "W"]  # 阿華 deals now
    page = page_at(new_page, size, f"{fake_server}/games/{game['id']}")
    winner_0 = page.locator('#winner option[value="0"]')
    expect(winner_0).to_have_text("阿明（北）")
    page.locator('#history tr[data-hand="1"] [data-action="edit"]').click()
    expect(winner_0).to_have_text("阿明（東）")
    expect(page.locator("#winner")).to_have_value("1")
    page.click("#lang-switch")
    expect(winner_0).to_have_text("阿明 (East)")
    snap(page, f"game-edit-old-hand-winds-{size}")
    page.click("#cancel-edit")
    expect(winner_0).to_have_text("阿明 (North)")


# ---------- the player's work survives a reload and Back (sessionStorage) ----------

HAND_STATE = """() => { const s = window.__handEditor.state; const t = (xs) => xs.map((x) => x.tile);
  return { concealed: t(s.concealed), melds: s.melds.map((m) => [m.type, t(m.tiles)]), flowers: t(s.flowers),
           winning: s.winning && s.winning.tile, photo: !!window.__handEditor.photo }; }"""
OPTIONS = ["#rules", "#seat-wind", "#round-wind", "#dealer", "#discarder", "#streak", "#base", "#per-tai", "#caishen"]


def form_state(page):
    """The hand in the editor and every option of the context form, as the page would score them."""
    values = {sel: page.locator(sel).input_value() for sel in OPTIONS}
    flags = page.evaluate("[...document.querySelectorAll('#flags input:checked')].map((x) => x.name)")
    return {"hand": page.evaluate(HAND_STATE), "options": values, "flags": flags,
            "self": page.locator("#win-self").is_checked()}


def score_text(page):
    page.click("#score-button")
    expect(page.locator("#verdict")).to_be_visible()
    return page.locator("#result").inner_text()


def enter_hand_with_meld_and_flower(page):
    """123m456m789m 45p 77s, a 吃 of 123p, the flower 1f, winning on 3p."""
    target(page, "chi")
    press(page, "1p")
    target(page, "concealed")
    press(page, *[f"{n}m" for n in range(1, 10)], "4p", "5p", "7s", "7s")
    target(page, "flowers")
    press(page, "1f")
    target(page, "winning")
    press(page, "3p")
    expect(page.locator("#concealed-count")).to_have_class("count ok")


@pytest.mark.parametrize("size", SIZES)
def test_a_typed_hand_and_its_options_survive_a_reload(fake_server, new_page, size):
    page = page_at(new_page, size, fake_server + "/")
    expect(page.locator("#rules option")).not_to_have_count(0)
    enter_hand_with_meld_and_flower(page)
    page.check("#win-self")
    page.select_option("#seat-wind", "S")
    page.select_option("#round-wind", "S")
    page.select_option("#dealer", "W")
    page.fill("#streak", "2")
    page.fill("#base", "50")
    page.fill("#per-tai", "10")
    page.check("#flag-last_tile")  # 海底撈月: a flag the table offers changes the 台
    before = form_state(page)
    result = score_text(page)
    assert "海底" in result, result
    page.reload()
    expect(page.locator('#hand-editor [data-zone="winning"] .tile-btn')).to_have_attribute("data-tile", "3p")
    assert form_state(page) == before
    expect(page.locator("#result-section")).to_be_hidden()  # the result is scored again, not kept
    assert score_text(page) == result
    snap(page, f"keep-reloaded-{size}")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_back_from_the_games_page_brings_the_hand_back(fake_server, new_page, size):
    """乐清 with its 財神: leave for the games page, come back with Back."""
    page = page_at(new_page, size, fake_server + "/")
    choose_yueqing(page)
    page.select_option("#caishen", "9s")
    enter_readme_hand(page)
    claimed_by_south_from_west(page)
    before = form_state(page)
    result = score_text(page)
    page.click('nav.top a[href="/games"]')
    page.wait_for_url("**/games")
    page.go_back()
    page.wait_for_url(fake_server + "/")
    expect(page.locator('#hand-editor [data-zone="winning"] .tile-btn')).to_have_attribute("data-tile", "3p")
    expect(page.locator("#caishen-field")).to_be_visible()
    assert form_state(page) == before
    assert score_text(page) == result
    snap(page, f"keep-back-{size}")
    assert not page.js_errors


DAMAGED = {
    "not json": "{hand: 123m",
    "older page": json.dumps({"hand": {"concealed": "123m"}, "rules": "tw-standard"}),
    "not a tile": json.dumps({"v": 1, "game": "", "options": {"fields": {"rules": "yueqing"}},
                              "hand": {"state": {"concealed": [{"tile": "9z"}], "melds": [], "flowers": [],
                                                 "winning": None, "unplaced": []}}}),
    "two tiles as one": json.dumps({"v": 1, "game": "", "options": {},
                                    "hand": {"state": {"concealed": [{"tile": "11m"}], "melds": [], "flowers": [],
                                                       "winning": None, "unplaced": []}}}),
    "a meld of nothing": json.dumps({"v": 1, "game": "", "options": {},
                                     "hand": {"state": {"concealed": [], "melds": [{"type": "pong", "tiles": []}],
                                                        "flowers": [], "winning": None, "unplaced": []}}}),
}


@pytest.mark.parametrize("size", SIZES)
def test_a_damaged_kept_hand_is_ignored(fake_server, new_page, size):
    page = page_at(new_page, size, fake_server + "/")
    for name, value in DAMAGED.items():
        page.evaluate("(v) => sessionStorage.setItem('mahjong.score', v)", value)
        page.reload()
        expect(page.locator("#rules option")).not_to_have_count(0)
        expect(page.locator("#examples-count")).not_to_have_text("")  # start() is done
        assert page.evaluate(HAND_STATE) == {"concealed": [], "melds": [], "flowers": [], "winning": None,
                                             "photo": False}, name
        expect(page.locator("#rules")).to_have_value("tw-standard")  # its options are not half taken
        for status in ("#hand-status", "#score-status", "#photo-status"):
            expect(page.locator(status)).to_be_hidden()
    # a kept option that the page no longer offers is left at its default; the rest comes back
    page.evaluate("""() => sessionStorage.setItem('mahjong.score', JSON.stringify({ v: 1, game: 'gone',
      options: { fields: { rules: 'no-such-table', 'seat-wind': 'X', base: '70', dice: 5 }, flags: 'x' },
      hand: { state: { concealed: [{ tile: '1m' }], melds: [], flowers: [{ tile: '2f' }], winning: { tile: '9p' },
                       unplaced: [] }, photo: { photo_id: '../etc', picture: 'http://elsewhere/x' } } }))""")
    page.reload()
    expect(page.locator('#hand-editor [data-zone="winning"] .tile-btn')).to_have_attribute("data-tile", "9p")
    assert page.evaluate(HAND_STATE) == {"concealed": ["1m"], "melds": [], "flowers": ["2f"], "winning": "9p",
                                         "photo": False}
    expect(page.locator("#rules")).to_have_value("tw-standard")
    expect(page.locator("#seat-wind")).to_have_value("E")
    expect(page.locator("#base")).to_have_value("70")
    expect(page.locator("#from-game")).to_have_value("")
    expect(page.locator("#corrections-row")).to_be_hidden()
    # and the page works: a key adds a tile
    press(page, "2m")
    expect(page.locator('#hand-editor [data-zone="concealed"] .tile-btn')).to_have_count(2)
    snap(page, f"keep-damaged-{size}")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_clearing_the_hand_clears_the_kept_hand(fake_server, new_page, size):
    page = page_at(new_page, size, fake_server + "/")
    enter_readme_hand(page)
    page.fill("#base", "30")
    page.click("#key-clear")
    page.reload()
    expect(page.locator("#rules option")).not_to_have_count(0)
    expect(page.locator("#examples-count")).not_to_have_text("")
    assert page.evaluate(HAND_STATE)["concealed"] == []
    expect(page.locator('#hand-editor .zones .tile-btn')).to_have_count(0)
    expect(page.locator("#base")).to_have_value("30")  # the options the page showed stay
    snap(page, f"keep-cleared-{size}")
    assert not page.js_errors


def test_a_corrected_photo_hand_keeps_its_photo_only_while_the_server_does(fake_server, new_page):
    page = page_at(new_page, "laptop", fake_server + "/")
    page.set_input_files("#photo-input", str(PHOTOS[0]))
    expect(page.locator("#photo-status")).to_have_attribute("data-kind", "ok")
    page.locator("#hand-editor .tile-btn.flagged").click()
    page.click('#tile-sheet button.key[data-tile="7s"]')
    before = page.evaluate(HAND_STATE)
    page.reload()
    expect(page.locator("#hand-editor .tile-btn.corrected")).to_have_attribute("data-tile", "7s")
    assert page.evaluate(HAND_STATE) == before and before["photo"]
    expect(page.locator("#annotated")).to_be_visible()
    page.wait_for_function("() => document.querySelector('#annotated').naturalWidth > 0")
    # the corrections are tied to the same photo's boxes: they still save
    expect(page.locator("#save-corrections")).to_be_enabled()
    page.click("#save-corrections")
    expect(page.locator("#corrections-status")).to_have_attribute("data-kind", "ok")
    snap(page, "keep-photo-laptop")
    # a photo gone from the server: the tiles stay, the link goes
    page.evaluate("""() => { const d = JSON.parse(sessionStorage.getItem('mahjong.score'));
      const id = d.hand.photo.photo_id, gone = 'f'.repeat(64);
      sessionStorage.setItem('mahjong.score', JSON.stringify(d).replaceAll(id, gone)); }""")
    page.reload()
    expect(page.locator("#corrections-row")).to_be_hidden()
    expect(page.locator("#photo-figure")).to_be_hidden()
    expect(page.locator("#hand-editor .tile-btn.flagged, #hand-editor .tile-btn.corrected")).to_have_count(0)
    assert page.evaluate(HAND_STATE) == {**before, "photo": False}
    assert '"photo":null' in page.evaluate("sessionStorage.getItem('mahjong.score')")
    assert not page.js_errors


def test_a_game_link_starts_its_own_hand_and_a_recorded_hand_is_not_kept(fake_server, new_page):
    game = make_game(fake_server, ["甲keep", "乙", "丙", "丁"])
    page = page_at(new_page, "laptop", fake_server + "/")
    enter_readme_hand(page)  # a hand typed for no game
    page.goto(f"{fake_server}/games/{game['id']}")
    page.click("#score-link")
    page.wait_for_url(f"**/?game={game['id']}")
    expect(page.locator("#from-game")).to_have_value(game["id"])
    expect(page.locator("#examples-count")).not_to_have_text("")
    expect(page.locator('#hand-editor .zones .tile-btn')).to_have_count(0)  # not the stale hand
    enter_readme_hand(page)
    page.select_option("#seat-wind", "S")
    page.select_option("#discarder", "W")
    page.reload()  # the game's own hand comes back, with the game
    expect(page.locator("#from-game")).to_have_value(game["id"])
    expect(page.locator('#hand-editor [data-zone="winning"] .tile-btn')).to_have_attribute("data-tile", "3p")
    expect(page.locator("#seat-wind")).to_have_value("S")
    score_text(page)
    page.click("#record-button")
    expect(page.locator("#record-status")).to_have_attribute("data-kind", "ok")
    page.click("#record-status a")
    page.wait_for_url(f"**/games/{game['id']}")
    page.click("#score-link")  # the next hand: the recorded one is not offered again
    page.wait_for_url(f"**/?game={game['id']}")
    expect(page.locator("#examples-count")).not_to_have_text("")
    expect(page.locator("#from-game")).to_have_value(game["id"])
    expect(page.locator('#hand-editor .zones .tile-btn')).to_have_count(0)
    expect(page.locator("#from-game-line")).to_contain_text("2")  # hand 2 of the game
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_a_recorded_hand_scored_again_is_not_recorded_twice(fake_server, new_page, size):
    """Score, record, then Score again with the same tiles: the record button stays off and says
    why; a changed tile makes it another hand, which records."""
    game = make_game(fake_server, [f"阿明{size}", "小華", "美玲", "志強"], hands=[])
    page = page_at(new_page, size, f"{fake_server}/games/{game['id']}")
    page.click("#score-link")
    page.wait_for_url(f"**/?game={game['id']}")
    enter_readme_hand(page)
    page.click("#score-button")
    page.click("#record-button")
    expect(page.locator("#record-status")).to_contain_text("已記到第 1 手")
    page.click("#score-button")
    expect(page.locator("#record-status")).to_have_text("這手牌已經記過了：換上下一手的牌再算台，才能再記")
    expect(page.locator("#record-button")).to_be_disabled()
    assert len(page.request.get(f"{fake_server}/api/games/{game['id']}").json()["hands"]) == 1
    snap(page, f"score-recorded-once-{size}")
    page.click("#key-undo")  # undone and done again: the same tiles, the same hand
    target(page, "winning")
    press(page, "3p")
    page.click("#score-button")
    expect(page.locator("#record-button")).to_be_disabled()
    page.click("#key-undo")  # another hand: 45p won on 6p instead of 3p
    target(page, "winning")
    press(page, "6p")
    page.click("#score-button")
    expect(page.locator("#record-button")).to_be_enabled()
    expect(page.locator("#record-status")).to_have_text("")


def test_an_edit_follows_its_hand_when_an_earlier_one_goes(fake_server, new_page):
    """Editing hand 3, the player deletes hand 1: the edit is now of hand 2 (the same hand) and
    saving it changes that hand, never the one after it. Deleted on another phone, the edit stops."""
    draw = {"type": "draw"}
    wins = [{"type": "win", "winner": w, "discarder": (w + 1) % 4, "tai": t} for w, t in ((1, 1), (2, 2), (3, 3), (1, 4))]
    game = make_game(fake_server, ["甲", "乙", "丙", "丁"], hands=wins)
    base = f"{fake_server}/api/games/{game['id']}"
    page = page_at(new_page, "laptop", f"{fake_server}/games/{game['id']}")
    page.on("dialog", lambda d: d.accept())
    page.clock.install()  # polling runs only when the test lets time pass
    page.locator('#history tr[data-hand="3"] [data-action="edit"]').click()
    expect(page.locator("#tai")).to_have_value("3")
    page.locator('#history tr[data-hand="1"] [data-action="delete"]').click()
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(3)
    expect(page.locator("#add-hand")).to_have_text("更新第 2 手")
    page.fill("#tai", "5")
    page.click("#add-hand")
    expect(page.locator("#add-hand")).to_have_text("記下")
    hands = page.request.get(base).json()["hands"]
    assert [(h["winner"], h["hand_tai"]) for h in hands] == [(2, 2), (3, 5), (1, 4)]
    # another phone deletes the hand being edited: the edit stops and says why
    page.locator('#history tr[data-hand="2"] [data-action="edit"]').click()
    r = page.request.delete(f"{base}/hands/2", headers=FETCH, data={"version": page.request.get(base).json()["version"]})
    assert r.ok, r.text()
    page.clock.run_for(3500)
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(2)
    expect(page.locator("#form-status")).to_have_text("正在修改的那一手在別的手機上被改過或刪除了，修改已取消")
    expect(page.locator("#add-hand")).to_have_text("記下")
    assert not page.js_errors


# ---------- keyboard only: the focus stays where the player works ----------

def tab_to(page, selector, limit=200):
    """Press Tab until `selector` has the focus, as a player without a mouse gets there."""
    for _ in range(limit):
        if page.evaluate("(sel) => document.activeElement.matches(sel)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def focus_is(page, selector):
    expect(page.locator(selector)).to_be_focused()


@pytest.mark.parametrize("size", SIZES)
def test_a_tile_s_sheet_gives_the_focus_back_to_its_tile(fake_server, new_page, size):
    """A helper's walk with the keyboard only: a tile changed, moved or removed from its sheet left
    the focus on the page (the sheet's opener was drawn anew), and the key pressed for a tile's last
    copy was disabled under the focus. The focus now stays on the tile, its neighbour, or the next key."""
    page = page_at(new_page, size, fake_server + "/")
    tab_to(page, '#hand-keyboard button.key[data-tile="1m"]')
    for _ in range(4):
        page.keyboard.press("Enter")
    # the fourth 一萬 disables its key: the focus goes on to the next key, not to the page
    expect(page.locator('#hand-keyboard button.key[data-tile="1m"]')).to_be_disabled()
    focus_is(page, '#hand-keyboard button.key[data-tile="2m"]')
    for _ in range(2):
        page.keyboard.press("Enter")
    tiles = page.locator('#hand-editor [data-zone="concealed"] .tile-btn')
    expect(tiles).to_have_count(6)
    second = tiles.nth(1).get_attribute("data-id")
    tiles.nth(1).focus()
    page.keyboard.press("Enter")
    sheet = page.locator("#tile-sheet")
    expect(sheet).to_be_visible()
    assert page.evaluate("document.querySelector('#tile-sheet').contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    focus_is(page, f'#hand-editor .tile-btn[data-id="{second}"]')
    # a new face from the sheet's keyboard: the focus is on the tile, now 九萬
    page.keyboard.press("Enter")
    page.locator('#tile-sheet button.key[data-tile="9m"]').focus()
    page.keyboard.press("Enter")
    expect(sheet).to_be_hidden()
    focus_is(page, f'#hand-editor .tile-btn[data-id="{second}"][data-tile="9m"]')
    # made the winning tile: the focus follows it to the winning zone
    page.keyboard.press("Enter")
    page.locator('#tile-sheet button[data-move="winning"]').focus()
    page.keyboard.press("Space")
    focus_is(page, f'#hand-editor [data-zone="winning"] .tile-btn[data-id="{second}"]')
    # removed: the focus is on the tile that took its place in the row
    third = tiles.nth(1).get_attribute("data-id")
    fourth = tiles.nth(2).get_attribute("data-id")
    tiles.nth(1).focus()
    page.keyboard.press("Enter")
    page.locator('#tile-sheet button[data-move="remove"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator(f'#hand-editor .tile-btn[data-id="{third}"]')).to_have_count(0)
    focus_is(page, f'#hand-editor .tile-btn[data-id="{fourth}"]')
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_scoring_recording_and_editing_keep_the_focus(fake_server, new_page, size):
    """With the keyboard only, 算台, 記下這一手 and the game page's 記下 were disabled under the focus
    while they worked, a deleted hand's button was drawn anew, and 取消修改 hid itself: each time the
    focus fell to the page and the next Tab started from the top; an edit left the focus on the
    history's button, far below the form it filled. Now the focus stays where the player works."""
    game = new_page().request.post(fake_server + "/api/games", headers=FETCH, data={
        "players": ["東哥", "南姐", "西弟", "北妹"], "rules": "tw-standard", "base": 100, "per_tai": 20,
        "first_dealer": 0}).json()
    page = page_at(new_page, size, f"{fake_server}/?game={game['id']}")
    page.on("dialog", lambda d: d.accept())
    expect(page.locator("#from-game")).to_have_value(game["id"])
    enter_readme_hand(page)
    tab_to(page, "#score-button")
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_have_class("verdict yes")
    focus_is(page, "#score-button")
    tab_to(page, "#record-button")
    page.keyboard.press("Enter")
    expect(page.locator("#record-button")).to_be_disabled()  # recorded: on to the game it went into
    focus_is(page, "#record-status a")

    page.goto(f"{fake_server}/games/{game['id']}")
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(1)
    for tai in ("2", "4"):
        tab_to(page, "#tai")
        page.keyboard.press("Control+A")
        page.keyboard.type(tai)
        tab_to(page, "#add-hand")
        page.keyboard.press("Enter")
        expect(page.locator("#history tbody tr[data-hand]")).to_have_count(int(tai) // 2 + 1)
        focus_is(page, "#add-hand")
    tab_to(page, '#history tr[data-hand="2"] button[data-action="edit"]')
    page.keyboard.press("Enter")
    focus_is(page, "#type-win")
    expect(page.locator("#tai")).to_have_value("2")
    tab_to(page, "#cancel-edit")
    page.keyboard.press("Enter")
    expect(page.locator("#cancel-edit")).to_be_hidden()
    focus_is(page, '#history tr[data-hand="2"] button[data-action="edit"]')
    tab_to(page, '#history tr[data-hand="2"] button[data-action="delete"]')
    page.keyboard.press("Enter")
    expect(page.locator("#history tbody tr[data-hand]")).to_have_count(2)
    focus_is(page, '#history tr[data-hand="2"] button[data-action="delete"]')  # the hand that took its number
    expect(page.locator('#history tr[data-hand="2"]')).to_contain_text("4")
    assert not page.js_errors


CONTRAST = """([sel, against]) => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = (c) => { const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                       return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const node = document.querySelector(sel), cs = getComputedStyle(node);
  const bg = getComputedStyle(node.closest(".card")).backgroundColor;
  const fg = against === "text" ? cs.color : against === "border" ? cs.borderTopColor : against === "ring"
    ? cs.boxShadow.match(/rgba?\\([^)]*\\)/)[0] : cs.outlineColor;
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


@pytest.mark.parametrize("size", SIZES)
def test_small_text_fields_and_the_focus_read_against_a_card(fake_server, new_page, size):
    """A helper's contrast check (WCAG 1.4.3, 1.4.11): the hand's count in amber was 4.2:1 as small text,
    the fields' borders 2.6:1, and the amber focus ring 1.8:1 on a card; a field marked wrong showed its
    red frame and no focus ring. Text 4.5:1, a field's border and the focus ring 3:1."""
    page = page_at(new_page, size, fake_server + "/")
    press(page, "1m")
    expect(page.locator("#concealed-count")).to_have_class("count warn")
    assert page.evaluate(CONTRAST, ["#concealed-count", "text"]) >= 4.5
    for field in ("#streak", "#seat-wind"):
        assert page.evaluate(CONTRAST, [field, "border"]) >= 3, field
    tab_to(page, "#score-button")
    assert page.evaluate(CONTRAST, ["#score-button", "ring"]) >= 3
    page.fill("#streak", "-1")
    press(page, *[f"{n}m" for n in range(2, 10)], "1p", "2p", "3p", "4p", "5p", "7s", "7s")
    target(page, "winning")
    press(page, "3p")
    page.click("#score-button")
    expect(page.locator("#streak")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#streak")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # a keyboard's focus: the ring, not the red frame alone
    assert page.evaluate("getComputedStyle(document.querySelector('#streak')).outlineColor") == "rgb(240, 180, 41)"
    assert page.evaluate(CONTRAST, ["#streak", "ring"]) >= 3
    assert not page.js_errors


def test_the_live_keyboard_s_target_buttons_are_a_named_group(fake_server, new_page):
    """A helper's name check: the live page's 手牌/吃/碰… buttons were a group with no name (the score
    page's bar is named 鍵盤加到); a screen reader said "group" and no more. Named, in the page's language."""
    page = new_page()
    page.goto(fake_server + "/live")
    group = page.get_by_role("group", name="鍵盤加到")
    expect(group).to_have_attribute("id", "live-targets")
    page.click("#lang-switch")
    expect(page.get_by_role("group", name="Keyboard adds to")).to_have_attribute("id", "live-targets")
    assert not page.js_errors


def test_with_no_game_open_the_record_card_says_so_without_empty_lists(tmp_path, new_page):
    """A helper's walk: a winning hand with no game in progress showed the record form's empty
    game and player lists under "no game in progress". A second walk: the language button speaks
    the other language, and the game page's history table has a name."""
    url, shutdown = thread_server(tmp_path)
    try:
        page = page_at(new_page, "phone", url + "/")
        expect(page.locator("#lang-switch")).to_have_attribute("lang", "en")
        enter_readme_hand(page)
        page.click("#score-button")
        expect(page.locator("#record-status")).to_have_text("還沒有進行中的牌局")
        expect(page.locator("#record-form")).to_be_hidden()
        expect(page.locator("#record-button")).to_be_hidden()
        snap(page, "score-record-no-game-phone")
        page.click("#lang-switch")
        expect(page.locator("#lang-switch")).to_have_attribute("lang", "zh-Hant-TW")
        game = make_game(url, ["甲", "乙", "丙", "丁"])
        page.goto(f"{url}/?game={game['id']}")
        enter_readme_hand(page)
        page.click("#score-button")
        expect(page.locator("#record-form")).to_be_visible()
        expect(page.locator("#record-button")).to_be_visible()
        page.goto(f"{url}/games/{game['id']}")
        expect(page.locator("#history")).to_have_accessible_name("Hands")
        assert not page.js_errors
    finally:
        shutdown()


@pytest.mark.parametrize("size", SIZES)
def test_the_draw_kong_box_shows_only_where_a_kong_passes_the_deal(fake_server, new_page, size):
    """Seed 004 §七: a 乐清 draw with a kong passes the deal; a Taiwanese draw keeps the dealer (臭莊)."""
    page = new_page(VIEWPORTS[size])
    taiwan = make_game(fake_server, ["東哥", "南姐", "西弟", "北妹"])
    page.goto(f"{fake_server}/games/{taiwan['id']}")
    expect(page.locator("#scoreboard .player")).to_have_count(4)
    expect(page.locator("#state-line")).to_contain_text("連莊 0")
    page.check("#type-draw")
    expect(page.locator("#counting-kong")).to_be_hidden()
    yueqing = make_game(fake_server, ["東哥", "南姐", "西弟", "北妹"], rules="yueqing")
    page.goto(f"{fake_server}/games/{yueqing['id']}")
    expect(page.locator("#scoreboard .player")).to_have_count(4)
    # seed 004 counts the dealership itself (牢庄, a new dealer 1), not the wins kept (連莊 0)
    expect(page.locator("#state-line")).to_contain_text("牢莊 1")
    page.check("#type-draw")
    expect(page.locator("#counting-kong")).to_be_visible()
    expect(page.locator("label:has(#counting-kong)")).to_have_text("有人開過槓（當花的白板或紅中的槓不算）：下家接莊")
    page.check("#counting-kong")
    page.locator("#counting-kong").scroll_into_view_if_needed()
    snap(page, f"game-draw-kong-yueqing-{size}")
    page.click("#add-hand")
    expect(page.locator('#history tr[data-hand="1"]')).to_contain_text("流局，有槓：下家接莊")
    expect(page.locator('#scoreboard .player[data-player="1"]')).to_have_class("player dealer")
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_live_flowers_offer_white_and_red_dragons_only_under_yueqing(fake_server, new_page, size):
    """乐清 plays 白板 (or 紅中) as flowers; a Taiwanese table refuses them (not_a_flower_taiwan), so
    its flower keys never offer them."""
    page = page_at(new_page, size, fake_server + "/live")
    expect(page.locator("#rules option")).not_to_have_count(0)
    page.click('#live-targets button[data-target="flowers"]')
    for tile in ("P", "C"):
        expect(page.locator(f'#live-keyboard button.key[data-tile="{tile}"]')).to_be_disabled()
    expect(page.locator('#live-keyboard button.key[data-tile="1f"]')).to_be_enabled()
    page.select_option("#rules", "yueqing")
    for tile in ("P", "C"):
        expect(page.locator(f'#live-keyboard button.key[data-tile="{tile}"]')).to_be_enabled()
    page.click('#live-keyboard button.key[data-tile="P"]')
    page.select_option("#rules", "tw-standard")
    expect(page.locator('#live-keyboard button.key[data-tile="C"]')).to_be_disabled()
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_a_later_hand_scored_at_another_seat_offers_its_score_again(fake_server, new_page, size):
    """Hand 2 was scored with 阿華 at 南 (門風 for his 南 pung: 3 台). Hand 1 is then edited to his
    win, so the deal passed at once and he sat 東 in hand 2: the page says so, offers 2 台, and
    records them at a tap, in both languages; the recorded 台 stay until then."""
    request = {"rules": "tw-standard", "concealed": "123m456m789m45pSSS77s", "winning_tile": "3p",
               "self_drawn": False, "discarder": "W", "seat_wind": "S", "round_wind": "E", "dealer": "E", "streak": 0}
    game = make_game(fake_server, ["阿明", "阿華", "阿強", "阿珍"], hands=[
        {"type": "win", "winner": 0, "discarder": 2, "tai": 3},
        {"type": "win", "winner": 1, "discarder": 2, "tai": 3,
         "scored": {"win": True, "hand_tai": 3, "tai": 3, "hand": request}}])
    api = new_page().request
    r = api.put(f"{fake_server}/api/games/{game['id']}/hands/1", headers=FETCH,
                data={"type": "win", "winner": 1, "discarder": 2, "tai": 3, "version": game["version"]})
    assert r.ok and r.json()["hands"][1]["rescore"]["tai"] == 2
    page = page_at(new_page, size, f"{fake_server}/games/{game['id']}")
    row = page.locator('#history tr[data-hand="2"]')
    note = row.locator(".rescore")
    expect(note).to_contain_text("算台時的門風和這局這手不同")
    expect(row.locator(".hand-tai")).to_have_text("3 台")
    expect(page.locator('#history tr[data-hand="1"] .rescore')).to_have_count(0)
    row.scroll_into_view_if_needed()
    no_horizontal_scroll(page)
    snap(page, f"game-rescore-{size}")
    page.click("#lang-switch")
    expect(note).to_contain_text("another seat wind than this game gives")
    expect(note.locator("button")).to_have_text("Record 2 tai")
    assert page.evaluate(TAP_CHECK, '#history .rescore button') == []
    row.scroll_into_view_if_needed()
    snap(page, f"game-rescore-{size}-en")
    note.locator("button").click()
    expect(row.locator(".hand-tai")).to_have_text("2 tai")
    expect(row.locator(".rescore")).to_have_count(0)
    # the button went with its note: the focus stays on the hand, not up at the form's 記下
    expect(row.locator('button[data-action="edit"]')).to_be_focused()
    stored = api.get(f"{fake_server}/api/games/{game['id']}").json()["hands"][1]
    # the photo's tiles kept, its request now in the game's context (winner 東, discarder 南)
    assert stored["hand_tai"] == 2 and stored["rescore"] is None
    assert stored["scored"]["hand"] == {**request, "seat_wind": "E", "discarder": "S"}
    assert not page.js_errors


@pytest.mark.parametrize("size", SIZES)
def test_a_game_of_one_round_is_made_on_the_games_page(fake_server, new_page, size):
    """The create form offers the rounds a game lasts, the table's own first; a 東風圈 game says
    on its page how many rounds it has, and ends after four dealerships."""
    page = page_at(new_page, size, fake_server + "/games")
    rounds = page.locator("#rounds")
    expect(rounds.locator("option")).to_have_text(["照規則（四圈）", "四圈（一將）", "兩圈（東南）", "一圈（東風圈）"])
    expect(rounds).to_have_value("")
    for i, name in enumerate(["東一", "南一", "西一", f"北{size}"]):
        page.fill(f"#p{i}", name)
    page.select_option("#rounds", "1")
    no_horizontal_scroll(page)
    rounds.scroll_into_view_if_needed()
    snap(page, f"games-new-rounds-{size}")
    page.click("#lang-switch")  # the choices in English, the one chosen kept
    expect(rounds.locator("option")).to_have_text(["Default: 4", "4 (full game)", "2 (East, South)", "1 (East only)"])
    expect(rounds).to_have_value("1")
    page.select_option("#rounds", "2")  # the longest choice, for the screenshot
    no_horizontal_scroll(page)
    snap(page, f"games-new-rounds-{size}-en")
    page.click("#lang-switch")
    page.select_option("#rounds", "1")
    page.click("#create-game")
    page.wait_for_url(re.compile(r"/games/[0-9a-f]{12}$"))
    game_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#state-line")).to_have_text("東風圈（共 1 圈） · 莊家：東一 · 連莊 0")
    assert page.request.get(f"{fake_server}/api/games/{game_id}").json()["rounds"] == 1
    for dealer in range(4):  # each dealer's next seat wins: the deal passes four times
        page.select_option("#winner", str((dealer + 1) % 4))
        page.select_option("#discarder", str((dealer + 2) % 4))
        page.fill("#tai", "1")
        page.click("#add-hand")
        expect(page.locator("#history tbody tr[data-hand]")).to_have_count(dealer + 1)
    # finished: no next dealer named, the form's fields rest and a line says how to change a hand
    expect(page.locator("#state-line")).to_have_text("東風圈（共 1 圈） · 已結束")
    expect(page.locator("#add-hand")).to_be_disabled()
    expect(page.locator("#winner")).to_be_disabled()
    expect(page.locator("#score-link")).to_be_hidden()
    expect(page.locator("#finished-hint")).to_have_text("這局已結束。要改哪一手，按那手的 ✎。")
    page.locator('#history tr[data-hand="4"] [data-action="edit"]').click()
    expect(page.locator("#winner")).to_be_enabled()        # a recorded hand is still edited here
    expect(page.locator("#add-hand")).to_be_enabled()
    expect(page.locator("#finished-hint")).to_be_hidden()
    page.click("#cancel-edit")
    expect(page.locator("#winner")).to_be_disabled()
    no_horizontal_scroll(page)
    page.click("#lang-switch")
    expect(page.locator("#state-line")).to_contain_text("East round (1 of 1)")
    page.click("#lang-switch")
    page.locator("#state-line").scroll_into_view_if_needed()
    snap(page, f"game-one-round-{size}")
    game = page.request.get(f"{fake_server}/api/games/{game_id}").json()
    assert game["state"]["finished"] and len(game["hands"]) == 4
    assert not page.js_errors, page.js_errors
