"""The second outside probe's reproducers (2026-12-06), each as a test: lone UTF-16 surrogates in
JSON, a malformed Origin header, a game longer than an import takes, and the list of games
recomputing every hand on each call."""
from __future__ import annotations

import doctest
import io

import pytest

from tests.app_support import FETCH, FakeRecognizer, client, make_app, row  # noqa: F401  (client: fixture)

JSON = dict(FETCH, **{"Content-Type": "application/json"})
LONE = '"\\ud800"'  # JSON text of a string holding half a surrogate pair: valid JSON, no text
PLAYERS = ["A", "B", "C", "D"]


def _game(c) -> dict:
    r = c.post("/api/games", json={"players": PLAYERS}, headers=FETCH)
    assert r.status_code == 201
    return r.get_json()


def test_the_modules_examples_hold():
    import webapp.jsonsafe
    import webapp.summary_cache

    assert doctest.testmod(webapp.jsonsafe).failed == 0
    assert doctest.testmod(webapp.summary_cache).failed == 0


# 1. a lone surrogate anywhere in a body: 400 in the asker's language, nothing stored
@pytest.mark.parametrize("route, body", [
    ("/api/score", '{"concealed": ' + LONE + ', "winning_tile": "1m"}'),
    ("/api/waits", '{"concealed": "123m", "rules": ' + LONE + '}'),
    ("/api/score", '{"concealed": "EEESSSWWWNN123m55p", "winning_tile": "5p", ' + LONE + ': 1}'),
    ("/api/games", '{"players": ["a", "b", "c", ' + LONE + ']}'),
    ("/api/games", '{"players": ["a", "b", "c", "d"], "rules": ' + LONE + '}'),
    ("/api/games/import", '{"format": ' + LONE + '}'),
    ("/api/pin", '{"pin": ' + LONE + '}'),
])
def test_a_lone_surrogate_is_a_400_not_a_500(client, route, body):
    r = client.post(route, data=body.encode(), headers=JSON)
    assert r.status_code == 400 and r.get_json()["code"] == "body_not_utf8", r.get_json()
    zh = client.post(route, data=body.encode(), headers=dict(JSON, **{"Accept-Language": "zh-TW"}))
    assert zh.get_json()["error"] == "收到的資料不是 UTF-8 文字"
    assert client.get("/api/games").get_json() == []


def test_a_lone_surrogate_in_a_hand_leaves_the_game_as_it_was(client):
    g = _game(client)
    body = '{"type": "win", "winner": 0, "discarder": 1, "tai": 3, "scored": {"a": ' + LONE + '}}'
    r = client.post(f"/api/games/{g['id']}/hands", data=body.encode(), headers=JSON)
    assert r.status_code == 400 and r.get_json()["code"] == "body_not_utf8"
    assert client.get(f"/api/games/{g['id']}").get_json() == g


def test_a_pair_of_surrogates_is_text(client):
    """An emoji escaped as its UTF-16 pair ("\\ud83c\\udc04", 🀄) is one character, not a lone half."""
    r = client.post("/api/games", data='{"players": ["a", "b", "c", "\\ud83c\\udc04"]}'.encode(), headers=JSON)
    assert r.status_code == 201 and r.get_json()["players"][3] == "🀄"


def test_a_lone_surrogate_in_a_form_field_is_a_400(tmp_path):
    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer(row(list(range(16))))).test_client()
    for field, value in (("melds", '[{"type": ' + LONE + '}]'), ("flowers", "[" + LONE + "]")):
        r = c.post("/api/live", data={field: value, "frame": (io.BytesIO(b"x"), "f.jpg")}, headers=FETCH)
        assert r.status_code == 400 and r.get_json()["code"] == "form_field_json", (field, r.get_json())


# 2. an Origin no URL parser takes is no origin of ours
@pytest.mark.parametrize("origin", ["http://[", "http://[::1", "http://]"])
def test_a_malformed_origin_is_refused_not_a_500(client, origin):
    r = client.post("/api/games", json={"players": PLAYERS}, headers=dict(FETCH, Origin=origin))
    assert r.status_code == 403 and r.get_json()["code"] == "cross_site"
    assert client.get("/api/games").get_json() == []


