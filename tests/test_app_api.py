"""The engine's JSON API, errors as JSON, CSRF, the table PIN and the pages."""
from __future__ import annotations

import pytest

from engine.service import rules_json, score_json
from tests.app_support import FETCH, client, make_app  # noqa: F401  (client is a fixture)
from webapp import VERSION

HAND = {"rules": "tw-standard", "concealed": "EEESSSWWWNN123m55p", "winning_tile": "5p",
        "self_drawn": True, "seat_wind": "E", "round_wind": "E", "streak": 2, "flowers": "1f5f"}
READY = {"concealed": "123456789m123456p5s"}           # 16 tiles, waits on 5s
SEVENTEEN = {"concealed": "123456789m123456p5s9s"}


def test_health_and_rules(client):
    assert client.get("/api/health").get_json() == {"ok": True, "model": False, "version": VERSION}
    assert client.get("/api/rules").get_json() == rules_json()


def test_score_waits_advise_answer_as_the_engine(client):
    r = client.post("/api/score", json=HAND, headers=FETCH)
    assert r.status_code == 200 and r.get_json() == score_json(HAND)
    assert r.get_json()["tai"] == 23
    waits = client.post("/api/waits", json=READY, headers=FETCH).get_json()
    assert waits["waits"] == [{"tile": "5s", "remaining": 3}] and waits["shanten"] == 0
    advice = client.post("/api/advise", json=SEVENTEEN, headers=FETCH).get_json()
    assert advice["shanten"] == 0 and {"5s", "9s"} & {d["discard"] for d in advice["discards"] if d["shanten"] == 0}


def test_a_hand_that_does_not_win_is_an_answer_not_an_error(client):
    r = client.post("/api/score", json=dict(HAND, winning_tile="6p"), headers=FETCH)
    assert r.status_code == 200 and r.get_json()["win"] is False


@pytest.mark.parametrize("body, message", [
    (b"{not json", "malformed JSON"),
    (b"", "empty"),
    (b"[1, 2]", "JSON object"),
    (b'{"concealed": NaN}', "malformed JSON"),
    (b"\xff\xfe", "UTF-8"),
])
def test_malformed_bodies_are_400_json(client, body, message):
    r = client.post("/api/score", data=body, headers=dict(FETCH, **{"Content-Type": "application/json"}))
    assert r.status_code == 400 and r.is_json and message in r.get_json()["error"]


@pytest.mark.parametrize("route, hand, message", [
    ("/api/score", dict(HAND, concealed="EEESSSWWWNN123m5x"), "cannot read tiles"),
    ("/api/score", dict(HAND, concealed="55555m123p456p789p11s"), "5m"),
    ("/api/score", dict(HAND, concealed="123m"), "concealed tiles"),
    ("/api/waits", {"concealed": "123m"}, "concealed tiles"),
    ("/api/advise", READY, "concealed tiles"),
    ("/api/score", dict(HAND, rules="/etc/passwd"), "unknown rule table"),
    ("/api/score", dict(HAND, rules="../engine/rules/tw-standard"), "unknown rule table"),
    ("/api/score", dict(HAND, bogus=1), "unknown key"),
])
def test_bad_hands_are_400_with_the_engines_message(client, route, hand, message):
    r = client.post(route, json=hand, headers=FETCH)
    assert r.status_code == 400, r.get_json()
    assert message in r.get_json()["error"]


def test_api_errors_are_json_never_html(client):
    for r, status in ((client.get("/api/nothing"), 404), (client.get("/api/score"), 405),
                      (client.get("/api/games/zzz"), 404)):
        assert r.status_code == status and r.is_json and set(r.get_json()) == {"error", "code", "params"}


def test_mutating_requests_need_the_fetch_header(client):
    r = client.post("/api/score", json=HAND)
    assert r.status_code == 403 and "X-Requested-With" in r.get_json()["error"]
    assert client.post("/api/games", json={"players": list("ABCD")}).status_code == 403
    assert client.get("/api/games").status_code == 200  # reads need nothing


