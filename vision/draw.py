"""Annotating a photo with what was recognized: a box and an engine-notation label per tile."""
from __future__ import annotations

import cv2
import numpy as np

# BGR colours by the tile's role in the layout
COLOURS = {"concealed": (60, 180, 60), "meld": (220, 120, 20), "winning": (40, 40, 230),
           "flower": (200, 60, 200), "unplaced": (0, 200, 255)}
FLAGGED = (0, 140, 255)


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


def draw_tiles(image: np.ndarray, tiles: list[dict], layout: dict) -> np.ndarray:
    """A copy of the BGR image with each tile boxed and labelled (cv2 text is ASCII: engine notation).

    Tiles read in doubt get a thicker box and a '?' after the label: flagged for a reason other than
    lying in no group (layout's flag_reasons; without them, every flagged tile), as the page's
    editor marks them, so the photo and the hand ask about the same tiles.
    """
    out = image.copy()
    role = roles(layout)
    reasons = layout.get("flag_reasons")
    flagged = {i for i in layout["flagged"]
               if reasons is None or any(r != "unplaced" for r in reasons.get(str(i), ["?"]))}
    scale = max(out.shape[:2]) / 1000  # line and text size follow the photo's size
    thick = max(1, round(2 * scale))
    for i, t in enumerate(tiles):
        x1, y1, x2, y2 = (int(round(v)) for v in t["box"])
        colour = FLAGGED if i in flagged else COLOURS.get(role.get(i), COLOURS["unplaced"])
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick * (2 if i in flagged else 1))
        label = t["tile"] + ("?" if i in flagged else "")
        font_scale = max(0.4, 0.6 * scale)
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thick)
        top = max(th + base, y1)
        cv2.rectangle(out, (x1, top - th - base), (x1 + tw, top), colour, cv2.FILLED)
        cv2.putText(out, label, (x1, top - base), cv2.FONT_HERSHEY_SIMPLEX, font_scale,
                    (255, 255, 255), thick, cv2.LINE_AA)
    return out
