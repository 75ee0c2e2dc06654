"""The group readers' training (vision/group_readers.py): which tile of its group (the character
reader: 1m-9m; the suit reader: 1p-9s) a tile is, read at FLOWER_INPUT px from a FLOWER_STORE px
crop (the flower reader's sizes).

Like the flower reader a group reader starts from the classifier's weights (training/
train_flower_reader.py from_classifier, its group's rows of the class head). Most of each batch
is its group's tiles of procedural sets drawn fresh every epoch, whose numerals come from many
fonts and whose circles and sticks are drawn in many shapes and layouts (training/procedural.py;
never the held-out style); the rest is the data set's real crops of the group, with their
corners painted over on most of them: HK sets print an index there, and a reader that leans on
it cannot read a Taiwanese set.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from training.augment import erase_corners, photometric, rotate_cw
from training.cls_net import TileNet
from training.quantize import INT8_READERS, quantize_reader
from training.train_classifier import RED_FIVE_SHARE, crop_cache
from training.train_flower_reader import export_onnx as reader_export
from training.train_flower_reader import procedural_group, train_time_boxed
from training.train_flower_reader import start_from as reader_start
from vision.crops import to_input
from vision.flowers import FLOWER_INPUT, FLOWER_STORE
from vision.group_readers import READERS

SETS_PER_EPOCH = 24
CROPS_PER_SET = 90  # of each drawn set an epoch, shared among the group's classes
REAL_SHARE = 0.3  # of each batch: the data set's own tiles of the group, so its sets stay read right
CORNER_ERASE_SHARE = 0.8  # of those real crops: two to four corners painted over
BATCH = 64


def weights_file(name: str) -> str:
    """The PyTorch weights of reader `name` (a key of READERS), kept beside its ONNX file."""
    return f"{name}.pt"


def start_from(path: Path | None, name: str = "character_reader") -> TileNet:
    """A reader's own weights (a further round), or a reader made from a classifier's weights."""
    return reader_start(path, READERS[name]["classes"])


def real_group(cache: dict, classes) -> dict:
    """The crops of classes in a split's crop cache at FLOWER_STORE, with their index in classes."""
    keep = np.isin(cache["cls"], classes)
    crops = np.stack([cv2.resize(c, (FLOWER_STORE, FLOWER_STORE)) for c in cache["crops"][keep]]) \
        if keep.any() else np.zeros((0, FLOWER_STORE, FLOWER_STORE, 3), np.uint8)
    return {"crops": crops, "cls": np.searchsorted(classes, cache["cls"][keep]).astype(np.int64)}


def procedural_crops(rng: np.random.Generator, sets: int, per_class: int, classes, held_out: bool = False,
                     red_share: float = RED_FIVE_SHARE) -> dict:
    """Crops of classes from freshly drawn procedural sets (held_out: of the style left out of
    training; red_share of the fives drawn red)."""
    data = procedural_group(rng, sets, per_class, classes, held_out, red_share)
    return {"crops": data["crops"], "cls": data["cls"]}


def reader_view(crop: np.ndarray, rng: np.random.Generator, erase: bool = False) -> np.ndarray:
    """A stored crop as the reader's (3, FLOWER_INPUT, FLOWER_INPUT) input, jittered, corners
    painted over if erase, upright or upside down (the classifier's frame)."""
    x = to_input(crop, rng, out=FLOWER_INPUT)
    if erase:
        x = erase_corners(x, rng, count=int(rng.integers(2, 5)))
    x = photometric(x, rng)
    return rotate_cw(x, 2 * int(rng.integers(2))).transpose(2, 0, 1)


def batch(pool: dict, real: dict, rng: np.random.Generator, n: int = BATCH) -> tuple[torch.Tensor, torch.Tensor]:
    xs, ys = [], []
    for _ in range(n):
        is_real = bool(len(real["cls"])) and rng.random() < REAL_SHARE
        src = real if is_real else pool
        j = int(rng.integers(len(src["cls"])))
        xs.append(reader_view(src["crops"][j], rng, erase=is_real and rng.random() < CORNER_ERASE_SHARE))
        ys.append(src["cls"][j])
    return torch.from_numpy(np.stack(xs)).float() / 255, torch.as_tensor(np.array(ys))


def predict(net: TileNet, crops: np.ndarray) -> np.ndarray:
    """Class probabilities (by index in the reader's group) for stored crops at FLOWER_STORE."""
    net.eval()
    out = []
    with torch.no_grad():
        for s in range(0, len(crops), 256):
            x = np.stack([to_input(c, out=FLOWER_INPUT).transpose(2, 0, 1) for c in crops[s:s + 256]])
            out.append(F.softmax(net(torch.from_numpy(x).float() / 255)[0], 1).numpy())
    return np.concatenate(out) if out else np.zeros((0, net.cls_head.out_features), np.float32)


def metrics(net: TileNet, data: dict) -> dict:
    if not len(data["cls"]):
        return {}
    return {"crops": int(len(data["cls"])), "right": float(np.mean(predict(net, data["crops"]).argmax(1) == data["cls"]))}


def export_onnx(net: TileNet, path: Path) -> None:
    """The reader's ONNX file: input "image", output "p_cls" (its group's classes)."""
    reader_export(net, path, with_number=False)


def train_group_reader(name: str, data_root: Path, work_dir: Path, out_onnx: Path, minutes: float,
                       init_weights: Path | None, seed: int = 0, threads: int = 2, lr: float = 3e-4,
                       log=print) -> dict:
    """Train reader `name` (a key of vision/group_readers.READERS; time-boxed, cosine schedule),
    export, and return the figures on the valid split's real tiles of its group and on
    procedural sets of the seen styles and of the held-out one. Its last weights are left in
    work_dir as `name`_last.pt."""
    classes = READERS[name]["classes"]
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    work_dir = Path(work_dir)
    real = real_group(crop_cache(data_root, work_dir, "train"), classes)
    valid = real_group(crop_cache(data_root, work_dir, "valid"), classes)
    held = procedural_crops(np.random.default_rng((seed, 99)), 8, 4, classes, held_out=True)
    seen = procedural_crops(np.random.default_rng((seed, 98)), 8, 4, classes)
    net = start_from(init_weights, name)
    per_class = max(2, CROPS_PER_SET // len(classes))

    def loss_on(pool):
        x, y = batch(pool, real, rng)
        return F.cross_entropy(net(x)[0], y, label_smoothing=0.05)

    run = train_time_boxed(net, minutes, lr,
                           lambda: procedural_crops(rng, SETS_PER_EPOCH, per_class, classes), loss_on,
                           work_dir / f"{name}_last.pt", log)
    out_onnx = Path(out_onnx)
    out_onnx.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(net, out_onnx)
    if name in INT8_READERS:
        quantize_reader(out_onnx, real["crops"], seed)
    return {"valid": metrics(net, valid), "held_out_style": metrics(net, held), "seen_styles": metrics(net, seen),
            **run, "input": FLOWER_INPUT, "store": FLOWER_STORE, "lr": lr, "real_train_crops": int(len(real["cls"])),
            "real_share": REAL_SHARE, "corner_erase_share": CORNER_ERASE_SHARE}
