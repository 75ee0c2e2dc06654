"""The vision model, loaded once per process on first use and reloaded when its files change
(after `vision adapt` installs a better classifier, flower reader or tile check). Until models/ holds a model, every caller
gets a 503 "no vision model installed yet" instead of a crash.
"""
from __future__ import annotations

import threading
from pathlib import Path

from .errors import ApiError

MODEL_FILES = ("detector.onnx", "classifier.onnx")
# read too when present: adapt may install a new reader or tile check alone
OPTIONAL_FILES = ("flower_reader.onnx", "character_reader.onnx", "suit_reader.onnx", "verifier.onnx",
                  "recognizer.json", "classifier_first.onnx", "detector_closeup.onnx")
NO_MODEL = "no vision model installed yet"
BUSY = "the server is busy reading other frames; this one was skipped, try again"


class RecognizerSource:
    def __init__(self, models_dir: Path, injected=None, max_parallel: int = 2):
        self.models_dir = Path(models_dir)
        self._injected = injected
        self._lock = threading.Lock()
        self._loaded = None
        self._stamp = None
        # inference is CPU-bound; more than two at once only makes each slower (and uses memory)
        self.slots = threading.BoundedSemaphore(max_parallel)

    def _files_stamp(self):
        paths = [self.models_dir / name for name in MODEL_FILES]
        if not all(p.is_file() for p in paths):
            return None
        optional = [self.models_dir / name for name in OPTIONAL_FILES]
        return tuple(p.stat().st_mtime_ns for p in paths) + tuple(
            p.stat().st_mtime_ns if p.is_file() else None for p in optional)

    def available(self) -> bool:
        return self._injected is not None or self._files_stamp() is not None

    def get(self):
        if self._injected is not None:
            return self._injected
        stamp = self._files_stamp()
        if stamp is None:
            raise ApiError(503, NO_MODEL, code="no_model")
        with self._lock:
            if self._loaded is None or self._stamp != stamp:
                from vision.model import Recognizer
                try:
                    self._loaded = Recognizer(self.models_dir)
                except Exception as exc:  # onnxruntime raises its own types for a corrupt file
                    raise ApiError(503, f"cannot load the vision model: {exc}", code="model_load_failed", reason=str(exc)) from None
                self._stamp = stamp
            return self._loaded

    def read(self, data: bytes, tileset: str, wait: bool = True):
        """(image, reading) of photo bytes. The photo is decoded inside the inference slot, so a
        request waiting for a slot holds only its compressed bytes, never a decoded photo.

        wait=False (a live frame, one of a stream): with every slot taken the frame is refused at
        once, 429 `live_busy`, instead of queueing; queued frames held the server's few threads,
        and every other page waited behind them."""
        from vision.pipeline import recognize_image

        from .imaging import load
        recognizer = self.get()  # 503 before decoding anything
        if not self.slots.acquire(blocking=wait):
            raise ApiError(429, BUSY, code="live_busy")
        try:
            image = load(data)
            return image, recognize_image(image, recognizer, tileset)
        finally:
            self.slots.release()
            _trim()

    def calibrate(self, data: bytes, kept: bool = False) -> tuple[bytes, list[dict]]:
        """(the JPEG to keep, its 42 tiles in reading order as {tile, box}, with "blank": true on a
        tile whose face shows next to nothing) of a calibration photo; 400 `calibration_count` when
        it does not show 42 tiles (vision/calibration.py). `kept`: `data` is a kept calibration
        JPEG, read as it is."""
        from vision.calibration import CalibrationError, calibration_boxes, calibration_reading, looks_blank

        from .calibration import adapt_pixels, as_stored
        from .imaging import load
        recognizer = self.get()
        try:
            with self.slots:
                stored, image = (data, adapt_pixels(data)) if kept else as_stored(load(data))
                try:
                    reading = calibration_reading(calibration_boxes(image, recognizer))
                except CalibrationError as exc:
                    raise ApiError(400, str(exc), code=exc.code, **exc.params) from None
                # a tile with next to nothing on its face is shown to the player to look at
                return stored, [{**r, "blank": True} if blank else r for r, blank in zip(reading, looks_blank(image, reading))]
        finally:
            _trim()

    def recognize(self, image, tileset: str) -> dict:
        """Tiles and layout of a decoded BGR image (vision.pipeline.recognize_image): a stored
        photo read again where its saved reading is missing."""
        from vision.pipeline import recognize_image
        recognizer = self.get()
        with self.slots:
            return recognize_image(image, recognizer, tileset)


def _trim() -> None:
    """Hand freed heap back to the system: without it glibc kept ~600 MiB of freed decode
    buffers in its per-thread arenas after four big photos (measured), on a 2 GB Pi."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


try:
    import ctypes
    _LIBC = ctypes.CDLL("libc.so.6")
except OSError:  # not glibc (macOS, musl): nothing to trim
    _LIBC = None
