"""What the routes share, built once by create_app: folders, stores, the model, the camera.

Per-request: one SQLite connection in flask.g, closed when the request ends.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from flask import Flask, current_app, g

from .adapt import AdaptJob
from .camera import Camera
from .db import connect
from .disk import disk_full, is_disk_full
from .photos import PhotoStore
from .recognizer import RecognizerSource
from .summary_cache import SummaryCache
from .throttle import PinThrottle


@dataclass
class Services:
    data_dir: Path
    db_path: Path
    photos: PhotoStore
    examples_dir: Path
    recognizer: RecognizerSource
    adapt: AdaptJob
    camera: Camera
    pin_throttle: PinThrottle
    keeper: sqlite3.Connection | None = None  # db.hold_open: keeps the WAL in place
    summaries: SummaryCache = field(default_factory=SummaryCache)  # the list of games' lines


def services() -> Services:
    return current_app.extensions["mahjong"]


def db() -> sqlite3.Connection:
    if "db" not in g:
        try:
            g.db = connect(services().db_path)
        except sqlite3.Error as exc:
            if is_disk_full(exc):
                raise disk_full(writing=False) from None
            raise
    return g.db


def install(app: Flask, svc: Services) -> None:
    app.extensions["mahjong"] = svc

    @app.teardown_appcontext
    def _close(_exc):
        conn = g.pop("db", None)
        if conn is not None:
            conn.close()
