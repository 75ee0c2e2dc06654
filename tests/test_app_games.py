"""Recording games through the API: payments, dealer rotation, edits, export/import, concurrency."""
from __future__ import annotations

import csv
import io
import threading

import pytest

from engine.flow import TAIWAN, apply_result, new_game
from engine.settlement import dealer_tai, settle_taiwan
from tests.app_support import FETCH, client  # noqa: F401  (client is a fixture)

PLAYERS = ["阿明", "小華", "=cmd|' /C calc'!A0", "Dana"]


def create(c, **over) -> dict:
    body = {"players": PLAYERS, "rules": "tw-standard", "base": 100, "per_tai": 20, "first_dealer": 0, **over}
    r = c.post("/api/games", json=body, headers=FETCH)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def post_hand(c, game_id, hand, status=201) -> dict:
    r = c.post(f"/api/games/{game_id}/hands", json=hand, headers=FETCH)
    assert r.status_code == status, r.get_json()
    return r.get_json()


def win(winner, discarder, tai):
    return {"type": "win", "winner": winner, "discarder": discarder, "tai": tai}


def reference(hands, first_dealer=0, base=100, per_tai=20):
    """The game by engine.flow and engine.settlement directly, with tw-standard's 莊家 1 + 2 per 連莊."""
    state, states, deltas = new_game(PLAYERS, first_dealer), [], []
    for h in hands:
        if h["type"] == "win":
            d = settle_taiwan(winner=h["winner"], discarder=h["discarder"], dealer=state.dealer,
                              hand_tai=h["tai"], dealer_tai=dealer_tai(state.streak), base=base, per_tai=per_tai)
            result = {"type": "win", "winner": h["winner"], "discarder": h["discarder"], "deltas": d}
        else:
            d, result = {s: 0 for s in range(4)}, {"type": "draw"}
        state = apply_result(state, result, TAIWAN)
        states.append(state)
        deltas.append(d)
    return states, deltas


def check_against_reference(game, hands):
    states, deltas = reference(hands, game["first_dealer"], game["base"], game["per_tai"])
    assert [h["deltas"] for h in game["hands"]] == [{str(s): v for s, v in d.items()} for d in deltas]
    final = states[-1] if states else new_game(PLAYERS, game["first_dealer"])
    for key in ("dealer", "streak", "round_wind", "finished", "hand_number"):
        assert game["state"][key] == getattr(final, key), key
    assert game["totals"] == list(final.scores)
    assert game["series"] == [[s.scores[p] for s in states] for p in range(4)]


def test_worked_game(client):
    g = create(client)
    assert g["state"]["dealer"] == 0 and g["totals"] == [0, 0, 0, 0] and g["version"] == 1
    g = post_hand(client, g["id"], win(0, 2, 3))        # dealer wins on a discard: 100 + (3+1)*20
    assert g["hands"][0]["deltas"] == {"0": 180, "1": 0, "2": -180, "3": 0}
    assert (g["hands"][0]["tai"], g["hands"][0]["hand_tai"], g["hands"][0]["dealer_tai"]) == (4, 3, 1)
    assert (g["state"]["dealer"], g["state"]["streak"]) == (0, 1)
    g = post_hand(client, g["id"], {"type": "draw"})   # 臭莊 counts as 連莊 here
    assert (g["state"]["dealer"], g["state"]["streak"]) == (0, 2)
    g = post_hand(client, g["id"], win(1, None, 2))     # self-draw; the dealer pays 莊家 1 + 連2拉2 = 5 more
    h = g["hands"][2]
    assert h["self_drawn"] and h["deltas"] == {"0": -240, "1": 520, "2": -140, "3": -140}
    assert (g["state"]["dealer"], g["state"]["streak"]) == (1, 0)
    g = post_hand(client, g["id"], win(3, 2, 1))        # dealer not involved: 100 + 20
    assert g["hands"][3]["deltas"] == {"0": 0, "1": 0, "2": -120, "3": 120} and g["hands"][3]["dealer_tai"] == 1
    assert g["totals"] == [-60, 520, -440, -20] and sum(g["totals"]) == 0
    assert g["state"]["dealer"] == 2 and g["state"]["seat_winds"] == ["W", "N", "E", "S"]
    assert g["version"] == 5 and [h["n"] for h in g["hands"]] == [1, 2, 3, 4]
    check_against_reference(g, [win(0, 2, 3), {"type": "draw"}, win(1, None, 2), win(3, 2, 1)])
    assert client.get(f"/api/games/{g['id']}").get_json() == g
    listed = client.get("/api/games").get_json()
    assert [(x["id"], x["hand_count"], x["totals"]) for x in listed] == [(g["id"], 4, g["totals"])]


