"""A blank the colour of the photo's faces is a 白板, not a back (vision/blanks.py)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.blanks import BACK, DEFAULTS, WHITE, beside, blank_faces, face_colours

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


# a hand's row of tiles 30 x 40 on a 100 x 300 photo, boxes for blank_faces' layout rule
def row(n: int, x0: float = 0.0, y0: float = 0.0) -> np.ndarray:
    return np.array([[x0 + 32 * i, y0, x0 + 32 * i + 30, y0 + 40] for i in range(n)], float)


def test_beside_finds_neighbours_in_a_row_or_a_column():
    boxes = np.vstack([row(2), [[100, 0, 130, 40], [0, 45, 30, 85], [0, 200, 30, 240]]])
    every = np.ones(5, bool)
    assert beside(boxes, every, every, 0.25).tolist() == [True, True, False, True, False]
    # only those asked about, beside only those given
    assert beside(boxes, every, np.array([True, False, False, False, False]), 0.25).tolist() == \
        [False, True, False, True, False]


def test_two_blanks_each_in_a_row_of_faces_are_white():
    # a whole-body red hand holding two 白板, each between faces: read backs before (the count)
    crops = np.stack([tile(RED, True)] * 4 + [tile(RED, False)] * 2)
    p = read([0, 9, BACK, 18, 27, BACK])
    # two rows: faces 0, 1 then a blank; a blank then faces 3, 4. Each blank is beside faces and
    # beside no other blank
    boxes = np.vstack([row(2), row(1, 0, 60), row(2, 32, 60), row(1, 64)])
    assert (blank_faces(crops, p, DEFAULTS, boxes)[[2, 5]].argmax(1) == WHITE).all()
    assert (blank_faces(crops, p, {**DEFAULTS, "run_gap": None}, boxes) == p).all()  # the count alone
    assert (blank_faces(crops, p, DEFAULTS) == p).all()  # no boxes: the count alone


def test_blanks_side_by_side_or_beside_nothing_stay_backs():
    crops = np.stack([tile(RED, True)] * 4 + [tile(RED, False)] * 2)
    p = read([0, 9, 18, 27, BACK, BACK])
    run = row(6)  # the two blanks side by side at the row's end: face-down tiles
    assert (blank_faces(crops, p, DEFAULTS, run) == p).all()
    scattered = np.vstack([row(4), [[200, 0, 230, 40], [260, 60, 290, 100]]])  # shuffled face down
    assert (blank_faces(crops, p, DEFAULTS, scattered) == p).all()
