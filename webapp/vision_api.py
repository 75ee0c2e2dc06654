"""Photo routes: recognize, the stored photos, corrected examples, adaptation, live view, camera."""
from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from engine.errors import short_repr

from .adapt import INSTALL_COMMAND, SOURCES, installed_models
from .calibration import calibration_photo, has_calibration, kept_reading, save_calibration
from .errors import ApiError, render, request_lang
from .examples import count as example_count
from .examples import delete_example, list_examples, save_example
from .imaging import browser_type, jpeg_bytes, load
from .inputs import json_body, json_form_field, uploaded_bytes
from .live import analyse, check_player_input
from .photos import PHOTO_ID
from .security import viewer_check
from .services import services

bp = Blueprint("vision", __name__)
IMMUTABLE = "public, max-age=31536000, immutable"  # a photo id is its content's hash


def _tileset(value) -> str:
    from vision.classes import DEFAULT_TILESET, tileset_names
    if value in (None, ""):
        return DEFAULT_TILESET
    if value not in tileset_names():
        raise ApiError(400, f"unknown tile set {short_repr(value)}; known: {', '.join(tileset_names())}",
                       code="unknown_tileset", value=value, known=", ".join(tileset_names()))
    return value


@bp.post("/api/recognize")
def recognize():
    svc = services()
    svc.recognizer.get()  # 503 before reading the upload when there is no model
    data = uploaded_bytes("photo")
    tileset = _tileset(request.form.get("tileset"))
    svc.photos.check_room(data)  # a full folder refuses before the photo is read for nothing
    _, reading = svc.recognizer.read(data, tileset)
    pid = svc.photos.save(data)
    svc.photos.save_reading(pid, reading)
    return jsonify({"photo_id": pid, "photo_url": f"/photos/{pid}",
                    "annotated_url": f"/photos/{pid}/annotated", "thumb_url": f"/photos/{pid}/thumb",
                    "upright_url": f"/photos/{pid}/upright",
                    **reading})


def _image_response(data: bytes, mime: str, cache: str = IMMUTABLE) -> Response:
    return Response(data, mimetype=mime, headers={"Cache-Control": cache})


@bp.get("/photos/<pid>")
def photo(pid):
    data = services().photos.original(pid)
    mime = browser_type(data)
    if mime is None:  # HEIC: browsers outside Safari cannot show it
        return _image_response(jpeg_bytes(load(data)), "image/jpeg")
    return _image_response(data, mime)


@bp.get("/photos/<pid>/upright")
def upright(pid):
    """The photo as the recognizer read it: upright, its long side at most 4096 px, unmarked. The
    tiles' boxes are in its pixels, so the page cuts a tile's part from it to show it plainly."""
    return _image_response(jpeg_bytes(load(services().photos.original(pid))), "image/jpeg")


@bp.get("/photos/<pid>/thumb")
def thumb(pid):
    return _image_response(services().photos.thumb(pid), "image/jpeg")


@bp.get("/photos/<pid>/annotated")
def annotated(pid):
    from vision.draw import draw_tiles
    svc = services()
    image = load(svc.photos.original(pid))
    reading = svc.photos.reading(pid)
    if reading is None:
        reading = svc.recognizer.recognize(image, _tileset(None))
        svc.photos.save_reading(pid, reading)
    # a new recognition (another tile set) can change the picture: no long caching
    return _image_response(jpeg_bytes(draw_tiles(image, reading["tiles"], reading["layout"])), "image/jpeg",
                           cache="no-cache")


@bp.post("/api/examples")
def add_example():
    svc = services()
    body = json_body()
    pid = body.get("photo_id")
    if not isinstance(pid, str) or not PHOTO_ID.fullmatch(pid) or not svc.photos.exists(pid):
        raise ApiError(400, "photo_id must name a photo sent to /api/recognize", code="photo_id_unknown")
    image = load(svc.photos.original(pid))
    return jsonify({"count": save_example(svc.examples_dir, pid, image, body.get("tiles"),
                                          _tileset(body.get("tileset")))})


