"""A full disk, told apart from other failures where it is detected (SQLite, photo files).

Writes on a full disk answer 507 (Insufficient Storage) and reads that cannot run 503, each with
a message saying what to do, instead of a 500 and a traceback in the log.
"""
from __future__ import annotations

import errno
import sqlite3

from .errors import ApiError

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno in FULL_ERRNOS
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or "disk is full" in str(exc)
    return False


def disk_full(writing: bool = True) -> ApiError:
    if writing:
        return ApiError(507, "the server's disk is full; nothing was saved. Free some space on it and try again",
                        code="disk_full")
    return ApiError(503, "the server's disk is full, and this cannot be read until some space is freed",
                    code="disk_full_read")
