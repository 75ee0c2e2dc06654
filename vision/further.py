"""A close-up read unsure: a look from further away.

Close up, a tile can be far bigger than any the detector trained on, and it boxes the tile's
circles or stick clusters instead, each sure, each tile-shaped (an 8筒's eight circles, a 5條's
five clusters). The classifier then reads each part as nothing it is sure of (backs, 9筒, 西 at
0.1-0.35). The close-up passes (zoom_out, the close-up detector) are asked only when the
detector's own boxes look like a close-up, and sure tile-sized parts do not.

What gives such a photo away is the reading: every tile read unsure. So where the screened
tiles of a photo are few (at most `max_tiles`) and read unsure (their median confidence, detector
score x class probability, under `unsure_below`), the detector looks again at the photo shrunk
by each of `shrinks` (of the scale its first pass saw it at), where the whole tile is of a size it
knows. A shrunk pass's sure boxes (`sure_score`) replace the first answer where

- they are a close-up's few tiles (at most `max_new`), each shaped like a tile (short side over
  long `tile_shape`, vision/model.py tile_shaped); those the tile check (`min_tile`) refuses are
  left out;
- they hold the first answer's tiles as parts (`hold` of them lie mostly inside one), and at
  least one holds two or more: a photo of tiles read unsure for their art, not their size, finds
  the same tiles again, one each;
- they are read surer: their median confidence beats the first answer's by `margin` (the first
  shrink's pass that does, a later one only where surer again by `margin`).

The first answer may come from the photo stretched (a close-up's parts pass for a squashed photo's
slivers); the shrunk passes read the photo as it is.

Where no shrunk pass replaces the whole answer (a close-up of two tiles in a row also shows the
parts of its neighbours, cut by the photo's edge, which no whole box holds), each shrunk pass's box
that holds two or more of the first answer's tiles as parts, each at most `max_share` of its area
(two real tiles side by side are half each), and is read surer than their median by `margin`
replaces those parts alone (`each_whole`; wholes_of_parts); the rest of the answer stays.

A first box that a shrunk pass boxes again as the same tile (intersection over union at least
`twin_iou`), read surer by `margin`, takes that box and its reading (`twins`; surer_twins): a
close tile boxed as itself but read unsure at its first size, as a red-bodied 2條 read at 0.15
that the photo shrunk boxes and reads at 0.45.

Where the screening kept fewer than two tiles (a close tile's parts, each read as nothing, all
dropped as unread: the answer is empty or one tile), every box the detector found is the first
answer the look judges by (`from_dropped`).

    >>> first = {"boxes": np.array([[0, 0, 10, 10], [12, 0, 22, 10], [0, 12, 10, 22], [12, 12, 22, 22]],
    ...                            np.float32), "confidence": np.array([0.2, 0.25, 0.15, 0.3])}
    >>> wants_further_look(first["confidence"], FURTHER_DEFAULTS)
    True
    >>> whole = np.array([[-2, -2, 24, 30]], np.float32)
    >>> holds_as_parts(first["boxes"], whole, FURTHER_DEFAULTS)
    True
    >>> holds_as_parts(first["boxes"], first["boxes"], FURTHER_DEFAULTS)  # the same tiles, one each
    False
"""
from __future__ import annotations

import numpy as np

from vision.screen import box_areas, inside_share, iou_matrix

# Measured on the style study's drawn close-ups, close-ups cut from drawn photos, the valid split,
# the pink session and 13 other sets (2026-12-06, models/README.md "A close-up read unsure, looked
# at from further"): at 0.25 of the first pass's scale the detector boxed every tile of the 11
# drawn close-ups it had missed tiles of. margin 0.1 and 0.05 read more tiles of the cut close-ups
# but made photos worse; max_tiles 40 ran the look on whole hands of unfamiliar art for nothing.
FURTHER_DEFAULTS = {"unsure_below": 0.4, "max_tiles": 16, "shrinks": [0.35, 0.25], "sure_score": 0.25,
                    "max_new": 6, "tile_shape": [0.5, 1.0], "min_tile": 0.5, "hold": 0.8, "inside": 0.6,
                    "margin": 0.15, "max_share": 0.4, "each_whole": True, "from_dropped": True,
                    "twins": True, "twin_iou": 0.6}


