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

BACK, WHITE = 42, 33
# min_faces: face-up tiles (top class neither blank, at least `sure`) the photo's face colour is
# taken from. A set never seen is read unsure (the red draws had 0-6 faces at 0.9 a photo, and 0.9
# let 4 of 11 blanks through, 0.5 all); a misread face is still a face, and its colour counts.
# face_like: the largest distance (OpenCV 8-bit Lab) from that colour a back's face may lie at to
# count as a face. On every set measured (2026-12-05, models/README.md "Blank faces by colour")
# labelled backs of another colour lay 37 or more from the faces, the 白板 read as backs 5.5-19
# (two more at 33 and 53); 20 leaves the backs a margin. max_white: see above.
DEFAULTS = {"min_faces": 3, "sure": 0.5, "face_like": 20.0, "max_white": 1, "inset": 0.2}


def face_colours(crops: np.ndarray, inset: float) -> np.ndarray:
    """(N, 3) the median Lab colour of each stored crop's face, inside its box less inset: the
    ground of a face, ink being the smaller part of it."""
    if not len(crops):
        return np.zeros((0, 3), np.float32)
    return np.median(face_pixels(crops, cv2.COLOR_BGR2LAB, inset), axis=1).astype(np.float32)


def blank_faces(crops: np.ndarray, p_cls: np.ndarray, settings: dict | None) -> np.ndarray:
    """p_cls (N, 43) with back and 白板 swapped on the boxes read as backs whose crops (one
    photo's stored crops) have the colour of the photo's faces; unchanged with settings None."""
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
    if (like & np.isin(top, (BACK, WHITE))).sum() > int(cfg["max_white"]):
        return p_cls  # a run of face-coloured blanks: a whole-body set's face-down tiles
    out = p_cls.copy()
    swap = backs & like
    out[swap, BACK], out[swap, WHITE] = p_cls[swap, WHITE], p_cls[swap, BACK]
    return out
