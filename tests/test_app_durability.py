"""The database survives a server killed mid-write, and migrations are atomic."""
from __future__ import annotations

import hashlib
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from webapp import db

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base: str, method: str, path: str, body: dict | None = None, timeout: float = 5.0):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json", "X-Requested-With": "fetch"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, json.loads(r.read())


class Server:
    def __init__(self, data_dir: Path):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, HOST="127.0.0.1", PORT=str(self.port), MAHJONG_DATA=str(data_dir))
        self.env.pop("TABLE_PIN", None)
        self.process = None

    def start(self):
        self.process = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=self.env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if call(self.base, "GET", "/api/health", timeout=1)[0] == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("the server did not start")

    def kill(self):
        self.process.kill()  # SIGKILL: no clean shutdown, like a pulled plug for the process
        self.process.wait()


def test_hands_survive_kills_at_random_moments(tmp_path):
    server = Server(tmp_path / "data")
    server.start()
    try:
        _, game = call(server.base, "POST", "/api/games", {"players": list("ABCD"), "first_dealer": 0})
        acknowledged, attempts, stop = [], [0], threading.Event()

        def poster():
            k = 0
            while not stop.is_set():
                k += 1
                marker = hashlib.sha256(str(k).encode()).hexdigest()
                # draws and dealer wins only: the game never ends however many land
                hand = ({"type": "draw"} if k % 2 else {"type": "win", "winner": 0, "discarder": k % 3 + 1, "tai": k % 5})
                attempts[0] += 1
                try:
                    status, _ = call(server.base, "POST", f"/api/games/{game['id']}/hands", dict(hand, photo_id=marker))
                    if 200 <= status < 300:
                        acknowledged.append(marker)
                except (OSError, urllib.error.URLError, ValueError):
                    time.sleep(0.02)  # the server is down or died mid-answer: try the next one

        thread = threading.Thread(target=poster)
        thread.start()
        rng = random.Random(7)
        for _ in range(5):
            time.sleep(rng.uniform(0.3, 1.2))
            server.kill()
            server.start()
        time.sleep(0.5)
        stop.set()
        thread.join()
        _, final = call(server.base, "GET", f"/api/games/{game['id']}")
    finally:
        server.kill()
    stored = [h["photo_id"] for h in final["hands"]]
    print(f"{len(acknowledged)} acknowledged of {attempts[0]} attempts, {len(stored)} stored")
    assert len(acknowledged) > 10, "too few hands were posted to test anything"
    assert set(acknowledged) <= set(stored)
    assert len(stored) <= attempts[0] and len(set(stored)) == len(stored)
    assert [h["n"] for h in final["hands"]] == list(range(1, len(stored) + 1))
    conn = sqlite3.connect(tmp_path / "data" / "mahjong.sqlite3")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_migrations_run_once_and_in_order(tmp_path):
    path = tmp_path / "m.sqlite3"
    steps = ["CREATE TABLE a (x INTEGER);", "ALTER TABLE a ADD COLUMN y TEXT; CREATE INDEX a_y ON a (y);"]
    conn = db.connect(path)
    assert db.migrate(conn, steps[:1]) == 1
    conn.execute("INSERT INTO a (x) VALUES (1)")
    assert db.migrate(conn, steps) == 2 and db.migrate(conn, steps) == 2
    assert [r[1] for r in conn.execute("PRAGMA table_info(a)")] == ["x", "y"]
    with pytest.raises(RuntimeError, match="newer than this app"):
        db.migrate(conn, steps[:1])


def test_a_failing_migration_leaves_the_previous_version(tmp_path):
    conn = db.connect(tmp_path / "m.sqlite3")
    db.migrate(conn, ["CREATE TABLE a (x INTEGER);"])
    broken = ["CREATE TABLE a (x INTEGER);", "CREATE TABLE b (x INTEGER); CREATE TABLE a (y INTEGER);"]
    with pytest.raises(sqlite3.OperationalError):
        db.migrate(conn, broken)
    assert db.schema_version(conn) == 1
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'b'").fetchone() is None


def test_the_app_database_has_the_schema_and_foreign_keys(tmp_path):
    from tests.app_support import make_app
    make_app(tmp_path)
    conn = db.connect(tmp_path / "data" / "mahjong.sqlite3")
    assert db.schema_version(conn) == len(db.MIGRATIONS)
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO hands (game_id, n, type, created_at) VALUES ('nope', 1, 'draw', 'now')")


def test_a_database_of_the_previous_schema_migrates_and_keeps_its_games(tmp_path):
    """A file written before games chose their rounds (schema 2): the column is added, each game
    reads as it did (its table's four rounds) and new games store their own."""
    from tests.app_support import FETCH, make_app
    path = tmp_path / "data" / "mahjong.sqlite3"
    path.parent.mkdir()
    conn = db.connect(path)
    assert db.migrate(conn, db.MIGRATIONS[:2]) == 2
    # the rows as the app of schema 2 stored them: no rounds column
    conn.execute("INSERT INTO games (id, players, rules, base, per_tai, first_dealer, version, created_at) "
                 "VALUES ('0123456789ab', ?, 'tw-standard', 100, 20, 1, 3, '2026-01-01T00:00:00+00:00')",
                 (json.dumps(["阿明", "小華", "阿強", "阿珍"], ensure_ascii=False),))
    for n, winner in enumerate((2, 3), 1):  # seat 1 deals, then seat 2; 0 pays 100 + 2 台 × 20 each
        conn.execute("INSERT INTO hands (game_id, n, type, winner, discarder, tai, created_at) "
                     "VALUES ('0123456789ab', ?, 'win', ?, 0, 2, '2026-01-01T00:01:00+00:00')", (n, winner))
    conn.close()

    c = make_app(tmp_path).test_client()
    conn = db.connect(path)
    assert db.schema_version(conn) == len(db.MIGRATIONS) == 3
    game = c.get("/api/games/0123456789ab").get_json()
    assert game["rounds"] is None and game["state"]["rounds"] == 4 and game["version"] == 3
    assert [h["winner"] for h in game["hands"]] == [2, 3] and game["state"]["dealer"] == 3
    assert game["totals"] == [-280, 0, 140, 140] and game["created_at"] == "2026-01-01T00:00:00+00:00"
    assert [(x["id"], x["rounds"], x["hand_count"]) for x in c.get("/api/games").get_json()] == \
        [("0123456789ab", None, 2)]
    # the old game takes hands as before; a new one keeps its own rounds
    r = c.post("/api/games/0123456789ab/hands", json={"type": "draw", "version": 3}, headers=FETCH)
    assert r.status_code == 201 and r.get_json()["state"]["streak"] == 1
    r = c.post("/api/games", json={"players": list("ABCD"), "rounds": 2}, headers=FETCH)
    assert r.status_code == 201 and c.get(f"/api/games/{r.get_json()['id']}").get_json()["rounds"] == 2
    # the column takes 1-4 or NULL and nothing else, whatever writes it
    for bad in (0, 5, 2.5, "x"):
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("UPDATE games SET rounds = ? WHERE id = '0123456789ab'", (bad,))
    # written past the CHECK (a damaged file): that game says so, the others still list
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute("UPDATE games SET rounds = 2.5 WHERE id = '0123456789ab'")
    conn.close()
    assert c.get("/api/games/0123456789ab").get_json()["code"] == "game_unreadable"
    assert sorted("error" in x for x in c.get("/api/games").get_json()) == [False, True]
