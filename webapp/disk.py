"""A full disk, told apart from other failures where it is detected (SQLite, photo files).

Writes on a full disk answer 507 (Insufficient Storage) and reads that cannot run 503, each with
a message saying what to do, instead of a 500 and a traceback in the log.
"""
from __future__ import annotations

import errno
import sqlite3

from .errors import ApiError

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
# a read-only mount (the kernel remounts an SD card read-only after an I/O error) or a folder
# or file the server's user may not write (restored under another owner)
READ_ONLY_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno in FULL_ERRNOS
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or "disk is full" in str(exc)
    return False


def is_read_only(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno in READ_ONLY_ERRNOS
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorname", "").startswith("SQLITE_READONLY") or "readonly database" in str(exc)
    return False


def read_only() -> ApiError:
    # 507 like a full disk: nothing could be stored (the pages read 503 as "no model installed")
    return ApiError(507, "the server cannot write to its data folder (it is read-only); nothing was saved. "
                    "Check the disk and the folder's permissions, then try again", code="disk_read_only")


# the codes of refused_write's answers: what a cache write (photos.write_cache) may let pass
REFUSED_WRITE_CODES = ("disk_full", "disk_read_only")


def refused_write(exc: BaseException) -> ApiError | None:
    """The 507 for a write the disk refused, for want of room or of permission; None for any
    other failure, which is raised as it is. One rule for the database and the files."""
    if is_disk_full(exc):
        return disk_full()
    if is_read_only(exc):
        return read_only()
    return None


def disk_full(writing: bool = True) -> ApiError:
    if writing:
        return ApiError(507, "the server's disk is full; nothing was saved. Free some space on it and try again",
                        code="disk_full")
    return ApiError(503, "the server's disk is full, and this cannot be read until some space is freed",
                    code="disk_full_read")
