"""Screening the detector's boxes for phantom tiles, after NMS and the classifier.

IoU NMS keeps a box that lies mostly inside a bigger one (a tile's face or one stick column
inside the whole tile: their IoU is small), a sliver of a tile cut by the photo's edge, and
boxes on the table or between tiles that the classifier cannot read. Each rule below either
drops a box, where the measurement behind its threshold found no labelled tile among those
it drops, or keeps it with a reason in `suspect`, so the pipeline flags it for the player to
check: a real tile is never dropped on a guess. Thresholds are `inference.screen` in
models/recognizer.json; the figures behind them are in models/README.md.
"""
from __future__ import annotations

import numpy as np

BACK = 42
WHITE = 33  # 白板: a blank face, like a back, so the classifier's certainty says little about it
# Why a kept box is flagged: the reason the recognizer's answer carries (`suspect`, English, for
# logs and the CLI) -> the code the page words in the player's language (vision/layout.py).
NOT_WHOLE, INSIDE, ACROSS, CUT, BLANK_UNSURE = ("not like a whole tile", "inside another tile", "across two tiles",
                                                "cut by the photo's edge", "blank face, unsure box")
REASON_CODES = {NOT_WHOLE: "not_whole_tile", INSIDE: "inside_another", ACROSS: "across_two",
                CUT: "cut_by_edge", BLANK_UNSURE: "blank_unsure"}
SCREEN_DEFAULTS = {
    # drop: detector score x class probability below this, unless the detector scores the box
    # sure_box or more (a real tile of a class the classifier was not adapted to reads unsure:
    # kept, its low confidence flags it)
    "drop_below": 0.1, "sure_box": 0.5,
    # drop a box this share inside a bigger box the detector is at least as sure of;
    # flag from flag_contained up. A box less than neighbour_below inside the bigger one that
    # reads another class more surely than the bigger one reads its own is a neighbouring tile
    # (tilted or stacked tiles' boxes overlap): kept, flagged
    "contained": 0.6, "flag_contained": 0.4, "neighbour_below": 0.9,
    # a box within edge_px of the photo's border whose short side is under sliver times the
    # photo's typical tile (median short side of sure boxes clear of the border): dropped;
    # under flag_sliver times: flagged, or dropped where the tile check doubts it too
    "edge_px": 2.0, "sliver": 0.5, "flag_sliver": 0.7, "sure_score": 0.25,
    # a blank face (back or 白板) the detector is less sure of than this: flagged
    "blank_min_score": 0.5,
    # the tile check (vision/verifier.py, where the models folder has one): a box it gives
    # p(tile) under not_tile is dropped unless the detector scores it not_tile_sure or more;
    # under flag_not_tile it is flagged (doubted). Asked only about the boxes to_check() names.
    "not_tile": 0.1, "not_tile_sure": 0.7, "flag_not_tile": 0.5, "not_tile_stretch": 1.0,
    # a blank face (back or 白板) the detector scores under blank_drop_score and the tile check
    # doubts: dropped. A blank is the one face the classifier cannot vouch for, so two doubts
    # together decide it (an automatic table's dark plates at 0.34-0.53; no face-down tile drawn,
    # of 400, is doubted and under 0.6)
    "blank_drop_score": 0.55,
    # one tile boxed twice: of two boxes read as the same class, one at least same_tile inside the
    # other, the one the classifier reads less surely by same_tile_margin is dropped; within the
    # margin, the one the detector scores lower
    "same_tile": 0.7, "same_tile_margin": 0.15,
    # a box lying across two surer tiles (each holding at least straddle_part of it, together
    # straddle or more): dropped; from flag_straddle: flagged
    "straddle": 0.85, "flag_straddle": 0.7, "straddle_part": 0.2,
    # a box read as a blank face (back or 白板) is asked whatever the detector's score: a plain
    # blob (a printed disc, a dark rack, a shadow) is as sure a back to the detector as a real one
    "check_blank": True,
    # two doubts: a box one of the rules above flags that reads under this confidence (detector
    # score x class probability) is dropped, however sure the detector is of a box there
    "flag_drop_below": 0.12,
    # a face unlike the photo's faces: a box read as a face (not blank) under unlike_below
    # confidence, under unlike_share of whose face pixels have the ground colour of the photo's
    # other faces (vision/face_ground.py), is a thing on the table, not a tile of this set: dropped.
    # On 13 sets and 216 cut close-ups no labelled tile read under 0.4 lay under 0.02; 23
    # phantoms did (card holders, a carbon dial, felt texture)
    "unlike_share": 0.02, "unlike_below": 0.4,
}