def test_a_foreign_origin_is_refused(client):
    evil = client.post("/api/score", json=HAND, headers=dict(FETCH, Origin="http://evil.example"))
    assert evil.status_code == 403 and "another site" in evil.get_json()["error"]
    same = client.post("/api/score", json=HAND, headers=dict(FETCH, Origin="http://localhost"))
    assert same.status_code == 200


def test_table_pin(tmp_path):
    app = make_app(tmp_path, TABLE_PIN="4821")
    c = app.test_client()
    assert c.get("/api/pin").get_json() == {"required": True, "ok": False}
    r = c.post("/api/score", json=HAND, headers=FETCH)
    assert r.status_code == 403 and "PIN" in r.get_json()["error"]
    assert c.post("/api/score", json=HAND, headers=dict(FETCH, **{"X-Table-Pin": "0000"})).status_code == 403
    assert c.post("/api/score", json=HAND, headers=dict(FETCH, **{"X-Table-Pin": "4821"})).status_code == 200
    assert c.post("/api/pin", json={"pin": "1234"}, headers=FETCH).status_code == 403
    assert c.post("/api/pin", json={"pin": "4821"}, headers=FETCH).status_code == 200
    assert c.get("/api/pin").get_json() == {"required": True, "ok": True}
    assert c.post("/api/score", json=HAND, headers=FETCH).status_code == 200   # the cookie does it now
    c.delete("/api/pin", headers=FETCH)
    assert c.post("/api/score", json=HAND, headers=FETCH).status_code == 403
    # another app with another PIN does not accept the old cookie
    other = make_app(tmp_path, TABLE_PIN="9999").test_client()
    other.post("/api/pin", json={"pin": "9999"}, headers=FETCH)
    assert make_app(tmp_path, TABLE_PIN="4821").test_client().post(
        "/api/score", json=HAND, headers=FETCH).status_code == 403


def test_wrong_pins_are_throttled(tmp_path):
    # a few mistakes are free, then the address waits (the right PIN too, unchecked) — briefly
    app = make_app(tmp_path, TABLE_PIN="4821")
    now = [1000.0]
    app.extensions["mahjong"].pin_throttle.clock = lambda: now[0]
    c = app.test_client()
    codes = [c.post("/api/pin", json={"pin": f"{i:04d}"}, headers=FETCH).status_code for i in range(7)]
    assert codes == [403] * 5 + [429] * 2
    assert c.post("/api/pin", json={"pin": "4821"}, headers=FETCH).status_code == 429
    now[0] += 1.5  # the wait after the fifth mistake is one second
    assert c.post("/api/pin", json={"pin": "4821"}, headers=FETCH).status_code == 200


def test_pages_render_or_say_the_templates_are_missing(client):
    for path in ("/", "/live", "/games"):
        r = client.get(path)
        assert r.status_code in (200, 503), path
        assert (b"<" in r.data) if r.status_code == 200 else (b"not installed yet" in r.data)
    assert client.get("/games/0123456789ab").status_code == 404
    assert b"Traceback" not in client.get("/games/../../etc").data


def test_user_text_is_escaped_in_pages(tmp_path):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "game.html").write_text("<h1>{{ game.players[0] }}</h1>", encoding="utf-8")
    c = make_app(tmp_path, TEMPLATES_DIR=templates).test_client()
    game = c.post("/api/games", json={"players": ["<script>alert(1)</script>", "B", "C", "D"]},
                  headers=FETCH).get_json()
    page = c.get(f"/games/{game['id']}").data
    assert b"<script>" not in page and b"&lt;script&gt;" in page


def test_security_headers(client):
    r = client.get("/api/health")
    assert r.headers["X-Content-Type-Options"] == "nosniff" and r.headers["X-Frame-Options"] == "DENY"
