"""Pseudo labels: an earlier detector's sure boxes for the tiles a photo's labels leave out."""
from __future__ import annotations

import cv2
import numpy as np

from training.dataset import labels_to_xyxy, read_labels, write_labels, xyxy_to_labels
from training.pseudo_labels import unlabelled_tiles
from training.train_detector import prepare_detector_data

LABELLED = np.array([[10, 10, 40, 50]], float)


def test_a_sure_box_away_from_the_labels_is_kept():
    found = np.array([[100, 10, 130, 50]], float)
    assert unlabelled_tiles(found, np.array([0.8]), LABELLED).tolist() == [[100, 10, 130, 50]]


def test_an_unsure_box_is_not_a_label():
    assert len(unlabelled_tiles(np.array([[100, 10, 130, 50]], float), np.array([0.1]), LABELLED)) == 0


def test_a_box_on_a_labelled_tile_is_that_tile():
    shifted = np.array([[14, 12, 44, 52]], float)  # IoU with the label about 0.7
    assert len(unlabelled_tiles(shifted, np.array([0.9]), LABELLED)) == 0


def test_a_face_box_inside_a_loose_label_is_that_tile():
    inner = np.array([[18, 20, 32, 40]], float)  # IoU 0.23, but wholly inside the labelled box
    assert len(unlabelled_tiles(inner, np.array([0.9]), LABELLED)) == 0


def test_with_no_labels_every_sure_box_counts():
    found = np.array([[0, 0, 10, 14], [20, 0, 30, 14]], float)
    assert len(unlabelled_tiles(found, np.array([0.9, 0.9]), np.zeros((0, 4)))) == 2


def _tiny_dataset(root):
    for split in ("train", "valid"):
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
        cv2.imwrite(str(root / "images" / split / "a.jpg"), np.full((200, 300, 3), 90, np.uint8))
        write_labels(root / "labels" / split / "a.txt", xyxy_to_labels(np.array([5]), LABELLED, 300, 200))


def test_detector_data_gains_the_pseudo_labels_in_train_only(tmp_path):
    _tiny_dataset(tmp_path / "data")
    extra = np.array([[200, 100, 230, 140]], np.float32)

    def earlier_detector(image):
        return np.concatenate([LABELLED, extra]).astype(np.float32), np.array([0.9, 0.9])

    out = tmp_path / "det"
    prepare_detector_data(tmp_path / "data", tmp_path / "art", out, back_share=0.0, pseudo=earlier_detector)
    cls, boxes = labels_to_xyxy(read_labels(out / "labels" / "train" / "a.txt"), 300, 200)
    assert cls.tolist() == [0, 0]  # one class, "tile"
    np.testing.assert_allclose(boxes, np.concatenate([LABELLED, extra]), atol=0.01)
    _, valid_boxes = labels_to_xyxy(read_labels(out / "labels" / "valid" / "a.txt"), 300, 200)
    np.testing.assert_allclose(valid_boxes, LABELLED, atol=0.01)  # valid keeps its labels as published
