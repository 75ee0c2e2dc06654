"""Synthetic tiles: artwork faces and plain face-down backs rendered onto tile bodies.

Used for the classes real photos lack (the face-down `back`) or have few of (flowers,
seasons), and to paste face-down tiles into detector training photos.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.classes import BACK_CLASS, NUM_CLASSES
from vision.crops import CROP_MARGIN, CROP_STORE

# Artwork folders (relative to the artwork root) and which classes each may supply.
# gnome "postmodern" has a logo for 白 and an unverified flower/season order: suits and honours only.
ART_SETS = {
    "wikimedia-unicode-color-via-ffalt/rendered": (range(42), False),
    "gnome-mahjongg/rendered-smooth": (range(42), True),
    # edu_kang_xi writes the suits as characters, unlike any real set: honours and flowers only
    "gnome-mahjongg/rendered-edu_kang_xi": (list(range(27, 33)) + list(range(34, 42)), True),
    "gnome-mahjongg/rendered-postmodern": (range(33), True),
}

# Artwork kept as SVG (one face per file, no tile body), rendered once into a cache by librsvg:
# cache folder -> (artwork folder, class -> file name). FluffyStuff's riichi set (CC0) has the 34
# suit and honour faces, in a third 萬 and 條 style, and the red fives Japanese sets print (one
# 5萬, 5筒 and 5條 all in red), kept as a set of their own so that each set holds one face a class.
_RIICHI = "fluffystuff-riichi-cc0"
SVG_SETS = {
    _RIICHI: (_RIICHI, dict(enumerate([f"{suit}{n}" for suit in ("Man", "Pin", "Sou") for n in range(1, 10)]
                                      + ["Ton", "Nan", "Shaa", "Pei", "Chun", "Hatsu", "Haku"]))),
    f"{_RIICHI}-red-fives": (_RIICHI, {4: "Man5-Dora", 13: "Pin5-Dora", 22: "Sou5-Dora"}),
}
SVG_HEIGHT = 300
# KDE kmahjongglib sets (GPL-2+, rendered at training time, never shipped) that train the
# classifier: `default`, Japanese-style art with corner indices and small season names.
# `traditional` stays out of all training (the adapt and style studies measure an unseen set
# with it), and the task forbids KMahjongg's `classic` and `jade`, which are measured outside.
KDE_TRAIN_SETS = ("default",)

# Face-down colours seen on real sets (BGR): greens, blues, yellow, orange, pink, purple, dark.
BACK_COLOURS = np.array([
    [60, 140, 40], [40, 110, 20], [90, 170, 70], [170, 110, 30], [200, 150, 60], [140, 60, 20],
    # no white or ivory: a blank back would be the 白 tile (white dragon) of many sets
    [40, 200, 230], [30, 140, 240], [150, 110, 230], [150, 60, 140], [50, 60, 60],
    [70, 70, 170], [120, 160, 40],
], np.float32)


def render_svg_sets(artwork_root: Path, cache: Path, log=print) -> list[Path]:
    """Folders of faces rendered from SVG_SETS (NN_name.png) and KDE_TRAIN_SETS (NN.png), cached;
    none when librsvg is missing."""
    from training.svg_render import render_file, rsvg_available

    if not rsvg_available():
        log("librsvg not found: training without the SVG artwork sets")
        return []
    folders = []
    for key, (folder, names) in SVG_SETS.items():
        src, out = Path(artwork_root) / folder, Path(cache) / key
        if not src.is_dir():
            continue
        out.mkdir(parents=True, exist_ok=True)
        for cls, name in names.items():
            png = out / f"{cls:02d}_{name}.png"
            if not png.exists():
                cv2.imwrite(str(png), render_file(src / f"{name}.svg", SVG_HEIGHT))
        folders.append(out)
    folders += render_kde_sets(artwork_root, cache, log)
    return folders


def render_kde_sets(artwork_root: Path, cache: Path, log=print) -> list[Path]:
    """Folders of NN.png faces of KDE_TRAIN_SETS (cached), for load_faces."""
    from training.adapt_study import KMAHJONGG, render_tileset

    folders = []
    for name in KDE_TRAIN_SETS:
        if not (Path(artwork_root).parent / KMAHJONGG / f"{name}.desktop").exists():
            log(f"no kmahjongglib set {name}: training without it")
            continue
        render_tileset(Path(artwork_root).parent, name, Path(cache) / "kmahjongglib")
        folders.append(Path(cache) / "kmahjongglib" / name / "faces")
    return folders


def load_faces(artwork_root: Path, rendered: list[Path] = (), art_sets: dict | None = None) -> list[dict]:
    """Every usable face image: dicts with cls, rgba (H,W,4 uint8) and has_body (art includes the tile).
    rendered: folders from render_svg_sets (faces only, every class they hold); art_sets: the
    folders under artwork_root to load, as ART_SETS (all of it unless given)."""
    sources = [(Path(d), range(NUM_CLASSES), False) for d in rendered]
    sources += [(Path(artwork_root) / folder, classes, has_body)
                for folder, (classes, has_body) in (ART_SETS if art_sets is None else art_sets).items()]
    faces = []
    for d, classes, has_body in sources:
        if not d.is_dir():
            continue
        for f in sorted(d.glob("*.png")):
            cls = int(f.name[:2])
            if cls in classes:
                img = cv2.imread(str(f), cv2.IMREAD_UNCHANGED)
                if img is not None and img.ndim == 3 and img.shape[2] == 4:
                    faces.append({"cls": cls, "rgba": img, "has_body": has_body})
    return faces


def _rounded_mask(h: int, w: int, radius: float) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    r = int(max(1, radius))
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def _bevel(body: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Shade the rim: lighter towards one corner, darker towards the other, like a rounded tile edge."""
    h, w = mask.shape
    dist = cv2.distanceTransform((mask > 0).astype(np.uint8), cv2.DIST_L2, 3)
    rim = np.clip(1 - dist / max(2.0, 0.12 * min(h, w)), 0, 1)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    side = (np.cos(ang) * (xx / w - 0.5) + np.sin(ang) * (yy / h - 0.5)) * 2
    shade = 1 + rim * side * rng.uniform(0.15, 0.35) - rim * rng.uniform(0.0, 0.15)
    return np.clip(body * shade[..., None], 0, 255)