def wants_further_look(confidence: np.ndarray, settings: dict) -> bool:
    """Are these (a photo's screened tiles' confidences) few and read unsure?"""
    return 2 <= len(confidence) <= int(settings["max_tiles"]) and \
        float(np.median(confidence)) < float(settings["unsure_below"])


def holds_as_parts(first: np.ndarray, new: np.ndarray, settings: dict) -> bool:
    """Do the new boxes hold the first answer's boxes as parts: `hold` of them mostly (`inside`)
    inside one, and one new box holding two or more?"""
    if not len(first) or not len(new):
        return False
    held = inside_share(first, new) >= float(settings["inside"])
    return bool(held.any(1).mean() >= float(settings["hold"]) and held.sum(0).max() >= 2)


def is_better_look(first_confidence: np.ndarray, new_confidence: np.ndarray, settings: dict) -> bool:
    """Is a shrunk pass's reading (its tiles' confidences) surer than the first's by `margin`?

    >>> is_better_look(np.array([0.2, 0.3]), np.array([0.8]), FURTHER_DEFAULTS)
    True
    >>> is_better_look(np.array([0.2, 0.3]), np.array([0.35]), FURTHER_DEFAULTS)
    False
    """
    return bool(len(new_confidence)) and \
        float(np.median(new_confidence)) >= float(np.median(first_confidence)) + float(settings["margin"])


def wholes_of_parts(first: np.ndarray, first_confidence: np.ndarray, new: np.ndarray, new_confidence: np.ndarray,
                    settings: dict) -> list[tuple[int, np.ndarray]]:
    """(new box, indices of the first answer's boxes it replaces) for each new box that holds two
    or more of them as parts (each `inside` it and at most `max_share` of its area: two real tiles
    side by side are half each) and is read surer than their median by `margin`; surest first, no
    first box given to two.

    >>> first = np.array([[0, 0, 10, 10], [12, 0, 22, 10], [0, 12, 10, 22], [40, 0, 50, 14]], np.float32)
    >>> new = np.array([[-2, -2, 24, 30], [38, -2, 52, 16]], np.float32)
    >>> found = wholes_of_parts(first, np.full(4, 0.2), new, np.array([0.7, 0.9]), FURTHER_DEFAULTS)
    >>> [(j, p.tolist()) for j, p in found]
    [(0, [0, 1, 2])]
    """
    if not len(first) or not len(new):
        return []
    share = inside_share(first, new)  # share[i, j]: of first box i inside new box j
    small = box_areas(first)[:, None] <= float(settings["max_share"]) * box_areas(new)[None, :]
    held = (share >= float(settings["inside"])) & small
    out, taken = [], np.zeros(len(first), bool)
    for j in np.argsort(-np.asarray(new_confidence)):
        parts = np.flatnonzero(held[:, j] & ~taken)
        if len(parts) < 2:
            continue
        if new_confidence[j] >= float(np.median(first_confidence[parts])) + float(settings["margin"]):
            out.append((int(j), parts))
            taken[parts] = True
    return out


def surer_twins(first: np.ndarray, first_confidence: np.ndarray, new: np.ndarray, new_confidence: np.ndarray,
                settings: dict) -> list[tuple[int, np.ndarray]]:
    """(new box, [the first answer's box it replaces]) for each new box that boxes a first box
    again (intersection over union at least `twin_iou`) and is read surer than it by `margin`;
    surest first, each box of either side used once.

    >>> first = np.array([[0, 0, 10, 14], [20, 0, 30, 14]], np.float32)
    >>> new = np.array([[1, 0, 11, 15], [20, 0, 30, 14]], np.float32)
    >>> [(j, p.tolist()) for j, p in surer_twins(first, np.array([0.1, 0.6]), new, np.array([0.7, 0.65]),
    ...                                             FURTHER_DEFAULTS)]
    [(0, [0])]
    """
    if not len(first) or not len(new):
        return []
    iou = iou_matrix(first, new)
    out, taken = [], np.zeros(len(first), bool)
    for j in np.argsort(-np.asarray(new_confidence)):
        twins = np.flatnonzero((iou[:, j] >= float(settings["twin_iou"])) & ~taken)
        if not len(twins):
            continue
        i = twins[np.argmax(iou[twins, j])]
        if new_confidence[j] >= float(first_confidence[i]) + float(settings["margin"]):
            out.append((int(j), np.array([i])))
            taken[i] = True
    return out
