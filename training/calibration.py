"""Self-labelling calibration photo: the 42 face tiles laid out row by row in standard order.

Order: 萬1-9, 筒1-9, 條1-9, 東南西北, 中發白, 春夏秋冬, 梅蘭竹菊 (note 竹 before 菊 here,
while the class indices run 梅蘭菊竹). The seasons and the plants are each laid in the order of
the numbers printed on them, 1 to 4, which is 梅蘭竹菊 on a Taiwanese set; a set printing 菊 3
lays 菊 third. So the photo also says which number every flower prints, and the class it gets
there is the one whose Taiwanese tile (竹 7f, 菊 8f) the set's printed number means.
"""
from __future__ import annotations

import numpy as np

CALIBRATION_ORDER = tuple(range(0, 38)) + (38, 39, 41, 40)


def rows_of(boxes) -> list[list[int]]:
    """Group boxes (N,4 xyxy) into rows top to bottom, each row left to right; returns indices.

    A new row starts where the vertical gap between consecutive centres (sorted by y)
    exceeds half the median tile height, so slightly slanted rows stay together.
    """
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    if not len(b):
        return []
    cy = (b[:, 1] + b[:, 3]) / 2
    height = float(np.median(b[:, 3] - b[:, 1]))
    order = np.argsort(cy, kind="stable")
    rows, current = [], [int(order[0])]
    for prev, idx in zip(order[:-1], order[1:]):
        if cy[idx] - cy[prev] > 0.5 * height:
            rows.append(current)
            current = []
        current.append(int(idx))
    rows.append(current)
    return [sorted(r, key=lambda i: (b[i, 0] + b[i, 2]) / 2) for r in rows]


def calibration_labels(boxes) -> np.ndarray:
    """Class index of every box (in the input order) of a calibration photo.

    Raises ValueError unless exactly 42 tiles were found: a missed or extra tile would
    shift every later label.
    """
    flat = [i for row in rows_of(boxes) for i in row]
    if len(flat) != len(CALIBRATION_ORDER):
        raise ValueError(f"calibration photo needs exactly {len(CALIBRATION_ORDER)} tiles, found {len(flat)}")
    labels = np.empty(len(flat), np.int64)
    for pos, idx in enumerate(flat):
        labels[idx] = CALIBRATION_ORDER[pos]
    return labels


def calibration_numbers(labels) -> np.ndarray:
    """The printed number (1-4) of every calibration label, 0 for tiles printing none: laid in
    the order of their numbers, the plants print what their `taiwan` tiles say (竹 7f: 3).

    >>> calibration_numbers([0, 34, 41, 40]).tolist()
    [0, 1, 3, 4]
    """
    from vision.classes import class_to_tile, printed_number

    return np.array([printed_number(class_to_tile(int(c), "taiwan")) for c in labels], np.int64)
