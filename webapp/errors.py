"""One error type for the API and the handlers that turn every failure into JSON for /api/*.

Errors are raised where they are detected (ApiError, HandError, ImageError) and shown here, so
routes never build error responses themselves and a client never sees a traceback.

Every error carries a stable `code` and its `params`; the answer is
`{"error": <message in the request's language>, "code": ..., "params": {...}}`, the language taken
from `Accept-Language` (English when it names neither language we have). The wording per code
lives in webapp/messages/<lang>.json (templates with `{param}` placeholders; a param that is an
error itself, `{"code", "params"}`, is rendered with its own template). The pages get the same
catalogs from GET /api/messages/<lang>.
"""
from __future__ import annotations

import logging
import re

from flask import Flask, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from engine.errors import HandError, clean_params, cut

from .wording import DEFAULT_LANG, LANGS, catalog, render

log = logging.getLogger("webapp")

# These paths are read by scripts, not people: they always answer JSON.
JSON_PREFIXES = ("/api/", "/photos/")


class ApiError(Exception):
    """A request we refuse: `message` is the English text, `code` and `params` translate it."""

    def __init__(self, status: int, message: str, code: str = "bad_request", **params):
        message = cut(str(message))
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.params = clean_params(params)

    @classmethod
    def from_error(cls, status: int, exc) -> "ApiError":
        """The same code, params and message as a HandError/ImageError, answered with `status`."""
        return cls(status, str(exc), getattr(exc, "code", "bad_request"), **getattr(exc, "params", {}))


def request_lang() -> str:
    """The first language of Accept-Language (by q) that we have; English otherwise. A page (not
    /api/) follows the language the pages chose (the `lang` cookie static/js/i18n.js sets) first."""
    if not _wants_json() and request.cookies.get("lang") in LANGS:
        return request.cookies["lang"]
    header = request.headers.get("Accept-Language", "")
    ranked = []
    for i, part in enumerate(header.split(",")):
        tag, _, rest = part.strip().partition(";")
        q = 1.0
        m = re.search(r"q=([0-9.]+)", rest)
        if m:
            try:
                q = float(m.group(1))
            except ValueError:
                q = 0.0
        base = tag.strip().lower().split("-")[0]
        if base in LANGS and q > 0:
            ranked.append((-q, i, base))
    return min(ranked)[2] if ranked else DEFAULT_LANG


def localize_reason(result: dict) -> dict:
    """An engine answer whose `reason` (a hand that does not win) is put in the request's language."""
    if isinstance(result, dict) and result.get("reason_code"):
        result["reason"] = render(result["reason_code"], result.get("reason_params") or {}, request_lang(),
                                  result["reason"])
    return result


# a page's error links back to the list it came from (the key words the link in the page's language)
BACK_LINKS = (("/games/", "/games", "nav_games"),)


def error_response(status: int, message: str, code: str = "bad_request", params: dict | None = None):
    params = params or {}
    text = render(code, params, request_lang(), message)
    if not _wants_json():  # a page's error: the pages' header and a way back, never a traceback
        return _error_page(text, status)
    response = jsonify({"error": text, "code": code, "params": params})
    response.status_code = status
    return response


def _error_page(text: str, status: int):
    """The error as a page like the others (its header, a link back); plain text where the
    templates are not installed or the page itself fails (an error while showing an error)."""
    back = next(((href, key) for prefix, href, key in BACK_LINKS if request.path.startswith(prefix)), (None, None))
    try:
        page = render_template("error.html", message=text, back=back[0], back_key=back[1],
                               pin_required=bool(current_app.config.get("TABLE_PIN")))
    except Exception:  # noqa: BLE001 - whatever broke, the player still reads the message
        log.exception("cannot render the error page")
        return text, status, {"Content-Type": "text/plain; charset=utf-8"}
    return page, status, {"Content-Type": "text/html; charset=utf-8"}


def _form_field_too_large() -> bool:
    """A 413 for a body under the upload limit came from Werkzeug's form caps (a field's size or the
    number of parts, which it does not tell apart), not the upload's."""
    length, limit = request.content_length, current_app.config.get("MAX_CONTENT_LENGTH")
    return bool(length and limit and length <= limit and current_app.config.get("MAX_FORM_MEMORY_SIZE"))


def _wants_json() -> bool:
    return request.path.startswith(JSON_PREFIXES)


# Werkzeug's descriptions are long HTML-ish sentences; these say what happened in a line.
HTTP_MESSAGES = {
    400: ("bad request", "http_bad_request"),
    404: ("not found", "http_not_found"),
    405: ("this method is not allowed here", "http_method_not_allowed"),
    413: ("the upload is too large; the limit is 20 MB", "http_too_large"),
}


def register(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return error_response(exc.status, exc.message, exc.code, exc.params)

    @app.errorhandler(HandError)
    def _hand_error(exc: HandError):
        return error_response(400, exc.message, exc.code, exc.params)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        status = exc.code or 500
        message, code = HTTP_MESSAGES.get(status, (exc.name.lower(), "http_error"))
        if status == 413 and _form_field_too_large():
            kb, parts = current_app.config["MAX_FORM_MEMORY_SIZE"] // 1024, current_app.config["MAX_FORM_PARTS"]
            return error_response(413, f"the form is too large: at most {parts} fields, each at most {kb} KB "
                                  "(files: 20 MB)", "form_field_too_large", {"kb": kb, "parts": parts})
        if not _wants_json():
            if status in HTTP_MESSAGES:
                return error_response(status, message, code, {"status": status, "name": exc.name.lower()})
            return exc
        return error_response(status, message, code, {"status": status, "name": exc.name.lower()})

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        # The traceback goes to the log for us; the user gets one line and no internals.
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(500, "internal error; the details are in the server log", "internal_error")

    @app.get("/api/messages/<lang>")
    def _messages(lang: str):
        """The error wording per code for the pages (api.js shows it)."""
        if lang not in LANGS:
            raise ApiError(404, f"no messages in language {lang!r}; known: {', '.join(LANGS)}",
                           "unknown_language", lang=lang, known=", ".join(LANGS))
        response = jsonify(catalog(lang))
        response.headers["Cache-Control"] = "no-cache"
        return response
