"""Where and whether the detector looks at a photo again: how sure a pass is of tiles, the part of
a big photo worth a closer look, boxes that could be one close tile's parts, and which boxes a
second look adds. Values in, values out; vision/model.py runs the passes."""
from __future__ import annotations

import numpy as np

from vision.screen import inside_share


def tile_shaped(boxes: np.ndarray, factor: float, tile_shape: tuple[float, float]) -> np.ndarray:
    """Which boxes are shaped like a tile once the pass's stretch (factor, width/height) is undone."""
    w, h = (boxes[:, 2] - boxes[:, 0]) * factor, boxes[:, 3] - boxes[:, 1]
    ratio = np.minimum(w, h) / np.maximum(np.maximum(w, h), 1e-6)
    return (ratio >= tile_shape[0]) & (ratio <= tile_shape[1])


def pass_quality(boxes: np.ndarray, scores: np.ndarray, factor: float, sure_score: float, min_sure: int,
                 tile_shape: tuple[float, float]) -> float:
    """How sure a detector pass is of having found tiles: the median score of its sure boxes,
    less when they are few, times the share of them shaped like a tile once the pass's stretch
    (factor, width/height) is undone. Short side / long side of a tile face is about 0.75; a tile
    seen at an angle has a squarer box, one in a squashed photo a much thinner one."""
    sure = scores >= sure_score
    if not sure.any():
        return 0.0
    shaped = float(tile_shaped(boxes[sure], factor, tile_shape).mean())
    return float(np.median(scores[sure])) * min(1.0, sure.sum() / min_sure) * shaped


def could_be_parts(boxes: np.ndarray, max_count: int, span: float) -> bool:
    """Could these boxes be the parts of one to three close tiles (circles, stick columns)?
    Two to max_count of them, lying together: the box round them all is at most span times
    as long as their median box (a hand's row of tiles is many times longer).

    >>> circles = np.array([[0, 0, 10, 10], [12, 0, 22, 10], [0, 12, 10, 22], [12, 12, 22, 22]], np.float32)
    >>> row = np.array([[12 * k, 0, 12 * k + 10, 14] for k in range(8)], np.float32)  # eight tiles in a row
    >>> could_be_parts(circles, 12, 4.0), could_be_parts(row, 12, 4.0)
    (True, False)
    """
    if not 2 <= len(boxes) <= max_count:
        return False
    long_side = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    union = max(boxes[:, 2].max() - boxes[:, 0].min(), boxes[:, 3].max() - boxes[:, 1].min())
    return bool(union <= span * np.median(long_side))


def zoom_region(boxes: np.ndarray, scores: np.ndarray, shape: tuple[int, int], det_size: int,
                sure_score: float, below_px: float, margin_tiles: float, min_gain: float
                ) -> tuple[int, int, int, int] | None:
    """The part of an h x w photo worth a closer look (x1, y1, x2, y2), or None: the boxes plus
    margin_tiles tile heights around, when those tiles are under below_px tall at the
    detector's scale and looking at that part alone would enlarge them by min_gain or more.
    The part holds the unsure boxes too: they are likely tiles of the same hand."""
    sure = boxes[scores >= sure_score]
    if not len(sure):
        return None
    h, w = shape
    scale = det_size / max(h, w)
    tile = float(np.median(sure[:, 3] - sure[:, 1]))
    if tile * scale >= below_px:
        return None
    pad = margin_tiles * tile
    x1, y1 = max(0, int(boxes[:, 0].min() - pad)), max(0, int(boxes[:, 1].min() - pad))
    x2, y2 = min(w, int(np.ceil(boxes[:, 2].max() + pad))), min(h, int(np.ceil(boxes[:, 3].max() + pad)))
    if max(h, w) / max(x2 - x1, y2 - y1) < min_gain:  # how much larger the tiles would look
        return None
    return x1, y1, x2, y2


def centres_in(boxes: np.ndarray, part: tuple[int, int, int, int]) -> np.ndarray:
    """Which xyxy boxes have their centre inside part (x1, y1, x2, y2): those a look at the part
    answers for.

    >>> centres_in(np.array([[0, 0, 10, 10], [20, 0, 40, 10]], np.float32), (0, 0, 20, 20)).tolist()
    [True, False]
    """
    x1, y1, x2, y2 = part
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    return (cx >= x1) & (cx < x2) & (cy >= y1) & (cy < y2)


def inside_part(zoom: dict) -> dict:
    """The zoom settings for a look inside a part of the photo: neither quarters' search, which
    is for a whole photo's tiles too small or spread too wide."""
    return {**zoom, "grid_from": float("inf"), "grid_below_px": 0.0}


def few_part(sure: np.ndarray, shape: tuple[int, int], max_sure: int, min_gain: float, max_gain: float
             ) -> tuple[int, int, int, int] | None:
    """The square part of an h x w photo (x1, y1, x2, y2) around its first pass's sure boxes,
    where there are 1 to max_sure of them and they lie within 1/min_gain of the photo's side
    (grown by a quarter); the part is at least 1/max_gain of that side, so a look at it
    enlarges at most max_gain times; None otherwise.

    >>> few_part(np.array([[1000, 1000, 1300, 1100]], np.float32), (4000, 4000), 6, 2.0, 3.0)
    (483, 383, 1816, 1716)
    >>> few_part(np.array([[0, 0, 3000, 100]], np.float32), (4000, 4000), 6, 2.0, 3.0) is None
    True
    """
    if not 0 < len(sure) <= max_sure:
        return None
    h, w = shape
    x1, y1, x2, y2 = float(sure[:, 0].min()), float(sure[:, 1].min()), float(sure[:, 2].max()), float(sure[:, 3].max())
    side = 1.25 * max(x2 - x1, y2 - y1)
    if max(h, w) / max(side, 1.0) < min_gain:
        return None
    side = min(max(side, max(h, w) / max_gain), float(max(h, w)))
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    px, py = int(max(0.0, min(w - side, cx - side / 2))), int(max(0.0, min(h - side, cy - side / 2)))
    return px, py, int(min(w, px + side)), int(min(h, py + side))


def new_boxes(candidates: np.ndarray, boxes: np.ndarray, tile_h: float | None = None) -> np.ndarray:
    """Indices of the candidate boxes that are no box of boxes: neither half inside one nor
    holding half of one; with tile_h, only those 0.6 to 1.6 times that tall (a tile's).

    >>> found = np.array([[0, 0, 20, 28]], np.float32)
    >>> new_boxes(np.array([[2, 1, 21, 29], [40, 0, 60, 28], [40, 0, 60, 80]], np.float32), found, 28).tolist()
    [1]
    """
    c = np.asarray(candidates, np.float32).reshape(-1, 4)
    keep = np.ones(len(c), bool)
    if len(c) and len(boxes):
        keep &= (inside_share(c, boxes).max(1) < 0.5) & (inside_share(boxes, c).max(0) < 0.5)
    if tile_h is not None:
        keep &= ((c[:, 3] - c[:, 1]) > 0.6 * tile_h) & ((c[:, 3] - c[:, 1]) < 1.6 * tile_h)
    return np.flatnonzero(keep)
