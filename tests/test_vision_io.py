"""vision.image_io: every kind of photo a user may send, good or bad."""
from __future__ import annotations

import io
import struct
import time
import zlib

import numpy as np
import pytest
from PIL import Image

from vision.image_io import ImageError, load_image, load_image_with_scale, read_bytes


def _encode(im: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    im.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims width x height, with a tiny (wrong) data stream: no memory spent."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit greyscale
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


def _two_colour(width=60, height=40) -> Image.Image:
    """Left half red, right half blue: lets a test see orientation and channel order."""
    arr = np.zeros((height, width, 3), np.uint8)
    arr[:, : width // 2] = (255, 0, 0)
    arr[:, width // 2:] = (0, 0, 255)
    return Image.fromarray(arr)


# --- refused ---------------------------------------------------------------------------------

def test_empty_file(tmp_path):
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    with pytest.raises(ImageError, match="empty"):
        load_image(path)


def test_missing_file(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nope.jpg")


def test_folder_is_not_a_photo(tmp_path):
    with pytest.raises(ImageError, match="not a file|folder"):
        load_image(tmp_path)


def test_truncated_jpeg(tmp_path):
    noise = np.random.default_rng(0).integers(0, 256, (200, 200, 3), dtype=np.uint8)
    data = _encode(Image.fromarray(noise), "JPEG", quality=90)
    path = tmp_path / "cut.jpg"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageError, match="truncated or corrupt"):
        load_image(path)


def test_text_file_named_jpg(tmp_path):
    path = tmp_path / "notes.jpg"
    path.write_text("this is a shopping list, not a photo\n")
    with pytest.raises(ImageError, match="not an image"):
        load_image(path)


def test_text_file_is_not_an_image_after_ultralytics_patched_pil(monkeypatch):
    """ultralytics (imported by training and adapt) swaps Image.open for a wrapper that keeps
    PIL's own as `_image_open` and, on a file PIL cannot identify, fails importing a plugin."""
    import sys
    import types

    patches = types.ModuleType("fake_ultralytics_patches")
    patches._image_open = Image.open

    def image_open(*args, **kwargs):
        try:
            return patches._image_open(*args, **kwargs)
        except Image.UnidentifiedImageError:
            raise ModuleNotFoundError("No module named 'pi_heif'") from None

    image_open.__module__ = patches.__name__
    monkeypatch.setitem(sys.modules, patches.__name__, patches)
    monkeypatch.setattr(Image, "open", image_open)
    with pytest.raises(ImageError, match="not an image") as err:
        load_image(b"just some text, not a photo\n" * 10)
    assert err.value.code == "image_not_image"


def test_unsupported_format_is_named():
    with pytest.raises(ImageError, match="GIF images are not supported; use JPEG, PNG, WebP or HEIC") as err:
        load_image(_encode(_two_colour(), "GIF"))
    # the param every language's wording takes as it is: no English "or" in the Chinese sentence
    assert err.value.params["formats"] == "JPEG / PNG / WebP / HEIC"


def test_huge_image_refused_from_header_quickly():
    data = _png_header_only(20000, 20000)
    start = time.perf_counter()
    with pytest.raises(ImageError, match="too many pixels|megapixels"):
        load_image(data)
    assert time.perf_counter() - start < 1.0


def test_over_our_pixel_limit_but_under_pils():
    # 64 megapixels: PIL itself would not object, our 50 MP limit does, before decoding
    with pytest.raises(ImageError, match=r"8000x8000 \(64 megapixels\); the limit is 50"):
        load_image(_png_header_only(8000, 8000))


def test_byte_cap_on_path_checked_before_reading(tmp_path):
    path = tmp_path / "big.png"
    path.write_bytes(_encode(_two_colour(), "PNG") + b"\0" * 5000)
    with pytest.raises(ImageError, match="too large"):
        load_image(path, max_bytes=4000)


def test_byte_cap_on_bytes_and_streams():
    data = _encode(_two_colour(), "PNG")
    with pytest.raises(ImageError, match="too large"):
        load_image(data, max_bytes=len(data) - 1)
    with pytest.raises(ImageError, match="too large"):
        read_bytes(io.BytesIO(data), max_bytes=len(data) - 1)
    assert read_bytes(io.BytesIO(data), max_bytes=len(data)) == data


def test_corrupt_png_data(tmp_path):
    data = bytearray(_encode(_two_colour(), "PNG"))
    idat = data.index(b"IDAT")
    data[idat + 8: idat + 20] = b"\xff" * 12  # scramble the compressed pixels
    with pytest.raises(ImageError, match="corrupt"):
        load_image(bytes(data))


def test_not_a_source():
    with pytest.raises(ImageError, match="cannot read a photo from a int"):
        load_image(42)


# --- read, and normalised to BGR uint8 ---------------------------------------------------------

def test_png_rgb_becomes_bgr(tmp_path):
    path = tmp_path / "ok.png"
    _two_colour().save(path)
    img = load_image(path)
    assert img.shape == (40, 60, 3) and img.dtype == np.uint8
    assert tuple(img[0, 0]) == (0, 0, 255)     # red in BGR
    assert tuple(img[0, -1]) == (255, 0, 0)    # blue in BGR


def test_grayscale_becomes_three_channels():
    grey = Image.fromarray(np.full((30, 50), 77, np.uint8))
    img = load_image(_encode(grey, "JPEG", quality=95))
    assert img.shape == (30, 50, 3)
    assert abs(int(img[5, 5, 0]) - 77) <= 2 and img[5, 5, 0] == img[5, 5, 2]


def test_cmyk_jpeg():
    cmyk = Image.new("CMYK", (40, 30), (0, 255, 255, 0))  # pure red in CMYK
    img = load_image(_encode(cmyk, "JPEG", quality=95))
    assert img.shape == (30, 40, 3)
    b, g, r = (int(v) for v in img[15, 20])
    assert r > 200 and g < 60 and b < 60


def test_png_alpha_composited_on_white():
    rgba = Image.new("RGBA", (20, 10), (0, 0, 0, 0))
    rgba.paste((0, 0, 0, 255), (10, 0, 20, 10))  # right half opaque black
    img = load_image(_encode(rgba, "PNG"))
    assert tuple(img[5, 2]) == (255, 255, 255)
    assert tuple(img[5, 15]) == (0, 0, 0)


def test_palette_png_with_transparency():
    pal = Image.new("P", (10, 10), 0)
    pal.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    pal.paste(1, (5, 0, 10, 10))
    img = load_image(_encode(pal, "PNG", transparency=0))
    assert tuple(img[5, 1]) == (255, 255, 255)
    assert tuple(img[5, 8]) == (0, 0, 255)


def test_16_bit_png_scaled_not_clipped():
    wide = np.array([[0, 32896, 65535]], np.uint16)
    img = load_image(_encode(Image.fromarray(wide), "PNG"))
    assert img.shape == (1, 3, 3) and img.dtype == np.uint8
    assert list(img[0, :, 0]) == [0, 128, 255]


def test_exif_orientation_6_is_applied():
    im = _two_colour(60, 40)
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: view needs a 90 deg clockwise turn
    img = load_image(_encode(im, "JPEG", quality=95, exif=exif.tobytes()))
    assert img.shape == (60, 40, 3)
    # after a clockwise turn the stored left (red) half is on top
    assert img[5, 20, 2] > 200 and img[55, 20, 0] > 200


def test_webp():
    img = load_image(_encode(_two_colour(), "WEBP", lossless=True))
    assert img.shape == (40, 60, 3)
    assert tuple(img[0, 0]) == (0, 0, 255)


def test_heic():
    pillow_heif = pytest.importorskip("pillow_heif")
    if "x265" not in pillow_heif.libheif_info()["encoders"]:
        pytest.skip("this pillow-heif build has no HEVC encoder")
    data = _encode(_two_colour(64, 48), "HEIF", quality=95)
    img = load_image(data)
    assert img.shape == (48, 64, 3)
    assert img[10, 5, 2] > 180 and img[10, 60, 0] > 180


def test_large_photo_downscaled_with_scale():
    img, scale = load_image_with_scale(_encode(_two_colour(300, 200), "PNG"), max_side=100)
    assert img.shape == (67, 100, 3)
    assert scale == pytest.approx(1 / 3)


def test_large_jpeg_uses_draft_and_keeps_exact_long_side():
    noise = np.random.default_rng(1).integers(0, 256, (400, 1000, 3), dtype=np.uint8)
    img, scale = load_image_with_scale(_encode(Image.fromarray(noise), "JPEG"), max_side=300)
    assert img.shape == (120, 300, 3)
    assert scale == pytest.approx(0.3)


def test_small_photo_untouched():
    img, scale = load_image_with_scale(_encode(_two_colour(), "PNG"))
    assert img.shape == (40, 60, 3) and scale == 1.0


def test_phone_mpo_jpeg():
    im = _two_colour()
    data = _encode(im, "MPO", save_all=True, append_images=[im.resize((30, 20))])
    assert Image.open(io.BytesIO(data)).format == "MPO"
    assert load_image(data).shape == (40, 60, 3)
