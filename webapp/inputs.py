"""Reading request input: JSON bodies and form fields, with one clear message per mistake."""
from __future__ import annotations

import json

from flask import request

from .errors import ApiError


def _no_constants(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def json_body() -> dict:
    """The request body as a JSON object; 400 for anything else (malformed, a list, NaN)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise ApiError(400, "the request body is empty; send a JSON object")
    try:
        text = raw.decode("utf-8")  # json.loads(bytes) would guess UTF-16/32 from the first bytes
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not UTF-8 text") from None
    try:
        data = json.loads(text, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise ApiError(400, f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise ApiError(400, f"malformed JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(data).__name__}")
    return data


def json_form_field(name: str, default):
    """An optional multipart form field that carries JSON (e.g. `melds`)."""
    raw = request.form.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return json.loads(raw, parse_constant=_no_constants)
    except ValueError as exc:
        raise ApiError(400, f"form field {name!r} is not valid JSON: {exc}") from None


def uploaded_bytes(field: str) -> bytes:
    """The bytes of an uploaded file; 400 when the field is missing or the file is empty."""
    upload = request.files.get(field)
    if upload is None:
        raise ApiError(400, f"no file in the form field {field!r}")
    data = upload.read()
    if not data:
        raise ApiError(400, "the file is empty")
    return data
