"""The int8 classifier reads the fixture tiles as the float one does."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from training.dataset import crops_from_pairs, list_pairs

MODELS = Path(__file__).resolve().parent.parent / "models"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "vision"


def classify(onnx_path: Path, inputs: np.ndarray) -> np.ndarray:
    from vision.model import make_session

    return make_session(onnx_path).run(None, {"image": inputs})[0].argmax(1)


def test_int8_classifier_agrees_with_float(tmp_path):
    torch = pytest.importorskip("torch")
    from training.cls_net import export_onnx, load_classifier
    from training.quantize import calibration_inputs, quantize_classifier

    net = load_classifier(MODELS / "classifier.pt")  # one TileNet or the shipped ensemble
    export_onnx(net, tmp_path / "float.onnx")
    export_onnx(net, tmp_path / "int8.onnx")
    data = crops_from_pairs(list_pairs(FIXTURES))
    quantize_classifier(tmp_path / "int8.onnx", data["crops"])
    assert (tmp_path / "int8.onnx").stat().st_size < (tmp_path / "float.onnx").stat().st_size / 2
    inputs = calibration_inputs(data["crops"], count=len(data["crops"]))
    assert len(calibration_inputs(data["crops"][:42])) == 512  # a calibration photo's crops, varied
    float_cls, int8_cls = classify(tmp_path / "float.onnx", inputs), classify(tmp_path / "int8.onnx", inputs)
    assert (float_cls == int8_cls).mean() >= 0.97


def test_calibration_needs_crops():
    from training.quantize import calibration_inputs

    with pytest.raises(ValueError, match="no crops"):
        calibration_inputs(np.zeros((0, 96, 96, 3), np.uint8))
