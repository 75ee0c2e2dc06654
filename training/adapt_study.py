"""Adaptation study: does `adapt` bring an unfamiliar tile set to 95% tiles right?

The shipped models never saw the KDE kmahjongglib tilesets (GPL-2+ artwork, rendered here
into a work folder under /tmp, never into the repository). This study renders one of them,
composes synthetic phone photos of it with YOLO labels (hands in rows with melds turned
sideways, tiles scattered on the table, a calibration layout), scores a copy of the shipped
models on test photos, then adapts copies through the same functions the CLI runs
(`python -m vision adapt --folder` on five other photos, `--calibration` on one photo) and
scores them again.

    python -m training.adapt_study [--data ../shared/data] [--models models] [--work /tmp/adapt-study]
                                 [--set traditional] [--seed 0] [--json OUT]
"""
from __future__ import annotations

import argparse
import configparser
import gzip
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

# Before torch loads its OpenMP: idle threads sleep instead of spinning. On two cores shared with
# other work, 20 classifier fine-tuning steps took 50 s spinning and 16 s sleeping (measured twice).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import cv2
import numpy as np

from training import synth
from training.calibration import CALIBRATION_ORDER
from training.dataset import NUM_FACE_CLASSES, read_labels, write_labels, xyxy_to_labels
from training.svg_render import SvgDocument, rsvg_available  # noqa: F401 (rsvg_available: tests)

ROOT = Path(__file__).resolve().parent.parent
KMAHJONGG = "artwork/kmahjongglib"
# egypt draws the four flowers and the four seasons with one picture each, and alphabet
# is letters for children: neither can be read tile by tile, so only these two are offered.
SETS = ("traditional", "default")
# Procedural sets of the style training leaves out (training/style_study.py), on two bodies
# the issue names: red with light ink, and ivory.
PROCEDURAL_SETS = ("procedural-red", "procedural-ivory")
# KDE element id -> class index. Checked by eye on renders of both sets: WIND_1-4 are
# north, south, east, west; DRAGON_1-3 white, green, red; SEASON_1-4 spring..winter;
# FLOWER_1-4 plum, orchid, chrysanthemum, bamboo.
ELEMENT_CLASSES = {
    **{f"CHARACTER_{i}": i - 1 for i in range(1, 10)},
    **{f"ROD_{i}": 8 + i for i in range(1, 10)},
    **{f"BAMBOO_{i}": 17 + i for i in range(1, 10)},
    "WIND_1": 30, "WIND_2": 28, "WIND_3": 27, "WIND_4": 29,
    "DRAGON_1": 33, "DRAGON_2": 32, "DRAGON_3": 31,
    **{f"SEASON_{i}": 33 + i for i in range(1, 5)},
    **{f"FLOWER_{i}": 37 + i for i in range(1, 5)},
}
BODIES = ("TILE_1", "TILE_2", "TILE_3", "TILE_4")  # one tile body per viewing angle
RENDER_SCALE = 3  # KDE faces are 69x89 units: x3 is sharp for tiles up to ~250 px tall
TEST_PHOTOS = 40
ADAPT_PHOTOS = 5


def _desktop(path: Path) -> dict:
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    cp.optionxform = str
    cp.read(path, encoding="utf-8")
    return dict(cp["KMahjonggTileset"])


def _fit(rect, size) -> tuple[float, float, float, float]:
    """A size-shaped rect centred on rect, grown to contain it: art that spills over its face
    (KDE draws a few seasons past the edge) is shrunk, undistorted, rather than cut."""
    x, y, w, h = rect
    fw, fh = size
    grow = max(1.0, w / fw, h / fh)
    return x + w / 2 - fw * grow / 2, y + h / 2 - fh * grow / 2, fw * grow, fh * grow


def _face_offset(body: np.ndarray, face_size: tuple[int, int]) -> tuple[int, int]:
    """Where the face sits on a body image: the opaque, evenly coloured corner of face size."""
    bh, bw = body.shape[:2]
    fw, fh = face_size
    best = None
    for ox in (0, bw - fw):
        for oy in (0, bh - fh):
            region = body[oy:oy + fh, ox:ox + fw].astype(np.float32)
            cost = (255 - region[..., 3].mean()) + region[..., :3].std()
            if best is None or cost < best[0]:
                best = (cost, ox, oy)
    return best[1], best[2]


