"""Self-labelling calibration photo: the 42 face tiles laid out row by row in standard order.

Serving reads it too (numpy and the recognizer only): the app checks a calibration photo as the
player sends it, so a wrong count is said at once, not minutes into `vision adapt --calibration`.

Order: 萬1-9, 筒1-9, 條1-9, 東南西北, 中發白, 春夏秋冬, 梅蘭竹菊 (note 竹 before 菊 here,
while the class indices run 梅蘭菊竹). The seasons and the plants are each laid in the order of
the numbers printed on them, 1 to 4, which is 梅蘭竹菊 on a Taiwanese set; a set printing 菊 3
lays 菊 third. So the photo also says which number every flower prints, and the class it gets
there is the one whose Taiwanese tile (竹 7f, 菊 8f) the set's printed number means.
"""
from __future__ import annotations

import numpy as np

CALIBRATION_ORDER = tuple(range(0, 38)) + (38, 39, 41, 40)
CALIBRATION_LOW_CONF = 0.05  # the last try at the calibration photo's 42 tiles: a detector score this low


class CalibrationError(ValueError):
    """A calibration photo that does not show the 42 tiles; the message (English) is for the
    user, `code` with `params` name it for the web app's other languages (webapp/messages)."""

    def __init__(self, message: str, code: str, **params):
        super().__init__(message)
        self.code = code
        self.params = params


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

    Raises CalibrationError unless exactly 42 tiles were found: a missed or extra tile would
    shift every later label.
    """
    flat = [i for row in rows_of(boxes) for i in row]
    if len(flat) != len(CALIBRATION_ORDER):
        raise CalibrationError(f"calibration photo needs exactly {len(CALIBRATION_ORDER)} tiles, found {len(flat)}",
                               code="calibration_count", found=len(flat), needed=len(CALIBRATION_ORDER))
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


def calibration_boxes(image: np.ndarray, recognizer) -> np.ndarray:
    """The 42 tile boxes of a calibration photo: the detector's own, else the screened pipeline's
    (phantoms removed), else the screened pipeline's with the detector's threshold lowered to
    CALIBRATION_LOW_CONF (an unfamiliar set's tiles found unsure). Raises CalibrationError (from
    calibration_labels) when no try gives exactly 42: a wrong count would shift every label."""
    import copy

    boxes, _ = recognizer.detect(image)
    tries = [boxes]
    low = copy.copy(recognizer)
    low.config = {**recognizer.config, "det_conf": min(CALIBRATION_LOW_CONF, float(recognizer.config["det_conf"]))}
    for rec in (recognizer, low):
        if len(tries[-1]) == len(CALIBRATION_ORDER):
            break
        tries.append(np.array([d["box"] for d in rec.recognize(image)], np.float32).reshape(-1, 4))
    best = next((b for b in tries if len(b) == len(CALIBRATION_ORDER)), tries[0])
    calibration_labels(best)  # raises on a wrong count
    return best


def calibration_reading(boxes) -> list[dict]:
    """What a calibration photo teaches, tile by tile in reading order: {"tile", "box"} (the
    Taiwanese tile each place in the order means), for the player to check before adapting.

    >>> boxes = [[x * 50, y * 70, x * 50 + 40, y * 70 + 56] for y in range(6) for x in range(7)]
    >>> reading = calibration_reading(boxes)
    >>> [r["tile"] for r in reading[:3]], [r["tile"] for r in reading[-4:]], reading[7]["box"]
    (['1m', '2m', '3m'], ['5f', '6f', '7f', '8f'], [0.0, 70.0, 40.0, 126.0])
    """
    from vision.classes import class_to_tile

    labels = calibration_labels(boxes)
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    return [{"tile": class_to_tile(int(labels[i]), "taiwan"), "box": [round(float(v), 1) for v in b[i]]}
            for row in rows_of(b) for i in row]