def box_areas(boxes: np.ndarray) -> np.ndarray:
    """(N,) the areas of xyxy boxes, 0 for an empty one.

    >>> box_areas(np.array([[0, 0, 10, 20], [5, 5, 3, 9]], float)).tolist()
    [200.0, 0.0]
    """
    return np.prod(np.clip(boxes[:, 2:] - boxes[:, :2], 0, None), 1)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in a (N,4) with every box in b (M,4), xyxy.

    >>> iou_matrix(np.array([[0, 0, 10, 10]]), np.array([[0, 0, 10, 10], [5, 0, 15, 10]])).round(3).tolist()
    [[1.0, 0.333]]
    """
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), 2)
    area_a = np.prod(a[:, 2:] - a[:, :2], 1)
    area_b = np.prod(b[:, 2:] - b[:, :2], 1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-12)


def unlike_face_asked(scores, p_cls, settings: dict | None = None) -> np.ndarray:
    """Which boxes the face-colour rule judges (and vision/face_ground.py measures): those read as
    a face, not a blank, under unlike_below confidence (detector score x class probability)."""
    cfg = {**SCREEN_DEFAULTS, **(settings or {})}
    p_cls = np.asarray(p_cls)
    scores = np.asarray(scores, np.float64).reshape(len(p_cls))
    return (scores * p_cls.max(1) < float(cfg["unlike_below"])) & ~np.isin(p_cls.argmax(1), (BACK, WHITE))


def inside_share(boxes: np.ndarray, others: np.ndarray | None = None) -> np.ndarray:
    """share[i, j]: the part of box i's area that lies inside box j of others (xyxy); without
    others, inside box j of boxes, 0 on the diagonal."""
    wholes = boxes if others is None else others
    lt = np.maximum(boxes[:, None, :2], wholes[None, :, :2])
    rb = np.minimum(boxes[:, None, 2:], wholes[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), 2)
    share = inter / np.maximum(box_areas(boxes)[:, None], 1e-9)
    if others is None:
        np.fill_diagonal(share, 0.0)
    return share


def covered_share(box, others: np.ndarray) -> float:
    """The part of box (xyxy) that the union of the others covers (exact: the plane cut at every
    edge inside the box).

    >>> covered_share([0, 0, 10, 10], np.array([[-5, 0, 5, 10], [4, 0, 12, 10]], float))
    1.0
    >>> covered_share([0, 0, 10, 10], np.array([[0, 0, 5, 5], [0, 0, 5, 5]], float))
    0.25
    """
    x1, y1, x2, y2 = [float(v) for v in box]
    area = (x2 - x1) * (y2 - y1)
    if area <= 0 or not len(others):
        return 0.0
    o = np.clip(np.asarray(others, np.float64).reshape(-1, 4), [x1, y1, x1, y1], [x2, y2, x2, y2])
    xs, ys = np.unique(np.r_[x1, x2, o[:, [0, 2]].ravel()]), np.unique(np.r_[y1, y2, o[:, [1, 3]].ravel()])
    cx, cy = (xs[:-1] + xs[1:]) / 2, (ys[:-1] + ys[1:]) / 2
    inside = ((o[:, None, None, 0] <= cx[None, None, :]) & (cx[None, None, :] < o[:, None, None, 2])
              & (o[:, None, None, 1] <= cy[None, :, None]) & (cy[None, :, None] < o[:, None, None, 3])).any(0)
    return float((inside * np.outer(np.diff(ys), np.diff(xs))).sum() / area)


def to_check(scores, aspect: float, settings: dict | None = None, cls=None) -> np.ndarray:
    """Which boxes the tile check is asked about: those the detector is less sure of than
    not_tile_sure (a surer box is kept whatever the check says, and the check costs about a
    millisecond a box) and, with check_blank, every box whose class (cls, the classifier's top
    class per box) is a blank face, in a photo read at its own aspect or stretched at most
    not_tile_stretch (in photos stretched back 2.5-6x, a publisher's square resize, it doubted
    real tiles).

    >>> to_check(np.array([0.9, 0.4, 0.9]), 1.0, None, np.array([0, 0, BACK])).tolist()
    [False, True, True]
    """
    cfg = {**SCREEN_DEFAULTS, **(settings or {})}
    scores = np.asarray(scores, np.float64).reshape(-1)
    if max(aspect, 1 / max(aspect, 1e-9)) > float(cfg["not_tile_stretch"]) + 1e-6:
        return np.zeros(len(scores), bool)
    ask = scores < float(cfg["not_tile_sure"])
    if cls is not None and cfg["check_blank"]:
        ask |= np.isin(np.asarray(cls).reshape(-1), (BACK, WHITE))
    return ask


def screen(boxes, scores, p_cls, shape: tuple[int, int], aspect: float = 1.0,
           settings: dict | None = None, p_tile=None, face_share=None) -> tuple[np.ndarray, list[str | None]]:
    """(keep mask, suspect reason or None per box) for xyxy boxes in an h x w photo.

    scores are the detector's, p_cls the classifier's class probabilities (N, 43); aspect is
    the width stretch that undoes a squashed photo (Recognizer.detect_with_aspect); p_tile the
    tile check's p(tile) per box (vision/verifier.py; 1 where it was not asked, see to_check),
    None without one; face_share each box's share of face pixels of the photo's face colour
    (vision/face_ground.py), None to leave that rule out.

    >>> b = np.array([[5, 5, 35, 45], [7, 7, 19, 35], [60, 5, 90, 45], [98, 10, 100, 30]], float)
    >>> p = np.full((4, 43), 0.01); p[:, 0] = 0.9
    >>> keep, why = screen(b, np.array([0.9, 0.5, 0.8, 0.6]), p, (100, 100))
    >>> keep.tolist(), why
    ([True, False, True, False], [None, None, None, None])
    """
    cfg = {**SCREEN_DEFAULTS, **(settings or {})}
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    scores = np.asarray(scores, np.float64).reshape(-1)
    n = len(boxes)
    keep, suspect = np.ones(n, bool), [None] * n
    if not n:
        return keep, suspect
    p_cls = np.asarray(p_cls, np.float64).reshape(n, -1)
    cls, p = p_cls.argmax(1), p_cls.max(1)

    def flag(i: int, why: str) -> None:
        if keep[i] and suspect[i] is None:
            suspect[i] = why

    # phantoms the classifier cannot read either
    keep &= (scores * p >= float(cfg["drop_below"])) | (scores >= float(cfg["sure_box"]))
    # read as an unsure face, with almost none of the ground the photo's faces are printed on
    if face_share is not None:
        keep &= ~((np.asarray(face_share, np.float64).reshape(n) < float(cfg["unlike_share"]))
                  & unlike_face_asked(scores, p_cls, cfg))

    # what the tile check sees no whole tile in: print on the table, a ring, a side, a shadow
    doubted = np.zeros(n, bool)
    if p_tile is not None:
        p_tile = np.where(to_check(scores, aspect, cfg, cls), np.asarray(p_tile, np.float64).reshape(n), 1.0)
        keep &= p_tile >= float(cfg["not_tile"])
        doubted = p_tile < float(cfg["flag_not_tile"])
        keep &= ~(doubted & ((cls == BACK) | (cls == WHITE)) & (scores < float(cfg["blank_drop_score"])))
        for i in np.flatnonzero(keep & doubted):
            flag(i, NOT_WHOLE)

    # boxes inside another tile's box: a face, a stick column, a reflection
    share = inside_share(boxes)
    area = box_areas(boxes)
    # bigger[i, j]: box j is kept, larger than box i and scored at least as high
    bigger = keep[None, :] & (area[None, :] > area[:, None]) & (scores[None, :] >= scores[:, None])
    inside = np.where(bigger, share, 0.0).max(1)
    for i in np.flatnonzero(keep & (inside >= float(cfg["flag_contained"]))):
        flag(i, INSIDE)
    # A part of a tile lies wholly in its box, or reads the tile's class, or less surely than the
    # tile reads it; a tilted or stacked neighbour's box only overlaps, and reads its own tile
    # surely (a 7條 at 0.98 lay 0.69 inside a box read 4條 at 0.26).
    neighbour = (share < float(cfg["neighbour_below"])) & (cls[None, :] != cls[:, None]) & (p[None, :] < p[:, None])
    keep &= np.where(bigger & ~neighbour, share, 0.0).max(1) < float(cfg["contained"])
    # the same tile boxed twice, the box of its face or circle inside the box of the whole (or a
    # loose box round a tight one): the box whose crop the classifier reads clearly more surely
    # frames the tile as it learnt tiles, whichever is bigger and whatever the detector scored (a
    # circle's box at 0.72 inside its 1筒's at 0.28, read 0.18 against 0.60); read about as surely,
    # the detector's surer box stands (a loose box at 0.24 over a tile and its neighbour, read 0.95,
    # round the tile's own at 0.74, read 0.92)
    margin = float(cfg["same_tile_margin"])
    for i in np.flatnonzero(keep):
        twin = keep & (cls == cls[i]) & (np.arange(n) != i) & \
            (np.maximum(share[i], share[:, i]) >= float(cfg["same_tile"]))
        if (twin & ((p - p[i] >= margin) | ((np.abs(p - p[i]) < margin) & (scores > scores[i])))).any():
            keep[i] = False

    # a box lying across two neighbouring tiles, half of each: the detector's guess at the
    # gap between them. A real tile's box overlaps its neighbours' only at the edges (at most
    # 0.78 covered on the valid split, where tiles lie piled)
    part = float(cfg["straddle_part"])
    for i in np.flatnonzero(keep):
        surer = np.flatnonzero(keep & (scores >= scores[i]) & (np.arange(n) != i))
        if (share[i, surer] >= part).sum() < 2:
            continue
        covered = covered_share(boxes[i], boxes[surer])
        if covered >= float(cfg["straddle"]):
            keep[i] = False
        elif covered >= float(cfg["flag_straddle"]):
            flag(i, ACROSS)

    # slivers of a tile cut by the photo's edge
    h, w = shape
    e = float(cfg["edge_px"])
    edge = (boxes[:, 0] <= e) | (boxes[:, 1] <= e) | (boxes[:, 2] >= w - e) | (boxes[:, 3] >= h - e)
    short = np.minimum((boxes[:, 2] - boxes[:, 0]) * aspect, boxes[:, 3] - boxes[:, 1])
    ref = keep & ~edge & (scores >= float(cfg["sure_score"]))
    if edge.any() and ref.any():
        tile = float(np.median(short[ref]))
        for i in np.flatnonzero(edge):
            # cut to a sliver, or cut and doubted by the tile check: part of a tile
            if short[i] < float(cfg["sliver"]) * tile or (short[i] < float(cfg["flag_sliver"]) * tile and doubted[i]):
                keep[i] = False
            elif short[i] < float(cfg["flag_sliver"]) * tile:
                flag(i, CUT)

    # blank faces on unsure boxes: a patch of table or a tile's side reads as a back or 白板
    for i in np.flatnonzero((cls == BACK) | (cls == WHITE)):
        if scores[i] < float(cfg["blank_min_score"]):
            flag(i, BLANK_UNSURE)

    # a flagged box the classifier cannot read either: a sliver at the photo's edge kept as 白板 at
    # 0.06, an automatic table's plate read as a back at 0.11 (flagged real tiles read 0.13 or more)
    for i in np.flatnonzero(keep & (scores * p < float(cfg["flag_drop_below"]))):
        if suspect[i] is not None:
            keep[i] = False
    return keep, [s if k else None for s, k in zip(suspect, keep)]
