"""Reading YOLO-format photo folders and cutting labelled tiles out as classifier crops."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.crops import CROP_MARGIN, CROP_STORE, cut_crop

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
NUM_FACE_CLASSES = 42  # the faces real photos are labelled with; the classifier adds `back`
def list_pairs(split_dir: Path) -> list[tuple[Path, Path]]:
    """(image, label) pairs of a YOLO folder laid out as images/ + labels/ or flat."""
    split_dir = Path(split_dir)
    img_dir = split_dir / "images" if (split_dir / "images").is_dir() else split_dir
    lab_dir = split_dir / "labels" if (split_dir / "labels").is_dir() else split_dir
    if split_dir.parent.name == "images" and (split_dir.parent.parent / "labels" / split_dir.name).is_dir():
        lab_dir = split_dir.parent.parent / "labels" / split_dir.name  # data/images/valid -> data/labels/valid
    pairs = []
    for img in sorted(img_dir.iterdir()):
        if img.suffix.lower() in IMAGE_SUFFIXES:
            pairs.append((img, lab_dir / (img.stem + ".txt")))
    return pairs


class NoLabelledPhotos(ValueError):
    """A folder with no photo, or no label file for its photos: nothing to score or tune on."""


def labelled_pairs(folder: Path) -> list[tuple[Path, Path]]:
    """list_pairs of a folder that `evaluate` scores or `adapt` tunes on; NoLabelledPhotos says
    what is missing when it holds no photo or no label file."""
    pairs = list_pairs(folder)
    if not pairs:
        raise NoLabelledPhotos(f"no photos in {folder} (images/ and labels/, or both side by side)")
    if not any(label.exists() for _, label in pairs):
        raise NoLabelledPhotos(f"no label files for the photos in {folder}: no labelled photos to score or tune on")
    return pairs


def split_dirs(data_root: Path, split: str) -> tuple[Path, Path]:
    """images/<split> and labels/<split> of the Roboflow export layout."""
    return Path(data_root) / "images" / split, Path(data_root) / "labels" / split


def list_split(data_root: Path, split: str) -> list[tuple[Path, Path]]:
    img_dir, lab_dir = split_dirs(data_root, split)
    return [(p, lab_dir / (p.stem + ".txt")) for p in sorted(img_dir.iterdir())
            if p.suffix.lower() in IMAGE_SUFFIXES]


class LabelError(ValueError):
    """A label file line that is no tile: named by file and line, never read as some tile."""


COORD_SLACK = 0.01  # labelling tools write a box's edge a hair past the photo's; more is no box


def read_labels(path: Path) -> np.ndarray:
    """YOLO label file -> (N, 5) float array cls, xc, yc, w, h (normalised). Missing file = no tiles.

    Each line is `class xc yc w h` (or a polygon: class and x y pairs, kept as its bounding box);
    a line that is none (words, NaN, a class outside 0-42 or not whole, a box outside the photo
    or of no size, too few numbers) raises LabelError naming it: it once read class -3 as 菊 and
    counted a NaN box as a labelled tile. A UTF-8 byte order mark is skipped."""
    from vision.classes import NUM_CLASSES

    path = Path(path)
    if not path.exists():
        return np.zeros((0, 5), np.float32)
    rows = []
    for k, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        where = f"{path}: line {k} ({line.strip()[:60]!r})"
        try:
            values = np.array(parts, np.float64)
        except ValueError:
            raise LabelError(f"{where}: not numbers") from None
        if not (len(parts) == 5 or (len(parts) > 5 and len(parts) % 2 == 1)):
            raise LabelError(f"{where}: a line is `class xc yc w h` (or a polygon: class and x y pairs)")
        cls, coords = values[0], values[1:]
        if not np.isfinite(values).all():
            raise LabelError(f"{where}: a number that is not finite")
        if cls != int(cls) or not 0 <= cls < NUM_CLASSES:
            raise LabelError(f"{where}: the class must be a whole number 0-{NUM_CLASSES - 1}")
        if ((coords < -COORD_SLACK) | (coords > 1 + COORD_SLACK)).any():
            raise LabelError(f"{where}: coordinates are shares of the photo, 0 to 1")
        if len(parts) == 5:
            if values[3] <= 0 or values[4] <= 0:
                raise LabelError(f"{where}: a box of no size")
            rows.append(values.tolist())
        else:  # polygon: keep its bounding box
            xy = coords.reshape(-1, 2)
            (x1, y1), (x2, y2) = xy.min(0), xy.max(0)
            if x2 <= x1 or y2 <= y1:
                raise LabelError(f"{where}: a polygon of no size")
            rows.append([cls, (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1])
    return np.array(rows, np.float32).reshape(-1, 5)


def labels_to_xyxy(labels: np.ndarray, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Normalised YOLO rows -> (classes int array, boxes (N,4) in pixels)."""
    cls = labels[:, 0].astype(np.int64)
    xc, yc, w, h = labels[:, 1] * width, labels[:, 2] * height, labels[:, 3] * width, labels[:, 4] * height
    boxes = np.stack([xc - w / 2, yc - h / 2, xc + w / 2, yc + h / 2], 1).astype(np.float32)
    return cls, boxes


def xyxy_to_labels(cls: np.ndarray, boxes: np.ndarray, width: int, height: int) -> np.ndarray:
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    xc = (b[:, 0] + b[:, 2]) / 2 / width
    yc = (b[:, 1] + b[:, 3]) / 2 / height
    w = (b[:, 2] - b[:, 0]) / width
    h = (b[:, 3] - b[:, 1]) / height
    return np.stack([np.asarray(cls, np.float32), xc, yc, w, h], 1)


def write_labels(path: Path, labels: np.ndarray) -> None:
    lines = [f"{int(r[0])} {r[1]:.6f} {r[2]:.6f} {r[3]:.6f} {r[4]:.6f}" for r in labels]
    Path(path).write_text("\n".join(lines) + ("\n" if lines else ""))


def crops_from_pairs(pairs, size: int = CROP_STORE, margin: float = CROP_MARGIN, progress=None):
    """All labelled tiles of a list of (image, label) pairs.

    Returns dict: crops (N,size,size,3) uint8 BGR, cls (N,), turned (N,) bool,
    image_index (N,) int, aspect (N,) float = long/short side of the box in the image.
    """
    crops, classes, turned_all, owner, aspect = [], [], [], [], []
    for i, (img_path, lab_path) in enumerate(pairs):
        image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        cls, boxes = labels_to_xyxy(read_labels(lab_path), w, h)
        for c, b in zip(cls, boxes):
            crop, turned = cut_crop(image, b, size, margin)
            bw, bh = b[2] - b[0], b[3] - b[1]
            crops.append(crop)
            classes.append(c)
            turned_all.append(turned)
            owner.append(i)
            aspect.append(max(bw, bh) / max(min(bw, bh), 1e-6))
        if progress:
            progress(i + 1, len(pairs))
    return {
        "crops": np.stack(crops) if crops else np.zeros((0, size, size, 3), np.uint8),
        "cls": np.array(classes, np.int64),
        "turned": np.array(turned_all, bool),
        "image_index": np.array(owner, np.int64),
        "aspect": np.array(aspect, np.float32),
    }
