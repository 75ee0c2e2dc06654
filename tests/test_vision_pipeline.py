"""vision.classes, vision.pipeline and vision.draw: class notation, glue, annotation."""
from __future__ import annotations

import numpy as np
import pytest

from vision.classes import (BACK, CLASS_NAMES, DEFAULT_TILESET, NUM_CLASSES, ZH_NAMES, class_to_tile,
                            number_reading, printed_flower_tile, tile_notation, tileset_names)
from vision.draw import draw_tiles
from vision.pipeline import recognize_image, to_tiles


def test_43_classes_in_dataset_order():
    assert NUM_CLASSES == len(CLASS_NAMES) == len(ZH_NAMES) == 43
    assert CLASS_NAMES[:3] == ("1m", "2m", "3m") and CLASS_NAMES[9] == "1p" and CLASS_NAMES[18] == "1s"
    assert CLASS_NAMES[27:34] == ("east", "south", "west", "north", "red", "green", "white")
    assert CLASS_NAMES[34:] == ("spring", "summer", "autumn", "winter", "plum", "orchid",
                                "chrysanthemum", "bamboo", "back")


def test_notation_under_each_tileset():
    assert DEFAULT_TILESET == "printed" and tileset_names() == ["hk-index", "printed", "taiwan"]
    assert tile_notation("printed") == tile_notation("taiwan")  # where no number can be read
    taiwan = tile_notation("taiwan")
    assert taiwan[:9] == tuple(f"{n}m" for n in range(1, 10))
    assert taiwan[27:34] == ("E", "S", "W", "N", "C", "F", "P")
    assert taiwan[34:] == ("1f", "2f", "3f", "4f", "5f", "6f", "8f", "7f", BACK)  # 菊8 竹7
    assert tile_notation("hk-index")[38:42] == ("5f", "6f", "7f", "8f")          # 菊7 竹8
    assert class_to_tile(np.int64(41)) == "7f" and class_to_tile(41, "hk-index") == "8f"


@pytest.mark.parametrize("bad", [-1, 43, 2.5, "3", True])
def test_bad_class_index(bad):
    with pytest.raises(ValueError, match="class index"):
        class_to_tile(bad)


def test_unknown_tileset():
    with pytest.raises(ValueError, match="unknown tile set 'mars'; known: hk-index, printed, taiwan"):
        tile_notation("mars")


def test_to_tiles_makes_json_ready_values():
    dets = [{"cls": np.int64(31), "box": np.array([1.26, 2, 30, 40], np.float32),
             "confidence": np.float32(0.87654), "rotation": "sideways"}]
    assert to_tiles(dets) == [{"tile": "C", "box": [1.3, 2.0, 30.0, 40.0], "confidence": 0.8765,
                               "rotation": "sideways"}]
    with pytest.raises(ValueError, match="recognizer result 0"):
        to_tiles([{"box": [0, 0, 1, 1]}])


def flower(cls, number=None, sure=0.9):
    det = {"cls": cls, "box": [0, 0, 30, 40], "confidence": 0.8, "rotation": "upright"}
    if number is not None:
        det.update(number=number, number_confidence=sure)
    return det


def test_printed_numbers_decide_the_flower_tile():
    # 菊 printing 3 is 7f and 竹 printing 4 is 8f, whatever the tile set's picture order
    assert [t["tile"] for t in to_tiles([flower(40, 3), flower(41, 4), flower(36, 3), flower(38, 1)])] == \
        ["7f", "8f", "3f", "5f"]
    assert printed_flower_tile(35, 2) == "2f" and number_reading("printed") == 0.6


def test_printed_numbers_fall_back_and_yield_to_a_chosen_set():
    # unsure, missing or impossible readings: the taiwan numbers (菊8 竹7)
    assert [t["tile"] for t in to_tiles([flower(40, 3, sure=0.5), flower(41), flower(40, 7)])] == ["8f", "7f", "8f"]
    # a set the player chose overrides what is printed
    assert [t["tile"] for t in to_tiles([flower(40, 3), flower(41, 4)], "taiwan")] == ["8f", "7f"]
    assert number_reading("taiwan") is None
    with pytest.raises(ValueError):
        printed_flower_tile(12, 3)


class Fixed:
    def __init__(self, dets):
        self.dets = dets

    def recognize(self, image):
        return self.dets


def test_recognize_image_reads_the_hand():
    dets = [{"cls": c, "box": [10 + 42 * k, 50, 50 + 42 * k, 106], "confidence": 0.9,
             "rotation": "upright"} for k, c in enumerate([0, 1, 2, 9, 9])]
    result = recognize_image(np.zeros((200, 400, 3), np.uint8), Fixed(dets))
    assert result["tileset"] == "printed"
    assert result["layout"]["concealed"] == ["1m", "2m", "3m", "1p", "1p"]