def render_tileset(artwork_root: Path, name: str, out_dir: Path, scale: int = RENDER_SCALE) -> dict:
    """The 42 faces (class -> BGRA) and the tile bodies of a kmahjongglib set, cached as PNGs.

    Returns {"faces": {cls: bgra}, "bodies": [{"bgra", "face_xy"}]}; bodies is empty for a set
    without its own (faces then go on synth.tile_image's ivory body).
    """
    out_dir = Path(out_dir) / name
    meta_path = out_dir / "bodies.json"
    if not meta_path.exists():
        _render_to(Path(artwork_root) / KMAHJONGG, name, out_dir, scale)
    read = lambda p: cv2.imread(str(p), cv2.IMREAD_UNCHANGED)  # noqa: E731
    faces = {int(p.stem): read(p) for p in sorted((out_dir / "faces").glob("*.png"))}
    bodies = [{"bgra": read(out_dir / f"{b}.png"), "face_xy": tuple(xy)}
              for b, xy in json.loads(meta_path.read_text()).items()]
    return {"faces": faces, "bodies": bodies}


def load_set(data_root: Path, set_name: str, work: Path, seed: int) -> dict:
    """A KDE set (rendered under work) or one of PROCEDURAL_SETS (drawn from the seed)."""
    if set_name not in PROCEDURAL_SETS:
        return render_tileset(data_root, set_name, work / "tilesets")
    from training import procedural
    from training.style_study import IVORY_BODY, RED_BODY

    rng = np.random.default_rng((seed, 41))
    imposed = RED_BODY if set_name == "procedural-red" else IVORY_BODY
    return procedural.make_tileset({**procedural.random_style(rng, held_out=True), **imposed}, rng)


def _render_to(kde_dir: Path, name: str, out_dir: Path, scale: int) -> None:
    info = _desktop(kde_dir / f"{name}.desktop")
    face_size = (int(info["TileFaceWidth"]), int(info["TileFaceHeight"]))
    data = gzip.decompress((kde_dir / info.get("FileName", f"{name}.svgz")).read_bytes())
    doc = SvgDocument(data)
    try:
        (out_dir / "faces").mkdir(parents=True, exist_ok=True)
        for element, cls in ELEMENT_CLASSES.items():
            rect = doc.element_rect(element)
            if rect is None:
                raise ValueError(f"{name}: no element {element}")
            face = doc.render(element, _fit(rect, face_size), scale)
            face = cv2.resize(face, (face_size[0] * scale, face_size[1] * scale), interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(out_dir / "faces" / f"{cls:02d}.png"), face)
        meta = {}
        for element in BODIES:
            rect = doc.element_rect(element)
            if rect is None:
                continue
            body = doc.render(element, rect, scale)
            ox, oy = _face_offset(body, (face_size[0] * scale, face_size[1] * scale))
            cv2.imwrite(str(out_dir / f"{element}.png"), body)
            meta[element] = [ox, oy]
        (out_dir / "bodies.json").write_text(json.dumps(meta))
    finally:
        doc.close()


# --- tiles of the set ------------------------------------------------------------------------------

