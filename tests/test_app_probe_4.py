"""The fourth outside probe's reproducers (2026-12-07), each as a test: the game record attacked
as a careless client, a hostile page and bad luck would (damaged rows, a read-only database, a
backup cut short)."""
from __future__ import annotations

import sqlite3

import pytest

from tests.app_support import FETCH, make_app

PLAYERS = ["A", "B", "C", "D"]


def _game(c) -> dict:
    r = c.post("/api/games", json={"players": PLAYERS}, headers=FETCH)
    assert r.status_code == 201
    return r.get_json()


@pytest.mark.parametrize("n", [0, -3])
def test_a_hand_stored_at_number_zero_or_below_is_renumbered_not_duplicated(tmp_path, n):
    """The renumbering of a damaged game deleted only the rows above 0: the hand stored at 0 stayed
    beside its renumbered copy, and the game paid it twice from then on."""
    app = make_app(tmp_path)
    c = app.test_client()
    g = _game(c)
    for tai in (1, 2):
        c.post(f"/api/games/{g['id']}/hands", json={"type": "win", "winner": 1, "discarder": 2, "tai": tai},
               headers=FETCH)
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        conn.execute("UPDATE hands SET n = ? WHERE game_id = ? AND n = 2", (n, g["id"]))
    assert [h["hand_tai"] for h in c.get(f"/api/games/{g['id']}").get_json()["hands"]] == [2, 1]
    r = c.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
    assert r.status_code == 201
    assert [(h["type"], h["hand_tai"]) for h in r.get_json()["hands"]] == [("win", 2), ("win", 1), ("draw", 0)]
    with sqlite3.connect(app.extensions["mahjong"].db_path) as conn:
        stored = conn.execute("SELECT n, tai FROM hands WHERE game_id = ? ORDER BY n", (g["id"],)).fetchall()
    assert stored == [(1, 2), (2, 1), (3, 0)]
