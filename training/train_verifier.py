"""The tile check's training (vision/verifier.py): p(tile) for a detector box.

Examples are the detector's own boxes, so the check learns what the detector really invents:

- procedural table photos (train_detector.write_procedural_photos: procedural sets of the styles
  training draws, never the held-out one, on felt, wood, plastic and printed tables with
  distractors and glare). Their labels are complete: a box on a labelled tile (IoU >= POS_IOU) is
  a tile, one on nothing (IoU < NEG_IOU with every tile) is not; between is left out. Plus the
  labelled boxes jittered as a detector's would be, and random boxes of a tile's size on the
  table away from every tile.
- the data set's train photos (real HK sets). Their labels leave discards and other hands out, so
  a box on no label may be a real tile: only boxes on a labelled tile count as tiles, and as not a
  tile only a box mostly inside a labelled tile that matches none (a face, a stick column).

    python -m training.train_verifier --models models --work /tmp/verifier [--photos 900] [--minutes 20]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from training.augment import photometric
from training.dataset import labels_to_xyxy, list_pairs, read_labels
from training.evaluate import iou_matrix
from training.train_classifier import lr_at
from vision.classes import BACK_CLASS
from vision.screen import WHITE, inside_share
from vision.verifier import VERIFIER_FILE, VERIFY_INPUT, to_tensor, verifier_crops

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "rf-chinese-mahjong-detection-v4"
POS_IOU, NEG_IOU = 0.5, 0.3
JITTERED_PER_PHOTO = 6  # labelled boxes jittered, per procedural photo
RANDOM_PER_PHOTO = 4  # random boxes on the table, per procedural photo
REAL_POS_PER_PHOTO = 8
BATCH = 128


class VerifierNet(nn.Module):
    """Four conv stages, each ending in a stride of 2, and a linear head: about 0.5 M parameters."""

    def __init__(self, width: int = 24):
        super().__init__()
        chans = [3, width, 2 * width, 4 * width, 6 * width]
        layers = []
        for a, b in zip(chans, chans[1:]):
            layers += [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True),
                       nn.Conv2d(b, b, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True)]
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(chans[-1], 1)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3))).squeeze(1)


class CheckEnsemble(nn.Module):
    """Checks asked together: p(tile) is the geometric mean of the members' p(tile), returned as a
    logit like one check's. A box is dropped (p under not_tile) where the members' doubts multiply
    up: one member very sure it is no tile, or both unsure; a box one member doubts at 0.02 and
    the other trusts at 0.9 keeps 0.13. Members: a check trained as before and one trained also on an
    automatic table's parts (table_part_examples), which alone dropped real face-down tiles."""

    def __init__(self, members: list[nn.Module]):
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, x):
        log_p = torch.stack([F.logsigmoid(m(x)) for m in self.members]).mean(0)
        return log_p - torch.log(torch.clamp(1 - torch.exp(log_p), min=1e-7))


def load_check(path: Path) -> nn.Module:
    """A check's weights (train_verifier's verifier.pt): one VerifierNet, or a CheckEnsemble."""
    state = torch.load(path, map_location="cpu")
    members = {k.split(".")[1] for k in state if k.startswith("members.")}
    net = CheckEnsemble([VerifierNet() for _ in members]) if members else VerifierNet()
    net.load_state_dict(state)
    return net.eval()


def joined_check(first: Path, net: nn.Module) -> CheckEnsemble:
    """The check at first (its members, if an ensemble) asked together with net."""
    old = load_check(first)
    return CheckEnsemble([*(old.members if isinstance(old, CheckEnsemble) else [old]), net.eval()])


class Exported(nn.Module):
    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, x):
        return torch.sigmoid(self.net(x))


def jitter(box: np.ndarray, rng: np.random.Generator, amount: float = 0.08) -> np.ndarray:
    """A box moved and resized by up to amount of its size, as detector boxes differ from labels."""
    w, h = box[2] - box[0], box[3] - box[1]
    d = rng.uniform(-amount, amount, 4) * np.array([w, h, w, h])
    return box + d


