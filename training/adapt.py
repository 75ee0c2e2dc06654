"""Adapting the tile classifier to the user's own tiles.

Two sources of labelled crops: a YOLO folder of corrected photos (`--folder`), or one
calibration photo of the 42 face tiles laid out in standard order (`--calibration`), which
labels itself. Two photos are held out in turn, each from one fine-tuning; the fine-tuned
classifier is installed only if it scores better on them than the current one (the mean
probability it gives the right class), and the current one is kept under models/previous/.
Once the held-out photos have shown that fine-tuning helps, the classifier installed is
fine-tuned once more on every photo: five photos are too few to leave one unused.
Then the detector: when the recognizer misses or invents tiles on the corrected photos (against
the boxes the player confirmed), it is fine-tuned the same way, held photo, install-if-better
and all (training/adapt_detector.py; the close-up detector likewise, on the confirmed photos of
a few tiles); one calibration photo leaves no photo to hold out, so
there the detector is left as it is (measured: see that module). Then the tile check
(vision/verifier.py), likewise (training/adapt_verifier.py): the boxes the player deleted are
what it learns to drop.
The flower reader is tuned on the flower and season crops too, the character reader on the 萬
crops and the suit reader on the 筒 and 條 crops (training/adapt_readers.py).
Both fine-tunings rehearse every class on procedural tiles drawn in the player's look
(training/adapt_replay.py), so that five photos lacking a tile do not teach the models to forget it.
Of an ensemble classifier only the leading member is tuned, and installed alone: on the red adapt
study it read the test photos as well as the three members tuned through their mean (94.9% after
`--folder`; 95.4% against 95.6% after `--calibration`) in half the CPU time (620 against 1219 s;
331 against 634 s after `--calibration`) on two cores, and the adapted recognizer reads each crop
with one network (`--all-members` tunes all three).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

# Before torch loads its OpenMP: idle threads sleep instead of spinning. On two cores shared with
# other work, 20 classifier fine-tuning steps took 50 s spinning and 16 s sleeping (measured twice).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from training import ensemble
from training.adapt_detector import DET_EPOCHS, adapt_closeup_detector, adapt_detector, keep_previous
from training.adapt_progress import judged as say_judged
from training.adapt_progress import model, progress, start, tuning_progress, verdict
from training.adapt_verifier import adapt_verifier
from training.adapt_replay import REPLAY_SHARE, rehearsed_class_loss, replay_for
from training.augment import photometric, rotate_cw
from training.cls_net import TileEnsemble, TileNet, load_classifier
from training.dataset import (LabelError, NoLabelledPhotos, crops_from_pairs, labelled_pairs, labels_to_xyxy,
                              list_pairs, read_labels)
from training.train_classifier import NO_NUMBER, to_tensor
from vision.calibration import CalibrationError, calibration_boxes, calibration_labels, calibration_numbers
from vision.crops import cut_crop, dark_ink, light_ink_set, to_input
from vision.model import CLASSIFIER_FIRST_FILE, load_config

WEIGHTS_FILE = "classifier.pt"
ONNX_FILE = "classifier.onnx"
MAX_JITTER = 3.0  # fine-tuning box jitter, in multiples of the training's (see fine_tune)
# The held check (adapt_crops). Five corrected photos hold about 20 tiles each, and one held photo
# judged by the share of 4 looks read right decided by two or three looks: on xmahjongg's scanned
# set it kept the shipped classifier (85.0% against 88.3%, 15 crops) where installing the tuned one
# read the test photos 93.4% -> 97.7%. The mean probability of the right class over 16 looks, on
# two held photos in turn, tells them apart (models/README.md, "The held check").
HELD_COPIES = 16
HELD_FOLDS = 2
# The check's models, each tuned without one held photo, only ask whether tuning on the player's
# photos reads their other photos better; the model installed is tuned again on every photo at
# full length. So the check tunes CHECK_SHARE as many steps: on two adapt studies' sets it
# installed the same weights but for one reader whose full-length check passed by a hair (the test
# photos read the same either way), and `adapt --folder` took 18% and 39% less time (models/README.md,
# "The held check tunes half as long"). A single photo has no held photos: its check judges the
# model it installs, at full length.
CHECK_SHARE = 0.5


def check_length(full: int, held: bool) -> int:
    """The steps (or epochs) of a held check's tuning, where the installed model's are `full`:
    CHECK_SHARE of them with held photos, all of them without (the check's model is installed).

    >>> check_length(30, True), check_length(1, True), check_length(150, False)
    (15, 1, 150)
    """
    return max(1, round(full * CHECK_SHARE)) if held else full


# A tuning step of 64 crops at 64 px runs about 1.4 times faster with channels-last tensors on two
# x86 cores (the readers' steps of 32 crops at 96 px do not; models/README.md). Not measured on
# ARM (a Raspberry Pi), so left as it was there.
TUNE_LAYOUT = torch.channels_last if platform.machine().lower() in ("x86_64", "amd64") else torch.contiguous_format


def augmented_batch(crops: np.ndarray, cls: np.ndarray, rng: np.random.Generator, n: int,
                    pick: np.ndarray | None = None, max_jitter: float = 1.0):
    """n augmented samples (all four quarter turns) of the given crops, random ones unless pick
    says which; box jitter (zoom, shift, tilt) up to max_jitter times the training's."""
    pick = rng.integers(len(crops), size=n) if pick is None else pick
    xs = [to_tensor(rotate_cw(photometric(to_input(crops[j], rng, strength=rng.uniform(1, max_jitter)), rng),
                              int(rng.integers(4)))) for j in pick]
    return torch.stack(xs), torch.as_tensor(cls[pick])


def balanced_pick(cls: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
    """n crop indices, every class equally likely: a flower seen once weighs as much as a
    tile seen on every photo."""
    classes = np.unique(cls)
    return np.array([rng.choice(np.flatnonzero(cls == c)) for c in classes[rng.integers(len(classes), size=n)]])


def held_reading(net: torch.nn.Module, crops: np.ndarray, cls: np.ndarray, numbers: np.ndarray | None = None,
                 rng_seed: int = 1, copies: int = HELD_COPIES) -> dict:
    """How net reads held crops, on `copies` times as many jittered looks as crops, each at a crop
    drawn at random (fixed seed, so old and new see the same inputs): looks read right and the
    probability given to the right class, summed over the looks ("looks") so that parts can be
    pooled; and the same looks' printed numbers read right, on the crops whose number numbers
    gives (1-4; 0 unknown)."""
    rng = np.random.default_rng(rng_seed)
    pick = rng.integers(len(crops), size=copies * len(crops))
    want = number_targets(numbers, len(crops))[pick]
    known = want != NO_NUMBER
    net.eval()
    with torch.no_grad():
        x, y = augmented_batch(crops, cls, rng, len(pick), pick)
        out_cls, _, out_num = net(x)
        p = F.softmax(out_cls, 1)
    p_right = p[torch.arange(len(y)), y]
    # two proper scores beside it, reported to compare with (models/README.md, "The held check")
    brier = (p.pow(2).sum(1) - 2 * p_right + 1).sum()
    return {"looks": len(y), "right": float((p.argmax(1) == y).sum()), "p_right": float(p_right.sum()),
            "brier": float(brier), "log_loss": float(-torch.log(p_right.clamp_min(1e-12)).sum()),
            "number_looks": int(known.sum()), "number_right": int((out_num.argmax(1).numpy() == want)[known].sum())}


def pooled(readings: list[dict]) -> dict:
    """accuracy, score and number accuracy (None where no look had a known number) over several
    parts' held_reading, each look weighing the same; the mean Brier score and log loss where the
    parts give them (lower is better).

    >>> pooled([{"looks": 4, "right": 4.0, "p_right": 3.0, "number_looks": 0, "number_right": 0},
    ...         {"looks": 12, "right": 8.0, "p_right": 9.0, "number_looks": 4, "number_right": 3}])
    {'accuracy': 0.75, 'score': 0.75, 'number_accuracy': 0.75}
    >>> pooled([{"looks": 2, "right": 1.0, "p_right": 1.0, "brier": 1.0, "log_loss": 3.0}])["brier"]
    0.5
    """
    looks = sum(r["looks"] for r in readings)
    numbered = sum(r.get("number_looks", 0) for r in readings)
    out = {"accuracy": sum(r["right"] for r in readings) / looks, "score": sum(r["p_right"] for r in readings) / looks,
           "number_accuracy": sum(r.get("number_right", 0) for r in readings) / numbered if numbered else None}
    for key in ("brier", "log_loss"):
        if all(key in r for r in readings):
            out[key] = sum(r[key] for r in readings) / looks
    return out


def judged_in_turn(parts: list[np.ndarray], n: int, old, tune, read) -> dict:
    """The held check shared by the classifier and the readers: for each held part (a mask over n
    samples), tune(mask of the rest) gives a tuned model, and read(model, held mask) how the old
    and the tuned one read the part; no part: one model tuned on everything, read on everything
    under other looks. {"before", "after"}: the readings pooled; "held": samples read per part;
    "net": the last model tuned.

    >>> r = judged_in_turn([np.array([1, 0, 0], bool)], 3, "old", lambda train: int(train.sum()),
    ...                    lambda net, test: {"looks": 1, "right": 1.0, "p_right": 0.5 if net == "old" else 0.8})
    >>> r["before"]["score"], r["after"]["score"], r["held"], r["net"]
    (0.5, 0.8, [1], 2)
    """
    everything = np.ones(n, bool)
    readings, held, net = [], [], None
    for part in parts or [None]:
        train, test = (everything, everything) if part is None else (~part, part)
        net = tune(train)
        readings.append((read(old, test), read(net, test)))
        held.append(int(test.sum()))
    return {"before": pooled([r[0] for r in readings]), "after": pooled([r[1] for r in readings]),
            "held": held, "net": net}


def number_targets(numbers: np.ndarray | None, n: int) -> np.ndarray:
    """Number head targets (0-3) from printed numbers (1-4; 0 or None: unknown, NO_NUMBER)."""
    if numbers is None:
        return np.full(n, NO_NUMBER, np.int64)
    numbers = np.asarray(numbers, np.int64)
    return np.where(numbers > 0, numbers - 1, NO_NUMBER)


def fine_tune(net: TileNet, crops: np.ndarray, cls: np.ndarray, epochs: int = 30, steps_per_epoch: int = 20,
              batch: int = 64, lr: float = 2e-3, seed: int = 0, numbers: np.ndarray | None = None,
              replay: dict | None = None) -> TileNet:
    """Fine-tune class head and body on the user's crops, and the number head on the flowers
    whose printed number the user's labels say (numbers: 1-4, 0 unknown; a calibration photo).

    Measured on photos of a tile set the models never saw (training/adapt_study.py): at the
    training's box jitter the net learns a tile together with the side of it the photo
    happens to show, and reads the same tile from another angle as before (6s as 4s);
    jitter up to MAX_JITTER times cuts the sides in and out. The loss covers only the
    classes the user's crops have, so five photos without, say, the autumn tile do not
    teach the net never to say autumn (nor `back`, which users never label). 600 steps
    (about 2.5 min on two cores) read that set better than 300 (96.2% against 95.3% of its
    tiles from one calibration photo, three seeds); what counts is crops seen, not steps.
    The number head learns too where the labels say what a flower prints: a set's own flower
    pictures, and where it prints the number, are what the trained head has never seen.
    replay (training/adapt_replay.py): rehearsal tiles of every class in the player's look, a
    REPLAY_SHARE of each batch, their loss over all classes: masking the absent classes alone
    still let the net read the test photos' 1p as west once the five photos lacked it.
    """
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    present = np.unique(cls)
    want = number_targets(numbers, len(cls))
    if replay is not None:
        replay_n = max(1, int(round(REPLAY_SHARE * batch)))
        r_want = number_targets(replay["numbers"], len(replay["cls"]))
    net = net.to(memory_format=TUNE_LAYOUT)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.01)
    total = epochs * steps_per_epoch
    for step in range(total):
        tuning_progress(step, total)
        net.train()
        for g in opt.param_groups:
            g["lr"] = lr * 0.5 * (1 + np.cos(np.pi * step / total))
        n_own = batch - (replay_n if replay is not None else 0)
        pick = balanced_pick(cls, rng, n_own)
        x, y = augmented_batch(crops, cls, rng, n_own, pick, MAX_JITTER)
        if replay is not None:  # one forward pass for both: batch norm sees one batch
            r_pick = balanced_pick(replay["cls"], rng, replay_n)
            rx, ry = augmented_batch(replay["crops"], replay["cls"], rng, replay_n, r_pick, MAX_JITTER)
            x = torch.cat([x, rx])
        out_cls, _, out_num = net(x.contiguous(memory_format=TUNE_LAYOUT))
        loss = rehearsed_class_loss(out_cls, y.numpy(), present, None if replay is None else ry)
        # the number head's loss at training's weight (train_classifier), each part by its rows
        if (want[pick] != NO_NUMBER).any():
            loss = loss + 0.5 * F.cross_entropy(out_num[:n_own], torch.as_tensor(want[pick]),
                                                ignore_index=NO_NUMBER) * n_own / batch
        if replay is not None and (r_want[r_pick] != NO_NUMBER).any():
            loss = loss + 0.5 * F.cross_entropy(out_num[n_own:], torch.as_tensor(r_want[r_pick]),
                                                ignore_index=NO_NUMBER) * replay_n / batch
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net.to(memory_format=torch.contiguous_format).eval()  # as export and saving expect


def held_folds(groups: np.ndarray, share: float, seed: int, folds: int = HELD_FOLDS) -> list[np.ndarray]:
    """Boolean masks of the held parts: up to `folds` disjoint sets of whole photos (groups), a share
    of the photos each (at least one), never all of them; none for a single photo.

    >>> [m.astype(int).tolist() for m in held_folds(np.array([0, 0, 1, 2, 3, 4]), 0.25, 0)]
    [[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 1]]
    >>> held_folds(np.zeros(5), 0.25, 0)
    []
    """
    uniq = np.unique(groups)
    if len(uniq) < 2 or share <= 0:
        return []
    n = min(len(uniq) - 1, max(1, int(round(share * len(uniq)))))
    order = np.random.default_rng(seed).permutation(uniq)
    return [np.isin(groups, order[i * n:(i + 1) * n]) for i in range(min(folds, len(uniq) // n))]


def load_net(models_dir: Path) -> torch.nn.Module:
    """The installed classifier: one TileNet or an ensemble of them."""
    return load_classifier(Path(models_dir) / WEIGHTS_FILE)


def tunable_net(models_dir: Path, members: str = "lead") -> torch.nn.Module:
    """What adapt fine-tunes: the installed classifier's leading member alone (members="lead",
    the one serving reads every crop with first: training/ensemble.LEAD), installed alone in the
    ensemble's place; or the whole ensemble through its mean (members="all")."""
    net = load_net(models_dir)
    return net.members[ensemble.LEAD] if members == "lead" and isinstance(net, TileEnsemble) else net


def install(net: TileNet, models_dir: Path, crops: np.ndarray) -> None:
    """Keep the current classifier under previous/, then write the new one (int8, calibrated on
    the crops it was tuned on); an adapted ensemble is read whole, without the cascade."""
    models_dir = Path(models_dir)
    keep_previous(models_dir, (WEIGHTS_FILE, ONNX_FILE, CLASSIFIER_FIRST_FILE))
    ensemble.install(net, models_dir, crops, cascade=False)


def with_dark_ink_looks(models_dir: Path, crops: np.ndarray, cls: np.ndarray, groups: np.ndarray,
                        numbers: np.ndarray | None, light: bool | None = None):
    """The crops of a set whose ink is light, and each again as dark ink on a light ground:
    the recognizer reads such a set both ways (vision.model DEFAULTS["light_ink"]), so the
    fine-tuning teaches both looks. Other sets' crops come back as they are. light: whether
    the set's ink is light, when the caller has decided it already."""
    if not (light_ink_set(crops, load_config(models_dir).get("light_ink")) if light is None else light):
        return crops, cls, groups, numbers
    both = np.concatenate([crops, np.stack([dark_ink(c) for c in crops])])
    twice = lambda a: None if a is None else np.concatenate([a, a])  # noqa: E731
    return both, twice(cls), twice(groups), twice(numbers)


def adapt_crops(models_dir: Path, crops: np.ndarray, cls: np.ndarray, groups: np.ndarray, epochs: int = 30,
                holdout_share: float = 0.25, seed: int = 0, install_if_better: bool = True,
                numbers: np.ndarray | None = None, rehearse: bool = True, members: str = "lead",
                batch: int = 64) -> dict:
    """Fine-tune on crops, compare with the current classifier on held-out crops, maybe install
    (then fine-tuned on all crops, held-out ones included). numbers: the printed number of each
    crop where known (1-4, else 0), for the number head; the class decides what is installed.

    The held part is judged in turn (held_folds): each held photo's crops are read by the current
    classifier and by one fine-tuned without that photo, and the tuned one is installed only where
    its score (the mean probability of the right class, on HELD_COPIES looks a crop) over every
    held photo is higher. With a single photo (one group) the held-out set is the same tiles under
    different jitter, lighting and rotation, a weaker check that still catches a collapsed model.
    batch: the crops of each tuning step (fine_tune's batch; tests tune with fewer).
    """
    torch.set_num_threads(2)
    given = len(crops)
    light = light_ink_set(crops, load_config(models_dir).get("light_ink"))
    replay, replay_report = replay_for(crops, light, seed) if rehearse else (None, {"skipped": "not asked"})
    crops, cls, groups, numbers = with_dark_ink_looks(models_dir, crops, cls, groups, numbers, light)
    folds = held_folds(groups, holdout_share, seed)
    nums = None if numbers is None else np.asarray(numbers, np.int64)
    part = lambda idx: None if nums is None else nums[idx]  # noqa: E731
    t0, cpu0 = time.time(), time.process_time()

    def tune(train: np.ndarray, length: int = epochs) -> TileNet:
        return fine_tune(tunable_net(models_dir, members), crops[train], cls[train], epochs=length, batch=batch,
                         seed=seed, numbers=part(train), replay=replay)

    checks = iter(range(1, len(folds) + 1))

    def check(train: np.ndarray) -> TileNet:
        if folds:
            progress("adapt_step_check", model=model("classifier"), i=next(checks), of=len(folds))
        else:
            progress("adapt_step_one_photo", model=model("classifier"), n=given)  # not its added looks
        return tune(train, check_length(epochs, bool(folds)))

    progress("adapt_step_tiles", n=given)
    # no folds: one photo, judged on its own tiles under other looks by the model it installs
    judged = judged_in_turn(folds, len(cls), load_net(models_dir), check,
                            lambda net, test: held_reading(net, crops[test], cls[test], part(test)))
    before, after, new = judged["before"], judged["after"], judged["net"]
    installed = bool(install_if_better and after["score"] > before["score"])
    say_judged("classifier", bool(folds), before, after, installed)
    if installed and folds:  # five photos are too few to leave one unused
        progress("adapt_step_refit", model=model("classifier"))
        new = tune(np.ones(len(cls), bool))
    if installed:
        install(new, models_dir, crops)
    from training.adapt_readers import KINDS, adapt_reader  # which build on this module's helpers

    readers = {}
    for kind in KINDS:
        progress("adapt_step_model", model=model(f"{kind.name}_reader"))
        readers[f"{kind.name}_reader"] = adapt_reader(models_dir, crops, cls, folds, nums, seed=seed,
                                                      install_if_better=install_if_better, replay=replay, kind=kind)
        if readers[f"{kind.name}_reader"] is None:
            progress("adapt_step_skipped", model=model(f"{kind.name}_reader"), why={"code": "adapt_skip_no_group_tiles"})
    return {"train_crops": len(cls) - judged["held"][0] if folds else len(cls),
            "held_out_crops": sum(judged["held"]),
            **readers, "rehearsal": replay_report,
            "dark_ink_looks": len(crops) > given,
            "held_out_by_photo": bool(folds), "held_parts": len(judged["held"]),
            "old_accuracy": before["accuracy"], "new_accuracy": after["accuracy"],
            "old_score": before["score"], "new_score": after["score"],
            "old_brier": before.get("brier"), "new_brier": after.get("brier"),
            "old_log_loss": before.get("log_loss"), "new_log_loss": after.get("log_loss"),
            "old_number_accuracy": before["number_accuracy"], "new_number_accuracy": after["number_accuracy"],
            "members": members, "installed": installed,
            "installed_trained_on": len(cls) if installed else None,
            "seconds": time.time() - t0, "cpu_seconds": time.process_time() - cpu0}


def crops_from_calibration(image: np.ndarray, recognizer, boxes: np.ndarray | None = None
                           ) -> tuple[np.ndarray, np.ndarray]:
    boxes = calibration_boxes(image, recognizer) if boxes is None else boxes
    labels = calibration_labels(boxes)
    crops = np.stack([cut_crop(image, b)[0] for b in boxes])
    return crops, labels


def folder_photos(folder: Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """(BGR image, confirmed boxes xyxy) of every readable photo of a YOLO folder."""
    photos = []
    for img_path, lab_path in list_pairs(Path(folder)):
        image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if image is not None:
            h, w = image.shape[:2]
            photos.append((image, labels_to_xyxy(read_labels(lab_path), w, h)[1]))
    return photos


def _with_detector(report: dict, models_dir: Path, photos, detector: bool, det_epochs: int,
                   det_imgsz: int | None, seed: int) -> dict:
    if detector:
        progress("adapt_step_model", model=model("detector"))
        report["detector"] = adapt_detector(Path(models_dir), photos, epochs=det_epochs, imgsz=det_imgsz, seed=seed)
        verdict("detector", report["detector"])
        progress("adapt_step_model", model=model("closeup_detector"))
        report["closeup_detector"] = adapt_closeup_detector(Path(models_dir), photos, epochs=det_epochs,
                                                            imgsz=det_imgsz, seed=seed)
        verdict("closeup_detector", report["closeup_detector"])
        # the tile check judges the (maybe new) detectors' boxes, so it is tuned after them
        progress("adapt_step_model", model=model("verifier"))
        report["verifier"] = adapt_verifier(Path(models_dir), photos, seed=seed)
        verdict("verifier", report["verifier"])
        report["total_seconds"] = report["seconds"] + sum(report[k]["seconds"] for k in (
            "detector", "closeup_detector", "verifier"))
    return report


def example_numbers(pairs, image_index: np.ndarray) -> np.ndarray:
    """The printed number of every crop of crops_from_pairs(pairs), from the numbers/ files the
    app writes beside labels/ (webapp/examples.py); 0 (unknown) for a photo without one, or
    whose file does not match its labels line for line."""
    out = np.zeros(len(image_index), np.int64)
    for i, (_, lab_path) in enumerate(pairs):
        lab_path = Path(lab_path)
        if lab_path.parent.name != "labels":
            continue
        rows = np.flatnonzero(image_index == i)
        try:
            values = [int(v) for v in (lab_path.parent.parent / "numbers" / lab_path.name).read_text().split()]
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        if len(values) == len(rows) and all(0 <= v <= 4 for v in values):
            out[rows] = values
    return out


class AdaptInputError(ValueError):
    """What the player gave adapt is not something to adapt from (said in one line, exit 2)."""


def check_inputs(models_dir: Path, folder: Path | None, photo: Path | None, epochs: int, det_epochs: int) -> None:
    """AdaptInputError now, not minutes into a run (or a traceback): a models folder without the
    classifier, a folder of no labelled photos or a label line that is no tile, a missing photo,
    epochs under 1."""
    if not (Path(models_dir) / "classifier.pt").is_file():
        raise AdaptInputError(f"no classifier.pt in {models_dir}: adapt tunes the models a training made")
    if epochs < 1 or det_epochs < 0:
        raise AdaptInputError(f"--epochs must be 1 or more and --det-epochs 0 or more (got {epochs}, {det_epochs})")
    if photo is not None and not Path(photo).is_file():
        raise AdaptInputError(f"no such photo: {photo}")
    if folder is not None:
        if not Path(folder).is_dir():
            raise AdaptInputError(f"no such folder: {folder}")
        try:
            pairs = labelled_pairs(Path(folder))
        except NoLabelledPhotos as exc:
            raise AdaptInputError(str(exc)) from None
        for _, label in pairs:
            read_labels(label)  # LabelError names the file and line


def adapt_folder(models_dir: Path, folder: Path, epochs: int = 30, seed: int = 0, detector: bool = True,
                 det_epochs: int = DET_EPOCHS, det_imgsz: int | None = None, rehearse: bool = True,
                 members: str = "lead") -> dict:
    """`adapt --folder`: fine-tune on the labelled tiles of a YOLO folder of corrected photos (and
    the number head on the flowers whose printed number the folder's numbers/ files give)."""
    pairs = list_pairs(Path(folder))
    progress("adapt_step_reading", n=len(pairs))
    data = crops_from_pairs(pairs)
    if not len(data["cls"]):
        raise AdaptInputError(f"no labelled tiles in {folder}")
    numbers = example_numbers(pairs, data["image_index"])
    report = adapt_crops(Path(models_dir), data["crops"], data["cls"], data["image_index"], epochs=epochs, seed=seed,
                         numbers=numbers if numbers.any() else None, rehearse=rehearse, members=members)
    return _with_detector(report, models_dir, folder_photos(folder) if detector else [], detector,
                          det_epochs, det_imgsz, seed)


def adapt_calibration(models_dir: Path, photo: Path, epochs: int = 30, seed: int = 0, detector: bool = True,
                      det_epochs: int = DET_EPOCHS, det_imgsz: int | None = None, rehearse: bool = True,
                      members: str = "lead") -> dict:
    """`adapt --calibration`: fine-tune on the 42 tiles of one calibration photo."""
    from vision.model import Recognizer

    image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    if image is None:
        raise AdaptInputError(f"cannot read {photo}")
    boxes = calibration_boxes(image, Recognizer(models_dir))
    crops, cls = crops_from_calibration(image, None, boxes)
    report = adapt_crops(Path(models_dir), crops, cls, np.zeros(len(cls), np.int64), epochs=epochs, seed=seed,
                         numbers=calibration_numbers(cls), rehearse=rehearse, members=members)
    return _with_detector(report, models_dir, [(image, boxes)], detector, det_epochs, det_imgsz, seed)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision adapt", description=__doc__)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--folder", help="YOLO folder (images/ + labels/) of corrected photos")
    src.add_argument("--calibration", help="photo of the 42 face tiles in standard order, row by row "
                     "(seasons and flowers each in the order of their printed numbers)")
    ap.add_argument("--models", default=str(Path(__file__).resolve().parent.parent / "models"))
    ap.add_argument("--epochs", type=int, default=30, help="x 20 steps of 64 crops")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--det-epochs", type=int, default=DET_EPOCHS, help="detector fine-tuning epochs")
    ap.add_argument("--det-imgsz", type=int, default=None, help="detector training size (default: its own)")
    ap.add_argument("--no-detector", action="store_true",
                    help="adapt the classifier (and its readers) only: not the detector nor the tile check")
    ap.add_argument("--no-rehearsal", action="store_true",
                    help="fine-tune on your tiles alone, without procedural tiles of every class in their look")
    ap.add_argument("--all-members", action="store_true",
                    help="tune every member of the classifier's ensemble through their mean, not the leading one alone")
    args = ap.parse_args(argv)
    start()
    det = dict(detector=not args.no_detector, det_epochs=args.det_epochs, det_imgsz=args.det_imgsz,
               rehearse=not args.no_rehearsal, members="all" if args.all_members else "lead")
    try:
        check_inputs(Path(args.models), args.folder and Path(args.folder), args.calibration and Path(args.calibration),
                     args.epochs, args.det_epochs)
        if args.folder:
            report = adapt_folder(Path(args.models), Path(args.folder), epochs=args.epochs, seed=args.seed, **det)
        else:
            report = adapt_calibration(Path(args.models), Path(args.calibration), epochs=args.epochs,
                                       seed=args.seed, **det)
    except (AdaptInputError, LabelError, CalibrationError) as exc:
        print(f"vision: {exc}", file=sys.stderr)
        return 2  # bad input, as `python -m vision` says it
    progress("adapt_step_done")
    print(json.dumps(report, indent=1))
    return 0
