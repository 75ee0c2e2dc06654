"""Back up the app's data while it runs: a consistent copy of the game records and the photos.

    .venv/bin/python tools/backup.py [--data data] [--out backups]

SQLite's online backup copies the database page by page under its own locks, so a hand being
recorded meanwhile is either in the copy or not, never half; photos are files named by their
hash and are copied as they are. The result is one .tar.gz named by the date and time.
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tarfile
import tempfile
from datetime import datetime
from pathlib import Path

DB_NAME = "mahjong.sqlite3"
KEPT = ("photos", "examples", "calibration", "secret_key")  # what else the data folder holds worth keeping


def backup(data_dir: Path, out_dir: Path, now: datetime | None = None) -> Path:
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    db = data_dir / DB_NAME
    if not db.is_file():
        raise FileNotFoundError(f"no game records at {db} (is --data the app's MAHJONG_DATA folder?)")
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    target = out_dir / f"table-companion-{stamp}.tar.gz"
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / DB_NAME
        # as_uri: a '#' or '?' in the folder's path is part of the name, not the URI's fragment or query
        with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as src, sqlite3.connect(copy) as dst:
            src.backup(dst)
        _check_copy(copy, db)
        partial = target.with_suffix(".part")
        try:
            with tarfile.open(partial, "w:gz") as tar:
                tar.add(copy, arcname=f"data/{DB_NAME}")
                for name in KEPT:
                    if (data_dir / name).exists():
                        tar.add(data_dir / name, arcname=f"data/{name}",
                                filter=lambda info: None if info.name.endswith(".tmp") else info)
            os.replace(partial, target)  # a backup cut short never looks complete
        except BaseException:
            # a disk filled by the archive would also refuse the app's next hand (507): give it back
            partial.unlink(missing_ok=True)
            raise
    return target


def _check_copy(copy: Path, db: Path) -> None:
    """sqlite3.DatabaseError unless the copy holds the app's tables, undamaged: a backup that
    could not be restored must never look like one."""
    with sqlite3.connect(copy) as conn:
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    if problems != ["ok"]:
        raise sqlite3.DatabaseError(f"the game records at {db} are damaged ({'; '.join(problems[:3])}); "
                                    "no backup written")
    if not {"games", "hands"} <= tables:
        raise sqlite3.DatabaseError(f"{db} holds no game records (no games table); no backup written")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/backup.py", description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("MAHJONG_DATA", "data"), help="the app's data folder")
    ap.add_argument("--out", default="backups", help="folder for the .tar.gz (default backups/)")
    args = ap.parse_args(argv)
    try:
        print(backup(Path(args.data), Path(args.out)))
    except (OSError, sqlite3.Error) as exc:
        print(f"backup: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
