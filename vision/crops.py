"""The crop geometry shared by inference and training: a detector box -> the classifier's input.

Kept apart from training so that reading a photo needs only numpy, OpenCV and onnxruntime.
"""
from __future__ import annotations

import cv2
import numpy as np

CROP_STORE = 96  # side of the stored square crop (box + margin)
CROP_MARGIN = 0.2  # context kept around each box, as a share of its width/height
# The classifier's input frame.
CLS_INPUT = 64  # crop side fed to the network
CLS_MARGIN = 0.1  # context around the box in the network input, as share of box width/height



def cut_crop(image: np.ndarray, box, size: int = CROP_STORE, margin: float = CROP_MARGIN,
             turned: bool | None = None) -> tuple[np.ndarray, bool]:
    """Square crop of box + margin, resized to size x size, long side of the box turned vertical.

    Returns (crop, turned): turned is True when a landscape box was rotated 90 deg clockwise,
    so the classifier always sees tiles standing up or upside down, never lying. Pass turned
    to decide it yourself (a squashed photo, where the box's shape is not the tile's).
    """
    x1, y1, x2, y2 = [float(v) for v in box]
    w, h = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    src = np.float32([[x1 - margin * w, y1 - margin * h],
                      [x2 + margin * w, y1 - margin * h],
                      [x2 + margin * w, y2 + margin * h]])
    if turned is None:
        turned = w > h
    if turned:  # map the box's left edge to the crop's top: a 90 deg clockwise turn
        dst = np.float32([[size, 0], [size, size], [0, size]])
    else:
        dst = np.float32([[0, 0], [size, 0], [size, size]])
    m = cv2.getAffineTransform(src, dst)
    interp = cv2.INTER_AREA if max(w, h) * (1 + 2 * margin) > size else cv2.INTER_LINEAR
    crop = cv2.warpAffine(image, m, (size, size), flags=interp, borderMode=cv2.BORDER_REFLECT101)
    return crop, turned


def frame_matrix(store: int, out: int, rng: np.random.Generator | None, strength: float = 1.0,
                 scale: float = 1.0) -> np.ndarray:
    """Affine map from a stored crop (box + CROP_MARGIN) to the network frame (box + CLS_MARGIN),
    the box grown or shrunk by scale about its centre.

    With rng, the box is jittered (shift, scale, aspect, small rotation) as a detector's box would be.
    """
    box = store / (1 + 2 * CROP_MARGIN)  # box side inside the stored crop
    c = store / 2.0
    half = box * (0.5 + CLS_MARGIN) * scale
    sx = sy = 1.0
    dx = dy = 0.0
    ang = 0.0
    if rng is not None:
        s = rng.uniform(0.88, 1.12) ** strength
        a = rng.uniform(0.88, 1.14) ** strength
        sx, sy = s * a, s / a
        dx, dy = rng.uniform(-0.07, 0.07, 2) * box * strength
        ang = rng.uniform(-8, 8) * strength
    m = cv2.getRotationMatrix2D((c + dx, c + dy), ang, 1.0)
    # scale so that [c - half*sx, c + half*sx] maps onto [0, out]
    scale = np.array([[out / (2 * half * sx), 0], [0, out / (2 * half * sy)]])
    m2 = scale @ m[:, :2]
    t = scale @ (m[:, 2] - np.array([c + dx - half * sx, c + dy - half * sy]))
    return np.hstack([m2, t[:, None]]).astype(np.float32)


def to_input(crop: np.ndarray, rng: np.random.Generator | None = None, out: int = CLS_INPUT,
             strength: float = 1.0, scale: float = 1.0) -> np.ndarray:
    """Stored crop -> network-frame crop (out x out BGR uint8), jittered when rng is given, the
    box scaled by scale."""
    m = frame_matrix(crop.shape[0], out, rng, strength, scale)
    return cv2.warpAffine(crop, m, (out, out), flags=cv2.INTER_AREA if crop.shape[0] > out * 1.3 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT101)


def face(crop: np.ndarray, inset: float = 0.1) -> np.ndarray:
    """The part of a stored crop inside its box, less inset of the box's side on each side
    (a tilted tile's box corners hold the table)."""
    n = crop.shape[0]
    a = int(round(n * (CROP_MARGIN + inset) / (1 + 2 * CROP_MARGIN)))
    return crop[a:n - a, a:n - a]


def face_pixels(crops, code: int, inset: float = 0.1) -> np.ndarray:
    """(N, pixels, channels): the face pixels (face(), less inset) of same-sized stored crops,
    converted by the OpenCV colour code in one call for all of them."""
    faces = np.stack([face(c, inset) for c in crops])
    n, h, w = faces.shape[:3]
    return cv2.cvtColor(faces.reshape(n * h, w, 3), code).reshape(n, h * w, -1)


def inks_are_light(crops, ratio: float) -> np.ndarray:
    """For each of same-sized crops: is the tile's ink lighter than its ground, as on red, black
    or jade bodies with white or gold line art? The face's grey levels then reach further above
    their median (the ground) than below it. A dense face (8筒) of a white tile can pass too, its
    median being ink: decide for a photo's tiles together (light_ink_share)."""
    if len({c.shape for c in crops}) > 1:  # crops of several sizes: each on its own
        return np.array([inks_are_light([c], ratio)[0] for c in crops], bool)
    # one conversion and one percentile call for all: per crop they took 3% of a photo's time
    y = face_pixels(crops, cv2.COLOR_BGR2GRAY)[..., 0].astype(np.float32)
    low, mid, high = np.percentile(y, (5, 50, 95), axis=1)
    return high - mid > ratio * np.maximum(mid - low, 1.0)


def light_ink_share(crops, ratio: float) -> float:
    """The share of crops whose ink is light (0 for none)."""
    return float(np.mean(inks_are_light(crops, ratio))) if len(crops) else 0.0


def light_ink_set(crops, settings: dict | None) -> bool:
    """Are these crops (one photo's, or one set's) of a set with light ink, under the recognizer's
    light_ink settings (vision.model DEFAULTS["light_ink"]; None: never)?"""
    return bool(settings) and light_ink_share(crops, float(settings["ratio"])) > float(settings["photo_share"])


def dark_ink(crop: np.ndarray) -> np.ndarray:
    """A light-ink crop as dark ink on a light ground, in grey: the polarity the classifier
    trained on most (a red body's white strokes come out black on a light grey)."""
    return cv2.cvtColor(255 - cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
