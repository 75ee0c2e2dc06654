"""Photos on disk, named by the SHA-256 of their bytes: <data>/photos/<id>.jpg (original bytes).

The id is checked against 64 lowercase hex digits before any path is built from it, so no
request can name a file outside the photo folder. Files are written to a temporary name and
renamed into place, so a crash never leaves half a photo under a real name.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from pathlib import Path

from .errors import ApiError

PHOTO_ID = re.compile(r"[0-9a-f]{64}")
THUMB_SIDE = 320


def photo_id(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class PhotoStore:
    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _path(self, pid: str, suffix: str, sub: str = "") -> Path:
        if not isinstance(pid, str) or not PHOTO_ID.fullmatch(pid):
            raise ApiError(404, "no such photo")
        return (self.folder / sub if sub else self.folder) / f"{pid}{suffix}"

    def save(self, data: bytes) -> str:
        pid = photo_id(data)
        path = self._path(pid, ".jpg")
        if not path.exists():  # same bytes, same name: nothing to write twice
            write_atomic(path, data)
        return pid

    def original(self, pid: str) -> bytes:
        path = self._path(pid, ".jpg")
        if not path.is_file():
            raise ApiError(404, "no such photo")
        return path.read_bytes()

    def exists(self, pid: str) -> bool:
        return self._path(pid, ".jpg").is_file()

    def save_reading(self, pid: str, reading: dict) -> None:
        """The latest recognition of a photo (tiles + layout), for its annotated picture."""
        write_atomic(self._path(pid, ".json"), json.dumps(reading, ensure_ascii=False).encode())

    def reading(self, pid: str) -> dict | None:
        path = self._path(pid, ".json")
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    def thumb(self, pid: str) -> bytes:
        """A small JPEG, made once and kept (the photo under an id never changes)."""
        path = self._path(pid, ".jpg", "thumbs")
        if path.is_file():
            return path.read_bytes()
        from .imaging import jpeg_bytes, load
        data = jpeg_bytes(load(self.original(pid), max_side=THUMB_SIDE), quality=80)
        write_atomic(path, data)
        return data
