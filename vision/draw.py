"""Annotating a photo with what was recognized: a box and an engine-notation label per tile."""
from __future__ import annotations

import cv2
import numpy as np

from .layout import doubted

# BGR colours by the tile's role in the layout
COLOURS = {"concealed": (60, 180, 60), "meld": (220, 120, 20), "winning": (40, 40, 230),
           "flower": (200, 60, 200), "unplaced": (0, 200, 255)}
FLAGGED = (0, 140, 255)
FONT = cv2.FONT_HERSHEY_SIMPLEX
# The page shows the photo as wide as a phone (about 360 CSS px): a label's text stands this share of
# the photo's width, about 10 px there. Sized by each box instead, a row of 17 tiles got 5 px labels.
LABEL_HEIGHT = 0.028
LABEL_PAD = 0.2   # the label's margin around its text, a share of the text's height
LANES = 4         # rows of labels tried above a tile, then below it, before one may cover another


def roles(layout: dict) -> dict[int, str]:
    """Input index -> role name (see COLOURS)."""
    role = {i: "concealed" for i in layout["concealed_indices"]}
    role.update({i: "flower" for i in layout["flower_indices"]})
    role.update({i: "unplaced" for i in layout["unplaced"]})
    for meld in layout["melds"]:
        role.update({i: "meld" for i in meld["indices"]})
    if layout["winning_index"] is not None:
        role[layout["winning_index"]] = "winning"
    return role


def label_font(width: int) -> tuple[float, int]:
    """(font scale, stroke) whose digits stand LABEL_HEIGHT of an image `width` px wide."""
    (_, unit), _ = cv2.getTextSize("8", FONT, 1.0, 1)
    height = LABEL_HEIGHT * width
    return height / unit, max(1, round(height / 9))


def ink(colour: tuple) -> tuple:
    """White or black text, whichever stands out more on `colour` (BGR): white on yellow is unreadable."""
    linear = [(c / 255) ** 2.2 for c in colour]
    luminance = 0.0722 * linear[0] + 0.7152 * linear[1] + 0.2126 * linear[2]
    return (0, 0, 0) if (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) else (255, 255, 255)


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _centred(box, size, shape, top) -> tuple:
    """The label (w, h) centred over the box at `top`, kept inside the image."""
    (w, h), (height, width) = size, shape[:2]
    x = min(max(0, round((box[0] + box[2] - w) / 2)), max(0, width - w))
    y = min(max(0, top), max(0, height - h))
    return (x, y, x + w, y + h)


def _lanes(box, size, shape) -> list[tuple]:
    """Where a label may stand outside its tile: lanes above it, then below it (a photo's top row
    has no room above)."""
    h, height = size[1], shape[0]
    tops = [box[1] - h * (k + 1) for k in range(LANES)] + [box[3] + h * k for k in range(LANES)]
    return [_centred(box, size, shape, y) for y in tops if 0 <= y and y + h <= height]


def _inset(box, by: int) -> tuple:
    return (box[0] + by, box[1] + by, box[2] - by, box[3] - by)


def place_labels(boxes: list, sizes: list, shape, slack: int = 0) -> list[tuple]:
    """A rectangle (x1, y1, x2, y2) per label (w, h) of `sizes`, none on another by more than `slack`
    (their margins: the texts stay apart). Best outside every tile (a box's loose edge may be grazed
    by `slack`), as in a row of tiles: labels as wide as the text is tall overflow a row of small
    tiles, so neighbours take the next lane up (left to right, so they alternate). Among tiles packed
    on all sides, on the top of its own tile rather than on another's."""
    placed: dict[int, tuple] = {}

    def free(r):
        return not any(_overlaps(_inset(r, slack), p) for p in placed.values())

    def clear(r):
        return free(r) and not any(_overlaps(_inset(r, slack), b) for b in boxes)

    for i in sorted(range(len(boxes)), key=lambda i: boxes[i][0]):
        lanes, own = _lanes(boxes[i], sizes[i], shape), _centred(boxes[i], sizes[i], shape, boxes[i][1])
        tries = [(lanes, clear), ([own], free), (lanes, free), ([own], lambda r: True)]
        placed[i] = next(r for rects, ok in tries for r in rects if ok(r))
    return [placed[i] for i in range(len(boxes))]


def _leader(out, box, rect, colour, thick) -> None:
    """A line from a label standing off its tile (a lane up or down) to the tile's near edge."""
    cx = (box[0] + box[2]) // 2
    start, end = (rect[1], box[3]) if rect[1] >= box[3] else (rect[3], box[1])
    if start != end and (rect[3] < box[1] or rect[1] > box[3]):
        cv2.line(out, (min(max(cx, rect[0]), rect[2] - 1), start), (cx, end), colour, thick, cv2.LINE_AA)


def draw_tiles(image: np.ndarray, tiles: list[dict], layout: dict) -> np.ndarray:
    """A copy of the BGR image with each tile boxed and labelled (cv2 text is ASCII: engine notation).

    Tiles read in doubt (`layout.doubted`) get a thicker box and a '?' after the label, the tiles
    the page's editor marks, so the photo and the hand ask about the same tiles.
    """
    out = image.copy()
    role = roles(layout)
    flagged = set(doubted(layout))  # a stored reading may predate layout["doubted"]
    thick = max(1, round(2 * max(out.shape[:2]) / 1000))  # box lines follow the photo's size
    font_scale, stroke = label_font(out.shape[1])
    boxes = [tuple(int(round(v)) for v in t["box"]) for t in tiles]
    labels = [t["tile"] + ("?" if i in flagged else "") for i, t in enumerate(tiles)]
    texts = [cv2.getTextSize(label, FONT, font_scale, stroke) for label in labels]
    pad = max(1, round(LABEL_PAD * LABEL_HEIGHT * out.shape[1]))
    sizes = [(tw + 2 * pad, th + base + 2 * pad) for (tw, th), base in texts]
    colours = [FLAGGED if i in flagged else COLOURS.get(role.get(i), COLOURS["unplaced"])
               for i in range(len(tiles))]
    for i, box in enumerate(boxes):
        cv2.rectangle(out, box[:2], box[2:], colours[i], thick * (2 if i in flagged else 1))
    for i, rect in enumerate(place_labels(boxes, sizes, out.shape, pad)):
        _leader(out, boxes[i], rect, colours[i], thick)
        cv2.rectangle(out, rect[:2], (rect[2] - 1, rect[3] - 1), colours[i], cv2.FILLED)
        cv2.putText(out, labels[i], (rect[0] + pad, rect[3] - pad - texts[i][1]), FONT, font_scale,
                    ink(colours[i]), stroke, cv2.LINE_AA)
    return out
