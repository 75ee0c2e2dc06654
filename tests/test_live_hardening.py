"""The live page's endpoints under careless and hostile clients: the camera, the frame form."""
from __future__ import annotations

import io
import threading

import numpy as np

from tests.app_support import FETCH, make_app


class StalledCapture:
    """A camera whose first read never ends (until the test lets it), as a half-unplugged one."""

    def __init__(self):
        self.go = threading.Event()
        self.reading = threading.Event()

    def isOpened(self):  # noqa: N802 (VideoCapture's name)
        return True

    def read(self):
        self.reading.set()
        self.go.wait(30)
        return True, np.full((48, 64, 3), 128, np.uint8)

    def release(self):
        pass


def test_a_stalled_camera_does_not_hold_every_request(tmp_path, monkeypatch):
    monkeypatch.setattr("webapp.camera.READ_WAIT", 0.2)  # raises if the constant is renamed
    capture = StalledCapture()
    app = make_app(tmp_path, CAMERA_OPENER=lambda index: capture)
    stuck = threading.Thread(target=lambda: app.test_client().get("/api/camera/frame"), daemon=True)
    stuck.start()
    assert capture.reading.wait(5)
    answers = {}

    def ask(path, lang):
        r = app.test_client().get(path, headers={"Accept-Language": lang})
        answers[path, lang] = r.status_code, r.get_json()
    try:
        asking = [threading.Thread(target=ask, args=(path, lang), daemon=True)
                  for path in ("/api/camera/frame", "/api/camera") for lang in ("en", "zh")]
        [t.start() for t in asking]
        [t.join(5) for t in asking]
        assert not any(t.is_alive() for t in asking), "a request waited on the stalled camera"
        # once was a wait without end: four such requests held every server thread, pages too
        assert answers["/api/camera/frame", "en"] == (503, {
            "error": "the camera is not answering; check its cable, or restart the server",
            "code": "camera_not_answering", "params": {}})
        assert answers["/api/camera/frame", "zh"][1]["error"].startswith("攝影機沒有回應")
        assert answers["/api/camera", "en"] == (200, {"attached": False})  # the page picks another source
    finally:
        capture.go.set()
        stuck.join(5)
    assert app.test_client().get("/api/camera/frame").status_code == 200  # answering again


def test_a_form_of_too_many_fields_says_so(tmp_path):
    """Werkzeug caps a form at 1000 parts with the same 413 as a field over 500 KB: the answer names
    both limits, where it once told a client of 1001 tiny fields that one field was too large."""
    c = make_app(tmp_path).test_client()
    fields = {f"f{i}": "x" for i in range(1001)}
    for lang, text in (("en", "the form is too large: at most 1000 fields, each at most 500 KB (files: 20 MB)"),
                       ("zh", "表單太大：最多 1000 個欄位，每個欄位上限 500 KB（檔案 20 MB）")):
        r = c.post("/api/live", data={**fields, "frame": (io.BytesIO(b"x"), "f.jpg")},
                   headers={**FETCH, "Accept-Language": lang})
        assert r.status_code == 413 and r.get_json() == {"error": text, "code": "form_field_too_large",
                                                         "params": {"kb": 500, "parts": 1000}}


def test_a_dragon_typed_as_a_flower_is_refused_under_taiwanese_rules(tmp_path):
    """The live keyboard offers 白板 and 紅中 as flowers for 乐清; under a Taiwanese table the
    16-tile waits were once given as if they were flowers (only a win's score said otherwise)."""
    from tests.app_support import READY_16, FakeRecognizer, fixture_photo, row
    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer(row(READY_16))).test_client()

    def live(flowers, rules, lang="en"):
        return c.post("/api/live", data={"frame": (io.BytesIO(fixture_photo()), "f.jpg"), "flowers": flowers,
                                         "rules": rules}, headers={**FETCH, "Accept-Language": lang})
    for rules in ("tw-standard", "platform-tai"):
        r = live("1f C", rules)
        assert r.status_code == 400 and r.get_json()["code"] == "not_a_flower_taiwan"
        assert r.get_json()["error"] == "C (紅中) is not a flower under Taiwanese rules (flowers are 1f-8f)"
    assert live("P", "tw-standard", "zh").get_json()["error"] == "台灣麻將的花牌只有春夏秋冬梅蘭竹菊，白板 不是花牌"
    assert live("1f", "tw-standard").get_json()["message_code"] == "live_waiting"
    assert live("P", "yueqing").status_code == 200  # 乐清's flower


