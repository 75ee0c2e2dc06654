"""Procedural tile sets: every face drawn from CJK fonts and shapes, on bodies of many colours.

A *style* is a handful of choices a manufacturer makes (the brush of the characters, how a
筒 circle and a 條 stick are drawn, which bird is 一條, the body's colours and thickness, where
a flower prints its name and number, 伍 or 五, whether 菊 or 竹 carries 3). `random_style` draws
one; `make_tileset` draws its 42 faces and four views of its body, in the format of
`training.adapt_study.render_tileset`, so the same photo composer (training/compose.py) and crop
framing serve both.

No artwork is involved: fonts come from Debian packages (training/fonts.json) and only the
rendered training tiles use them; nothing here is shipped or run at the table.

    >>> ts = make_tileset(random_style(np.random.default_rng(0)), np.random.default_rng(1))  # doctest: +SKIP
    >>> sorted(ts["numbers"].items())[:2]                                                    # doctest: +SKIP
    [(34, 1), (35, 2)]
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from training.synth import _bevel, _rounded_mask

FONTS_FILE = Path(__file__).resolve().parent / "fonts.json"
LATIN_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
               "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
               "/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf")

NUMERALS = "一二三四五六七八九"
WINDS = {27: "東", 28: "南", 29: "西", 30: "北"}
WIND_INDEX = {27: "E", 28: "S", 29: "W", 30: "N"}
SEASONS = {34: "春", 35: "夏", 36: "秋", 37: "冬"}
PLANTS = {38: "梅", 39: "蘭", 40: "菊", 41: "竹"}
# Sets sold abroad (and many computer sets) print a flower's name in English, whole or cut short,
# often with no number: the reader must learn these words as well as 春夏秋冬梅蘭菊竹.
ENGLISH_NAMES = {34: ("SPRING", "SPR"), 35: ("SUMMER", "SUM"), 36: ("AUTUMN", "AUT", "FALL"),
                 37: ("WINTER", "WIN"), 38: ("PLUM", "PLUM"), 39: ("ORCHID", "ORCH", "ORC"),
                 40: ("CHRYSANTHEMUM", "MUM", "CHRYS"), 41: ("BAMBOO", "BAM")}
# the words' type: printers' plain and bold sans and serif faces (fonts-dejavu-core, fonts-liberation)
WORD_FONTS = LATIN_FONTS + ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                            "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf",
                            "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
                            "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
                            "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf")

# What a style may choose, axis by axis. LEAVE_OUT names the values that the shipped models
# never train on, so that tiles drawn with them measure how the models meet an unseen style.
AXES = {
    # brush: calligraphy fonts, as many real sets write their 萬 numerals and honours
    "font": ("kai", "ming", "hei", "yuan", "fangsong", "brush"),
    "pips": ("rings", "flat", "petal", "spoke"),
    "sticks": ("bamboo", "outline", "segmented"),
    "bird": ("bird", "peacock", "stick"),
    # a lattice: the frame filled with a window-like grid, as some sets print 白
    "white": ("frame", "blank", "corners", "lattice"),
    # one set in three a coloured body with light ink: at one in four the classifier read 59% of
    # the found tiles of a red-bodied held-out set, 87% of a light one's (style study, 2026-12-01)
    "scheme": ("light", "light", "dark"),
}
LEAVE_OUT = {"font": "fangsong", "pips": "petal"}

FRONT_LIGHT = np.array([[245, 245, 245], [215, 235, 245], [190, 222, 238], [225, 240, 235]], np.float32)
BACK_COLOURS = np.array([[60, 140, 40], [30, 90, 20], [170, 110, 30], [150, 60, 10], [40, 200, 230],
                         [150, 110, 230], [40, 40, 40], [30, 140, 240], [130, 50, 130], [40, 40, 170]],
                        np.float32)
# whole bodies in a colour, faces drawn in light ink: jade, red, black, blue
FRONT_DARK = np.array([[110, 150, 60], [40, 40, 180], [40, 38, 35], [140, 70, 25]], np.float32)
INK_DARK = {"blue": (150, 60, 20), "green": (40, 120, 20), "red": (35, 30, 200), "black": (30, 30, 30)}
INK_LIGHT = {"blue": (250, 245, 235), "green": (160, 235, 200), "red": (120, 210, 250), "black": (245, 245, 245)}


def _listed_fonts() -> dict[str, list[list]]:
    """fonts.json's families: {family: [[file, ttc index], ...]}, installed here or not."""
    return json.loads(FONTS_FILE.read_text(encoding="utf-8"))["families"]


def font_families() -> dict[str, list[tuple[str, int]]]:
    """Families of fonts.json whose files exist here (a missing package just narrows the styles)."""
    found = {name: [(p, i) for p, i in files if Path(p).exists()] for name, files in _listed_fonts().items()}
    return {name: files for name, files in found.items() if files}


def missing_font_files() -> list[str]:
    """The font files of fonts.json not installed here. Drawn photos then differ from those of a
    machine that has them all, and so do the figures of a study drawn with them
    (missing_fonts_warning); make train-fonts installs them all."""
    return sorted({p for files in _listed_fonts().values() for p, _ in files if not Path(p).exists()})


def missing_fonts_warning(missing: list[str], drawn: str = "the photos") -> str | None:
    """What a study says when it draws (drawn: what) without some fonts, or None when none is
    missing.

    >>> missing_fonts_warning([]) is None
    True
    >>> missing_fonts_warning(["/usr/share/fonts/a.ttf"])[:60]
    'warning: 1 font file of training/fonts.json is not installed'
    """
    if not missing:
        return None
    n = len(missing)
    return (f"warning: {n} font file{'s' if n > 1 else ''} of training/fonts.json {'are' if n > 1 else 'is'} not "
            f"installed (make train-fonts): {drawn} are drawn in fewer styles than those the figures "
            "in models/README.md were measured with")


def say_missing_fonts(log, drawn: str = "the photos") -> list[str]:
    """missing_font_files(), after logging missing_fonts_warning where there are any: a study
    keeps the list with its figures."""
    missing = missing_font_files()
    warning = missing_fonts_warning(missing, drawn)
    if warning:
        log(warning)
    return missing


