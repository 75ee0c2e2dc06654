"""How much of each box's face has the colour of the photo's faces.

Every face of a set is printed on the same ground (white, ivory, a red or jade body), and ink
covers the smaller part of it: even a 1筒's big circle leaves its corners bare. A box on a dark
card holder, a carbon dial or a green felt texture that the detector takes for a tile has none
of that ground; the classifier reads such a box as some face, unsure. So each box's share of
face pixels lying near the ground colour of the photo's other faces tells a face of the player's
set from a thing on the table; the screening (vision/screen.py, "unlike_share") drops unsure boxes
with almost none. Measured on 13 sets and 216 cut close-ups (models/README.md, "Faces unlike the
photo's faces").

    >>> crops = np.full((5, 96, 96, 3), 235, np.uint8); crops[4] = 40  # four white faces; a dark box
    >>> p = np.zeros((5, 43), np.float32); p[:, 0] = 0.9
    >>> ground_shares(crops, p, DEFAULTS).round(2).tolist()
    [1.0, 1.0, 1.0, 1.0, 0.0]
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.crops import face_pixels
from vision.screen import BACK, WHITE  # blank faces: a back's colour is rightly not the faces'
# near: the largest distance (OpenCV 8-bit Lab) from the ground colour a pixel may lie at to count
# as ground. min_faces: other faces (top class not blank, read at least `sure`) the ground is the
# median colour of (the median of each face's pixels: on most faces the ground, on a dense one the
# ink, and the median over the faces is the ground again); with fewer, every box's share is 1
# (nothing to compare with). inset: the part of the box's edge left out, as in vision/blanks.py.
# Each face's commonest colour (a 16-wide Lab cell's mean) in place of its median lost 5 labelled
# tiles read under 0.4 for 35 phantoms, against none for 23 (models/README.md).
DEFAULTS = {"near": 35.0, "min_faces": 3, "sure": 0.5, "inset": 0.2}


def ground_shares(crops: np.ndarray, p_cls: np.ndarray, settings: dict | None,
                  ask: np.ndarray | None = None) -> np.ndarray | None:
    """(N,) for one photo's stored crops and class probabilities: the share of each asked crop's
    face pixels (ask: a mask, None for all) within `near` of the median face colour of the photo's
    other sure faces, 1 where not asked; None with settings None. Only the crops the answer needs
    are read, a face's share from every other pixel and its colour from every fourth (a median
    and a share of one part in fifty need no more)."""
    if settings is None:
        return None
    cfg = {**DEFAULTS, **settings}
    n = len(p_cls)
    shares = np.ones(n, np.float32)
    ask = np.ones(n, bool) if ask is None else np.asarray(ask, bool).reshape(n)
    faces = ~np.isin(p_cls.argmax(1), (BACK, WHITE)) & (p_cls.max(1) >= float(cfg["sure"]))
    min_faces = int(cfg["min_faces"])
    if not ask.any() or faces.sum() < min_faces:
        return shares
    read = np.flatnonzero(faces | ask)
    pixels = face_pixels(crops[read], cv2.COLOR_BGR2LAB, float(cfg["inset"]))[:, ::2]
    colours = np.median(pixels[:, ::2], axis=1)
    is_face = faces[read]
    everyone = np.median(colours[is_face], axis=0)
    for k in np.flatnonzero(ask[read]):
        others = is_face.copy()
        others[k] = False  # a box is compared with the other faces, never with itself
        if others.sum() < min_faces:
            continue
        ground = np.median(colours[others], axis=0) if is_face[k] else everyone
        shares[read[k]] = float((((pixels[k] - ground) ** 2).sum(1) < float(cfg["near"]) ** 2).mean())
    return shares
