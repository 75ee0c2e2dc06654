"""台麻桌邊助手 web app: `python app.py` serves it (waitress) on HOST:PORT (default 127.0.0.1:8000).

create_app(config) builds the Flask app; config keys: DATA_DIR, MODELS_DIR, RECOGNIZER (an
object with recognize(image) for tests), TABLE_PIN, TESTING, and for tests CAMERA_OPENER
(index -> capture object), ADAPT_COMMAND (argv list), TRAINING_MISSING (() -> names of the
training packages missing) and TEMPLATES_DIR.
Environment: MAHJONG_DATA (data folder, default ./data), TABLE_PIN, CAMERA (auto, opencv or picamera2),
CAMERA_INDEX, HOST, PORT, MAHJONG_HOSTS (more names to answer to, comma-separated),
MAHJONG_PROXIES (trusted reverse proxies in front), MAHJONG_PHOTO_QUOTA_MB (photo folder cap).
"""
from __future__ import annotations

import logging
import os
from datetime import timedelta
from pathlib import Path

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from webapp import api, errors, games_api, pages, security, services, vision_api
from webapp.adapt import AdaptJob, adapt_command, calibration_command
from webapp.calibration import CALIBRATION_PHOTO
from webapp.camera import Camera
from webapp.camera_sources import camera_opener
from webapp.db import hold_open, open_database
from webapp.hosts import served_hosts
from webapp.photos import PhotoStore, remove_orphans
from webapp.recognizer import RecognizerSource
from webapp.throttle import PinThrottle

ROOT = Path(__file__).resolve().parent
MAX_UPLOAD = 20 * 1024 * 1024
MAX_FORM_FIELD = 500 * 1024  # a form field that is not a file (seen, melds …); Werkzeug's default, stated
MAX_FORM_PARTS = 1000  # fields and files in one form; Werkzeug's default, stated


def _settings(config: dict | None) -> dict:
    config = dict(config or {})
    config.setdefault("DATA_DIR", os.environ.get("MAHJONG_DATA", "data"))
    config.setdefault("MODELS_DIR", ROOT / "models")
    config.setdefault("TABLE_PIN", os.environ.get("TABLE_PIN") or None)
    config.setdefault("CAMERA_INDEX", int(os.environ.get("CAMERA_INDEX", "0")))
    config.setdefault("CAMERA", os.environ.get("CAMERA", "auto"))
    # names the server answers to besides loopback and the address it serves (DNS rebinding)
    config.setdefault("HOST", os.environ.get("HOST", "127.0.0.1"))
    config.setdefault("ALLOWED_HOSTS", os.environ.get("MAHJONG_HOSTS", ""))
    # reverse proxies in front (each trusted for X-Forwarded-For/-Proto/-Host); 0 = none
    config.setdefault("PROXIES", int(os.environ.get("MAHJONG_PROXIES", "0")))
    config.setdefault("PHOTO_QUOTA_MB", float(os.environ.get("MAHJONG_PHOTO_QUOTA_MB", "2048")))
    return config


def create_app(config: dict | None = None) -> Flask:
    config = _settings(config)
    data_dir = Path(config["DATA_DIR"]).resolve()
    models_dir = Path(config["MODELS_DIR"]).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    db_path = data_dir / "mahjong.sqlite3"
    open_database(db_path)

    app = Flask(__name__, template_folder=str(config.get("TEMPLATES_DIR") or ROOT / "templates"),
                static_folder=str(ROOT / "static"))
    app.config.update(
        TESTING=bool(config.get("TESTING")),
        MAX_CONTENT_LENGTH=MAX_UPLOAD,
        MAX_FORM_MEMORY_SIZE=MAX_FORM_FIELD,
        MAX_FORM_PARTS=MAX_FORM_PARTS,
        SERVED_HOSTS=served_hosts(config["HOST"], config["ALLOWED_HOSTS"]),
        TABLE_PIN=config["TABLE_PIN"],
        SECRET_KEY=security.secret_key(data_dir),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(days=30),
        JSON_SORT_KEYS=False,
    )
    app.json.ensure_ascii = False  # player names and 台 names stay readable
    app.json.sort_keys = False
    examples_dir = data_dir / "examples"
    for folder in (data_dir / "photos", examples_dir, (data_dir / CALIBRATION_PHOTO).parent):  # a kill's leftovers
        remove_orphans(folder)
    services.install(app, services.Services(
        data_dir=data_dir, db_path=db_path, photos=PhotoStore(data_dir / "photos", quota_bytes=int(config["PHOTO_QUOTA_MB"] * 2**20)),
        examples_dir=examples_dir,
        recognizer=RecognizerSource(models_dir, injected=config.get("RECOGNIZER")),
        adapt=AdaptJob(data_dir / "adapt.log", config.get("ADAPT_COMMAND") or adapt_command(examples_dir, models_dir),
                      calibration=config.get("ADAPT_COMMAND") or calibration_command(
                          data_dir / CALIBRATION_PHOTO, models_dir),
                      **({"missing": config["TRAINING_MISSING"]} if "TRAINING_MISSING" in config else {})),
        camera=Camera(config["CAMERA_INDEX"], config.get("CAMERA_OPENER") or camera_opener(config["CAMERA"])),
        pin_throttle=PinThrottle(), keeper=hold_open(db_path)))
    errors.register(app)
    security.install(app)
    for blueprint in (api.bp, games_api.bp, vision_api.bp, pages.bp):
        app.register_blueprint(blueprint)
    if config["PROXIES"]:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config["PROXIES"], x_proto=config["PROXIES"],
                                x_host=config["PROXIES"])
    return app


def main() -> None:
    from waitress import serve

    from webapp.lan import banner

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "8000"))
    app = create_app()
    print(banner(host, port), flush=True)
    # waitress buffers a body before Flask sees it: bound that too (Flask answers 413 above 20 MB)
    serve(app, host=host, port=port, threads=4, max_request_body_size=3 * MAX_UPLOAD)


if __name__ == "__main__":
    main()
