"""The int8 classifier and readers read the fixture tiles as the float ones do."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from training.dataset import crops_from_pairs, list_pairs

MODELS = Path(__file__).resolve().parent.parent / "models"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "vision"


def classify(onnx_path: Path, inputs: np.ndarray) -> np.ndarray:
    from vision.runtime import make_session

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


def test_int8_reader_agrees_with_float_and_keeps_its_softmax_float(tmp_path):
    pytest.importorskip("torch")
    import cv2
    import onnx

    from training.quantize import INT8_READERS, calibration_inputs, quantize_reader
    from training.train_group_reader import export_onnx, start_from
    from vision.classes import CHARACTER_CLASSES
    from vision.flowers import FLOWER_INPUT, FLOWER_STORE

    assert "character_reader" in INT8_READERS and "suit_reader" not in INT8_READERS  # see why there
    net = start_from(MODELS / "classifier.pt", "character_reader")
    export_onnx(net, tmp_path / "float.onnx")
    export_onnx(net, tmp_path / "int8.onnx")
    data = crops_from_pairs(list_pairs(FIXTURES))
    crops = np.stack([cv2.resize(c, (FLOWER_STORE, FLOWER_STORE)) for c in data["crops"]])
    wan = crops[np.isin(data["cls"], CHARACTER_CLASSES)]  # the reader's group: what it is asked about
    quantize_reader(tmp_path / "int8.onnx", wan)
    assert (tmp_path / "int8.onnx").stat().st_size < (tmp_path / "float.onnx").stat().st_size / 2
    graph = onnx.load(str(tmp_path / "int8.onnx")).graph
    ops = [n.op_type for n in graph.node]
    assert "QuantizeLinear" in ops and ops[-1] == "Softmax"  # the probabilities come out float
    inputs = calibration_inputs(wan, count=len(wan), size=FLOWER_INPUT)
    float_p = classify_p(tmp_path / "float.onnx", inputs)
    int8_p = classify_p(tmp_path / "int8.onnx", inputs)
    assert np.allclose(int8_p.sum(1), 1, atol=1e-4)
    assert (float_p.argmax(1) == int8_p.argmax(1)).mean() >= 0.95


def classify_p(onnx_path: Path, inputs: np.ndarray) -> np.ndarray:
    from vision.runtime import make_session

    return make_session(onnx_path).run(None, {"image": inputs})[0]


def _boxes(onnx_path: Path, images: list) -> list:
    from vision.detector_io import decode_detections, detector_input
    from vision.runtime import make_session

    session = make_session(onnx_path)
    return [decode_detections(session.run(None, {"images": detector_input(img, 416)[0]})[0], 0.2, 0.5)
            for img in images]


def test_int8_detector_finds_the_boxes_the_float_one_finds_and_decodes_in_float(tmp_path):
    pytest.importorskip("ultralytics")
    import onnx

    from training.quantize import calibration_photos, detector_float_nodes
    from training.train_detector import export_detector

    images = calibration_photos([p for p, _ in list_pairs(FIXTURES)])
    float_path = export_detector(MODELS / "detector.pt", tmp_path / "float.onnx")
    int8_path = export_detector(MODELS / "detector.pt", tmp_path / "int8.onnx", calibration=images)
    assert int8_path.stat().st_size < float_path.stat().st_size / 2
    graph = onnx.load(str(int8_path)).graph
    kept = set(detector_float_nodes(onnx.load(str(float_path)).graph))
    # the head's convolutions but its class branch's depthwise ones keep float weights; the rest
    # of the network reads int8 ones
    assert any(n.op_type == "QuantizeLinear" for n in graph.node)
    produced_by_dq = {o for n in graph.node if n.op_type == "DequantizeLinear" for o in n.output}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    float_convs = [n for n in convs if n.input[1] not in produced_by_dq]
    assert float_convs and all(n.name in kept for n in float_convs)
    assert len(float_convs) == sum(n.name in kept for n in convs) < len(convs) / 4  # 19 of 88
    agree = total = 0
    for (fb, fs), (qb, qs) in zip(_boxes(float_path, images), _boxes(int8_path, images)):
        for b in fb[fs > 0.3]:
            total += 1
            agree += bool(len(qb)) and float(np.abs(qb - b).max(1).min()) < 4
    assert total >= 10 and agree / total >= 0.95


def test_the_shipped_detector_is_int8():
    import cv2
    import onnx

    ops = [n.op_type for n in onnx.load(str(MODELS / "detector.onnx")).graph.node]
    assert ops.count("QuantizeLinear") > 50 and ops.count("Conv") > 50
    boxes = _boxes(MODELS / "detector.onnx", [cv2.imread(str(p)) for p, _ in list_pairs(FIXTURES)])
    assert sum(int((s > 0.5).sum()) for _, s in boxes) >= 10
