"""The player's calibration photo: the 42 faces of their set laid out once each in the standard
order (vision/calibration.py), read as the app receives it, so that a wrong count is said at once,
and kept for `vision adapt --calibration` as <data>/calibration/photo.jpg.
"""
from __future__ import annotations

from pathlib import Path

from .errors import ApiError
from .imaging import jpeg_bytes
from .photos import write_atomic

CALIBRATION_PHOTO = Path("calibration") / "photo.jpg"
QUALITY = 95  # adapt learns the set's look from this photo: little JPEG loss


def as_stored(image) -> tuple[bytes, object]:
    """The JPEG bytes kept and the image they decode to: the tiles are found on the decoded JPEG,
    the pixels adapt will read, so its boxes are the ones the player checked."""
    import cv2
    import numpy as np

    data = jpeg_bytes(image, QUALITY)
    return data, cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


def save_calibration(data_dir: Path, data: bytes) -> None:
    write_atomic(Path(data_dir) / CALIBRATION_PHOTO, data)


def calibration_photo(data_dir: Path) -> bytes:
    """The kept calibration photo's JPEG; 404 before one was sent."""
    try:
        return (Path(data_dir) / CALIBRATION_PHOTO).read_bytes()
    except FileNotFoundError:
        raise ApiError(404, "no calibration photo yet; send one with POST /api/calibration first",
                       code="no_calibration") from None


def has_calibration(data_dir: Path) -> bool:
    return (Path(data_dir) / CALIBRATION_PHOTO).is_file()
