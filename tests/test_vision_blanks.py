"""A blank the colour of the photo's faces is a 白板, not a back (vision/blanks.py)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.blanks import BACK, DEFAULTS, WHITE, blank_faces, face_colours

ROOT = Path(__file__).resolve().parent.parent
RED = (30, 30, 170)  # BGR: a red body
GREEN = (40, 120, 40)


def tile(colour, ink: bool) -> np.ndarray:
    """A stored crop (96 px, box + margin) of a tile of colour on a grey table, light ink or blank."""
    crop = np.full((96, 96, 3), 120, np.uint8)
    crop[14:82, 14:82] = colour
    if ink:
        cv2.line(crop, (30, 48), (66, 48), (230, 230, 230), 3)
    return crop


def read(tops: list[int], p: float = 0.6) -> np.ndarray:
    """Class probabilities whose top class per row is tops, at p, the rest on 白板 or a back."""
    out = np.zeros((len(tops), 43), np.float32)
    for i, c in enumerate(tops):
        out[i, c] = p
        out[i, WHITE if c == BACK else BACK] = 1 - p
    return out


def test_a_back_the_colour_of_the_faces_is_read_white():
    crops = np.stack([tile(RED, True)] * 4 + [tile(RED, False)])
    out = blank_faces(crops, read([0, 9, 18, 27, BACK]), DEFAULTS)
    assert out[4].argmax() == WHITE
    assert out[4, WHITE] == pytest.approx(0.6) and out[4, BACK] == pytest.approx(0.4)  # swapped, not made up
    assert (out[:4] == read([0, 9, 18, 27, BACK])[:4]).all()


def test_a_back_of_another_colour_stays_a_back():
    crops = np.stack([tile(RED, True)] * 4 + [tile(GREEN, False)])
    assert blank_faces(crops, read([0, 9, 18, 27, BACK]), DEFAULTS)[4].argmax() == BACK


def test_a_run_of_face_coloured_blanks_stays_backs():
    # a whole-body set's face-down tiles have the faces' colour and come in runs (a concealed
    # kong, a wall): two or more face-coloured blanks are left as read; one alone is a 白板
    crops = np.stack([tile(RED, True)] * 4 + [tile(RED, False)] * 2)
    p = read([0, 9, 18, 27, BACK, BACK])
    assert (blank_faces(crops, p, DEFAULTS) == p).all()
    p[5] = read([WHITE])[0]  # one already read 白板 counts as much
    assert (blank_faces(crops, p, DEFAULTS) == p).all()
    assert (blank_faces(crops, p, {**DEFAULTS, "max_white": 2})[4:].argmax(1) == WHITE).all()


def test_without_enough_faces_or_settings_nothing_changes():
    crops = np.stack([tile(RED, True)] * 2 + [tile(RED, False)])
    p = read([0, 9, BACK])
    assert (blank_faces(crops, p, DEFAULTS) == p).all()  # two faces: no colour to trust
    crops = np.stack([tile(RED, True)] * 4 + [tile(RED, False)])
    p = read([0, 9, 18, 27, BACK])
    assert (blank_faces(crops, p, None) == p).all()
    unsure = read([0, 9, 18, 27, BACK])
    unsure[:4] = 0.0
    unsure[:4, [0, 9, 18, 27]] = np.eye(4) * 0.4
    unsure[:4, [1, 10, 19, 28]] = np.eye(4) * 0.35
    unsure[:4, BACK] = 0.25
    assert (blank_faces(crops, unsure, DEFAULTS) == unsure).all()  # faces under `sure`: no colour to trust


def test_face_colours_ignore_the_ink_and_the_margin():
    red = face_colours(np.stack([tile(RED, True)]), DEFAULTS["inset"])[0]
    plain = cv2.cvtColor(np.uint8([[RED]]), cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)
    assert np.abs(red - plain).max() <= 1


def test_the_recognizer_reads_a_red_sets_blank_as_white():
    # tests/fixtures/vision-red-blank: the classifier reads the 白板 as a back; every other tile
    # of the photo is read the same with the rule off
    from vision.model import Recognizer
    image = cv2.imread(str(ROOT / "tests" / "fixtures" / "vision-red-blank" / "red_blank.jpg"))
    rec = Recognizer(ROOT / "models")
    on = rec.recognize(image)
    rec.config["blank_faces"] = None
    off = rec.recognize(image)
    changed = [(a["cls"], b["cls"]) for a, b in zip(on, off) if a["cls"] != b["cls"]]
    assert len(on) == len(off) == 28
    assert changed == [(WHITE, BACK)]
