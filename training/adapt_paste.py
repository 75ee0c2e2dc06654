"""Photos composed from the player's own confirmed tiles, for the detector's adapt fine-tune.

Five corrected photos give the detector a few dozen tiles in one or two arrangements, at one
scale: ten epochs of them are ten optimizer steps, and on the adapt study's red-bodied set the
tuned detector never did better on the held photo, so it was never installed. Cutting every
confirmed tile out of the photos and laying the cut-outs again, touching in rows or loose, at
other sizes and turned by quarter turns, on the player's own table (a tile-free part of their
photos) or on a drawn one, gives the detector many arrangements of exactly the player's tiles.
The boxes of the pasted tiles are exact by construction. adapt_detector(pasted=N) uses them;
they are off as shipped: on the red-bodied study they helped one draw of test photos and hurt the
other (training/adapt_detector.py's doc, models/README.md).

    >>> import numpy as np
    >>> img = np.full((120, 160, 3), 90, np.uint8); img[40:80, 20:50] = 230; img[40:80, 50:80] = 220
    >>> out = pasted_photos([(img, [[20, 40, 50, 80], [50, 40, 80, 80]])], 2, np.random.default_rng(0), side=96)
    >>> len(out), out[0][0].shape[2], all(len(b) > 0 for _, b in out)
    (2, 3, True)
"""
from __future__ import annotations

import cv2
import numpy as np

from training import scenes

MIN_SIDE = 8  # px: a confirmed box thinner than this is no tile to paste


def cut_tiles(photos) -> list[np.ndarray]:
    """Every confirmed tile of [(BGR image, boxes xyxy)] as its own BGR crop, each scaled so that
    its photo's median tile is 100 px tall (a sideways tile stays wider than tall)."""
    tiles = []
    for img, boxes in photos:
        b = np.asarray(boxes, np.float32).reshape(-1, 4)
        if not len(b):
            continue
        h, w = img.shape[:2]
        b = np.clip(np.round(b), 0, [w, h, w, h]).astype(int)
        sizes = b[:, 2:] - b[:, :2]
        keep = (sizes >= MIN_SIDE).all(1)
        if not keep.any():
            continue
        typical = float(np.median(sizes[keep].max(1)))
        for (x0, y0, x1, y1), ok in zip(b, keep):
            if ok:
                f = 100.0 / typical
                crop = img[y0:y1, x0:x1]
                tiles.append(cv2.resize(crop, (max(2, round((x1 - x0) * f)), max(2, round((y1 - y0) * f))),
                                        interpolation=cv2.INTER_AREA))
    return tiles


def free_patches(photos, min_side: int = 48) -> list[np.ndarray]:
    """The largest tile-free rectangle found of each photo (a piece of the player's table), if any."""
    patches = []
    for img, boxes in photos:
        h, w = img.shape[:2]
        busy = np.zeros((h, w), np.uint8)
        for x0, y0, x1, y1 in np.asarray(boxes, np.float32).reshape(-1, 4).astype(int):
            busy[max(0, y0 - 4):y1 + 4, max(0, x0 - 4):x1 + 4] = 1
        best, rng = None, np.random.default_rng(len(patches))
        for _ in range(60):  # random rectangles; keep the biggest empty one
            pw, ph = (int(v) for v in rng.uniform(0.2, 0.9, 2) * (w, h))
            x, y = int(rng.integers(0, w - pw + 1)), int(rng.integers(0, h - ph + 1))
            if min(pw, ph) >= min_side and not busy[y:y + ph, x:x + pw].any():
                if best is None or pw * ph > best[2] * best[3]:
                    best = (x, y, pw, ph)
        if best is not None:
            x, y, pw, ph = best
            patches.append(img[y:y + ph, x:x + pw])
    return patches


def _table(side: int, rng: np.random.Generator, patches: list, body) -> np.ndarray:
    """Half the time the player's own table (a free patch, mirrored to fill), else a drawn one."""
    if patches and rng.random() < 0.5:
        p = patches[int(rng.integers(len(patches)))]
        reps = (int(np.ceil(side / p.shape[0])) + 1, int(np.ceil(side / p.shape[1])) + 1)
        tiled = np.vstack([np.hstack([p if (i + j) % 2 == 0 else p[:, ::-1] for j in range(reps[1])])
                           if i % 2 == 0 else
                           np.hstack([p[::-1] if (i + j) % 2 == 0 else p[::-1, ::-1] for j in range(reps[1])])
                           for i in range(reps[0])])
        return np.ascontiguousarray(tiled[:side, :side])
    return scenes.table_top(side, side, rng, hard=0.3, body=body)


