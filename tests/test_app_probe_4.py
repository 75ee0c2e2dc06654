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


def _read_only_database(monkeypatch):
    """Each request's connection opens the database read-only: what SQLite answers when the data
    folder's disk was remounted read-only or the file belongs to another user."""
    from webapp import services

    def read_only(path):
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
        conn.row_factory = sqlite3.Row
        return conn
    monkeypatch.setattr(services, "connect", read_only)


def test_a_read_only_database_refuses_every_write_in_words_and_keeps_the_game(tmp_path, monkeypatch):
    """Every write was a 500 `internal_error` with a traceback in the log."""
    app = make_app(tmp_path)
    c = app.test_client()
    g = _game(c)
    g = c.post(f"/api/games/{g['id']}/hands", json={"type": "draw"}, headers=FETCH).get_json()
    export = c.get(f"/api/games/{g['id']}/export.json").get_json()
    _read_only_database(monkeypatch)
    for method, path, body in (("POST", f"/api/games/{g['id']}/hands", {"type": "draw"}),
                               ("PUT", f"/api/games/{g['id']}/hands/1", {"type": "draw", "version": g["version"]}),
                               ("DELETE", f"/api/games/{g['id']}/hands/1", {}),
                               ("POST", "/api/games", {"players": ["E", "F", "G", "H"]}),
                               ("POST", "/api/games/import", export)):
        r = c.open(path, method=method, json=body, headers=dict(FETCH, **{"Accept-Language": "zh-TW"}))
        assert r.status_code == 507 and r.get_json()["code"] == "disk_read_only", (method, path)
        assert "唯讀" in r.get_json()["error"]
    assert c.get(f"/api/games/{g['id']}").get_json() == g  # reads still work, nothing changed
    assert [line["id"] for line in c.get("/api/games").get_json()] == [g["id"]]


def test_a_read_only_photo_folder_refuses_the_photo_in_words(tmp_path, monkeypatch):
    import errno
    import io
    import os

    from tests.app_support import FakeRecognizer, fixture_photo, row

    c = make_app(tmp_path, RECOGNIZER=FakeRecognizer(row([0, 1, 2]))).test_client()
    kept = c.post("/api/recognize", data={"photo": (io.BytesIO(fixture_photo()), "p.jpg")}, headers=FETCH)
    for thumb in (tmp_path / "data" / "photos").glob("**/thumbs/*"):
        thumb.unlink()

    def read_only(*_a, **_k):
        raise OSError(errno.EROFS, "Read-only file system")
    monkeypatch.setattr(os, "fsync", read_only)
    # a thumbnail can be made again: it is still served, only not kept
    assert c.get(kept.get_json()["thumb_url"]).status_code == 200
    photo = fixture_photo()[:-2] + b"\x00\xff\xd9"  # another photo, not stored yet
    r = c.post("/api/recognize", data={"photo": (io.BytesIO(photo), "p.jpg")}, headers=FETCH)
    assert r.status_code == 507 and r.get_json()["code"] == "disk_read_only"
    assert not list((tmp_path / "data" / "photos").glob("**/*.tmp"))


def test_a_backup_that_fills_the_disk_leaves_no_partial_archive(tmp_path, monkeypatch, capsys):
    """A backup cut short by a full disk left its .part file, as large as the disk had room for:
    the disk stayed full, and the app refused every hand (507) until someone found the file."""
    import errno
    import tarfile

    from tools.backup import main

    make_app(tmp_path).test_client().post("/api/games", json={"players": PLAYERS}, headers=FETCH)
    (tmp_path / "data" / "photos").mkdir(exist_ok=True)
    (tmp_path / "data" / "photos" / "a.jpg").write_bytes(b"jpeg" * 1000)
    real_add = tarfile.TarFile.add

    def add(self, name, *args, **kwargs):
        if str(name).endswith("photos"):
            self.fileobj.write(b"x" * 4096)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_add(self, name, *args, **kwargs)
    monkeypatch.setattr(tarfile.TarFile, "add", add)
    assert main(["--data", str(tmp_path / "data"), "--out", str(tmp_path / "backups")]) == 2
    assert "No space left" in capsys.readouterr().err
    assert list((tmp_path / "backups").iterdir()) == []


@pytest.mark.parametrize("damage, says", [("UPDATE schema_version SET version = 'x'", "holds 'x'"),
                                          ("UPDATE schema_version SET version = 1.5", "holds 1.5"),
                                          ("UPDATE schema_version SET version = -1", "holds -1"),
                                          ("DELETE FROM schema_version", "row is missing")])
def test_a_damaged_schema_version_stops_the_start_in_words_and_changes_nothing(tmp_path, damage, says):
    """The start failed with a bare TypeError, or ran the first migration again ('table games
    already exists'): nothing said the file was damaged, nor what to do."""
    app = make_app(tmp_path)
    _game(app.test_client())
    app.extensions["mahjong"].keeper.close()
    path = app.extensions["mahjong"].db_path
    with sqlite3.connect(path) as conn:
        conn.execute(damage)
    with pytest.raises(RuntimeError, match="schema_version") as caught:
        make_app(tmp_path)
    assert says in str(caught.value) and "backup" in str(caught.value)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
        assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == (0 if "DELETE" in damage else 1)


def test_one_game_comes_back_from_a_backup_as_the_readme_says(tmp_path):
    """README, 'Where the data lives': a second app on the unpacked archive exports the game, the
    running app imports it; the games recorded since the backup stay."""
    import tarfile

    from tools.backup import backup

    app = make_app(tmp_path / "live")
    c = app.test_client()
    g = _game(c)
    for tai in (1, 2, 3):
        g = c.post(f"/api/games/{g['id']}/hands", json={"type": "win", "winner": 1, "discarder": 2, "tai": tai},
                   headers=FETCH).get_json()
    archive = backup(tmp_path / "live" / "data", tmp_path / "backups")
    c.delete(f"/api/games/{g['id']}/hands/2?version={g['version']}", headers=FETCH)  # the mistake
    newer = _game(c)
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "old", filter="data")
    old = make_app(tmp_path / "old").test_client()
    export = old.get(f"/api/games/{g['id']}/export.json")
    assert export.status_code == 200
    r = c.post("/api/games/import", data=export.data, content_type="application/json", headers=FETCH)
    assert r.status_code == 201
    back = r.get_json()
    assert [h["hand_tai"] for h in back["hands"]] == [1, 2, 3] and back["totals"] == g["totals"]
    assert {line["id"] for line in c.get("/api/games").get_json()} == {g["id"], newer["id"], back["id"]}
