"""The close-up detector (vision/model.py CLOSEUP_DETECTOR_FILE): the shipped one on a close-up
the main detector cuts into parts, and the training stage that makes it."""
from __future__ import annotations

from pathlib import Path

import pytest

from training.decision_study import with_settings
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
    # the look from further (vision/further.py) finds such tiles whole by another road: off too
    without = Recognizer(with_settings(_models_without_closeup(tmp_path / "m"), {"read_further": None}, tmp_path / "s"))
    without = evaluate(CLOSEUP, without, progress=False)
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
def test_the_closeup_detector_can_be_turned_off(off, shipped_models_with):
    found = evaluate(CLOSEUP, Recognizer(shipped_models_with("closeup_detector", off, also={"read_further": None})),
                     progress=False)
    assert found["tiles_found"] < 1.0


# --- its adapt (training/adapt_detector.py adapt_closeup_detector) ---------------------------------

def _photo(n_tiles: int):
    import numpy as np

    boxes = np.array([[10 + 60 * i, 10, 60 + 60 * i, 80] for i in range(n_tiles)], np.float32)
    return np.zeros((100, 60 * n_tiles + 20, 3), np.uint8), boxes


def test_only_photos_of_a_few_tiles_are_the_closeup_detectors():
    from training.adapt_detector import closeup_photos

    photos = [_photo(1), _photo(6), _photo(7), _photo(17)]
    assert [len(b) for _, b in closeup_photos(photos, 6)] == [1, 6]
    assert closeup_photos([_photo(0)], 6) == []


def test_closeup_adapt_is_skipped_without_a_closeup_detector_or_two_closeups(tmp_path, monkeypatch,
                                                                             shipped_models_with):
    import training.adapt_detector as ad

    monkeypatch.setattr(ad, "adapt_detector", lambda *a, **k: pytest.fail("must not tune"))
    without = _models_without_closeup(tmp_path / "m")
    assert "no close-up detector" in ad.adapt_closeup_detector(without, [_photo(2)] * 3)["skipped"]
    r = ad.adapt_closeup_detector(MODELS, [_photo(2), _photo(17), _photo(20)])
    assert r["installed"] is False and r["photos"] == 1 and "2 such photos" in r["skipped"]
    off = shipped_models_with("closeup_detector", None)  # turned off: nothing to adapt
    assert "no close-up detector" in ad.adapt_closeup_detector(off, [_photo(2)] * 3)["skipped"]


def test_closeup_adapt_tunes_the_closeup_files_on_the_closeups(monkeypatch):
    import training.adapt_detector as ad

    seen = {}
    monkeypatch.setattr(ad, "adapt_detector", lambda models, photos, **k: seen.update(photos=photos, **k) or {"ok": 1})
    photos = [_photo(1), _photo(3), _photo(17)]
    assert ad.adapt_closeup_detector(MODELS, photos, epochs=2) == {"ok": 1}
    assert [len(b) for _, b in seen["photos"]] == [1, 3] and seen["epochs"] == 2
    assert seen["files"] == ("detector_closeup.pt", CLOSEUP_DETECTOR_FILE) and seen["name"] == "closeup_detector"


def test_a_better_closeup_detector_is_installed_beside_the_detector_and_the_old_kept(tmp_path, monkeypatch):
    import shutil

    import training.adapt_detector as ad

    models = tmp_path / "models"
    models.mkdir()
    for name in ("detector.pt", "detector.onnx", "detector_closeup.pt", CLOSEUP_DETECTOR_FILE, "classifier.onnx",
                 "recognizer.json"):
        shutil.copy2(MODELS / name, models / name)
    old, main = (models / CLOSEUP_DETECTOR_FILE).read_bytes(), (models / "detector.onnx").read_bytes()
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "new.pt").write_bytes(b"new weights")
    shutil.copy2(MODELS / "detector.onnx", fake / "new.onnx")  # a detector that loads
    calls = iter([{"tiles": 4, "missed": 2, "extra": 0, "errors": 2}, {"tiles": 2, "missed": 1, "extra": 0, "errors": 1},
                  {"tiles": 2, "missed": 0, "extra": 0, "errors": 0}, {"tiles": 8, "missed": 0, "extra": 0, "errors": 0},
                  {"tiles": 8, "missed": 0, "extra": 0, "errors": 0}, {"tiles": 4, "missed": 0, "extra": 0, "errors": 0}])
    monkeypatch.setattr(ad, "detector_errors", lambda rec, photos: next(calls))
    monkeypatch.setattr(ad, "fine_tune", lambda *a, **k: fake / "new.pt")
    monkeypatch.setattr("training.train_detector.export_detector",
                        lambda pt, out, imgsz=416, calibration=None: fake / "new.onnx")
    r = ad.adapt_closeup_detector(models, [_photo(2), _photo(2), _photo(17)], epochs=1, imgsz=96,
                                  work=tmp_path / "work")
    assert r["installed"] and r["photos"] == 2 and r["installed_trained_on"] == 2
    assert (models / "previous" / CLOSEUP_DETECTOR_FILE).read_bytes() == old
    assert (models / "detector_closeup.pt").read_bytes() == b"new weights"
    assert (models / "detector.onnx").read_bytes() == main and not (models / "previous" / "detector.onnx").exists()
