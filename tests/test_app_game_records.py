"""A probe of the game records (stop 54), each reproducer as a test: a win without its discarder
paid as a self-draw, a 乐清 draw without counting_kong, a game whose export could not be imported
again, and payments that did not sum to zero."""
from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

import webapp.games as games
from tests.app_support import FETCH, client  # noqa: F401  (client: fixture)

PLAYERS = ["A", "B", "C", "D"]
ZH = dict(FETCH, **{"Accept-Language": "zh-TW"})


def _game(c, **setup) -> dict:
    r = c.post("/api/games", json={"players": PLAYERS, **setup}, headers=FETCH)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_a_win_without_its_discarder_is_refused_not_paid_as_a_self_draw(client):
    g = _game(client)
    r = client.post(f"/api/games/{g['id']}/hands", json={"type": "win", "winner": 1, "tai": 3}, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "discarder_missing"
    zh = client.post(f"/api/games/{g['id']}/hands", json={"type": "win", "winner": 1, "tai": 3}, headers=ZH)
    assert zh.get_json()["error"] == "胡牌要填放槍的人；自摸請選自摸"
    assert client.get(f"/api/games/{g['id']}").get_json() == g
    # null is a self-draw, a seat is who pays
    drawn = client.post(f"/api/games/{g['id']}/hands", json={"type": "win", "winner": 1, "discarder": None, "tai": 3},
                        headers=FETCH).get_json()
    assert drawn["hands"][0]["self_drawn"] and all(v < 0 for s, v in drawn["hands"][0]["deltas"].items() if s != "1")


def test_a_yueqing_draw_needs_counting_kong(client):
    """Seed 004 §七: whether a non-白皮 kong was made decides the deal; a missing field kept it."""
    g = _game(client, rules="yueqing")
    r = client.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "in_hand"
    assert client.get(f"/api/games/{g['id']}").get_json() == g
    ok = client.post(f"/api/games/{g['id']}/hands", json={"type": "draw", "counting_kong": True}, headers=FETCH)
    assert ok.status_code == 201 and ok.get_json()["hands"][0]["counting_kong"] is True
    # a Taiwanese draw does not need it (false when not given)
    tw = _game(client)
    r = client.post(f"/api/games/{tw['id']}/hands", json={"type": "draw"}, headers=FETCH)
    assert r.status_code == 201 and r.get_json()["hands"][0]["counting_kong"] is False


def test_a_game_whose_scores_outgrow_its_export_is_refused(client, monkeypatch):
    """330 hands of 64 KB scored made a 21.7 MB export that the 20 MB import refused."""
    monkeypatch.setattr(games, "MAX_GAME_SCORED_BYTES", 200_000)  # the same check, at a test's size
    g = _game(client)
    hand = {"type": "win", "winner": 0, "discarder": 1, "tai": 0, "scored": {"note": "x" * 60_000}}
    version = g["version"]
    for _ in range(3):
        r = client.post(f"/api/games/{g['id']}/hands", json=dict(hand, version=version), headers=FETCH)
        assert r.status_code == 201
        version = r.get_json()["version"]
    over = client.post(f"/api/games/{g['id']}/hands", json=hand, headers=ZH)
    assert over.status_code == 400 and over.get_json()["code"] == "game_scores_too_large"
    assert "MB" in over.get_json()["error"]
    assert len(client.get(f"/api/games/{g['id']}").get_json()["hands"]) == 3
    # without its score the hand is recorded, and the export imports again
    assert client.post(f"/api/games/{g['id']}/hands", json=dict(hand, scored=None), headers=FETCH).status_code == 201
    exported = client.get(f"/api/games/{g['id']}/export.json").get_json()
    back = client.post("/api/games/import", json=exported, headers=FETCH)
    assert back.status_code == 201 and len(back.get_json()["hands"]) == 4
    # a game already over the cap (stored before it, or imported: an import that fits the upload
    # limit exports again): what does not add to its scores goes through, what adds is refused
    monkeypatch.setattr(games, "MAX_GAME_SCORED_BYTES", 1)
    gid = back.get_json()["id"]
    assert client.post(f"/api/games/{gid}/hands", json=dict(hand, scored=None), headers=FETCH).status_code == 201
    assert client.put(f"/api/games/{gid}/hands/1", json=dict(hand, scored=None), headers=FETCH).status_code == 200
    assert client.post(f"/api/games/{gid}/hands", json=hand, headers=FETCH).get_json()["code"] == "game_scores_too_large"
    assert client.delete(f"/api/games/{g['id']}/hands/1", headers=FETCH).status_code == 200


def _exact(v) -> Decimal:
    return Decimal(repr(v))  # the decimal the JSON number says


@pytest.mark.parametrize("base, per_tai, tai", [(0.01, 0.03, 7), (0.1, 0.7, 3), (12.34, 5.67, 20), (100, 20, 5)])
def test_every_hand_and_the_totals_sum_to_zero(client, base, per_tai, tai):
    """Amounts are settled in hundredths, so each hand's deltas and the totals sum to exactly zero."""
    g = _game(client, base=base, per_tai=per_tai)
    for hand in ({"type": "win", "winner": 1, "discarder": None, "tai": tai},
                 {"type": "win", "winner": 2, "discarder": 0, "tai": tai},
                 {"type": "win", "winner": 0, "discarder": None, "tai": tai}):
        g = client.post(f"/api/games/{g['id']}/hands", json=hand, headers=FETCH).get_json()
    assert sum(_exact(v) for v in g["totals"]) == 0
    for h in g["hands"]:
        assert sum(_exact(v) for v in h["deltas"].values()) == 0
    # the first hand: 1 self-draws; the dealer (0) also pays 莊家 1 台
    b, p = _exact(base), _exact(per_tai)
    assert _exact(g["hands"][0]["deltas"]["1"]) == 3 * b + (3 * tai + 1) * p


def test_the_largest_stakes_still_sum_to_zero_in_hundredths(client):
    """The probe's case: at 1e9 stakes a self-draw's deltas summed to -0.0039 (a JSON number holds
    about 16 digits, so at this size each amount is shown to the hundredth it rounds to)."""
    g = _game(client, base=999999999.9, per_tai=999999999.7)
    g = client.post(f"/api/games/{g['id']}/hands", json={"type": "win", "winner": 1, "discarder": None, "tai": 10000},
                    headers=FETCH).get_json()
    assert sum(round(v * 100) for v in g["totals"]) == 0


def test_stakes_finer_than_a_hundredth_are_refused(client):
    """base 4e-7: the winner gained 1e-06 that nobody paid."""
    r = client.post("/api/games", json={"players": PLAYERS, "base": 4e-7, "per_tai": 0}, headers=ZH)
    assert r.status_code == 400 and r.get_json()["code"] == "amount_cents"
    assert "小數點後兩位" in r.get_json()["error"]
    assert client.get("/api/games").get_json() == []
    assert client.post("/api/games", json={"players": PLAYERS, "base": 0.05, "per_tai": 12.5},
                       headers=FETCH).status_code == 201


def test_a_game_stored_with_finer_stakes_still_reads(client):
    """Games recorded before the check keep reading, with plain float sums."""
    setup = {"players": PLAYERS, "rules": "tw-standard", "base": 4e-7, "per_tai": 0, "first_dealer": 0}
    hands = [{"type": "win", "winner": 1, "discarder": None, "tai": 0, "counting_kong": False, "photo_id": None,
              "scored": None}]
    out = games.compute(setup, hands)
    # three payments of 4e-7 each, in floats as before, shown to six decimals
    assert out["hands"][0]["deltas"] == {"0": 0, "1": 1e-06, "2": 0, "3": 0}


def test_an_export_of_a_game_with_finer_stakes_imports_again(client):
    """Exports of games recorded before stakes were held to hundredths import as they are."""
    g = _game(client)
    exported = client.get(f"/api/games/{g['id']}/export.json").get_json()
    back = client.post("/api/games/import", json=dict(exported, base=0.005), headers=FETCH)
    assert back.status_code == 201 and back.get_json()["base"] == 0.005


LANG = Path(__file__).resolve().parent.parent / "static" / "js" / "lang"


def wording(lang: str, key: str) -> str:
    match = re.search(rf'^\s*{key}: "(.*)",$', (LANG / f"{lang}.js").read_text(encoding="utf-8"), re.MULTILINE)
    assert match, f"{lang}.js has no {key}"
    return match.group(1)


def test_the_draw_kong_box_says_the_deal_passes_and_only_where_it_does(client):
    """Seed 004 §七: 流局时,如果有人放四张牌的杠(白皮杠不算),那么庄家的下家做庄. The game page's box
    said the opposite (照連莊, "dealer keeps the deal"), and showed on the Taiwanese tables, where a
    draw always keeps the dealer (臭莊) whatever was made: the page now asks only where the table's
    flow lets the kong decide the deal, which /api/rules says."""
    assert wording("zh", "counting_kong") == "有人開過槓（當花的白板或紅中的槓不算）：下家接莊"
    assert wording("en", "counting_kong") == "Someone made a kong (not of the tile played as flowers): the deal passes"
    assert (wording("zh", "hand_draw_kong"), wording("en", "hand_draw_kong")) == ("流局，有槓：下家接莊",
                                                                                  "Draw, a kong made: the deal passed")
    flows = {t["id"]: t["flow"]["draw_rule"] for t in client.get("/api/rules").get_json()["tables"]}
    assert flows == {"tw-standard": "dealer_continues", "platform-tai": "dealer_continues",
                     "platform-flower": "dealer_continues", "yueqing": "yueqing"}
    g = _game(client, rules="yueqing")
    r = client.post(f"/api/games/{g['id']}/hands", json={"type": "draw", "counting_kong": True}, headers=FETCH)
    assert (r.get_json()["state"]["dealer"], r.get_json()["state"]["streak"]) == (1, 0)  # the box ticked: passed
