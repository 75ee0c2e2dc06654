"""Image decoding and encoding for the web app, on top of vision.image_io (imported lazily:
OpenCV and PIL are heavy, and the game pages never need them)."""
from __future__ import annotations

from .errors import ApiError

BROWSER_TYPES = ((b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG\r\n\x1a\n", "image/png"))


def load(data: bytes, max_side: int | None = 4096):
    """Bytes -> BGR array; a bad, huge or corrupt image is a 400 with image_io's message."""
    from vision.image_io import ImageError, load_image
    try:
        return load_image(data, max_side=max_side)
    except ImageError as exc:
        raise ApiError(400, f"cannot read the photo: {exc}") from None


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
