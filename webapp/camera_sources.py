"""Where frames of the machine's own camera come from, chosen by the CAMERA setting.

Each opener takes the camera index and returns an object with OpenCV VideoCapture's
`isOpened()`, `read() -> (ok, BGR image)` and `release()`, so webapp.camera works with any.

- `opencv`: a USB webcam (V4L2 on Linux) through OpenCV.
- `picamera2`: the Raspberry Pi Camera Module through libcamera (Debian/Pi OS package
  python3-picamera2, imported only when chosen; the index picks among several modules).
- `auto` (default): picamera2 when it is installed and sees a module, else OpenCV.
"""
from __future__ import annotations

import importlib
import logging

log = logging.getLogger("webapp")
FRAME_SIZE = (1280, 960)  # 4:3 at a size the recognizer reads well, cheap to encode on a Pi


class CameraSettingError(ValueError):
    pass


def opencv_camera(index: int):
    import cv2
    return cv2.VideoCapture(index)


class Picamera2Capture:
    """picamera2 behind the VideoCapture calls webapp.camera makes."""

    def __init__(self, picamera2_module, index: int):
        self._camera = None
        if picamera2_module is None:
            log.warning("CAMERA=picamera2 but the picamera2 package is missing (Raspberry Pi OS: sudo apt "
                        "install python3-picamera2, with a venv made with --system-site-packages; see README)")
            return
        try:
            camera = picamera2_module.Picamera2(index)
            # RGB888 is stored B, G, R per pixel: the order OpenCV and the recognizer use
            camera.configure(camera.create_video_configuration(main={"size": FRAME_SIZE, "format": "RGB888"}))
            camera.start()
            self._camera = camera
        except Exception as exc:  # no module attached, camera busy, libcamera error
            log.warning("picamera2 camera %s did not start: %s", index, exc)

    def isOpened(self) -> bool:  # noqa: N802 (VideoCapture's name)
        return self._camera is not None

    def read(self):
        if self._camera is None:
            return False, None
        try:
            return True, self._camera.capture_array("main")
        except Exception as exc:
            log.warning("picamera2 frame failed: %s", exc)
            return False, None

    def release(self) -> None:
        if self._camera is not None:
            try:
                self._camera.stop()
                self._camera.close()
            finally:
                self._camera = None


def _picamera2():
    try:
        return importlib.import_module("picamera2")
    except ImportError:
        return None


def picamera2_camera(index: int):
    """The Camera Module; without picamera2 it stays closed (the app then says no camera)."""
    return Picamera2Capture(_picamera2(), index)


def auto_camera(index: int):
    """The Camera Module when picamera2 is there and one is attached, else a USB webcam."""
    module = _picamera2()
    if module is not None:
        capture = Picamera2Capture(module, index)
        if capture.isOpened():
            return capture
    return opencv_camera(index)


OPENERS = {"auto": auto_camera, "opencv": opencv_camera, "picamera2": picamera2_camera}


def camera_opener(source: str):
    """The opener for a CAMERA setting; a wrong name is refused at start, not at the first frame."""
    try:
        return OPENERS[source.strip().lower()]
    except KeyError:
        raise CameraSettingError(f"CAMERA={source!r}: choose one of {', '.join(OPENERS)}") from None