def random_style(rng: np.random.Generator, held_out: bool | None = False) -> dict:
    """One manufacturer's choices. held_out: False never picks a LEAVE_OUT value, True always
    picks them (the held-out style), None picks freely."""
    families = font_families()
    if not families:
        raise OSError(f"no CJK font of {FONTS_FILE.name} is installed (make train-fonts)")
    style = {}
    for axis, values in AXES.items():
        values = [v for v in values if axis != "font" or v in families]
        if axis in LEAVE_OUT:
            if held_out is True and LEAVE_OUT[axis] in values:
                values = [LEAVE_OUT[axis]]
            elif held_out is False:
                values = [v for v in values if v != LEAVE_OUT[axis]] or values
        style[axis] = values[int(rng.integers(len(values)))]
    fonts = families[style["font"]]
    style["font_file"] = fonts[int(rng.integers(len(fonts)))]
    style["five"] = "伍" if rng.random() < 0.5 else "五"
    style["chrysanthemum_number"] = 3 if rng.random() < 0.5 else 4  # the other of 菊/竹 prints 4/3
    style["number_glyphs"] = "arabic" if rng.random() < 0.6 else "chinese"
    style["number_corner"] = int(rng.integers(4))
    style["name_corner"] = int(rng.integers(4))
    style["index"] = bool(rng.random() < 0.25)  # a corner index, as HK and Japanese sets print
    style["mono_ink"] = bool(rng.random() < 0.2)
    style["aspect"] = float(rng.uniform(0.68, 0.8))
    style["thickness"] = float(rng.uniform(0.15, 0.5))  # of the face's width
    style["front_share"] = float(rng.uniform(0.3, 0.8))  # of the thickness in the front colour
    style["gloss"] = bool(rng.random() < 0.35)
    style["stroke"] = float(rng.uniform(0.7, 1.4))
    # Drawn after the stroke weight, so that the choices above stay what the same seed gave before
    # (the body colours below do change).
    # How the suits are laid out: 6條 in two rows of three, or in three rows of two; 8條 as two
    # rows with tilted middle sticks, or as an M over a W. Where the index goes: a corner, or
    # (index_gap) in the gap a layout leaves in the middle (4筒, 4條, 8條).
    style["six_sticks"] = "rows" if rng.random() < 0.7 else "columns"
    style["eight_sticks"] = "chevron" if rng.random() < 0.5 else "m_over_w"
    style["index_corner"] = "left" if rng.random() < 0.6 else "right"
    style["index_gap"] = bool(rng.random() < 0.4)
    style["index_ink"] = ("black", "red", "blue")[int(rng.integers(3))]
    if style["scheme"] == "dark":
        style["front"] = FRONT_DARK[int(rng.integers(len(FRONT_DARK)))].tolist()
        style["back"] = style["front"] if rng.random() < 0.6 else BACK_COLOURS[int(rng.integers(len(BACK_COLOURS)))].tolist()
    else:
        style["front"] = FRONT_LIGHT[int(rng.integers(len(FRONT_LIGHT)))].tolist()
        style["back"] = BACK_COLOURS[int(rng.integers(len(BACK_COLOURS)))].tolist()
    # Some sets write the numeral above 萬 squat, much wider than tall (a 四 like an eye, as the
    # scanned real set of xmahjongg does): a font's glyph pressed to this share of its room. Drawn
    # last, so that the style's other choices stay what the same seed gave before.
    style["numeral_height"] = 1.0 if rng.random() < 0.6 else float(rng.uniform(0.4, 0.8))
    # One set in five prints a flower's name alone, no number (xmahjongg's scanned set does): its
    # name, not its picture, then says which flower it is.
    style["flower_number"] = bool(rng.random() >= 0.2)
    # Many sets write the 四 of 四萬 in the old running form: a flat closed loop like an eye, with
    # two legs or a zigzag inside, nothing like a font's 四 (xmahjongg's scanned real set, and
    # Chinese and Japanese sets of the classic look). Drawn last, as above.
    style["four"] = "loop" if rng.random() < 0.3 else "glyph"
    # About one set in three prints its flowers' names in English: alone, or under the Chinese name;
    # whole words or cut short; along the bottom edge or the top. Drawn last, as above.
    style["flower_english"] = ("none", "alone", "beside")[int(rng.choice(3, p=[0.65, 0.2, 0.15]))]
    style["english_short"] = bool(rng.random() < 0.5)
    style["english_edge"] = "bottom" if rng.random() < 0.7 else "top"
    return style


# --- drawing helpers: a face is a float BGRA canvas, transparent where the body shows ------------

@lru_cache(maxsize=64)
def _font(path: str, index: int, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, size, index=index)


