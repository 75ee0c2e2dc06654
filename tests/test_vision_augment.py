"""Classifier augmentation: hiding a face's corner index without touching its character."""
from __future__ import annotations

import numpy as np

from training.augment import erase_corners


def _face(n=64):
    """A light face with dark ink in the middle and a dark index in every corner."""
    img = np.full((n, n, 3), 230, np.uint8)
    img[24:40, 24:40] = 20  # the big character
    for y in (6, n - 12):
        for x in (6, n - 12):
            img[y:y + 6, x:x + 6] = 20
    return img


def test_two_corners_are_painted_in_the_face_colour_and_the_middle_is_kept():
    img = _face()
    out = erase_corners(img, np.random.default_rng(0), count=2)
    assert np.array_equal(out[24:40, 24:40], img[24:40, 24:40])
    corners = [out[6:12, 6:12], out[6:12, 52:58], out[52:58, 6:12], out[52:58, 52:58]]
    hidden = [c.min() > 200 for c in corners]
    assert sum(hidden) == 2  # exactly two indices gone, painted near the face's 230
    assert all(abs(int(c.mean()) - 230) < 8 for c, h in zip(corners, hidden) if h)


def test_erasing_leaves_the_input_alone():
    img = _face()
    before = img.copy()
    erase_corners(img, np.random.default_rng(1))
    assert np.array_equal(img, before)