class SlowRecognizer:
    """Reads a frame only when the test lets it: two such reads hold both inference slots."""

    def __init__(self):
        self.go = threading.Event()
        self.started = threading.Semaphore(0)

    def recognize(self, image):
        self.started.release()
        self.go.wait(30)
        return []


def test_a_live_frame_is_skipped_not_queued_while_both_slots_read(tmp_path):
    """Frames once queued for the two inference slots, each holding one of the server's few
    threads, so a flood of frames kept every other page waiting. A live frame the slots cannot
    take now is refused at once (429 live_busy); a photo to score still waits its turn."""
    from tests.app_support import fixture_photo

    slow = SlowRecognizer()
    app = make_app(tmp_path, RECOGNIZER=slow)
    photo = fixture_photo()

    def frame(lang="en"):
        return app.test_client().post("/api/live", data={"frame": (io.BytesIO(photo), "f.jpg")},
                                      headers={**FETCH, "Accept-Language": lang})
    reading = [threading.Thread(target=frame, daemon=True) for _ in range(2)]
    [t.start() for t in reading]
    try:
        assert slow.started.acquire(timeout=10) and slow.started.acquire(timeout=10)  # both slots reading
        for lang, text in (("en", "the server is busy reading other frames; this one was skipped, try again"),
                           ("zh", "伺服器正在辨識別的畫面，這一張先略過，請再試一次")):
            r = frame(lang)
            assert r.status_code == 429 and r.get_json() == {"error": text, "code": "live_busy", "params": {}}
        waiting = threading.Thread(target=lambda: app.test_client().post(
            "/api/recognize", data={"photo": (io.BytesIO(photo), "p.jpg")}, headers=FETCH), daemon=True)
        waiting.start()
        waiting.join(0.5)
        assert waiting.is_alive()  # a photo to score waits for a slot
    finally:
        slow.go.set()
        [t.join(10) for t in reading]
    assert frame().status_code == 200  # a slot free again: read


# ---------- the table camera's picture behind the table PIN ----------

class ShortCapture:
    """A camera good for a few frames, so that a stream read in a test ends (the camera 'fails')."""

    def __init__(self):
        self.frames = 3

    def isOpened(self):  # noqa: N802 (VideoCapture's name)
        return True

    def read(self):
        self.frames -= 1
        return (True, np.full((48, 64, 3), 128, np.uint8)) if self.frames >= 0 else (False, None)

    def release(self):
        pass


PICTURE = ("/api/camera/frame", "/api/camera/stream")


def _camera_app(tmp_path, monkeypatch, pin):
    monkeypatch.setattr("webapp.camera.FRAME_INTERVAL", 0)  # raises if the constant is renamed
    app = make_app(tmp_path, TABLE_PIN=pin, CAMERA_OPENER=lambda index: ShortCapture())
    now = [1000.0]
    app.extensions["mahjong"].pin_throttle.clock = lambda: now[0]
    return app, now


def _shown(r) -> bool:
    """The picture came: a JPEG, or a stream whose parts are JPEGs."""
    return r.status_code == 200 and r.data.count(b"\xff\xd8") >= 1