@lru_cache(maxsize=2048)
def glyph(text: str, path: str, index: int, size: int = 160) -> np.ndarray:
    """The text's ink as a tight uint8 mask, drawn at size px."""
    from PIL import Image, ImageDraw

    font = _font(path, index, size)
    x0, y0, x1, y1 = font.getbbox(text)
    img = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
    ImageDraw.Draw(img).text((2 - x0, 2 - y0), text, fill=255, font=font)
    arr = np.asarray(img)
    ys, xs = np.nonzero(arr > 20)
    if not len(ys):
        raise ValueError(f"font {path} has no glyph for {text!r}")
    return arr[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


def loop_four(rng: np.random.Generator, height: int = 60) -> np.ndarray:
    """The old running 四 as a tight uint8 mask: a closed loop two to three times as wide as tall
    (pointed like an eye, six-sided or rounded), with two legs, a zigzag or two bars inside."""
    h = height
    w = int(round(h * rng.uniform(2.0, 3.2)))
    t = max(2, int(round(h * rng.uniform(0.11, 0.2))))  # the stroke
    pad = t + 2
    mask = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    x0, y0, x1, y1 = pad, pad, pad + w, pad + h
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    kind = ("eye", "hex", "round")[int(rng.integers(3))]
    if kind == "eye":  # two arcs meeting at pointed ends
        xs = np.linspace(x0, x1, 40)
        bulge = np.clip(np.sin(np.pi * (xs - x0) / w), 0, 1) ** rng.uniform(0.5, 0.9) * h / 2
        pts = np.concatenate([np.stack([xs, cy - bulge], 1), np.stack([xs[::-1], (cy + bulge)[::-1]], 1)])
    elif kind == "hex":
        inset = w * rng.uniform(0.12, 0.25)
        pts = np.array([[x0, cy], [x0 + inset, y0], [x1 - inset, y0], [x1, cy], [x1 - inset, y1], [x0 + inset, y1]])
    else:
        a = np.linspace(0, 2 * np.pi, 60, endpoint=False)
        e = rng.uniform(2.5, 5)  # a superellipse: from an ellipse to a rounded box
        pts = np.stack([cx + w / 2 * np.sign(np.cos(a)) * np.abs(np.cos(a)) ** (2 / e),
                        cy + h / 2 * np.sign(np.sin(a)) * np.abs(np.sin(a)) ** (2 / e)], 1)
    pts = pts + rng.normal(0, h * 0.02, pts.shape)  # a hand's wobble
    cv2.polylines(mask, [(pts * 16).astype(np.int32)], True, 255, t, cv2.LINE_AA, 4)
    inner = max(1, int(round(t * rng.uniform(0.6, 1.0))))
    iy0, iy1 = y0 + 0.25 * h, y1 - 0.2 * h
    inside = ("legs", "zigzag", "bars")[int(rng.integers(3))]
    if inside == "legs":  # 儿: the left leg sweeps down-left, the right one down and out to a hook
        for sx, out in ((cx - w * 0.1, -1), (cx + w * 0.1, 1)):
            leg = np.array([[sx, iy0], [sx + out * w * 0.04, (iy0 + iy1) / 2], [sx + out * w * 0.12, iy1]])
            cv2.polylines(mask, [(leg * 16).astype(np.int32)], False, 255, inner, cv2.LINE_AA, 4)
    elif inside == "zigzag":  # a W across the loop's middle
        n = int(rng.integers(2, 4)) * 2 + 1
        xs = np.linspace(cx - w * 0.28, cx + w * 0.28, n)
        ys = np.where(np.arange(n) % 2 == 0, iy0, iy1)
        cv2.polylines(mask, [(np.stack([xs, ys], 1) * 16).astype(np.int32)], False, 255, inner, cv2.LINE_AA, 4)
    else:
        for sx in (cx - w * 0.12, cx + w * 0.12):
            cv2.line(mask, _pt(sx, iy0), _pt(sx, iy1), 255, inner, cv2.LINE_AA, 4)
    ys, xs = np.nonzero(mask > 20)
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


def paint_mask(canvas: np.ndarray, mask: np.ndarray, rect, colour, stretch: float = 0.0) -> None:
    """Ink mask into rect (x, y, w, h, in canvas pixels), fitted keeping its shape (stretch > 0
    lets it fill that much of the remaining room, as a printed character is condensed)."""
    x, y, w, h = rect
    mh, mw = mask.shape
    s = min(w / mw, h / mh)
    tw, th = mw * s, mh * s
    tw, th = tw + (w - tw) * stretch, th + (h - th) * stretch
    tw, th = max(1, int(round(tw))), max(1, int(round(th)))
    m = cv2.resize(mask, (tw, th), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    ox, oy = int(round(x + (w - tw) / 2)), int(round(y + (h - th) / 2))
    H, W = canvas.shape[:2]
    x0, y0, x1, y1 = max(ox, 0), max(oy, 0), min(ox + tw, W), min(oy + th, H)
    if x1 <= x0 or y1 <= y0:
        return
    a = m[y0 - oy:y1 - oy, x0 - ox:x1 - ox, None]
    region = canvas[y0:y1, x0:x1]
    region[..., :3] = region[..., :3] * (1 - a) + np.float32(colour) * a
    region[..., 3:] = np.maximum(region[..., 3:], a * 255)


def paint_shape(canvas: np.ndarray, draw, colour) -> None:
    """Ink whatever draw(mask) draws (cv2 calls on a uint8 mask of the canvas size)."""
    mask = np.zeros(canvas.shape[:2], np.uint8)
    draw(mask)
    x, y, w, h = cv2.boundingRect(mask)  # blended only where drawn: a shape is a small part of a face
    if not w or not h:
        return
    a = mask[y:y + h, x:x + w].astype(np.float32)[..., None] / 255
    region = canvas[y:y + h, x:x + w]
    region[..., :3] = region[..., :3] * (1 - a) + np.float32(colour) * a
    region[..., 3:] = np.maximum(region[..., 3:], a * 255)


def erase_shape(canvas: np.ndarray, draw) -> None:
    """Make transparent (the body shows) whatever draw(mask) draws: the gap inside a ring."""
    mask = np.zeros(canvas.shape[:2], np.uint8)
    draw(mask)
    x, y, w, h = cv2.boundingRect(mask)
    canvas[y:y + h, x:x + w, 3] *= 1 - mask[y:y + h, x:x + w].astype(np.float32) / 255


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x * 16)), int(round(y * 16))  # cv2 sub-pixel drawing, shift 4


# --- the faces -------------------------------------------------------------------------------------

