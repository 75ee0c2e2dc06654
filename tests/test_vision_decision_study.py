"""python -m training.decision_study: a decision section's before -> after rows, by command."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from training.decision_study import main, parse_set

ROOT = Path(__file__).resolve().parent.parent
PLATE = ROOT / "tests" / "fixtures" / "vision-table-plate"


def test_a_setting_changed_shows_in_the_rows_and_the_card(tmp_path, capsys):
    """IMG_2766's automatic-table plate is dropped by two doubts; with blank_drop_score 0 the
    screening keeps it, and the row says so: an extra, and the photo no longer exactly right."""
    card = tmp_path / "card"
    card.mkdir()
    shutil.copyfile(ROOT / "models" / "recognizer.json", card / "recognizer.json")
    assert main(["--set", f"table plate={PLATE}", "--after-config", '{"screen": {"blank_drop_score": 0.0}}',
                 "--key", "plate_study", "--card", str(card)]) == 0
    rows = json.loads((card / "recognizer.json").read_text(encoding="utf-8"))["training"]["plate_study"]["rows"]
    assert len(rows) == 1 and rows[0]["name"] == "table plate: 1 photos"
    assert (rows[0]["extras_before"], rows[0]["extras_after"]) == (0, 1)
    assert (rows[0]["exact_before"], rows[0]["exact_after"]) == ("100.0%", "0.0%")
    assert rows[0]["tiles_before"] == rows[0]["tiles_after"] == "100.0%"
    assert "| table plate: 1 photos | " in capsys.readouterr().out
    assert (card / "README.md").exists()
    assert json.loads((ROOT / "models" / "recognizer.json").read_text(encoding="utf-8"))["training"].get(
        "plate_study") is None  # the shipped card untouched


def test_the_same_recognizer_twice_is_refused():
    with pytest.raises(SystemExit):
        main(["--set", f"plate={PLATE}"])


@pytest.mark.parametrize("text", ["no-folder", "=folder", "name="])
def test_a_set_without_name_and_folder_is_refused(text):
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        parse_set(text)
    assert parse_set(" pink = /tmp/pink ") == ("pink", Path("/tmp/pink"))


def test_decision_study_docstring_examples():
    """How a row's figures are counted and how a setting reaches a scratch models folder."""
    import doctest

    import training.decision_study

    result = doctest.testmod(training.decision_study)
    assert result.failed == 0 and result.attempted >= 3
