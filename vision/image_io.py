"""Reading a user's photo into a BGR uint8 array, refusing anything unsafe or unreadable.

Photos come from phones (JPEG, HEIC, EXIF-rotated), screenshots (PNG with alpha) and the web
(WebP). Every failure is an ImageError whose message can be shown to the user as is.

Coordinates: large photos are downscaled so the long side is at most `max_side`; boxes found
on the returned array are in its pixels. `load_image_with_scale` also returns the factor
(returned size / original size) for mapping them back.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_BYTES = 25 * 1024 * 1024
MAX_PIXELS = 50_000_000
MAX_SIDE = 4096

# PIL format names. MPO is what many phones write for JPEG (a JPEG with extra preview frames).
SUPPORTED_FORMATS = {"JPEG": "JPEG", "MPO": "JPEG", "PNG": "PNG", "WEBP": "WebP", "HEIF": "HEIC"}

Image.init()  # register every PIL plugin now: open(formats=...) does not load them itself

try:  # HEIC (iPhone) support; without pillow-heif such files get the "unsupported" message
    import pillow_heif

    pillow_heif.register_heif_opener()
except ImportError:  # pragma: no cover - pillow-heif is a runtime requirement
    pillow_heif = None

# Only these parsers ever see the bytes (the JPEG one also yields MPO); GIF, BMP and TIFF are
# there to name a common wrong format in the error.
OPEN_FORMATS = [f for f in ("JPEG", "PNG", "WEBP", "HEIF", "GIF", "BMP", "TIFF") if f in Image.OPEN]


def _pil_open():
    """PIL's own Image.open. Importing ultralytics (training, adapt) replaces it with a wrapper
    that, on any file PIL cannot identify, tries to pip-install a HEIF plugin and then fails
    with ModuleNotFoundError: a text file was reported as "corrupt" instead of "not an image"."""
    opener = Image.open
    for _ in range(4):  # wrappers may stack (a test's over ultralytics'): unwrap each
        if getattr(opener, "__module__", Image.__name__) == Image.__name__:
            break
        inner = getattr(sys.modules.get(opener.__module__), "_image_open", None)
        if inner is None or inner is opener:
            break
        opener = inner
    return opener


class ImageError(ValueError):
    """A photo that cannot or may not be read; the message (English) is meant for the user, and
    `code` with `params` name it for the web app's other languages (webapp/messages)."""

    def __init__(self, message: str, code: str = "image_unreadable", **params):
        super().__init__(message)
        self.code = code
        self.params = params


def load_image(source, *, max_side: int | None = MAX_SIDE, max_bytes: int = MAX_BYTES,
               max_pixels: int = MAX_PIXELS, budget=None) -> np.ndarray:
    """Photo (path, bytes or binary file object) -> BGR uint8 array, upright, long side <= max_side."""
    return load_image_with_scale(source, max_side=max_side, max_bytes=max_bytes,
                                 max_pixels=max_pixels, budget=budget)[0]


def load_image_with_scale(source, *, max_side: int | None = MAX_SIDE, max_bytes: int = MAX_BYTES,
                          max_pixels: int = MAX_PIXELS, budget=None) -> tuple[np.ndarray, float]:
    """Like load_image, also returning scale = returned size / original (upright) size.

    Memory: the decoded photo is the one big allocation (up to max_pixels x 4 bytes); it is
    shrunk in its own mode before anything converts it to more bytes per pixel, and dropped
    before the array is made. `budget`, when given, is called with decode_bytes() before decoding
    and must return a context manager held while decoding (webapp.imaging bounds the server's
    concurrent decodes with it)."""
    data = read_bytes(source, max_bytes)
    im = _open(data, max_pixels)
    original_long = max(im.size)
    if max_side is not None:
        _draft(im, max_side)
    with budget(decode_bytes(im)) if budget else contextlib.nullcontext():
        im = _decode(im)
        if max_side is not None:
            im = _shrink(im, max_side)
        im = _to_rgb(_upright(im))
        bgr = np.array(im, dtype=np.uint8)
        long_side = max(im.size)
        del im  # the PIL copy goes before the colour swap
        cv2.cvtColor(bgr, cv2.COLOR_RGB2BGR, dst=bgr)  # in place: no third copy
    return bgr, long_side / original_long


def decode_bytes(im: Image.Image) -> int:
    """What decoding an opened image costs at most, in bytes: the decoded pixels (after a JPEG
    draft) and what shrinking them allocates, as much again (measured: 383 MiB for a 7071 x 7071
    RGB PNG). PIL keeps 4 bytes a pixel for every colour mode and 1 for grey; palette, 1-bit and
    16-bit grey photos are widened to 4 bytes before they are shrunk."""
    per_pixel = {"L": 1, "P": 1 + 4, "1": 1 + 4}.get(im.mode, 2 + 4 if im.mode.startswith("I;16") else 4)
    return 2 * im.width * im.height * per_pixel


def _shrink(im: Image.Image, max_side: int) -> Image.Image:
    """Long side down to max_side, in the decoded mode (1-2 bytes a pixel for grey photos) rather
    than after the RGB or RGBA conversion multiplies them. Modes PIL cannot resize smoothly
    (palette, 1-bit, 16-bit grey) are widened first."""
    if max(im.size) <= max_side:
        return im
    if im.mode in ("P", "1") or im.mode.startswith("I;16") or (
            im.mode in ("L", "RGB") and "transparency" in im.info):
        im = _to_rgb(im) if not im.mode.startswith("I;16") else im.convert("I")
    factor = max_side / max(im.size)
    size = (max(1, round(im.width * factor)), max(1, round(im.height * factor)))
    return im.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


