"""Image decoding and encoding for the web app, on top of vision.image_io (imported lazily:
OpenCV and PIL are heavy, and the game pages never need them)."""
from __future__ import annotations

import threading
from contextlib import contextmanager

from .errors import ApiError

# Bytes that all the photo decodes running at once may take (vision.image_io.decode_bytes). The
# largest photo allowed (50 megapixels, RGBA) costs 400 MB alone and then decodes by itself;
# phone photos (JPEG, decoded at 1/2-1/8 scale) cost a few MB and run side by side. With the
# two inference slots beside it this keeps the server under 1 GiB whatever is sent.
DECODE_BUDGET = 420 * 2**20


class DecodeBudget:
    def __init__(self, total: int):
        self.total = total
        self._used = 0
        self._free = threading.Condition()

    @contextmanager
    def __call__(self, cost: int):
        cost = min(cost, self.total)  # more than the whole budget: runs alone
        with self._free:
            self._free.wait_for(lambda: self._used + cost <= self.total)
            self._used += cost
        try:
            yield
        finally:
            with self._free:
                self._used -= cost
                self._free.notify_all()


budget = DecodeBudget(DECODE_BUDGET)

BROWSER_TYPES = ((b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG\r\n\x1a\n", "image/png"))


def load(data: bytes, max_side: int | None = 4096):
    """Bytes -> BGR array; a bad, huge or corrupt image is a 400 with image_io's message."""
    from vision.image_io import ImageError, load_image
    try:
        return load_image(data, max_side=max_side, budget=budget)
    except ImageError as exc:
        raise ApiError(400, f"cannot read the photo: {exc}", code="photo_unreadable", cause=exc) from None


def jpeg_bytes(image, quality: int = 85) -> bytes:
    import cv2
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("OpenCV could not encode a JPEG")
    return buf.tobytes()


def browser_type(data: bytes) -> str | None:
    """The MIME type when a browser can show the bytes as they are (else they need converting)."""
    for magic, mime in BROWSER_TYPES:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None
