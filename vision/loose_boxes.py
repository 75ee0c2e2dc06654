"""A loose box round a lone tile, drawn tight to the tile by its colour against the table.

On photos of a set the detector never saw (a red-bodied set lying loose on felt), it boxes a lone
tile with a margin of table all round: 1.5-2.6 times the tile's area. Such a box misses its tile
at IoU 0.5, so the tile counts as missed and the box as an extra, and the classifier reads a crop
framed looser than the crops it learnt from. A lone tile stands out from the table round it: the
pixels of the box that differ from the ring of table just outside it (in colour) are the tile,
and where they make one solid rectangle of a tile's proportions lying clear inside the box, that
rectangle's bounds are the tile's box.

Only a box the detector is less sure of than `max_score` and no other box overlaps (at most
`overlap` of its area) is looked at, and first only its edges: each must look like the strip just
outside it (`edge_like`; a box that fits has tile inside some edge). The ring is read where no
other box lies; without `min_ring` of it left, or where the box touches the photo's edge, the box
stays as it is. Tile-coloured tables (a red set on red felt, white tiles on a light cloth) leave
only the face's print standing out: a 1筒's circle is one solid blob well inside the box. So the
blob must fill `rect_fill` of its rotated bounding rectangle (a circle fills 0.79) and that
rectangle must be a tile's shape, its short side at most `max_aspect` of its long (a tile's face
is about 0.75, a circle 1.0), and the new box between `min_ratio` and `max_ratio` of the old
one's area: a box that fits already stays.

    >>> img = np.full((200, 200, 3), 120, np.uint8)
    >>> img[60:140, 75:125] = (40, 40, 190)  # a red tile, 50 x 80, on grey
    >>> tightened(img, np.array([[55, 45, 145, 155]], np.float32), np.array([0.6]), DEFAULTS)[0].tolist()
    [[75.0, 60.0, 125.0, 140.0]]
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.screen import inside_share

# Measured on the red adapt study's test photos, the style study's sets and the valid split
# (2026-12-06, models/README.md "A loose box round a lone tile"): rect_fill and max_aspect keep
# every box that moved from a miss to a match and refuse every one that moved the other way (1筒
# circles at 0.78-0.88 fill and 0.84-0.98 aspect, faces' print at 0.65-0.83 fill). The boxes that
# moved scored 0.78 at most; nine lone boxes in ten on the valid split score 0.75 or more. edge_like
# (summed BGR mean differences) at 20 still let every one of them through.
DEFAULTS = {"max_score": 0.8, "overlap": 0.05, "min_px": 12, "edge_like": 40.0, "ring": 0.25, "min_ring": 0.3,
            "min_dist": 15.0, "ring_spread": 1.5, "inset_px": 2, "edge_tile": 0.2, "solid": 0.6,
            "rect_fill": 0.85, "max_aspect": 0.85, "min_ratio": 0.3, "max_ratio": 0.75}
TABLE_SAMPLE = 600  # about as many ring pixels the table's colour is taken from (a grid over the ring)


def quantile(values: np.ndarray, q: float) -> np.ndarray:
    """The q quantile of values along the first axis, the nearest rank below (np.quantile costs
    ten times as much on a few hundred pixels)."""
    k = int(q * (len(values) - 1))
    return np.partition(values, k, axis=0)[k]


def edges_like_outside(image: np.ndarray, box: tuple[int, int, int, int], most: float) -> bool:
    """Does each edge of the box (x1, y1, x2, y2, inside the photo by two pixels or more) look, on
    average, like the strip of photo just outside it (mean colours at most `most` apart)? A box
    that fits its tile has tile on the inside of some edge and table or another tile outside; a
    loose one has table on both. A cheap first look: the median valid photo took 4 ms without it,
    0.55 ms with it."""
    x1, y1, x2, y2 = box
    pairs = ((image[y1:y1 + 2, x1:x2], image[y1 - 2:y1, x1:x2]), (image[y2 - 2:y2, x1:x2], image[y2:y2 + 2, x1:x2]),
             (image[y1:y2, x1:x1 + 2], image[y1:y2, x1 - 2:x1]), (image[y1:y2, x2 - 2:x2], image[y1:y2, x2:x2 + 2]))
    for inside, outside in pairs:
        if np.abs(inside.reshape(-1, 3).mean(0) - outside.reshape(-1, 3).mean(0)).sum() > most:
            return False
    return True


def lone(boxes: np.ndarray, overlap: float) -> np.ndarray:
    """Boxes (xyxy) no other box overlaps by more than overlap of their own area."""
    return (inside_share(boxes) <= overlap).all(1)


def tight_box(image: np.ndarray, box, others: np.ndarray, settings: dict) -> np.ndarray | None:
    """The tile's own box inside a loose box (xyxy) of image, or None where the box should stay:
    too small, at the photo's edge, too little table round it, no solid tile-shaped blob well
    inside it, or one about as big as the box. others: the photo's other boxes (not table)."""
    s = settings
    h_img, w_img = image.shape[:2]
    x1, y1, x2, y2 = [float(v) for v in box]
    w, h = x2 - x1, y2 - y1
    if min(w, h) < float(s["min_px"]):
        return None
    r = float(s["ring"])
    X1, Y1 = int(max(0.0, x1 - r * w)), int(max(0.0, y1 - r * h))
    X2, Y2 = int(min(float(w_img), x2 + r * w)), int(min(float(h_img), y2 + r * h))
    bx1, by1, bx2, by2 = (int(round(x1)) - X1, int(round(y1)) - Y1, int(round(x2)) - X1, int(round(y2)) - Y1)
    if min(bx1, by1, X2 - X1 - bx2, Y2 - Y1 - by2) < 2:
        return None  # no ring of table on some side: the photo's edge
    if not edges_like_outside(image, (int(round(x1)), int(round(y1)), int(round(x2)), int(round(y2))),
                              float(s["edge_like"])):
        return None
    ring = np.ones((Y2 - Y1, X2 - X1), bool)
    ring[by1:by2, bx1:bx2] = False
    whole_ring = int(ring.sum())
    near = others[(others[:, 0] < X2) & (others[:, 2] > X1) & (others[:, 1] < Y2) & (others[:, 3] > Y1)]
    for o in near:  # another tile is no table
        ring[max(0, int(o[1]) - Y1):max(0, int(np.ceil(o[3])) - Y1),
             max(0, int(o[0]) - X1):max(0, int(np.ceil(o[2])) - X1)] = False
    if ring.sum() < float(s["min_ring"]) * whole_ring:
        return None
    # Colour distances in BGR (a Lab conversion cost more than the rest of the look together),
    # the table's colour and spread from about TABLE_SAMPLE pixels on a grid over the ring
    patch = image[Y1:Y2, X1:X2]
    step = max(1, int(np.sqrt(ring.sum() / TABLE_SAMPLE)))
    table_px = patch[::step, ::step][ring[::step, ::step]].astype(np.float32)
    table = quantile(table_px, 0.5)

    def distance(px: np.ndarray) -> np.ndarray:
        return np.sqrt(((px.astype(np.float32) - table) ** 2).sum(-1))

    # what differs from the table more than the table differs from itself
    cut = max(float(s["min_dist"]), float(quantile(distance(table_px), 0.95)) * float(s["ring_spread"]))
    e = int(s["inset_px"])
    inner = patch[by1:by2, bx1:bx2]
    # Most boxes fit their tile, which then fills part of a strip along some edge of the box; a
    # loose box's edges are table (5% of its pixels at most lie past the cut). No more is asked.
    for strip in (inner[:e], inner[-e:], inner[:, :e], inner[:, -e:]):
        if (distance(strip) > cut).mean() > float(s["edge_tile"]):
            return None
    tile = (distance(inner) > cut).astype(np.uint8)
    if tile.sum() < float(s["solid"]) * float(s["min_ratio"]) * tile.size:
        return None  # too little differs from the table for any blob to pass the tests below
    tile = cv2.morphologyEx(tile, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(tile, connectivity=8)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    cx, cy, cw, ch, area = (int(v) for v in stats[k])
    if cx < e or cy < e or cx + cw > tile.shape[1] - e or cy + ch > tile.shape[0] - e:
        return None  # reaches the box's edge: the box is not loose round it
    if not float(s["min_ratio"]) <= cw * ch / float(tile.size) <= float(s["max_ratio"]):
        return None
    if area < float(s["solid"]) * cw * ch:
        return None
    (_, _), (rw, rh), _ = cv2.minAreaRect(cv2.findNonZero((labels == k).astype(np.uint8)))
    if area < float(s["rect_fill"]) * rw * rh or min(rw, rh) > float(s["max_aspect"]) * max(rw, rh):
        return None  # not a tile's solid rectangle: a circle, a character
    return np.array([X1 + bx1 + cx, Y1 + by1 + cy, X1 + bx1 + cx + cw, Y1 + by1 + cy + ch], np.float32)


def tightened(image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, settings: dict | None
              ) -> tuple[np.ndarray, np.ndarray]:
    """(boxes with each loose box round a lone tile drawn tight, which moved); unchanged with
    settings None. Only boxes the detector scores under `max_score` are looked at: its score
    grows with how well a box fits (ultralytics trains it toward the box's IoU)."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    moved = np.zeros(len(boxes), bool)
    if settings is None or not len(boxes):
        return boxes, moved
    s = {**DEFAULTS, **settings}
    out = boxes.copy()
    unsure = np.asarray(scores).reshape(-1) < float(s["max_score"])
    for i in np.flatnonzero(lone(boxes, float(s["overlap"])) & unsure):
        t = tight_box(image, boxes[i], np.delete(boxes, i, 0), s)
        if t is not None:
            out[i], moved[i] = t, True
    return out, moved
