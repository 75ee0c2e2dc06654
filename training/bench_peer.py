"""Benchmark: our recognizer against the PyPI package mahjong-detector 0.0.6 on the same photos.

mahjong-detector is a YOLO11n ONNX detector for riichi tiles (34 kinds, no flowers), a
bench-only dependency: `pip install mahjong-detector==0.0.6`.

    python -m training.bench_peer [FOLDER] [--split S] [--limit N] [--repeat R] [--models DIR] [--json]

FOLDER is a YOLO-labelled folder (classes in our canonical order): a data set root with
images/<split> + labels/<split>, or a folder with images/ + labels/ or both side by side; by
default the validation split of the shared data set. For each photo both recognizers run R times after a
warm-up; the report gives each one's median latency per photo, the ratio ours/peer, and the
share of labelled tiles each gets right (a prediction of the right class whose box overlaps the
label with IoU >= 0.5, one prediction per label). Flowers are out of the peer's reach, so the
share is also given over the 34 kinds it knows.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

from training.dataset import labels_to_xyxy, list_pairs, list_split, read_labels
from vision.classes import CLASS_NAMES
from vision.image_io import ImageError, load_image

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FOLDER = ROOT.parent / "shared" / "data" / "rf-chinese-mahjong-detection-v4"
DEFAULT_MODELS = ROOT / "models"
IOU_MATCH = 0.5
PEER_KINDS = 34  # classes 0-33: suits, winds, dragons
# mahjong-detector names its honours in Japanese; the numbered tiles share our names
PEER_HONOURS = {"tou": "east", "nan": "south", "sha": "west", "pe": "north",
                "chun": "red", "hatsu": "green", "haku": "white"}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        peer = PeerDetector()
        ours = _our_recognizer(Path(args.models))
        photos = _photos(Path(args.folder), args.split, args.limit)
    except (ImportError, OSError, ValueError, RuntimeError) as exc:
        print(f"bench_peer: {exc}", file=sys.stderr)
        return 2
    report = run_bench(photos, {"ours": ours.recognize, "peer": peer.recognize}, repeat=args.repeat)
    print(json.dumps(report, indent=1) if args.json else format_report(report))
    if args.record:
        from training.model_card import record

        print(f"recorded in {record(args.models, 'peer', {**report['summary'], 'repeat': args.repeat})}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.bench_peer",
                                     description="our recognizer vs mahjong-detector 0.0.6")
    parser.add_argument("folder", nargs="?", default=str(DEFAULT_FOLDER),
                        help="YOLO-labelled photos (default: the shared data set)")
    parser.add_argument("--split", default="valid", help="split of a data set root (default valid)")
    parser.add_argument("--limit", type=int, default=40, help="photos to use (default 40, 0 = all)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per photo (default 3)")
    parser.add_argument("--models", default=str(DEFAULT_MODELS), help="our model folder")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--record", action="store_true",
                        help="keep the summary in the models' recognizer.json and re-render their README.md")
    return parser


class PeerDetector:
    """mahjong-detector behind our recognizer's interface: BGR image -> [{cls, box, confidence}]."""

    def __init__(self):
        try:
            from mahjong_detector.predict import CLASS_NAMES as peer_names
            from mahjong_detector.predict import predict
            from mahjong_detector.preprocess import preprocess_image
        except ImportError:
            raise ImportError("mahjong-detector is not installed: pip install mahjong-detector==0.0.6") from None
        self._predict, self._preprocess = predict, preprocess_image
        # its public detect_tiles() returns names only; the module functions also give boxes
        self._to_ours = [CLASS_NAMES.index(PEER_HONOURS.get(name, name)) for name in peer_names]

    def recognize(self, image_bgr: np.ndarray) -> list[dict]:
        pil = Image.fromarray(np.ascontiguousarray(image_bgr[:, :, ::-1]))
        padded, padding = self._preprocess(pil)
        return [{"cls": self._to_ours[d.class_id], "box": [d.x1, d.y1, d.x2, d.y2],
                 "confidence": d.confidence} for d in self._predict(padded, padding)]


def _our_recognizer(models: Path):
    if not any(models.glob("*.onnx")):
        raise ValueError(f"no models found in {models}; train them with `make train`")
    from vision.model import Recognizer

    return Recognizer(models)


