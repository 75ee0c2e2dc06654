"""The flower reader's training (vision/flowers.py): which of the 8 flowers and seasons a tile
is and the number it prints, read at FLOWER_INPUT px from a FLOWER_STORE px crop.

It starts from the classifier's weights (its features already tell a flower from a 萬; trained
from scratch on two cores, the reader stayed at chance for 800 steps) and learns from the data
set's real flower crops and from flowers of procedural tile sets drawn fresh every epoch, where
the plant pictures, the fonts of the names and the numbers' place and script vary
(training/procedural.py; never the held-out style).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from training import procedural
from training.augment import photometric, rotate_cw
from training.cls_net import NUM_PRINTED, TileEnsemble, TileNet, first_member, member_count, member_state
from training.quantize import INT8_READERS, quantize_reader
from training.train_classifier import (DARK_INK_SHARE, NO_NUMBER, REAL_NUMBERS, RED_FIVE_SHARE, crop_cache, lr_at,
                                      procedural_crop)
from vision.classes import FLOWER_CLASSES
from vision.crops import dark_ink, to_input
from vision.flowers import FLOWER_INPUT, FLOWER_STORE

WEIGHTS_FILE = "flower_reader.pt"  # its PyTorch weights beside the ONNX file: what adapt tunes
SETS_PER_EPOCH = 24
CROPS_PER_CLASS_AND_SET = 8
PASSES = 2  # over each epoch's fresh crops, augmented anew: drawing them takes as long as one pass
REAL_SHARE = 0.3  # of each batch: the data set's own flowers, so its art stays read right
TILTED_SHARE = 0.3
BATCH = 64
# box jitter of the training views, drawn up to this many times the classifier's: the reader
# read a red set's flowers at the detector's boxes 30/41 right, at the same boxes shrunk 15%
# 35/41, and the data set's real ones best at boxes grown 15% (2026-12-03): it leant on one framing
JITTER = 1.0
# The reader's number head has a fifth answer: "prints no number". With four answers only, it
# read a number off every flower that prints its name alone (xmahjongg's scanned set: 梅 read 4 at
# 0.90, 菊 4 at 0.97), and a number read 0.6 sure decides the tile (vision/tilesets.json).
NONE_PRINTED = NUM_PRINTED


class Reader(nn.Module):
    """TileNet's features and its class head (and its number head, with_number), as
    probabilities: a reader's ONNX export."""

    def __init__(self, net: TileNet, with_number: bool = True):
        super().__init__()
        self.net = net
        self.with_number = with_number

    def forward(self, x):
        a, _, c = self.net(x)
        return (F.softmax(a, 1), F.softmax(c, 1)) if self.with_number else F.softmax(a, 1)


def from_classifier(path: Path | None, classes=FLOWER_CLASSES) -> TileNet:
    """A TileNet with a class head for classes (the 8 flowers unless said) whose features,
    number head and those rows of the class head come from the classifier's weights at path
    (its first member if it is an ensemble; fresh weights without one)."""
    net = first_member(path) if path else TileNet()
    head = net.cls_head
    net.cls_head = nn.Linear(head.in_features, len(classes))
    with torch.no_grad():
        net.cls_head.weight.copy_(head.weight[list(classes)])
        net.cls_head.bias.copy_(head.bias[list(classes)])
    return net


def start_from(path: Path | None, classes=FLOWER_CLASSES) -> TileNet | TileEnsemble:
    """The reader's starting point: a reader's own weights (a further round; a TileEnsemble
    where the reader is one of rounds read together), or from_classifier's network made from a
    classifier's weights (or fresh ones without a path)."""
    if path is not None:
        state = torch.load(path, map_location="cpu")
        if member_count(state) and _is_reader(member_state(state, 0), classes):
            return TileEnsemble([_reader(member_state(state, i), classes) for i in range(member_count(state))])
        if _is_reader(state, classes):
            return _reader(state, classes)
    return from_classifier(path, classes)


