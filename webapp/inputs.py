"""Reading request input: JSON bodies and form fields, with one clear message per mistake."""
from __future__ import annotations

import json

from flask import request

from . import jsonsafe
from .errors import ApiError


def _no_constants(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _too_deep(exc: jsonsafe.TooDeep) -> ApiError:
    return ApiError(400, str(exc), code="json_too_deep", limit=exc.limit)


def json_body() -> dict:
    """The request body as a JSON object; 400 for anything else (malformed, a list, NaN)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise ApiError(400, "the request body is empty; send a JSON object", code="body_empty")
    try:
        text = raw.decode("utf-8")  # json.loads(bytes) would guess UTF-16/32 from the first bytes
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not UTF-8 text", code="body_not_utf8") from None
    try:
        data = jsonsafe.check_text(jsonsafe.loads(text, parse_constant=_no_constants))
    except jsonsafe.TooDeep as exc:
        raise _too_deep(exc) from None
    except jsonsafe.NotText:  # "\ud800" escaped: UTF-8 bytes, but no text once decoded
        raise ApiError(400, "the request body is not UTF-8 text", code="body_not_utf8") from None
    except json.JSONDecodeError as exc:
        raise ApiError(400, f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                       code="malformed_json", reason=exc.msg, line=exc.lineno, column=exc.colno) from None
    except ValueError as exc:
        raise ApiError(400, f"malformed JSON: {exc}", code="malformed_json_value", reason=str(exc)) from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(data).__name__}", code="body_not_object",
                       type=type(data).__name__)
    return data


def json_form_field(name: str, default):
    """An optional multipart form field that carries JSON (e.g. `melds`)."""
    raw = request.form.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return jsonsafe.check_text(jsonsafe.loads(raw, parse_constant=_no_constants))
    except jsonsafe.TooDeep as exc:
        raise _too_deep(exc) from None
    except ValueError as exc:
        raise ApiError(400, f"form field {name!r} is not valid JSON: {exc}", code="form_field_json", field=name,
                       reason=str(exc)) from None


def uploaded_bytes(field: str) -> bytes:
    """The bytes of an uploaded file; 400 when the field is missing or the file is empty."""
    upload = request.files.get(field)
    if upload is None:
        raise ApiError(400, f"no file in the form field {field!r}", code="no_file", field=field)
    data = upload.read()
    if not data:
        raise ApiError(400, "the file is empty", code="file_empty")
    return data