def _rows(tiles: list, rng: np.random.Generator, side: int, max_tiles: int) -> list[tuple[np.ndarray, int, int]]:
    """Tiles in rows, touching or a little apart, as a hand lies: [(tile image, x, y)]."""
    th = int(side * rng.uniform(0.06, 0.22) if max_tiles > 6 else side * rng.uniform(0.25, 0.6))
    placed, y = [], int(rng.uniform(0.02, 0.3) * side)
    while y + th * 1.1 < side and len(placed) < max_tiles:
        x = int(rng.uniform(0.0, 0.25) * side)
        gap = rng.choice([0.0, 0.0, rng.uniform(0.02, 0.3)])  # rows mostly touch
        row_h = 0
        for _ in range(int(rng.integers(1, max_tiles - len(placed) + 1))):
            t = tiles[int(rng.integers(len(tiles)))]
            f = th / 100.0
            tw, tt = max(2, int(t.shape[1] * f)), max(2, int(t.shape[0] * f))
            if x + tw > side or y + tt > side:
                break
            placed.append((cv2.resize(t, (tw, tt), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR),
                           x, y + int(rng.uniform(-0.03, 0.03) * th) if y > th else y))
            x += tw + int(gap * tw)
            row_h = max(row_h, tt)
        y += row_h + int(rng.uniform(0.2, 1.5) * th)
    return placed


def _loose(tiles: list, rng: np.random.Generator, side: int, max_tiles: int) -> list[tuple[np.ndarray, int, int]]:
    """Tiles lying apart, each turned by a quarter turn or not, never overlapping."""
    th = int(side * rng.uniform(0.05, 0.18) if max_tiles > 6 else side * rng.uniform(0.25, 0.6))
    taken = np.zeros((side, side), bool)
    placed = []
    for _ in range(int(rng.integers(1, max_tiles + 1)) * 3):
        if len(placed) >= max_tiles:
            break
        t = np.rot90(tiles[int(rng.integers(len(tiles)))], int(rng.integers(4)))
        f = th / 100.0
        tw, tt = max(2, int(t.shape[1] * f)), max(2, int(t.shape[0] * f))
        if tw >= side or tt >= side:
            continue
        x, y = int(rng.integers(0, side - tw)), int(rng.integers(0, side - tt))
        if taken[y:y + tt, x:x + tw].any():
            continue
        taken[y:y + tt, x:x + tw] = True
        placed.append((cv2.resize(np.ascontiguousarray(t), (tw, tt)), x, y))
    return placed


def pasted_photos(photos, count: int, rng: np.random.Generator, side: int = 640,
                  max_tiles: int = 24) -> list[tuple[np.ndarray, np.ndarray]]:
    """count square photos (BGR, boxes xyxy) of the confirmed tiles of photos laid anew; at most
    max_tiles each (a close-up detector's photos hold few, large tiles). [] without a tile to cut."""
    tiles = cut_tiles(photos)
    if not tiles:
        return []
    patches = free_patches(photos)
    body = np.median([t.reshape(-1, 3).mean(0) for t in tiles], 0)  # the tiles' colour, for near-colour tables
    out = []
    while len(out) < count:
        img = _table(side, rng, patches, body).astype(np.float32)
        placed = (_rows if rng.random() < 0.65 else _loose)(tiles, rng, side, max_tiles)
        if not placed:
            continue
        boxes = []
        for t, x, y in placed:
            tt, tw = t.shape[:2]
            y, x = max(0, min(y, side - tt)), max(0, min(x, side - tw))
            img[y:y + tt, x:x + tw] = t
            boxes.append([x, y, x + tw, y + tt])
        img = img * rng.uniform(0.7, 1.25) + rng.uniform(-20, 20)  # the light of another moment
        if rng.random() < 0.3:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.5))
        img, boxes = np.clip(img, 0, 255).astype(np.uint8), np.asarray(boxes, np.float32)
        k = int(rng.integers(4))  # a whole photo's quarter turn: rows running down the photo
        for _ in range(k):
            img = np.ascontiguousarray(np.rot90(img))  # counter-clockwise: (x, y) -> (y, side - x)
            boxes = np.stack([boxes[:, 1], side - boxes[:, 2], boxes[:, 3], side - boxes[:, 0]], 1)
        out.append((img, boxes))
    return out