class FaceDrawer:
    """Draws the faces of one style on (h, w) canvases."""

    def __init__(self, style: dict, rng: np.random.Generator, height: int = 128):
        self.s, self.rng = style, rng
        self.h = height
        self.w = int(round(height * style["aspect"]))
        light = style["scheme"] == "dark"
        palette = INK_LIGHT if light else INK_DARK
        self.ink = {k: np.array(v, np.float32) * rng.uniform(0.85, 1.1, 3) for k, v in palette.items()}
        if style["mono_ink"]:
            one = self.ink[["blue", "black", "green"][int(rng.integers(3))]]
            self.ink = {k: (v if k == "red" else one) for k, v in self.ink.items()}
        if style.get("ink") is not None:  # one ink colour for every stroke (adapt's rehearsal tiles)
            self.ink = {k: np.array(style["ink"], np.float32) * rng.uniform(0.92, 1.05, 3) for k in palette}
        self.font = tuple(style["font_file"])
        self.lw = max(1.0, self.w * 0.045 * style["stroke"])  # a stroke's width in px

    def canvas(self) -> np.ndarray:
        return np.zeros((self.h, self.w, 4), np.float32)

    def text(self, canvas, text, rect, colour, stretch=0.0):
        paint_mask(canvas, glyph(text, *self.font), rect, colour, stretch)

    def box(self, x0, y0, x1, y1):
        return (x0 * self.w, y0 * self.h, (x1 - x0) * self.w, (y1 - y0) * self.h)

    # 4筒, 4條, 8條: their layouts leave a gap in the middle, where some sets print the index instead
    GAP_INDEX = frozenset({12, 21, 25})

    def index(self, canvas, label: str, cls: int | None = None) -> None:
        """A small index (HK and Japanese sets): in a top corner, or in the face's middle gap."""
        font = LATIN_FONTS[int(self.rng.integers(len(LATIN_FONTS)))]
        if not Path(font).exists():
            return
        if self.s.get("index_gap") and cls in self.GAP_INDEX:
            rect = self.box(0.4, 0.42, 0.6, 0.58)
        elif self.s.get("index_corner") == "right":
            rect = self.box(0.7, 0.03, 0.95, 0.22)
        else:
            rect = self.box(0.05, 0.03, 0.3, 0.22)
        paint_mask(canvas, glyph(label, font, 0), rect, self.ink[self.s.get("index_ink", "black")])

    def face(self, cls: int) -> np.ndarray:
        c = self.canvas()
        if cls < 9:
            self.characters(c, cls + 1)
        elif cls < 18:
            self.pins(c, cls - 8)
        elif cls < 27:
            self.sticks(c, cls - 17)
        elif cls < 31:
            self.text(c, WINDS[cls], self.box(0.1, 0.12, 0.9, 0.88), self.ink["blue" if self.rng.random() < 0.5 else "black"],
                      stretch=0.3)
            if self.s["index"]:
                self.index(c, WIND_INDEX[cls])
        elif cls == 31:
            self.text(c, "中", self.box(0.1, 0.12, 0.9, 0.88), self.ink["red"], stretch=0.3)
        elif cls == 32:
            self.text(c, "發", self.box(0.08, 0.1, 0.92, 0.9), self.ink["green"], stretch=0.3)
        elif cls == 33:
            self.white(c)
        else:
            self.flower(c, cls)
        return c

    def characters(self, c, n: int) -> None:
        numeral = self.s["five"] if n == 5 else NUMERALS[n - 1]
        split = self.rng.uniform(0.4, 0.5)
        if n == 4 and self.s.get("four") == "loop":
            mask, stretch = loop_four(self.rng), 0.0
        else:
            mask, stretch = glyph(numeral, *self.font), 0.4
        mh, mw = mask.shape
        squat = self.s.get("numeral_height", 1.0)
        if squat < 1 and mh > 0.5 * mw:  # a squat hand presses the tall numerals; 一 stays as written
            mask, stretch = cv2.resize(mask, (mw, max(1, int(round(mh * squat)))), interpolation=cv2.INTER_AREA), 0.0
        paint_mask(c, mask, self.box(0.14, 0.05, 0.86, split - 0.02), self.ink["blue"] if not self.s["mono_ink"]
                   else self.ink["black"], stretch=stretch)
        self.text(c, "萬", self.box(0.1, split + 0.02, 0.9, 0.95), self.ink["red"], stretch=0.25)
        if self.s["index"]:
            self.index(c, str(n), n - 1)

    # 筒: circles at the classic positions (fractions of the face)
    PIN_LAYOUT = {
        1: [(0.5, 0.5)], 2: [(0.5, 0.27), (0.5, 0.73)], 3: [(0.24, 0.2), (0.5, 0.5), (0.76, 0.8)],
        4: [(0.28, 0.27), (0.72, 0.27), (0.28, 0.73), (0.72, 0.73)],
        5: [(0.26, 0.22), (0.74, 0.22), (0.5, 0.5), (0.26, 0.78), (0.74, 0.78)],
        6: [(x, y) for y in (0.2, 0.5, 0.8) for x in (0.3, 0.7)],
        7: [(0.22, 0.13), (0.5, 0.24), (0.78, 0.35)] + [(x, y) for y in (0.6, 0.85) for x in (0.3, 0.7)],
        8: [(x, y) for y in (0.14, 0.38, 0.62, 0.86) for x in (0.3, 0.7)],
        9: [(x, y) for y in (0.2, 0.5, 0.8) for x in (0.2, 0.5, 0.8)],
    }
    PIN_RADIUS = {1: 0.4, 2: 0.22, 3: 0.17, 4: 0.2, 5: 0.17, 6: 0.17, 7: 0.13, 8: 0.13, 9: 0.14}

    def pins(self, c, n: int) -> None:
        r = self.PIN_RADIUS[n] * self.w * self.rng.uniform(0.92, 1.05)
        colours = self._pin_colours(n)
        for (x, y), col in zip(self.PIN_LAYOUT[n], colours):
            self.circle(c, x * self.w, y * self.h, r, col, ornate=n == 1)
        if self.s["index"]:
            self.index(c, str(n), n + 8)

    def _pin_colours(self, n: int) -> list:
        b, g, r = self.ink["blue"], self.ink["green"], self.ink["red"]
        table = {1: [r], 2: [g, b], 3: [b, r, g], 4: [b, g, g, b], 5: [b, g, r, g, b], 6: [g, g, r, r, r, r],
                 7: [g, g, g, r, r, r, r], 8: [b] * 8, 9: [b, b, b, r, r, r, g, g, g]}
        return table[n]

    def circle(self, c, cx, cy, r, colour, ornate=False) -> None:
        lw = max(1, int(round(r * 0.16 * self.s["stroke"])))
        style = self.s["pips"]
        centre = _pt(cx, cy)
        other = self.ink["blue"] if colour is self.ink["red"] else self.ink["red"]
        if style == "flat":
            paint_shape(c, lambda m: cv2.circle(m, centre, int(r * 16), 255, -1, cv2.LINE_AA, 4), colour)
            erase_shape(c, lambda m: cv2.circle(m, centre, int(r * 0.62 * 16), 255, lw, cv2.LINE_AA, 4))
        else:
            paint_shape(c, lambda m: cv2.circle(m, centre, int((r - lw / 2) * 16), 255, lw, cv2.LINE_AA, 4), colour)
            paint_shape(c, lambda m: cv2.circle(m, centre, int(r * 0.25 * 16), 255, -1, cv2.LINE_AA, 4), other)
            if style == "rings":
                paint_shape(c, lambda m: cv2.circle(m, centre, int(r * 0.55 * 16), 255, max(1, lw // 2),
                                                    cv2.LINE_AA, 4), colour)
            elif style == "petal":
                for k in range(8):
                    a = k * np.pi / 4
                    p = _pt(cx + np.cos(a) * r * 0.55, cy + np.sin(a) * r * 0.55)
                    paint_shape(c, lambda m, p=p: cv2.circle(m, p, int(r * 0.16 * 16), 255, -1, cv2.LINE_AA, 4), colour)
            else:  # spoke
                for k in range(4):
                    a = k * np.pi / 4
                    p1 = _pt(cx + np.cos(a) * r * 0.3, cy + np.sin(a) * r * 0.3)
                    p2 = _pt(cx + np.cos(a) * r * 0.75, cy + np.sin(a) * r * 0.75)
                    p3 = _pt(cx - np.cos(a) * r * 0.3, cy - np.sin(a) * r * 0.3)
                    p4 = _pt(cx - np.cos(a) * r * 0.75, cy - np.sin(a) * r * 0.75)
                    for a_, b_ in ((p1, p2), (p3, p4)):
                        paint_shape(c, lambda m, a_=a_, b_=b_: cv2.line(m, a_, b_, 255, max(1, lw // 2), cv2.LINE_AA, 4),
                                    colour)
        if ornate:  # the big 一筒 carries more rings
            for f in (0.72, 0.86):
                paint_shape(c, lambda m, f=f: cv2.circle(m, centre, int(r * f * 16), 255, max(1, lw // 2), cv2.LINE_AA, 4),
                            self.ink["green"] if f == 0.72 else other)

    # 條: sticks (x, y, tilt in degrees), fractions of the face
    STICK_LAYOUT = {
        2: [(0.5, 0.28, 0), (0.5, 0.72, 0)], 3: [(0.5, 0.28, 0), (0.3, 0.72, 0), (0.7, 0.72, 0)],
        4: [(x, y, 0) for y in (0.28, 0.72) for x in (0.3, 0.7)],
        5: [(x, y, 0) for y in (0.28, 0.72) for x in (0.22, 0.78)] + [(0.5, 0.5, 0)],
        6: [(x, y, 0) for y in (0.28, 0.72) for x in (0.2, 0.5, 0.8)],
        7: [(0.5, 0.17, 0)] + [(x, y, 0) for y in (0.5, 0.83) for x in (0.2, 0.5, 0.8)],
        8: [(0.16, 0.28, 0), (0.38, 0.28, 22), (0.62, 0.28, -22), (0.84, 0.28, 0),
            (0.16, 0.72, 0), (0.38, 0.72, -22), (0.62, 0.72, 22), (0.84, 0.72, 0)],
        9: [(x, y, 0) for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)],
    }
    # the other ways sets lay out 6條 and 8條: n -> (style axis, its value, layout)
    STICK_VARIANTS = {
        6: ("six_sticks", "columns", [(x, y, 0) for y in (0.17, 0.5, 0.83) for x in (0.3, 0.7)]),
        8: ("eight_sticks", "m_over_w", [(0.14 + 0.24 * k, y, tilt * (1 if k % 2 else -1))
                                         for y, tilt in ((0.27, -24), (0.73, 24)) for k in range(4)]),
    }

    def stick_layout(self, n: int) -> list:
        if n in self.STICK_VARIANTS:
            axis, value, layout = self.STICK_VARIANTS[n]
            if self.s.get(axis) == value:
                return layout
        return self.STICK_LAYOUT[n]

    def sticks(self, c, n: int) -> None:
        if n == 1:
            self.one_stick(c)
        else:
            layout = self.stick_layout(n)
            three_rows = n in (7, 9) or (n == 6 and self.s.get("six_sticks") == "columns")
            length = (0.27 if three_rows else 0.38) * self.h * self.rng.uniform(0.92, 1.02)
            width = self.w * (0.11 if n < 6 else 0.09) * self.s["stroke"]
            for k, (x, y, tilt) in enumerate(layout):
                red = (n == 5 and k == 4) or (n == 7 and k == 0) or (n == 9 and k % 3 == 1)
                self.stick(c, x * self.w, y * self.h, length, width, tilt, self.ink["red" if red else "green"])
        if self.s["index"]:
            self.index(c, str(n), n + 17)

    def stick(self, c, cx, cy, length, width, tilt, colour) -> None:
        a = np.deg2rad(tilt)
        dx, dy = np.sin(a) * length / 2, np.cos(a) * length / 2
        top, bottom = _pt(cx - dx, cy - dy + width / 2), _pt(cx + dx, cy + dy - width / 2)
        wpx = max(2, int(round(width)))
        paint_shape(c, lambda m: cv2.line(m, top, bottom, 255, wpx, cv2.LINE_AA, 4), colour)
        style = self.s["sticks"]
        nodes = (0.5,) if style != "segmented" else (0.33, 0.67)
        if style == "outline":
            inner = max(1, wpx - 2 * max(1, int(self.lw * 0.6)))
            erase_shape(c, lambda m: cv2.line(m, top, bottom, 255, inner, cv2.LINE_AA, 4))
        for f in nodes:
            px, py = cx - dx + 2 * dx * f, cy - dy + 2 * dy * f
            nx, ny = np.cos(a) * width * 0.7, -np.sin(a) * width * 0.7
            p1, p2 = _pt(px - nx, py - ny), _pt(px + nx, py + ny)
            if style == "segmented":
                erase_shape(c, lambda m, p1=p1, p2=p2: cv2.line(m, p1, p2, 255, max(1, int(self.lw * 0.7)), cv2.LINE_AA, 4))
            else:
                paint_shape(c, lambda m, p1=p1, p2=p2: cv2.line(m, p1, p2, 255, max(1, int(self.lw * 0.8)), cv2.LINE_AA, 4),
                            colour)

    def one_stick(self, c) -> None:
        """一條: a bird, a peacock, or one big ornamented stick, by style."""
        w, h, rng = self.w, self.h, self.rng
        g, r, b = self.ink["green"], self.ink["red"], self.ink["blue"]
        kind = self.s["bird"]
        if kind == "stick":
            self.stick(c, w * 0.5, h * 0.5, h * 0.8, w * 0.2, 0, g)
            paint_shape(c, lambda m: cv2.circle(m, _pt(w * 0.5, h * 0.5), int(w * 0.14 * 16), 255, -1, cv2.LINE_AA, 4), r)
            return
        cx, cy = w * rng.uniform(0.45, 0.55), h * rng.uniform(0.5, 0.6)
        facing = 1 if rng.random() < 0.5 else -1
        if kind == "peacock":  # a fan of feathers behind the body
            for k in range(7):
                a = np.deg2rad(-150 + k * 20)
                ex, ey = cx + np.cos(a) * w * 0.42, cy - 0.05 * h + np.sin(a) * h * 0.38
                paint_shape(c, lambda m, ex=ex, ey=ey: cv2.line(m, _pt(cx, cy), _pt(ex, ey), 255, max(1, int(self.lw)),
                                                                   cv2.LINE_AA, 4), g)
                paint_shape(c, lambda m, ex=ex, ey=ey: cv2.circle(m, _pt(ex, ey), int(w * 0.06 * 16), 255, -1,
                                                                     cv2.LINE_AA, 4), b if k % 2 else r)
        else:  # a perched bird: tail down behind
            for k in range(3):
                ang = np.deg2rad(100 + facing * (10 + 12 * k))
                paint_shape(c, lambda m, ang=ang: cv2.line(m, _pt(cx, cy), _pt(cx + np.cos(ang) * w * 0.45, cy + np.sin(ang) * h * 0.4),
                                                          255, max(2, int(self.lw * 1.5)), cv2.LINE_AA, 4), [g, r, b][k])
        paint_shape(c, lambda m: cv2.ellipse(m, _pt(cx, cy), (int(w * 0.22 * 16), int(h * 0.13 * 16)),
                                             facing * -25, 0, 360, 255, -1, cv2.LINE_AA, 4), g)
        hx, hy = cx + facing * w * 0.2, cy - h * 0.16
        paint_shape(c, lambda m: cv2.circle(m, _pt(hx, hy), int(w * 0.1 * 16), 255, -1, cv2.LINE_AA, 4), r)
        beak = np.array([[hx + facing * w * 0.08, hy - h * 0.02], [hx + facing * w * 0.2, hy + h * 0.01],
                         [hx + facing * w * 0.08, hy + h * 0.035]]) * 16
        paint_shape(c, lambda m: cv2.fillPoly(m, [beak.astype(np.int32)], 255, cv2.LINE_AA, 4), b)
        erase_shape(c, lambda m: cv2.circle(m, _pt(hx + facing * w * 0.03, hy - h * 0.01), int(w * 0.025 * 16), 255, -1,
                                            cv2.LINE_AA, 4))
        paint_shape(c, lambda m: cv2.ellipse(m, _pt(cx - facing * w * 0.03, cy), (int(w * 0.13 * 16), int(h * 0.07 * 16)),
                                             facing * -25, 0, 360, 255, -1, cv2.LINE_AA, 4), b)

    def white(self, c) -> None:
        """白: blank, a frame (often blue, doubled), only its corners, or a lattice."""
        kind = self.s["white"]
        if kind == "blank":
            return
        col = self.ink["blue"]
        x0, y0, x1, y1 = 0.14 * self.w, 0.12 * self.h, 0.86 * self.w, 0.88 * self.h
        lw = max(2, int(self.lw * 1.2))
        if kind == "frame":
            paint_shape(c, lambda m: cv2.rectangle(m, _pt(x0, y0), _pt(x1, y1), 255, lw, cv2.LINE_AA, 4), col)
            d = lw * 2.2
            paint_shape(c, lambda m: cv2.rectangle(m, _pt(x0 + d, y0 + d), _pt(x1 - d, y1 - d), 255, max(1, lw // 2),
                                                   cv2.LINE_AA, 4), col)
        elif kind == "lattice":  # a window: frame, a bar round an empty middle, cross-bars to the frame
            col = self.ink["black" if self.rng.random() < 0.5 else "blue"]
            thin = max(1, lw // 2)
            mx0, my0, mx1, my1 = 0.36 * self.w, 0.32 * self.h, 0.64 * self.w, 0.68 * self.h
            paint_shape(c, lambda m: cv2.rectangle(m, _pt(x0, y0), _pt(x1, y1), 255, lw, cv2.LINE_AA, 4), col)
            paint_shape(c, lambda m: cv2.rectangle(m, _pt(mx0, my0), _pt(mx1, my1), 255, lw, cv2.LINE_AA, 4), col)
            for f in (0.3, 0.7):
                x, y = x0 + (x1 - x0) * f, y0 + (y1 - y0) * f
                for a_, b_ in (((x, y0), (x, my0)), ((x, my1), (x, y1)), ((x0, y), (mx0, y)), ((mx1, y), (x1, y))):
                    paint_shape(c, lambda m, a_=a_, b_=b_: cv2.line(m, _pt(*a_), _pt(*b_), 255, thin, cv2.LINE_AA, 4), col)
            if self.rng.random() < 0.5:  # red accents at the middle bar's sides
                for cx in (mx0, mx1):
                    paint_shape(c, lambda m, cx=cx: cv2.rectangle(m, _pt(cx - lw, (my0 + my1) / 2 - 2 * lw),
                                                                   _pt(cx + lw, (my0 + my1) / 2 + 2 * lw), 255, -1,
                                                                   cv2.LINE_AA, 4), self.ink["red"])
        else:
            arm = 0.22 * self.w
            for (px, py, sx, sy) in ((x0, y0, 1, 1), (x1, y0, -1, 1), (x0, y1, 1, -1), (x1, y1, -1, -1)):
                pts = np.array([[px + sx * arm, py], [px, py], [px, py + sy * arm]]) * 16
                paint_shape(c, lambda m, pts=pts: cv2.polylines(m, [pts.astype(np.int32)], False, 255, lw, cv2.LINE_AA, 4),
                            col)

    def flower(self, c, cls: int) -> None:
        """A flower or season: a picture, its name and (unless the style prints names alone) its number,
        each where the style puts them."""
        self.picture(c)
        name = SEASONS.get(cls) or PLANTS[cls]
        corners = [(0.04, 0.03), (0.66, 0.03), (0.04, 0.72), (0.66, 0.72)]
        name_corner, number_corner = self.s["name_corner"], self.s["number_corner"]
        english = self.s.get("flower_english", "none")
        if english != "none":  # the English word takes one edge: the name and number the other's corners
            free = (0, 1) if self.s.get("english_edge", "bottom") == "bottom" else (2, 3)
            name_corner, number_corner = free[name_corner % 2], free[1 - name_corner % 2]
        nx, ny = corners[name_corner]
        kx, ky = corners[number_corner] if number_corner != name_corner else corners[(name_corner + 1) % 4]
        # black or blue mostly, red or green as some sets print the names (xmahjongg's scanned set
        # writes 春夏秋冬 in red); one draw either way, so the seed's later choices stay as they were
        r = self.rng.random()
        ink = "black" if r < 0.4 else "blue" if r < 0.7 else "red" if r < 0.9 else "green"
        if english != "alone":
            self.text(c, name, self.box(nx, ny, nx + 0.3, ny + 0.25), self.ink[ink])
        if english != "none":
            self.english_name(c, cls, ink)
        if not self.s.get("flower_number", True):
            return
        n = flower_number(cls, self.s)
        if self.s["number_glyphs"] == "arabic":
            font = LATIN_FONTS[int(self.rng.integers(len(LATIN_FONTS)))]
            mask = glyph(str(n), font, 0) if Path(font).exists() else glyph(str(n), *self.font)
        else:
            mask = glyph(NUMERALS[n - 1], *self.font)
        paint_mask(c, mask, self.box(kx, ky, kx + 0.3, ky + 0.25), self.ink["red"])

    def english_name(self, c, cls: int, ink: str) -> None:
        """The flower's English name across the bottom or top edge, in Latin capitals; a long word
        is condensed into the edge's width as a printer fits it."""
        words = ENGLISH_NAMES[cls]
        word = words[1 + int(self.rng.integers(len(words) - 1))] if self.s.get("english_short") else words[0]
        fonts = [f for f in WORD_FONTS if Path(f).exists()]
        if not fonts:
            return
        mask = glyph(word, fonts[int(self.rng.integers(len(fonts)))], 0)
        y0 = 0.8 if self.s.get("english_edge", "bottom") == "bottom" else 0.03
        paint_mask(c, mask, self.box(0.08, y0, 0.92, y0 + 0.15), self.ink[ink])

    def picture(self, c) -> None:
        """A plant or a little scene: stems, leaves and blossoms in random colours (the art
        differs between every two sets, so the name and number must carry the class)."""
        w, h, rng = self.w, self.h, self.rng
        inks = list(self.ink.values())
        stem = inks[int(rng.integers(len(inks)))]
        x, y = w * rng.uniform(0.3, 0.7), h * 0.92
        pts = [(x, y)]
        for _ in range(int(rng.integers(3, 6))):
            x, y = np.clip(x + rng.normal(0, w * 0.12), w * 0.1, w * 0.9), y - h * rng.uniform(0.1, 0.2)
            pts.append((x, y))
        poly = (np.array(pts) * 16).astype(np.int32)
        paint_shape(c, lambda m: cv2.polylines(m, [poly], False, 255, max(1, int(self.lw)), cv2.LINE_AA, 4), stem)
        for _ in range(int(rng.integers(3, 9))):
            px, py = pts[int(rng.integers(len(pts)))]
            px, py = px + rng.normal(0, w * 0.1), py + rng.normal(0, h * 0.05)
            col = inks[int(rng.integers(len(inks)))]
            if rng.random() < 0.5:  # a leaf
                axes = (int(w * rng.uniform(0.05, 0.14) * 16), int(w * rng.uniform(0.02, 0.05) * 16))
                ang = rng.uniform(0, 180)
                paint_shape(c, lambda m, px=px, py=py, axes=axes, ang=ang: cv2.ellipse(
                    m, _pt(px, py), axes, ang, 0, 360, 255, -1, cv2.LINE_AA, 4), col)
            else:  # a blossom: petals round a dot
                r = w * rng.uniform(0.04, 0.08)
                for k in range(5):
                    a = k * 2 * np.pi / 5
                    paint_shape(c, lambda m, a=a, px=px, py=py, r=r: cv2.circle(
                        m, _pt(px + np.cos(a) * r, py + np.sin(a) * r), int(r * 0.7 * 16), 255, -1, cv2.LINE_AA, 4), col)


def flower_number(cls: int, style: dict) -> int:
    """The number a style prints on a flower or season: 春夏秋冬 1-4, 梅1 蘭2, then 菊 and 竹
    3 and 4 in the order the style chose."""
    if cls in SEASONS:
        return cls - 33
    if cls in (38, 39):
        return cls - 37
    chrysanthemum = int(style["chrysanthemum_number"])
    return chrysanthemum if cls == 40 else 7 - chrysanthemum


# --- bodies ----------------------------------------------------------------------------------------

def make_body(style: dict, face_hw: tuple[int, int], view: tuple[int, int], rng: np.random.Generator) -> dict:
    """The tile body seen with its thickness showing towards view (sx, sy in -1..1): the back
    layer in the back colour, the front layer in the face colour, the face on top.
    Returns {"bgra", "face_xy"} as adapt_study's bodies."""
    fh, fw = face_hw
    t = style["thickness"] * fw
    ox, oy = int(round(view[0] * t)), int(round(view[1] * t * 0.8))
    H, W = fh + abs(oy), fw + abs(ox)
    fx, fy = max(0, -ox), max(0, -oy)
    out = np.zeros((H, W, 4), np.float32)
    radius = fh * rng.uniform(0.05, 0.1)
    mask = _rounded_mask(fh, fw, radius)
    layers = [(1.0, style["back"], 0.7), (style["front_share"], style["front"], 0.82)]
    for share, colour, shade in layers:
        lx, ly = fx + int(round(ox * share)), fy + int(round(oy * share))
        for k in np.linspace(0, 1, 6):  # sweep the layer towards the face so its sides are solid
            x, y = int(round(fx + (lx - fx) * k)), int(round(fy + (ly - fy) * k))
            region = out[y:y + fh, x:x + fw]
            a = mask[..., None].astype(np.float32) / 255
            region[..., :3] = region[..., :3] * (1 - a) + np.float32(colour) * shade * a
            region[..., 3:] = np.maximum(region[..., 3:], a * 255)
    front = np.ones((fh, fw, 3), np.float32) * np.float32(style["front"])
    front = _bevel(front, mask, rng)
    if style["gloss"]:  # a glossy face: a soft highlight band
        yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
        band = np.exp(-((xx / fw - yy / fh * 0.6 - rng.uniform(0.1, 0.6)) ** 2) / 0.01)
        front = front + band[..., None] * rng.uniform(20, 50)
    a = mask[..., None].astype(np.float32) / 255
    region = out[fy:fy + fh, fx:fx + fw]
    region[..., :3] = region[..., :3] * (1 - a) + np.clip(front, 0, 255) * a
    region[..., 3:] = np.maximum(region[..., 3:], a * 255)
    return {"bgra": np.clip(out, 0, 255).astype(np.uint8), "face_xy": (fx, fy)}


VIEWS = ((0.4, 1.0), (-0.4, 1.0), (1.0, 0.3), (0.0, -1.0))  # thickness below, below-left, right, above


RED_FIVES = (4, 13, 22)  # 5萬, 5筒, 5條


def red_five(face: np.ndarray, style: dict, rng: np.random.Generator) -> np.ndarray:
    """A five's face (BGRA) with all its ink in the style's red, as Japanese sets print one 5萬,
    5筒 and 5條 each (aka dora): the strokes keep their shape and only change colour."""
    red = np.array((INK_LIGHT if style["scheme"] == "dark" else INK_DARK)["red"], np.float32) * rng.uniform(0.85, 1.1, 3)
    out = face.copy()
    out[..., :3] = np.clip(red, 0, 255).astype(np.uint8)  # alpha says where the ink is
    return out


def maybe_red_five(tileset: dict, cls: int, share: float, rng: np.random.Generator) -> dict:
    """The tileset to draw class cls from: with chance share, where cls is a five, the same set
    with that five's face drawn as a red five (red_five); otherwise tileset itself."""
    if cls not in RED_FIVES or rng.random() >= share:
        return tileset
    red = red_five(tileset["faces"][cls], tileset["style"], rng)
    return {**tileset, "faces": {**tileset["faces"], cls: red}}


def make_tileset(style: dict, rng: np.random.Generator, height: int = 128) -> dict:
    """The style's 42 faces (class -> BGRA uint8), four body views and the numbers its flowers print
    (none for a style that prints names alone)."""
    drawer = FaceDrawer(style, rng, height)
    faces = {cls: np.clip(drawer.face(cls), 0, 255).astype(np.uint8) for cls in range(42)}
    bodies = [make_body(style, (drawer.h, drawer.w), v, rng) for v in VIEWS]
    numbers = {cls: flower_number(cls, style) for cls in range(34, 42)} if style.get("flower_number", True) else {}
    return {"faces": faces, "bodies": bodies, "numbers": numbers, "style": style}


def art_tileset(art: dict[int, np.ndarray], style: dict, rng: np.random.Generator, height: int = 128) -> dict:
    """A set whose faces are one artwork's (class -> BGRA face art without a body, as
    training/synth.py loads them), on the style's bodies; the style draws the classes the artwork
    lacks. Real sets put drawn art on every body colour, not only on synth's ivory one."""
    ts = make_tileset(style, rng, height)
    h, w = next(iter(ts["faces"].values())).shape[:2]
    for cls, face in art.items():
        fh, fw = int(h * rng.uniform(0.8, 0.92)), int(w * rng.uniform(0.8, 0.92))
        canvas = np.zeros((h, w, 4), np.uint8)
        y0, x0 = (h - fh) // 2, (w - fw) // 2
        canvas[y0:y0 + fh, x0:x0 + fw] = cv2.resize(face, (fw, fh), interpolation=cv2.INTER_AREA)
        ts["faces"][cls] = canvas
    return ts


def contact_sheet(tileset: dict, view: int | None = None) -> np.ndarray:
    """All 42 tiles of a set in rows of 9, to look at a style by eye."""
    from training.compose import tile_picture

    rng = np.random.default_rng(0)
    tiles = [tile_picture(tileset, cls, view, rng, 120) for cls in range(42)]
    th = max(t.shape[0] for t, _ in tiles)
    tw = max(t.shape[1] for t, _ in tiles)
    rows = []
    for r in range(0, 42, 9):
        row = np.full((th + 8, (tw + 8) * 9, 3), 90, np.float32)
        for k, (t, m) in enumerate(tiles[r:r + 9]):
            a = m[..., None].astype(np.float32) / 255
            y, x = 4, 4 + k * (tw + 8)
            region = row[y:y + t.shape[0], x:x + t.shape[1]]
            row[y:y + t.shape[0], x:x + t.shape[1]] = region * (1 - a) + t * a
        rows.append(row)
    return np.clip(np.concatenate(rows), 0, 255).astype(np.uint8)
