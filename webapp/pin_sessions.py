"""Phones unlocked with the table PIN, kept server-side so that DELETE /api/pin really ends one.

A signed cookie alone cannot be taken back: a copy made before "lock" kept working. The cookie
now carries a random token; the database keeps its SHA-256 (never the token itself) with a tag of
the PIN it was opened under, so changing TABLE_PIN still logs every phone out, and a restart
does not.
"""
from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time

from .db import write_transaction

MAX_AGE = 30 * 24 * 3600.0  # as long as the cookie (PERMANENT_SESSION_LIFETIME)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def open_session(conn: sqlite3.Connection, pin_tag: str) -> str:
    token = secrets.token_urlsafe(32)
    with write_transaction(conn):
        conn.execute("DELETE FROM pin_sessions WHERE created_at < ? "
                     "OR typeof(created_at) NOT IN ('integer', 'real')", (time.time() - MAX_AGE,))
        conn.execute("INSERT INTO pin_sessions (token_hash, pin_tag, created_at) VALUES (?, ?, ?)",
                     (_digest(token), pin_tag, time.time()))
    return token


def is_open(conn: sqlite3.Connection, token, pin_tag: str) -> bool:
    if not isinstance(token, str) or len(token) > 100:
        return False
    row = conn.execute("SELECT pin_tag, created_at FROM pin_sessions WHERE token_hash = ?",
                       (_digest(token),)).fetchone()
    if row is None or row["pin_tag"] != pin_tag:
        return False
    created = row["created_at"]  # a damaged row (not a number) is a session no one can be sure of
    return isinstance(created, (int, float)) and time.time() - created < MAX_AGE


def close_session(conn: sqlite3.Connection, token) -> None:
    if isinstance(token, str):
        with write_transaction(conn):
            conn.execute("DELETE FROM pin_sessions WHERE token_hash = ?", (_digest(token),))
