"""A close tile boxed as its parts, joined again.

Close up, the detector can box a tile's circles or stick columns one by one: a 4筒 as four 1筒,
a 9條 as three 3條. Each part is then a tile in the answer, and the tile itself is missed. A group
of boxes is a candidate whole where

- they are read as the same tile of one suit and lie together (gaps under `gap` times their short
  side), two or more;
- each is at most `max_share` of the box round them all (two real tiles side by side are half
  each), and that box is tile-shaped (long side at most `max_aspect` times the short);
- no other tile lies in it (at most `max_inside` of any other box's area): real tiles in a block,
  a pair above a pair, are such a group, and the block's other tiles lie inside its box.

Parts of a tile in an art the classifier does not know are often read as nothing it is sure of
(a 5筒's circles on a black body as 西 and 白板 at 0.2): boxes read under `unsure_below`
(detector score x class probability) are candidates too, whatever their classes, by the same
tests, where no group above holds them.

The box round a candidate, grown by `grow` each side (the parts lie on the face, the body is
larger), is read by the classifier and the tile check. The parts become that one tile where the
classifier is at least `min_p` sure it is a tile of the same suit holding all their circles or
sticks (a 4筒 for four 1筒, a 9條 for three 3條; parts read unsure: a 筒 or 條 tile holding at
least as many circles or sticks as there are parts) and the check gives it `min_tile`. Two
columns of a 6條 stay apart: each is nearly half the box round both, as two real tiles side by
side are.

    >>> circles = np.array([[0, 0, 10, 10], [14, 0, 24, 10], [0, 14, 10, 24], [14, 14, 24, 24]], np.float32)
    >>> [([int(i) for i in g], [round(float(v), 1) for v in box], c)
    ...  for g, box, c in part_groups(circles, np.full(4, 9), (100, 100), JOIN_DEFAULTS)]
    [([0, 1, 2, 3], [0.0, 0.0, 27.6, 27.6], 9)]
    >>> p = np.zeros(43, np.float32); p[12] = 0.9  # the box round them read 4筒
    >>> is_whole_of(9, 4, p, 1.0, JOIN_DEFAULTS), is_whole_of(9, 5, p, 1.0, JOIN_DEFAULTS)
    (True, False)
    >>> is_whole_of(None, 4, p, 1.0, JOIN_DEFAULTS)  # four parts read unsure, as anything
    True
"""
from __future__ import annotations

import numpy as np

from vision.screen import inside_share

# Swept on nothing finer than the style study's drawn close-ups, where a 4筒 came as three and as
# four 1筒: on the valid split, the pink session and every drawn set no group of real tiles passes
# all the tests (2026-12-05, models/README.md "A close tile boxed as its parts"). unsure_below:
# the parts of three close tiles read as 西, 白板 and backs at 0.1-0.35 (2026-12-06, "Parts read
# as nothing sure"); null: only parts read as one 筒 or 條 class are joined. min_p 0.8 -> 0.6 then:
# a 6筒's six parts read it at 0.68; of 26 candidates refused on 15 sets, the valid split's and
# the pink session's included, none read a 筒 or 條 tile at 0.6 or more (0.54 at most).
JOIN_DEFAULTS = {"gap": 0.5, "max_share": 0.4, "max_aspect": 1.6, "max_inside": 0.3, "grow": 0.15,
                 "min_p": 0.6, "min_tile": 0.5, "unsure_below": 0.4}
SUITS = (9, 18)  # the first class of the circles (1p-9p) and of the sticks (1s-9s)


def suit_count(cls: int) -> tuple[int, int]:
    """(first class of its suit, circles or sticks it holds) for a 筒 or 條 class; (-1, 0) else.

    >>> suit_count(12), suit_count(23), suit_count(31)
    ((9, 4), (18, 6), (-1, 0))
    """
    for first in SUITS:
        if first <= cls < first + 9:
            return first, cls - first + 1
    return -1, 0


