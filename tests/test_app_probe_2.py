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
    assert c.get("/api/examples").get_json() == {"count": 1}  # the earlier correction stays
