"""Issue 11 item 2: every error carries a stable code with params, worded per language.

The catalogs (webapp/messages/en.json, zh.json) must word every code the source raises; the API
answers {"error", "code", "params"} in the request's language; the command line keeps English.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import HandError, short
from engine.service import score_json
from tests.app_support import FETCH, client  # noqa: F401  (client is a fixture)
from webapp.errors import HTTP_MESSAGES, ApiError, catalog, render

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [*sorted((ROOT / "engine").rglob("*.py")), *sorted((ROOT / "webapp").rglob("*.py")),
           ROOT / "vision" / "image_io.py", ROOT / "vision" / "calibration.py", ROOT / "app.py"]
ZH = {"Accept-Language": "zh-TW,zh;q=0.9,en;q=0.5"}
EN = {"Accept-Language": "en-US,en;q=0.9"}


def codes_in_source() -> dict[str, str]:
    """code -> the file using it: every string literal in a `code=` argument (both branches of a
    conditional) and in a "code": "…" pair, plus the HTTP error codes and the defaults."""
    found = {}
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"\bcode=([^,)\n]*)", text):
            for lit in re.findall(r'(?:^|else\s+)"([a-z][a-z0-9_]*)"', m.group(1)):
                found[lit] = path.name
        for lit in re.findall(r'"code":\s*"([a-z][a-z0-9_]*)"', text):
            found[lit] = path.name
        # error_response(status, message, "code", ...): the code given by position
        for lit in re.findall(r'error_response\(\s*\d+,\s*(?:f?"[^"]*"|\w+),\s*"([a-z][a-z0-9_]*)"', text):
            found[lit] = path.name
    for _message, code in HTTP_MESSAGES.values():
        found[code] = "errors.py"
    for code in ("bad_request", "bad_input", "http_error", "internal_error", "image_unreadable"):
        found[code] = "defaults"
    return found


def test_the_scan_sees_the_codes():
    codes = codes_in_source()
    assert {"too_many_copies", "concealed_count", "not_a_chi", "not_a_kong", "no_win_shape_wild",
            "image_too_large", "pin_required", "http_not_found", "live_win", "in_hand",
            "internal_error"} <= set(codes)
    assert len(codes) > 150


def test_every_code_has_a_wording_in_both_languages():
    codes = codes_in_source()
    for lang in ("en", "zh"):
        missing = sorted(c for c in codes if c not in catalog(lang))
        assert not missing, f"{lang}.json lacks {missing}"


def test_the_catalogs_match_each_other_and_their_placeholders():
    en, zh = catalog("en"), catalog("zh")
    assert set(en) == set(zh)
    for code in en:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", code)
        assert isinstance(zh[code], str), code  # Chinese has no plural forms
        forms = en[code] if isinstance(en[code], dict) else {"other": en[code]}
        assert set(forms) in ({"other"}, {"one", "other"}), code
        assert all(f.strip() for f in forms.values()) and zh[code].strip()
        en_names = set().union(*(re.findall(r"\{(\w+)\}", f) for f in forms.values()))
        if len(forms) > 1:  # a count picks the form, and every form names the same values
            assert "n" in en_names and len({frozenset(re.findall(r"\{(\w+)\}", f)) for f in forms.values()}) == 1
        # Chinese may leave a value out (the English field name), never invent one; it may name a
        # value's Chinese form (dealer_zh beside dealer)
        assert set(re.findall(r"\{(\w+)\}", zh[code])) <= en_names | {f"{n}_zh" for n in en_names} | {
            "tile_zh", "tiles_zh", "flower_zh"}, code


def test_a_missing_translation_fails_the_check(tmp_path, monkeypatch):
    """The scan would catch a new raise site without wording (negative case of the check above)."""
    fake = tmp_path / "new.py"
    fake.write_text('raise HandError("x", code="brand_new_code")\n')
    monkeypatch.setattr(sys.modules[__name__], "SOURCES", [*SOURCES, fake])
    codes = codes_in_source()
    assert "brand_new_code" in codes and "brand_new_code" not in catalog("zh")


def test_hand_error_keeps_code_params_and_cuts_long_values():
    e = HandError("bad", code="tiles_unreadable", at="x" * 5000, text="y" * 5000, n=3)
    assert e.code == "tiles_unreadable" and e.params["n"] == 3
    assert len(e.params["at"]) == 40 and e.params["at"].endswith("…")
    assert len(str(HandError("z" * 10_000, code="bad_input"))) == 300
    assert short("abc") == "abc"
    a = ApiError(404, "no game", code="no_game", id="q" * 999)
    assert a.status == 404 and len(a.params["id"]) == 40


def test_render_fills_params_and_nested_errors():
    inner = HandError("5 copies", code="too_many_copies", n=5, tile="E", tile_zh="東", cap=4)
    outer = HandError("hand 2: 5 copies", code="in_hand", n=2, cause=inner)
    assert render(outer.code, outer.params, "zh") == "第 2 局：東 有 5 張；一副牌只有 4 張"
    assert render(outer.code, outer.params, "en") == "hand 2: 5 copies of E (東); a set has 4"
    assert render("no_such_code", {}, "zh", "fallback") == "fallback"


def test_a_count_picks_the_english_form():
    """"1 tiles" reads wrong: a template with forms takes "one" for n == 1, "other" else; Chinese
    has one form."""
    assert render("live_count", {"n": 1}, "en") == "1 tile seen; a hand has 16 or 17"
    assert render("live_count", {"n": 12}, "en") == "12 tiles seen; a hand has 16 or 17"
    assert render("live_count", {"n": 0}, "en").startswith("0 tiles seen")
    assert render("live_count", {"n": 1}, "zh") == "看到 1 張牌；一手牌是 16 或 17 張"


# ---- the API: each reproducer of issue 11 item 2, in Chinese and in English ----

CASES = [  # (route, body, code, params subset, Chinese wording)
    ("/api/score", {"concealed": "123456789m123456p5s"}, "winning_tile_missing", {}, "還沒選胡的那張牌"),
    ("/api/score", {"concealed": "123456789m12345p", "winning_tile": "5s"}, "concealed_count",
     {"n": 14, "melds": 0, "expected": 16}, "手牌 14 張、副露 0 組；手牌應該是 16 張"),
    ("/api/score", {"concealed": "EEEEE123456789m5s", "winning_tile": "5s"}, "too_many_copies",
     {"n": 5, "tile": "E", "cap": 4}, "東 有 5 張；一副牌只有 4 張"),
    ("/api/score", {"rules": "yueqing", "concealed": "123456789m123456p5s", "winning_tile": "5s"},
     "caishen_missing", {}, "乐清要先選財神（翻出來當百搭的那張牌）"),
    ("/api/score", {"concealed": "123m", "winning_tile": "5s", "melds": [{"type": "pong", "tiles": "123m"}]},
     "not_a_pong", {"tiles": "1m 2m 3m"}, "1m 2m 3m 不是一組碰（三張相同）"),
]


@pytest.mark.parametrize("route, body, code, params, zh", CASES)
def test_engine_errors_answer_code_params_and_the_request_language(client, route, body, code, params, zh):
    r = client.post(route, json=body, headers={**FETCH, **ZH})
    data = r.get_json()
    assert r.status_code == 400 and data["code"] == code
    assert params.items() <= data["params"].items()
    assert data["error"] == zh
    english = client.post(route, json=body, headers={**FETCH, **EN}).get_json()
    assert english["code"] == code and english["error"] == render(code, data["params"], "en")
    # no Accept-Language (a script): English
    assert client.post(route, json=body, headers=FETCH).get_json()["error"] == english["error"]


def test_a_hand_that_does_not_win_says_why_in_the_request_language(client):
    body = {"concealed": "123456789m123456p5s", "winning_tile": "6s"}
    zh = client.post("/api/score", json=body, headers={**FETCH, **ZH}).get_json()
    assert zh["win"] is False and zh["reason_code"] == "no_win_shape"
    assert zh["reason"] == "這手牌湊不成五組加一對，沒有胡"
    assert client.post("/api/score", json=body, headers=FETCH).get_json()["reason"] == score_json(body)["reason"]


def test_seen_tiles_and_rule_table_errors_are_coded(client):
    r = client.post("/api/waits", json={"concealed": "123456789m123456p5s", "context": {"seen": "5s5s5s5s"}},
                    headers={**FETCH, **ZH})
    assert r.get_json()["code"] == "too_many_copies"
    r = client.post("/api/score", json={"rules": "/etc/passwd", "concealed": "1m"}, headers={**FETCH, **ZH})
    assert r.get_json()["code"] == "unknown_rule_table" and r.get_json()["error"].startswith("沒有「/etc/passwd」")


def test_huge_inputs_are_not_echoed(client):
    body = {"concealed": "Q" * 100_000, "winning_tile": "5s"}
    r = client.post("/api/score", json=body, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "tiles_unreadable"
    assert len(r.get_data()) < 1000


def test_http_errors_are_coded_and_worded(client):
    r = client.get("/api/nothing-here", headers=ZH)
    assert r.status_code == 404 and r.get_json()["code"] == "http_not_found"
    assert r.get_json()["error"] == "找不到這個頁面或資料"
    r = client.get("/api/score", headers=EN)
    assert r.status_code == 405 and r.get_json()["code"] == "http_method_not_allowed"
    r = client.post("/api/score", data=b"{", headers={**FETCH, **ZH, "Content-Type": "application/json"})
    assert r.get_json()["code"] == "malformed_json" and r.get_json()["params"]["line"] == 1


def test_security_refusals_are_coded(client):
    r = client.post("/api/score", json={}, headers=ZH)
    assert r.status_code == 403 and r.get_json()["code"] == "csrf_header"


def error_message(r) -> str:
    """The message of an error page (error.html): the text of its #error-message."""
    m = re.search(r'<p class="status" id="error-message"[^>]*>(.*?)</p>', r.get_data(as_text=True), re.S)
    return m.group(1) if m else ""