def _photos(folder: Path, split: str, limit: int) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """(name, BGR image, label classes, label boxes in pixels) for up to `limit` labelled photos."""
    if not folder.is_dir():
        raise ValueError(f"no such folder: {folder}")
    if (folder / "images" / split).is_dir():  # a data set root: images/<split> + labels/<split>
        pairs = list_split(folder, split)
    else:  # images/ + labels/, or both side by side
        pairs = list_pairs(folder)
    pairs = [p for p in pairs if p[1].exists()][: limit or None]
    if not pairs:
        raise ValueError(f"no labelled photos in {folder}")
    photos = []
    for img_path, lab_path in pairs:
        try:
            image = load_image(img_path)
        except ImageError as exc:
            print(f"bench_peer: skipping {img_path.name}: {exc}", file=sys.stderr)
            continue
        cls, boxes = labels_to_xyxy(read_labels(lab_path), image.shape[1], image.shape[0])
        photos.append((img_path.name, image, cls, boxes))
    if not photos:
        raise ValueError(f"no readable photos in {folder}")
    return photos


def run_bench(photos, recognizers: dict, *, repeat: int = 3) -> dict:
    """Time and score each recognizer (name -> callable(BGR) -> detections) on the same photos."""
    names = list(recognizers)
    for fn in recognizers.values():  # warm-up: sessions, lazy initialisation, caches
        fn(photos[0][1])
    rows = []
    right = {n: {"all": 0, "known": 0} for n in names}
    total = {"all": 0, "known": 0}
    for photo, image, cls, boxes in photos:
        row = {"photo": photo, "labels": int(len(cls))}
        known = cls < PEER_KINDS
        total["all"] += len(cls)
        total["known"] += int(known.sum())
        # interleave the recognizers so background load hits both alike
        times = {n: [] for n in names}
        detections = {}
        for _ in range(max(1, repeat)):
            for n in names:
                start = time.perf_counter()
                detections[n] = recognizers[n](image)
                times[n].append(time.perf_counter() - start)
        for n in names:
            hits = correct_labels(detections[n], cls, boxes)
            right[n]["all"] += int(hits.sum())
            right[n]["known"] += int(hits[known].sum())
            row[f"{n}_ms"] = round(1000 * statistics.median(times[n]), 2)
            row[f"{n}_right"] = int(hits.sum())
        rows.append(row)
    summary = {"photos": len(rows), "labels": total["all"], "labels_known_to_peer": total["known"]}
    for n in names:
        summary[f"{n}_median_ms"] = round(statistics.median(r[f"{n}_ms"] for r in rows), 2)
        summary[f"{n}_share_right"] = round(right[n]["all"] / max(1, total["all"]), 4)
        summary[f"{n}_share_right_known"] = round(right[n]["known"] / max(1, total["known"]), 4)
    if len(names) == 2:
        a, b = names
        summary["latency_ratio"] = round(statistics.median(
            r[f"{a}_ms"] / max(r[f"{b}_ms"], 1e-6) for r in rows), 3)
    return {"summary": summary, "photos": rows}


def correct_labels(detections, cls: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Per label: True when a same-class prediction overlaps it with IoU >= IOU_MATCH.

    Predictions are taken most confident first, each matching at most one label.
    """
    hit = np.zeros(len(cls), bool)
    for det in sorted(detections, key=lambda d: -float(d["confidence"])):
        if not len(cls):
            break
        ious = iou(np.asarray(det["box"], float), boxes)
        ious[hit | (cls != int(det["cls"]))] = 0.0
        best = int(np.argmax(ious))
        if ious[best] >= IOU_MATCH:
            hit[best] = True
    return hit


def iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    x1 = np.maximum(box[0], boxes[:, 0])
    y1 = np.maximum(box[1], boxes[:, 1])
    x2 = np.minimum(box[2], boxes[:, 2])
    y2 = np.minimum(box[3], boxes[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter / np.maximum(area + areas - inter, 1e-9)


def format_report(report: dict) -> str:
    s = report["summary"]
    lines = [f"{'photo':<48} {'labels':>6} {'ours ms':>8} {'peer ms':>8} {'ratio':>6} {'ours ok':>7} {'peer ok':>7}"]
    for r in report["photos"]:
        lines.append(f"{r['photo'][:48]:<48} {r['labels']:>6} {r['ours_ms']:>8.1f} {r['peer_ms']:>8.1f} "
                     f"{r['ours_ms'] / max(r['peer_ms'], 1e-6):>6.2f} {r['ours_right']:>7} {r['peer_right']:>7}")
    lines += [
        "",
        f"{s['photos']} photos, {s['labels']} labelled tiles ({s['labels_known_to_peer']} of kinds the peer knows)",
        f"median latency per photo: ours {s['ours_median_ms']:.1f} ms, peer {s['peer_median_ms']:.1f} ms, "
        f"ratio ours/peer {s['latency_ratio']:.2f} (median of per-photo ratios)",
        f"labelled tiles right: ours {100 * s['ours_share_right']:.1f}%, peer {100 * s['peer_share_right']:.1f}%",
        f"  on the 34 kinds the peer knows: ours {100 * s['ours_share_right_known']:.1f}%, "
        f"peer {100 * s['peer_share_right_known']:.1f}%",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
