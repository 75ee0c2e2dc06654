"""Boxes for the tiles a photo shows but its labels leave out.

The published photos label the hand in front and leave most other tiles on the table (discards,
other hands) unlabelled. A detector trained long on them learns that convention: it stops
finding tiles that lie askew or loose, which on a user's table are melds and flowers. Pseudo
labels from an earlier detector mark those tiles as tiles again, so the one-class detector is
taught "every tile" rather than "the tiles this data set happened to label".
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from training.evaluate import iou_matrix

MIN_SCORE = 0.3  # boxes the earlier detector is fairly sure of (its false alarms are mostly real tiles)
MAX_OVERLAP = 0.3  # a box overlapping a labelled one this much is that tile, not another


def unlabelled_tiles(found: np.ndarray, scores: np.ndarray, labelled: np.ndarray,
                     min_score: float = MIN_SCORE, max_overlap: float = MAX_OVERLAP) -> np.ndarray:
    """The found boxes (pixels, xyxy) that are sure and cover no labelled box.

    >>> found = np.array([[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14]], float)
    >>> unlabelled_tiles(found, np.array([0.9, 0.9, 0.2]), np.array([[1, 0, 11, 14]], float)).tolist()
    [[20.0, 0.0, 30.0, 14.0]]
    """
    found = np.asarray(found, np.float64).reshape(-1, 4)
    keep = np.asarray(scores) >= min_score
    if len(labelled) and len(found):
        iou = iou_matrix(found, labelled).max(1)
        # also drop boxes mostly inside a labelled one (a face box inside a loose tile box)
        lt = np.maximum(found[:, None, :2], np.asarray(labelled)[None, :, :2])
        rb = np.minimum(found[:, None, 2:], np.asarray(labelled)[None, :, 2:])
        inter = np.prod(np.clip(rb - lt, 0, None), 2).max(1)
        area = np.prod(found[:, 2:] - found[:, :2], 1)
        keep &= (iou < max_overlap) & (inter < 0.5 * np.maximum(area, 1e-9))
    return found[keep]


def detector_boxes(models_dir: Path):
    """A function image -> (boxes, scores) from the shipped recognizer's full detection pass."""
    from vision.model import Recognizer

    recognizer = Recognizer(models_dir)
    return recognizer.detect
