"""Adapting the tile detector to the player's own set, from the boxes the player confirmed.

`python -m vision adapt` calls adapt_detector after the classifier: when the current
recognizer (detector + phantom screening, vision/screen.py) misses or invents tiles on the
confirmed photos, the detector is fine-tuned (ultralytics, from models/detector.pt, a few
epochs at the detector's imgsz on the CPU) on all but a held part, and both detectors are
scored there with the full pipeline. The new one is installed (the old one kept under
models/previous/) only when it makes fewer errors (tiles missed + tiles invented) on the
held part; then, as for the classifier, it is fine-tuned once more on every photo.

The fine-tune can also see `pasted` photos composed from the confirmed tiles
(training/adapt_paste.py: the same tiles laid anew, in touching rows or loose, at other sizes)
and `rehearsal` procedural photos of other sets; the install is then decided on the held real
photos and on photos composed of *their* tiles, never tuned on (see `better`). Both are off
(PASTED, REHEARSAL = 0): on the red-bodied adapt study (two draws; the detector tuned on the
five photos put in place whatever its check said) they helped one draw and hurt the other, by
more than one draw of composed photos differs from the next. Found before -> after, draw 0 /
draw 1: five photos alone 98.0 -> 93.6 / 96.6 -> 75.0%; with 40 composed photos 98.9 / 92.0%; and
40 rehearsal photos 98.9 / 96.0%, and with another draw of the composed photos, decided by the
check (which installed it), - / 90.5%. Figures and commands in models/README.md
("The detector's adapt from photos composed of the player's tiles").

A single photo (a calibration photo) leaves no photo to hold out, and the same photo shrunk,
darker and blurred is no check: measured on the adapt study (a KDE set never trained on), a
detector tuned on its calibration photo passed that check (1 -> 0 errors) and then found 97.1%
of the test photos' tiles instead of 99.4%, with 67 extras instead of 38. So the detector is
tuned from two photos or more only; `adapt --calibration` adapts the classifier alone.

The close-up detector (vision/model.py CLOSEUP_DETECTOR_FILE) answers only photos of a few
tiles, so it is tuned the same way on the confirmed photos of at most its `max_sure` tiles
(adapt_closeup_detector), when there are two or more and the recognizer errs on them.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")  # never let ultralytics reach the network

import cv2
import numpy as np

from training.adapt_paste import pasted_photos
from training.adapt_progress import model, progress, skipped
from training.dataset import write_labels, xyxy_to_labels
from training.evaluate import score
from training.model_files import move_into
from vision.model import CLOSEUP_DETECTOR_FILE, DEFAULTS, load_config

WEIGHTS_FILE = "detector.pt"
ONNX_FILE = "detector.onnx"
CLOSEUP_WEIGHTS_FILE = "detector_closeup.pt"
DET_EPOCHS = 10
# The tune's rate, the BatchNorm statistics kept (keep_norm_statistics): on the red adapt study's
# photos 0.001 broke the shipped detector's candidates, and 0.0003 taught the most to a detector
# that misses the set's tiles (model card, "The detector's adapt keeps its BatchNorm statistics").
DET_LR = 0.0003
MIN_PHOTOS = 2  # one to tune on, one held out (see the module doc)
PASTED = 0  # photos composed from the confirmed tiles, added to the tuning photos (off: module doc)
REHEARSAL = 0  # procedural photos of other sets, so that the detector keeps finding every kind of tile
REHEARSAL_SEED = 5
HELD_PASTED = 10  # photos composed from the held photos' tiles, which the new detector never saw


def detector_errors(recognizer, photos) -> dict:
    """Tiles missed and invented by the full pipeline on [(image, boxes)] (IoU 0.5, any class)."""
    if not photos:
        return {"tiles": 0, "missed": 0, "extra": 0, "errors": 0}
    gts = [(np.zeros(len(b), np.int64), np.asarray(b, np.float32).reshape(-1, 4)) for _, b in photos]
    preds = [recognizer.recognize(img) for img, _ in photos]
    r = score(gts, preds, classes=False)
    found = round(r["tiles_found"] * r["labelled_tiles"])
    return {"tiles": r["labelled_tiles"], "missed": r["labelled_tiles"] - found, "extra": r["extras"],
            "errors": r["labelled_tiles"] - found + r["extras"]}


def split_photos(n: int, share: float, seed: int) -> np.ndarray:
    """Boolean mask of held-out photos: at least one, never all (none when there is one photo)."""
    if n < 2:
        return np.zeros(n, bool)
    rng = np.random.default_rng(seed)
    k = min(n - 1, max(1, int(round(share * n))))
    held = np.zeros(n, bool)
    held[rng.choice(n, k, replace=False)] = True
    return held


def why_not_tune(before: dict, photos) -> dict | None:
    """Why a model is left as it is on these photos (None: tune it), as adapt_progress.skipped
    gives it: the pipeline already errs nowhere, or there is no photo to hold out for checking a
    new model."""
    if before["errors"] == 0:
        return skipped("adapt_skip_already_right")
    if len(photos) < MIN_PHOTOS:
        return skipped("adapt_skip_needs_photos", min=MIN_PHOTOS)
    return None


def better(old: dict, new: dict, old_composed: dict, new_composed: dict) -> bool:
    """Install the new detector? Never when it errs more on the held real photos; else when it
    errs less on those and the photos composed of their tiles together. The composed ones count
    because five confirmed photos are often all read right already (the red-bodied set's held
    photo was: 0 errors, nothing to improve on), while the same tiles in new rows and sizes are not.

    >>> better({"errors": 0}, {"errors": 0}, {"errors": 5}, {"errors": 2})
    True
    >>> better({"errors": 0}, {"errors": 1}, {"errors": 9}, {"errors": 0})
    False

    Without composed photos (none tuned on, none to check) it is fewer errors on the held photos:

    >>> better({"errors": 1}, {"errors": 1}, {"errors": 0}, {"errors": 0})
    False
    """
    return (new["errors"] <= old["errors"]
            and new["errors"] + new_composed["errors"] < old["errors"] + old_composed["errors"])


def held_split(photos, share: float, seed: int) -> tuple[list, list]:
    """(photos to tune on, photos held out) by split_photos."""
    held = split_photos(len(photos), share, seed)
    return [p for p, h in zip(photos, held) if not h], [p for p, h in zip(photos, held) if h]


def write_dataset(photos, folder: Path) -> Path:
    """A one-class YOLO folder of the photos (used both to train and, by ultralytics, to validate)."""
    folder = Path(folder)
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    for i, (img, boxes) in enumerate(photos):
        cv2.imwrite(str(folder / "images" / f"{i:03d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        h, w = img.shape[:2]
        b = np.asarray(boxes, np.float32).reshape(-1, 4)
        write_labels(folder / "labels" / f"{i:03d}.txt", xyxy_to_labels(np.zeros(len(b)), b, w, h))
    yaml_path = folder / "data.yaml"
    yaml_path.write_text(f"path: {folder.resolve()}\ntrain: images\nval: images\nnc: 1\nnames:\n  0: tile\n")
    return yaml_path


def tuning_photos(photos, pasted: int, seed: int, max_tiles: int = 24) -> list:
    """The confirmed photos and `pasted` photos composed from their tiles (at most max_tiles each)."""
    if not pasted:
        return list(photos)
    return list(photos) + pasted_photos(photos, pasted, np.random.default_rng((seed, 7)), max_tiles=max_tiles)


def rehearsal_count(wanted: int) -> int:
    """wanted, or 0 without the CJK fonts procedural photos are drawn with (make train-fonts)."""
    from training.procedural import font_families

    return wanted if wanted > 0 and font_families() else 0


def add_rehearsal(folder: Path, count: int, closeups: bool = False) -> None:
    """Write count procedural photos of other tile sets (the styles training draws, on drawn
    tables: train_detector.write_procedural_photos; all close-ups for the close-up detector)
    beside a dataset's photos."""
    from training.train_detector import write_procedural_photos

    if count > 0:
        write_procedural_photos(Path(folder) / "images", Path(folder) / "labels", count, seed=REHEARSAL_SEED,
                                max_side=640, closeup_share=1.0 if closeups else 0.15)


