"""The CAMERA setting: a USB webcam through OpenCV, the Pi Camera Module through picamera2 (faked)."""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from tests.app_support import make_app
from webapp import camera_sources
from webapp.camera_sources import CameraSettingError, camera_opener


class FakePicamera2:
    """What webapp.camera_sources uses of picamera2.Picamera2, recording the calls."""
    instances: list = []
    attached = True

    def __init__(self, index=0):
        if not FakePicamera2.attached:
            raise IndexError("list index out of range")  # what picamera2 raises with no module attached
        self.index, self.config, self.started, self.closed = index, None, False, False
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main):
        return {"main": main}

    def configure(self, config):
        self.config = config

    def start(self):
        self.started = True

    def capture_array(self, name="main"):
        w, h = self.config["main"]["size"]
        frame = np.zeros((h, w, 3), np.uint8)
        frame[..., 0] = 255  # blue first: RGB888 is stored B, G, R
        return frame

    def stop(self):
        self.started = False

    def close(self):
        self.closed = True


@pytest.fixture
def picamera2(monkeypatch):
    FakePicamera2.instances, FakePicamera2.attached = [], True
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    return FakePicamera2


@pytest.fixture
def no_picamera2(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 -> ImportError


def test_picamera2_frames_reach_the_camera_route(tmp_path, picamera2):
    c = make_app(tmp_path, CAMERA="picamera2", CAMERA_INDEX=1).test_client()
    r = c.get("/api/camera/frame")
    assert r.status_code == 200 and r.mimetype == "image/jpeg"
    cam = picamera2.instances[0]
    assert cam.index == 1 and cam.started and cam.config["main"]["format"] == "RGB888"


def test_picamera2_capture_reads_bgr_and_releases():
    capture = camera_sources.Picamera2Capture(types.SimpleNamespace(Picamera2=FakePicamera2), 0)
    ok, frame = capture.read()
    assert ok and frame.shape == (960, 1280, 3) and frame[0, 0].tolist() == [255, 0, 0]
    capture.release()
    assert not capture.isOpened() and capture.read() == (False, None)


def test_auto_takes_the_camera_module_when_one_is_attached(picamera2):
    assert isinstance(camera_opener("auto")(0), camera_sources.Picamera2Capture)


def test_auto_falls_back_to_opencv_without_a_module_or_without_picamera2(picamera2, monkeypatch):
    opened = []
    monkeypatch.setattr(camera_sources, "opencv_camera", lambda i: opened.append(i) or "webcam")
    picamera2.attached = False
    assert camera_sources.auto_camera(2) == "webcam" and opened == [2]
    monkeypatch.setitem(sys.modules, "picamera2", None)
    assert camera_sources.auto_camera(3) == "webcam" and opened == [2, 3]


def test_picamera2_chosen_but_missing_is_no_camera_not_a_crash(tmp_path, no_picamera2):
    c = make_app(tmp_path, CAMERA="picamera2").test_client()
    r = c.get("/api/camera/frame")
    assert r.status_code == 404 and r.get_json()["code"] == "no_camera"


def test_a_wrong_camera_setting_is_refused_at_start(tmp_path):
    with pytest.raises(CameraSettingError, match="auto, opencv, picamera2"):
        make_app(tmp_path, CAMERA="webcam9")
    assert camera_opener(" OpenCV ") is camera_sources.opencv_camera
