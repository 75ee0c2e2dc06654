"""SVG to pixels with librsvg and cairo through ctypes (no Python binding needed).

Used to render tile artwork kept as SVG: the KDE sets of the adapt study and the CC0
FluffyStuff faces the classifier trains on.
"""
from __future__ import annotations

import ctypes

import numpy as np


class _Rect(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double),
                ("width", ctypes.c_double), ("height", ctypes.c_double)]


class _Dimensions(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("em", ctypes.c_double), ("ex", ctypes.c_double)]


def _libraries():
    """librsvg, cairo and gobject with the signatures used here; OSError when one is missing."""
    rsvg, cairo, gobject = (ctypes.CDLL(n) for n in ("librsvg-2.so.2", "libcairo.so.2", "libgobject-2.0.so.0"))
    p, rect = ctypes.c_void_p, ctypes.POINTER(_Rect)
    rsvg.rsvg_handle_new_from_data.restype = p
    rsvg.rsvg_handle_new_from_data.argtypes = [ctypes.c_char_p, ctypes.c_size_t, p]
    rsvg.rsvg_handle_get_dimensions.argtypes = [p, ctypes.POINTER(_Dimensions)]
    rsvg.rsvg_handle_get_geometry_for_layer.argtypes = [p, ctypes.c_char_p, rect, rect, rect, p]
    rsvg.rsvg_handle_render_layer.argtypes = [p, p, ctypes.c_char_p, rect, p]
    gobject.g_object_unref.argtypes = [p]
    cairo.cairo_image_surface_create.restype = p
    cairo.cairo_image_surface_create.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    cairo.cairo_create.restype = p
    cairo.cairo_image_surface_get_data.restype = p
    for name in ("cairo_create", "cairo_image_surface_get_data", "cairo_image_surface_get_stride",
                 "cairo_surface_flush", "cairo_destroy", "cairo_surface_destroy"):
        getattr(cairo, name).argtypes = [p]
    cairo.cairo_scale.argtypes = cairo.cairo_translate.argtypes = [p, ctypes.c_double, ctypes.c_double]
    return rsvg, cairo, gobject


def rsvg_available() -> bool:
    try:
        _libraries()
        return True
    except OSError:
        return False


class SvgDocument:
    """One SVG file; renders single elements, in document coordinates, to BGRA arrays."""

    def __init__(self, data: bytes):
        self.rsvg, self.cairo, self.gobject = _libraries()
        self.handle = self.rsvg.rsvg_handle_new_from_data(data, len(data), None)
        if not self.handle:
            raise ValueError("librsvg cannot read this SVG")
        size = _Dimensions()
        self.rsvg.rsvg_handle_get_dimensions(self.handle, ctypes.byref(size))
        # the document at its own size: element rects then come in document units
        self.viewport = _Rect(0, 0, size.width, size.height)

    def close(self) -> None:
        self.gobject.g_object_unref(self.handle)

    def element_rect(self, element: str) -> tuple[float, float, float, float] | None:
        """x, y, width, height of the element's logical extent; None when it is absent."""
        ink, logical = _Rect(), _Rect()
        ok = self.rsvg.rsvg_handle_get_geometry_for_layer(self.handle, f"#{element}".encode(), ctypes.byref(
            self.viewport), ctypes.byref(ink), ctypes.byref(logical), None)
        return (logical.x, logical.y, logical.width, logical.height) if ok else None

    def render(self, element: str | None, rect, scale: float) -> np.ndarray:
        """The element's pixels (the whole document for None) inside rect (document units) as
        straight-alpha BGRA uint8."""
        x, y, w, h = rect
        pw, ph = int(round(w * scale)), int(round(h * scale))
        c = self.cairo
        surface = c.cairo_image_surface_create(0, pw, ph)  # 0 = CAIRO_FORMAT_ARGB32, premultiplied
        cr = c.cairo_create(surface)
        c.cairo_scale(cr, scale, scale)
        c.cairo_translate(cr, -x, -y)
        layer = None if element is None else f"#{element}".encode()
        self.rsvg.rsvg_handle_render_layer(self.handle, cr, layer, ctypes.byref(self.viewport), None)
        c.cairo_surface_flush(surface)
        stride = c.cairo_image_surface_get_stride(surface)
        raw = ctypes.string_at(c.cairo_image_surface_get_data(surface), stride * ph)
        c.cairo_destroy(cr)
        c.cairo_surface_destroy(surface)
        px = np.frombuffer(raw, np.uint8).reshape(ph, stride // 4, 4)[:, :pw].astype(np.float32)
        alpha = px[..., 3:4]
        px[..., :3] = np.where(alpha > 0, px[..., :3] * 255 / np.maximum(alpha, 1), 0)
        return np.clip(px, 0, 255).astype(np.uint8)

    def size(self) -> tuple[float, float]:
        """The document's width and height in its own units."""
        return self.viewport.width, self.viewport.height


def render_file(path, height: int) -> np.ndarray:
    """A whole SVG file rendered to the given pixel height, as straight-alpha BGRA uint8."""
    with open(path, "rb") as f:
        doc = SvgDocument(f.read())
    try:
        w, h = doc.size()
        return doc.render(None, (0, 0, w, h), height / h)
    finally:
        doc.close()
