"""A blank top the colour of the photo's faces is a face (白板), not a back.

From above, a face-down tile and a 白板 are both a blank rectangle; what tells them apart on a
real set is colour: a set's backs are a layer of another colour (green, blue, yellow, pink,
black) than its faces. The classifier cannot know the colours of a set it never saw, and read
a red-bodied set's blank 白板 as backs (11 of its 25 on the style study's held-out red draws).
So a box read as a back whose face, inside its box, has the colour of the photo's faces is
read 白板 instead: its back and 白板 probabilities swap.

A whole-body set (one colour through) shows its backs in the faces' colour too, and there a
back and a frameless 白板 look the same. Face-down tiles come in runs (a concealed kong shows
two or four, a wall many), a 白板 most often alone: so only a photo's one face-coloured blank is
read 白板 (max_white), and two or more are left as the classifier reads them. The cost: a lone
face-down tile of a whole-body set reads 白板 (on drawn red whole-body hands with runs of one to
four face-down tiles, 3 of 82 backs; with four allowed, 26).

Where a photo shows two or more, where each lies tells (run_gap): a blank in a row of face-up
tiles and beside no other face-coloured blank is a 白板 held in a hand; one beside another is
in a run of face-down tiles; one beside nothing (tiles scattered face down for a shuffle) is
left as read. The drawn red hands' 白板 held two to a photo were read as backs before.

    >>> crops = np.full((5, 96, 96, 3), 235, np.uint8); crops[4] = (40, 120, 40)  # 4 faces; a green back
    >>> p = np.zeros((5, 43), np.float32); p[:3, 0] = 1.0; p[3, 42] = 0.6; p[3, 33] = 0.4; p[4, 42] = 1.0
    >>> out = blank_faces(crops, p, DEFAULTS)
    >>> out[:, [33, 42]].argmax(1)[3:].tolist()  # the white blank is a 白板; the green one a back
    [0, 1]
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.crops import face_pixels
from vision.screen import BACK, WHITE
# min_faces: face-up tiles (top class neither blank, at least `sure`) the photo's face colour is
# taken from. A set never seen is read unsure (the red draws had 0-6 faces at 0.9 a photo, and 0.9
# let 4 of 11 blanks through, 0.5 all); a misread face is still a face, and its colour counts.
# face_like: the largest distance (OpenCV 8-bit Lab) from that colour a back's face may lie at to
# count as a face. On every set measured (2026-12-05, models/README.md "Blank faces by colour")
# labelled backs of another colour lay 37 or more from the faces, the 白板 read as backs 5.5-19
# (two more at 33 and 53); 20 leaves the backs a margin. max_white: see above. run_gap: the gap
# between two tiles side by side, as a share of a tile's short side, under which they are beside
# each other (null: the count max_white alone decides).
DEFAULTS = {"min_faces": 3, "sure": 0.5, "face_like": 20.0, "max_white": 1, "inset": 0.2, "run_gap": 0.25}


def face_colours(crops: np.ndarray, inset: float) -> np.ndarray:
    """(N, 3) the median Lab colour of each stored crop's face, inside its box less inset: the
    ground of a face, ink being the smaller part of it."""
    if not len(crops):
        return np.zeros((0, 3), np.float32)
    return np.median(face_pixels(crops, cv2.COLOR_BGR2LAB, inset), axis=1).astype(np.float32)


def beside(boxes: np.ndarray, these: np.ndarray, those: np.ndarray, gap: float) -> np.ndarray:
    """For each box (xyxy): is it one of these with one of those (another box) beside it, in a row
    or a column: the gap between them under gap times the boxes' median short side, facing each
    other over at least half the smaller one's side?

    >>> b = np.array([[0, 0, 30, 40], [32, 0, 62, 40], [100, 0, 130, 40], [0, 100, 30, 140]], float)
    >>> beside(b, np.array([True, True, True, True]), np.array([True, True, True, False]), 0.25).tolist()
    [True, True, False, False]
    """
    short = float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    out = np.zeros(len(boxes), bool)
    for i in np.flatnonzero(these):
        for j in np.flatnonzero(those):
            if i == j:
                continue
            for x, y in ((0, 1), (1, 0)):  # side by side along x, facing over y; then the other way
                between = max(boxes[i, x], boxes[j, x]) - min(boxes[i, x + 2], boxes[j, x + 2])
                facing = min(boxes[i, y + 2], boxes[j, y + 2]) - max(boxes[i, y], boxes[j, y])
                side = min(boxes[i, y + 2] - boxes[i, y], boxes[j, y + 2] - boxes[j, y])
                out[i] |= between < gap * short and facing >= 0.5 * side
    return out


def blank_faces(crops: np.ndarray, p_cls: np.ndarray, settings: dict | None,
                boxes: np.ndarray | None = None) -> np.ndarray:
    """p_cls (N, 43) with back and 白板 swapped on the boxes read as backs whose crops (one
    photo's stored crops) have the colour of the photo's faces; unchanged with settings None.
    With boxes and a run_gap setting, a face-coloured blank in a row of faces and beside no other
    such blank is a 白板 whatever their count (max_white)."""
    if settings is None or not len(p_cls):
        return p_cls
    cfg = {**DEFAULTS, **settings}
    top, sure = p_cls.argmax(1), p_cls.max(1)
    faces = ~np.isin(top, (BACK, WHITE)) & (sure >= float(cfg["sure"]))
    backs = top == BACK
    if faces.sum() < int(cfg["min_faces"]) or not backs.any():
        return p_cls
    colours = face_colours(crops, float(cfg["inset"]))
    ground = np.median(colours[faces], axis=0)
    like = np.linalg.norm(colours - ground, axis=1) < float(cfg["face_like"])
    blank_like = like & np.isin(top, (BACK, WHITE))
    if boxes is not None and cfg.get("run_gap") is not None:
        # in a row of faces and beside no other such blank: a 白板 in a hand; beside another: a run
        # of face-down tiles; beside nothing: the count below decides, as without boxes
        b, gap = np.asarray(boxes, np.float64).reshape(-1, 4), float(cfg["run_gap"])
        run = beside(b, blank_like, blank_like, gap)
        in_row = beside(b, blank_like & ~run, ~np.isin(top, (BACK, WHITE)), gap)
        if blank_like.sum() > int(cfg["max_white"]):
            like &= in_row
        else:
            like &= ~run
    elif blank_like.sum() > int(cfg["max_white"]):
        return p_cls  # a run of face-coloured blanks: a whole-body set's face-down tiles
    out = p_cls.copy()
    swap = backs & like
    out[swap, BACK], out[swap, WHITE] = p_cls[swap, WHITE], p_cls[swap, BACK]
    return out
