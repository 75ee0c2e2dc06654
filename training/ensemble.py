"""The shipped classifier as an ensemble: the classifier's own round and rounds fine-tuned from it
on other seeds, read together as one ONNX graph (training/cls_net.TileEnsemble).

Why: a fine-tuning round on procedural sets reads unseen drawn styles better but the real
unfamiliar set worse; the two read together kept the real set's figure and most of the drawn
sets' gain (models/README.md, "Classifier ensembles").
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from training.cls_net import TileEnsemble, TileNet, export_onnx, first_member, load_weights
from training.quantize import quantize_classifier


def assemble(first: TileNet, others: list[Path]) -> TileEnsemble:
    """first, then each TileNet (or an ensemble's first member) saved at others, as one ensemble."""
    members = [first]
    for path in others:
        net = TileNet()
        load_weights(net, path)
        members.append(net)
    return TileEnsemble(members).eval()


def install(net: torch.nn.Module, models: Path, calibration_crops: np.ndarray, seed: int = 0) -> None:
    """Write net as models/classifier.pt and as the int8 models/classifier.onnx."""
    models = Path(models)
    torch.save(net.state_dict(), models / "classifier.pt")
    export_onnx(net, models / "classifier.onnx")
    quantize_classifier(models / "classifier.onnx", calibration_crops, seed)


def build(models: Path, others: list[Path], calibration_crops: np.ndarray, seed: int = 0) -> TileEnsemble:
    """Make the classifier installed in models (its first member, if already an ensemble) and
    the rounds saved at others one ensemble, and install it there."""
    net = assemble(first_member(Path(models) / "classifier.pt"), others)
    install(net, models, calibration_crops, seed)
    return net
