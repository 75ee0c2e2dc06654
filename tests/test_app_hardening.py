"""Issue 12: every reproducer of the outside probe, as a test (Flask test client unless the fault
needs the real thing). tools/probe.py replays the same probe against a running server."""
from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.app_support import FETCH, FakeRecognizer, client, make_app, row  # noqa: F401  (client: fixture)
from webapp.jsonsafe import depth, text_depth

JSON = dict(FETCH, **{"Content-Type": "application/json"})
HAND = {"concealed": "EEESSSWWWNN123m55p", "winning_tile": "5p", "self_drawn": True}
ROOT = Path(__file__).resolve().parent.parent


def _game(c) -> dict:
    return c.post("/api/games", json={"players": list("ABCD")}, headers=FETCH).get_json()


# 1. deeply nested JSON
@pytest.mark.parametrize("route", ["/api/score", "/api/waits", "/api/advise", "/api/pin", "/api/games",
                                   "/api/games/import", "/api/examples"])
def test_deeply_nested_bodies_are_400(client, route):
    r = client.post(route, data="[" * 100000 + "]" * 100000, headers=JSON)
    assert r.status_code == 400 and r.get_json()["code"] == "json_too_deep"
    r = client.post(route, data='{"concealed": ' + "[" * 5000 + "]" * 5000 + "}", headers=JSON)
    assert r.status_code == 400 and r.get_json()["code"] == "json_too_deep"


def test_nested_bodies_on_hand_routes(client):
    g = _game(client)
    for method, path in (("post", f"/api/games/{g['id']}/hands"), ("put", f"/api/games/{g['id']}/hands/1"),
                         ("delete", f"/api/games/{g['id']}/hands/1")):
        r = getattr(client, method)(path, data="[" * 100000 + "]" * 100000, headers=JSON)
        assert r.status_code == 400 and r.get_json()["code"] == "json_too_deep", path


