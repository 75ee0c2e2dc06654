"""Close-ups cut from labelled photos (training/closeup_crops.py)."""
from __future__ import annotations

import cv2
import numpy as np

from training.closeup_crops import cut_closeups, labels_in
from training.dataset import labels_to_xyxy, read_labels, write_labels, xyxy_to_labels


def _photo(folder, name, boxes, cls):
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    image = np.full((200, 400, 3), 90, np.uint8)
    for x0, y0, x1, y1 in boxes:
        cv2.rectangle(image, (x0, y0), (x1, y1), (230, 230, 230), -1)
    cv2.imwrite(str(folder / "images" / f"{name}.png"), image)
    labels = xyxy_to_labels(np.array(cls), np.array(boxes, np.float32), 400, 200)
    write_labels(folder / "labels" / f"{name}.txt", labels)


def test_each_closeup_holds_neighbouring_tiles_enlarged_with_their_labels(tmp_path):
    row = [[20 + 40 * k, 80, 56 + 40 * k, 128] for k in range(9)]  # nine tiles in a row, 4 px apart
    _photo(tmp_path / "in", "hand", row, list(range(9)))
    n = cut_closeups([tmp_path / "in"], tmp_path / "out", photos=1, per_photo=4, side=600, seed=1)
    assert n == 4
    for k in range(4):
        image = cv2.imread(str(tmp_path / "out" / "images" / f"{k:03d}.jpg"))
        assert max(image.shape[:2]) == 600
        labels = read_labels(tmp_path / "out" / "labels" / f"{k:03d}.txt")
        cls, boxes = labels_to_xyxy(labels, image.shape[1], image.shape[0])
        assert 2 <= len(cls) <= 5 and sorted(cls) == list(range(min(cls), max(cls) + 1))  # neighbours, in order
        tall = boxes[:, 3] - boxes[:, 1]
        assert (tall > 48 * 2).all()  # enlarged: the 48 px tiles stand over twice as tall


def test_a_sliver_of_a_tile_at_the_crop_edge_is_left_unlabelled():
    boxes = np.array([[0, 0, 10, 14], [20, 0, 30, 14]], np.float32)
    cls, kept = labels_in(np.array([1, 2]), boxes, (0, 0, 24, 14), 0.6)  # 4 of the second's 10 px inside
    assert cls.tolist() == [1] and kept.tolist() == [[0, 0, 10, 14]]
    cls, kept = labels_in(np.array([1, 2]), boxes, (0, 0, 27, 14), 0.6)  # 7 of 10: kept, cut at the edge
    assert cls.tolist() == [1, 2] and kept[1].tolist() == [20, 0, 27, 14]


def test_a_photo_without_tiles_gives_no_closeup(tmp_path):
    _photo(tmp_path / "in", "empty", [], [])
    assert cut_closeups([tmp_path / "in"], tmp_path / "out", photos=1, per_photo=3, side=600, seed=1) == 0


def test_its_docstring_examples():
    import doctest

    import training.closeup_crops

    result = doctest.testmod(training.closeup_crops)
    assert result.failed == 0 and result.attempted > 0
