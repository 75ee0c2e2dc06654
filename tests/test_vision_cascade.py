"""An ensemble classifier read as a cascade: one member alone where that member is sure, the
whole ensemble elsewhere (vision/model.py cascade_below, classifier_first.onnx)."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from training.dataset import crops_from_pairs, list_pairs
from vision.crops import to_input
from vision.model import CLASSIFIER_FIRST_FILE, ENSEMBLE_ID, Recognizer, softmax

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
FIXTURES = ROOT / "tests" / "fixtures" / "vision"

pytestmark = pytest.mark.skipif(not (MODELS / CLASSIFIER_FIRST_FILE).exists(),
                                reason="the shipped classifier is one network")


def _inputs() -> np.ndarray:
    crops = crops_from_pairs(list_pairs(FIXTURES))["crops"]
    x = np.stack([to_input(c, out=64) for c in crops]).transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    # and the same crops darkened and washed out, so that some are read unsure
    return np.concatenate([x, x * 0.35 + 0.4]).astype(np.float32)


def test_the_shipped_leading_member_belongs_to_the_shipped_ensemble():
    assert Recognizer(MODELS).classifier_first is not None


def test_sure_crops_take_the_leading_members_answer_and_the_rest_the_ensembles():
    rec = Recognizer(MODELS)
    x = _inputs()
    first = [softmax(o) for o in rec.classifier_first.run(None, {"image": x})]
    whole = [softmax(o) for o in rec.classifier.run(None, {"image": x})]
    sure = first[0].max(1) >= rec.config["cascade_below"]
    assert sure.any() and (~sure).any()
    for got, one, both in zip(rec._probabilities(x), first, whole):
        assert np.allclose(got[sure], one[sure], atol=1e-6)
        assert np.allclose(got[~sure], both[~sure], atol=1e-5)


def test_without_the_cascade_the_whole_ensemble_reads_every_crop(tmp_path):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models, ignore=shutil.ignore_patterns("*.pt", "previous"))
    (models / CLASSIFIER_FIRST_FILE).unlink()
    rec = Recognizer(models)
    assert rec.classifier_first is None
    x = _inputs()
    whole = [softmax(o) for o in rec.classifier.run(None, {"image": x})]
    for got, both in zip(rec._probabilities(x), whole):
        assert np.allclose(got, both, atol=1e-6)


def test_a_leading_member_of_another_ensemble_is_not_read(tmp_path):
    onnx = pytest.importorskip("onnx")
    models = tmp_path / "models"
    shutil.copytree(MODELS, models, ignore=shutil.ignore_patterns("*.pt", "previous"))
    stale = onnx.load(str(models / CLASSIFIER_FIRST_FILE))
    onnx.helper.set_model_props(stale, {ENSEMBLE_ID: "an ensemble installed before"})
    onnx.save(stale, str(models / CLASSIFIER_FIRST_FILE))
    assert Recognizer(models).classifier_first is None
