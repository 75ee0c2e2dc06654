"""One error type for the API and the handlers that turn every failure into JSON for /api/*.

Errors are raised where they are detected (ApiError, HandError, ImageError) and shown here, so
routes never build error responses themselves and a client never sees a traceback.
"""
from __future__ import annotations

import logging

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from engine.errors import HandError

log = logging.getLogger("webapp")

# These paths are read by scripts, not people: they always answer JSON.
JSON_PREFIXES = ("/api/", "/photos/")


class ApiError(Exception):
    """A request we refuse; `message` is shown to the user as is."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def error_response(status: int, message: str):
    if not _wants_json():  # a page's error: plain text, never a traceback
        return message, status, {"Content-Type": "text/plain; charset=utf-8"}
    response = jsonify({"error": message})
    response.status_code = status
    return response


def _wants_json() -> bool:
    return request.path.startswith(JSON_PREFIXES)


# Werkzeug's descriptions are long HTML-ish sentences; these say what happened in a line.
HTTP_MESSAGES = {
    400: "bad request",
    404: "not found",
    405: "this method is not allowed here",
    413: "the upload is too large; the limit is 20 MB",
}


def register(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return error_response(exc.status, exc.message)

    @app.errorhandler(HandError)
    def _hand_error(exc: HandError):
        return error_response(400, str(exc))

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        if not _wants_json():
            return exc
        status = exc.code or 500
        return error_response(status, HTTP_MESSAGES.get(status, exc.name.lower()))

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        # The traceback goes to the log for us; the user gets one line and no internals.
        log.exception("unhandled error on %s %s", request.method, request.path)
        if _wants_json():
            return error_response(500, "internal error; the details are in the server log")
        return "Internal error; the details are in the server log.", 500
