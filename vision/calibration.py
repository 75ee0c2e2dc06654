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
# Boxes beyond the 42 that may be left out as strays (a table's plate or panel read as a tile, in a
# photo that shows more table than a hand does); more than this, and the photo is refused. The
# page shows each kept tile above the tile it will be learnt as, so a wrong pick is seen.
MAX_STRAYS = 3


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
                               code="calibration_count", n=len(flat), needed=len(CALIBRATION_ORDER))
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

    n = len(CALIBRATION_ORDER)
    boxes, _ = recognizer.detect(image)
    tries = [boxes]
    low = copy.copy(recognizer)
    low.config = {**recognizer.config, "det_conf": min(CALIBRATION_LOW_CONF, float(recognizer.config["det_conf"]))}
    for rec in (recognizer, low):
        if len(tries[-1]) == n:
            break
        tries.append(np.array([d["box"] for d in rec.recognize(image)], np.float32).reshape(-1, 4))
    screened = tries[1:] or tries
    best = next((b for b in tries if len(b) == n), None)
    if best is None:  # a few strays among the screened boxes: the layout's own 42 without them
        best = next((without_strays(b, n) for b in screened if n < len(b) <= n + MAX_STRAYS), screened[0])
    calibration_labels(best)  # raises on a wrong count, the screened one (what the page would show)
    return best


def without_strays(boxes, n: int = len(CALIBRATION_ORDER)) -> np.ndarray:
    """The n boxes of a layout, from a few more: the boxes least like the layout's tiles are left
    out, by shape first (laid in rows, every tile stands the same way up: a plate lies wide or
    square), then by size, and a box alone in a row of its own counts against it too.

    >>> row = [[x * 50, 0, x * 50 + 40, 56] for x in range(6)]
    >>> plate = [320, 100, 400, 150]  # wide, and alone in its row
    >>> without_strays(row + [plate], 6).tolist() == row
    True
    """
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    w, h = np.maximum(b[:, 2] - b[:, 0], 1e-6), np.maximum(b[:, 3] - b[:, 1], 1e-6)
    shape, size = np.log(w / h), np.log(w * h)
    lone = np.zeros(len(b))
    for row in rows_of(b):
        if len(row) == 1:
            lone[row] = 1
    unlike = 2 * np.abs(shape - np.median(shape)) + np.abs(size - np.median(size)) + 0.5 * lone
    return b[np.sort(np.argsort(unlike, kind="stable")[:n])].astype(np.float32)


# A face with this share of the layout's median detail, or less, looks blank. On the valid split's
# real phone photos (267 photos, 6,210 printed faces) the least detailed printed face (a 西) had
# 0.267 of its photo's median and plain 白板 at most 0.056: the cut sits between, about twice from each.
BLANK_SHARE = 0.12


def face_detail(image: np.ndarray, box) -> float:
    """How much is drawn on a tile's face: the mean absolute Laplacian of its central part in grey,
    at 48 x 64 px (the box's margins left out: its edges are no drawing)."""
    import cv2

    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    face = image[int(y1 + .15 * h):int(y2 - .15 * h), int(x1 + .15 * w):int(x2 - .15 * w)]
    if face.size == 0:
        return 0.0
    grey = cv2.cvtColor(cv2.resize(face, (48, 64)), cv2.COLOR_BGR2GRAY).astype(np.float32)
    return float(np.abs(cv2.Laplacian(grey, cv2.CV_32F)).mean())


def looks_blank(image: np.ndarray, reading: list[dict]) -> list[bool]:
    """Which tiles of a calibration reading show next to nothing on their face (BLANK_SHARE of the
    layout's median detail): a tile covered over, face down, or a gap boxed as a tile. 白板 is
    blank by design and never counted; the player is asked to look, nothing is dropped. On three
    drawn and scanned sets' layouts the least detailed real face had 0.41 of the median, on real
    phone photos 0.27 (`tests/fixtures/vision-real-face-detail`)."""
    detail = [face_detail(image, r["box"]) for r in reading]
    floor = BLANK_SHARE * float(np.median(detail)) if detail else 0.0
    return [r["tile"] != "P" and d <= floor for r, d in zip(reading, detail)]


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