def test_round_wind_turns_and_the_game_ends(client):
    g = create(client, first_dealer=2)
    hands = []
    for k in range(16):
        dealer = g["state"]["dealer"]
        hands.append(win((dealer + 1) % 4, (dealer + 2) % 4, 1))
        g = post_hand(client, g["id"], hands[-1])
        assert g["state"]["round_wind"] == (k + 1) // 4 or (k == 15 and g["state"]["finished"])
    assert g["state"]["finished"] and g["state"]["dealer"] == 2
    check_against_reference(g, hands)
    r = client.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
    assert r.status_code == 400 and "finished" in r.get_json()["error"]


def pass_deal(c, g) -> dict:
    """The dealer's next seat wins off the one after it: the deal passes."""
    dealer = g["state"]["dealer"]
    return post_hand(c, g["id"], win((dealer + 1) % 4, (dealer + 2) % 4, 1))


def test_a_game_of_one_round_ends_after_the_east_round(client):
    """東風圈 only: four dealerships, then the game is over and takes no more hands."""
    g = create(client, rounds=1, first_dealer=1)
    assert g["rounds"] == 1 and g["state"]["rounds"] == 1
    for k in range(4):
        assert not g["state"]["finished"] and g["state"]["round_wind"] == 0
        g = pass_deal(client, g)
    assert g["state"]["finished"] and g["state"]["round_wind"] == 0 and g["state"]["dealer"] == 1
    r = client.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "game_finished_add"
    assert len(client.get(f"/api/games/{g['id']}").get_json()["hands"]) == 4
    listed = client.get("/api/games").get_json()
    assert [(x["rounds"], x["finished"], x["hand_count"]) for x in listed] == [(1, True, 4)]