# 3. a game takes no more hands than an import does, so every export imports again
def test_a_game_takes_no_more_hands_than_an_import(client, monkeypatch):
    import webapp.export
    import webapp.storage

    monkeypatch.setattr(webapp.storage, "MAX_HANDS", 3)
    monkeypatch.setattr(webapp.export, "MAX_HANDS", 3)
    g = _game(client)
    for _ in range(3):
        r = client.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
        assert r.status_code == 201
    full = client.get(f"/api/games/{g['id']}").get_json()
    r = client.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "too_many_hands"
    assert client.get(f"/api/games/{g['id']}").get_json() == full  # refused: nothing changed
    exported = client.get(f"/api/games/{g['id']}/export.json").get_data()
    again = client.post("/api/games/import", data=exported, headers=JSON)
    assert again.status_code == 201 and len(again.get_json()["hands"]) == 3


# 4. the list of games: each game's line made once per change, not on every call
def test_the_list_recomputes_only_the_games_that_changed(client, monkeypatch):
    import webapp.storage

    a, b = _game(client), _game(client)
    first = client.get("/api/games").get_json()
    made = []
    real = webapp.storage._summary
    monkeypatch.setattr(webapp.storage, "_summary", lambda conn, game_id: made.append(game_id) or real(conn, game_id))
    assert client.get("/api/games").get_json() == first and made == []  # nothing changed: no game recomputed
    client.post(f"/api/games/{a['id']}/hands", json={"type": "draw"}, headers=FETCH)
    lines = {line["id"]: line for line in client.get("/api/games").get_json()}
    assert made == [a["id"]] and lines[a["id"]]["hand_count"] == 1 and lines[b["id"]]["hand_count"] == 0


def test_a_restored_game_with_the_same_version_is_not_shown_from_an_old_line(tmp_path):
    """A data folder restored from a backup can bring a version number back with other hands."""
    import sqlite3

    app = make_app(tmp_path)
    c = app.test_client()
    g = _game(c)
    c.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
    assert c.get("/api/games").get_json()[0]["hand_count"] == 1
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:  # the backup's game: version 2, no hand
        conn.execute("DELETE FROM hands")
    assert c.get("/api/games").get_json()[0]["hand_count"] == 0


# 5. a corrected photo labels each tile once: one box copied 200 times taught adapt that photo's
# one look as its label everywhere (the probe's adapt replaced the classifier from it)
def test_overlapping_neighbours_are_two_tiles_but_one_box_twice_is_refused(tmp_path):
    from tests.app_support import fixture_photo

    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer(row([0, 1]))).test_client()
    r = c.post("/api/recognize", data={"photo": (io.BytesIO(fixture_photo()), "hand.jpg")}, headers=FETCH)
    pid = r.get_json()["photo_id"]
    tilted = [{"tile": "1m", "box": [0, 0, 50, 66]}, {"tile": "2m", "box": [30, 4, 80, 70]}]  # IoU 0.23
    r = c.post("/api/examples", json={"photo_id": pid, "tiles": tilted}, headers=FETCH)
    assert r.status_code == 200 and r.get_json() == {"count": 1}
    twice = [{"tile": "1m", "box": [10, 10, 60, 80]}] * 200
    r = c.post("/api/examples", json={"photo_id": pid, "tiles": twice},
               headers=dict(FETCH, **{"Accept-Language": "zh"}))
    assert r.status_code == 400 and r.get_json()["code"] == "example_same_tile"
    assert r.get_json()["error"] == "第 1 張和第 2 張牌框在同一個位置：一張牌標了兩次"
    assert c.get("/api/examples").get_json()["count"] == 1  # the earlier correction stays


# --- the probe's second round: damage behind the server's back, and the photo folder ---------------

