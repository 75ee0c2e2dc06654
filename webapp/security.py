"""Who may change things: the CSRF rule for mutating API calls and the optional table PIN.

CSRF: a mutating /api request must carry `X-Requested-With: fetch`. A page on another site
cannot add that header without a CORS preflight, which this app never answers, and when the
browser sends an Origin it must be this scheme and host. Every request must name a host the
server serves (webapp.hosts: DNS rebinding). PIN: with TABLE_PIN set, a mutating request, and a
read of GUARDED_READS, needs the PIN in `X-Table-Pin` or a PIN session from POST /api/pin
(webapp.pin_sessions); every PIN offered is throttled per address (webapp.throttle).
"""
from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import sqlite3
from contextlib import closing
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask, current_app, g, request, session
from flask.sessions import SecureCookieSessionInterface

from engine.errors import short

from . import pin_sessions
from .db import connect
from .errors import ApiError
from .hosts import host_name, is_served
from .services import db, services

MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PIN_ROUTE = "/api/pin"
# Reads that need the PIN as a change does: the table camera's picture shows the people at the
# table, their hands and faces, to anyone on the same Wi-Fi. No CSRF header here (an <img> cannot
# send one; a read changes nothing). GET /api/camera stays open: it only says whether a camera is
# attached, and the live page picks its source from it before anyone is asked for the PIN.
GUARDED_READS = frozenset({"/api/camera/frame", "/api/camera/stream"})
# Pages load scripts and styles from /static only (no inline script, no eval); photos may be
# shown from blob: and data: URLs (a chosen file's preview); nothing may frame the app.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")


def secret_key(data_dir: Path) -> bytes:
    """The session-signing key, kept in the data folder so PIN cookies survive a restart."""
    path = data_dir / "secret_key"
    if not path.exists():
        tmp = path.with_suffix(f".{secrets.token_hex(4)}.tmp")
        tmp.write_bytes(secrets.token_bytes(32))
        tmp.chmod(0o600)
        tmp.replace(path)
    return path.read_bytes()


def _origin_ok() -> bool:
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    try:
        sent = urlsplit(origin)  # scheme too: http://host is not the origin of https://host
    except ValueError:  # "http://[" : no origin at all, so not this one
        return False
    return (sent.scheme.lower(), sent.netloc.lower()) == (request.scheme, request.host.lower())


def _pin_token(pin: str) -> str:
    """What the cookie holds: tied to the PIN, so changing TABLE_PIN logs every phone out."""
    return hmac.new(current_app.secret_key, pin.encode(), hashlib.sha256).hexdigest()


def _guess(given) -> bool:
    """Every PIN a client offers goes through here (header or POST /api/pin): while its address
    must wait, nothing is checked (429); a wrong PIN makes the next wait longer."""
    throttle = services().pin_throttle
    client = request.remote_addr or "?"
    wait = throttle.wait(client)
    if wait > 0:
        g.retry_after = math.ceil(wait)
        raise ApiError(429, f"too many wrong PINs; try again in {math.ceil(wait)} s", code="pin_wait",
                       seconds=math.ceil(wait))
    pin = current_app.config["TABLE_PIN"]
    if isinstance(given, str) and hmac.compare_digest(given.encode(), pin.encode()):
        throttle.succeeded(client)
        return True
    throttle.failed(client)
    return False


def _session_ok(pin: str) -> bool:
    return pin_sessions.is_open(db(), session.get("pin"), _pin_token(pin))


def pin_ok() -> bool:
    """The table is unlocked for this request: no PIN set, an open PIN session, or the right
    X-Table-Pin (throttled like any other guess)."""
    pin = current_app.config.get("TABLE_PIN")
    if not pin or _session_ok(pin):
        return True
    given = request.headers.get("X-Table-Pin")
    return given is not None and _guess(given)


def viewer_check():
    """For a guarded read that goes on (the camera's stream): a function saying whether its viewer
    may still watch. A viewer let in by a PIN session loses the picture when that session ends
    (DELETE /api/pin, or a new TABLE_PIN); it is asked of the database again, since the stream
    outlives its request. A viewer let in by X-Table-Pin, or a table without a PIN, keeps it."""
    pin = current_app.config.get("TABLE_PIN")
    token = session.get("pin")
    if not pin or not _session_ok(pin):
        return lambda: True
    path, tag = services().db_path, _pin_token(pin)

    def still_open() -> bool:
        try:
            with closing(connect(path)) as conn:
                return pin_sessions.is_open(conn, token, tag)
        except sqlite3.Error:
            return False  # a database that cannot say is no open session
    return still_open


def _need_pin() -> None:
    if not pin_ok():
        raise ApiError(403, "this table needs its PIN", code="pin_required")


def _guarded_read() -> bool:
    rule = request.url_rule  # the route matched (none for a 404: it shows nothing)
    return rule is not None and rule.rule in GUARDED_READS


def check_request() -> None:
    """before_request: refuse a mutating /api call without the CSRF header, same origin and PIN,
    and a guarded read without the PIN."""
    check_host()
    if _guarded_read():
        _need_pin()
        return
    if request.method not in MUTATING or not request.path.startswith("/api/"):
        return
    if request.headers.get("X-Requested-With") != "fetch":
        raise ApiError(403, "missing header X-Requested-With: fetch", code="csrf_header")
    if not _origin_ok():
        raise ApiError(403, "this request came from another site", code="cross_site")
    if request.path != PIN_ROUTE:
        _need_pin()


def check_host() -> None:
    """Only the names this server serves (webapp.hosts): a rebound DNS name is refused."""
    name = host_name(request.host)
    if not is_served(name, current_app.config["SERVED_HOSTS"]):
        raise ApiError(400, f"this server does not answer to the name {short(name)!r}; set MAHJONG_HOSTS "
                       "to serve it", code="host_not_served", host=name)


def unlock(pin_given) -> None:
    """POST /api/pin: a right PIN opens a PIN session (its token in the cookie)."""
    pin = current_app.config.get("TABLE_PIN")
    if not pin:
        return
    if not _guess(pin_given):
        raise ApiError(403, "wrong PIN", code="pin_wrong")
    session.permanent = True
    session["pin"] = pin_sessions.open_session(db(), _pin_token(pin))


def lock() -> None:
    """DELETE /api/pin: the session ends on the server too, so a copy of the cookie is worthless."""
    pin_sessions.close_session(db(), session.pop("pin", None))


class TableSessions(SecureCookieSessionInterface):
    """Flask's signed-cookie session, whose cookie is Secure whenever the request came over HTTPS
    (directly, or through a proxy trusted with MAHJONG_PROXIES)."""

    def get_cookie_secure(self, app) -> bool:
        return bool(app.config.get("SESSION_COOKIE_SECURE")) or request.is_secure


def install(app: Flask) -> None:
    app.session_interface = TableSessions()
    app.before_request(check_request)

    @app.after_request
    def _headers(response):
        if response.status_code == 429 and "retry_after" in g:
            response.headers["Retry-After"] = str(g.retry_after)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("Content-Security-Policy", CSP)
        return response
