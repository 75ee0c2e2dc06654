"""Image -> recognized tiles in engine notation -> hand layout. Shared by the CLI and the web app."""
from __future__ import annotations

from .classes import DEFAULT_TILESET, FLOWER_CLASSES, class_to_tile, number_reading, printed_flower_tile
from .layout import ROTATIONS, build_layout


def recognize_image(image, recognizer, tileset: str = DEFAULT_TILESET, *,
                    low_confidence: float = 0.6) -> dict:
    """Run the recognizer on a BGR image and read the hand.

    Returns {"tileset", "tiles": [{tile, box, confidence, rotation}], "layout": build_layout(...)};
    boxes are in the pixels of `image`, and layout indices point into "tiles".
    """
    tiles = to_tiles(recognizer.recognize(image), tileset)
    return {"tileset": tileset, "tiles": tiles,
            "layout": build_layout(tiles, low_confidence=low_confidence)}


def to_tiles(detections, tileset: str = DEFAULT_TILESET) -> list[dict]:
    """Recognizer output (class indices) -> JSON-ready tiles in engine notation, order kept.

    Under a tile set that reads printed numbers, a flower or season whose number the recognizer
    read surely enough is the tile that number makes, whatever its picture."""
    min_number = number_reading(tileset)
    tiles = []
    for i, det in enumerate(detections):
        try:
            cls, box = det["cls"], [round(float(v), 1) for v in det["box"]]
            confidence = round(float(det["confidence"]), 4)
            rotation = det.get("rotation", "upright")
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"recognizer result {i} lacks cls, box or confidence: {det!r}") from None
        if len(box) != 4 or rotation not in ROTATIONS:
            raise ValueError(f"recognizer result {i} has a bad box or rotation: {det!r}")
        tile = class_to_tile(cls, tileset)
        number = det.get("number")
        if (min_number is not None and cls in FLOWER_CLASSES and number in (1, 2, 3, 4)
                and float(det.get("number_confidence", 0.0)) >= min_number):
            tile = printed_flower_tile(cls, number)
        tiles.append({"tile": tile, "box": box, "confidence": confidence, "rotation": rotation})
        if det.get("suspect"):  # the recognizer kept it but doubts it is a whole tile
            tiles[-1]["suspect"] = str(det["suspect"])
    return tiles
