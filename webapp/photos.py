"""Photos on disk, named by the SHA-256 of their bytes: <data>/photos/<id>.jpg (original bytes).

The id is checked against 64 lowercase hex digits before any path is built from it, so no
request can name a file outside the photo folder. Files are written to a temporary name and
renamed into place, so a crash never leaves half a photo under a real name.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import re
import secrets
from pathlib import Path

from .disk import REFUSED_WRITE_CODES, refused_write
from .errors import ApiError

log = logging.getLogger("webapp")
PHOTO_ID = re.compile(r"[0-9a-f]{64}")
TEMP_SUFFIX = ".tmp"
THUMB_SIDE = 320


def photo_id(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary name, then rename; a full disk or a read-only folder is a 507
    (disk.refused_write)."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        refused = refused_write(exc)
        if refused is None:
            raise
        raise refused from None
    finally:
        tmp.unlink(missing_ok=True)


def write_cache(path: Path, data: bytes) -> None:
    """Like write_atomic for what can be made again (thumbnails, readings): on a full disk the
    answer is still given, only not kept (and so on a read-only one)."""
    try:
        write_atomic(path, data)
    except ApiError as exc:
        if exc.code not in REFUSED_WRITE_CODES:
            raise
        log.warning("%s: %s not cached", exc.code, path.name)


def remove_orphans(folder: Path) -> int:
    """Delete the temporary files a killed process left behind (run at start); returns how many."""
    removed = 0
    for tmp in Path(folder).glob(f"**/.*{TEMP_SUFFIX}"):
        tmp.unlink(missing_ok=True)
        removed += 1
    return removed


class PhotoStore:
    """The photo folder, with a quota on what it holds (MAHJONG_PHOTO_QUOTA_MB; None = no cap)."""

    def __init__(self, folder: Path, quota_bytes: int | None = None):
        self.folder = Path(folder)
        self.quota_bytes = quota_bytes
        self._lock = threading.Lock()
        self._used: int | None = None  # bytes in the folder, counted once, then kept up to date

    def used_bytes(self) -> int:
        with self._lock:
            if self._used is None:
                self._used = self._count()
            return self._used

    def _count(self) -> int:
        return sum(p.stat().st_size for p in self.folder.glob("**/*") if p.is_file()) if self.folder.is_dir() else 0

    def check_room(self, data: bytes) -> None:
        """507 now where saving the photo `data` would pass the quota (asked before it is read)."""
        if not self._path(photo_id(data), ".jpg").exists():  # kept already: takes no more room
            self._reserve(len(data), keep=False)

    def _reserve(self, size: int, keep: bool = True) -> None:
        """Count `size` more bytes (unless not keep), or refuse (507) when they would pass the quota."""
        with self._lock:  # read and update in one hold: two uploads at once both count
            if self._used is None:
                self._used = self._count()
            used = self._used
            if self.quota_bytes is not None and used + size > self.quota_bytes:
                # the refusal tells the player to delete old photos: count again, they may have
                self._used = used = self._count()
            if self.quota_bytes is not None and used + size > self.quota_bytes:
                mb = self.quota_bytes / 2**20
                mb = round(mb, 1) if mb < 10 else round(mb)  # a small quota is not "0 MB"
                raise ApiError(507, f"the photo folder is full (its quota is {mb} MB); delete old photos "
                               "from the data folder's photos/ or raise MAHJONG_PHOTO_QUOTA_MB",
                               code="photo_quota_full", quota_mb=mb)
            if keep:
                self._used = used + size

    def _path(self, pid: str, suffix: str, sub: str = "") -> Path:
        if not isinstance(pid, str) or not PHOTO_ID.fullmatch(pid):
            raise ApiError(404, "no such photo", code="no_photo")
        return (self.folder / sub if sub else self.folder) / f"{pid}{suffix}"

    def save(self, data: bytes) -> str:
        pid = photo_id(data)
        path = self._path(pid, ".jpg")
        if not path.exists():  # same bytes, same name: nothing to write twice
            self._reserve(len(data))
            try:
                write_atomic(path, data)
            except BaseException:
                self._reserve(-len(data))
                raise
        return pid

    def original(self, pid: str) -> bytes:
        path = self._path(pid, ".jpg")
        if not path.is_file():
            raise ApiError(404, "no such photo", code="no_photo")
        return path.read_bytes()

    def exists(self, pid: str) -> bool:
        return self._path(pid, ".jpg").is_file()

    def save_reading(self, pid: str, reading: dict) -> None:
        """The latest recognition of a photo (tiles + layout), for its annotated picture."""
        write_cache(self._path(pid, ".json"), json.dumps(reading, ensure_ascii=False).encode())

    def reading(self, pid: str) -> dict | None:
        """The photo's saved reading, or None where there is none or none that can be used: it is
        a cache of the recognizer's answer, made again from the photo when damaged."""
        path = self._path(pid, ".json")
        try:
            value = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
        except (OSError, ValueError):  # unreadable, not UTF-8, not JSON
            value = None
        if value is None or not (isinstance(value, dict) and isinstance(value.get("tiles"), list)
                                 and isinstance(value.get("layout"), dict)):
            if path.exists():
                log.warning("the saved reading of photo %s is damaged; reading the photo again", pid[:12])
            return None
        return value

    def thumb(self, pid: str) -> bytes:
        """A small JPEG, made once and kept (the photo under an id never changes)."""
        path = self._path(pid, ".jpg", "thumbs")
        if path.is_file():
            data = path.read_bytes()
            if data.startswith(b"\xff\xd8"):  # a JPEG; anything else is a damaged cache, made again
                return data
        from .imaging import jpeg_bytes, load
        data = jpeg_bytes(load(self.original(pid), max_side=THUMB_SIDE), quality=80)
        try:
            write_cache(path, data)
        except OSError as exc:  # a directory where the file goes: the answer is still given
            log.warning("thumbnail of photo %s not kept: %s", pid[:12], exc)
        return data
