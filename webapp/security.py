"""Who may change things: the CSRF rule for mutating API calls and the optional table PIN.

CSRF: a mutating /api request must carry `X-Requested-With: fetch`. A page on another site
cannot add that header without a CORS preflight, which this app never answers, and when the
browser sends an Origin it must be this host. PIN: with TABLE_PIN set, a mutating request needs
the PIN in `X-Table-Pin` or a session cookie from POST /api/pin.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask, current_app, request, session

from .errors import ApiError

MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PIN_ROUTE = "/api/pin"
MAX_FAILURES = 10        # wrong PINs per client …
FAILURE_WINDOW = 300.0   # … in this many seconds, then 429 until the window passes


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
    return urlsplit(origin).netloc.lower() == request.host.lower()


def _pin_token(pin: str) -> str:
    """What the cookie holds: tied to the PIN, so changing TABLE_PIN logs every phone out."""
    return hmac.new(current_app.secret_key, pin.encode(), hashlib.sha256).hexdigest()


def pin_ok() -> bool:
    pin = current_app.config.get("TABLE_PIN")
    if not pin:
        return True
    given = request.headers.get("X-Table-Pin")
    if given is not None and hmac.compare_digest(given.encode(), pin.encode()):
        return True
    token = session.get("pin")
    return isinstance(token, str) and hmac.compare_digest(token, _pin_token(pin))


class FailureCounter:
    """Wrong-PIN attempts per client address, so a 4-digit PIN cannot be tried out in a minute."""

    def __init__(self):
        self._lock = threading.Lock()
        self._times: dict[str, list[float]] = {}

    def blocked(self, client: str) -> bool:
        with self._lock:
            recent = [t for t in self._times.get(client, []) if time.monotonic() - t < FAILURE_WINDOW]
            self._times[client] = recent
            return len(recent) >= MAX_FAILURES

    def record(self, client: str) -> None:
        with self._lock:
            self._times.setdefault(client, []).append(time.monotonic())


def check_request() -> None:
    """before_request: refuse a mutating /api call without the CSRF header, same origin and PIN."""
    if request.method not in MUTATING or not request.path.startswith("/api/"):
        return
    if request.headers.get("X-Requested-With") != "fetch":
        raise ApiError(403, "missing header X-Requested-With: fetch")
    if not _origin_ok():
        raise ApiError(403, "this request came from another site")
    if request.path != PIN_ROUTE and not pin_ok():
        raise ApiError(403, "this table needs its PIN")


def unlock(pin_given, failures: FailureCounter) -> None:
    """POST /api/pin: a right PIN sets the session cookie; wrong ones are counted."""
    pin = current_app.config.get("TABLE_PIN")
    if not pin:
        return
    client = request.remote_addr or "?"
    if failures.blocked(client):
        raise ApiError(429, "too many wrong PINs; wait a few minutes")
    if not isinstance(pin_given, str) or not hmac.compare_digest(pin_given.encode(), pin.encode()):
        failures.record(client)
        raise ApiError(403, "wrong PIN")
    session.permanent = True
    session["pin"] = _pin_token(pin)


def install(app: Flask) -> None:
    app.before_request(check_request)

    @app.after_request
    def _headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response
