"""Photos through the API with a fake recognizer: recognize, stored photos, examples, adapt, live, camera."""
from __future__ import annotations

import hashlib
import io
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.app_support import FETCH, READY_16, FakeRecognizer, fixture_photo, make_app, row
from vision.classes import CLASS_NAMES


@pytest.fixture
def fake():
    return FakeRecognizer(row(READY_16))


@pytest.fixture
def client(tmp_path, fake):
    return make_app(tmp_path, RECOGNIZER=fake).test_client()


def upload(c, data: bytes, route="/api/recognize", field="photo", name="hand.jpg", **form):
    return c.post(route, data={field: (io.BytesIO(data), name), **form}, headers=FETCH,
                  content_type="multipart/form-data")


def test_recognize_stores_the_photo_and_reads_the_hand(client, tmp_path, fake):
    photo = fixture_photo()
    r = upload(client, photo)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    pid = hashlib.sha256(photo).hexdigest()
    assert body["photo_id"] == pid and body["photo_url"] == f"/photos/{pid}"
    assert body["annotated_url"] == f"/photos/{pid}/annotated"
    assert [t["tile"] for t in body["tiles"]] == [CLASS_NAMES[c] for c in READY_16]
    assert body["layout"]["concealed"] == [CLASS_NAMES[c] for c in READY_16]
    assert fake.shapes == [(640, 640, 3)]
    assert (tmp_path / "data" / "photos" / f"{pid}.jpg").read_bytes() == photo
    assert client.get(f"/photos/{pid}").data == photo
    thumb = Image.open(io.BytesIO(client.get(f"/photos/{pid}/thumb").data))
    assert thumb.format == "JPEG" and max(thumb.size) == 320
    annotated = client.get(f"/photos/{pid}/annotated")
    assert annotated.mimetype == "image/jpeg"
    drawn = cv2.imdecode(np.frombuffer(annotated.data, np.uint8), cv2.IMREAD_COLOR)
    plain = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == plain.shape and np.abs(drawn.astype(int) - plain).mean() > 1  # boxes were drawn
    # the tile sheet's crop comes from the photo as read: the boxes' pixels, no label over the tile
    assert body["upright_url"] == f"/photos/{pid}/upright"
    upright = cv2.imdecode(np.frombuffer(client.get(body["upright_url"]).data, np.uint8), cv2.IMREAD_COLOR)
    assert upright.shape == fake.shapes[0] and np.abs(upright.astype(int) - plain).mean() < 2
    assert client.get(f"/photos/{'0' * 64}/upright").status_code == 404


def test_the_upright_photo_is_the_one_read_rotated_and_shrunk(client, fake):
    """A photo over 4096 px or turned by its EXIF tag is read upright and shrunk: so is its upright copy."""
    buf = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90 degrees clockwise
    Image.new("RGB", (5000, 300), (200, 30, 30)).save(buf, "JPEG", exif=exif)
    pid = upload(client, buf.getvalue()).get_json()["photo_id"]
    upright = Image.open(io.BytesIO(client.get(f"/photos/{pid}/upright").data))
    assert (upright.height, upright.width, 3) == fake.shapes[-1] and upright.size == (246, 4096)


def test_png_is_served_as_png_and_heic_style_bytes_are_converted(client):
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 30, 30)).save(buf, "PNG")
    pid = upload(client, buf.getvalue(), name="x.png").get_json()["photo_id"]
    assert client.get(f"/photos/{pid}").mimetype == "image/png"
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 200, 30)).save(buf, "WEBP")
    pid = upload(client, buf.getvalue(), name="x.webp").get_json()["photo_id"]
    assert client.get(f"/photos/{pid}").mimetype == "image/webp"


def test_tileset_is_passed_on_and_checked(client, fake):
    fake.detections = row([41])  # the 竹 flower class
    assert upload(client, fixture_photo()).get_json()["tiles"][0]["tile"] == "7f"
    assert upload(client, fixture_photo(), tileset="hk-index").get_json()["tiles"][0]["tile"] == "8f"
    r = upload(client, fixture_photo(), tileset="mars")
    assert r.status_code == 400 and "unknown tile set" in r.get_json()["error"]


