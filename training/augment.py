"""Numpy/cv2 augmentation of stored tile crops into classifier inputs (no flips: mirrored tiles do not exist)."""
from __future__ import annotations

import cv2
import numpy as np

from vision.crops import CLS_MARGIN


def photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Brightness, contrast, colour cast, gamma, blur, noise, JPEG: the ways phone photos differ."""
    x = img.astype(np.float32)
    x = (x - 128) * rng.uniform(0.7, 1.3) + 128 + rng.uniform(-35, 35)
    x *= rng.uniform(0.88, 1.12, 3)
    if rng.random() < 0.3:  # partial desaturation (dim light, white balance)
        g = x.mean(2, keepdims=True)
        x = g + (x - g) * rng.uniform(0.4, 1.0)
    x = np.clip(x, 0, 255)
    if rng.random() < 0.3:
        x = 255 * (x / 255) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.2))
    if rng.random() < 0.5:
        x = x + rng.normal(0, rng.uniform(1, 7), x.shape)
    x = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, enc = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        x = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    if rng.random() < 0.25:  # resolution loss: far-away tiles
        s = int(rng.integers(max(12, x.shape[0] // 3), x.shape[0]))
        x = cv2.resize(cv2.resize(x, (s, s), interpolation=cv2.INTER_AREA), x.shape[:2][::-1])
    return x


def erase_corners(img: np.ndarray, rng: np.random.Generator, count: int = 2, width: float = 0.3,
                  height: float = 0.24) -> np.ndarray:
    """Paint count of the tile face's four corners (chosen at random) in the face's own ground colour.

    HK sets print a small index in a face's corner; Taiwanese sets don't. Hiding it on some
    character and honour crops makes the classifier read the big character, which every set has.
    img is a network-frame crop: the box fills all but CLS_MARGIN on each side.
    """
    n = img.shape[0]
    m = n * CLS_MARGIN / (1 + 2 * CLS_MARGIN)
    box = n - 2 * m
    w, h = int(round(box * width)), int(round(box * height))
    face = img[int(m):int(n - m), int(m):int(n - m)].reshape(-1, 3)
    light = face[face.sum(1) >= np.percentile(face.sum(1), 60)]  # the face's ground, not its ink
    colour = np.median(light, 0) if len(light) else np.median(face, 0)
    out = img.copy()
    for corner in rng.choice(4, size=count, replace=False):
        x0 = int(m) if corner % 2 == 0 else int(n - m) - w
        y0 = int(m) if corner < 2 else int(n - m) - h
        out[y0:y0 + h, x0:x0 + w] = np.clip(colour + rng.normal(0, 3, (h, w, 3)), 0, 255).astype(np.uint8)
    return out


def rotate_cw(img: np.ndarray, quarters: int) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(img, -(quarters % 4)))


def rot_mask(base: int | None, partial_pair: bool, quarters: int) -> np.ndarray:
    """Allowed rotation labels (4 bools) after turning a crop `quarters` clockwise.

    base None: unknown (no rotation supervision); partial_pair: base is base or base+2.
    """
    m = np.zeros(4, np.float32)
    if base is None:
        return m
    m[(base + quarters) % 4] = 1
    if partial_pair:
        m[(base + quarters + 2) % 4] = 1
    return m