def _photo_app(tmp_path, **config):
    from tests.app_support import fixture_photo

    fake = FakeRecognizer(row([0, 1, 2]))
    app = make_app(tmp_path, RECOGNIZER=fake, **config)
    c = app.test_client()
    r = c.post("/api/recognize", data={"photo": (io.BytesIO(fixture_photo()), "hand.jpg")}, headers=FETCH)
    assert r.status_code == 200
    return c, fake, r.get_json()["photo_id"], tmp_path / "data" / "photos"


@pytest.mark.parametrize("damage", [None, b"garbage{", b'{"tiles": 5}', b"\xff\xfe"])
def test_the_annotated_photo_reads_the_photo_again_without_a_usable_reading(tmp_path, damage):
    c, fake, pid, photos = _photo_app(tmp_path)
    reading = photos / f"{pid}.json"
    reading.unlink() if damage is None else reading.write_bytes(damage)
    r = c.get(f"/photos/{pid}/annotated")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
    assert len(fake.shapes) == 2  # read once on upload, once again here
    assert len(__import__("json").loads(reading.read_text())["tiles"]) == 3  # and kept again


def test_a_damaged_thumbnail_is_made_again(tmp_path):
    c, _, pid, photos = _photo_app(tmp_path)
    thumb = photos / "thumbs" / f"{pid}.jpg"
    thumb.parent.mkdir(exist_ok=True)
    thumb.write_bytes(b"not a jpeg")
    r = c.get(f"/photos/{pid}/thumb")
    assert r.status_code == 200 and r.data[:2] == b"\xff\xd8" and thumb.read_bytes()[:2] == b"\xff\xd8"
    thumb.unlink()
    thumb.mkdir()  # a folder where the file goes: the thumbnail is still answered
    r = c.get(f"/photos/{pid}/thumb")
    assert r.status_code == 200 and r.data[:2] == b"\xff\xd8"


def test_a_full_photo_folder_counts_again_once_photos_are_deleted(tmp_path):
    from tests.app_support import fixture_photo

    photo = fixture_photo()
    c, fake, pid, photos = _photo_app(tmp_path, PHOTO_QUOTA_MB=len(photo) * 1.5 / 2**20)
    other = {"photo": (io.BytesIO(photo + b"\0"), "b.jpg")}
    r = c.post("/api/recognize", data=other, headers=FETCH)
    assert r.status_code == 507 and r.get_json()["code"] == "photo_quota_full"
    assert 0 < r.get_json()["params"]["quota_mb"] < 1  # a small quota is not called "0 MB"
    assert len(fake.shapes) == 1  # refused before the photo was read
    for f in photos.glob(f"{pid}*"):  # what the message asks: delete old photos
        f.unlink()
    r = c.post("/api/recognize", data={"photo": (io.BytesIO(photo + b"\0"), "b.jpg")}, headers=FETCH)
    assert r.status_code == 200


@pytest.mark.parametrize("players", ["not json[", "true", "null", "5"])
def test_a_game_with_unreadable_players_is_a_400_and_the_others_still_list(tmp_path, players):
    import sqlite3

    app = make_app(tmp_path)
    c = app.test_client()
    good, bad = _game(c), _game(c)
    assert len(c.get("/api/games").get_json()) == 2  # listed once before the damage: its line is kept
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:
        conn.execute("UPDATE games SET players = ? WHERE id = ?", (players, bad["id"]))
    zh = {"Accept-Language": "zh-TW"}
    for path in (f"/api/games/{bad['id']}", f"/api/games/{bad['id']}/export.csv",
                 f"/api/games/{bad['id']}/export.json"):
        r = c.get(path, headers=zh)
        assert r.status_code == 400 and r.get_json() == {"code": "game_unreadable", "error": "這局無法顯示",
                                                          "params": {}}, path
    lines = {line["id"]: line for line in c.get("/api/games", headers=zh).get_json()}
    assert lines[good["id"]]["players"] == PLAYERS
    assert lines[bad["id"]]["code"] == "game_unreadable" and lines[bad["id"]]["error"] == "這局無法顯示"
    assert c.get("/api/games").get_json()[0]["error"] == "this game cannot be shown"  # worded per asker


