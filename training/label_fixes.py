"""Reviewed corrections to labels of a public data set, applied when scoring.

The valid split we measure on has labels that contradict the printed tile (four dots labelled
5p, 伍萬 labelled 5p), labels repeated on one tile, and tiles left unlabelled. Each fix in
label_fixes.json names the photo, the label's centre and class as published, the corrected class
(or null to drop the label) and why. A fix applies only where all three still match, so the file
never touches another copy of the data or a photo whose labels were since corrected upstream.
An `add` entry (class and YOLO box) labels a tile the photo's labels leave out; it applies only
where no label's centre lies in its box (upstream may label it since).

>>> rows = np.array([[12, 0.5, 0.5, 0.1, 0.1], [13, 0.7, 0.5, 0.1, 0.1]], np.float32)
>>> fixes = {"a.jpg": [{"center": [0.7, 0.5], "labelled": "5p", "fix": "4p"}]}
>>> fixed, n = apply_fixes("a.jpg", rows, fixes)
>>> fixed[:, 0].tolist(), n
([12.0, 12.0], 1)
>>> fixes = {"a.jpg": [{"add": "1m", "box": [0.2, 0.5, 0.1, 0.1]}, {"add": "1m", "box": [0.5, 0.5, 0.1, 0.1]}]}
>>> fixed, n = apply_fixes("a.jpg", rows, fixes)
>>> fixed[:, 0].tolist(), n
([12.0, 13.0, 0.0], 1)
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.classes import CLASS_NAMES

FIXES_FILE = Path(__file__).resolve().parent / "label_fixes.json"
CENTER_TOLERANCE = 2e-3  # the file keeps centres to 4 decimals


def load_fixes(path: Path = FIXES_FILE) -> dict[str, list[dict]]:
    """Fixes by photo file name."""
    by_image: dict[str, list[dict]] = {}
    for fix in json.loads(Path(path).read_text(encoding="utf-8"))["fixes"]:
        by_image.setdefault(fix["image"], []).append(fix)
    return by_image


def apply_fixes(image_name: str, labels: np.ndarray, fixes: dict[str, list[dict]]) -> tuple[np.ndarray, int]:
    """(labels with the photo's fixes applied, how many applied); labels are YOLO rows cls xc yc w h."""
    entries = fixes.get(image_name, ())
    if not entries:
        return labels, 0
    labels = labels.copy()
    keep = np.ones(len(labels), bool)
    applied = 0
    added = []
    for fix in entries:
        if "add" in fix:
            box = np.asarray(fix["box"], np.float32)
            if not (np.abs(labels[:, 1:3] - box[:2]) <= box[2:] / 2).all(1).any():
                added.append([CLASS_NAMES.index(fix["add"]), *box])
                applied += 1
            continue
        published = CLASS_NAMES.index(fix["labelled"])
        near = np.abs(labels[:, 1:3] - np.asarray(fix["center"], np.float32)).max(1) <= CENTER_TOLERANCE
        match = np.flatnonzero(near & (labels[:, 0] == published) & keep)
        if not len(match):
            continue
        if fix["fix"] is None:
            keep[match[0]] = False
        else:
            labels[match[0], 0] = CLASS_NAMES.index(fix["fix"])
        applied += 1
    return np.concatenate([labels[keep], np.asarray(added, np.float32).reshape(-1, 5)]), applied
