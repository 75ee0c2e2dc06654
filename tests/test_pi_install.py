"""The Raspberry Pi install: the systemd unit as `make install-service` fills it in, and backups."""
from __future__ import annotations

import re
import sqlite3
import subprocess
import tarfile
from datetime import datetime
from pathlib import Path

from tests.app_support import FETCH, make_app
from tools.backup import backup

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "tools/pi/table-companion.service"


def filled_unit(root="/home/pi/mahjong", user="pi", port="8000") -> str:
    """The unit as the Makefile's sed writes it (the same expressions, read from the Makefile)."""
    make = (ROOT / "Makefile").read_text()
    sed = re.search(r"sed (-e .*?) \\\n\s*tools/pi/\$\(SERVICE\)\.service", make).group(1)
    sed = sed.replace("$(CURDIR)", root).replace("$(SERVICE_USER)", user).replace("$(PORT)", port)
    return subprocess.run(f"sed {sed} {UNIT}", shell=True, check=True, capture_output=True, text=True).stdout


def test_the_service_starts_the_app_at_boot_and_restarts_it():
    unit = filled_unit()
    assert "@" not in re.sub(r"#.*", "", unit)  # every placeholder filled
    assert "ExecStart=/home/pi/mahjong/.venv/bin/python app.py" in unit
    assert "WorkingDirectory=/home/pi/mahjong" in unit and "User=pi" in unit
    assert "Restart=always" in unit and "WantedBy=multi-user.target" in unit
    assert "MAHJONG_DATA=/home/pi/mahjong/data" in unit and "HOST=0.0.0.0 PORT=8000" in unit
    assert "EnvironmentFile=-/etc/default/table-companion" in unit  # TABLE_PIN, CAMERA live there


def test_backup_copies_the_records_of_a_running_app(tmp_path):
    client = make_app(tmp_path).test_client()
    game = client.post("/api/games", json={"players": ["阿明", "小美", "阿德", "Bob"]}, headers=FETCH)
    assert game.status_code == 201, game.get_json()
    (tmp_path / "data/photos").mkdir(exist_ok=True)
    (tmp_path / "data/photos/ab.jpg").write_bytes(b"jpeg")
    (tmp_path / "data/photos/cd.jpg.tmp").write_bytes(b"half")  # an upload cut short: not kept
    out = backup(tmp_path / "data", tmp_path / "backups", now=datetime(2026, 12, 1, 9, 30))
    assert out.name == "table-companion-20261201-093000.tar.gz"
    with tarfile.open(out) as tar:
        names = tar.getnames()
        tar.extractall(tmp_path / "restore", filter="data")
    assert "data/photos/ab.jpg" in names and not any(n.endswith(".tmp") for n in names)
    with sqlite3.connect(tmp_path / "restore/data/mahjong.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 1


def test_backup_of_a_missing_folder_says_where_it_looked(tmp_path, capsys):
    from tools.backup import main
    assert main(["--data", str(tmp_path / "nowhere"), "--out", str(tmp_path / "b")]) == 2
    assert "no game records" in capsys.readouterr().err


def test_backup_of_a_data_folder_whose_path_holds_a_hash_or_question_mark(tmp_path):
    """The SQLite URI once ended at '#': the archive held an empty database and a stray file."""
    for name in ("we#ird", "q?x"):
        data = tmp_path / name / "data"
        make_app(data.parent).test_client().post("/api/games", json={"players": list("ABCD")}, headers=FETCH)
        out = backup(data, tmp_path / name / "backups")
        with tarfile.open(out) as tar:
            tar.extractall(tmp_path / name / "restore", filter="data")
        with sqlite3.connect(tmp_path / name / "restore/data/mahjong.sqlite3") as db:
            assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1, name
    assert not (tmp_path / "we").exists() and not (tmp_path / "q").exists()


def test_a_damaged_or_empty_database_is_no_backup(tmp_path, capsys):
    from tools.backup import main

    data = tmp_path / "data"
    client = make_app(tmp_path).test_client()
    for k in range(40):
        client.post("/api/games", json={"players": [f"p{k}{s}" for s in "ABCD"]}, headers=FETCH)
    db = data / "mahjong.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every row in the file itself
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'hands'").fetchone()[0]
    conn.close()
    raw = bytearray(db.read_bytes())
    start = (root - 1) * page
    raw[start:start + 200] = b"\xff" * 200  # the hands table's page overwritten
    db.write_bytes(bytes(raw))
    assert main(["--data", str(data), "--out", str(tmp_path / "b1")]) == 2
    err = capsys.readouterr().err
    assert "damaged" in err or "malformed" in err, err
    assert not list((tmp_path / "b1").glob("*.tar.gz"))
    db.write_bytes(b"")
    assert main(["--data", str(data), "--out", str(tmp_path / "b2")]) == 2
    assert "no game records" in capsys.readouterr().err
    assert not list((tmp_path / "b2").glob("*.tar.gz"))