def _touching_groups(boxes: np.ndarray, gap: float) -> list[list[int]]:
    """Indices of boxes joined by chains of boxes at most gap x their short side apart."""
    n = len(boxes)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    short = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    for a in range(n):
        for b in range(a + 1, n):
            dx = max(0.0, max(boxes[a, 0], boxes[b, 0]) - min(boxes[a, 2], boxes[b, 2]))
            dy = max(0.0, max(boxes[a, 1], boxes[b, 1]) - min(boxes[a, 3], boxes[b, 3]))
            if max(dx, dy) <= gap * min(short[a], short[b]):
                parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _whole_round(members: np.ndarray, boxes: np.ndarray, shape: tuple[int, int], settings: dict) -> np.ndarray | None:
    """The box round these boxes, grown by settings' `grow` and inside the photo, where they pass
    the tests of a candidate (each a small share of it, a tile's shape, no other tile inside);
    None where they do not."""
    h, w = shape
    x0, y0 = boxes[members, :2].min(0)
    x1, y1 = boxes[members, 2:].max(0)
    bw, bh = x1 - x0, y1 - y0
    areas = (boxes[members, 2] - boxes[members, 0]) * (boxes[members, 3] - boxes[members, 1])
    if areas.max() > float(settings["max_share"]) * bw * bh or \
            max(bw, bh) > float(settings["max_aspect"]) * min(bw, bh):
        return None
    g = float(settings["grow"])
    whole = np.array([max(0.0, x0 - g * bw), max(0.0, y0 - g * bh), min(float(w), x1 + g * bw),
                      min(float(h), y1 + g * bh)], np.float32)
    others = np.setdiff1d(np.arange(len(boxes)), members)
    if len(others) and (inside_share(boxes[others], whole[None])[:, 0] > float(settings["max_inside"])).any():
        return None
    return whole


def _candidates(boxes: np.ndarray, among: np.ndarray, shape: tuple[int, int], settings: dict
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """(parts, whole) for each group of two or more of the boxes `among` (indices) lying together
    that passes the tests of a candidate."""
    out = []
    for group in _touching_groups(boxes[among], float(settings["gap"])):
        if len(group) < 2:
            continue
        members = among[group]
        whole = _whole_round(members, boxes, shape, settings)
        if whole is not None:
            out.append((members, whole))
    return out


def part_groups(boxes: np.ndarray, cls: np.ndarray, shape: tuple[int, int], settings: dict,
                confidence: np.ndarray | None = None) -> list[tuple[np.ndarray, np.ndarray, int | None]]:
    """The candidate wholes among a photo's tiles (boxes xyxy, classes, detector score x class
    probability; shape the photo's h, w): (indices of the parts, the box round them grown by
    settings' `grow`, inside the photo, the class the parts are read as: None for parts read
    under `unsure_below` as anything)."""
    out = []
    for c in sorted({int(x) for x in cls}):
        if suit_count(c)[0] >= 0:
            out += [(members, whole, c) for members, whole in _candidates(boxes, np.flatnonzero(cls == c), shape, settings)]
    below = settings.get("unsure_below")
    if confidence is not None and below is not None:
        taken = np.concatenate([m for m, _, _ in out]) if out else np.zeros(0, np.int64)
        unsure = np.setdiff1d(np.flatnonzero(np.asarray(confidence) < float(below)), taken)
        out += [(members, whole, None) for members, whole in _candidates(boxes, unsure, shape, settings)]
    return out


def is_whole_of(part_cls: int | None, n_parts: int, p_cls: np.ndarray, p_tile: float, settings: dict) -> bool:
    """Is the box round n_parts boxes read part_cls (None: read unsure, as anything) the one tile
    they are parts of? Its class probabilities p_cls (43) and the tile check's p_tile say: a tile
    of the same suit (of either suit for parts read unsure), sure, that holds all their circles or
    sticks (a circle or stick or more each, for parts read unsure)."""
    top = int(np.argmax(p_cls))
    suit, count = suit_count(top)
    part_suit, part_count = suit_count(part_cls) if part_cls is not None else (suit, 1)
    return (suit == part_suit >= 0 and count >= n_parts * part_count
            and float(p_cls[top]) >= float(settings["min_p"]) and p_tile >= float(settings["min_tile"]))
