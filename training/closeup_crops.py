"""Close-ups cut from labelled photos: a few neighbouring tiles enlarged to fill a photo.

A player photographs one tile or a few to score or check them, and close up the tiles are far
bigger than the detector's training tiles (the issue's 133 close-ups of a real set: 82% of tiles
right). The style study draws its own close-ups (`held-out-closeup`, one art, 30 photos); these
are cut from any labelled folder, so that close-ups of every art and table at hand can be read:
drawn sets of the held-out style on red, ivory and white bodies, face-down runs, KDE's
`traditional`. Each crop takes a tile and its nearest 1-3 neighbours (by centre), grows the box
round them by `margin` of its long side, and is enlarged so that its long side is `side` px.

Labels: every tile lying at least `min_inside` inside the crop, its box cut at the crop's edge;
a smaller sliver of a tile at the edge is left unlabelled (a reader may still box it: it counts as
an extra for every recognizer alike).

    python -m training.closeup_crops --from /tmp/style-study/held-out-red [--from ...]
        --out /tmp/closeup-crops [--photos 12] [--per-photo 3] [--side 900] [--seed 7]

    >>> boxes = np.array([[0, 0, 10, 14], [11, 0, 21, 14], [60, 0, 70, 14]], np.float32)
    >>> crop_window(boxes, np.array([0, 1]), (100, 80), 0.15)
    (0, 0, 25, 18)
    >>> cls, kept = labels_in(np.array([5, 6, 7]), boxes, (0, 0, 25, 18), 0.6)
    >>> cls.tolist(), kept.tolist()
    ([5, 6], [[0.0, 0.0, 10.0, 14.0], [11.0, 0.0, 21.0, 14.0]])
"""
from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from training.dataset import labels_to_xyxy, list_pairs, read_labels, write_labels, xyxy_to_labels
from vision.screen import box_areas


def crop_window(boxes: np.ndarray, picked: np.ndarray, shape: tuple[int, int], margin: float
                ) -> tuple[int, int, int, int]:
    """x0, y0, x1, y1: the box round the picked boxes grown by margin x its long side, inside a
    photo of shape (h, w)."""
    h, w = shape
    (x0, y0), (x1, y1) = boxes[picked, :2].min(0), boxes[picked, 2:].max(0)
    m = margin * max(x1 - x0, y1 - y0)
    return int(max(0, x0 - m)), int(max(0, y0 - m)), int(min(w, np.ceil(x1 + m))), int(min(h, np.ceil(y1 + m)))


def labels_in(cls: np.ndarray, boxes: np.ndarray, window: tuple[int, int, int, int], min_inside: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """The classes and boxes (cut at the window, in its pixels) of the tiles at least min_inside
    of whose area lies inside the window."""
    x0, y0, x1, y1 = window
    cut = np.stack([np.clip(boxes[:, 0], x0, x1), np.clip(boxes[:, 1], y0, y1),
                    np.clip(boxes[:, 2], x0, x1), np.clip(boxes[:, 3], y0, y1)], 1)
    inside = box_areas(cut) >= min_inside * np.maximum(box_areas(boxes), 1e-9)
    return cls[inside], cut[inside] - np.array([x0, y0, x0, y0], np.float32)


def cut_closeups(folders: list[Path], out: Path, photos: int, per_photo: int, side: int, seed: int,
                 margin: float = 0.15, min_inside: float = 0.6) -> int:
    """Writes out/images/NNN.jpg and out/labels/NNN.txt, per_photo crops from each of the first
    `photos` photos of each folder; returns how many."""
    rng = np.random.default_rng(seed)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    n = 0
    for folder in folders:
        for image_path, label_path in list_pairs(folder)[:photos]:
            image = cv2.imread(str(image_path))
            if image is None:
                continue
            h, w = image.shape[:2]
            cls, boxes = labels_to_xyxy(read_labels(label_path), w, h)
            if not len(cls):
                continue
            centres = (boxes[:, :2] + boxes[:, 2:]) / 2
            for _ in range(per_photo):
                first = int(rng.integers(len(boxes)))
                near = np.argsort(np.linalg.norm(centres - centres[first], axis=1))[:int(rng.integers(2, 5))]
                window = crop_window(boxes, near, (h, w), margin)
                c, b = labels_in(cls, boxes, window, min_inside)
                x0, y0, x1, y1 = window
                scale = side / max(x1 - x0, y1 - y0)
                crop = cv2.resize(image[y0:y1, x0:x1], None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
                cv2.imwrite(str(out / "images" / f"{n:03d}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
                labels = xyxy_to_labels(c, b * scale, crop.shape[1], crop.shape[0])
                write_labels(out / "labels" / f"{n:03d}.txt", labels)
                n += 1
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="folders", action="append", required=True, type=Path, metavar="FOLDER")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--photos", type=int, default=12, help="photos of each folder to cut from")
    ap.add_argument("--per-photo", type=int, default=3)
    ap.add_argument("--side", type=int, default=900, help="the crops' long side, px")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    n = cut_closeups(args.folders, args.out, args.photos, args.per_photo, args.side, args.seed)
    print(f"{n} close-ups in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