def test_hands_numbered_with_a_gap_lose_none_when_a_hand_is_added(tmp_path):
    import sqlite3

    app = make_app(tmp_path)
    c = app.test_client()
    g = _game(c)
    for tai in (1, 2, 3):
        c.post(f"/api/games/{g['id']}/hands", json={"type": "win", "winner": 1, "discarder": 2, "tai": tai},
               headers=FETCH)
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:
        conn.execute("UPDATE hands SET n = 7 WHERE game_id = ? AND n = 3", (g["id"],))
    r = c.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
    assert r.status_code == 201
    assert [h["hand_tai"] for h in r.get_json()["hands"]][:3] == [1, 2, 3] and len(r.get_json()["hands"]) == 4
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:
        stored = conn.execute("SELECT n FROM hands WHERE game_id = ? ORDER BY n", (g["id"],)).fetchall()
    assert [n for (n,) in stored] == [1, 2, 3, 4]


def test_a_damaged_pin_session_is_locked_not_a_500(tmp_path):
    import sqlite3

    app = make_app(tmp_path, TABLE_PIN="4821")
    c = app.test_client()
    assert c.post("/api/pin", json={"pin": "4821"}, headers=FETCH).status_code == 200
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:
        conn.execute("UPDATE pin_sessions SET created_at = 'x'")
    assert c.get("/api/pin").get_json() == {"required": True, "ok": False}
    assert c.post("/api/games", json={"players": PLAYERS}, headers=FETCH).status_code == 403
    assert c.post("/api/pin", json={"pin": "4821"}, headers=FETCH).status_code == 200  # and the row is pruned
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM pin_sessions WHERE created_at = 'x'").fetchone()[0] == 0


def test_a_stored_hand_of_no_known_type_makes_its_game_unreadable_not_a_win(tmp_path):
    import sqlite3

    app = make_app(tmp_path)
    c = app.test_client()
    g = _game(c)
    c.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:  # past the schema's CHECK
        conn.execute("PRAGMA ignore_check_constraints = ON")
        conn.execute("UPDATE hands SET type = 'bogus' WHERE game_id = ?", (g["id"],))
    r = c.get(f"/api/games/{g['id']}")
    assert r.status_code == 400 and r.get_json()["code"] == "game_unreadable"
    assert c.get("/api/games").get_json()[0]["code"] == "game_unreadable"


# the probe's third round: a box of a 400-digit integer, and the adapt log while adapt runs
def test_a_box_no_float_can_hold_is_a_400(tmp_path):
    c, _, pid, _ = _photo_app(tmp_path)
    box = [0, 0, int("1" + "0" * 400), 20]
    r = c.post("/api/examples", json={"photo_id": pid, "tiles": [{"tile": "1m", "box": box}]}, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "example_box"


def test_the_adapt_log_shows_while_adapt_runs(tmp_path, monkeypatch):
    import sys
    import time

    from tests.app_support import fixture_photo

    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)  # as a service starts the app

    models = tmp_path / "models"
    models.mkdir()
    (models / "classifier.pt").write_bytes(b"weights")
    # a child that prints, then works on: its line must reach the log before it ends
    command = [sys.executable, "-c", "import time; print('adapting'); time.sleep(20)"]
    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer(row([0, 1])), ADAPT_COMMAND=command,
                 TRAINING_MISSING=list).test_client()
    pid = c.post("/api/recognize", data={"photo": (io.BytesIO(fixture_photo()), "a.jpg")},
                 headers=FETCH).get_json()["photo_id"]
    c.post("/api/examples", json={"photo_id": pid, "tiles": [{"tile": "1m", "box": [0, 0, 50, 60]}]}, headers=FETCH)
    assert c.post("/api/adapt", headers=FETCH).status_code == 202
    try:
        deadline = time.time() + 10
        while "adapting" not in c.get("/api/adapt").get_json()["log_tail"] and time.time() < deadline:
            time.sleep(0.1)
        status = c.get("/api/adapt").get_json()
        assert status["status"] == "running" and "adapting" in status["log_tail"]
    finally:
        c.application.extensions["mahjong"].adapt._process.kill()
