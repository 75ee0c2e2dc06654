"""Adapting the flower reader (vision/flowers.py) to the player's own flower and season tiles,
and the group readers (vision/group_readers.py) to their 萬, 筒 and 條 tiles.

`python -m vision adapt` tunes the classifier on the player's crops; inside a reader's group the
reader's reading is averaged with the classifier's (inference.flower_reader.weight,
inference.character_reader.weight, ...), so without this step an untaught reader would outvote
half of what the classifier learnt of the set's flowers, numerals, circles or sticks. Each
reader is tuned on the same crops of its group (their class, and a flower's printed number where
the labels say it), judged on the classifier's held photos in turn by the probability of
reading each crop right, installed if better and the previous files kept under
models/previous/, as the classifier is. Judged before by the share of four looks at one held
photo read right (two flowers, four 萬 on xmahjongg's scanned set), a reader was kept or
installed on one look's difference.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from training.adapt import HELD_COPIES, MAX_JITTER, balanced_pick, check_length, judged_in_turn, number_targets
from training.adapt_progress import judged as say_judged
from training.adapt_progress import tuning_progress
from training.adapt_detector import keep_previous
from training.model_files import replaced
from training import train_group_reader as tgr
from training.adapt_replay import REPLAY_SHARE, rehearsed_class_loss
from training.quantize import INT8_READERS, quantize_reader
from training.train_classifier import NO_NUMBER
from training.train_flower_reader import (WEIGHTS_FILE, export_onnx, read_right, reader_view, start_from,
                                          with_none_targets)
from vision.classes import FLOWER_CLASSES
from vision.flowers import FLOWER_STORE, READER_FILE
from vision.group_readers import READERS, reader_file


@dataclass(frozen=True)
class ReaderKind:
    """What adapt needs to know of one reader: its group, files and how to make and export it."""
    name: str
    classes: tuple
    weights_file: str
    onnx_file: str
    start: Callable
    export: Callable
    numbers: bool  # does it read a printed number (flowers and seasons)


FLOWERS = ReaderKind("flower", FLOWER_CLASSES, WEIGHTS_FILE, READER_FILE, start_from, export_onnx, True)
GROUPS = tuple(ReaderKind(name.removesuffix("_reader"), kind["classes"], tgr.weights_file(name), reader_file(name),
                          partial(tgr.start_from, name=name), tgr.export_onnx, False)
               for name, kind in READERS.items())
KINDS = (FLOWERS, *GROUPS)  # every reader adapt tunes


def load_reader(models_dir: Path, kind: ReaderKind = FLOWERS):
    return kind.start(Path(models_dir) / kind.weights_file).eval()


def jittered(crops: np.ndarray, pick: np.ndarray, rng: np.random.Generator) -> torch.Tensor:
    """The picked crops, box jitter up to MAX_JITTER times the training's (as the classifier's
    adapt: the set's sides cut in and out)."""
    xs = [reader_view(crops[j], rng, strength=rng.uniform(1, MAX_JITTER)) for j in pick]
    return torch.from_numpy(np.stack(xs)).float() / 255


def held_reading(net, crops: np.ndarray, cls: np.ndarray, num: np.ndarray, copies: int = HELD_COPIES,
                 seed: int = 1) -> dict:
    """How a reader reads held crops, as training.adapt.held_reading (fixed seed: old and new see the
    same looks): looks read right (season or plant and number where the number is known, else the
    name: read_right) and the probability of reading them right summed over the looks."""
    rng = np.random.default_rng(seed)
    pick = np.tile(np.arange(len(cls)), copies)
    net.eval()
    with torch.no_grad():
        a, _, c = net(jittered(crops, pick, rng))
    pa, pc = F.softmax(a, 1).numpy(), F.softmax(c, 1).numpy()
    y, k, rows = cls[pick], num[pick], np.arange(len(pick))
    seasons = pa[:, :4].sum(1)  # a flower reader's first four classes are the seasons
    p_right = np.where(k == NO_NUMBER, pa[rows, y],
                       np.where(y < 4, seasons, 1 - seasons) * pc[rows, np.clip(k, 0, pc.shape[1] - 1)])
    return {"looks": len(pick), "right": float(read_right(pa.argmax(1), pc.argmax(1), y, k).sum()),
            "p_right": float(p_right.sum())}


