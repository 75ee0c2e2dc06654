"""Build static/tiles/*.png (the web UI's tile pictures) from the public-domain Wikimedia faces.

Only the Wikimedia Commons "Unicode 1F000-1F02F Mahjong Tiles (color)" set (public domain, via
ffalt/mah) is used; the GPL GNOME/KDE artwork must never be shipped. The rendered faces have no
tile body, so each is drawn onto an ivory tile, downscaled to 64 px wide to keep the repo small.
Flowers get their printed number (1-4) in the corner because the engine scores flowers by number;
sets that print 菊 3 and 竹 4 (hk-index) get their own 7f/8f pictures under static/tiles/hk-index/.

    .venv/bin/python tools/make_tile_pictures.py [ARTWORK_DIR]
"""
from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SRC = ROOT.parent / "shared/data/artwork/wikimedia-unicode-color-via-ffalt/rendered"
OUT = ROOT / "static/tiles"
W, H = 64, 84
SCALE = 4  # draw large, then downscale once for smooth edges

# class order of rendered/NN_name.png (SOURCE.md) -> engine notation; 竹 is 7f and 菊 8f in our notation
NAMES = ([f"{n}m" for n in range(1, 10)] + [f"{n}p" for n in range(1, 10)] + [f"{n}s" for n in range(1, 10)]
         + ["E", "S", "W", "N", "C", "F", "P", "1f", "2f", "3f", "4f", "5f", "6f", "8f", "7f"])
# other tile sets (vision/tilesets.json) print other plants under a number: OUT/<set>/<tile>.png
# hk-index: 菊 carries 3 (7f) and 竹 4 (8f)
SET_FACES = {"hk-index": {"7f": "8f", "8f": "7f"}}  # tile -> the default set's tile whose face it shows


def printed_number(name: str) -> str:
    """The number a flower carries: 1-4 for the seasons (1f-4f) and for the plants (5f-8f)."""
    return str((int(name[0]) - 1) % 4 + 1)


def _body(fill, edge) -> Image.Image:
    w, h = W * SCALE, H * SCALE
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.rounded_rectangle((2 * SCALE, 3 * SCALE, w - 1, h - 1), radius=8 * SCALE, fill=(120, 110, 90, 255))  # side
    d.rounded_rectangle((0, 0, w - 2 * SCALE, h - 4 * SCALE), radius=8 * SCALE, fill=fill,
                        outline=edge, width=SCALE)
    return im


def _number_font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # very old Pillow: bitmap font, still readable
        return ImageFont.load_default()


def build(src: Path) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    files = sorted(src.glob("[0-9][0-9]_*.png"))
    if len(files) != 42:
        raise SystemExit(f"expected 42 faces in {src}, found {len(files)}")
    faces = dict(zip(NAMES, files))
    jobs = [(faces[name], name, OUT / f"{name}.png") for name in NAMES]
    for tileset, swaps in SET_FACES.items():
        (OUT / tileset).mkdir(exist_ok=True)
        jobs += [(faces[face], name, OUT / tileset / f"{name}.png") for name, face in swaps.items()]
    for path, name, target in jobs:
        tile = _body((250, 246, 234, 255), (170, 160, 140, 255))
        face = Image.open(path).convert("RGBA")
        box_w, box_h = (W - 12) * SCALE, (H - 16) * SCALE
        ratio = min(box_w / face.width, box_h / face.height)
        face = face.resize((round(face.width * ratio), round(face.height * ratio)), Image.LANCZOS)
        x = (W * SCALE - 2 * SCALE - face.width) // 2
        y = (H * SCALE - 4 * SCALE - face.height) // 2
        tile.alpha_composite(face, (x, y))
        if name.endswith("f"):
            d = ImageDraw.Draw(tile)
            r = 9 * SCALE
            cx, cy = W * SCALE - 2 * SCALE - r - 2 * SCALE, r + 2 * SCALE
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(180, 30, 30, 255))
            d.text((cx, cy), printed_number(name), fill="white", font=_number_font(13 * SCALE), anchor="mm")
        tile.resize((W, H), Image.LANCZOS).save(target, optimize=True)
    back = _body((30, 120, 80, 255), (20, 80, 50, 255))
    back.resize((W, H), Image.LANCZOS).save(OUT / "back.png", optimize=True)


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SRC)
