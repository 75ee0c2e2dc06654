"""Shared helpers for tests/test_app_*.py: an app on a temporary data folder and a fake recognizer."""
from __future__ import annotations

from pathlib import Path

import pytest

FIXTURE_IMAGES = Path(__file__).resolve().parent / "fixtures" / "vision" / "images"
FETCH = {"X-Requested-With": "fetch"}

# class indices: 0-8 = 1m-9m, 9-17 = 1p-9p, 18-26 = 1s-9s
READY_16 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 22]   # 123456789m 123456p 5s: waits on 5s


def row(classes: list[int], apart: list[int] = (), unsure: tuple = ()) -> list[dict]:
    """Detections for tiles standing in one row, 34 px wide; `apart` tiles set apart at the right;
    tiles at the `unsure` positions get a low confidence."""
    dets = [{"cls": c, "box": [10 + 36 * k, 300, 44 + 36 * k, 346], "rotation": "upright",
             "confidence": 0.4 if k in unsure else 0.95} for k, c in enumerate(classes)]
    x = 10 + 36 * len(classes) + 30
    for c in apart:
        dets.append({"cls": c, "box": [x, 300, x + 34, 346], "confidence": 0.95, "rotation": "upright"})
        x += 36
    return dets


class FakeRecognizer:
    """Stands in for vision.model.Recognizer: fixed detections, and it remembers what it saw."""

    def __init__(self, detections: list[dict]):
        self.detections = detections
        self.shapes: list[tuple] = []

    def recognize(self, image):
        self.shapes.append(image.shape)
        return [dict(d) for d in self.detections]


def fixture_photo() -> bytes:
    return sorted(FIXTURE_IMAGES.glob("*.jpg"))[0].read_bytes()


def make_app(tmp_path: Path, **config):
    from app import create_app
    settings = {"DATA_DIR": tmp_path / "data", "MODELS_DIR": tmp_path / "models", "TESTING": True}
    settings.update(config)
    return create_app(settings)


@pytest.fixture
def client(tmp_path):
    return make_app(tmp_path).test_client()
