"""Synthetic phone photos of a tile set, with exact boxes: the one photo composer of training.

A tile set is a dict {"faces": class -> BGRA face, "bodies": four views of the body (or none),
...}: KDE artwork rendered by training.adapt_study.render_tileset, or a procedural set of
training.procedural. Its tiles are laid out as a hand (melds turned sideways), loose on the
table or as the calibration grid, on a table, and seen by a phone held at an angle.
The classifier's, the detector's, the adapt study's and the style study's photos all come from here.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from training import synth
from vision.calibration import CALIBRATION_ORDER
from training.dataset import NUM_FACE_CLASSES, write_labels, xyxy_to_labels
from vision.classes import BACK_CLASS


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
    if cls == BACK_CLASS:
        return face_down_picture(tileset, view, rng, height)
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


def face_down_picture(tileset: dict, view: int | None, rng: np.random.Generator,
                      height: int) -> tuple[np.ndarray, np.ndarray]:
    """A face-down tile of the set (BGR float, alpha mask uint8): the back on top, with its bevel,
    and from views 0-3 the sides with the face's layer nearest the table. A set without a
    procedural style (KDE artwork) gets synth's flat back. The bodies are drawn once per set with
    a generator of their own, so that drawing them changes no other draw."""
    style = tileset.get("style")
    if style is None:
        return synth.tile_image(None, rng, height)
    h, w = next(iter(tileset["faces"].values())).shape[:2]
    if "down_bodies" not in tileset:
        from training import procedural

        down = {**style, "front": style["back"], "back": style["front"], "front_share": 1 - style["front_share"],
                "gloss": False}
        body_rng = np.random.default_rng(7)
        tileset["down_bodies"] = [procedural.make_body(down, (h, w), v, body_rng) for v in procedural.VIEWS]
    blank = {"faces": {0: np.zeros((h, w, 4), np.uint8)}, "bodies": tileset["down_bodies"]}
    return tile_picture(blank, 0, view, rng, height)


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


def closeup_layout(rng: np.random.Generator, aspect: float) -> list[dict]:
    """One to three tiles side by side, as a player holds a phone over the tiles to ask about."""
    deck = _deck(rng)
    placed, x = [], 0.0
    for _ in range(int(rng.integers(1, 4))):
        x = _add_in_row(placed, deck.pop(), x, 0.0, aspect, False, rng) + rng.uniform(0, 0.15)
        placed[-1]["angle"] = rng.normal(0, 3.0)
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


def _corners(p: dict, aspect: float) -> np.ndarray:
    w, h = (1.0, aspect) if p["turn"] % 2 else (aspect, 1.0)
    return np.array([[p["x"] - w / 2, p["y"] - h / 2], [p["x"] + w / 2, p["y"] + h / 2]])


def camera(placed: list[dict], aspect: float, rng: np.random.Generator, max_angle: float,
           tilt: float, fill: float | None = None) -> tuple[np.ndarray, tuple[int, int]]:
    """Homography from layout units to photo pixels and the photo size (w, h).

    Tiles come out 75-150 px tall where the layout allows (a long hand must fit 1600 px),
    the camera a little tilted (far tiles smaller) and turned up to max_angle degrees.
    fill: a close-up instead, the layout spanning that share of a 640-1280 px photo.
    """
    pts = np.concatenate([_corners(p, aspect) for p in placed])
    (x0, y0), (x1, y1) = pts.min(0), pts.max(0)
    lw, lh = x1 - x0, y1 - y0
    if fill:
        w = int(rng.integers(640, 1281))
        h = int(w * rng.uniform(0.75, 1.34))
        unit = fill * min(w / lw, h / lh)
    else:
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
        tile, mask = tile_picture(tileset, placed[i]["cls"], view, rng, int(np.clip(unit * 1.2, 40, 800)))
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


LAYOUTS = {"hand": hand_layout, "scatter": scatter_layout, "calibration": calibration_layout,
           "closeup": closeup_layout}


def turn_face_down(placed: list[dict], rng: np.random.Generator) -> None:
    """Turn a run of one to four neighbouring tiles face down (BACK_CLASS), as a concealed kong or
    the wall shows them.

    >>> placed = [{"cls": c} for c in range(6)]
    >>> turn_face_down(placed, np.random.default_rng(1))
    >>> [p["cls"] for p in placed]
    [0, 1, 42, 42, 4, 5]
    """
    if not placed:
        return
    n = min(len(placed), int(rng.integers(1, 5)))
    start = int(rng.integers(len(placed) - n + 1))
    for p in placed[start:start + n]:
        p["cls"] = BACK_CLASS


def compose_photo(tileset: dict, kind: str, rng: np.random.Generator,
                  backgrounds: list[np.ndarray] | None = None,
                  face_down: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A synthetic phone photo of the set: (BGR uint8, classes (N,), boxes (N, 4) xyxy pixels).

    A calibration photo is taken with more care (a plain table, the camera nearly straight),
    since its rows must come apart by height alone; a close-up's tiles fill 45-85% of the photo.
    With probability face_down a hand or loose photo shows a run of tiles face down
    (turn_face_down); 0 draws exactly what was drawn before it existed.
    """
    view = [None, 0, 1, 2, 3][rng.integers(5)]
    aspect = tile_aspect(tileset, view)
    placed = LAYOUTS[kind](rng, aspect)
    if face_down and kind in ("hand", "scatter") and rng.random() < face_down:
        turn_face_down(placed, rng)
    careful = kind == "calibration"
    fill = rng.uniform(0.45, 0.85) if kind == "closeup" else None
    homography, (w, h) = camera(placed, aspect, rng, max_angle=3 if careful else 12, tilt=0.12 if careful else 0.2,
                                fill=fill)
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