def random_boxes(gt: np.ndarray, shape: tuple[int, int], rng: np.random.Generator, count: int) -> np.ndarray:
    """Up to count boxes of a tile's size and shape on the photo, clear of every labelled tile."""
    from training.scenes import tile_side, tile_sized_box

    if not len(gt):
        return np.zeros((0, 4))
    side = tile_side(gt, shape)
    out = []
    for _ in range(count * 6):
        if len(out) == count:
            break
        b = tile_sized_box(side, shape, rng, (0.5, 1.6))
        if b is None:
            continue
        if iou_matrix(b[None], gt).max() < 0.05 and inside_share(b[None], gt).max() < 0.2:
            out.append(b)
    return np.array(out).reshape(-1, 4)


def label_boxes(boxes: np.ndarray, gt: np.ndarray, complete: bool) -> np.ndarray:
    """1 tile, 0 not a tile, -1 left out, for detector boxes against labelled tiles gt."""
    if not len(boxes):
        return np.zeros(0, np.int64)
    if not len(gt):
        return np.zeros(len(boxes), np.int64) if complete else np.full(len(boxes), -1)
    iou = iou_matrix(boxes, gt).max(1)
    y = np.full(len(boxes), -1)
    y[iou >= POS_IOU] = 1
    if complete:
        y[iou < NEG_IOU] = 0
    else:  # only fragments of a labelled tile are surely not tiles
        y[(iou < NEG_IOU) & (inside_share(boxes, gt).max(1) >= 0.6)] = 0
    return y


def photo_examples(rec, image: np.ndarray, gt: np.ndarray, complete: bool, rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray, dict]:
    """Crops and labels (1 tile, 0 not) from one photo with labelled tiles gt (xyxy)."""
    boxes, _, aspect = rec.detect_with_aspect(image)
    y = label_boxes(boxes, gt, complete)
    counts = {"detector_tiles": int((y == 1).sum()), "detector_phantoms": int((y == 0).sum())}
    if not complete:  # the data set's photos: a few of their tiles, every fragment
        pos = np.flatnonzero(y == 1)
        drop = rng.permutation(pos)[REAL_POS_PER_PHOTO:]
        y[drop] = -1
    keep = y >= 0
    parts, labels = [boxes[keep]], [y[keep]]
    if complete and len(gt):
        pick = rng.choice(len(gt), min(len(gt), JITTERED_PER_PHOTO), replace=False)
        parts.append(np.array([jitter(b, rng) for b in gt[pick]]))
        labels.append(np.ones(len(pick), np.int64))
        rand = random_boxes(gt, image.shape[:2], rng, RANDOM_PER_PHOTO)
        parts.append(rand)
        labels.append(np.zeros(len(rand), np.int64))
    all_boxes = np.concatenate([p.reshape(-1, 4) for p in parts]).astype(np.float32)
    return verifier_crops(image, all_boxes, aspect), np.concatenate(labels), counts


def examples_of(rec, photos, complete: bool, rng: np.random.Generator, counts: dict | None = None) -> dict:
    """Crops and labels from [(BGR image, labelled tiles xyxy)]; counts (the detector's boxes on
    tiles and on nothing) are added to, under "procedural_" or "real_" by complete."""
    crops, ys = [], []
    counts = {} if counts is None else counts
    key = "procedural" if complete else "real"
    for image, gt in photos:
        c, y, n = photo_examples(rec, image, np.asarray(gt, np.float64).reshape(-1, 4), complete, rng)
        crops.append(c)
        ys.append(y)
        for k, v in n.items():
            counts[f"{key}_{k}"] = counts.get(f"{key}_{k}", 0) + v
    return {"crops": np.concatenate(crops), "y": np.concatenate(ys).astype(np.float32), "counts": counts}


