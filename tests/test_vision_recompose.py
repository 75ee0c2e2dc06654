"""training/recompose.py: a calibration photo's tiles laid out again, for tuning the detector."""
from __future__ import annotations

import numpy as np

from training.evaluate import iou_matrix
from training.recompose import recomposed_photos, table_without_tiles


def calibration_like(rng):
    img = np.full((300, 400, 3), (40, 120, 40), np.uint8)
    boxes = []
    for r in range(3):
        for c in range(6):
            x0, y0 = 20 + c * 60, 20 + r * 90
            colour = rng.integers(150, 255, 3).tolist()
            img[y0:y0 + 70, x0:x0 + 50] = colour
            boxes.append([x0, y0, x0 + 50, y0 + 70])
    return img, np.array(boxes, np.float32)


def test_tiles_are_painted_out_of_the_table():
    img, boxes = calibration_like(np.random.default_rng(0))
    table = table_without_tiles(img, boxes)
    assert np.abs(table[55, 45].astype(int) - (40, 120, 40)).max() < 25  # a tile's middle is felt again


def test_new_layouts_keep_every_tile_and_its_pixels():
    img, boxes = calibration_like(np.random.default_rng(1))
    photos = recomposed_photos(img, boxes, 5, seed=3)
    assert len(photos) == 5 and photos[0][0] is img and len(photos[0][1]) == len(boxes)
    for out, placed in photos[1:]:
        assert out.shape == img.shape and 12 <= len(placed) <= len(boxes)
        assert (placed[:, :2] >= 0).all() and (placed[:, 2] <= 400).all() and (placed[:, 3] <= 300).all()
        iou = iou_matrix(placed, placed) - np.eye(len(placed))
        assert iou.max() < 0.05  # tiles side by side, never on top of each other
        x0, y0, x1, y1 = placed[0].astype(int)
        assert out[(y0 + y1) // 2, (x0 + x1) // 2].min() >= 140  # a tile's colour, not the felt
    # another layout each time
    assert not np.array_equal(photos[1][1], photos[2][1])
