"""Corrected photos kept as YOLO training examples, for `python -m vision adapt --folder`.

Layout: <data>/examples/images/<photo id>.jpg, labels/<photo id>.txt (one `class xc yc w h`
line per tile, normalised to the image), numbers/<photo id>.txt (the number each of those tiles
prints: 1-4 for a flower or season, 0 for the rest; a class alone does not say it, sets differ),
and data.yaml naming the 43 classes. Boxes are in the pixels of the photo as the recognizer saw
it (vision.image_io.load_image), so that is the image stored.
"""
from __future__ import annotations

import math
import threading
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from engine.errors import HandError, short
from engine.tiles import parse_tile, tile_name

from .errors import ApiError
from .photos import write_atomic

MAX_TILES = 200
# two boxes overlapping this much (intersection over union) hold one tile labelled twice: tilted or
# stacked neighbours overlap far less. Taught as many tiles, a photo of one box copied 200 times
# made adapt install a classifier that read that photo's one look as its label everywhere.
SAME_TILE_IOU = 0.7
_lock = threading.Lock()  # one writer at a time: data.yaml and the count stay coherent


def class_index(tile, tileset: str) -> int:
    """Engine notation (or any spelling the engine reads, or `back`) -> class index under a tile set."""
    from vision.classes import BACK, BACK_CLASS, tile_notation
    if tile == BACK:
        return BACK_CLASS
    if not isinstance(tile, str):
        raise ApiError(400, f"a tile must be a string, got {short(tile)}", code="example_tile_not_string")
    notation = tile_notation(tileset)
    if tile not in notation:
        try:
            tile = tile_name(parse_tile(tile))
        except HandError as exc:
            raise ApiError.from_error(400, exc) from None
    return notation.index(tile)


def _finite(v) -> bool:
    """A finite number as a float: a JSON integer of 400 digits is none (OverflowError, once a 500)."""
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _box(raw, width: int, height: int) -> tuple[float, float, float, float]:
    """A checked [x1, y1, x2, y2] in pixels, clipped to the image."""
    if (not isinstance(raw, list) or len(raw) != 4
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and _finite(v) for v in raw)):
        raise ApiError(400, f"a box must be [x1, y1, x2, y2] in pixels, got {short(raw)}", code="example_box",
                       value=raw)
    x1, y1 = max(0.0, float(raw[0])), max(0.0, float(raw[1]))
    x2, y2 = min(float(width), float(raw[2])), min(float(height), float(raw[3]))
    if x2 - x1 < 1 or y2 - y1 < 1:
        raise ApiError(400, f"the box {short(raw)} is empty or outside the {width}x{height} photo",
                       code="example_box_outside", box=raw, width=width, height=height)
    return x1, y1, x2, y2


def label_lines(tiles, tileset: str, width: int, height: int) -> tuple[list[str], list[int]]:
    """The YOLO label line and the printed number (vision.classes.printed_number) of each tile."""
    from vision.classes import class_to_tile, printed_number

    if not isinstance(tiles, list) or not tiles:
        raise ApiError(400, "tiles must be a non-empty list of {tile, box}", code="example_tiles_list")
    if len(tiles) > MAX_TILES:
        raise ApiError(400, f"at most {MAX_TILES} tiles in one photo", code="example_too_many", max=MAX_TILES)
    lines, numbers, boxes = [], [], []
    for t in tiles:
        if not isinstance(t, dict):
            raise ApiError(400, "each tile must be an object {tile, box}", code="example_tile_not_object")
        cls = class_index(t.get("tile"), tileset)
        x1, y1, x2, y2 = _box(t.get("box"), width, height)
        lines.append(f"{cls} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                     f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
        numbers.append(printed_number(class_to_tile(cls, tileset)))
        boxes.append((x1, y1, x2, y2))
    _one_box_a_tile(boxes)
    return lines, numbers


def _one_box_a_tile(boxes: list[tuple[float, float, float, float]]) -> None:
    """400 where two boxes are one tile's (SAME_TILE_IOU), naming both (1-based)."""
    from vision.screen import iou_matrix

    iou = np.triu(iou_matrix(boxes, boxes), 1)
    if (iou >= SAME_TILE_IOU).any():
        first, second = (int(v) + 1 for v in np.argwhere(iou >= SAME_TILE_IOU)[0])
        raise ApiError(400, f"tiles {first} and {second} have the same box: one tile labelled twice",
                       code="example_same_tile", first=first, second=second)


def data_yaml() -> str:
    from vision.classes import CLASS_NAMES
    names = "\n".join(f"  {i}: {name}" for i, name in enumerate(CLASS_NAMES))
    return f"path: .\ntrain: images\nval: images\nnc: {len(CLASS_NAMES)}\nnames:\n{names}\n"


def count(folder: Path) -> int:
    labels = Path(folder) / "labels"
    return sum(1 for _ in labels.glob("*.txt")) if labels.is_dir() else 0


def save_example(folder: Path, pid: str, image, tiles, tileset: str) -> int:
    """Write one corrected photo (replacing an earlier correction of it); returns the count."""
    from .imaging import jpeg_bytes
    height, width = image.shape[:2]
    lines, numbers = label_lines(tiles, tileset, width, height)
    folder = Path(folder)
    with _lock:
        write_atomic(folder / "images" / f"{pid}.jpg", jpeg_bytes(image, quality=95))
        write_atomic(folder / "numbers" / f"{pid}.txt", ("\n".join(map(str, numbers)) + "\n").encode())
        write_atomic(folder / "labels" / f"{pid}.txt", ("\n".join(lines) + "\n").encode())
        write_atomic(folder / "data.yaml", data_yaml().encode())
        return count(folder)


def list_examples(folder: Path) -> list[dict]:
    """The saved corrected photos, newest first: {photo_id, tiles (label lines; None where the
    file cannot be read), saved_at}. One damaged file never hides the others."""
    labels = Path(folder) / "labels"
    out = []
    for path in labels.glob("*.txt") if labels.is_dir() else ():
        try:
            stat = path.stat()
            tiles = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        except (OSError, UnicodeDecodeError):
            stat, tiles = None, None
        saved = datetime.fromtimestamp(stat.st_mtime, timezone.utc).isoformat(timespec="seconds") if stat else None
        out.append({"photo_id": path.stem, "tiles": tiles, "saved_at": saved, "_mtime": stat.st_mtime if stat else 0})
    out.sort(key=lambda e: (-e["_mtime"], e["photo_id"]))
    return [{k: v for k, v in e.items() if k != "_mtime"} for e in out]


def delete_example(folder: Path, pid: str) -> int:
    """Forget one corrected photo (a correction saved wrong would teach adapt wrong tiles); returns
    the count. The label goes first: a photo without its label is no example."""
    folder = Path(folder)
    with _lock:
        label = folder / "labels" / f"{pid}.txt"
        if not label.is_file():
            raise ApiError(404, f"no saved correction of photo {short(pid)}", code="no_example", id=pid)
        label.unlink()
        for path in (folder / "numbers" / f"{pid}.txt", folder / "images" / f"{pid}.jpg"):
            path.unlink(missing_ok=True)
        return count(folder)