@pytest.mark.parametrize("data, message", [
    (b"", "empty"),
    (b"just some text, not a photo\n" * 10, "not an image"),
    (fixture_photo()[:3000], "truncated or corrupt"),
])
def test_bad_photos_are_400(client, tmp_path, data, message):
    r = upload(client, data)
    assert r.status_code == 400 and message in r.get_json()["error"]
    assert not list((tmp_path / "data" / "photos").glob("*.jpg"))  # nothing stored


def test_missing_field_and_huge_upload(client):
    r = client.post("/api/recognize", data={"other": "x"}, headers=FETCH, content_type="multipart/form-data")
    assert r.status_code == 400 and "photo" in r.get_json()["error"]
    r = upload(client, b"\xff\xd8" + b"0" * (21 * 1024 * 1024))
    assert r.status_code == 413 and r.get_json()["error"] == "the upload is too large; the limit is 20 MB"
    assert r.get_json()["code"] == "http_too_large"


def test_decompression_bomb_is_refused(client):
    buf = io.BytesIO()
    Image.new("1", (10000, 6000)).save(buf, "PNG")  # 60 megapixels in a few kB
    r = upload(client, buf.getvalue(), name="bomb.png")
    assert r.status_code == 400 and "megapixels" in r.get_json()["error"]


def test_no_model_is_503_and_health_says_so(tmp_path):
    c = make_app(tmp_path).test_client()
    assert c.get("/api/health").get_json()["model"] is False
    r = upload(c, fixture_photo())
    assert r.status_code == 503 and r.get_json()["error"] == "no vision model installed yet"
    r = upload(c, fixture_photo(), route="/api/live", field="frame")
    assert r.status_code == 503


