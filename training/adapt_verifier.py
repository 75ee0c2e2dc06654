"""Adapting the tile check (vision/verifier.py) to the player's own table and set.

A tablecloth printed with big characters, a set whose bodies the check never saw: the player's
corrected photos say which of the detector's boxes are tiles (the confirmed boxes) and which are
not (every other box: their labels are complete). `python -m vision adapt --folder` calls
adapt_verifier after the detector: when the recognizer still misses or invents tiles on the
photos, the check is fine-tuned from models/verifier.pt on all but a held part (the examples of
training/train_verifier.py: the detector's boxes, the confirmed ones jittered, random boxes on the
table), installed only when the full pipeline makes fewer errors there (the old one kept under
models/previous/), then tuned once more on every photo. Like the detector, it needs two photos
or more: one calibration photo leaves none to hold out.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from training.adapt_detector import candidate_models, detector_errors, held_split, keep_previous, why_not_tune
from training.adapt_progress import model, progress, skipped
from training.model_files import replaced
from vision.verifier import VERIFIER_FILE

WEIGHTS_FILE = "verifier.pt"
STEPS, LR, BATCH = 150, 3e-4, 64


def examples(recognizer, photos, seed: int) -> dict:
    """train_verifier's examples from [(image, confirmed boxes)] (labels complete)."""
    from training.train_verifier import examples_of

    return examples_of(recognizer, photos, True, np.random.default_rng(seed))


def fine_tune(weights: Path, data: dict, seed: int, steps: int = STEPS):
    """The check at weights (one net, or members asked together: all tuned as one), tuned steps
    balanced batches on data at a low rate."""
    from training.train_verifier import load_check, train

    return train(data, None, 0, seed, lr=LR, max_steps=steps, batch=BATCH, net=load_check(weights))[0]


def adapt_verifier(models_dir: Path, photos, holdout_share: float = 0.25, seed: int = 0, refit: bool = True,
                   threads: int = 2, steps: int = STEPS) -> dict:
    """Tune the tile check on [(BGR image, confirmed boxes xyxy)] if the pipeline errs there, and
    install it if it errs less on the held part. Returns a report (seconds included)."""
    import torch

    from training.train_verifier import export_onnx
    from vision.model import Recognizer

    models_dir = Path(models_dir)
    t0 = time.time()
    torch.set_num_threads(threads)
    current = Recognizer(models_dir, threads=threads)
    report = {"photos": len(photos), "steps": steps, "installed": False}
    if current.verifier is None or not (models_dir / WEIGHTS_FILE).exists():
        return {**report, **skipped("adapt_skip_missing_file", file=f"{VERIFIER_FILE} and {WEIGHTS_FILE}"),
                "seconds": time.time() - t0}
    before = detector_errors(current, photos)
    report["before_all"] = before
    why = why_not_tune(before, photos)
    if why:
        return {**report, **why, "seconds": time.time() - t0}
    train, test = held_split(photos, holdout_share, seed)
    work = Path(tempfile.mkdtemp(prefix="adapt-verifier-"))
    try:
        data = examples(current, train, seed)
        if not (data["y"] == 0).any() or not (data["y"] == 1).any():
            return {**report, **skipped("adapt_skip_nothing_to_learn"), "seconds": time.time() - t0}
        progress("adapt_step_tuning_boxes", model=model("verifier"), missed=before["missed"], tiles=before["tiles"],
                 extra=before["extra"], photos=len(train))
        net = fine_tune(models_dir / WEIGHTS_FILE, data, seed, steps)
        export_onnx(net, work / VERIFIER_FILE)
        old = detector_errors(current, test)
        new = detector_errors(Recognizer(candidate_models(models_dir, work / VERIFIER_FILE, work / "candidate",
                                                          VERIFIER_FILE), threads=threads), test)
        installed = new["errors"] < old["errors"]
        report.update(held_out_photos=len(test), old_held=old, new_held=new, installed=installed,
                      installed_trained_on=len(train))
        if installed and refit:
            net = fine_tune(models_dir / WEIGHTS_FILE, examples(current, photos, seed), seed, steps)
            report["installed_trained_on"] = len(photos)
        if installed:
            keep_previous(models_dir, (WEIGHTS_FILE, VERIFIER_FILE))
            with replaced(models_dir / WEIGHTS_FILE) as part:
                torch.save(net.state_dict(), part)
            with replaced(models_dir / VERIFIER_FILE) as part:  # the app may load it any moment
                export_onnx(net, part)
            report["after_all"] = detector_errors(Recognizer(models_dir, threads=threads), photos)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {**report, "seconds": time.time() - t0}
