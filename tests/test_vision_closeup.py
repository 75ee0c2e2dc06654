"""The close-up detector (vision/model.py CLOSEUP_DETECTOR_FILE): the shipped one on a close-up
the main detector cuts into parts, and the training stage that makes it."""
from __future__ import annotations

from pathlib import Path

import pytest

from training.evaluate import evaluate
from vision.model import CLOSEUP_DETECTOR_FILE, Recognizer

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
CLOSEUP = ROOT / "tests" / "fixtures" / "vision-closeup"


def _models_without_closeup(folder: Path) -> Path:
    folder.mkdir()
    for f in MODELS.iterdir():
        if f.is_file() and not f.name.startswith("detector_closeup"):
            (folder / f.name).symlink_to(f)
    return folder


def test_the_shipped_closeup_detector_finds_a_close_tile_whole(tmp_path):
    """A 1筒 and a 9條 filling the photo: the main detector alone finds the 9條's stick columns
    and neither tile; with the close-up detector both tiles are found, and nothing else."""
    with_it = evaluate(CLOSEUP, Recognizer(MODELS), progress=False)
    assert with_it["tiles_found"] == 1.0 and with_it["extras"] == 0
    without = evaluate(CLOSEUP, Recognizer(_models_without_closeup(tmp_path / "m")), progress=False)
    assert without["tiles_found"] < 1.0


def test_the_closeup_stage_exports_given_weights_and_notes_them(tmp_path):
    from training.train import closeup_detector_stage, parse

    models = _models_without_closeup(tmp_path / "m")
    assert Recognizer(models).closeup_detector is None
    info = {}
    weights = tmp_path / "round.pt"  # ultralytics exports next to the weights: never into models/
    weights.write_bytes((MODELS / "detector_closeup.pt").read_bytes())
    args = parse(["--closeup-weights", str(weights)])
    closeup_detector_stage(args, info, tmp_path / "data", tmp_path / "art", tmp_path / "work", models)
    assert (models / CLOSEUP_DETECTOR_FILE).is_file() and (models / "detector_closeup.pt").is_file()
    assert info["closeup_detector"]["weights_given"] is True
    assert Recognizer(models).closeup_detector is not None


@pytest.mark.parametrize("off", [None, {}])
def test_the_closeup_detector_can_be_turned_off(tmp_path, off):
    import json

    models = _models_without_closeup(tmp_path / "m")
    (models / CLOSEUP_DETECTOR_FILE).symlink_to(MODELS / CLOSEUP_DETECTOR_FILE)
    config = json.loads((MODELS / "recognizer.json").read_text())
    config["inference"]["closeup_detector"] = off
    (models / "recognizer.json").unlink()
    (models / "recognizer.json").write_text(json.dumps(config))
    found = evaluate(CLOSEUP, Recognizer(models), progress=False)
    assert found["tiles_found"] < 1.0