def _over(base: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Straight-alpha BGRA `top` over BGRA `base` of the same size (base's alpha kept)."""
    a = top[..., 3:4].astype(np.float32) / 255
    out = base.astype(np.float32)
    out[..., :3] = out[..., :3] * (1 - a) + top[..., :3] * a
    return out


def tile_picture(tileset: dict, cls: int, view: int | None, rng: np.random.Generator,
                 height: int) -> tuple[np.ndarray, np.ndarray]:
    """An upright tile of the set (BGR float, alpha mask uint8), `height` px tall.

    view 0-3: the set's own body from one of its four angles, two sides showing; None: only
    the face area of the body, a tile seen from straight above. A set without bodies gets
    synth.tile_image's ivory body.
    """
    face = tileset["faces"][cls]
    if not tileset["bodies"]:
        return synth.tile_image({"cls": cls, "rgba": face, "has_body": False}, rng, height)
    body = tileset["bodies"][view or 0]
    (ox, oy), (fh, fw) = body["face_xy"], face.shape[:2]
    tile = body["bgra"].astype(np.float32)
    tile[oy:oy + fh, ox:ox + fw] = _over(tile[oy:oy + fh, ox:ox + fw], face)
    # KDE bodies carry a soft drop shadow (alpha < ~100); the photo draws its own
    alpha = np.clip((tile[..., 3] - 150) / 105, 0, 1)
    if view is None:
        tile, alpha = tile[oy:oy + fh, ox:ox + fw], alpha[oy:oy + fh, ox:ox + fw]
        alpha = np.minimum(alpha, synth._rounded_mask(fh, fw, 0.06 * fh) / 255)
    ys, xs = np.nonzero(alpha > 0)
    rows, cols = slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1)
    tile, alpha = tile[rows, cols], alpha[rows, cols]
    width = max(1, int(round(height * tile.shape[1] / tile.shape[0])))
    bgr = cv2.resize(tile[..., :3], (width, height), interpolation=cv2.INTER_AREA)
    mask = cv2.resize(alpha, (width, height), interpolation=cv2.INTER_AREA)
    return bgr, (mask * 255).astype(np.uint8)


def tile_aspect(tileset: dict, view: int | None) -> float:
    """Width / height of the set's tiles as drawn from this view."""
    tile, _ = tile_picture(tileset, 0, view, np.random.default_rng(0), 100)
    return tile.shape[1] / 100


# --- layouts: where the tiles lie on the table, in units of one tile height ----------------------

def _deck(rng: np.random.Generator) -> list[int]:
    """A shuffled set: four of every suit and honour tile, one of every flower and season."""
    deck = [c for c in range(34) for _ in range(4)] + list(range(34, NUM_FACE_CLASSES))
    return [int(c) for c in rng.permutation(deck)]


def hand_layout(rng: np.random.Generator, aspect: float) -> list[dict]:
    """One or two rows of 13-17 tiles as a player lays out a hand: melds first, one tile of
    each turned sideways (the claimed one), flowers put aside at the end of the row."""
    deck = _deck(rng)
    flowers = [c for c in deck if c >= 34][:int(rng.integers(0, 4))]
    deck = [c for c in deck if c < 34]
    placed, y = [], 0.0
    for row in range(int(rng.integers(1, 3))):
        x = float(rng.uniform(-0.5, 0.5)) if row else 0.0
        n = int(rng.integers(13, 18))
        melds = int(rng.integers(0, 3))
        claimed = rng.integers(3, size=melds)
        for k in range(n):
            sideways = k < 3 * melds and k % 3 == claimed[k // 3]
            x = _add_in_row(placed, deck.pop(), x, y, aspect, sideways, rng)
            if k < 3 * melds and k % 3 == 2:
                x += rng.uniform(0.15, 0.4)  # melds stand apart from each other and the hand
        if row == 0 and flowers:
            x += rng.uniform(0.3, 0.8)
            for c in flowers:
                x = _add_in_row(placed, c, x, y, aspect, False, rng)
        y -= 1 + rng.uniform(0.15, 0.8)
    return placed


def _add_in_row(placed: list, cls: int, x: float, y: float, aspect: float, sideways: bool,
                rng: np.random.Generator) -> float:
    """Append a tile whose left edge is at x and bottom at y + 0.5; returns the next left edge."""
    w, h = (1.0, aspect) if sideways else (aspect, 1.0)
    placed.append({"cls": cls, "x": x + w / 2, "y": y + 0.5 - h / 2 + rng.normal(0, 0.015),
                   "turn": 1 if sideways else 0, "angle": rng.normal(0, 1.0)})
    return x + w + rng.uniform(0.0, 0.05)


def scatter_layout(rng: np.random.Generator, aspect: float) -> list[dict]:
    """8-30 tiles dropped anywhere on the table, any way round, none overlapping."""
    deck = _deck(rng)
    n = int(rng.integers(8, 31))
    side = np.sqrt(n) * rng.uniform(1.5, 2.2)
    placed: list[dict] = []
    for _ in range(n * 40):
        if len(placed) == n:
            break
        x, y = rng.uniform(0, side * 1.4), rng.uniform(0, side)
        if all(np.hypot(x - p["x"], y - p["y"]) > 1.25 for p in placed):
            placed.append({"cls": deck.pop(), "x": x, "y": y, "turn": int(rng.integers(4)),
                           "angle": rng.uniform(-20, 20)})
    return placed


def calibration_layout(rng: np.random.Generator, aspect: float) -> list[dict]:
    """The 42 faces in calibration order, rows of 9, 9, 9, 7 and 8, as the user is asked to lay them."""
    placed, start = [], 0
    gap, pitch = rng.uniform(0.03, 0.25), rng.uniform(1.3, 1.6)
    for r, n in enumerate((9, 9, 9, 7, 8)):
        x, y = 0.0, r * pitch
        for cls in CALIBRATION_ORDER[start:start + n]:
            placed.append({"cls": cls, "x": x + aspect / 2, "y": y, "turn": 0, "angle": rng.normal(0, 1.0)})
            x += aspect + gap + rng.uniform(0, 0.04)
        start += n
    return placed


# --- photos ----------------------------------------------------------------------------------------

# Table tops (BGR): green and blue felt, dark red, two woods, grey, a light table.
TABLE_COLOURS = np.array([[50, 120, 40], [40, 95, 25], [120, 75, 30], [95, 50, 20], [40, 40, 120],
                          [70, 120, 170], [50, 90, 140], [110, 110, 110], [200, 205, 210]], np.float32)


def table_image(h: int, w: int, rng: np.random.Generator, backgrounds: list[np.ndarray] | None) -> np.ndarray:
    """A table top (BGR float): felt or wood with weave and blotches, or a tile-free crop of a real photo."""
    if backgrounds and rng.random() < 0.5:
        return cv2.resize(backgrounds[rng.integers(len(backgrounds))], (w, h)).astype(np.float32)
    colour = TABLE_COLOURS[rng.integers(len(TABLE_COLOURS))] * rng.uniform(0.85, 1.15, 3)
    blotch = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    weave = rng.normal(0, rng.uniform(3, 10), (h, w)).astype(np.float32)
    return np.clip(colour * (1 + 0.06 * blotch[..., None]) + weave[..., None], 0, 255)


def background_crops(data_root: Path, rng: np.random.Generator, detect, count: int = 30) -> list[np.ndarray]:
    """Crops of real training photos in which `detect` (image -> boxes, scores) finds no tile:
    real tables, floors, hands. The labels cannot vouch for that: many photos leave the
    tiles of the wall and the discards unlabelled, and a stray unlabelled tile behind the
    hand would count against the detector."""
    from training.dataset import list_split

    pairs = list_split(Path(data_root) / "rf-chinese-mahjong-detection-v4", "train")
    crops = []
    for i in rng.permutation(len(pairs)):
        if len(crops) == count:
            break
        img = cv2.imread(str(pairs[i][0]), cv2.IMREAD_COLOR)
        if img is None:
            continue
        h, w = img.shape[:2]
        s = int(rng.uniform(0.3, 0.6) * min(h, w))
        x, y = int(rng.integers(0, w - s + 1)), int(rng.integers(0, h - s + 1))
        crop = img[y:y + s, x:x + s]
        if not len(detect(cv2.resize(crop, (640, 640)))[0]):
            crops.append(crop)
    return crops


def cached_backgrounds(data_root: Path, folder: Path, seed: int, detect) -> list[np.ndarray]:
    """background_crops, kept as PNGs: vetting a crop runs the detector up to nine times."""
    if not folder.is_dir():
        crops = background_crops(data_root, np.random.default_rng((seed, 0)), detect)
        folder.mkdir(parents=True)
        for i, crop in enumerate(crops):
            cv2.imwrite(str(folder / f"{i:02d}.png"), crop)
    return [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted(folder.glob("*.png"))]


def _corners(p: dict, aspect: float) -> np.ndarray:
    w, h = (1.0, aspect) if p["turn"] % 2 else (aspect, 1.0)
    return np.array([[p["x"] - w / 2, p["y"] - h / 2], [p["x"] + w / 2, p["y"] + h / 2]])


def camera(placed: list[dict], aspect: float, rng: np.random.Generator, max_angle: float,
           tilt: float) -> tuple[np.ndarray, tuple[int, int]]:
    """Homography from layout units to photo pixels and the photo size (w, h).

    Tiles come out 75-150 px tall where the layout allows (a long hand must fit 1600 px),
    the camera a little tilted (far tiles smaller) and turned up to max_angle degrees.
    """
    pts = np.concatenate([_corners(p, aspect) for p in placed])
    (x0, y0), (x1, y1) = pts.min(0), pts.max(0)
    lw, lh = x1 - x0, y1 - y0
    unit = rng.uniform(75, 150)
    w = int(np.clip(lw * unit / 0.8, 1000, 1600))
    h = int(np.clip(w * rng.uniform(0.6, 1.0), max(700, lh * unit / 0.8), 1600))
    ang = np.deg2rad(rng.uniform(-max_angle, max_angle))
    # a tilted camera: the far edge shorter, by as much as the layout is deep (a long row
    # seen from the front barely narrows), and everything seen a little foreshortened
    far = 1 - rng.uniform(0, tilt) * lh / max(lw, lh)
    squash = 1 - rng.uniform(0, tilt)
    # the layout's bounding box as that trapezoid, turned, then fitted into the photo
    quad = np.array([[-lw / 2 * far, -lh / 2 * squash], [lw / 2 * far, -lh / 2 * squash],
                     [lw / 2, lh / 2 * squash], [-lw / 2, lh / 2 * squash]])
    quad = quad @ np.array([[np.cos(ang), np.sin(ang)], [-np.sin(ang), np.cos(ang)]])
    span = quad.max(0) - quad.min(0)
    unit = min(unit, 0.9 * w / span[0], 0.9 * h / span[1])
    quad *= unit
    slack = np.array([w, h]) - (quad.max(0) - quad.min(0))
    quad += -quad.min(0) + rng.uniform(0.15, 0.85, 2) * slack
    src = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    return cv2.getPerspectiveTransform(src, quad.astype(np.float32)), (w, h)


def _tile_to_layout(p: dict, tw: int, th: int) -> np.ndarray:
    """3x3 map from a tile picture's pixels to layout units: scale to one unit tall, turn, place."""
    a = np.deg2rad(p["angle"] + 90 * p["turn"])
    rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    scale = np.diag([1 / th, 1 / th, 1])
    centre = np.array([[1, 0, -tw / 2], [0, 1, -th / 2], [0, 0, 1]])
    move = np.array([[1, 0, p["x"]], [0, 1, p["y"]], [0, 0, 1]])
    return move @ rot @ scale @ centre


def draw_tiles(table: np.ndarray, tileset: dict, placed: list[dict], homography: np.ndarray,
               view: int | None, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The tiles drawn onto the table with soft shadows; returns the image and one box per tile."""
    img = table.copy()
    h, w = img.shape[:2]
    unit = np.sqrt(abs(np.linalg.det(homography[:2, :2]))) / homography[2, 2]  # rough px per unit
    light = rng.uniform(-0.04, 0.04, 2) * unit
    order = np.argsort([cv2.perspectiveTransform(np.float32([[[p["x"], p["y"]]]]), homography)[0, 0, 1]
                        for p in placed])
    boxes = np.zeros((len(placed), 4), np.float32)
    for i in order:
        tile, mask = tile_picture(tileset, placed[i]["cls"], view, rng, int(np.clip(unit * 1.2, 40, 400)))
        th, tw = mask.shape
        m = homography @ _tile_to_layout(placed[i], tw, th)
        hull = cv2.convexHull(cv2.findNonZero((mask > 127).astype(np.uint8))).astype(np.float32)
        outline = cv2.perspectiveTransform(hull.reshape(-1, 1, 2), m).reshape(-1, 2)
        boxes[i] = [*np.clip(outline.min(0), 0, [w, h]), *np.clip(outline.max(0), 0, [w, h])]
        x0, y0 = np.floor(outline.min(0) - unit * 0.2).astype(int).clip(0, [w, h])
        x1, y1 = np.ceil(outline.max(0) + unit * 0.2).astype(int).clip(0, [w, h])
        if x1 <= x0 or y1 <= y0:
            continue
        roi = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ m
        size = (int(x1 - x0), int(y1 - y0))
        t = cv2.warpPerspective(tile * rng.uniform(0.9, 1.05), roi, size, flags=cv2.INTER_LINEAR)
        a = cv2.warpPerspective(mask, roi, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
        shift = np.float32([[1, 0, light[0]], [0, 1, light[1]]])
        shadow = cv2.GaussianBlur(cv2.warpAffine(a[..., 0], shift, size), (0, 0), max(1.0, unit * 0.03))
        region = img[y0:y1, x0:x1]
        region *= 1 - 0.4 * shadow[..., None]
        img[y0:y1, x0:x1] = region * (1 - a) + t * a
    return img, boxes


LAYOUTS = {"hand": hand_layout, "scatter": scatter_layout, "calibration": calibration_layout}


def compose_photo(tileset: dict, kind: str, rng: np.random.Generator,
                  backgrounds: list[np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A synthetic phone photo of the set: (BGR uint8, classes (N,), boxes (N, 4) xyxy pixels).

    A calibration photo is taken with more care (a plain table, the camera nearly straight),
    since its rows must come apart by height alone.
    """
    view = [None, 0, 1, 2, 3][rng.integers(5)]
    aspect = tile_aspect(tileset, view)
    placed = LAYOUTS[kind](rng, aspect)
    careful = kind == "calibration"
    homography, (w, h) = camera(placed, aspect, rng, max_angle=3 if careful else 12, tilt=0.12 if careful else 0.2)
    table = table_image(h, w, rng, None if careful else backgrounds)
    img, boxes = draw_tiles(table, tileset, placed, homography, view, rng)
    img = auto_exposure(img, rng.uniform(110, 150))
    return synth.photo_effects(img, rng), np.array([p["cls"] for p in placed], np.int64), boxes


def auto_exposure(img: np.ndarray, target: float) -> np.ndarray:
    """Tone curve (a gamma) bringing the mean brightness to target, as a phone exposes.

    Without it a dark table came out as dark as the table: a quarter of the photos below a
    mean of 72, where 99% of the real training photos are above 68 (median 114).
    photo_effects then varies it by 0.6-1.25, about the real photos' spread.
    """
    x = np.clip(img, 1, 255) / 255
    mean = float(cv2.cvtColor(x.astype(np.float32), cv2.COLOR_BGR2GRAY).mean())
    return 255 * x ** (np.log(target / 255) / np.log(mean))


def write_photo(folder: Path, stem: str, image: np.ndarray, cls: np.ndarray, boxes: np.ndarray) -> Path:
    """Save a photo as JPEG (as a phone would) with its YOLO label file; returns the image path."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    path = folder / "images" / f"{stem}.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    h, w = image.shape[:2]
    write_labels(folder / "labels" / f"{stem}.txt", xyxy_to_labels(cls, boxes, w, h))
    return path


# --- the study -------------------------------------------------------------------------------------

def photo_kind(i: int) -> str:
    """Two photos of hands for every photo of loose tiles."""
    return "scatter" if i % 3 == 2 else "hand"


def make_photos(tileset: dict, folder: Path, count: int, seed: tuple, backgrounds: list[np.ndarray]) -> Path:
    """count photos (hands and loose tiles) with labels in folder/images + folder/labels."""
    if folder.exists():
        shutil.rmtree(folder)
    for i in range(count):
        img, cls, boxes = compose_photo(tileset, photo_kind(i), np.random.default_rng((*seed, i)), backgrounds)
        write_photo(folder, f"{i:03d}", img, cls, boxes)
    return folder


def score_models(models_dir: Path, folder: Path) -> dict:
    """The figures the study reports for one model folder on the test photos."""
    from training.evaluate import evaluate
    from vision.model import Recognizer

    r = evaluate(folder, Recognizer(models_dir), progress=False)
    keys = ("photos", "labelled_tiles", "tiles_found", "tiles_right", "photos_all_right", "flower_recall",
            "precision", "confusions", "per_class_recall", "extras", "extras_per_photo", "extras_flagged",
            "photos_exactly_right")  # the photos' labels are complete: every extra is a phantom
    return {k: r[k] for k in keys}


def fresh_models(shipped: Path, folder: Path) -> Path:
    """A throw-away copy of the shipped models (adapt writes into the folder it is given)."""
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(shipped, folder, ignore=shutil.ignore_patterns("previous"))
    return folder


def prepare_photos(data_root: Path, models_dir: Path, work: Path, set_name: str, seed: int, reuse: bool = False):
    """Render the set and compose the test, adapt and calibration photos (seeded, so the same
    every time: reuse keeps those already under work); returns (run folder, shipped models
    snapshot, test folder, adapt folder, calibration photo)."""
    from vision.model import Recognizer

    run = work / f"{set_name}-seed{seed}"
    # one snapshot of the shipped models: both paths start from it even if models/ changes meanwhile
    shipped = fresh_models(models_dir, run / "models-shipped")
    calibration = run / "calibration" / "images" / "calibration.jpg"
    counts = {d: len(list((run / d / "labels").glob("*.txt"))) for d in ("test", "adapt", "calibration")}
    if reuse and counts == {"test": TEST_PHOTOS, "adapt": ADAPT_PHOTOS, "calibration": 1} and calibration.exists():
        return run, shipped, run / "test", run / "adapt", calibration
    tileset = load_set(data_root, set_name, work, seed)
    backgrounds = cached_backgrounds(data_root, work / f"backgrounds-seed{seed}", seed, Recognizer(shipped).detect)
    test = make_photos(tileset, run / "test", TEST_PHOTOS, (seed, 1), backgrounds)
    folder = make_photos(tileset, run / "adapt", ADAPT_PHOTOS, (seed, 2), backgrounds)
    img, cls, boxes = compose_photo(tileset, "calibration", np.random.default_rng((seed, 3)))
    calibration = write_photo(run / "calibration", "calibration", img, cls, boxes)
    return run, shipped, test, folder, calibration


def run_detector_study(data_root: Path, models_dir: Path, work: Path, set_name: str, seed: int,
                       epochs: int | None = None, log=print) -> dict:
    """The detector's part of adapt alone (the classifier as shipped), from the 5 adapt photos'
    boxes and from the calibration photo's 42, each scored on the test photos before and after."""
    from training.adapt import calibration_boxes, folder_photos
    from training.adapt_detector import DET_EPOCHS, adapt_detector
    from vision.model import Recognizer

    run, shipped, test, folder, calibration = prepare_photos(data_root, models_dir, work, set_name, seed, reuse=True)
    out = {"set": set_name, "seed": seed, "test_photos": TEST_PHOTOS, "before": score_models(shipped, test)}
    image = cv2.imread(str(calibration), cv2.IMREAD_COLOR)
    sources = (("folder", lambda: folder_photos(folder)),
               ("calibration", lambda: [(image, calibration_boxes(image, Recognizer(shipped)))]))
    for path, photos in sources:
        models = fresh_models(shipped, run / f"models-det-{path}")
        try:
            report = adapt_detector(models, photos(), epochs=epochs or DET_EPOCHS, seed=seed, log=log)
        except ValueError as exc:
            out[path] = {"error": str(exc)}
            continue
        out[path] = {"adapt": report, "after": score_models(models, test)}
        log(f"detector from --{path}: {out[path]['after']['tiles_found']:.1%} found, "
            f"{out[path]['after']['extras']} extras ({report['seconds']:.0f} s, installed {report['installed']}; "
            f"{detector_summary(report)})")
    return out


def run_study(data_root: Path, models_dir: Path, work: Path, set_name: str, seed: int, log=print) -> dict:
    """Render, compose, score, adapt both ways, score again; returns every figure."""
    from training import adapt

    t_start = time.time()
    run, shipped, test, folder, calibration = prepare_photos(data_root, models_dir, work, set_name, seed)
    log(f"photos ready in {time.time() - t_start:.0f} s")
    out = {"set": set_name, "seed": seed, "test_photos": TEST_PHOTOS, "adapt_photos": ADAPT_PHOTOS,
           "models": {p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:12] for p in sorted(shipped.glob("*.onnx"))},
           "before": score_models(shipped, test)}
    log(f"shipped model: {out['before']['tiles_right']:.1%} tiles right")
    paths = (("folder", folder, adapt.adapt_folder), ("calibration", calibration, adapt.adapt_calibration))
    for path, source, call in paths:
        models = fresh_models(shipped, run / f"models-{path}")
        t0 = time.time()
        try:
            report = call(models, source, seed=seed)
        except ValueError as exc:  # the calibration photo's tiles were not all found
            out[path] = {"error": str(exc)}
            log(f"adapt --{path}: {exc}")
            continue
        report["wall_seconds"] = time.time() - t0
        out[path] = {"adapt": report, "after": score_models(models, test)}
        log(f"adapt --{path}: {out[path]['after']['tiles_right']:.1%} tiles right ({report['wall_seconds']:.0f} s)")
    if "after" in out["folder"]:
        out["folder"]["unseen_classes"] = unseen_classes(folder, test, out["folder"]["after"])
    out["study_seconds"] = time.time() - t_start
    return out


def unseen_classes(adapt_folder: Path, test_folder: Path, after: dict) -> dict:
    """Classes on the test photos that none of the adapt photos shows: nothing to learn them from."""
    from training.evaluate import class_name

    def classes(folder: Path) -> np.ndarray:
        return np.concatenate([read_labels(p)[:, 0] for p in sorted((folder / "labels").glob("*.txt"))]).astype(int)

    seen, test = set(classes(adapt_folder)), classes(test_folder)
    missing = sorted(set(test) - seen)
    tiles = int(np.isin(test, missing).sum())
    right = sum(after["per_class_recall"][class_name(c)] * int((test == c).sum()) for c in missing)
    return {"classes": [class_name(c) for c in missing], "test_tiles": tiles, "read_right": round(right)}


def detector_summary(d: dict) -> dict:
    """What the detector's part of an adapt did: skipped, or held-part errors old -> new and its time."""
    out = {"installed": d["installed"], "seconds": d["seconds"], "epochs": d["epochs"], "imgsz": d["imgsz"]}
    if "skipped" in d:
        return {**out, "skipped": d["skipped"]}
    return {**out, "held_photos": d["held_out_photos"], "held_by_photo": d["held_out_by_photo"],
            "old_held_errors": d["old_held"]["errors"], "new_held_errors": d["new_held"]["errors"],
            "before_all": d["before_all"], **({"after_all": d["after_all"]} if "after_all" in d else {})}


def detector_card_summary(r: dict) -> dict:
    """run_detector_study's figures as the model card shows them."""
    keys = ("tiles_found", "extras_per_photo", "extras", "photos_exactly_right", "tiles_right")
    rows = [{"name": "shipped detector", **{k: r["before"][k] for k in keys}}]
    for path, name in (("folder", "detector adapted on the 5 adapt photos"),
                       ("calibration", "detector adapted on the calibration photo")):
        if "after" in r[path]:
            rows.append({"name": name, **{k: r[path]["after"][k] for k in keys},
                         "detector": detector_summary(r[path]["adapt"])})
        else:
            rows.append({"name": name, "error": r[path]["error"]})
    return {"set": r["set"], "seed": r["seed"], "photos": r["before"]["photos"],
            "tiles": r["before"]["labelled_tiles"], "rows": rows}


def card_summary(r: dict) -> dict:
    """The study's figures as the model card shows them: one row per model."""
    b = r["before"]
    keys = ("tiles_right", "photos_all_right", "flower_recall", "tiles_found", "extras_per_photo", "photos_exactly_right")
    rows = [{"name": "shipped model", **{k: b[k] for k in keys if k in b}, "seconds": 0}]
    for path, name in (("folder", f"after `adapt --folder` on {r['adapt_photos']} photos"),
                       ("calibration", "after `adapt --calibration` on 1 photo")):
        if "error" in r[path]:
            continue
        after, a = r[path]["after"], r[path]["adapt"]
        rows.append({"name": name, **{k: after[k] for k in keys if k in after}, "seconds": a["wall_seconds"],
                     **({"detector": detector_summary(a["detector"])} if "detector" in a else {})})
    description = (f"KDE kmahjongglib set `{r['set']}` (GPL artwork, rendered under /tmp only, never shipped or "
                   f"trained on) on synthetic table photos: {b['photos']} test photos, {b['labelled_tiles']} tiles, "
                   f"seed {r['seed']}. The detector finds {b['tiles_found']:.1%} of these tiles, which caps every row.")
    unseen = r["folder"].get("unseen_classes")
    if unseen and unseen["classes"]:
        description += (f" The {r['adapt_photos']} adapt photos show no {', '.join(unseen['classes'])}: of those "
                        f"{unseen['test_tiles']} test tiles, {unseen['read_right']} were read right.")
    return {"description": description, "rows": rows}


def format_table(r: dict) -> str:
    """The before/after table printed at the end of the study."""
    def row(name: str, s: dict, seconds: str) -> str:
        fl = "-" if s["flower_recall"] is None else f"{s['flower_recall']:.1%}"
        return (f"{name:<26}{s['tiles_right']:>12.1%}{s['photos_all_right']:>18.1%}{fl:>17}"
                f"{s['tiles_found']:>13.1%}{s['tiles_right'] / max(s['tiles_found'], 1e-9):>13.1%}{seconds:>16}"
                f"{s.get('extras_per_photo', 0):>9.2f}{s.get('photos_exactly_right', 0):>9.1%}")
    b = r["before"]
    lines = [f"set {r['set']} (seed {r['seed']}): {b['photos']} test photos, {b['labelled_tiles']} tiles",
             f"{'':<26}{'tiles right':>12}{'photos all right':>18}{'flowers+seasons':>17}{'tiles found':>13}"
             f"{'right/found':>13}{'adapt wall/cpu':>16}{'extras':>9}{'exact':>9}",
             row("shipped model", b, "-")]
    for path, name in (("folder", f"adapt --folder ({r['adapt_photos']} photos)"),
                       ("calibration", "adapt --calibration")):
        if "error" in r[path]:
            lines.append(f"{name:<26}failed: {r[path]['error']}")
            continue
        a = r[path]["adapt"]
        lines.append(row(name, r[path]["after"], f"{a['wall_seconds']:.0f}/{a['cpu_seconds']:.0f} s")
                     + ("" if a["installed"] else "  (not installed: held-out check)"))
        if "detector" in a:
            lines.append(f"{'':<26}detector: {detector_summary(a['detector'])}")
    unseen = r["folder"].get("unseen_classes")
    if unseen and unseen["classes"]:
        lines.append(f"the adapt photos lack {', '.join(unseen['classes'])}: {unseen['test_tiles']} test tiles, "
                     f"{unseen['read_right']} read right")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.adapt_study", description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"),
                    help="folder holding artwork/ and the photos")
    ap.add_argument("--models", default=str(ROOT / "models"), help="shipped models (only copied)")
    ap.add_argument("--work", default="/tmp/adapt-study", help="renders, photos and model copies go here")
    ap.add_argument("--set", default="traditional", choices=SETS + PROCEDURAL_SETS,
                    help="kmahjongglib tileset, or a procedural set of the held-out style, to study")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write every figure to this file")
    ap.add_argument("--record", action="store_true", help="keep the result in the model card (models/README.md)")
    ap.add_argument("--detector-only", action="store_true",
                    help="adapt only the detector (the classifier as shipped), reusing the photos already composed")
    args = ap.parse_args(argv)
    if args.detector_only:
        result = run_detector_study(Path(args.data), Path(args.models), Path(args.work), args.set, args.seed)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1, ensure_ascii=False, default=float))
        if args.record:
            from training.model_card import record

            print(f"recorded in {record(args.models, 'adapt_detector_study', detector_card_summary(result))}")
        return 0
    result = run_study(Path(args.data), Path(args.models), Path(args.work), args.set, args.seed)
    print(format_table(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, ensure_ascii=False, default=float))
    if args.record:
        from training.model_card import record

        print(f"recorded in {record(args.models, 'adapt_study', card_summary(result))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
