"""Table scenes for the detector: procedural table tops, things that are not tiles, and glare.

The training photos show one kind of table. A player's table may be wood, glass, printed
paper or a patterned mat, with a rack, a sleeve or a phone at the edge, and a lamp's
reflection on glossy tiles. Each of these made the detector invent or miss tiles on photos it
never saw (issue 10), so the synthetic photos of training/procedural.py sets are composed on
them; the distractors carry no label, which teaches the detector they are not tiles.
"""
from __future__ import annotations

import cv2
import numpy as np

from training.procedural import font_families, glyph, paint_mask


def _noise(h: int, w: int, rng: np.random.Generator, cells: int) -> np.ndarray:
    """Smooth noise in about -1..1 with `cells` blobs across."""
    small = rng.normal(0, 1, (max(2, cells * h // max(w, 1)), max(2, cells))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def felt(h, w, rng, colour=None):
    if colour is None:
        colour = rng.uniform([20, 60, 10], [160, 170, 120]) if rng.random() < 0.6 else rng.uniform(20, 200, 3)
    weave = rng.normal(0, rng.uniform(3, 9), (h, w, 1))
    return colour * (1 + 0.06 * _noise(h, w, rng, 8)[..., None]) + weave


def wood(h, w, rng):
    """Grain: stretched noise along one direction, in browns."""
    base = rng.uniform([20, 50, 90], [90, 140, 200])
    grain = _noise(h, w, rng, 3) * 0.5
    yy = np.arange(h, dtype=np.float32)[:, None]
    rings = np.sin(yy / rng.uniform(3, 12) + 6 * grain + 2 * _noise(h, w, rng, 2))
    img = base * (1 + 0.12 * rings[..., None] + 0.08 * grain[..., None])
    if rng.random() < 0.5:
        img = np.ascontiguousarray(np.swapaxes(cv2.resize(img, (h, w)), 0, 1))
    return img


def plastic(h, w, rng, colour=None, shine=60):
    """A smooth plastic or glass top, one colour with a broad sheen of up to shine."""
    if colour is None:
        colour = rng.uniform(30, 230, 3)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    sheen = np.exp(-(((xx / w - rng.uniform()) ** 2) + ((yy / h - rng.uniform()) ** 2)) / rng.uniform(0.05, 0.3))
    return colour + sheen[..., None] * rng.uniform(10, shine) + rng.normal(0, 2, (h, w, 1))


def paint_text(canvas: np.ndarray, text: str, font, rect, colour) -> None:
    """Print text in font over rect of canvas; left out where the font cannot draw it (the brush
    font kouzan-mouhitsu-gyosho has no 囍, and packing a detector round stopped on it)."""
    try:
        paint_mask(canvas, glyph(text, *font), rect, colour)
    except ValueError:
        pass


def printed(h, w, rng):
    """Printed paper or a mat: lines, blocks and characters (never a tile's outline)."""
    img = np.ones((h, w, 3), np.float32) * rng.uniform(170, 250, 3)
    canvas = np.zeros((h, w, 4), np.float32)
    canvas[..., :3] = img
    families = font_families()
    fonts = [f for files in families.values() for f in files]
    for _ in range(int(rng.integers(4, 14))):
        colour = rng.uniform(0, 200, 3)
        kind = rng.random()
        if kind < 0.4 and fonts:
            text = "".join(rng.choice(list("萬東南西北中發春夏秋冬梅蘭菊竹麻將台灣牌局胡"), int(rng.integers(1, 4))))
            size = rng.uniform(0.04, 0.2) * min(h, w)
            x, y = rng.uniform(0, w - size), rng.uniform(0, h - size)
            font = fonts[int(rng.integers(len(fonts)))]
            paint_text(canvas, text, font, (x, y, size * len(text), size), colour)
        elif kind < 0.7:
            p1 = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            p2 = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            cv2.line(canvas, p1, p2, (*colour, 255), int(rng.integers(1, 6)), cv2.LINE_AA)
        else:
            cx, cy, r = int(rng.uniform(0, w)), int(rng.uniform(0, h)), int(rng.uniform(0.02, 0.2) * min(h, w))
            cv2.circle(canvas, (cx, cy), r, (*colour, 255), -1 if rng.random() < 0.5 else int(rng.integers(1, 5)),
                       cv2.LINE_AA)
    return canvas[..., :3]


def bold_print(h, w, rng):
    """A mat or a newspaper printed with big dark blocks, rings and characters: on such a
    print the detector missed six tiles of one ivory style-study photo (2026-12-04)."""
    img = np.ones((h, w, 3), np.float32) * rng.uniform(120, 250, 3)
    families = font_families()
    fonts = [f for files in families.values() for f in files]
    canvas = np.concatenate([img, np.zeros((h, w, 1), np.float32)], axis=2)
    for _ in range(int(rng.integers(3, 9))):
        colour = rng.uniform(0, 90, 3) if rng.random() < 0.7 else rng.uniform(0, 230, 3)
        kind = rng.random()
        size = rng.uniform(0.15, 0.5) * min(h, w)
        x, y = rng.uniform(-size / 3, w - size / 2), rng.uniform(-size / 3, h - size / 2)
        if kind < 0.35 and fonts:
            text = "".join(rng.choice(list("麻將台灣牌局胡東南中發福囍"), int(rng.integers(1, 3))))
            font = fonts[int(rng.integers(len(fonts)))]
            paint_text(canvas, text, font, (x, y, size * len(text), size), colour)
        elif kind < 0.7:
            cv2.rectangle(canvas, (int(x), int(y)), (int(x + size * rng.uniform(0.6, 2)), int(y + size)),
                          (*colour, 255), -1)
        else:
            cv2.circle(canvas, (int(x + size / 2), int(y + size / 2)), int(size / 2), (*colour, 255),
                       -1 if rng.random() < 0.6 else int(rng.integers(4, 20)), cv2.LINE_AA)
    return canvas[..., :3]


def near_colour(h, w, rng, colour):
    """Felt or plastic of about the tiles' own colour: red tiles on a red cloth, ivory on cream.
    The detector found too few red-bodied tiles on a table of almost their colour."""
    colour = np.clip(np.asarray(colour, np.float32) + rng.normal(0, 14, 3), 0, 255)
    return felt(h, w, rng, colour) if rng.random() < 0.5 else plastic(h, w, rng, colour, shine=40)


TABLES = (felt, felt, wood, plastic, printed)


def table_top(h: int, w: int, rng: np.random.Generator, hard: float = 0.0, body=None) -> np.ndarray:
    """A procedural table top (BGR uint8), one of TABLES; with probability hard instead a hard
    one: bold dark print, or (given the tiles' body colour) a cloth of about that colour.
    hard=0 draws exactly what it drew before it existed."""
    if hard and rng.random() < hard:
        img = near_colour(h, w, rng, body) if body is not None and rng.random() < 0.5 else bold_print(h, w, rng)
    else:
        img = TABLES[int(rng.integers(len(TABLES)))](h, w, rng)
    return np.clip(img, 0, 255).astype(np.uint8)


MAX_COVER = 0.3


def covered(alpha: np.ndarray, box) -> float:
    """Share of the box (xyxy pixels) that alpha (h x w, 0-1) paints at all."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    part = alpha[max(0, y0):max(0, y1), max(0, x0):max(0, x1)]
    return float((part > 0.02).mean()) if part.size else 0.0


def add_distractors(img: np.ndarray, rng: np.random.Generator, boxes: np.ndarray) -> np.ndarray:
    """Things at a table that are not tiles: a sleeve or hand at the edge, a rack's bar, a phone,
    a coin; each covers at most MAX_COVER of any tile (a tile that far under a sleeve keeps its label)."""
    img = img.astype(np.float32)
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(0, 4))):
        layer = np.zeros((h, w), np.uint8)
        kind = rng.random()
        if kind < 0.35:  # a hand or sleeve from an edge
            colour = rng.uniform([60, 90, 140], [150, 180, 230]) if rng.random() < 0.5 else rng.uniform(10, 230, 3)
            side = int(rng.integers(4))
            r = int(rng.uniform(0.08, 0.2) * min(h, w))
            c = [(int(rng.uniform(0, w)), 0), (int(rng.uniform(0, w)), h), (0, int(rng.uniform(0, h))),
                 (w, int(rng.uniform(0, h)))][side]
            cv2.ellipse(layer, c, (r, int(r * rng.uniform(1.2, 2.5))), rng.uniform(0, 180), 0, 360, 255, -1, cv2.LINE_AA)
        elif kind < 0.6:  # a rack: a long bar
            colour = rng.uniform(10, 230, 3)
            y = int(rng.uniform(0, h))
            th = int(rng.uniform(0.02, 0.06) * h)
            cv2.rectangle(layer, (int(rng.uniform(0, w * 0.3)), y), (int(rng.uniform(w * 0.6, w)), y + th), 255, -1)
        elif kind < 0.8:  # a phone or a box
            colour = rng.uniform(0, 80, 3)
            x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
            s = int(rng.uniform(0.08, 0.2) * min(h, w))
            cv2.rectangle(layer, (x, y), (x + s, y + int(s * rng.uniform(1.5, 2.2))), 255, -1)
        else:  # coins or chips
            colour = rng.uniform(40, 230, 3)
            for _ in range(int(rng.integers(1, 6))):
                cv2.circle(layer, (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                           int(rng.uniform(0.01, 0.03) * min(h, w)), 255, -1, cv2.LINE_AA)
        a = cv2.GaussianBlur(layer.astype(np.float32) / 255, (0, 0), 1.5)
        if any(covered(a, box) > MAX_COVER for box in boxes):
            continue
        a = a[..., None]
        shade = 1 + 0.25 * _noise(h, w, rng, 4)[..., None]
        img = img * (1 - a) + colour * shade * a
    return np.clip(img, 0, 255).astype(np.uint8)


def add_glare(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A lamp's reflection: a soft bright ellipse somewhere on the photo."""
    h, w = img.shape[:2]
    layer = np.zeros((h, w), np.float32)
    centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    axes = (int(rng.uniform(0.03, 0.15) * w), int(rng.uniform(0.02, 0.08) * h))
    cv2.ellipse(layer, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1, cv2.LINE_AA)
    layer = cv2.GaussianBlur(layer, (0, 0), max(2.0, axes[1] * 0.4))[..., None]
    return np.clip(img.astype(np.float32) + layer * rng.uniform(80, 200), 0, 255).astype(np.uint8)


def tile_side(boxes: np.ndarray, shape: tuple[int, int]) -> float:
    """A photo's typical tile size: the median long side of its tiles' boxes (N, 4 xyxy), or 0.12
    of the photo's short side where it has none."""
    if not len(boxes):
        return 0.12 * min(shape)
    return float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))


def tile_sized_box(side: float, shape: tuple[int, int], rng: np.random.Generator,
                   scale: tuple[float, float]) -> np.ndarray | None:
    """One box (xyxy) anywhere in an h x w photo, its long side scale times side, its short side
    0.55-1 of that, standing or lying; None where it does not fit."""
    h, w = shape
    long_side = side * rng.uniform(*scale)
    short = long_side * rng.uniform(0.55, 1.0)
    bw, bh = (long_side, short) if rng.random() < 0.5 else (short, long_side)
    if bw >= w or bh >= h:
        return None
    x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
    return np.array([x, y, x + bw, y + bh])


def flat_mark_boxes(tiles: np.ndarray, shape: tuple[int, int], rng: np.random.Generator, count: int) -> np.ndarray:
    """Up to count boxes of about a tile's size and shape (xyxy), clear of the tiles' boxes and
    of each other, for flat marks (paint_flat_mark)."""
    tiles = np.asarray(tiles, np.float64).reshape(-1, 4)
    side = tile_side(tiles, shape)
    taken, out = list(tiles), []
    for _ in range(count * 20):
        if len(out) == count:
            break
        b = tile_sized_box(side, shape, rng, (0.7, 1.4))
        if b is None:
            continue
        pad = 0.1 * side
        if all(b[0] > t[2] + pad or b[2] < t[0] - pad or b[1] > t[3] + pad or b[3] < t[1] - pad for t in taken):
            out.append(b)
            taken.append(b)
    return np.array(out, np.float64).reshape(-1, 4)


def _line_across(mask: np.ndarray, p: np.ndarray, rng: np.random.Generator) -> None:
    """Draw into mask (h x w, 0-1) a straight line 1-2 px wide through p, in a random direction,
    across the whole photo."""
    h, w = mask.shape
    d = rng.normal(size=2)
    d = d / max(np.hypot(*d), 1e-6) * 2 * max(h, w)
    cv2.line(mask, tuple(int(v) for v in p - d), tuple(int(v) for v in p + d), 1.0, int(rng.integers(1, 3)),
             cv2.LINE_AA)


def _clear_boxes(mask: np.ndarray, boxes) -> None:
    """Zero mask (h x w) inside the boxes (xyxy pixels): what is drawn there lies under the tiles."""
    for t in np.asarray(boxes, np.float64).reshape(-1, 4):
        mask[max(0, int(t[1])):max(0, int(np.ceil(t[3]))), max(0, int(t[0])):max(0, int(np.ceil(t[2])))] = 0


def paint_flat_mark(img: np.ndarray, box, rng: np.random.Generator, tiles=()) -> np.ndarray:
    """A flat mark of a tile's size printed or lying on the table, filling box (xyxy): a dark or
    coloured patch with sharp corners, often a lighter outline or inset panel, sometimes a printed
    line across, and no body: no bevel, no side, no shadow. A table's printed marks, a card or a
    phone's back read as face-down tiles (the pink session's table, issue 10); a real face-down
    tile shows its body (training/compose.face_down_picture). The line stops at the tiles' boxes
    (tiles, xyxy): it is printed on the table, under them."""
    out = img.astype(np.float32)
    h, w = out.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    bw, bh = x1 - x0, y1 - y0
    corners = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    corners += rng.uniform(-0.08, 0.08, (4, 2)).astype(np.float32) * np.float32([bw, bh])  # seen at an angle
    layer = np.zeros((h, w), np.float32)
    cv2.fillPoly(layer, [np.round(corners * 8).astype(np.int32)], 1.0, cv2.LINE_AA, shift=3)
    colour = rng.uniform(0, 70, 3) if rng.random() < 0.6 else rng.uniform(0, 230, 3)
    inset = np.zeros((h, w), np.float32)
    if rng.random() < 0.6:  # an outline or an inset panel in another tone
        share = rng.uniform(0.08, 0.3, 2)
        centre = corners.mean(0)
        inner = centre + (corners - centre) * (1 - share).astype(np.float32)
        if rng.random() < 0.5:
            inner[:2] -= (inner[:2] - centre) * rng.uniform(0.3, 0.7)  # a panel in one part
        thick = -1 if rng.random() < 0.5 else int(rng.integers(1, 4))
        if thick < 0:
            cv2.fillPoly(inset, [np.round(inner).astype(np.int32)], 1.0, cv2.LINE_AA)
        else:
            cv2.polylines(inset, [np.round(inner).astype(np.int32)], True, 1.0, thick, cv2.LINE_AA)
    tone = np.clip(colour + rng.choice([-1, 1]) * rng.uniform(25, 90), 0, 255)
    shade = 1 + 0.06 * _noise(h, w, rng, 8)[..., None]
    a = layer[..., None]
    fill = colour * (1 - inset[..., None]) + tone * inset[..., None]
    out = out * (1 - a) + fill * shade * a
    if rng.random() < 0.4:  # a line printed on the table, running through the mark
        p = corners[int(rng.integers(4))] + rng.uniform(-0.3, 0.3, 2) * np.float32([bw, bh])
        line = np.zeros((h, w), np.float32)
        _line_across(line, p, rng)
        _clear_boxes(line, tiles)
        out = out * (1 - line[..., None]) + rng.uniform(0, 60, 3).astype(np.float32) * line[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _carbon(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Carbon-fibre twill (BGR float): small dark cells whose sheen alternates along diagonals."""
    cell = int(rng.integers(3, 9))
    yy, xx = np.mgrid[0:h, 0:w]
    twill = (((xx // cell) + (yy // cell) // 2) % 2).astype(np.float32)
    base = rng.uniform(15, 45)
    return (base + twill * rng.uniform(12, 35) + rng.normal(0, 2, (h, w)))[..., None] * np.ones(3, np.float32)


def _knob(canvas: np.ndarray, alpha: np.ndarray, centre, r: int, rng: np.random.Generator) -> None:
    """A chrome dial knob: a knurled bright ring of radial ridges, a dark ring, a grey cap."""
    cx, cy = centre
    ridges = int(rng.integers(24, 60))
    light = rng.uniform(170, 250)
    for k in range(ridges):
        a0 = 360.0 * k / ridges
        tone = light if k % 2 == 0 else light * rng.uniform(0.45, 0.7)
        cv2.ellipse(canvas, (cx, cy), (r, r), 0, a0, a0 + 360.0 / ridges, (tone,) * 3, -1, cv2.LINE_AA)
    cv2.circle(canvas, (cx, cy), max(1, int(r * rng.uniform(0.55, 0.75))), (rng.uniform(10, 60),) * 3, -1,
               cv2.LINE_AA)
    cap = rng.uniform(60, 200)
    cv2.circle(canvas, (cx, cy), max(1, int(r * rng.uniform(0.25, 0.45))), (cap,) * 3, -1, cv2.LINE_AA)
    cv2.circle(canvas, (cx - r // 8, cy - r // 8), max(1, r // 10), (min(255, cap + 60),) * 3, -1, cv2.LINE_AA)
    cv2.circle(alpha, (cx, cy), r, 1.0, -1, cv2.LINE_AA)


def _control_panel(h: int, w: int, side: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """An automatic table's centre panel (BGR float, alpha): a carbon disc with a bright rim,
    chrome dial knobs about a tile's size, a lit display and small print, centred at an edge or
    corner of the photo (the photo shows a part of it)."""
    canvas = np.zeros((h, w, 3), np.float32)
    alpha = np.zeros((h, w), np.float32)
    r = int(rng.uniform(1.5, 3.5) * side)
    corners = [(0, 0), (w, 0), (0, h), (w, h), (w // 2, 0), (w // 2, h), (0, h // 2), (w, h // 2)]
    cx, cy = corners[int(rng.integers(len(corners)))]
    cx, cy = int(cx + rng.uniform(-0.3, 0.3) * r), int(cy + rng.uniform(-0.3, 0.3) * r)
    disc = np.zeros((h, w), np.float32)
    cv2.circle(disc, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
    canvas += _carbon(h, w, rng) * disc[..., None]
    alpha = np.maximum(alpha, disc)
    cv2.circle(canvas, (cx, cy), r, (rng.uniform(120, 230),) * 3, int(rng.integers(2, 6)), cv2.LINE_AA)
    for _ in range(int(rng.integers(1, 4))):  # knobs inside the disc, about a tile across
        ang, dist = rng.uniform(0, 2 * np.pi), rng.uniform(0.2, 0.75) * r
        _knob(canvas, alpha, (int(cx + dist * np.cos(ang)), int(cy + dist * np.sin(ang))),
              max(3, int(side * rng.uniform(0.3, 0.6))), rng)
    if rng.random() < 0.7:  # a lit display with digits
        ang, dist = rng.uniform(0, 2 * np.pi), rng.uniform(0.2, 0.7) * r
        x, y = int(cx + dist * np.cos(ang)), int(cy + dist * np.sin(ang))
        dw, dh = int(side * rng.uniform(0.4, 0.9)), int(side * rng.uniform(0.2, 0.4))
        glow = rng.uniform([120, 40, 0], [255, 200, 80])
        cv2.rectangle(canvas, (x, y), (x + dw, y + dh), tuple(float(v) for v in glow), -1)
        for k in range(int(rng.integers(2, 5))):
            dx = x + int((k + 0.2) * dw / 4.5)
            cv2.rectangle(canvas, (dx, y + dh // 5), (dx + max(1, dw // 8), y + 4 * dh // 5), (250, 250, 250), 1)
        cv2.rectangle(alpha, (x, y), (x + dw, y + dh), 1.0, -1)
    for _ in range(int(rng.integers(0, 4))):  # small print on the panel
        ang, dist = rng.uniform(0, 2 * np.pi), rng.uniform(0.1, 0.9) * r
        p = (int(cx + dist * np.cos(ang)), int(cy + dist * np.sin(ang)))
        cv2.putText(canvas, "".join(rng.choice(list("FUNHO0123AUTO"), int(rng.integers(2, 6)))), p,
                    cv2.FONT_HERSHEY_SIMPLEX, max(0.3, side / 120), (rng.uniform(150, 255),) * 3, 1, cv2.LINE_AA)
    return canvas, alpha * disc


def _holder(h: int, w: int, side: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A dark plastic piece of about a tile's size lying in the table (an automatic table's lift
    cover or card holder): a flat dark plate at an angle with a notch panel in one corner and a
    lit and a shadowed edge; no bevelled body and no face."""
    canvas = np.zeros((h, w, 3), np.float32)
    alpha = np.zeros((h, w), np.float32)
    bw, bh = side * rng.uniform(0.7, 1.3), side * rng.uniform(0.6, 1.1)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    ang = np.deg2rad(rng.uniform(-40, 40))
    rot = np.float32([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    unit = np.float32([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    corners = (unit * np.float32([bw, bh])) @ rot.T + np.float32([cx, cy])
    tone = rng.uniform(25, 80)
    cv2.fillPoly(canvas, [np.round(corners).astype(np.int32)], (tone,) * 3, cv2.LINE_AA)
    cv2.fillPoly(alpha, [np.round(corners).astype(np.int32)], 1.0, cv2.LINE_AA)
    edge = int(rng.integers(0, 4))
    cv2.line(canvas, tuple(np.round(corners[edge]).astype(int)), tuple(np.round(corners[(edge + 1) % 4]).astype(int)),
             (min(255, tone + rng.uniform(30, 80)),) * 3, max(1, int(side * 0.03)), cv2.LINE_AA)
    # the notch: a smaller panel of another tone in one corner of the plate
    k = int(rng.integers(4))
    share = rng.uniform(0.3, 0.5, 2).astype(np.float32)
    inner = corners[k] + (corners - corners[k]) * np.float32([[0, 0], [share[0]] * 2, [share.mean()] * 2, [share[1]] * 2])[
        (np.arange(4) - k) % 4]
    inner = inner + (corners.mean(0) - corners[k]) * 0.12
    cv2.polylines(canvas, [np.round(inner).astype(np.int32)], True, (tone + rng.choice([-1, 1]) * rng.uniform(15, 40),) * 3,
                  max(1, int(side * 0.025)), cv2.LINE_AA)
    canvas += rng.normal(0, 3, (h, w, 1)) * alpha[..., None]
    return canvas, alpha


def add_table_parts(img: np.ndarray, rng: np.random.Generator, boxes: np.ndarray) -> np.ndarray:
    """An automatic mahjong table's own parts around the tiles (boxes, xyxy), none over a tile:
    its centre panel (carbon, chrome dial knobs, a display), dark plates of a tile's size set in
    the table, and the seams of its lift doors. Taiwanese players mostly play on such tables; on
    the pink session's photos the plates were read as face-down tiles and the knobs as 1筒."""
    out = img.astype(np.float32)
    h, w = out.shape[:2]
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    side = tile_side(boxes, (h, w))
    parts = []
    if rng.random() < 0.6:
        parts.append(_control_panel(h, w, side, rng))
    for _ in range(int(rng.integers(1, 4))):
        parts.append(_holder(h, w, side, rng))
    seams = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(0, 4))):  # straight seams of the lift doors, under the tiles
        _line_across(seams, np.float32([rng.uniform(0, w), rng.uniform(0, h)]), rng)
    _clear_boxes(seams, boxes)
    out = out * (1 - seams[..., None]) + rng.uniform(0, 50, 3).astype(np.float32) * seams[..., None]
    for canvas, alpha in parts:
        a = cv2.GaussianBlur(alpha, (0, 0), 0.8)
        if any(covered(a, box) > 0.02 for box in boxes):
            continue
        out = out * (1 - a[..., None]) + canvas * a[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)