def keep_norm_statistics(trainer) -> None:
    """Every BatchNorm layer in eval mode (ultralytics sets train mode each epoch; this runs before
    each batch): a batch is at most four of the player's photos, whose statistics would replace
    those learnt on thousands of photos. Updated, they left the shipped detector missing every
    tile of a held photo (model card, "The detector's adapt keeps its BatchNorm statistics")."""
    import torch

    for module in trainer.model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.eval()


def fine_tune(weights: Path, photos, work: Path, epochs: int, imgsz: int, seed: int = 0,
              threads: int = 2, lr: float = DET_LR, rehearsal: int = 0, closeups: bool = False) -> Path:
    """Fine-tune the ultralytics weights on the photos (and `rehearsal` procedural photos of
    other sets); returns the new weights (.pt).

    nbs is set to the batch: ultralytics otherwise accumulates gradients up to 64 images,
    and a few photos would never reach one optimizer step. The BatchNorm statistics are kept
    (keep_norm_statistics).
    """
    from training.train_detector import train_detector

    data = write_dataset(photos, Path(work) / "data")
    add_rehearsal(Path(work) / "data", rehearsal, closeups)
    batch = max(1, min(4, len(photos)))
    best = train_detector(data, Path(work) / "runs", hours=None, epochs=epochs, seed=seed, threads=threads,
                          workers=0, resume_from=Path(weights), name="adapt",
                          overrides=dict(imgsz=imgsz, batch=batch, nbs=batch, cache=False, val=False,
                                         lr0=lr, lrf=0.1, warmup_epochs=0, close_mosaic=max(1, epochs // 4),
                                         patience=epochs + 1, save_period=-1),
                          callbacks={"on_train_batch_start": keep_norm_statistics})
    last = best.parent / "last.pt"
    return best if best.exists() else last


def candidate_models(models_dir: Path, onnx: Path, folder: Path, name: str = ONNX_FILE) -> Path:
    """A throw-away model folder: the current one with the new model onnx as its file name
    (the detector unless said)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for f in Path(models_dir).iterdir():
        if f.is_file() and f.name != name and not f.name.endswith(".pt"):
            shutil.copy2(f, folder / f.name)
    shutil.copy2(onnx, folder / name)
    return folder


def keep_previous(models_dir: Path, names) -> None:
    """Copy the named model files under models_dir/previous/ before new ones replace them."""
    prev = Path(models_dir) / "previous"
    prev.mkdir(exist_ok=True)
    for name in names:
        if (Path(models_dir) / name).exists():
            shutil.copy2(Path(models_dir) / name, prev / name)


def install(models_dir: Path, weights: Path, onnx: Path, files: tuple[str, str] = (WEIGHTS_FILE, ONNX_FILE)) -> None:
    """Keep the current detector (the one files name) under previous/, then put the new one in place."""
    models_dir = Path(models_dir)
    keep_previous(models_dir, files)
    move_into(weights, models_dir / files[0])  # whole: the app may load it any moment
    move_into(onnx, models_dir / files[1])


def int8_calibration(work: Path, files: tuple[str, str]) -> list[np.ndarray] | None:
    """Photos to make a tuned detector int8 on, as the shipped one is (training/quantize.py): those
    it was tuned on (the player's, those composed of their tiles, the rehearsal's); None for the
    close-up detector, which ships in float."""
    if files != (WEIGHTS_FILE, ONNX_FILE):
        return None
    from training.quantize import calibration_photos

    return calibration_photos(sorted((Path(work) / "data" / "images").glob("*.jpg")))


def closeup_photos(photos, max_tiles: int) -> list:
    """The confirmed photos of one to max_tiles tiles: those the close-up detector may answer."""
    return [p for p in photos if 0 < len(np.asarray(p[1]).reshape(-1, 4)) <= max_tiles]


def adapt_detector(models_dir: Path, photos, epochs: int = DET_EPOCHS, imgsz: int | None = None,
                   holdout_share: float = 0.25, seed: int = 0, refit: bool = True, threads: int = 2,
                   work: Path | None = None, files: tuple[str, str] = (WEIGHTS_FILE, ONNX_FILE),
                   name: str = "detector", pasted: int = PASTED, max_tiles: int = 24,
                   rehearsal: int = REHEARSAL, closeups: bool = False) -> dict:
    """Fine-tune the detector (the one files name: weights, ONNX) on [(BGR image, confirmed boxes
    xyxy)] if the recognizer misses or invents tiles there, and install it if it does better on
    the held part; the tuning photos are joined by `pasted` photos of their tiles (max_tiles a
    photo). Returns a report (seconds included)."""
    import torch

    from training.train_detector import export_detector
    from vision.model import Recognizer

    models_dir = Path(models_dir)
    weights_file, onnx_file = files
    t0, cpu0 = time.time(), time.process_time()
    torch.set_num_threads(threads)
    current = Recognizer(models_dir, threads=threads)
    imgsz = int(imgsz or current.config["det_imgsz"])
    before = detector_errors(current, photos)
    rehearsal = rehearsal_count(rehearsal)
    report = {"photos": len(photos), "before_all": before, "epochs": epochs, "imgsz": imgsz, "pasted": pasted,
              "rehearsal": rehearsal, "installed": False}
    if not (models_dir / weights_file).exists():
        return {**report, **skipped("adapt_skip_missing_file", file=weights_file), "seconds": time.time() - t0}
    why = why_not_tune(before, photos)
    if why:
        return {**report, **why, "seconds": time.time() - t0}
    train, test = held_split(photos, holdout_share, seed)
    own = Path(tempfile.mkdtemp(prefix="adapt-det-")) if work is None else Path(work)
    try:
        progress("adapt_step_tuning_boxes", model=model(name), missed=before["missed"], tiles=before["tiles"],
                 extra=before["extra"], photos=len(train))
        weights = fine_tune(models_dir / weights_file, tuning_photos(train, pasted, seed, max_tiles), own / "tune",
                            epochs, imgsz, seed, threads, rehearsal=rehearsal, closeups=closeups)
        onnx = export_detector(weights, own / "tune" / onnx_file, imgsz=int(current.config["det_imgsz"]),
                               calibration=int8_calibration(own / "tune", files))
        # composed check photos only for a detector tuned on composed photos: without them the
        # rule is the one measured before, fewer errors on the held real photos
        composed = pasted_photos(test, HELD_PASTED, np.random.default_rng((seed, 8)),
                                 max_tiles=max_tiles) if pasted else []
        candidate = Recognizer(candidate_models(models_dir, onnx, own / "candidate", onnx_file), threads=threads)
        old, new = detector_errors(current, test), detector_errors(candidate, test)
        old_composed, new_composed = detector_errors(current, composed), detector_errors(candidate, composed)
        installed = better(old, new, old_composed, new_composed)
        report.update(held_out_photos=len(test), held_out_by_photo=True, old_held=old, new_held=new,
                      held_composed_photos=len(composed), old_held_composed=old_composed,
                      new_held_composed=new_composed, installed=installed, installed_trained_on=len(train))
        if installed and refit:
            weights = fine_tune(models_dir / weights_file, tuning_photos(photos, pasted, seed, max_tiles),
                                own / "refit", epochs, imgsz, seed, threads, rehearsal=rehearsal, closeups=closeups)
            onnx = export_detector(weights, own / "refit" / onnx_file, imgsz=int(current.config["det_imgsz"]),
                                   calibration=int8_calibration(own / "refit", files))
            report["installed_trained_on"] = len(photos)
        if installed:
            install(models_dir, weights, onnx, files)
            report["after_all"] = detector_errors(Recognizer(models_dir, threads=threads), photos)
    finally:
        if work is None:
            shutil.rmtree(own, ignore_errors=True)
    return {**report, "seconds": time.time() - t0, "cpu_seconds": time.process_time() - cpu0}


def adapt_closeup_detector(models_dir: Path, photos, **kw) -> dict:
    """adapt_detector for the close-up detector, on the confirmed photos it may answer (at most
    its max_sure tiles); skipped without one or without two such photos."""
    models_dir = Path(models_dir)
    settings = load_config(models_dir).get("closeup_detector")
    if settings is None or not (models_dir / CLOSEUP_DETECTOR_FILE).exists():
        return {"photos": 0, "installed": False, **skipped("adapt_skip_no_closeup_detector"), "seconds": 0.0}
    max_tiles = int({**DEFAULTS["closeup_detector"], **settings}["max_sure"])
    close = closeup_photos(photos, max_tiles)
    if len(close) < MIN_PHOTOS:
        return {"photos": len(close), "installed": False, "seconds": 0.0,
                **skipped("adapt_skip_closeups", max=max_tiles, min=MIN_PHOTOS)}
    return adapt_detector(models_dir, close, files=(CLOSEUP_WEIGHTS_FILE, CLOSEUP_DETECTOR_FILE),
                          name="closeup_detector", max_tiles=max_tiles, closeups=True, **kw)
