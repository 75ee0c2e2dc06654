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