def _is_reader(state: dict, classes) -> bool:
    """Whether state is a reader's of classes (its class head one row a class), not a classifier's."""
    return state.get("cls_head.weight") is not None and state["cls_head.weight"].shape[0] == len(classes)


def _reader(state: dict, classes) -> TileNet:
    net = from_classifier(None, classes)
    if state["num_head.weight"].shape[0] == NUM_PRINTED + 1:
        net = with_none(net)
    net.load_state_dict(state)
    return net


def with_none(net: TileNet | TileEnsemble) -> TileNet | TileEnsemble:
    """The reader with NONE_PRINTED as its number head's last answer (each member's, for an
    ensemble); the four numbers keep their weights, and "none" starts unlikely.

    >>> net = with_none(TileNet())
    >>> net.num_head.out_features, with_none(net).num_head.out_features
    (5, 5)
    """
    for member in (net.members if isinstance(net, TileEnsemble) else [net]):
        head = member.num_head
        if head.out_features == NUM_PRINTED + 1:
            continue
        member.num_head = nn.Linear(head.in_features, NUM_PRINTED + 1)
        with torch.no_grad():
            member.num_head.weight.zero_()
            member.num_head.weight[:NUM_PRINTED] = head.weight
            member.num_head.bias.copy_(torch.cat([head.bias, head.bias.min().reshape(1) - 2.0]))
    return net


def with_none_targets(k: torch.Tensor, net) -> torch.Tensor:
    """The number head's targets: a flower that prints no number (NO_NUMBER: every flower crop
    here is of a set whose numbers are known) is NONE_PRINTED for a reader that can say so."""
    heads = net.members[0].num_head if isinstance(net, TileEnsemble) else net.num_head
    return torch.where(k == NO_NUMBER, NONE_PRINTED, k) if heads.out_features > NUM_PRINTED else k


def real_flowers(cache: dict) -> dict:
    """The flower crops of a split's crop cache at FLOWER_STORE, with class (0-7) and number (0-3)."""
    keep = np.isin(cache["cls"], FLOWER_CLASSES)
    crops = np.stack([cv2.resize(c, (FLOWER_STORE, FLOWER_STORE)) for c in cache["crops"][keep]]) \
        if keep.any() else np.zeros((0, FLOWER_STORE, FLOWER_STORE, 3), np.uint8)
    cls = cache["cls"][keep].astype(np.int64)
    return {"crops": crops, "cls": cls - FLOWER_CLASSES[0],
            "num": np.array([REAL_NUMBERS[int(c)] - 1 for c in cls], np.int64)}


def procedural_group(rng: np.random.Generator, sets: int, per_class: int, classes, held_out: bool = False,
                     red_share: float = RED_FIVE_SHARE) -> dict:
    """Crops of classes (class: their index in classes) from freshly drawn procedural sets
    (held_out: of the style left out of training), with the number each set prints on them
    (0-3; NO_NUMBER where it prints none: every other tile, and flowers of a set that prints names
    alone); red_share of the fives drawn red."""
    crops, cls, num = [], [], []
    for _ in range(sets):
        tileset = procedural.make_tileset(procedural.random_style(rng, held_out=held_out), rng)
        dark = tileset["style"].get("scheme") == "dark"
        for k, c in enumerate(classes):
            for _ in range(per_class):
                tilted = rng.random() < TILTED_SHARE
                drawn = procedural.maybe_red_five(tileset, c, red_share, rng)  # the group readers' fives
                crop = procedural_crop(drawn, c, rng, None, max_angle=45.0 if tilted else 0.0,
                                       size=FLOWER_STORE, heights=(90, 200))
                if dark and rng.random() < DARK_INK_SHARE:
                    crop = dark_ink(crop)  # the look the recognizer also takes at a light-ink set
                crops.append(crop)
                cls.append(k)
                num.append(tileset["numbers"][c] - 1 if c in tileset["numbers"] else NO_NUMBER)
    return {"crops": np.stack(crops), "cls": np.array(cls, np.int64), "num": np.array(num, np.int64)}


