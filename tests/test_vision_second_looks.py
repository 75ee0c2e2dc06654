"""The classifier's second looks (vision/model.py Recognizer._classify): a crop it is unsure of is
read again upside down and at its box grown and shrunk (inference.tta_scales), in one run, and the
looks are averaged; a sure crop is read once."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.crops import CROP_STORE, to_input

MODELS = Path(__file__).resolve().parent.parent / "models"


def test_to_input_scale_grows_or_shrinks_the_box_about_its_centre():
    crop = np.zeros((CROP_STORE, CROP_STORE, 3), np.uint8)
    crop[28:68, 28:68] = 255  # a light square in the middle of the stored crop
    light = [float((to_input(crop, out=64, scale=s) > 127).mean()) for s in (0.8, 1.0, 1.25)]
    assert light[0] > light[1] > light[2]  # a tighter box fills more of the input
    assert np.array_equal(to_input(crop, out=64), to_input(crop, out=64, scale=1.0))


class Session:
    """A classifier stand-in: class logits from each input's mean brightness (bright: class 1,
    dark: class 2), so that each framing reads a little differently; records its batches."""

    def __init__(self, sure: bool):
        self.sure, self.batches = sure, []

    def run(self, names, feeds):
        x = feeds["image"]
        self.batches.append(x)
        n, bright = len(x), x.mean((1, 2, 3))
        cls = np.zeros((n, 43), np.float32)
        cls[:, 1], cls[:, 2] = (50 if self.sure else 2) * bright, (50 if self.sure else 2) * (1 - bright)
        return [cls, np.tile(np.float32([3, 0, 0, 0]), (n, 1)), np.zeros((n, 4), np.float32)]


@pytest.fixture(scope="module")
def recognizer():
    from vision.model import Recognizer

    return Recognizer(MODELS, threads=1)


def crops_with(shares: list[int]) -> np.ndarray:
    crops = np.zeros((len(shares), CROP_STORE, CROP_STORE, 3), np.uint8)
    for c, half in zip(crops, shares):
        c[48 - half:48 + half, 48 - half:48 + half] = 230
    return crops


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@pytest.mark.parametrize("scales", [[], [0.9, 1.1]])
def test_unsure_crops_get_every_look_in_one_run(recognizer, monkeypatch, scales):
    session = Session(sure=False)
    monkeypatch.setattr(recognizer, "classifier", session)
    monkeypatch.setattr(recognizer, "classifier_first", None)
    monkeypatch.setitem(recognizer.config, "tta_scales", scales)
    p_cls, p_rot, _ = recognizer._classify(crops_with([20, 30]))
    first, second = session.batches
    assert len(first) == 2 and len(second) == 2 * (1 + len(scales))  # both crops, every other look at once
    looks = [first] + [second[2 * k:2 * k + 2] for k in range(1 + len(scales))]
    reads = [_softmax(Session(sure=False).run(None, {"image": x})[0]) for x in looks]
    assert p_cls == pytest.approx(np.mean(reads, axis=0), abs=1e-6)
    assert np.array_equal(looks[1], first[:, :, ::-1, ::-1])  # the second look is upside down
    if scales:  # the grown box shows more of the dark table around the light tile
        assert looks[2].mean() > first.mean() > looks[3].mean()
    # the upside-down look's rotations are turned back: an upright tile stays upright
    assert p_rot.argmax(1).tolist() == [0, 0]


def test_a_sure_crop_is_read_once(recognizer, monkeypatch):
    session = Session(sure=True)
    monkeypatch.setattr(recognizer, "classifier", session)
    monkeypatch.setattr(recognizer, "classifier_first", None)
    monkeypatch.setitem(recognizer.config, "tta_scales", [0.9, 1.1])
    recognizer._classify(crops_with([4, 48]))  # a dark crop and a light one: both sure
    assert len(session.batches) == 1


def test_the_shipped_settings_take_second_looks_at_two_framings():
    import json

    inference = json.loads((MODELS / "recognizer.json").read_text())["inference"]
    assert inference["tta"] and inference["tta_below"] == 0.9 and inference["tta_scales"] == [0.9, 1.1]