@bp.get("/api/examples")
def examples():
    svc = services()
    saved = list_examples(svc.examples_dir)
    for e in saved:  # the photo the player corrected, to tell the saved ones apart
        known = PHOTO_ID.fullmatch(e["photo_id"]) and svc.photos.exists(e["photo_id"])
        e["thumb_url"] = f"/photos/{e['photo_id']}/thumb" if known else None
    return jsonify({"count": example_count(svc.examples_dir), "examples": saved})


@bp.delete("/api/examples/<pid>")
def remove_example(pid):
    svc = services()
    if not PHOTO_ID.fullmatch(pid):
        raise ApiError(404, f"no saved correction of photo {short_repr(pid)}", code="no_example", id=pid)
    if svc.adapt.status() == "running":  # it reads the folder again for the detector and the tile check
        raise ApiError(409, "adaptation is running; remove saved corrections when it is done",
                       code="example_adapt_running")
    return jsonify({"count": delete_example(svc.examples_dir, pid)})


def _adapt_status() -> dict:
    svc = services()
    job = svc.adapt
    missing = job.missing()
    elapsed = job.elapsed()
    lang, status, raw = request_lang(), job.status(), job.steps()
    steps = [{**step, "text": render(step["code"], step["params"], lang)} for step in raw]
    return {"status": status, "source": job.source, "calibration": has_calibration(svc.data_dir), "steps": steps,
            **({"summary": _summary(raw, lang, status)} if status in ("done", "stopped", "failed") else {}),
            "log_tail": job.log_tail(), "training_missing": missing,
            "install_command": INSTALL_COMMAND if missing else None,
            **({"elapsed_s": round(elapsed, 1)} if elapsed is not None else {}),
            **({"killed": True} if job.killed() else {})}


def _summary(steps: list[dict], lang: str, status: str) -> str:
    """What an ended run changed, in a line: the models it installed (the others are as they were).
    A run that finished and replaced none says why it may not have; a stopped or failed one only
    that none had been replaced yet."""
    installed = [render(m["code"], {}, lang) for m in installed_models(steps)]
    if not installed:
        return render("adapt_summary_none" if status == "done" else "adapt_summary_none_yet", {}, lang)
    return render("adapt_summary_installed", {"n": len(installed),
                                              "models": render("list_separator", {}, lang).join(installed)}, lang)


@bp.post("/api/calibration")
def calibrate():
    """A calibration photo: its 42 tiles read in the standard order (400 where it shows another
    count), kept for POST /api/adapt {"source": "calibration"}."""
    svc = services()
    svc.recognizer.get()  # 503 before reading the upload when there is no model
    if svc.adapt.status() == "running" and svc.adapt.source == "calibration":
        raise ApiError(409, "adaptation is running; send a new calibration photo when it is done",
                       code="calibration_adapt_running")  # it reads the photo it was started with
    stored, tiles = svc.recognizer.calibrate(uploaded_bytes("photo"))
    save_calibration(svc.data_dir, stored, tiles)
    return jsonify({"tiles": tiles, "photo_url": "/api/calibration/photo"})


@bp.get("/api/calibration")
def kept_calibration():
    """The kept calibration photo's reading, as POST /api/calibration answered it (read again where
    its kept reading is lost); 404 `no_calibration` before one was sent."""
    svc = services()
    data = calibration_photo(svc.data_dir)
    tiles = kept_reading(svc.data_dir, data)
    if tiles is None:
        data, tiles = svc.recognizer.calibrate(data, kept=True)
    return jsonify({"tiles": tiles, "photo_url": "/api/calibration/photo"})


@bp.get("/api/calibration/photo")
def calibration_image():
    """The kept calibration photo, upright and as adapt reads it: the boxes of POST /api/calibration are on it."""
    return _image_response(calibration_photo(services().data_dir), "image/jpeg", cache="no-cache")


