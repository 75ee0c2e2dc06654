"""Tile sets of Debian's xmahjongg package, as faces for the studies (never trained on).

xmahjongg's `real.gif` is a scan of a real Chinese set (Mark Sanctuary, 1999; xmahjongg is
GPL-2+, so nothing of it is shipped): its 四 is written squat like an eye, its flowers and
seasons print their name (春, 梅, ...) and no number. It is read here only to measure how the
recognizer meets a real set's art it never saw (`python -m training.adapt_study --set
xmahjongg-real`). The sheet's grid and which class each cell holds are data (SHEETS).

    >>> sorted(SHEETS["xmahjongg-real"]["rows"][3])
    [27, 28, 29, 30, 34, 35, 36, 37]
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

TILES_DIR = Path("/usr/share/games/xmahjongg/tiles")

# Each sheet: its file, the x and y of its grid lines (pixels), the cells' classes row by row
# (vision/classes.json), and how many pixels of each cell's rim to leave out (the scan's edges).
SHEETS = {
    "xmahjongg-real": {
        "file": "real.gif",
        "xs": [0, 58, 118, 176, 235, 295, 354, 413, 473, 532],
        "ys": [0, 78, 158, 236, 316, 396],
        # 1-9筒; 1-9條; 1-9萬; 春夏秋冬 北南東西; 梅蘭菊竹 發 白 中 (the last cells hold the credits)
        "rows": [list(range(9, 18)), list(range(18, 27)), list(range(0, 9)),
                 [34, 35, 36, 37, 30, 28, 27, 29], [38, 39, 40, 41, 32, 33, 31]],
        "rim": (3, 2),
    },
}


def sheet_faces(name: str, tiles_dir: Path = TILES_DIR) -> dict[int, np.ndarray]:
    """The 42 faces (class -> BGRA) of sheet `name`; OSError when xmahjongg is not installed."""
    sheet = SHEETS[name]
    path = Path(tiles_dir) / sheet["file"]
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)  # the pinned OpenCV (4.12) reads GIFs
    if image is None:
        raise OSError(f"no {path}: install Debian's xmahjongg (apt-get install xmahjongg) for this study")
    lead, trail = sheet["rim"]
    xs, ys = sheet["xs"], sheet["ys"]
    faces = {}
    for r, row in enumerate(sheet["rows"]):
        for c, cls in enumerate(row):
            cell = image[ys[r] + lead:ys[r + 1] - trail, xs[c] + lead:xs[c + 1] - trail]
            faces[cls] = cv2.cvtColor(cell, cv2.COLOR_BGR2BGRA)
    return faces