def test_draw_marks_boxes_and_keeps_the_input():
    image = np.zeros((200, 400, 3), np.uint8)
    tiles = [{"tile": "1m", "box": [10, 50, 50, 106], "confidence": 0.9, "rotation": "upright"},
             {"tile": "C", "box": [52, 50, 92, 106], "confidence": 0.2, "rotation": "upright"}]
    from vision.layout import build_layout
    drawn = draw_tiles(image, tiles, build_layout(tiles))
    assert drawn.shape == image.shape and image.max() == 0
    assert drawn[106, 30].any() and drawn[80, 52].any()  # box edges painted


def row_of_tiles(n: int, width: int, top: float) -> list[dict]:
    """`n` tiles side by side across most of a photo `width` px wide, as a player photographs a hand."""
    pitch = 0.9 * width / n
    return [{"tile": ["8m", "1s", "7p", "E"][k % 4], "box": [0.05 * width + k * pitch, top, 0.05 * width + (k + 0.95) * pitch,
             top + 1.4 * pitch], "confidence": 0.9, "rotation": "upright"} for k in range(n)]


@pytest.mark.parametrize("width", [640, 1280, 4032])
def test_draw_labels_read_on_a_phone(width):
    """A label's text stands at least 9.5 px tall when the photo is shown 360 px wide (a phone),
    whatever the photo's size and however small its tiles: 5 px labels sized by each box were unreadable."""
    import cv2
    from vision.draw import FONT, label_font
    scale, stroke = label_font(width)
    (_, height), _ = cv2.getTextSize("8m?", FONT, scale, stroke)
    assert height * 360 / width >= 9.5


@pytest.mark.parametrize("n", [14, 17])
def test_draw_labels_leave_a_row_of_tiles_uncovered(n):
    """A row of 14 to 17 tiles: every label stands above the row, clear of the other labels' text,
    the tiles' faces untouched; labels too wide for their tile alternate lanes."""
    from vision.draw import place_labels
    from vision.layout import build_layout
    image = np.zeros((480, 640, 3), np.uint8)
    tiles = row_of_tiles(n, 640, 240)
    drawn = draw_tiles(image, tiles, build_layout(tiles))
    for t in tiles:
        x1, y1, x2, y2 = (int(round(v)) for v in t["box"])
        assert not drawn[y1 + 3:y2 - 2, x1 + 3:x2 - 2].any()  # inside the box line, nothing drawn
    assert drawn[:240].any() and not drawn[int(tiles[0]["box"][3]) + 2:].any()  # the labels stand above
    boxes = [tuple(int(round(v)) for v in t["box"]) for t in tiles]
    rects = place_labels(boxes, [(52, 34)] * n, image.shape, slack=4)  # "8m" on a photo 640 px wide
    inner = [(r[0] + 4, r[1] + 4, r[2] - 4, r[3] - 4) for r in rects]
    apart = lambda a, b: a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    assert all(apart(a, b) for i, a in enumerate(inner) for b in inner[i + 1:])
    assert all(r[3] <= 240 for r in rects) and len({r[1] for r in rects}) == 2  # two lanes, above


def test_draw_labels_a_tile_at_the_photos_top_below_it():
    from vision.draw import place_labels
    rects = place_labels([(100, 0, 140, 56)], [(44, 30)], (200, 400, 3))
    assert rects == [(98, 56, 142, 86)]


def test_draw_asks_about_the_tiles_read_in_doubt_as_the_page_does():
    """A '?' (and the flag colour) on a tile read unsure, none on a sure one that only fits no
    group; a layout without flag_reasons (a reading stored before them) marks every flagged tile."""
    from vision.draw import FLAGGED
    from vision.layout import build_layout
    image = np.zeros((320, 400, 3), np.uint8)
    tiles = [{"tile": t, "box": [10 + 42 * k, 50, 50 + 42 * k, 106], "confidence": 0.9, "rotation": "upright"}
             for k, t in enumerate(["1m", "2m", "3m", "4m", "5m", "6m", "7m"])]
    tiles += [{"tile": "1m", "box": [10, 200, 50, 256], "confidence": 0.95, "rotation": "upright"},  # fits no group
              {"tile": "5p", "box": [60, 200, 100, 256], "confidence": 0.2, "rotation": "upright"}]  # and read unsure
    layout = build_layout(tiles)
    assert layout["flag_reasons"] == {"7": ["unplaced"], "8": ["low_confidence", "unplaced"]}
    assert layout["doubted"] == [8]  # the page's editor marks what the server names
    flag = np.array(FLAGGED, np.uint8)
    def flagged_at(img, x, y):  # the box's left edge, in the flag colour
        return bool((img[y, x - 1:x + 2] == flag).all(-1).any())
    drawn = draw_tiles(image, tiles, layout)
    assert not flagged_at(drawn, 10, 240) and flagged_at(drawn, 60, 240)
    old = draw_tiles(image, tiles, {k: v for k, v in layout.items() if k not in ("flag_reasons", "doubted")})
    assert flagged_at(old, 10, 240) and flagged_at(old, 60, 240)