def _adapt_source() -> str:
    """`source` of POST /api/adapt's optional JSON body: "folder" (the default) or "calibration"."""
    if not request.get_data(cache=True).strip():
        return "folder"
    source = json_body().get("source", "folder")
    if source not in SOURCES:
        raise ApiError(400, f"source must be one of {', '.join(SOURCES)}, got {short_repr(source)}",
                       code="adapt_source", value=source, known=", ".join(SOURCES))
    return source


@bp.post("/api/adapt")
def start_adapt():
    svc = services()
    source = _adapt_source()
    if not (svc.recognizer.models_dir / "classifier.pt").is_file():
        raise ApiError(503, "no vision model installed yet (adaptation needs models/classifier.pt)",
                       code="adapt_no_model")
    if source == "folder" and example_count(svc.examples_dir) == 0:
        raise ApiError(400, "no corrected photos yet; save some with POST /api/examples first", code="no_examples")
    if source == "calibration" and not has_calibration(svc.data_dir):
        raise ApiError(400, "no calibration photo yet; send one with POST /api/calibration first",
                       code="no_calibration")
    svc.adapt.start(source)
    return jsonify(_adapt_status()), 202


@bp.get("/api/adapt")
def adapt_status():
    return jsonify(_adapt_status())


@bp.delete("/api/adapt")
def stop_adapt():
    if not services().adapt.stop():
        raise ApiError(409, "no adaptation is running", code="adapt_not_running")
    return jsonify(_adapt_status())


def _flowers_field() -> str | None:
    """`flowers` as tiles text ("1f 5f"), a JSON string, or a JSON list of tiles."""
    raw = request.form.get("flowers")
    if raw is None or not raw.strip():
        return None
    value = json_form_field("flowers", None) if raw.lstrip()[:1] in ('"', "[") else raw
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        value = " ".join(value)
    if not isinstance(value, str):
        raise ApiError(400, "flowers must be tiles such as \"1f 5f\"", code="flowers_not_tiles")
    return value


@bp.post("/api/live")
def live():
    svc = services()
    seen = request.form.get("seen", "")
    melds = json_form_field("melds", None)
    flowers = _flowers_field()
    rules = request.form.get("rules") or "tw-standard"
    self_drawn = _self_drawn_field()
    check_player_input(seen, melds, flowers, rules)
    svc.recognizer.get()
    # a frame the slots cannot take now is skipped (429 live_busy): the next comes a second later
    _, reading = svc.recognizer.read(uploaded_bytes("frame"), _tileset(request.form.get("tileset")), wait=False)
    return jsonify(analyse(reading, seen, melds, flowers, rules, self_drawn))


def _self_drawn_field() -> bool:
    """`self_drawn` (true/false, default true): how a frame that already wins is scored."""
    raw = (request.form.get("self_drawn") or "true").strip().lower()
    if raw not in ("true", "false", "1", "0"):
        raise ApiError(400, f"self_drawn must be true or false, got {short_repr(raw)}", code="not_a_bool",
                       field="self_drawn", value=raw)
    return raw in ("true", "1")


@bp.get("/api/camera")
def camera_status():
    """{"attached": bool}: whether a camera is attached, so a page can choose its source without a 404."""
    return jsonify({"attached": services().camera.attached()})


@bp.get("/api/camera/frame")
def camera_frame():
    return _image_response(services().camera.jpeg(), "image/jpeg", cache="no-store")


@bp.get("/api/camera/stream")
def camera_stream():
    camera = services().camera
    allowed = viewer_check()
    if not camera.streams.acquire(blocking=False):
        raise ApiError(503, "the camera is already being watched on two screens", code="camera_busy")
    try:
        first = camera.jpeg()
    except BaseException:
        camera.streams.release()
        raise
    return Response(camera.mjpeg(first, allowed), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-store"})