def tile_image(face: dict | None, rng: np.random.Generator, height: int = 120) -> tuple[np.ndarray, np.ndarray]:
    """A flat, upright tile (BGR float, alpha mask) of the given height; face=None draws a face-down back."""
    width = int(round(height * rng.uniform(0.7, 0.8)))
    mask = _rounded_mask(height, width, height * rng.uniform(0.05, 0.12))
    if face is not None and face["has_body"]:
        rgba = cv2.resize(face["rgba"], (width, height), interpolation=cv2.INTER_AREA)
        img = rgba[..., :3].astype(np.float32)
        return img, np.minimum(mask, rgba[..., 3])
    if face is None:
        colour = BACK_COLOURS[rng.integers(len(BACK_COLOURS))] * rng.uniform(0.8, 1.15, 3)
    else:
        colour = np.array([225, 238, 242], np.float32) * rng.uniform(0.9, 1.05, 3)  # ivory
    body = np.ones((height, width, 3), np.float32) * colour
    body = _bevel(body, mask, rng)
    if face is None and rng.random() < 0.5:  # faint texture some backs carry
        body += rng.normal(0, 6, (1, 1, 3)) * np.sin(np.arange(width) / rng.uniform(2, 8))[None, :, None]
    if face is not None:
        fh, fw = int(height * rng.uniform(0.78, 0.9)), int(width * rng.uniform(0.78, 0.9))
        art = cv2.resize(face["rgba"], (fw, fh), interpolation=cv2.INTER_AREA).astype(np.float32)
        art = _ink_variation(art, rng)
        y0, x0 = (height - fh) // 2 + rng.integers(-2, 3), (width - fw) // 2 + rng.integers(-2, 3)
        y0, x0 = int(np.clip(y0, 0, height - fh)), int(np.clip(x0, 0, width - fw))
        a = art[..., 3:4] / 255.0
        region = body[y0:y0 + fh, x0:x0 + fw]
        body[y0:y0 + fh, x0:x0 + fw] = region * (1 - a) + art[..., :3] * a
    return np.clip(body, 0, 255), mask