def read_bytes(source, max_bytes: int = MAX_BYTES) -> bytes:
    """The file's bytes, refusing empty and oversized input before reading it all.

    Messages do not repeat the path: callers that have one put it in front.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            size = path.stat().st_size
            if not path.is_file():
                raise ImageError("not a file", code="image_not_file")
            if size > max_bytes:
                raise ImageError(_too_big(size, max_bytes), **_too_big_params(size, max_bytes))
            data = path.read_bytes()
        except FileNotFoundError:
            raise ImageError("no such file", code="image_no_file") from None
        except PermissionError:
            raise ImageError("permission denied", code="image_permission") from None
        except IsADirectoryError:
            raise ImageError("a folder, not a photo", code="image_folder") from None
    elif hasattr(source, "read"):
        data = source.read(max_bytes + 1)  # one byte more tells us it is too big
    else:
        raise ImageError(f"cannot read a photo from a {type(source).__name__}", code="image_source",
                         type=type(source).__name__)
    if not data:
        raise ImageError("the file is empty", code="file_empty")
    if len(data) > max_bytes:
        raise ImageError(_too_big(len(data), max_bytes), **_too_big_params(len(data), max_bytes))
    return data


def _too_big(size: int, limit: int) -> str:
    return f"the file is too large ({size / 1e6:.1f} MB); the limit is {limit / 1e6:.0f} MB"


def _too_big_params(size: int, limit: int) -> dict:
    return {"code": "image_too_large", "mb": f"{size / 1e6:.1f}", "limit_mb": f"{limit / 1e6:.0f}"}


def _open(data: bytes, max_pixels: int) -> Image.Image:
    """Open lazily (header only) and check format and pixel count before any decoding."""
    try:
        with warnings.catch_warnings():
            # PIL warns between its own limits; ours is lower and checked right below
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im = _pil_open()(io.BytesIO(data), formats=OPEN_FORMATS)
    except Image.DecompressionBombError:
        raise ImageError(f"the image has too many pixels; the limit is {max_pixels / 1e6:.0f} "
                         "megapixels", code="image_bomb", limit_mp=f"{max_pixels / 1e6:.0f}") from None
    except UnidentifiedImageError:
        raise ImageError("the file is not an image, or not in a format we read "
                         f"({_format_list()})", code="image_not_image", formats=_format_list(" / ")) from None
    except Exception as exc:  # any other failure while parsing the header means a broken file
        raise ImageError(f"the image is corrupt ({str(exc)[:80]})", code="image_corrupt") from None
    if im.format not in SUPPORTED_FORMATS:
        raise ImageError(f"{im.format} images are not supported; use {_format_list()}", code="image_format",
                         format=im.format, formats=_format_list(" / "))
    width, height = im.size
    if width <= 0 or height <= 0:
        raise ImageError("the image has no pixels", code="image_no_pixels")
    if width * height > max_pixels:
        raise ImageError(f"the image is {width}x{height} ({width * height / 1e6:.0f} megapixels); "
                         f"the limit is {max_pixels / 1e6:.0f} megapixels", code="image_too_many_pixels",
                         width=width, height=height, mp=f"{width * height / 1e6:.0f}",
                         limit_mp=f"{max_pixels / 1e6:.0f}")
    return im


def _format_list(sep: str | None = None) -> str:
    """The formats read, as English says them ("JPEG, PNG, WebP or HEIC"), or joined by sep: the
    error's `formats` param, which every language's wording takes as it is."""
    names = list(dict.fromkeys(SUPPORTED_FORMATS.values()))
    if pillow_heif is None:
        names.remove("HEIC")
    return sep.join(names) if sep else ", ".join(names[:-1]) + " or " + names[-1]


def _draft(im: Image.Image, max_side: int) -> None:
    """Let the JPEG decoder shrink by 2/4/8 while decoding: much faster and lighter for big photos."""
    if im.format in ("JPEG", "MPO") and max(im.size) > max_side:
        factor = max_side / max(im.size)
        im.draft(None, (int(im.width * factor), int(im.height * factor)))


def _decode(im: Image.Image) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im.load()
    except Exception as exc:  # truncated data, bad chunks, decoder errors: all "corrupt"
        raise ImageError(f"the image is truncated or corrupt ({str(exc)[:80]})", code="image_truncated") from None
    return im


def _upright(im: Image.Image) -> Image.Image:
    """Apply the EXIF orientation a phone recorded; a broken EXIF block leaves the photo as stored."""
    try:
        return ImageOps.exif_transpose(im)
    except Exception:  # a photo with bad metadata is still a photo
        return im


def _to_rgb(im: Image.Image) -> Image.Image:
    """Any mode -> 8-bit RGB: transparency composited on white, 16-bit scaled down, CMYK converted."""
    if im.mode in ("I;16", "I;16L", "I;16B", "I;16N", "I"):
        # 16-bit grey (PNG): PIL's convert would clip at 255, so scale to 8 bits ourselves
        wide = np.clip(np.asarray(im, dtype=np.int64), 0, 65535)
        im = Image.fromarray(((wide * 255 + 32767) // 65535).astype(np.uint8))
    has_alpha = im.mode in ("RGBA", "LA", "PA", "RGBa", "La") or (
        im.mode in ("P", "L", "RGB") and "transparency" in im.info)
    if has_alpha:
        rgba = im.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return im if im.mode == "RGB" else im.convert("RGB")
