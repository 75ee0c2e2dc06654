"""The third outside probe's reproducers (2026-12-07), each as a test: stored rows damaged past
what the reads checked (a stake, a version or a text column of the wrong storage type), and
player names that hide or reorder what the pages show."""
from __future__ import annotations

import json
import sqlite3

import pytest

from tests.app_support import FETCH, client, make_app  # noqa: F401  (client: fixture)

PLAYERS = ["A", "B", "C", "D"]


def _game(c) -> dict:
    r = c.post("/api/games", json={"players": PLAYERS}, headers=FETCH)
    assert r.status_code == 201
    return r.get_json()


def _damaged(tmp_path, table: str, assignment: str):
    """An app with two games, a hand in the second, and the second's `table` row changed by
    `assignment` (SQL, past the schema's CHECK)."""
    app = make_app(tmp_path)
    c = app.test_client()
    good, bad = _game(c), _game(c)
    r = c.post(f"/api/games/{bad['id']}/hands", json={"type": "win", "winner": 1, "discarder": 2, "tai": 3},
               headers=FETCH)
    assert r.status_code == 201
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        column = "id" if table == "games" else "game_id"
        conn.execute(f"UPDATE {table} SET {assignment} WHERE {column} = ?", (bad["id"],))
    return c, good, bad


def _strict(data: bytes):
    """JSON as a browser's JSON.parse reads it: no Infinity or NaN."""
    return json.loads(data, parse_constant=lambda name: pytest.fail(f"{name} in an answer"))


@pytest.mark.parametrize("assignment", ["base = 'abc'", "base = x'3132'", "per_tai = '1,5'", "per_tai = 1e400",
                                        "base = -1e400", "base = 1e308", "version = x'ff'", "version = 1e400"])
def test_a_game_with_a_damaged_setting_is_unreadable_and_the_others_still_list(tmp_path, assignment):
    c, good, bad = _damaged(tmp_path, "games", assignment)
    r = c.get("/api/games", headers={"Accept-Language": "zh-TW"})
    assert r.status_code == 200
    lines = {line["id"]: line for line in _strict(r.data)}
    assert lines[good["id"]]["players"] == PLAYERS and "error" not in lines[good["id"]]
    assert lines[bad["id"]]["code"] == "game_unreadable" and lines[bad["id"]]["error"] == "這局無法顯示"
    for method, path in (("GET", f"/api/games/{bad['id']}"), ("GET", f"/api/games/{bad['id']}/export.json"),
                         ("GET", f"/api/games/{bad['id']}/export.csv"), ("POST", f"/api/games/{bad['id']}/hands")):
        r = c.open(path, method=method, json={"type": "draw"}, headers=FETCH)
        assert r.status_code == 400 and _strict(r.data)["code"] == "game_unreadable", path
    assert c.get(f"/api/games/{good['id']}").status_code == 200


def test_a_game_created_at_stored_as_a_blob_is_still_shown(tmp_path):
    c, good, bad = _damaged(tmp_path, "games", "created_at = x'32303236'")
    lines = {line["id"]: line for line in _strict(c.get("/api/games").data)}
    assert lines[bad["id"]]["created_at"] == "2026" and lines[good["id"]]["players"] == PLAYERS
    assert c.get(f"/api/games/{bad['id']}").get_json()["created_at"] == "2026"


@pytest.mark.parametrize("column", ["scored", "photo_id", "created_at"])
def test_a_hand_with_a_blob_where_text_belongs_is_read_not_a_500(tmp_path, column):
    c, good, bad = _damaged(tmp_path, "hands", f"{column} = x'ff'")
    assert len(_strict(c.get("/api/games").data)) == 2
    r = c.get(f"/api/games/{bad['id']}")
    assert r.status_code == 200
    assert _strict(r.data)["hands"][0]["tai"] >= 3  # the hand is still shown and counted
    r = c.post(f"/api/games/{bad['id']}/hands", json={"type": "draw"}, headers=FETCH)
    assert r.status_code == 201 and len(r.get_json()["hands"]) == 2
    assert c.get(f"/api/games/{bad['id']}/export.json").status_code == 200


@pytest.mark.parametrize("name, code", [("A\u202eB", "player_name_control"), ("\u2067Bo", "player_name_control"),
                                        ("a\x1b[31m", "player_name_control"), ("a\x00", "player_name_control"),
                                        ("a\tb", "player_name_control"), ("a\u2028b", "player_name_control"),
                                        ("A\u200f", "player_name_control"), ("A\u061c", "player_name_control"),
                                        ("\u200eBo", "player_name_control"),
                                        ("\u200b", "player_name_empty"), ("\u0301\u0301", "player_name_empty"),
                                        ("\ufeff", "player_name_empty")])
def test_a_name_that_hides_or_reorders_text_is_refused_for_a_new_game(tmp_path, name, code):
    """A new game refuses it; an export of a game recorded before the check imports as it was, so
    that nothing the player recorded is lost on the way back in."""
    app = make_app(tmp_path)
    c = app.test_client()
    g = _game(c)
    export = c.get(f"/api/games/{g['id']}/export.json").get_json()
    players = [name, "B", "C", "D"]
    r = c.post("/api/games", json={"players": players}, headers=dict(FETCH, **{"Accept-Language": "zh-TW"}))
    assert r.status_code == 400 and r.get_json()["code"] == code
    assert "\u202e" not in r.get_json()["error"] and "\x1b" not in r.get_json()["error"]
    assert [line["id"] for line in c.get("/api/games").get_json()] == [g["id"]]  # nothing stored
    r = c.post("/api/games/import", json=dict(export, players=players), headers=FETCH)
    assert r.status_code == 201, r.get_json()
    assert c.get(f"/api/games/{r.get_json()['id']}").get_json()["players"][0] == name.strip()


def test_names_in_any_script_are_still_names(client):
    players = ["阿明", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "عَلِي", "Zoë"]
    r = client.post("/api/games", json={"players": players}, headers=FETCH)
    assert r.status_code == 201 and r.get_json()["players"] == players


def test_a_stored_seat_of_infinity_lists_as_json_a_browser_parses(tmp_path):
    c, good, bad = _damaged(tmp_path, "games", "first_dealer = 1e400")
    r = c.get("/api/games")
    lines = {line["id"]: line for line in _strict(r.data)}
    assert lines[bad["id"]]["code"] == "not_a_seat" and lines[bad["id"]]["params"]["value"] == "inf"
    assert "error" not in lines[good["id"]]
    r = c.get(f"/api/games/{bad['id']}")
    assert r.status_code == 400 and _strict(r.data)["code"] == "not_a_seat"


def test_the_engine_errors_examples_hold():
    import doctest

    import engine.errors
    assert doctest.testmod(engine.errors).failed == 0
