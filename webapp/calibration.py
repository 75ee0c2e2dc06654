"""The player's calibration photo: the 42 faces of their set laid out once each in the standard
order (vision/calibration.py), read as the app receives it, so that a wrong count is said at once,
and kept for `vision adapt --calibration` as <data>/calibration/photo.jpg.
"""
from __future__ import annotations

import json
from pathlib import Path

from .errors import ApiError
from .imaging import jpeg_bytes
from .photos import photo_id, write_atomic, write_cache

CALIBRATION_PHOTO = Path("calibration") / "photo.jpg"
READING = Path("calibration") / "reading.json"  # its 42 tiles, with the photo's hash they were read on
QUALITY = 95  # adapt learns the set's look from this photo: little JPEG loss


def adapt_pixels(data: bytes):
    """A kept calibration JPEG decoded as `vision adapt --calibration` reads it (OpenCV's
    imread, not the PIL decoder uploads go through): the pixels its tiles are found on."""
    import cv2
    import numpy as np

    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


def as_stored(image) -> tuple[bytes, object]:
    """The JPEG bytes kept and the image they decode to: the tiles are found on the decoded JPEG,
    the pixels adapt will read, so its boxes are the ones the player checked."""
    data = jpeg_bytes(image, QUALITY)
    return data, adapt_pixels(data)


def save_calibration(data_dir: Path, data: bytes, tiles: list[dict]) -> None:
    """Keep the photo and its reading; the reading names the photo's hash, so a reading that a
    full disk left behind from an earlier photo is never shown with this one."""
    write_atomic(Path(data_dir) / CALIBRATION_PHOTO, data)
    write_cache(Path(data_dir) / READING, json.dumps({"photo_sha256": photo_id(data), "tiles": tiles}).encode())


def kept_reading(data_dir: Path, data: bytes) -> list[dict] | None:
    """The kept reading of the kept photo `data`; None where it is missing, damaged or of another photo."""
    try:
        kept = json.loads((Path(data_dir) / READING).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("photo_sha256") != photo_id(data) or not isinstance(kept.get("tiles"), list):
        return None
    return kept["tiles"]


def calibration_photo(data_dir: Path) -> bytes:
    """The kept calibration photo's JPEG; 404 before one was sent."""
    try:
        return (Path(data_dir) / CALIBRATION_PHOTO).read_bytes()
    except FileNotFoundError:
        raise ApiError(404, "no calibration photo yet; send one with POST /api/calibration first",
                       code="no_calibration") from None


def has_calibration(data_dir: Path) -> bool:
    return (Path(data_dir) / CALIBRATION_PHOTO).is_file()