def test_a_game_of_two_rounds_plays_east_and_south(client):
    """東南 (半將): the 南風圈 comes after four dealerships and the game ends after eight; a 連莊
    or a draw keeps the deal and counts no dealership."""
    g = create(client, rounds=2)
    g = post_hand(client, g["id"], win(0, 1, 2))          # the dealer wins: 連莊
    g = post_hand(client, g["id"], {"type": "draw"})      # 臭莊: still the same dealer
    for k in range(8):
        assert not g["state"]["finished"] and g["state"]["round_wind"] == k // 4
        g = pass_deal(client, g)
    assert g["state"]["finished"] and g["state"]["round_wind"] == 1 and g["state"]["round_wind_name"] == "S"
    assert len(g["hands"]) == 10 and sum(g["totals"]) == 0
    r = client.post(f"/api/games/{g['id']}/hands", json=win(1, None, 1), headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "game_finished_add"


def test_a_game_without_rounds_lasts_its_tables_four(client):
    g = create(client)
    assert g["rounds"] is None and g["state"]["rounds"] == 4
    assert create(client, rounds=None)["rounds"] is None
    assert create(client, rounds=4)["state"]["rounds"] == 4


@pytest.mark.parametrize("rounds", [0, 5, -1, "2", True, 2.5, [2]])
def test_rounds_outside_one_to_four_are_refused(client, rounds):
    r = client.post("/api/games", json={"players": list("ABCD"), "rounds": rounds}, headers=FETCH)
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["code"] == "rounds_range" and "rounds must be a whole number 1-4" in r.get_json()["error"]
    r = client.post("/api/games", json={"players": list("ABCD"), "rounds": rounds},
                    headers={**FETCH, "Accept-Language": "zh-TW"})
    assert r.get_json()["error"].startswith("圈數要是 1–4 的整數")
    assert client.get("/api/games").get_json() == []  # nothing recorded


def test_rounds_go_out_in_the_export_and_come_back(client):
    g = create(client, rounds=2)
    for _ in range(3):
        g = pass_deal(client, g)
    exported = client.get(f"/api/games/{g['id']}/export.json").get_json()
    assert exported["rounds"] == 2
    copy = client.post("/api/games/import", json=exported, headers=FETCH).get_json()
    assert copy["rounds"] == 2 and copy["state"] == g["state"]
    r = client.post("/api/games/import", json=dict(exported, rounds=0), headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "rounds_range"
    assert len(client.get("/api/games").get_json()) == 2


def test_an_export_made_before_rounds_imports_with_the_tables_rounds(client):
    g = create(client)
    for _ in range(5):
        g = pass_deal(client, g)
    exported = client.get(f"/api/games/{g['id']}/export.json").get_json()
    old = {k: v for k, v in exported.items() if k != "rounds"}   # as an export made before games chose it
    old["state"] = {k: v for k, v in old["state"].items() if k != "rounds"}
    r = client.post("/api/games/import", json=old, headers=FETCH)
    assert r.status_code == 201, r.get_json()
    copy = r.get_json()
    assert copy["rounds"] is None and copy["state"] == g["state"] and copy["state"]["round_wind"] == 1
    for _ in range(11):                                         # to the end of the 北風圈, as before
        copy = pass_deal(client, copy)
    assert copy["state"]["finished"] and copy["state"]["round_wind"] == 3


def test_edit_and_delete_recompute_everything_after(client):
    g = create(client)
    hands = [win(0, 2, 3), {"type": "draw"}, win(1, None, 2), win(3, 2, 1)]
    for h in hands:
        g = post_hand(client, g["id"], h)
    created = [h["created_at"] for h in g["hands"]]
    hands[0] = win(1, 2, 3)                             # not the dealer after all: the deal passes at once
    r = client.put(f"/api/games/{g['id']}/hands/1", json=dict(hands[0], version=g["version"]), headers=FETCH)
    assert r.status_code == 200, r.get_json()
    g = r.get_json()
    check_against_reference(g, hands)
    assert g["hands"][2]["dealer"] == 1 and g["hands"][2]["streak"] == 1   # seat 1 now deals hand 3, 連1
    assert [h["created_at"] for h in g["hands"]] == created
    r = client.delete(f"/api/games/{g['id']}/hands/2?version={g['version']}", headers=FETCH)
    g = r.get_json()
    del hands[1]
    check_against_reference(g, hands)
    assert [h["n"] for h in g["hands"]] == [1, 2, 3]
    assert client.delete(f"/api/games/{g['id']}/hands/9", headers=FETCH).status_code == 404
    assert client.put(f"/api/games/{g['id']}/hands/0", json={"type": "draw"}, headers=FETCH).status_code == 404


def test_an_edit_that_breaks_later_hands_is_refused_and_changes_nothing(client):
    g = create(client)
    g = post_hand(client, g["id"], win(0, 1, 1))        # dealer keeps the deal
    for k in range(2, 18):                              # seat k+1 wins: never the dealer, before or after the edit
        g = post_hand(client, g["id"], win((k + 1) % 4, None, 1))
    assert g["state"]["finished"] and len(g["hands"]) == 17
    r = client.put(f"/api/games/{g['id']}/hands/1", json=win(1, 0, 1), headers=FETCH)
    assert r.status_code == 400 and r.get_json()["error"] == "hand 17: game is finished"
    assert client.get(f"/api/games/{g['id']}").get_json() == g


def test_stale_version_is_409(client):
    g = create(client)
    post_hand(client, g["id"], dict(win(0, 1, 1), version=1))
    r = client.post(f"/api/games/{g['id']}/hands", json=dict(win(0, 1, 1), version=1), headers=FETCH)
    assert r.status_code == 409 and r.get_json() == {"error": "the game changed on another phone; reloaded",
                                                     "code": "stale_version", "params": {}}
    r = client.put(f"/api/games/{g['id']}/hands/1", json=dict(win(0, 1, 1), version=1), headers=FETCH)
    assert r.status_code == 409
    assert client.delete(f"/api/games/{g['id']}/hands/1?version=1", headers=FETCH).status_code == 409
    assert client.delete(f"/api/games/{g['id']}/hands/1?version=x", headers=FETCH).status_code == 400
    assert client.get(f"/api/games/{g['id']}").get_json()["version"] == 2


@pytest.mark.parametrize("body, message", [
    ({"players": ["A", "B", "C"]}, "four names"),
    ({"players": ["A", "B", "C", " "]}, "needs a name"),
    ({"players": ["Ann", "Bo", "ann", "Cy"]}, "both called ann"),  # one name at a table, whatever its case
    ({"players": ["Ann", "Bo", "ＡＮＮ", "Cy"]}, "both called ＡＮＮ"),  # or its width
    ({"players": ["Ann", "Bo", "An\u200bn", "Cy"]}, "both called An\u200bn"),  # or a character that shows nothing
    ({"players": list("ABCD"), "rules": "mars"}, "unknown rule table"),
    ({"players": list("ABCD"), "rules": "/etc/passwd"}, "unknown rule table"),
    ({"players": list("ABCD"), "base": -1}, "base"),
    ({"players": list("ABCD"), "per_tai": "20"}, "per_tai"),
    ({"players": list("ABCD"), "first_dealer": 4}, "first_dealer"),
])
def test_bad_games_are_400(client, body, message):
    r = client.post("/api/games", json=body, headers=FETCH)
    assert r.status_code == 400 and message in r.get_json()["error"]
    assert client.get("/api/games").get_json() == []  # nothing recorded


def test_names_told_apart_by_case_are_one_name():
    import doctest

    import webapp.games
    import webapp.rescore
    assert doctest.testmod(webapp.games).failed == 0
    assert doctest.testmod(webapp.rescore).failed == 0


@pytest.mark.parametrize("hand, message", [
    (win(1, 1, 2), "cannot also be the discarder"),
    (win(4, None, 2), "winner"),
    (win(1, None, -1), "tai"),
    (win(1, None, "3"), "tai"),
    (win(1, None, True), "tai"),
    ({"type": "win", "discarder": None, "tai": 1}, "winner"),
    ({"type": "chombo"}, "type"),
    ({"type": "draw", "counting_kong": "yes"}, "counting_kong"),
    (dict(win(1, None, 2), photo_id="../../etc/passwd"), "photo_id"),
    (dict(win(1, None, 2), scored=[1]), "scored"),
])
def test_bad_hands_are_400(client, hand, message):
    g = create(client)
    r = client.post(f"/api/games/{g['id']}/hands", json=hand, headers=FETCH)
    assert r.status_code == 400 and message in r.get_json()["error"]
    assert client.get(f"/api/games/{g['id']}").get_json()["hands"] == []


def test_unknown_game_is_404(client):
    assert client.post("/api/games/0123456789ab/hands", json={"type": "draw"}, headers=FETCH).status_code == 404
    assert client.get("/api/games/0123456789ab/export.csv").status_code == 404


def test_yueqing_game(client):
    g = create(client, rules="yueqing", base=10)
    g = post_hand(client, g["id"], win(1, None, 2))     # seed 004: dealer -t-1-L, winner 3(t+1)+L, others -t-1
    assert g["hands"][0]["deltas"] == {"0": -40, "1": 100, "2": -30, "3": -30}
    g = post_hand(client, g["id"], {"type": "draw", "counting_kong": False})
    assert (g["state"]["dealer"], g["state"]["streak"]) == (1, 0)
    g = post_hand(client, g["id"], {"type": "draw", "counting_kong": True})
    assert g["state"]["dealer"] == 2


def test_export_csv_and_json_import_round_trip(client):
    g = create(client)
    scored = {"win": True, "tai": 4, "hand_tai": 3, "breakdown": [{"id": "zimo", "name": "自摸", "tai": 1}]}
    photo = "ab" * 32
    for h in (win(0, 2, 3), {"type": "draw"}, dict(win(1, None, 2), scored=scored, photo_id=photo), win(3, 2, 1)):
        g = post_hand(client, g["id"], h)
    r = client.get(f"/api/games/{g['id']}/export.csv")
    assert r.mimetype == "text/csv" and "attachment" in r.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(r.data.decode("utf-8-sig"))))
    assert rows[0][:5] == ["n", "type", "winner", "discarder", "tai"]
    assert rows[0][5:] == [f"delta {p}" for p in ["阿明", "小華", "'=cmd|' /C calc'!A0", "Dana"]] + \
        [f"total {p}" for p in ["阿明", "小華", "'=cmd|' /C calc'!A0", "Dana"]]
    assert len(rows) == 5
    assert rows[1] == ["1", "win", "阿明", "'=cmd|' /C calc'!A0", "4", "180", "0", "-180", "0", "180", "0", "-180", "0"]
    assert rows[2][:5] == ["2", "draw", "", "", "0"]
    assert [int(v) for v in rows[4][9:]] == g["totals"]

    exported = client.get(f"/api/games/{g['id']}/export.json").get_json()
    r = client.post("/api/games/import", json=exported, headers=FETCH)
    assert r.status_code == 201, r.get_json()
    copy = r.get_json()
    assert copy["id"] != g["id"]
    for key in ("players", "rules", "base", "per_tai", "first_dealer", "state", "hands", "totals", "series"):
        assert copy[key] == g[key], key
    bad = dict(exported, hands=exported["hands"] + [{"type": "win", "winner": 9, "discarder": None, "tai": 1}])
    r = client.post("/api/games/import", json=bad, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["error"].startswith("hand 5:")
    assert len(client.get("/api/games").get_json()) == 2


def test_concurrent_posts_all_land(client):
    g = create(client)
    app = client.application

    def worker(k):
        c = app.test_client()
        for _ in range(5):
            assert c.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH).status_code == 201

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    final = client.get(f"/api/games/{g['id']}").get_json()
    assert [h["n"] for h in final["hands"]] == list(range(1, 21))
    assert final["state"]["streak"] == 20 and final["version"] == 21


