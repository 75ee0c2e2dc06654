"""Group readers: a second look, at a larger crop, at tiles the classifier puts in one group and
is unsure of, by a network that reads only that group.

- The character reader reads the numeral above 萬 (1m-9m). Sets write the numerals in their own
  hand (brush, Kai, Ming; 伍 or 五; a 七 like 乜), and the training photos' HK sets print an index
  in the corner the classifier can lean on.
- The suit reader reads circles and sticks (1p-9s). Sets draw them in their own shapes and lay
  them out their own ways (6條 in two rows of three or three rows of two); on drawn sets of
  styles never seen the classifier read 6條 as 4條 most often of all its errors.
- The honour reader reads the winds, 中 and 發 (東南西北 紅中 發): sets write them in their own hand
  too, and on drawn close-ups of light ink the classifier read 東 as 中 and 南 as 發.

All three are trained mostly on procedural sets drawn in many styles (training/train_group_reader.py)
and read at the flower reader's larger crop. A reader's probabilities join the classifier's
inside its group, weighted by `weight`, as the flower reader's do (vision/flowers.py merge);
whether a tile is in the group stays the classifier's call.

    >>> p_cls = np.zeros((1, 43), np.float32); p_cls[0, 2] = 0.6; p_cls[0, 1] = 0.4
    >>> reader = type("S", (), {"run": lambda self, names, feeds: [np.eye(9, dtype=np.float32)[[1]]]})()
    >>> image = np.full((100, 100, 3), 255, np.uint8)
    >>> out = GroupReader(reader, CHARACTER_CLASSES).refine(image, [[10, 10, 60, 80]], [False], p_cls)
    >>> int(out.argmax()), round(float(out[0, 1]), 2)
    (1, 0.7)
"""
from __future__ import annotations

import numpy as np

from vision.classes import CHARACTER_CLASSES, HONOUR_CLASSES, SUIT_CLASSES
from vision.flowers import FLOWER_INPUT, FLOWER_STORE, in_group, merge, read_rows

# Each reader: its key in recognizer.json's inference settings (and its file name, .onnx) -> the
# classes it reads, in the order of its outputs, and the settings where it differs from DEFAULTS.
# The suit reader's weight 0.6: swept 0.5 / 0.6 / 0.7 with the whole recognizer on every set at
# hand (2026-12-05, models/README.md "The suit reader's share"): at 0.6 KDE's traditional art read
# 86.5% -> 88.3% of tiles right (its 6條 and 4筒 the reader reads right and the classifier not), the
# red adapt study 96.3% -> 96.5%, real photos unchanged; at 0.7 red bodies and styles seen read worse.
READERS = {"character_reader": {"classes": CHARACTER_CLASSES, "settings": {}},
           "suit_reader": {"classes": SUIT_CLASSES, "settings": {"weight": 0.6}},
           "honour_reader": {"classes": HONOUR_CLASSES, "settings": {}}}
# weight: the reader's share inside the group; swept 0.3 / 0.5 / 0.7 for the character reader on the
# detector's boxes of the valid split, a real set never trained on and the style study's drawn sets
# (2026-12-03): 0.5 read best or level on every one. below: only crops the classifier is less sure
# of are read; at 0.8 the same tiles came out right as with every crop read, and at 0.9 it reads 6%
# of the valid split's 萬.
# both_looks: a light-ink set's crops are read as photographed and as dark ink, averaged (as the
# classifier reads them); the dark-ink look alone read 二 as 一 and 伍 as 七 on one red-bodied draw
# (萬 right 96.7% without the reader, 93.9% with that look, 95.3% with both; another red draw
# 93.1% -> 97.9% -> 98.6%).
# scales, scales_below: as the flower reader's (vision/flowers.py); 萬 right 95.3% -> 97.2% on a
# red-bodied draw, 94.0% -> 94.6% on styles seen, 98.6% -> 97.9% on another red draw, every other
# set unchanged (2026-12-03).
# The suit reader takes the same settings but its weight (READERS): with weight 0.5 it took the tiles right
# 89.5% -> 92.9% on a red-bodied draw, 97.5% -> 99.0% ivory, 90.4% -> 93.2% of styles seen, and the
# valid split's photos all right 94.5% -> 94.8% (2026-12-03, models/README.md "Circles and sticks").
DEFAULTS = {"min_group": 0.5, "weight": 0.5, "below": 0.9, "both_looks": True, "store": FLOWER_STORE,
            "input": FLOWER_INPUT, "scales": [1.0, 0.85, 1.15], "scales_below": 0.9}


def reader_settings(name: str) -> dict:
    """Reader `name`'s inference settings as training writes them to recognizer.json."""
    return {**DEFAULTS, **READERS[name]["settings"]}


def reader_file(name: str) -> str:
    """The ONNX file of reader `name` in a models folder."""
    return f"{name}.onnx"


class GroupReader:
    """A reader's ONNX session, the classes it reads, and its settings (recognizer.json
    inference.<name>)."""

    def __init__(self, session, classes, settings: dict | None = None):
        self.session = session
        self.group = np.array(classes)
        self.settings = {**DEFAULTS, **(settings or {})}

    def refine(self, image: np.ndarray, boxes, turned, p_cls: np.ndarray, light_ink: bool = False) -> np.ndarray:
        """p_cls with the reader's reading of every box in its group the classifier is under
        `below` sure of (a light-ink set's in both looks unless both_looks is off)."""
        rows = in_group(p_cls, float(self.settings["min_group"]), self.group) & \
            (p_cls.max(1) < float(self.settings["below"]))
        if not rows.any():
            return p_cls
        (p_group,) = read_rows(self.session, ["p_cls"], image, boxes, turned, rows, self.settings, light_ink)
        return merge(p_cls, None, rows, (p_group, None), float(self.settings["weight"]), self.group)[0]
