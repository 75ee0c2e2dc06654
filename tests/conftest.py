"""Fixtures shared by the test modules."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parent.parent / "models"


@pytest.fixture
def shipped_models_with(tmp_path):
    """make(key, value, also): a folder of links to the shipped model files whose recognizer.json
    sets inference[key] to value (None turns an optional model off), and each of also's keys too."""
    def make(key: str, value, also: dict | None = None) -> Path:
        folder = tmp_path / f"models-{key}"
        folder.mkdir()
        for f in MODELS.iterdir():
            if f.is_file() and f.name != "recognizer.json":
                (folder / f.name).symlink_to(f)
        config = json.loads((MODELS / "recognizer.json").read_text())
        config["inference"][key] = value
        config["inference"].update(also or {})
        (folder / "recognizer.json").write_text(json.dumps(config))
        return folder
    return make


@pytest.fixture
def shipped_and_changed(shipped_models_with):
    """read(photos, key, value): evaluate()'s figures on a labelled folder with the shipped models
    and with inference[key] set to value, as (shipped, changed)."""
    def read(photos: Path, key: str, value) -> tuple[dict, dict]:
        from training.evaluate import evaluate
        from vision.model import Recognizer

        return (evaluate(photos, Recognizer(MODELS), progress=False),
                evaluate(photos, Recognizer(shipped_models_with(key, value)), progress=False))
    return read


@pytest.fixture
def models_with_reader(tmp_path):
    """make(file, net, export): the shipped detector, classifier and settings in a fresh folder,
    and beside them net exported by export(net, path) as file alone of the optional models."""
    def make(file: str, net, export) -> Path:
        for name in ("detector.onnx", "classifier.onnx", "recognizer.json"):
            shutil.copy2(MODELS / name, tmp_path / name)
        export(net, tmp_path / file)
        return tmp_path
    return make


@pytest.fixture
def few_rehearsal_sets(monkeypatch):
    """adapt draws its rehearsal tiles from one procedural set instead of REPLAY_SETS: the same
    code path, an eighth of the drawing (about 1 s instead of 8)."""
    monkeypatch.setattr("training.adapt_replay.REPLAY_SETS", 1)