def test_the_camera_picture_needs_the_pin_when_one_is_set(tmp_path, monkeypatch):
    """The picture shows the people at the table, their hands and faces: with a PIN set, anyone
    on the same Wi-Fi once watched it. Whether a camera is attached stays open (the page picks
    its source from it)."""
    app, _ = _camera_app(tmp_path, monkeypatch, "4821")
    c = app.test_client()
    assert c.get("/api/camera").get_json() == {"attached": True}
    for path in PICTURE:
        for lang, text in (("en", "this table needs its PIN"), ("zh", "這桌要先輸入 PIN 碼")):
            r = c.get(path, headers={"Accept-Language": lang})
            assert (r.status_code, r.get_json()) == (403, {"error": text, "code": "pin_required", "params": {}}), path
        assert c.head(path).status_code == 403, path
        assert _shown(c.get(path, headers={"X-Table-Pin": "4821"})), path
    assert c.post("/api/pin", json={"pin": "4821"}, headers=FETCH).status_code == 200
    for path in PICTURE:
        assert _shown(c.get(path)), path  # the PIN session's cookie does it now
    c.delete("/api/pin", headers=FETCH)
    assert [c.get(path).status_code for path in PICTURE] == [403, 403]


def test_without_a_pin_the_camera_picture_is_open_as_before(tmp_path, monkeypatch):
    app, _ = _camera_app(tmp_path, monkeypatch, None)
    c = app.test_client()
    for path in PICTURE:
        assert _shown(c.get(path)), path


def test_wrong_pins_at_the_camera_are_throttled_with_the_others(tmp_path, monkeypatch):
    """The camera is no way round the throttle: its wrong X-Table-Pin count as guesses, with
    those made at POST /api/pin, and during the wait not even the right one is checked."""
    app, now = _camera_app(tmp_path, monkeypatch, "4821")
    c = app.test_client()
    codes = [c.post("/api/pin", json={"pin": f"{i:04d}"}, headers=FETCH).status_code for i in range(3)]
    codes += [c.get(PICTURE[i % 2], headers={"X-Table-Pin": f"{i:04d}"}).status_code for i in range(4)]
    assert codes == [403] * 5 + [429] * 2
    r = c.get("/api/camera/frame", headers={"X-Table-Pin": "4821"})
    assert r.status_code == 429 and r.get_json()["code"] == "pin_wait" and r.headers["Retry-After"] == "1"
    now[0] += 1.1
    assert _shown(c.get("/api/camera/frame", headers={"X-Table-Pin": "4821"}))


class EndlessCapture(ShortCapture):
    """A camera that never fails: a stream from it ends only when its viewer may not watch."""

    def read(self):
        return True, np.full((48, 64, 3), 128, np.uint8)


def _parts(response, most: int) -> int:
    """How many frames the stream gives before it ends, reading at most `most`."""
    count = 0
    for chunk in response.response:
        count += chunk.count(b"--frame")
        if count >= most:
            break
    return count


def test_a_stream_ends_when_its_pin_session_is_locked(tmp_path, monkeypatch):
    """The PIN was checked when the stream began; a phone locked afterwards (DELETE /api/pin)
    went on watching the table for as long as it kept the stream open."""
    monkeypatch.setattr("webapp.camera.FRAME_INTERVAL", 0)
    monkeypatch.setattr("webapp.camera.ALLOWED_EVERY", 0)
    app = make_app(tmp_path, TABLE_PIN="4821", CAMERA_OPENER=lambda index: EndlessCapture())
    c = app.test_client()
    assert c.post("/api/pin", json={"pin": "4821"}, headers=FETCH).status_code == 200
    watching = c.get("/api/camera/stream", buffered=False)
    assert watching.status_code == 200 and _parts(watching, 5) == 5
    assert c.delete("/api/pin", headers=FETCH).status_code == 200
    assert _parts(watching, 50) <= 1  # the frame already on its way, then the end
    watching.close()
    camera = app.extensions["mahjong"].camera
    assert camera.streams.acquire(blocking=False) and camera.streams.acquire(blocking=False)  # both slots back


def test_a_stream_let_in_by_the_pin_itself_or_no_pin_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr("webapp.camera.FRAME_INTERVAL", 0)
    monkeypatch.setattr("webapp.camera.ALLOWED_EVERY", 0)
    for pin, headers in (("4821", {"X-Table-Pin": "4821"}), (None, {})):
        app = make_app(tmp_path / str(pin), TABLE_PIN=pin, CAMERA_OPENER=lambda index: EndlessCapture())
        watching = app.test_client().get("/api/camera/stream", headers=headers, buffered=False)
        assert _parts(watching, 30) == 30
        watching.close()
