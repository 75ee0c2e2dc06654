"""SQLite storage: connections, ordered migrations and short write transactions.

WAL lets readers run beside the one writer; synchronous=FULL makes a committed hand survive a
power cut (a Raspberry Pi beside a table gets unplugged). Each request opens its own connection
(sqlite3 connections are not shared between threads).
"""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path

from .disk import refused_write

# Ordered; entry i brings the schema from version i to i+1. Never edit a shipped entry: append.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE games (
        id           TEXT PRIMARY KEY,
        players      TEXT NOT NULL,               -- JSON list of four names
        rules        TEXT NOT NULL,
        base         NUMERIC NOT NULL CHECK (base >= 0),
        per_tai      NUMERIC NOT NULL CHECK (per_tai >= 0),
        first_dealer INTEGER NOT NULL CHECK (first_dealer BETWEEN 0 AND 3),
        version      INTEGER NOT NULL DEFAULT 1,
        created_at   TEXT NOT NULL
    );
    CREATE TABLE hands (
        game_id       TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        n             INTEGER NOT NULL CHECK (n >= 1),
        type          TEXT NOT NULL CHECK (type IN ('win', 'draw')),
        winner        INTEGER CHECK (winner BETWEEN 0 AND 3),
        discarder     INTEGER CHECK (discarder BETWEEN 0 AND 3),
        tai           INTEGER NOT NULL DEFAULT 0 CHECK (tai >= 0),
        counting_kong INTEGER NOT NULL DEFAULT 0,
        photo_id      TEXT,
        scored        TEXT,                       -- JSON engine result or NULL
        created_at    TEXT NOT NULL,
        PRIMARY KEY (game_id, n)
    );
    """,
    # phones unlocked with the table PIN (webapp.pin_sessions): revocable by DELETE /api/pin
    """
    CREATE TABLE pin_sessions (
        token_hash TEXT PRIMARY KEY,              -- SHA-256 of the cookie's token
        pin_tag    TEXT NOT NULL,                 -- HMAC of the PIN it was opened under
        created_at REAL NOT NULL
    );
    """,
    # a game's own number of wind rounds (1 東風圈 … 4 四圈); NULL: its rule table's [flow] rounds, so
    # the games stored before it settle as they did. IN, not BETWEEN: 2.5 is between 1 and 4
    """
    ALTER TABLE games ADD COLUMN rounds INTEGER CHECK (rounds IN (1, 2, 3, 4));
    """,
]


def connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves, so a transaction is exactly our block
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA temp_store = MEMORY")  # a read never needs disk space for a sort
    return conn


def hold_open(path: Path) -> sqlite3.Connection:
    """A connection kept for the app's whole life. With it open, no request's connection is the
    last one to close, so none checkpoints and deletes the WAL and its index on the way out; on a
    full disk the next read could not create them again, and every read would fail."""
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("SELECT version FROM schema_version").fetchall()  # opens the WAL and its index
    return conn


@contextmanager
def write_transaction(conn: sqlite3.Connection):
    """BEGIN IMMEDIATE … COMMIT: takes the write lock up front, so read-check-write is atomic.

    A full disk (at any step, COMMIT included) rolls back and raises disk.disk_full (507), a
    read-only database disk.read_only (507), never a 500."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        refused = refused_write(exc)
        if refused is None:
            raise
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise refused from None


def split_statements(script: str) -> list[str]:
    """A script's statements, split where SQLite says a statement is complete."""
    statements, current = [], ""
    for piece in script.split(";"):
        current += piece + ";"
        if sqlite3.complete_statement(current):  # false while the ';' sits inside a string
            if current.strip(" \t\r\n;"):
                statements.append(current.strip())
            current = ""
    if current.strip(" \t\r\n;"):
        raise ValueError(f"incomplete SQL statement in a migration: {current.strip()[:60]!r}")
    return statements


DAMAGED = ("the games in it are untouched: restore the latest backup (README, 'Where the data lives') or "
           "set the row to the version the file has")


def schema_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    if row is None:
        return 0
    version = row[0]
    if not isinstance(version, int) or version < 0:  # 'x', 1.5, -1: a damaged row (SQLite gives no bool)
        raise RuntimeError(f"the database's schema_version row is damaged (it holds {version!r}, not a "
                           f"version number); {DAMAGED}")
    return version


def migrate(conn: sqlite3.Connection, migrations: list[str] = MIGRATIONS) -> int:
    """Apply the migrations this database lacks, each in its own transaction; returns the version.

    executescript() would commit halfway, so statements run one by one inside BEGIN/COMMIT: a
    failed migration leaves the database at the previous version.
    """
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    with write_transaction(conn):
        if conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 0:
            # no row beside the app's tables is a damaged file, not a new one: version 0 would run
            # the first migration again ("table games already exists") and the app never started
            if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'").fetchone():
                raise RuntimeError(f"the database holds games but its schema_version row is missing; {DAMAGED}")
            conn.execute("INSERT INTO schema_version (version) VALUES (0)")
    while True:
        with write_transaction(conn):
            version = schema_version(conn)  # read under the write lock: two processes may start at once
            if version > len(migrations):
                raise RuntimeError(f"the database is schema version {version}, newer than this app "
                                   f"({len(migrations)}); update the app")
            if version == len(migrations):
                return version
            for statement in split_statements(migrations[version]):
                conn.execute(statement)
            conn.execute("UPDATE schema_version SET version = ?", (version + 1,))


def open_database(path: Path) -> None:
    """Create or upgrade the database file and switch it to WAL (a property of the file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = connect(path)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        migrate(conn)
    finally:
        conn.close()