def _ink_variation(art: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Sets differ in stroke weight and ink colour (a bold 二 is not a 三): thicken or thin the
    strokes a pixel, and shift the ink's colour, on some of the faces."""
    if rng.random() < 0.4:
        kernel = np.ones((2, 2), np.uint8) if rng.random() < 0.5 else np.ones((3, 3), np.uint8)
        op = cv2.dilate if rng.random() < 0.6 else cv2.erode
        art[..., 3] = op(art[..., 3], kernel)
    if rng.random() < 0.3:
        art[..., :3] = np.clip(art[..., :3] * rng.uniform(0.6, 1.3, 3), 0, 255)
    return art


def _background(size: int, rng: np.random.Generator, backgrounds: list[np.ndarray] | None) -> np.ndarray:
    if backgrounds and rng.random() < 0.6:
        src = backgrounds[rng.integers(len(backgrounds))]
        h, w = src.shape[:2]
        s = int(rng.integers(size // 2, min(h, w)))
        y, x = rng.integers(0, h - s + 1), rng.integers(0, w - s + 1)
        return cv2.resize(src[y:y + s, x:x + s], (size, size)).astype(np.float32)
    colour = rng.uniform(20, 230, 3)
    bg = np.ones((size, size, 3), np.float32) * colour
    return bg + rng.normal(0, rng.uniform(2, 12), (size, size, 1))


def photo_effects(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Lighting gradient, colour cast, blur, sensor noise and JPEG, as a phone photo would add."""
    h, w = img.shape[:2]
    img = img.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    grad = 1 + rng.uniform(0, 0.35) * (np.cos(ang) * (xx / w - 0.5) + np.sin(ang) * (yy / h - 0.5))
    img = img * grad[..., None] * rng.uniform(0.85, 1.15, 3) * rng.uniform(0.6, 1.25)
    if rng.random() < 0.6:
        k = rng.uniform(0.3, 1.4)
        img = cv2.GaussianBlur(img, (0, 0), k)
    img = img + rng.normal(0, rng.uniform(1, 8), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return img


def _warp_tile(tile: np.ndarray, mask: np.ndarray, rng: np.random.Generator, tilt: float):
    """Random perspective (camera not straight above); returns warped tile, mask and the 3x3 matrix."""
    h, w = mask.shape
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jitter = rng.uniform(-tilt, tilt, (4, 2)) * np.float32([w, h])
    dst = src + jitter
    dst -= dst.min(0)
    out_w, out_h = int(np.ceil(dst[:, 0].max())) + 1, int(np.ceil(dst[:, 1].max())) + 1
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    t = cv2.warpPerspective(tile, m, (out_w, out_h), flags=cv2.INTER_LINEAR)
    k = cv2.warpPerspective(mask, m, (out_w, out_h), flags=cv2.INTER_LINEAR)
    return t, k


def _rotate_tile(tile: np.ndarray, mask: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Tile and mask turned by angle degrees on a canvas grown to hold all of it."""
    h, w = mask.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    out_w, out_h = int(np.ceil(w * cos + h * sin)), int(np.ceil(w * sin + h * cos))
    m[:, 2] += (out_w - w) / 2, (out_h - h) / 2
    return (cv2.warpAffine(tile, m, (out_w, out_h), flags=cv2.INTER_LINEAR),
            cv2.warpAffine(mask, m, (out_w, out_h), flags=cv2.INTER_LINEAR))


def render_crop(cls: int, faces_by_cls: dict, rng: np.random.Generator,
                backgrounds: list[np.ndarray] | None = None, size: int = CROP_STORE,
                max_angle: float = 0.0) -> np.ndarray:
    """One classifier crop (size x size BGR uint8) of class cls from the artwork faces."""
    face = None if cls == BACK_CLASS else faces_by_cls[cls][rng.integers(len(faces_by_cls[cls]))]
    tile, mask = tile_image(face, rng, height=int(rng.integers(70, 130)))
    return frame_tile(tile, mask, rng, backgrounds, size, max_angle)


def frame_tile(tile: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
               backgrounds: list[np.ndarray] | None = None, size: int = CROP_STORE,
               max_angle: float = 0.0) -> np.ndarray:
    """An upright tile picture framed like dataset.cut_crop: a little perspective, turned up to
    max_angle degrees either way (tiles scattered on a table), the frame then being the turned
    tile's upright bounding box, as a detector's box would be, plus the crop margin."""
    tile, mask = _warp_tile(tile, mask, rng, tilt=0.08)
    if max_angle:
        tile, mask = _rotate_tile(tile, mask, rng.uniform(-max_angle, max_angle))
    th, tw = mask.shape
    # canvas = tile box + margin, as the crop cutter frames a detected box
    canvas_h, canvas_w = int(th * (1 + 2 * CROP_MARGIN)), int(tw * (1 + 2 * CROP_MARGIN))
    side = max(canvas_h, canvas_w)
    canvas = _background(side, rng, backgrounds)[:canvas_h, :canvas_w]
    y0, x0 = int(th * CROP_MARGIN), int(tw * CROP_MARGIN)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    shadow = cv2.GaussianBlur(a, (0, 0), 3)[..., None] if a.ndim == 3 else a
    sh_dy, sh_dx = rng.integers(0, 5, 2)
    region = canvas[y0 + sh_dy:y0 + sh_dy + th, x0 + sh_dx:x0 + sh_dx + tw]
    region *= 1 - 0.35 * shadow[:region.shape[0], :region.shape[1]]
    region = canvas[y0:y0 + th, x0:x0 + tw]
    canvas[y0:y0 + th, x0:x0 + tw] = region * (1 - a) + tile * a
    crop = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    return photo_effects(crop, rng)


def faces_by_class(faces: list[dict]) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for f in faces:
        out.setdefault(f["cls"], []).append(f)
    return out


def paste_backs(image: np.ndarray, boxes: np.ndarray, rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Paste `count` face-down tiles into a photo where they overlap no labelled box.

    Tile size follows the photo's own tiles so the detector sees backs at realistic scale.
    Returns the new image and the (count', 4) pixel boxes actually placed.
    """
    img = image.astype(np.float32)
    h, w = image.shape[:2]
    placed = []
    ref = boxes if len(boxes) else np.array([[0, 0, w * 0.06, h * 0.1]], np.float32)
    taken = [b for b in np.asarray(ref, np.float32)]
    # backs often come as a row (a wall or a concealed kong): same size, side by side
    bi = rng.integers(len(ref))
    bw, bh = ref[bi, 2] - ref[bi, 0], ref[bi, 3] - ref[bi, 1]
    long_side = max(bw, bh) * rng.uniform(0.9, 1.1)
    sideways = rng.random() < 0.3
    tile, mask = tile_image(None, rng, height=max(int(long_side), 12))
    if sideways:
        tile, mask = np.rot90(tile).copy(), np.rot90(mask).copy()
    tile, mask = _warp_tile(tile, mask, rng, tilt=0.05)
    th, tw = mask.shape
    if th >= h or tw >= w:
        return image, np.zeros((0, 4), np.float32)
    for _ in range(count * 10):
        if len(placed) >= count:
            break
        if placed and rng.random() < 0.7:  # continue the row to the right
            last = placed[-1]
            x0, y0 = int(last[2] + rng.integers(0, 3)), int(last[1])
        else:
            x0, y0 = int(rng.integers(0, w - tw)), int(rng.integers(0, h - th))
        if x0 + tw > w or y0 + th > h:
            continue
        cand = np.array([x0, y0, x0 + tw, y0 + th], np.float32)
        if any(_overlap(cand, t) > 0.02 for t in taken):
            continue
        a = (mask.astype(np.float32) / 255.0)[..., None]
        region = img[y0:y0 + th, x0:x0 + tw]
        img[y0:y0 + th, x0:x0 + tw] = region * (1 - a) + tile * a * rng.uniform(0.8, 1.1)
        placed.append(cand)
        taken.append(cand)
    out = np.clip(img, 0, 255).astype(np.uint8)
    return out, np.array(placed, np.float32).reshape(-1, 4)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over the smaller box's area."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return inter / max(small, 1e-6)
