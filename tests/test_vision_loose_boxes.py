"""A loose box round a lone tile, drawn tight to the tile (vision/loose_boxes.py, Recognizer.read)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.loose_boxes import DEFAULTS, edges_like_outside, lone, tight_box, tightened

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
RED, GREY, WHITE = (40, 40, 190), (120, 120, 120), (235, 235, 235)
UNSURE = 0.6  # a detector score under max_score


def table(colour=GREY, size=(240, 320)):
    rng = np.random.default_rng(0)  # felt is never one flat colour
    img = np.full((*size, 3), colour, np.float32) + rng.normal(0, 3, (*size, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def boxes(*rows):
    return np.array(rows, np.float32)


def test_a_loose_box_round_a_red_tile_on_grey_felt_is_drawn_tight():
    img = table()
    img[80:160, 100:150] = RED
    out, moved = tightened(img, boxes([80, 62, 170, 178]), UNSURE, DEFAULTS)
    assert moved.tolist() == [True]
    assert out[0].tolist() == pytest.approx([100, 80, 150, 160], abs=1)


def test_a_box_the_detector_is_sure_of_stays():
    img = table()
    img[80:160, 100:150] = RED
    out, moved = tightened(img, boxes([80, 62, 170, 178]), np.array([DEFAULTS["max_score"]]), DEFAULTS)
    assert not moved.any() and out[0].tolist() == [80, 62, 170, 178]


def test_a_tilted_tile_is_drawn_tight_round_its_corners():
    img = table()
    corners = cv2.boxPoints(((160, 120), (50, 80), 20)).astype(np.int32)
    cv2.fillPoly(img, [corners], RED)
    [(x1, y1, x2, y2)], moved = tightened(img, boxes([115, 60, 205, 180]), UNSURE, DEFAULTS)
    assert moved[0]
    xs, ys = corners[:, 0], corners[:, 1]
    assert (x1, y1, x2, y2) == pytest.approx((xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), abs=2)


def test_a_fitting_box_has_tile_inside_its_edges_and_a_loose_one_table():
    img = table()
    img[80:160, 100:150] = RED
    assert not edges_like_outside(img, (100, 80, 150, 160), DEFAULTS["edge_like"])
    assert edges_like_outside(img, (80, 62, 170, 178), DEFAULTS["edge_like"])
    # a neighbour's red just outside one edge of a loose box is unlike the table inside it
    img[62:178, 171:200] = RED
    assert not edges_like_outside(img, (80, 62, 170, 178), DEFAULTS["edge_like"])


def test_a_box_that_fits_stays():
    img = table()
    img[80:160, 100:150] = RED
    out, moved = tightened(img, boxes([97, 77, 153, 163]), UNSURE, DEFAULTS)
    assert not moved.any() and out[0].tolist() == [97, 77, 153, 163]


def test_a_circle_on_a_face_the_colour_of_the_table_is_no_tile():
    # a 1筒 of a white set on a white cloth: only its circle stands out, solid and round
    img = table(WHITE)
    cv2.circle(img, (160, 120), 28, (60, 60, 200), -1)
    box, none = [125, 70, 195, 170], np.zeros((0, 4))
    assert tight_box(img, box, none, DEFAULTS) is None
    # either test alone refuses it: a circle is square, and fills 0.79 of its square
    assert tight_box(img, box, none, {**DEFAULTS, "rect_fill": 0.0}) is None
    assert tight_box(img, box, none, {**DEFAULTS, "max_aspect": 1.0}) is None
    assert tight_box(img, box, none, {**DEFAULTS, "rect_fill": 0.0, "max_aspect": 1.0}) is not None


def test_a_character_on_a_face_the_colour_of_the_table_is_no_tile():
    img = table(WHITE)
    cv2.putText(img, "8", (135, 150), cv2.FONT_HERSHEY_SIMPLEX, 2.6, (30, 30, 30), 12)
    box, none = [125, 80, 200, 175], np.zeros((0, 4))
    assert tight_box(img, box, none, DEFAULTS) is None
    assert tight_box(img, box, none, {**DEFAULTS, "rect_fill": 0.0, "max_aspect": 1.0}) is not None


def test_a_box_at_the_photos_edge_or_too_small_stays():
    img = table()
    img[0:80, 100:150] = RED
    assert tight_box(img, [80, 0, 170, 98], np.zeros((0, 4)), DEFAULTS) is None
    img = table()
    img[100:108, 100:105] = RED
    assert tight_box(img, [96, 96, 108, 112], np.zeros((0, 4)), DEFAULTS) is None


def test_a_box_another_overlaps_is_not_lone():
    overlapping = boxes([100, 80, 150, 160], [140, 80, 190, 160])  # 20% of each other
    assert lone(overlapping, DEFAULTS["overlap"]).tolist() == [False, False]
    touching = boxes([100, 80, 150, 160], [149, 80, 199, 160], [260, 80, 310, 160])
    assert lone(touching, DEFAULTS["overlap"]).tolist() == [True, True, True]


def test_a_row_of_tiles_boxed_tight_stays():
    img = table()
    row = []
    for k in range(4):
        img[80:160, 60 + 52 * k:110 + 52 * k] = RED
        row.append([60 + 52 * k, 80, 110 + 52 * k, 160])
    out, moved = tightened(img, boxes(*row), np.full(len(row), UNSURE), DEFAULTS)
    assert not moved.any() and out.tolist() == row


def test_other_tiles_round_a_box_are_no_table():
    # a red tile with neighbours close on both sides: the ring left is mostly tiles, so the
    # table's colour is taken only from what no other box covers
    img = table()
    img[80:160, 100:150] = RED
    img[80:160, 40:90] = RED
    img[80:160, 160:210] = RED
    others = boxes([38, 78, 92, 162], [158, 78, 212, 162])
    t = tight_box(img, [92, 70, 158, 170], others, DEFAULTS)
    assert t is not None and t.tolist() == pytest.approx([100, 80, 150, 160], abs=1)


def test_settings_none_changes_nothing():
    img = table()
    img[80:160, 100:150] = RED
    b = boxes([80, 62, 170, 178])
    out, moved = tightened(img, b, UNSURE, None)
    assert not moved.any() and out.tolist() == b.tolist()


@pytest.mark.skipif(not (MODELS / "detector.onnx").exists(), reason="needs the shipped models")
def test_a_drawn_photo_of_loose_red_tiles_reads_every_tile(shipped_and_changed):
    # A drawn photo of a red-bodied set lying loose (tests/fixtures/vision-loose-boxes): the
    # detector boxes a lone tile with table all round, so loosely that the tile is missed at IoU
    # 0.5 and its box is extra. Drawn tight, every tile is found and nothing is extra.
    shipped, loose = shipped_and_changed(ROOT / "tests" / "fixtures" / "vision-loose-boxes", "tighten", None)
    assert shipped["labelled_tiles"] == 28 and shipped["tiles_found"] == 1.0 and shipped["extras"] == 0
    assert loose["tiles_found"] < 1.0 and loose["extras"] >= 1
