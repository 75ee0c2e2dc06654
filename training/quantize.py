"""The detector, the classifier and some readers in int8: ONNX Runtime static quantization (QDQ,
weights per channel).

Measured on the valid split: the same figures as the float model (tiles right, photos all right,
mAP50 and every flower class unchanged) and the classifier's share of a photo's latency down from
about 17 to 6 ms on this CPU (VNNI). A reader's softmax stays float (its probabilities are averaged
with the classifier's, and 1/255 steps would blur them). The detector's head decodes in float: it
concatenates box pixels (0..416) with scores (0..1), and one 8-bit scale for both rounds every
score to zero; most of the head's convolutions stay float too (detector_float_nodes), and its ranges
come from percentiles, not the extremes (models/README.md, "The detector in int8").
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from training.augment import photometric, rotate_cw
from training.model_files import move_into
from vision.crops import CLS_INPUT, to_input
from vision.flowers import FLOWER_INPUT
from vision.detector_io import detector_input

CALIBRATION_CROPS = 512
BATCH = 32
CALIBRATION_PHOTOS = 96  # the detector's, one photo a batch
DETECTOR_HEAD = "/model.23/"  # ultralytics' Detect module in the exported graph
# Readers shipped in int8 (2026-12-03, the whole recognizer on the valid split, the pink session
# and the style study's drawn sets): with the flower and character readers in int8, calibrated on
# their groups' real crops, the valid split and the pink session read exactly as in float, the
# drawn sets the same but one flower more right on styles seen and one less on the red adapt
# draw; each crop read 2.6 times faster (1.2 -> 0.45 ms; the valid split's median photo about
# 1.5 ms less). The suit reader in int8 read a real 5條 of the pink session as 7筒 (its photos
# all right 88.6% -> 85.7%, the valid split's 94.8% -> 94.5%), so it stays float.
INT8_READERS = ("flower_reader", "character_reader")


class _InputReader:
    """Calibration batches of network inputs (an array, or a list of one-photo inputs of their own
    shapes), as onnxruntime.quantization reads them."""

    def __init__(self, inputs, name: str = "image"):
        if isinstance(inputs, list):
            self._batches = iter([{name: x} for x in inputs])
        else:
            self._batches = iter([{name: inputs[i:i + BATCH]} for i in range(0, len(inputs), BATCH)])

    def get_next(self):
        return next(self._batches, None)

    def rewind(self):  # not needed by the calibrator used here
        raise NotImplementedError


def calibration_inputs(crops: np.ndarray, seed: int = 0, count: int = CALIBRATION_CROPS, size: int = CLS_INPUT
                       ) -> np.ndarray:
    """count network inputs (N, 3, size, size float in [0, 1]) from stored-format crops. Fewer crops
    than that (adapt's 42 from one calibration photo) are drawn again, jittered, recoloured and
    turned as in training: ranges measured on 42 clean crops left later photos' tiles out of range
    (measured: 91.5% instead of 97.4% after adapt --calibration)."""
    if not len(crops):
        raise ValueError("no crops to calibrate the int8 classifier on")
    rng = np.random.default_rng(seed)
    if len(crops) >= count:
        x = np.stack([to_input(crops[i], out=size) for i in np.sort(rng.choice(len(crops), count, replace=False))])
    else:
        clean = [to_input(c, out=size) for c in crops]
        varied = [rotate_cw(photometric(to_input(crops[i], rng, out=size), rng), int(rng.integers(4)))
                  for i in rng.integers(0, len(crops), count - len(crops))]
        x = np.stack(clean + varied)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2)).astype(np.float32) / 255.0


def quantize_classifier(onnx_path, crops: np.ndarray, seed: int = 0) -> None:
    """Replace the float classifier at onnx_path by its int8 version, calibrated on crops."""
    _quantize(onnx_path, calibration_inputs(crops, seed))


def quantize_reader(onnx_path, crops: np.ndarray, seed: int = 0) -> None:
    """Replace the float reader at onnx_path (read at FLOWER_INPUT) by its int8 version with its
    softmax left float, calibrated on crops (stored at the reader's FLOWER_STORE: its group's tiles)."""
    import onnx

    softmax = [n.name for n in onnx.load(str(onnx_path)).graph.node if n.op_type == "Softmax"]
    _quantize(onnx_path, calibration_inputs(crops, seed, size=FLOWER_INPUT), exclude=softmax)


def calibration_photos(paths, count: int = CALIBRATION_PHOTOS, seed: int = 0) -> list[np.ndarray]:
    """count photos (BGR) drawn from image paths, in the order drawn, to calibrate the detector."""
    import cv2

    paths = list(paths)
    if not paths:
        raise ValueError("no photos to calibrate the int8 detector on")
    pick = np.random.default_rng(seed).choice(len(paths), min(count, len(paths)), replace=False)
    return [img for img in (cv2.imread(str(paths[i])) for i in pick) if img is not None]


def detector_float_nodes(graph) -> list[str]:
    """The exported detector's nodes left in float: the head's decoding and its convolutions but the
    class branch's depthwise ones (cv3.*.*.0); the activations between them run in int8. This is the
    variant measured against the float detector (models/README.md, "The detector in int8")."""
    def int8(n) -> bool:
        parts = n.name.split("/")  # /model.23/cv3.0/cv3.0.1/cv3.0.1.0/conv/Conv
        in_branch = len(parts) > 4 and parts[2].startswith(("cv2.", "cv3."))
        if n.op_type in ("Mul", "Sigmoid"):  # SiLU
            return in_branch
        return n.op_type == "Conv" and in_branch and parts[2].startswith("cv3.") and len(parts) > 5 \
            and parts[4].endswith(".0")

    return [n.name for n in graph.node if n.name.startswith(DETECTOR_HEAD) and not int8(n)]


def quantize_detector(onnx_path, images: list[np.ndarray], size: int) -> None:
    """Replace the float detector at onnx_path by its int8 version calibrated on images (BGR
    photos, each letterboxed to a size x size square): 0.6x its time on this CPU."""
    import onnx
    from onnxruntime.quantization import CalibrationMethod

    if not images:
        raise ValueError("no photos to calibrate the int8 detector on")
    floats = detector_float_nodes(onnx.load(str(onnx_path)).graph)
    # squares: the percentile calibrator stacks every photo's outputs, so they must share one
    # shape (the train photos are square anyway; a player's are not)
    _quantize(onnx_path, [detector_input(img, size, square=True)[0] for img in images], exclude=floats,
              input_name="images", method=CalibrationMethod.Percentile, symbolic_shapes=False)


def _quantize(onnx_path, inputs, exclude: list[str] | None = None, input_name: str = "image",
              method=None, symbolic_shapes: bool = True) -> None:
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    onnx_path = Path(onnx_path)
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        # the detector's free height and width defeat symbolic shape inference; ONNX's own suffices
        quant_pre_process(str(onnx_path), str(prepared), skip_symbolic_shape=not symbolic_shapes)
        quantize_static(str(prepared), str(Path(tmp) / "int8.onnx"), _InputReader(inputs, input_name),
                        quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_exclude=exclude or [], calibrate_method=method or CalibrationMethod.MinMax)
        move_into(Path(tmp) / "int8.onnx", onnx_path)  # tmp may be another filesystem (tmpfs)