def test_the_no_game_page_is_worded_in_the_chosen_language(client):
    r = client.get("/games/zzz", headers=EN)
    assert r.status_code == 404 and error_message(r) == "no game zzz"
    client.set_cookie("lang", "zh")
    r = client.get("/games/0123456789ab", headers=EN)
    assert r.status_code == 404 and error_message(r) == "找不到牌局 0123456789ab"
    # a page like the others, with a way back: never a dead end
    assert r.mimetype == "text/html" and 'href="/games"' in r.get_data(as_text=True)
    r = client.get("/games/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert "<script>alert" not in r.get_data(as_text=True)  # the id is escaped in the page
    r = client.get("/no/such/page")
    assert r.status_code == 404 and error_message(r) == "找不到這個頁面或資料"  # any page error looks the same
    r = client.get("/api/games/zzz", headers=ZH)
    assert r.get_json() == {"error": "找不到牌局 zzz", "code": "no_game", "params": {"id": "zzz"}}


def test_the_catalogs_are_served_to_the_pages(client):
    assert client.get("/api/messages/zh").get_json() == catalog("zh")
    assert client.get("/api/messages/en").get_json() == catalog("en")
    r = client.get("/api/messages/fr")
    assert r.status_code == 404 and r.get_json()["code"] == "unknown_language"


def test_import_errors_name_the_hand(client):
    game = {"format": "taiwan-mahjong-game", "players": ["A", "B", "C", "D"], "rules": "tw-standard",
            "hands": [{"type": "draw"}, {"type": "win", "winner": 9, "discarder": None, "tai": 1}]}
    r = client.post("/api/games/import", json=game, headers={**FETCH, **ZH})
    data = r.get_json()
    assert r.status_code == 400 and data["code"] == "in_hand" and data["params"]["n"] == 2
    assert data["params"]["cause"]["code"] == "not_a_seat"
    assert data["error"] == "第 2 局：winner 要是座位 0–3，收到 9"


def test_photo_errors_are_coded(client):
    r = client.post("/api/recognize", data={"photo": (__import__("io").BytesIO(b"not an image"), "x.jpg")},
                    headers={**FETCH, **ZH}, content_type="multipart/form-data")
    data = r.get_json()
    assert data["code"] in ("photo_unreadable", "no_model")


def test_image_io_errors_carry_codes():
    from vision.image_io import ImageError, read_bytes
    with pytest.raises(ImageError) as e:
        read_bytes(b"")
    assert e.value.code == "file_empty"
    with pytest.raises(ImageError) as e:
        read_bytes(b"x" * 11, max_bytes=10)
    assert e.value.code == "image_too_large" and e.value.params == {"mb": "0.0", "limit_mb": "0"}


def test_the_command_line_keeps_english():
    p = subprocess.run([sys.executable, "-m", "engine", "score"], input=json.dumps({"concealed": "EEEEE", "winning_tile": "1m"}),
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2
    assert p.stderr == "error: 5 copies of E (東); a set has 4\n"