def test_nested_melds_in_live_are_400(tmp_path):
    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer(row(list(range(16))))).test_client()
    r = c.post("/api/live", data={"melds": "[" * 100000 + "]" * 100000,
                                  "frame": (io.BytesIO(b"x"), "f.jpg")}, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "json_too_deep"


def test_text_depth_ignores_brackets_in_strings():
    for value in ([[1]], ["[[[["], ['\\"[[['], ["a\\", [1]], {"中[": ["é\"{"]}, "x", []):
        assert text_depth(json.dumps(value, ensure_ascii=False)) == depth(value)


# 2. a poisoned game
POISON = '{"type": "win", "winner": 0, "discarder": null, "tai": 1, "scored": ' + '{"a":' * 977 + "1" + "}" * 977 + "}"


def test_a_deep_scored_is_refused_and_nothing_is_stored(client):
    g = _game(client)
    r = client.post(f"/api/games/{g['id']}/hands", data=POISON, headers=JSON)
    assert r.status_code == 400
    assert client.get(f"/api/games/{g['id']}").get_json()["hands"] == []
    shallow = {"type": "win", "winner": 0, "discarder": None, "tai": 1, "scored": json.loads('{"a":' * 12 + "1" + "}" * 12)}
    r = client.post(f"/api/games/{g['id']}/hands", json=shallow, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "scored_too_deep"
    wide = {"type": "win", "winner": 0, "discarder": None, "tai": 1, "scored": {"a": "台" * 30000}}  # 30,000 chars, 90 KB
    r = client.post(f"/api/games/{g['id']}/hands", json=wide, headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "scored_too_large"


def test_reads_survive_a_poisoned_row_already_stored(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    g = _game(c)
    c.post(f"/api/games/{g['id']}/hands", json={"type": "win", "winner": 0, "discarder": None, "tai": 1}, headers=FETCH)
    db = sqlite3.connect(tmp_path / "data" / "mahjong.sqlite3")
    db.execute("UPDATE hands SET scored = ?", ('{"a":' * 977 + "1" + "}" * 977,))
    db.commit()
    for path in (f"/api/games/{g['id']}", f"/api/games/{g['id']}/export.json", f"/api/games/{g['id']}/export.csv",
                 "/api/games"):
        assert c.get(path).status_code == 200, path
    assert c.get(f"/api/games/{g['id']}").get_json()["hands"][0]["scored"] is None


# 3. odd numbers
@pytest.mark.parametrize("version", ["%C2%B2", "9" * 5000, "-1", "1.0"])
def test_odd_versions_in_the_query_are_400(client, version):
    g = _game(client)
    client.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH)
    r = client.delete(f"/api/games/{g['id']}/hands/1?version={version}", headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "version_not_int"


def test_a_huge_version_in_the_body_is_not_a_500(client):
    g = _game(client)
    r = client.post(f"/api/games/{g['id']}/hands", data='{"type": "draw", "version": ' + "9" * 5000 + "}",
                    headers=JSON)
    assert r.status_code == 400


def test_huge_stakes_are_refused_not_infinity(client):
    r = client.post("/api/score", json=dict(HAND, stakes={"base": 1e308, "per_tai": 1e308}), headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "stake_out_of_range"
    assert b"Infinity" not in r.data
    ok = client.post("/api/score", json=dict(HAND, stakes={"base": 1e9, "per_tai": 1e9}), headers=FETCH)
    assert ok.status_code == 200 and b"Infinity" not in ok.data


def test_seen_cannot_hold_more_copies_than_a_set(client):
    r = client.post("/api/waits", json={"concealed": "123456789m123456p5s", "context": {"seen": "1m" * 500000}},
                    headers=FETCH)
    assert r.status_code == 400 and r.get_json()["code"] == "too_many_copies"


# 4. thin images (the real model)
@pytest.mark.skipif(not (ROOT / "models" / "detector.onnx").is_file(), reason="no model")
@pytest.mark.parametrize("size", [(1, 4096), (4096, 1), (40000, 1)])
def test_thin_images_are_read_not_500(tmp_path, size):
    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 200, 200)).save(buf, "PNG")
    c = make_app(tmp_path, MODELS_DIR=ROOT / "models").test_client()
    for route, field in (("/api/recognize", "photo"), ("/api/live", "frame")):
        r = c.post(route, data={field: (io.BytesIO(buf.getvalue()), "thin.png")}, headers=FETCH)
        assert r.status_code == 200, (route, r.get_json())


# 5. PIN brute force
def _pin_app(tmp_path):
    app = make_app(tmp_path, TABLE_PIN="4821")
    now = [1000.0]
    app.extensions["mahjong"].pin_throttle.clock = lambda: now[0]
    return app.test_client(), now


def test_pin_headers_are_throttled_too(tmp_path):
    c, now = _pin_app(tmp_path)
    codes = [c.post("/api/score", json=HAND, headers=dict(FETCH, **{"X-Table-Pin": f"{i:04d}"})).status_code
             for i in range(8)]
    assert codes == [403] * 5 + [429] * 3
    r = c.post("/api/score", json=HAND, headers=dict(FETCH, **{"X-Table-Pin": "4821"}))
    assert r.status_code == 429 and r.headers["Retry-After"] == "1" and r.get_json()["code"] == "pin_wait"
    assert c.get("/api/pin", headers={"X-Table-Pin": "4821"}).status_code == 429  # no oracle on reads
    now[0] += 1.1
    assert c.post("/api/score", json=HAND, headers=dict(FETCH, **{"X-Table-Pin": "4821"})).status_code == 200


def test_the_delay_grows_but_stays_short(tmp_path):
    c, now = _pin_app(tmp_path)
    waits = []
    for i in range(20):
        r = c.post("/api/pin", json={"pin": f"{i:04d}"}, headers=FETCH)
        if r.status_code == 429:
            waits.append(int(r.headers["Retry-After"]))
            now[0] += waits[-1]
            c.post("/api/pin", json={"pin": f"{i:04d}"}, headers=FETCH)
    assert waits == sorted(waits) and max(waits) == 60
    now[0] += 60
    assert c.post("/api/pin", json={"pin": "4821"}, headers=FETCH).status_code == 200
    assert c.post("/api/pin", json={"pin": "0000"}, headers=FETCH).status_code == 403  # counting anew


# 6. DNS rebinding
def test_a_rebound_host_is_refused(client):
    r = client.post("/api/games", json={"players": list("ABCD")},
                    headers=dict(FETCH, Host="rebind.example:8000", Origin="http://rebind.example:8000"))
    assert r.status_code == 400 and r.get_json()["code"] == "host_not_served"
    assert client.get("/api/games", headers={"Host": "rebind.example"}).status_code == 400
    for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000"):
        assert client.get("/api/games", headers={"Host": host}).status_code == 200, host


def test_any_address_is_served_but_no_other_name(client):
    """Rebinding always comes under a domain name; a bare address (a Pi's new DHCP lease, its
    second interface) is safe to answer."""
    for host in ("192.168.1.57:8000", "10.0.0.2", "[fe80::1]:8000"):
        assert client.get("/api/games", headers={"Host": host}).status_code == 200, host
    for host in ("192.168.1.57.rebind.example", "1.2.3.4.nip.io:8000", "raspberrypi.local"):
        assert client.get("/api/games", headers={"Host": host}).status_code == 400, host


def test_configured_and_lan_names_are_served(tmp_path):
    c = make_app(tmp_path, ALLOWED_HOSTS="mahjong.example, table.lan").test_client()
    assert c.get("/api/health", headers={"Host": "Mahjong.Example"}).status_code == 200
    assert c.get("/api/health", headers={"Host": "table.lan:8000"}).status_code == 200
    lan = make_app(tmp_path, HOST="0.0.0.0").config["SERVED_HOSTS"]
    from webapp.lan import lan_address
    assert lan_address() is None or lan_address() in lan


def test_origin_must_match_the_scheme_too(client):
    r = client.post("/api/score", json=HAND, headers=dict(FETCH, Origin="https://localhost"))
    assert r.status_code == 403
    assert client.post("/api/score", json=HAND, headers=dict(FETCH, Origin="http://localhost")).status_code == 200


# 7. memory per upload (a fresh process: its peak RSS is the decode's)
MEMORY_PROBE = """
import io, resource, sys
from PIL import Image
from vision.image_io import load_image
buf = io.BytesIO(); Image.new("RGB", (7071, 7071)).save(buf, "PNG"); data = buf.getvalue(); del buf
import gc; gc.collect()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
image = load_image(data)
print(image.shape[0], image.shape[1], (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)
"""


def test_decoding_a_50_megapixel_png_stays_within_its_budget():
    from vision.image_io import _open, decode_bytes
    out = subprocess.run([sys.executable, "-c", MEMORY_PROBE], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    h, w, extra_mib = map(int, out)
    assert (h, w) == (4096, 4096)
    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (7071, 7071)).save(buf, "PNG")
    assert extra_mib * 2**20 <= decode_bytes(_open(buf.getvalue(), 50_000_000)) <= 420 * 2**20


def test_concurrent_decodes_wait_for_the_budget():
    import threading
    import time

    from webapp.imaging import DecodeBudget
    budget, running, peak = DecodeBudget(100), [0], [0]

    def decode():
        with budget(60):
            running[0] += 1
            peak[0] = max(peak[0], running[0])
            time.sleep(0.05)
            running[0] -= 1
    threads = [threading.Thread(target=decode) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 1


# 8. a full disk
def test_a_full_database_answers_507_and_reads_still_work(tmp_path, monkeypatch):
    app = make_app(tmp_path)
    c = app.test_client()
    g = _game(c)
    from webapp import db, services
    real = db.connect

    def full(path):
        conn = real(path)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLITE_FULL, as on a full disk
        return conn
    monkeypatch.setattr(services, "connect", full)
    body = {"type": "win", "winner": 0, "discarder": None, "tai": 1, "scored": {"pad": "x" * 60000}}
    r = c.post(f"/api/games/{g['id']}/hands", json=body, headers=FETCH)
    assert r.status_code == 507 and r.get_json()["code"] == "disk_full"
    assert c.get(f"/api/games/{g['id']}").status_code == 200 and c.get("/api/games").status_code == 200


def test_a_full_disk_for_photos_answers_507(tmp_path, monkeypatch):
    import errno
    import os
    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer(row([0, 1, 2]))).test_client()
    from tests.app_support import fixture_photo

    def no_space(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", no_space)
    r = c.post("/api/recognize", data={"photo": (io.BytesIO(fixture_photo()), "p.jpg")}, headers=FETCH)
    assert r.status_code == 507 and r.get_json()["code"] == "disk_full"
    assert not list((tmp_path / "data" / "photos").glob("**/*.tmp"))


# 9. smaller things
def test_pages_carry_a_content_security_policy(client):
    csp = client.get("/").headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp


def test_the_session_cookie_is_secure_behind_https(tmp_path):
    c = make_app(tmp_path, TABLE_PIN="4821", PROXIES=1).test_client()
    r = c.post("/api/pin", json={"pin": "4821"}, headers=dict(FETCH, **{"X-Forwarded-Proto": "https"}))
    assert r.status_code == 200 and "Secure" in r.headers["Set-Cookie"]
    plain = make_app(tmp_path, TABLE_PIN="4821").test_client()
    assert "Secure" not in plain.post("/api/pin", json={"pin": "4821"}, headers=FETCH).headers["Set-Cookie"]


def test_a_locked_session_cookie_is_dead_even_when_copied(tmp_path):
    app = make_app(tmp_path, TABLE_PIN="4821")
    c = app.test_client()
    c.post("/api/pin", json={"pin": "4821"}, headers=FETCH)
    copied = c.get_cookie("session").value
    c.delete("/api/pin", headers=FETCH)
    thief = app.test_client()
    thief.set_cookie("session", copied)
    assert thief.post("/api/score", json=HAND, headers=FETCH).status_code == 403


def test_a_big_form_field_says_so(tmp_path):
    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer([])).test_client()
    r = c.post("/api/live", data={"seen": "1m" * 300000, "frame": (io.BytesIO(b"x"), "f.jpg")}, headers=FETCH)
    assert r.status_code == 413 and r.get_json()["code"] == "form_field_too_large"
    assert "20 MB" not in r.get_json()["error"].split("(")[0]


def test_errors_never_echo_a_huge_input(client):
    junk = "x" * 1_000_000
    for body in ({"concealed": junk}, {"rules": junk}, {"concealed": "1m", "context": {junk: 1}}):
        r = client.post("/api/score", json=body, headers=FETCH)
        assert r.status_code == 400 and len(r.data) < 2000


def test_orphaned_temporary_files_are_removed_at_start(tmp_path):
    photos = tmp_path / "data" / "photos"
    (photos / "thumbs").mkdir(parents=True)
    for orphan in (photos / ".abc.jpg.1234abcd.tmp", photos / "thumbs" / ".abc.jpg.5678abcd.tmp"):
        orphan.write_bytes(b"half a photo")
    (photos / "keep.jpg").write_bytes(b"x")
    make_app(tmp_path)
    assert [p.name for p in photos.glob("**/*") if p.is_file()] == ["keep.jpg"]


def test_the_photo_folder_has_a_quota(tmp_path):
    from tests.app_support import fixture_photo
    photo = fixture_photo()
    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer(row([0])), PHOTO_QUOTA_MB=len(photo) * 1.5 / 2**20).test_client()
    first = c.post("/api/recognize", data={"photo": (io.BytesIO(photo), "a.jpg")}, headers=FETCH)
    assert first.status_code == 200
    again = c.post("/api/recognize", data={"photo": (io.BytesIO(photo), "a.jpg")}, headers=FETCH)
    assert again.status_code == 200  # the same photo is stored once
    other = c.post("/api/recognize", data={"photo": (io.BytesIO(photo + b"\0"), "b.jpg")}, headers=FETCH)
    assert other.status_code == 507 and other.get_json()["code"] == "photo_quota_full"
