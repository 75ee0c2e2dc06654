"""A camera attached to the machine (OpenCV VideoCapture), shared by every viewer.

Opened on first use and kept; a read that fails releases it so a re-plugged camera is found
again. Streams are limited (each holds a server thread for as long as it is watched).
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager

from .camera_sources import opencv_camera
from .errors import ApiError

NO_CAMERA = "no camera attached"
NOT_ANSWERING = "the camera is not answering; check its cable, or restart the server"
MAX_STREAMS = 2
FRAME_INTERVAL = 0.1  # at most ~10 frames a second to each viewer
# A read can stall for good (a USB camera half unplugged, libcamera stuck): the requests behind
# it give up after this long instead of each holding one of the server's few threads forever.
READ_WAIT = 3.0
# A stream outlives the request that checked its PIN: whether its viewer may still watch is asked
# again this often (a locked phone loses the picture within a second, at one small query a second).
ALLOWED_EVERY = 1.0


class Camera:
    def __init__(self, index: int, opener=opencv_camera):
        self.index = index
        self._opener = opener
        self._lock = threading.Lock()
        self._capture = None
        self.streams = threading.BoundedSemaphore(MAX_STREAMS)

    @contextmanager
    def _turn(self):
        """The camera to this request alone; 503 when a read before it does not end."""
        if not self._lock.acquire(timeout=READ_WAIT):
            raise ApiError(503, NOT_ANSWERING, code="camera_not_answering")
        try:
            yield
        finally:
            self._lock.release()

    def _open(self):
        if self._capture is None:
            capture = self._opener(self.index)
            if capture is None or not capture.isOpened():
                if capture is not None:
                    capture.release()
                raise ApiError(404, NO_CAMERA, code="no_camera")
            self._capture = capture
        return self._capture

    def attached(self) -> bool:
        """Whether a camera opens (kept open for the frames that follow); never raises."""
        try:
            with self._turn():
                self._open()
            return True
        except (ApiError, ImportError, OSError):
            return False

    def frame(self):
        """One BGR frame; 404 when no camera opens or it stops giving frames, 503 when it hangs."""
        with self._turn():
            capture = self._open()
            ok, image = capture.read()
            if not ok or image is None:
                capture.release()
                self._capture = None
                raise ApiError(404, NO_CAMERA, code="no_camera")
            return image

    def jpeg(self) -> bytes:
        from .imaging import jpeg_bytes
        return jpeg_bytes(self.frame(), quality=80)

    def mjpeg(self, first: bytes, allowed=lambda: True):
        """multipart/x-mixed-replace parts, starting with an already-read frame, until the camera
        fails or `allowed()` says the viewer may no longer watch (asked at most every ALLOWED_EVERY s)."""
        try:
            frame = first
            asked = time.monotonic()
            while True:
                yield b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(frame)).encode() \
                    + b"\r\n\r\n" + frame + b"\r\n"
                time.sleep(FRAME_INTERVAL)
                if time.monotonic() - asked >= ALLOWED_EVERY:
                    if not allowed():
                        return
                    asked = time.monotonic()
                try:
                    frame = self.jpeg()
                except ApiError:
                    return
        finally:
            self.streams.release()