def fine_tune(net, crops: np.ndarray, cls: np.ndarray, num: np.ndarray, steps: int = 150, batch: int = 32,
              lr: float = 3e-4, seed: int = 0, replay: tuple | None = None):
    """Every class the crops have equally often; the number where known. As the classifier's adapt,
    the player's crops teach only among the flowers they show, and replay (rehearsal flowers in
    the player's look: crops, cls, num as these) a REPLAY_SHARE of each batch, all eight: five
    photos lacking four flowers otherwise taught the reader never to say them."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    present = np.unique(cls)
    n_replay = max(1, int(round(REPLAY_SHARE * batch))) if replay is not None else 0
    n_own = batch - n_replay
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.01)
    for step in range(steps):
        tuning_progress(step, steps)
        net.train()
        for g in opt.param_groups:
            g["lr"] = lr * 0.5 * (1 + np.cos(np.pi * step / steps))
        pick = balanced_pick(cls, rng, n_own)
        x, y, k = jittered(crops, pick, rng), cls[pick], num[pick]
        if replay is not None:  # one forward pass for both: batch norm sees one batch
            r_pick = balanced_pick(replay[1], rng, n_replay)
            x = torch.cat([x, jittered(replay[0], r_pick, rng)])
            # a rehearsal flower of a set that prints names alone teaches "no number" to a reader
            # that can say it (the player's own crops: an unknown number is only skipped)
            k = np.concatenate([k, with_none_targets(torch.as_tensor(replay[2][r_pick]), net).numpy()])
        a, _, c = net(x)
        loss = rehearsed_class_loss(a, y, present, None if replay is None else replay[1][r_pick])
        if (k != NO_NUMBER).any():
            loss = loss + F.cross_entropy(c, torch.as_tensor(k), ignore_index=NO_NUMBER)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net.eval()


def reader_crops(crops: np.ndarray, cls: np.ndarray, numbers: np.ndarray | None, kind: ReaderKind = FLOWERS):
    """The crops of the reader's group among CROP_STORE crops, at the reader's FLOWER_STORE (the
    same margin), with their reader classes (0-7 for flowers) and number targets."""
    mine = np.isin(cls, kind.classes)
    x = np.stack([cv2.resize(c, (FLOWER_STORE, FLOWER_STORE)) for c in crops[mine]]) if mine.any() \
        else np.zeros((0, FLOWER_STORE, FLOWER_STORE, 3), np.uint8)
    y = np.searchsorted(kind.classes, cls[mine]).astype(np.int64)
    k = number_targets(None if numbers is None or not kind.numbers else np.asarray(numbers)[mine], len(y))
    return x, y, k, mine


def adapt_reader(models_dir: Path, crops: np.ndarray, cls: np.ndarray, folds: list[np.ndarray],
                 numbers: np.ndarray | None, seed: int = 0, steps: int = 150,
                 install_if_better: bool = True, replay: dict | None = None, kind: ReaderKind = FLOWERS,
                 batch: int = 32) -> dict | None:
    """Tune the reader (the flower reader unless kind says) on the crops of its group among crops
    (stored at CROP_STORE); None when there are none or the models folder has no such reader.
    folds: the classifier's held parts (training.adapt.held_folds), judged in turn as there, by the
    probability of reading each held crop right; a part holding none of the group's crops, or all
    of them, is skipped, and with none left the reader is judged on its own crops under other
    jitter. replay: adapt's rehearsal tiles (training/adapt_replay.py), whose tiles of the group
    join every batch of `batch` crops."""
    models_dir = Path(models_dir)
    if not np.isin(cls, kind.classes).any() or not (models_dir / kind.weights_file).exists():
        return None
    t0 = time.time()
    x, y, k, mine = reader_crops(crops, cls, numbers, kind)
    rehearsal = None
    if replay is not None and np.isin(replay["cls"], kind.classes).any():
        rehearsal = reader_crops(replay["crops"], replay["cls"], replay["numbers"], kind)[:3]
    parts = [f[mine] for f in folds if f[mine].any() and (~f[mine]).any()]

    def tune(train: np.ndarray, length: int = steps):
        return fine_tune(load_reader(models_dir, kind), x[train], y[train], k[train], steps=length, batch=batch,
                         seed=seed, replay=rehearsal)

    # no parts: judged on its own crops under other looks by the model it installs; with parts the
    # check's models are tuned shorter, as the classifier's are
    judged = judged_in_turn(parts, len(y), load_reader(models_dir, kind),
                            lambda train: tune(train, check_length(steps, bool(parts))),
                            lambda net, test: held_reading(net, x[test], y[test], k[test]))
    before, after, new_net = judged["before"], judged["after"], judged["net"]
    installed = bool(install_if_better and after["score"] > before["score"])
    say_judged(f"{kind.name}_reader", bool(parts), before, after, installed)
    if installed:
        if parts:  # five photos are too few to leave one unused (as the classifier's adapt)
            new_net = tune(np.ones(len(y), bool))
        keep_previous(models_dir, (kind.weights_file, kind.onnx_file))
        with replaced(models_dir / kind.weights_file) as part:
            torch.save(new_net.state_dict(), part)
        with replaced(models_dir / kind.onnx_file) as part:  # the app may load it any moment
            kind.export(new_net, part)
            if Path(kind.onnx_file).stem in INT8_READERS:  # as shipped
                quantize_reader(part, x, seed)
    return {f"{kind.name}_crops": int(len(y)), "held_out_crops": sum(judged["held"]),
            "held_out_by_photo": bool(parts), "held_parts": len(judged["held"]),
            "rehearsal_crops": 0 if rehearsal is None else int(len(rehearsal[1])),
            "old_accuracy": before["accuracy"], "new_accuracy": after["accuracy"],
            "old_score": before["score"], "new_score": after["score"],
            "installed": installed, "seconds": time.time() - t0}