def test_concurrent_versioned_posts_never_lose_an_update(client):
    g = create(client)
    app = client.application
    outcomes = []

    def worker(seat):
        c = app.test_client()
        for _ in range(6):
            version = c.get(f"/api/games/{g['id']}").get_json()["version"]
            r = c.post(f"/api/games/{g['id']}/hands", json=dict(win(0, seat, 1), version=version), headers=FETCH)
            outcomes.append(r.status_code)

    threads = [threading.Thread(target=worker, args=(s,)) for s in (1, 2, 3)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    final = client.get(f"/api/games/{g['id']}").get_json()
    assert set(outcomes) <= {201, 409} and outcomes.count(201) >= 1
    assert len(final["hands"]) == outcomes.count(201) and final["version"] == 1 + outcomes.count(201)
    check_against_reference(final, [win(0, h["discarder"], 1) for h in final["hands"]])


def scored_win(winner, discarder, tai, seat_wind, discarder_wind):
    """A win recorded from the score page: 123m456m789m45p SSS 77s on 3p, scored in the tw-standard
    context given (a pung of 南: 門風 only where the winner sits 南)."""
    request = {"rules": "tw-standard", "concealed": "123m456m789m45pSSS77s", "winning_tile": "3p",
               "self_drawn": discarder is None, "seat_wind": seat_wind, "round_wind": "E", "dealer": "E",
               "streak": 0, **({"discarder": discarder_wind} if discarder is not None else {})}
    return {**win(winner, discarder, tai), "scored": {"win": True, "hand_tai": tai, "tai": tai, "hand": request}}


def test_an_edit_that_moves_the_deal_offers_a_later_hands_score_again(client):
    g = create(client)
    g = post_hand(client, g["id"], win(0, 2, 3))          # the dealer wins: seat 0 deals hand 2 too
    g = post_hand(client, g["id"], scored_win(1, 2, 3, "S", "W"))  # seat 1 sits 南: 門清 門風 南風
    assert [h["rescore"] for h in g["hands"]] == [None, None]
    # hand 1 was seat 1's: the deal passed at once, so seat 1 dealt hand 2 and sat 東, seat 2 南
    r = client.put(f"/api/games/{g['id']}/hands/1", json=dict(win(1, 2, 3), version=g["version"]), headers=FETCH)
    g = r.get_json()
    assert r.status_code == 200, g
    rescore = g["hands"][1]["rescore"]
    assert {k: rescore[k] for k in ("changed", "tai")} == {"changed": ["seat_wind"], "tai": 2}  # no 門風 at 東
    assert rescore["context"] == {"rules": "tw-standard", "seat_wind": "E", "round_wind": "E", "dealer": "E",
                                  "streak": 0, "self_drawn": False, "discarder": "S"}
    assert g["hands"][1]["tai"] - g["hands"][1]["dealer_tai"] == 3   # the recorded 台 stand until taken
    # taken as the page takes it: the scored request now says the game's context
    hand = g["hands"][1]
    scored = {**hand["scored"], "hand": {**hand["scored"]["hand"], **rescore["context"]}, "hand_tai": 2}
    taken = {"type": "win", "winner": 1, "discarder": 2, "tai": 2, "scored": scored, "version": g["version"]}
    r = client.put(f"/api/games/{g['id']}/hands/2", json=taken, headers=FETCH)
    g = r.get_json()
    assert r.status_code == 200, g
    assert g["hands"][1]["rescore"] is None and g["hands"][1]["hand_tai"] == 2
    # hand 1 deleted: the deal no longer moved, the winner sat 南 again, and 3 台 are offered back
    r = client.delete(f"/api/games/{g['id']}/hands/1?version={g['version']}", headers=FETCH)
    g = r.get_json()
    assert r.status_code == 200, g
    assert {k: g["hands"][0]["rescore"][k] for k in ("changed", "tai")} == {"changed": ["seat_wind"], "tai": 3}


def test_a_scored_copy_the_engine_cannot_read_is_left_alone(client):
    g = create(client)
    odd = {**win(1, None, 4), "scored": {"hand": {"concealed": "not tiles", "seat_wind": "X"}}}
    g = post_hand(client, g["id"], odd)
    assert g["hands"][0]["rescore"] is None and g["hands"][0]["hand_tai"] == 4
    r = client.get(f"/api/games/{g['id']}", headers=FETCH)
    assert r.status_code == 200 and r.get_json()["hands"][0]["rescore"] is None


def test_scores_again_are_kept_by_digest_and_bounded(monkeypatch):
    import webapp.rescore as rescore
    calls = []
    monkeypatch.setattr(rescore, "_hand_tai", lambda request: calls.append(request) or 7)
    monkeypatch.setattr(rescore, "_CACHE", type(rescore._CACHE)())
    monkeypatch.setattr(rescore, "_CACHE_SIZE", 3)
    big = {"concealed": "x" * 60_000}
    assert rescore.hand_tai(big) == 7 and rescore.hand_tai(dict(big)) == 7
    assert len(calls) == 1                                   # the same request is scored once
    assert all(len(k) == 32 for k in rescore._CACHE)         # kept by digest, not by its 60 KB text
    for n in range(5):
        rescore.hand_tai({"n": n})
    assert len(rescore._CACHE) == 3 and len(calls) == 6
    assert rescore.hand_tai({"bad": {1, 2}}) is None          # not JSON: not scored