def folder_photos(folder: Path):
    """(BGR image, labelled tiles xyxy) of each readable photo of a YOLO folder, one at a time."""
    for img_p, lab_p in list_pairs(folder):
        image = cv2.imread(str(img_p))
        if image is not None:
            h, w = image.shape[:2]
            yield image, labels_to_xyxy(read_labels(lab_p), w, h)[1]


def collect(rec, folders: list[tuple[Path, bool]], seed: int, log=print) -> dict:
    """Crops and labels from every photo of each (folder, labels complete?)."""
    rng = np.random.default_rng(seed)
    parts, counts = [], {}
    for folder, complete in folders:
        parts.append(examples_of(rec, folder_photos(folder), complete, rng, counts))
        log(json.dumps({"folder": str(folder), **counts}))
    return {"crops": np.concatenate([p["crops"] for p in parts]), "y": np.concatenate([p["y"] for p in parts]),
            "counts": counts}


def augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.5:
        crop = crop[::-1, ::-1]  # a tile upside down is a tile
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return photometric(np.ascontiguousarray(crop), rng)


def batches(data: dict, rng: np.random.Generator, n: int = BATCH):
    """Endless balanced batches: half tiles, half not."""
    pos, neg = np.flatnonzero(data["y"] == 1), np.flatnonzero(data["y"] == 0)
    while True:
        idx = np.concatenate([rng.choice(pos, n // 2), rng.choice(neg, n - n // 2)])
        x = np.stack([augment(data["crops"][i], rng) for i in idx])
        yield torch.from_numpy(to_tensor(x)), torch.from_numpy(data["y"][idx])


@torch.no_grad()
def predict(net: VerifierNet, crops: np.ndarray) -> np.ndarray:
    net.eval()
    out = [torch.sigmoid(net(torch.from_numpy(to_tensor(crops[i:i + 512])))).numpy()
           for i in range(0, len(crops), 512)]
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def split_metrics(p: np.ndarray, y: np.ndarray) -> dict:
    """Tiles kept and phantoms caught at a few thresholds."""
    out = {}
    for t in (0.05, 0.1, 0.2, 0.5):
        out[str(t)] = {"tiles_below": float(np.mean(p[y == 1] < t)) if (y == 1).any() else None,
                       "phantoms_below": float(np.mean(p[y == 0] < t)) if (y == 0).any() else None}
    return out


def export_onnx(net: nn.Module, path: Path) -> None:
    model = Exported(net.eval().cpu()).eval()
    dummy = torch.zeros(1, 3, VERIFY_INPUT, VERIFY_INPUT)
    torch.onnx.export(model, dummy, str(path), input_names=["image"], output_names=["p_tile"],
                      dynamic_axes={"image": {0: "n"}, "p_tile": {0: "n"}}, opset_version=17, dynamo=False)


def train(data: dict, held: dict | None, minutes: float, seed: int = 0, lr: float = 2e-3, log=print,
          max_steps: int | None = None, batch: int = BATCH, net: nn.Module | None = None
          ) -> tuple[nn.Module, dict]:
    """Time-boxed AdamW with a cosine schedule (over max_steps instead, where given) from net (a
    fresh one without); returns the net and its figures on held (none without held)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = VerifierNet() if net is None else net
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.01)
    budget, t0, step, history = minutes * 60, time.time(), 0, []
    stream = batches(data, rng, batch)
    losses = []
    progress = (lambda: step / max_steps) if max_steps else (lambda: (time.time() - t0) / budget)
    while (frac := progress()) < 1:
        net.train()
        for g in opt.param_groups:
            g["lr"] = lr_at(frac, lr, warm=0.0)
        x, y = next(stream)
        loss = F.binary_cross_entropy_with_logits(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        step += 1
        if held is not None and step % 200 == 0:
            m = split_metrics(predict(net, held["crops"]), held["y"])
            history.append({"step": step, "minutes": (time.time() - t0) / 60, "loss": float(np.mean(losses)),
                            "held": m["0.1"]})
            losses = []
            log(json.dumps(history[-1]))
    figures = {"steps": step, "train_minutes": (time.time() - t0) / 60, "history": history}
    if held is not None:
        figures["held"] = split_metrics(predict(net, held["crops"]), held["y"])
    return net.eval(), figures


def make_photos(work: Path, count: int, seed: int, name: str = "photos", **drawing) -> Path:
    """count procedural table photos under work/name (labels complete), drawn by
    write_procedural_photos with its keyword arguments drawing (table parts, face-down tiles)."""
    from training.train_detector import write_procedural_photos

    folder = work / name
    if (folder / "images").is_dir() and len(list((folder / "images").glob("*.jpg"))) >= count:
        return folder
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    write_procedural_photos(folder / "images", folder / "labels", count, seed, **drawing)
    return folder


def table_part_examples(rec, work: Path, count: int, seed: int, log=print) -> dict:
    """The detector's boxes on count procedural photos of an automatic table (scenes.add_table_parts
    on every one; labels complete, so a box on no tile is an example of no tile): the tile-sized
    dark plates it reads as backs and the dial knobs it reads as 1筒 on the pink session. Most of
    them also show a run of face-down tiles, half of the sets with backs about as dark as the plates,
    so that the check meets real backs beside the plates: without them it learnt dark plates and
    dropped four face-down tiles more of 86; with them but the sets' own back colours, dark backs
    pasted on the pink session's table."""
    folder = make_photos(work, count, seed=2000 + seed, name=f"parts-dark-photos-{count}", table_parts=1.0,
                         face_down=0.7, dark_backs=0.5)
    return collect(rec, [(folder, True)], seed + 7, log)


def drawn_examples(count: int, seed: int, real: Path | None = None, log=print, marks_too: bool = False) -> dict:
    """Crops and labels of what the detector's boxes cannot teach (no detector needed): face-down
    tiles and 白板 as tiles, and with marks_too flat marks of a tile's size as not tiles.

    The check had never seen a face-down tile as a tile: it doubted 55 of 95 boxes on backs pasted
    into the valid split's photos, and the screening asks it about every box read as a blank face.
    So count procedural photos show runs of face-down tiles (compose.turn_face_down) and as many of
    the data set's train photos (real, when given) get backs pasted (synth.paste_backs); every
    back's box is jittered as a detector's. Both also get flat marks painted on the table
    (scenes.paint_flat_mark: a table's printed marks or a dark card holder, read as backs). As
    examples of no tile (marks_too) they cost real tiles: the check then dropped 白板 of a red and
    of a lattice style (a light frame on a patch of colour), so as shipped they stay unlabelled
    table print, and the draws are the same either way."""
    from training import compose, procedural, scenes, synth

    rng = np.random.default_rng((seed, 33))
    crops, ys = [], []

    def add(image, tiles, marks):
        boxes = [jitter(b, rng) for b in tiles] + [jitter(b, rng) for b in marks]
        if not marks_too:  # the marks stay painted, unlabelled, and the draws the same
            boxes, marks = boxes[:len(tiles)], []
        if boxes:
            crops.append(verifier_crops(image, np.array(boxes, np.float32)))
            ys.append(np.r_[np.ones(len(tiles)), np.zeros(len(marks))])

    tileset = None
    for i in range(count):
        if i % 8 == 0:
            tileset = procedural.make_tileset(procedural.random_style(rng), rng)
        table = scenes.table_top(int(rng.integers(500, 900)), int(rng.integers(700, 1200)), rng)
        kind = "scatter" if rng.random() < 0.3 else "hand"
        img, cls, boxes = compose.compose_photo(tileset, kind, rng, [table], face_down=1.0)
        marks = scenes.flat_mark_boxes(boxes, img.shape[:2], rng, int(rng.integers(1, 4)))
        for b in marks:
            img = scenes.paint_flat_mark(img, b, rng, boxes)
        scale = min(1.0, 960 / max(img.shape[:2]))
        if scale < 1:
            img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        # every blank face (back or 白板) is a tile: a 白板 of a dark body is a light frame on a patch of
        # colour, as some marks are (a first round without them dropped one of the red style study's)
        blank = boxes[(cls == BACK_CLASS) | (cls == WHITE)] * scale
        others = boxes[(cls != BACK_CLASS) & (cls != WHITE)]
        others = others[rng.permutation(len(others))[:2]] * scale
        add(img, [*blank, *others], marks * scale)
    if real is not None and Path(real).is_dir():
        for k, (image, gt) in enumerate(folder_photos(Path(real))):
            if k >= count:
                break
            image, backs = synth.paste_backs(image, gt, rng, int(rng.integers(1, 4)))
            taken = np.concatenate([gt.reshape(-1, 4), backs])
            marks = scenes.flat_mark_boxes(taken, image.shape[:2], rng, int(rng.integers(1, 3)))
            for b in marks:
                image = scenes.paint_flat_mark(image, b, rng, taken)
            add(image, list(backs), marks)
    y = np.concatenate(ys).astype(np.float32) if ys else np.zeros(0, np.float32)
    log(json.dumps({"drawn_tiles": int((y == 1).sum()), "drawn_marks": int((y == 0).sum())}))
    return {"crops": np.concatenate(crops) if crops else np.zeros((0, VERIFY_INPUT, VERIFY_INPUT, 3), np.uint8),
            "y": y}


def _cached(path: Path, make) -> dict:
    """The crops and labels saved at path, or make()'s, saved there first."""
    if path.exists():
        z = np.load(path)
        return {"crops": z["crops"], "y": z["y"]}
    made = make()
    made = {"crops": made["crops"], "y": made["y"]}
    np.savez(path, **made)
    return made


def _joined(data: dict, extra: dict) -> dict:
    """data with extra's examples added, counted as one more source of photos."""
    return {"crops": np.concatenate([data["crops"], extra["crops"]]), "y": np.concatenate([data["y"], extra["y"]]),
            "photo": np.concatenate([data["photo"], np.full(len(extra["y"]), data["photo"].max(initial=0) + 1)])}


def train_verifier(models: Path, out: Path, work: Path, data_root: Path, photos: int = 900, minutes: float = 20,
                   seed: int = 0, threads: int = 2, log=print, drawn: int = 400, drawn_marks: bool = False,
                   table_parts: int = 0, join: Path | None = None) -> dict:
    """Mine examples with the detector in models (cached in work), add drawn ones (drawn_examples,
    cached in work too) and those mined on table_parts photos of an automatic table
    (table_part_examples, cached), train, write out/verifier.onnx (install_check); returns
    the figures for the card. With join, the check written is the check at join (its weights)
    and the one trained asked together (CheckEnsemble); work/member.pt keeps the new one alone."""
    from vision.model import Recognizer

    torch.set_num_threads(threads)
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    cache = work / "examples.npz"
    if cache.exists():
        z = np.load(cache)
        data = {"crops": z["crops"], "y": z["y"], "photo": z["photo"]}
        counts = json.loads(str(z["counts"]))
    else:
        t0 = time.time()
        # a seed of its own: not the detector's training photos, nor the studies'
        folder = make_photos(work, photos, seed=1000 + seed)
        log(f"photos drawn in {(time.time() - t0) / 60:.1f} min")
        rec = Recognizer(Path(models), threads=threads)
        folders = [(folder, True)]
        real = Path(data_root) / "images" / "train"
        if real.is_dir():
            folders.append((real, False))
        parts = [collect(rec, [f], seed + i, log) for i, f in enumerate(folders)]
        data = {"crops": np.concatenate([p["crops"] for p in parts]), "y": np.concatenate([p["y"] for p in parts]),
                "photo": np.concatenate([np.full(len(p["y"]), i) for i, p in enumerate(parts)])}
        counts = {k: v for p in parts for k, v in p["counts"].items()}
        counts["mine_minutes"] = (time.time() - t0) / 60
        np.savez(cache, **data, counts=json.dumps(counts))
    if drawn:
        extra = _cached(work / f"drawn-{drawn}{'' if drawn_marks else '-no-marks'}.npz",
                        lambda: drawn_examples(drawn, seed, Path(data_root) / "images" / "train", log, drawn_marks))
        counts["drawn_tiles"], counts["drawn_marks"] = int((extra["y"] == 1).sum()), int((extra["y"] == 0).sum())
        data = _joined(data, extra)
    if table_parts:
        def mine_parts():
            return table_part_examples(Recognizer(Path(models), threads=threads), work, table_parts, seed, log)
        extra = _cached(work / f"parts-dark-{table_parts}.npz", mine_parts)
        counts["parts_tiles"], counts["parts_not"] = int((extra["y"] == 1).sum()), int((extra["y"] == 0).sum())
        data = _joined(data, extra)
    log(json.dumps(counts))
    # a tenth of the examples held out to watch training (the studies measure the real use)
    held_mask = np.random.default_rng(seed).random(len(data["y"])) < 0.1
    net, figures = train({k: v[~held_mask] for k, v in data.items()}, {k: v[held_mask] for k, v in data.items()},
                         minutes, seed, log=log)
    figures.update(counts=counts, examples=int(len(data["y"])), tiles=int((data["y"] == 1).sum()),
                   input=VERIFY_INPUT, photos=photos, drawn=drawn, drawn_marks=drawn_marks, table_parts=table_parts,
                   params=int(sum(p.numel() for p in net.parameters())))
    if join is not None:
        torch.save(net.state_dict(), work / "member.pt")
        net = joined_check(Path(join), net)
        figures["members"] = len(net.members)
    install_check(net, Path(out), work)
    (work / "verifier.json").write_text(json.dumps(figures, indent=1))
    return figures


def install_check(net: nn.Module, out: Path, work: Path) -> None:
    """out/verifier.onnx, and its weights as verifier.pt in out and in work: adapt tunes the models
    folder's, a join in work starts from work's (`make train` had left the models folder's stale)."""
    out.mkdir(parents=True, exist_ok=True)
    export_onnx(net, out / VERIFIER_FILE)
    for folder in (out, work):
        torch.save(net.state_dict(), folder / "verifier.pt")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=str(ROOT / "models"), help="the detector mined, and where the check goes")
    ap.add_argument("--out", help="models folder to write verifier.onnx into (default: --models)")
    ap.add_argument("--work", default="/tmp/verifier")
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--photos", type=int, default=900)
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--drawn", type=int, default=400,
                    help="procedural photos with face-down tiles and flat marks, and as many train photos with "
                         "backs pasted and marks painted (drawn_examples); 0: none")
    ap.add_argument("--marks", action="store_true",
                    help="the drawn photos' flat marks are also examples of no tile (tried, not shipped: the check "
                         "then dropped 白板 of red and lattice styles)")
    ap.add_argument("--table-parts", type=int, default=0,
                    help="procedural photos of an automatic table (its dial panel, dark plates, seams) whose detector "
                         "boxes are mined too (table_part_examples); 0: none")
    ap.add_argument("--join", help="a check's weights (verifier.pt) to ask together with the one trained "
                                   "(CheckEnsemble: the geometric mean of their p(tile))")
    ap.add_argument("--weights", help="with --join: these weights as the new member instead of training one")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    log = lambda s: print(s, flush=True)  # noqa: E731
    if args.weights:
        if not args.join:
            ap.error("--weights needs --join")
        net = joined_check(Path(args.join), load_check(Path(args.weights)))
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
        install_check(net, Path(args.out or args.models), work)
        log(f"{len(net.members)} checks joined into {Path(args.out or args.models) / VERIFIER_FILE}")
        return 0
    figures = train_verifier(Path(args.models), Path(args.out or args.models), Path(args.work), Path(args.data),
                             args.photos, args.minutes, args.seed, args.threads, log, args.drawn, args.marks,
                             args.table_parts, Path(args.join) if args.join else None)
    log(json.dumps(figures["held"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