def procedural_flowers(rng: np.random.Generator, sets: int, per_class: int, held_out: bool = False) -> dict:
    """Flower crops of freshly drawn procedural sets (held_out: of the style left out of training)."""
    return procedural_group(rng, sets, per_class, FLOWER_CLASSES, held_out)


def reader_view(crop: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """A stored crop as the reader's (3, FLOWER_INPUT, FLOWER_INPUT) input, jittered (box jitter
    at strength times the classifier's), in the classifier's frame: upright or upside down."""
    x = photometric(to_input(crop, rng, out=FLOWER_INPUT, strength=strength), rng)
    return rotate_cw(x, 2 * int(rng.integers(2))).transpose(2, 0, 1)


def read_right(a: np.ndarray, c: np.ndarray, y: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per crop: season or plant (class a against y) and printed number (c against k) both
    right, what scoring uses; on a flower that prints no number (k NO_NUMBER), its name.

    >>> read_right(np.array([0, 4, 1]), np.array([0, 0, 3]), np.array([1, 4, 1]), np.array([0, 1, NO_NUMBER])).tolist()
    [True, False, True]
    """
    return np.where(k == NO_NUMBER, a == y, ((a < 4) == (y < 4)) & (c == k))


def batch(pool: dict, real: dict, rng: np.random.Generator, n: int = BATCH, jitter: float = JITTER
          ) -> tuple[torch.Tensor, ...]:
    xs, ys, ks = [], [], []
    for _ in range(n):
        src = real if len(real["cls"]) and rng.random() < REAL_SHARE else pool
        j = int(rng.integers(len(src["cls"])))
        xs.append(reader_view(src["crops"][j], rng, strength=rng.uniform(1.0, jitter)))
        ys.append(src["cls"][j])
        ks.append(src["num"][j])
    return (torch.from_numpy(np.stack(xs)).float() / 255, torch.as_tensor(np.array(ys)),
            torch.as_tensor(np.array(ks)))


def predict(net: TileNet, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(class 0-7, number 0-3 or NONE_PRINTED) argmax for stored crops at FLOWER_STORE."""
    net.eval()
    a_all, c_all = [], []
    with torch.no_grad():
        for s in range(0, len(crops), 256):
            x = np.stack([to_input(c, out=FLOWER_INPUT).transpose(2, 0, 1) for c in crops[s:s + 256]])
            a, _, c = net(torch.from_numpy(x).float() / 255)
            a_all.append(a.argmax(1).numpy())
            c_all.append(c.argmax(1).numpy())
    return np.concatenate(a_all), np.concatenate(c_all)


def metrics(net: TileNet, data: dict) -> dict:
    """Name, season-or-plant, number, and the tile (group and number: what scoring uses) right;
    None where no crop asks (kept as JSON null in the card's data, which strict parsers read)."""
    if not len(data["cls"]):
        return {}
    a, c = predict(net, data["crops"])
    y, k = data["cls"], data["num"]
    group = (a < 4) == (y < 4)
    printed = k != NO_NUMBER
    return {"crops": int(len(y)), "name": float(np.mean(a == y)), "season_or_plant": float(np.mean(group)),
            "number": float(np.mean(c[printed] == k[printed])) if printed.any() else None,
            # of the flowers that print no number, those the reader says print none
            "none": float(np.mean(c[~printed] == NONE_PRINTED)) if (~printed).any() else None,
            "tile": float(np.mean(read_right(a, c, y, k)))}


def export_onnx(net: TileNet, path: Path, with_number: bool = True) -> None:
    """A reader's ONNX file: input "image", outputs "p_cls" (and "p_num", with_number)."""
    outputs = ["p_cls", "p_num"] if with_number else ["p_cls"]
    torch.onnx.export(Reader(net.eval().cpu(), with_number).eval(), torch.zeros(1, 3, FLOWER_INPUT, FLOWER_INPUT),
                      str(path), input_names=["image"], output_names=outputs,
                      dynamic_axes={"image": {0: "n"}, **{name: {0: "n"} for name in outputs}}, opset_version=17,
                      dynamo=False)


def train_time_boxed(net: TileNet, minutes: float, lr: float, draw_pool, loss_on, save_to: Path, log=print,
                     epoch_note=dict) -> dict:
    """A reader's training loop (the flower and character readers'): AdamW with a cosine schedule
    over a time budget; each epoch draws a fresh pool (draw_pool()) and takes PASSES over it in
    batches whose loss is loss_on(pool); after each epoch the weights go to save_to and a line,
    with epoch_note()'s figures, to log. Returns epochs, steps, train_minutes and history."""
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.01)
    budget, t0, step, epoch, history = minutes * 60, time.time(), 0, 0, []
    while time.time() - t0 < budget:
        pool = draw_pool()
        net.train()
        losses = []
        for _ in range(PASSES * len(pool["cls"]) // BATCH):
            frac = (time.time() - t0) / budget
            if frac >= 1:
                break
            for g in opt.param_groups:
                g["lr"] = lr_at(frac, lr)
            loss = loss_on(pool)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            step += 1
        epoch += 1
        history.append({"epoch": epoch, "steps": step, "loss": float(np.mean(losses)) if losses else None,
                        **epoch_note(), "minutes": (time.time() - t0) / 60})
        log(json.dumps(history[-1]))
        torch.save(net.state_dict(), save_to)
    return {"epochs": epoch, "steps": step, "train_minutes": (time.time() - t0) / 60, "history": history}


def train_flower_reader(data_root: Path, work_dir: Path, out_onnx: Path, minutes: float, init_weights: Path | None,
                        seed: int = 0, threads: int = 2, lr: float = 3e-4, log=print, jitter: float = JITTER) -> dict:
    """Train (time-boxed, cosine schedule; box jitter up to jitter times the classifier's),
    export, and return the figures on the valid split's real flowers and on procedural sets of
    the held-out style. The number head also says "prints no number" (NONE_PRINTED: with_none)."""
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    work_dir = Path(work_dir)
    real = real_flowers(crop_cache(data_root, work_dir, "train"))
    valid = real_flowers(crop_cache(data_root, work_dir, "valid"))
    held = procedural_flowers(np.random.default_rng((seed, 99)), sets=8, per_class=4, held_out=True)
    seen = procedural_flowers(np.random.default_rng((seed, 98)), sets=8, per_class=4)
    net = with_none(start_from(init_weights))
    before = {"valid": metrics(net, valid), "held_out_style": metrics(net, held), "seen_styles": metrics(net, seen)}
    log(json.dumps({"before": before}))

    def loss_on(pool):
        x, y, k = batch(pool, real, rng, jitter=jitter)
        a, _, c = net(x)
        loss = F.cross_entropy(a, y, label_smoothing=0.05)
        # a flower that prints no number teaches its name, and that it prints none where the head can say so
        k = with_none_targets(k, net)
        return loss + F.cross_entropy(c, k, ignore_index=NO_NUMBER) if (k != NO_NUMBER).any() else loss

    run = train_time_boxed(net, minutes, lr, lambda: procedural_flowers(rng, SETS_PER_EPOCH, CROPS_PER_CLASS_AND_SET),
                           loss_on, work_dir / "flower_reader_last.pt", log,
                           epoch_note=lambda: {"held_out_style": metrics(net, held)})
    out_onnx = Path(out_onnx)
    out_onnx.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(net, out_onnx)
    if "flower_reader" in INT8_READERS:
        quantize_reader(out_onnx, real["crops"], seed)
    return {"before": before, "valid": metrics(net, valid), "held_out_style": metrics(net, held),
            "seen_styles": metrics(net, seen), **run, "input": FLOWER_INPUT,
            "store": FLOWER_STORE, "lr": lr, "jitter": jitter, "real_train_crops": int(len(real["cls"]))}
