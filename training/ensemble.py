"""The shipped classifier as an ensemble: the classifier's own round and rounds fine-tuned from it
on other seeds, read together as one ONNX graph (training/cls_net.TileEnsemble), and served as a
cascade: one member alone first, the whole ensemble where it is unsure (vision/model.py).

Why: a fine-tuning round on procedural sets reads unseen drawn styles better but the real
unfamiliar set worse; the two read together kept the real set's figure and most of the drawn
sets' gain (models/README.md, "Classifier ensembles").
"""
from __future__ import annotations

import uuid
from pathlib import Path

import numpy as np
import torch

from training.cls_net import TileEnsemble, TileNet, export_onnx, first_member, load_weights
from training.model_files import replaced
from training.quantize import quantize_classifier
from vision.model import CLASSIFIER_FILE, CLASSIFIER_FIRST_FILE, ENSEMBLE_ID

# The member that reads every crop first: the last, the round fine-tuned on the newest training
# data. Measured (models/README.md): led by it the cascade scored at least the whole pair's
# figures on the pink session, the valid split and the style study; led by the first member it
# lost a valid tile and 0.2-0.5 points of two drawn styles.
LEAD = -1


def assemble(first: TileNet, others: list[Path]) -> TileEnsemble:
    """first, then each TileNet (or an ensemble's first member) saved at others, as one ensemble."""
    members = [first]
    for path in others:
        net = TileNet()
        load_weights(net, path)
        members.append(net)
    return TileEnsemble(members).eval()


def install(net: torch.nn.Module, models: Path, calibration_crops: np.ndarray, seed: int = 0,
            cascade: bool = True, lead: int = LEAD) -> None:
    """Write net as models/classifier.pt and as the int8 models/classifier.onnx; with cascade,
    an ensemble's member `lead` also alone as the int8 classifier_first.onnx, which serving
    reads every crop with first (vision/model.py cascade_below). Both ONNX files carry the same
    new ensemble id, so a leading member is never read beside another ensemble. Otherwise no
    classifier_first.onnx is left.

    adapt passes cascade=False: asked to tune all members (`adapt --all-members`) it tunes them
    through their mean, which teaches the mean the player's set but not each member alone, so a
    member's sure answer no longer stands for the ensemble's (measured only without the cascade).
    By default it tunes the leading member alone and installs it as one network."""
    models = Path(models)
    with replaced(models / "classifier.pt") as part:  # the app may load any file any moment
        torch.save(net.state_dict(), part)
    first = models / CLASSIFIER_FIRST_FILE
    tag = uuid.uuid4().hex if cascade and isinstance(net, TileEnsemble) else None
    if tag:  # written before the ensemble: the app reloads on the latter
        _write_int8(net.members[lead], first, calibration_crops, seed, tag)
    elif first.exists():
        first.unlink()
    _write_int8(net, models / CLASSIFIER_FILE, calibration_crops, seed, tag)


def _write_int8(net: torch.nn.Module, path: Path, calibration_crops: np.ndarray, seed: int, tag: str | None) -> None:
    import onnx

    with replaced(path) as part:  # float, then int8, then tagged: the app sees only the last
        export_onnx(net, part)
        quantize_classifier(part, calibration_crops, seed)
        if tag:
            model = onnx.load(str(part))
            onnx.helper.set_model_props(model, {ENSEMBLE_ID: tag})
            onnx.save(model, str(part))


def build(models: Path, others: list[Path], calibration_crops: np.ndarray, seed: int = 0) -> TileEnsemble:
    """Make the classifier installed in models (its first member, if already an ensemble) and
    the rounds saved at others one ensemble, and install it there."""
    net = assemble(first_member(Path(models) / "classifier.pt"), others)
    install(net, models, calibration_crops, seed)
    return net