def test_a_broken_model_file_is_503_not_a_crash(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    for name in ("detector.onnx", "classifier.onnx"):
        (models / name).write_bytes(b"not a model")
    c = make_app(tmp_path).test_client()
    assert c.get("/api/health").get_json()["model"] is True
    r = upload(c, fixture_photo())
    assert r.status_code == 503 and "cannot load the vision model" in r.get_json()["error"]


@pytest.mark.parametrize("path", [
    "/photos/..%2F..%2Fapp.py", "/photos/../app.py", "/photos/%2e%2e", "/photos/" + "a" * 63,
    "/photos/" + "A" * 64, "/photos/" + "g" * 64, "/photos/" + "a" * 64 + "/../../app.py",
    "/photos/" + "a" * 64, "/photos/" + "a" * 64 + "/thumb", "/photos/" + "a" * 64 + "/annotated",
    "/photos/..%2F..%2Fapp.py/thumb",
])
def test_photo_paths_outside_the_folder_are_404(client, path):
    r = client.get(path)
    assert r.status_code == 404 and b"import" not in r.data


def test_examples_are_written_as_yolo(client, tmp_path):
    pid = upload(client, fixture_photo()).get_json()["photo_id"]
    assert client.get("/api/examples").get_json() == {"count": 0, "examples": []}
    tiles = [{"tile": "1m", "box": [64, 128, 128, 224]}, {"tile": "7f", "box": [0, 0, 64, 64]},
             {"tile": "紅中", "box": [600, 600, 700, 700]}, {"tile": "back", "box": [10, 10, 20, 20]}]
    r = client.post("/api/examples", json={"photo_id": pid, "tiles": tiles, "tileset": "taiwan"}, headers=FETCH)
    assert r.status_code == 200 and r.get_json() == {"count": 1}
    folder = tmp_path / "data" / "examples"
    lines = (folder / "labels" / f"{pid}.txt").read_text().splitlines()
    assert lines[0] == "0 0.150000 0.275000 0.100000 0.150000"
    assert lines[1].split()[0] == "41"                       # 7f is 竹 (bamboo) in Taiwanese sets
    assert lines[2] == "31 0.968750 0.968750 0.062500 0.062500"  # clipped to the 640 px photo
    assert lines[3].split()[0] == "42"
    # what each tile prints, for the number head: 7f prints 3 whichever plant the set draws
    assert (folder / "numbers" / f"{pid}.txt").read_text().split() == ["0", "3", "0", "0"]
    assert Image.open(folder / "images" / f"{pid}.jpg").size == (640, 640)
    yaml = (folder / "data.yaml").read_text()
    assert "nc: 43" in yaml and "  40: chrysanthemum" in yaml and "  42: back" in yaml
    r = client.post("/api/examples", json={"photo_id": pid, "tiles": tiles[1:2], "tileset": "hk-index"},
                    headers=FETCH)
    assert r.get_json() == {"count": 1}                      # a new correction replaces the old one
    assert (folder / "labels" / f"{pid}.txt").read_text().split()[0] == "40"
    assert (folder / "numbers" / f"{pid}.txt").read_text().split() == ["3"]  # 菊 printing 3 in such sets
    assert client.get("/api/examples").get_json()["count"] == 1


@pytest.mark.parametrize("change, message", [
    ({"photo_id": "0" * 64}, "photo_id"),
    ({"photo_id": "../../app"}, "photo_id"),
    ({"tiles": []}, "non-empty"),
    ({"tiles": [{"tile": "9x", "box": [0, 0, 5, 5]}]}, "cannot read tiles"),
    ({"tiles": [{"tile": "1m", "box": [0, 0, 5]}]}, "box"),
    ({"tiles": [{"tile": "1m", "box": [700, 700, 800, 800]}]}, "outside"),
    ({"tiles": [{"tile": "1m", "box": [0, 0, 50, 60]}, {"tile": "2m", "box": [60, 0, 110, 60]},
                {"tile": "1m", "box": [2, 1, 51, 62]}]}, "tiles 1 and 3 have the same box"),
    ({"tiles": [{"tile": "1m", "box": [10, 10, 60, 80]}] * 200}, "tiles 1 and 2 have the same box"),
    ({"tileset": "mars"}, "unknown tile set"),
])
def test_bad_examples_are_400(client, change, message):
    pid = upload(client, fixture_photo()).get_json()["photo_id"]
    body = {"photo_id": pid, "tiles": [{"tile": "1m", "box": [0, 0, 5, 5]}], **change}
    r = client.post("/api/examples", json=body, headers=FETCH)
    assert r.status_code == 400 and message in r.get_json()["error"]


def test_adapt_runs_one_job_in_the_background(tmp_path, fake):
    models = tmp_path / "models"
    models.mkdir()
    command = [sys.executable, "-c", "import sys, time; print('adapting', sys.argv[1:]); time.sleep(0.5)"]
    c = make_app(tmp_path, RECOGNIZER=fake, ADAPT_COMMAND=command, TRAINING_MISSING=list).test_client()
    assert c.get("/api/adapt").get_json() == {"status": "idle", "source": None, "calibration": False, "steps": [], "log_tail": "", "training_missing": [],
                                              "install_command": None}
    assert c.post("/api/adapt", headers=FETCH).status_code == 503           # no classifier.pt
    (models / "classifier.pt").write_bytes(b"weights")
    r = c.post("/api/adapt", headers=FETCH)
    assert r.status_code == 400 and "no corrected photos" in r.get_json()["error"]
    pid = upload(c, fixture_photo()).get_json()["photo_id"]
    c.post("/api/examples", json={"photo_id": pid, "tiles": [{"tile": "1m", "box": [0, 0, 9, 9]}]}, headers=FETCH)
    r = c.post("/api/adapt", headers=FETCH)
    assert r.status_code == 202 and r.get_json()["status"] == "running"
    assert 0 <= r.get_json()["elapsed_s"] < 20  # the page says how long it has run
    assert c.post("/api/adapt", headers=FETCH).status_code == 409
    c.application.extensions["mahjong"].adapt.wait(20)
    assert c.get("/api/adapt").get_json()["status"] == "done"
    assert c.get("/api/adapt").get_json()["summary"].startswith("no model was replaced: the adapted ones")
    assert "elapsed_s" not in c.get("/api/adapt").get_json()
    assert "killed" not in c.get("/api/adapt").get_json()  # it ended by itself
    assert c.get("/api/adapt").get_json()["log_tail"] == "adapting []\n"


ADAPT_LOGGING = [sys.executable, "-c", "import time; print('[adapt 0:00] classifier', flush=True); time.sleep(60)"]


def adapt_ready(tmp_path, fake, command=ADAPT_LOGGING):
    """A client whose adapt runs `command`, with a classifier to adapt and one saved correction."""
    models = tmp_path / "models"
    models.mkdir(exist_ok=True)
    (models / "classifier.pt").write_bytes(b"weights")
    c = make_app(tmp_path, RECOGNIZER=fake, ADAPT_COMMAND=command, TRAINING_MISSING=list).test_client()
    pid = upload(c, fixture_photo()).get_json()["photo_id"]
    c.post("/api/examples", json={"photo_id": pid, "tiles": [{"tile": "1m", "box": [0, 0, 9, 9]}]}, headers=FETCH)
    return c


# adapt's own progress (training/adapt_progress.py: no torch), then a line a killed run left half written
ADAPT_STEPS = [sys.executable, "-c", "from training.adapt_progress import progress, model\n"
               "progress('adapt_step_reading', n=1)\n"
               "for p in (10, 20): progress('adapt_step_tuning', percent=p)\n"  # done: not listed
               "progress('adapt_step_skipped', model=model('detector'), why={'code': 'adapt_skip_needs_photos',"
               " 'params': {'min': 2}})\n"
               "progress('adapt_step_installed_errors', model=model('verifier'), before=3, after=1)\n"
               "progress('adapt_step_judged_install', model=model('suit_reader'), on={'code': 'adapt_judged_on_held'},"
               " before='0.5', after='0.9')\n"
               "import os; open(os.environ['MAHJONG_ADAPT_STEPS'], 'a').write('{\"at_s\": 3, \"co')"]


def test_adapt_steps_are_worded_in_the_pages_language(tmp_path, fake):
    """The steps adapt says on the terminal in English reach the page in its own language."""
    c = adapt_ready(tmp_path, fake, ADAPT_STEPS)
    assert c.post("/api/adapt", headers=FETCH).status_code == 202
    c.application.extensions["mahjong"].adapt.wait(20)
    zh = c.get("/api/adapt", headers={"Accept-Language": "zh-TW"}).get_json()
    assert zh["status"] == "done"
    assert [s["text"] for s in zh["steps"]][:2] == ["讀取 1 張更正過的照片", "找牌：不調整，新模型要用留下的照片檢查，至少要 2 張照片"]
    assert [s["code"] for s in zh["steps"]] == ["adapt_step_reading", "adapt_step_skipped", "adapt_step_installed_errors",
                                                "adapt_step_judged_install"]
    assert zh["summary"] == "換上了 2 個調整後的模型：整張牌複查、筒條辨識；其他照舊"  # what the run changed, in a line
    en = c.get("/api/adapt", headers={"Accept-Language": "en"}).get_json()
    assert [s["text"] for s in en["steps"]][:2] == [
        "reading 1 corrected photo",
        "tile finder: left as it is: a new model is checked on a held photo: it needs 2 photos or more"]
    assert en["summary"] == "installed 2 adapted models: tile check, Dots and Bamboo reader; the others are as they were"
    assert "[adapt 0:00] reading 1 corrected photo" in en["log_tail"]  # the terminal's wording, in the log
    assert c.post("/api/adapt", headers=FETCH).status_code == 202  # a new run starts with no steps
    c.application.extensions["mahjong"].adapt.wait(20)
    assert len(c.get("/api/adapt").get_json()["steps"]) == 4


def test_an_adapt_stopped_from_outside_says_so(tmp_path, fake):
    import signal
    c = adapt_ready(tmp_path, fake)
    assert c.post("/api/adapt", headers=FETCH).status_code == 202
    job = c.application.extensions["mahjong"].adapt
    deadline = time.monotonic() + 20
    while not job.log_tail() and time.monotonic() < deadline:  # under way: its first step logged
        time.sleep(0.05)
    job._process.send_signal(signal.SIGKILL)  # as the kernel's out-of-memory killer would
    job.wait(20)
    answer = c.get("/api/adapt").get_json()
    assert answer["status"] == "failed" and answer["killed"] is True
    assert answer["log_tail"] == "[adapt 0:00] classifier\n"  # where it was when stopped


def test_adapt_command_matches_the_vision_cli(tmp_path):
    from webapp.adapt import adapt_command
    cmd = adapt_command(tmp_path / "ex", tmp_path / "models")
    assert cmd[1:] == ["-m", "vision", "adapt", "--folder", str(tmp_path / "ex"), "--models", str(tmp_path / "models")]
    # read, not imported: training.adapt imports torch, a training-only requirement
    source = (Path(__file__).resolve().parent.parent / "training" / "adapt.py").read_text(encoding="utf-8")
    assert 'add_argument("--folder"' in source and 'ap.add_argument("--models"' in source


def live(c, **form):
    return upload(c, fixture_photo(), route="/api/live", field="frame", **form)


def test_live_gives_waits_for_16_tiles(client):
    r = live(client, seen="5s5s")
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["waits"]["waits"] == [{"tile": "5s", "remaining": 1}] and body["advice"] is None
    assert body["message"] == "waiting on 5s" and len(body["tiles"]) == 16


def test_live_says_a_ready_hand_whose_waits_are_all_out(client):
    """Shanten 0 with every 5s out was told "not ready yet (shanten 0)"."""
    body = live(client, seen="5s5s5s").get_json()
    assert body["waits"]["waits"] == [] and body["waits"]["shanten"] == 0 and body["waits"]["dead_waits"] == ["5s"]
    assert body["message_code"] == "live_dead_waits" and body["message"] == "ready, but every copy of 5s is out"


def test_live_says_a_discard_to_a_ready_hand_on_tiles_all_out(client, fake):
    """17 tiles: either discard (5s or 9s) leaves a hand ready on the other, all of whose copies
    are out; it said "discard 5s (shanten 0)" as if that were a wait."""
    fake.detections = row(READY_16, apart=[26])
    body = live(client, seen="5s5s5s9s9s9s").get_json()
    best = body["advice"]["discards"][0]
    assert best["shanten"] == 0 and best["useful_copies"] == 0
    assert body["message_code"] == "live_discard_dead"
    assert body["message"] == f"discard {best['discard']}: ready then, but every tile it waits on is out"


def test_live_refuses_the_players_own_input_whatever_the_frame_holds(client, fake):
    fake.detections = row(READY_16[:12])  # too few tiles for a hand: the player's input is still checked
    r = live(client, seen="1m1m1m1m1m")
    assert r.status_code == 400 and r.get_json()["code"] == "too_many_copies"


def test_live_gives_advice_for_17_tiles(client, fake):
    fake.detections = row(READY_16, apart=[26])
    body = live(client).get_json()
    assert body["waits"] is None and body["advice"]["shanten"] == 0
    assert body["message"].startswith("discard ")


def test_live_with_melds_given_by_the_player(client, fake):
    fake.detections = row(READY_16[3:])                    # 13 tiles on camera + a chi typed in
    body = live(client, melds='[{"type": "chi", "tiles": "123m"}]', flowers='"1f"').get_json()
    assert body["waits"]["waits"] == [{"tile": "5s", "remaining": 3}]


def test_live_counts_tiles_otherwise(client, fake):
    fake.detections = row(READY_16[:13])
    body = live(client).get_json()
    assert body == {**body, "waits": None, "advice": None, "message": "13 tiles seen; a hand has 16 or 17"}


def test_live_misread_frame_is_a_message(client, fake):
    fake.detections = row([0] * 16)                        # sixteen 1m: the camera misread
    r = live(client)
    assert r.status_code == 200 and r.get_json()["message"].startswith("cannot read this hand")


@pytest.mark.parametrize("form, message", [
    ({"seen": "5x"}, "cannot read tiles"),
    ({"melds": "{not json"}, "not valid JSON"),
    ({"melds": '[{"type": "chow", "tiles": "123m"}]'}, "meld type"),
    ({"flowers": "[1]"}, "flowers"),
    ({"rules": "/etc/passwd"}, "unknown rule table"),
    ({"seen": "4m4m", "melds": '[{"type": "pong", "tiles": "4m4m4m"}]'}, "5 copies of 4m"),
    ({"flowers": '"1f 1f"'}, "2 copies of 1f"),
    ({"flowers": '"1m"'}, "is not a flower"),
    ({"seen": "1f", "flowers": '"1f"'}, "2 copies of 1f"),
])
def test_live_bad_player_input_is_400(client, form, message):
    r = live(client, **form)
    assert r.status_code == 400 and message in r.get_json()["error"]


class FakeCapture:
    def __init__(self, opened=True, frames=1000):
        self.opened, self.frames, self.released = opened, frames, False

    def isOpened(self):
        return self.opened

    def read(self):
        if self.frames <= 0:
            return False, None
        self.frames -= 1
        return True, np.full((48, 64, 3), 128, np.uint8)

    def release(self):
        self.released = True


def test_no_camera_is_404(tmp_path):
    c = make_app(tmp_path, CAMERA_OPENER=lambda index: FakeCapture(opened=False)).test_client()
    for path in ("/api/camera/frame", "/api/camera/stream"):
        r = c.get(path)
        assert r.status_code == 404 and r.get_json()["error"] == "no camera attached"
        assert r.get_json()["code"] == "no_camera"


def test_camera_frame_and_stream(tmp_path, monkeypatch):
    opened = []

    def opener(index):
        opened.append(index)
        return FakeCapture(frames=3)
    monkeypatch.setattr("webapp.camera.FRAME_INTERVAL", 0)
    c = make_app(tmp_path, CAMERA_OPENER=opener, CAMERA_INDEX=2).test_client()
    r = c.get("/api/camera/frame")
    assert r.mimetype == "image/jpeg" and Image.open(io.BytesIO(r.data)).size == (64, 48)
    r = c.get("/api/camera/stream")
    assert r.mimetype == "multipart/x-mixed-replace"
    parts = r.data.split(b"--frame\r\n")[1:]
    assert len(parts) == 2 and all(p.startswith(b"Content-Type: image/jpeg") for p in parts)  # 2 frames left
    assert opened == [2]
    assert c.get("/api/camera/frame").status_code == 200   # the failed camera is reopened
    assert opened == [2, 2]


def test_the_model_is_loaded_once_lazily_and_again_when_its_files_change(tmp_path, monkeypatch):
    import os
    import threading

    import vision.model
    models = tmp_path / "models"
    models.mkdir()
    for name in ("detector.onnx", "classifier.onnx"):
        (models / name).write_bytes(b"x")
    loads = []

    class CountingRecognizer(FakeRecognizer):
        def __init__(self, folder):
            loads.append(folder)
            time.sleep(0.05)  # a slow load: concurrent first requests must still share one
            super().__init__(row(READY_16))
    monkeypatch.setattr(vision.model, "Recognizer", CountingRecognizer)
    app = make_app(tmp_path)
    assert loads == []                                     # nothing loaded at start-up
    codes = []

    def ask():
        codes.append(upload(app.test_client(), fixture_photo()).status_code)
    threads = [threading.Thread(target=ask) for _ in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert codes == [200] * 4 and loads == [models]
    stat = (models / "classifier.onnx").stat()
    os.utime(models / "classifier.onnx", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # adapt installed a new one
    assert upload(app.test_client(), fixture_photo()).status_code == 200 and loads == [models, models]
    (models / "flower_reader.onnx").write_bytes(b"x")  # adapt installed a flower reader alone
    assert upload(app.test_client(), fixture_photo()).status_code == 200 and loads == [models] * 3
    (models / "verifier.onnx").write_bytes(b"x")  # adapt installed a tile check alone
    assert upload(app.test_client(), fixture_photo()).status_code == 200 and loads == [models] * 4
    (models / "character_reader.onnx").write_bytes(b"x")  # adapt installed a character reader alone
    assert upload(app.test_client(), fixture_photo()).status_code == 200 and loads == [models] * 5
    (models / "suit_reader.onnx").write_bytes(b"x")  # adapt installed a suit reader alone
    assert upload(app.test_client(), fixture_photo()).status_code == 200 and loads == [models] * 6


def test_saved_corrections_are_listed_and_can_be_removed(tmp_path, fake):
    import signal
    c = make_app(tmp_path, RECOGNIZER=fake, TRAINING_MISSING=list,
                 ADAPT_COMMAND=[sys.executable, "-c", "import time; time.sleep(30)"]).test_client()
    assert c.get("/api/examples").get_json() == {"count": 0, "examples": []}
    pid = upload(c, fixture_photo()).get_json()["photo_id"]
    tiles = [{"tile": "1m", "box": [0, 0, 9, 9]}, {"tile": "2m", "box": [20, 0, 29, 9]}]
    assert c.post("/api/examples", json={"photo_id": pid, "tiles": tiles}, headers=FETCH).get_json() == {"count": 1}
    folder = tmp_path / "data" / "examples"
    (folder / "labels" / "damaged.txt").write_bytes(b"\xff\xfe\x00 not text")  # one bad file, the others still listed
    listed = c.get("/api/examples").get_json()
    assert listed["count"] == 2
    mine = next(e for e in listed["examples"] if e["photo_id"] == pid)
    assert mine["tiles"] == 2 and mine["thumb_url"] == f"/photos/{pid}/thumb" and mine["saved_at"]
    damaged = next(e for e in listed["examples"] if e["photo_id"] == "damaged")
    assert damaged["tiles"] is None and damaged["thumb_url"] is None
    # while adapt runs it reads the folder: a removal waits
    (tmp_path / "models").mkdir(exist_ok=True)
    (tmp_path / "models" / "classifier.pt").write_bytes(b"weights")
    assert c.post("/api/adapt", headers=FETCH).status_code == 202
    r = c.delete(f"/api/examples/{pid}", headers=FETCH)
    assert r.status_code == 409 and r.get_json()["code"] == "example_adapt_running"
    job = c.application.extensions["mahjong"].adapt
    job._process.send_signal(signal.SIGKILL)
    job.wait(20)
    assert c.delete(f"/api/examples/{pid}", headers=FETCH).get_json() == {"count": 1}
    assert not any(folder.glob(f"*/{pid}.*"))  # image, label and numbers gone
    r = c.delete(f"/api/examples/{pid}", headers=FETCH)
    assert r.status_code == 404 and r.get_json()["code"] == "no_example"
    assert c.delete("/api/examples/..%2f..%2fsecret_key", headers=FETCH).status_code == 404
    assert c.delete(f"/api/examples/{pid}").status_code == 403  # a page that is not ours cannot remove one


def test_the_player_can_stop_a_running_adapt(tmp_path, fake):
    c = adapt_ready(tmp_path, fake)
    r = c.delete("/api/adapt", headers=FETCH)
    assert r.status_code == 409 and r.get_json()["code"] == "adapt_not_running"  # nothing to stop
    assert c.post("/api/adapt", headers=FETCH).status_code == 202
    assert c.delete("/api/adapt").status_code == 403  # a page that is not ours cannot stop it
    started = time.monotonic()
    answer = c.delete("/api/adapt", headers=FETCH).get_json()
    assert time.monotonic() - started < 20  # stopped, not waited out
    assert answer["status"] == "stopped" and "killed" not in answer  # the player's stop is no failure
    assert answer["summary"] == "no model had been replaced yet; the ones you had are in use"  # stopped: no reason guessed
    assert c.post("/api/adapt", headers=FETCH).status_code == 202  # and it can start again
    assert c.get("/api/adapt").get_json()["status"] == "running"
    c.delete("/api/adapt", headers=FETCH)


class CalibrationRecognizer:
    """The 42 faces found as rows of 7 on any photo, or `count` tiles; sees the image it is given."""

    def __init__(self, count: int = 42):
        self.count, self.config, self.seen = count, {"det_conf": 0.25}, []

    def boxes(self, image):
        self.seen.append(image.copy())
        return np.array([[10 + 50 * (i % 7), 10 + 70 * (i // 7), 50 + 50 * (i % 7), 66 + 70 * (i // 7)]
                         for i in range(self.count)], np.float32)

    def detect(self, image):
        return self.boxes(image), None

    def recognize(self, image):
        return [{"box": b.tolist(), "cls": 0, "confidence": 0.9} for b in self.boxes(image)]


def calibration_client(tmp_path, recognizer, command=ADAPT_LOGGING):
    (tmp_path / "models").mkdir(exist_ok=True)
    (tmp_path / "models" / "classifier.pt").write_bytes(b"weights")
    return make_app(tmp_path, RECOGNIZER=recognizer, ADAPT_COMMAND=command, TRAINING_MISSING=list).test_client()


def test_a_calibration_photo_is_read_in_the_standard_order_and_kept(tmp_path):
    rec = CalibrationRecognizer()
    c = calibration_client(tmp_path, rec)
    assert c.get("/api/calibration/photo").status_code == 404  # none yet
    assert c.get("/api/calibration").get_json()["code"] == "no_calibration"
    r = upload(c, fixture_photo(), route="/api/calibration")
    assert r.status_code == 200, r.get_json()
    tiles = r.get_json()["tiles"]
    assert [t["tile"] for t in tiles] == [*(f"{n}{s}" for s in "mps" for n in range(1, 10)), *"ESWNCFP",
                                          "1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"]
    assert tiles[7]["box"] == [10.0, 80.0, 50.0, 136.0]  # the second row starts with 8萬
    kept = c.get(r.get_json()["photo_url"])
    assert kept.status_code == 200 and kept.mimetype == "image/jpeg"
    decoded = cv2.imdecode(np.frombuffer(kept.data, np.uint8), cv2.IMREAD_COLOR)
    assert (decoded == rec.seen[0]).all()  # the tiles were found on the very pixels adapt will read
    # after a reload the page shows the kept photo's check again: its reading is kept with it
    assert c.get("/api/calibration").get_json() == r.get_json() and len(rec.seen) == 1
    reading = tmp_path / "data" / "calibration" / "reading.json"
    for damage in (b"{not json", b'{"photo_sha256": "another photo", "tiles": []}'):
        reading.write_bytes(damage)  # lost, or left from an earlier photo: read again from the kept one
        again = c.get("/api/calibration")
        assert again.status_code == 200 and again.get_json()["tiles"] == tiles
        assert (rec.seen[-1] == rec.seen[0]).all()  # the kept JPEG as it is, not encoded once more


def test_a_calibration_photo_of_another_count_is_refused_and_not_kept(tmp_path):
    c = calibration_client(tmp_path, CalibrationRecognizer(40))
    r = upload(c, fixture_photo(), route="/api/calibration")
    assert r.status_code == 400 and r.get_json()["code"] == "calibration_count"
    assert r.get_json()["params"] == {"n": 40, "needed": 42}
    zh = c.post("/api/calibration", data={"photo": (io.BytesIO(fixture_photo()), "a.jpg")},
                headers={**FETCH, "Accept-Language": "zh-TW"}, content_type="multipart/form-data")
    assert zh.get_json()["error"].startswith("照片裡找到 40 張牌，校正照片要 42 種牌各一張")
    assert c.get("/api/calibration/photo").status_code == 404
    assert upload(c, b"not a photo", route="/api/calibration").get_json()["code"] == "photo_unreadable"
    assert c.post("/api/calibration", headers=FETCH).get_json()["code"] == "no_file"
    r = c.post("/api/adapt", json={"source": "calibration"}, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "no_calibration"


def test_adapt_from_the_calibration_photo(tmp_path):
    c = calibration_client(tmp_path, CalibrationRecognizer())
    for body in ({"source": "photos"}, {"source": ["calibration"]}):
        r = c.post("/api/adapt", json=body, headers=FETCH)
        assert r.status_code == 400 and r.get_json()["code"] == "adapt_source"
    assert c.post("/api/adapt", data="[1]", content_type="application/json", headers=FETCH).status_code == 400
    assert c.get("/api/adapt").get_json()["calibration"] is False
    assert upload(c, fixture_photo(), route="/api/calibration").status_code == 200
    assert c.get("/api/adapt").get_json()["calibration"] is True  # the page asks for its check only then
    r = c.post("/api/adapt", json={"source": "calibration"}, headers=FETCH)
    assert r.status_code == 202 and r.get_json()["source"] == "calibration"
    r = upload(c, fixture_photo(), route="/api/calibration")  # the run reads the photo it started with
    assert r.status_code == 409 and r.get_json()["code"] == "calibration_adapt_running"
    c.delete("/api/adapt", headers=FETCH)
    assert upload(c, fixture_photo(), route="/api/calibration").status_code == 200


def test_the_calibration_command_matches_the_vision_cli(tmp_path):
    from webapp.adapt import AdaptJob, calibration_command

    cmd = calibration_command(tmp_path / "calibration" / "photo.jpg", tmp_path / "models")
    assert cmd[1:] == ["-m", "vision", "adapt", "--calibration", str(tmp_path / "calibration" / "photo.jpg"),
                       "--models", str(tmp_path / "models")]
    source = (Path(__file__).resolve().parent.parent / "training" / "adapt.py").read_text(encoding="utf-8")
    assert 'src.add_argument("--calibration"' in source
    say = [sys.executable, "-c", "import sys; print(sys.argv[1])"]
    job = AdaptJob(tmp_path / "adapt.log", [*say, "folder"], calibration=[*say, "calibration"], missing=list)
    for source in ("calibration", "folder"):
        job.start(source)
        job.wait(20)
        assert job.log_tail() == f"{source}\n" and job.source == source
