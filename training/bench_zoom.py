"""`make bench-zoom`: how well a hand that fills little of a big photo is read, with and without
the zoom passes (recognizer.json "zoom").

Each sampled valid photo is enlarged 2x (a phone has more pixels than the 640 px data set) and
put at a random place in a table-coloured canvas 1/fill times its size, so at fill 1/3 the hand
spans a third of the photo's width, as when the whole table is in view.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from training.dataset import labels_to_xyxy, list_pairs, read_labels
from training.evaluate import score

ROOT = Path(__file__).resolve().parent.parent
VALID = ROOT.parent / "shared" / "data" / "rf-chinese-mahjong-detection-v4" / "images" / "valid"
ENLARGE = 2.0


def placed(image: np.ndarray, fill: float, rng: np.random.Generator) -> tuple[np.ndarray, int, int]:
    """image inside a noisy canvas of its median colour, 1/fill times its size; (canvas, x0, y0)."""
    h, w = image.shape[:2]
    ch, cw = int(h / fill), int(w / fill)
    ground = np.median(image.reshape(-1, 3), 0).astype(np.float32)
    canvas = np.empty((ch, cw, 3), np.uint8)
    # drawn a band of rows at a time: the same draws as one call, without a 6400 px canvas's
    # 1 GB of float64 noise (4-7 s a canvas in one call, under 3 s so)
    for top in range(0, ch, 256):
        rows = min(256, ch - top)
        canvas[top:top + rows] = np.clip(ground + rng.normal(0, 4, (rows, cw, 3)), 0, 255)
    y0, x0 = int(rng.integers(0, ch - h + 1)), int(rng.integers(0, cw - w + 1))
    canvas[y0:y0 + h, x0:x0 + w] = image
    return canvas, x0, y0


def run(folder: Path, models: Path, fills: list[float], every: int, progress=print) -> list[dict]:
    from vision.model import Recognizer

    zoomed, plain = Recognizer(models), Recognizer(models)
    plain.config["zoom"] = None
    pairs = list_pairs(folder)[::every]
    rows = []
    for fill in fills:
        gts, preds = [], {"zoom": [], "plain": []}
        times = {"zoom": [], "plain": []}
        for i, (img_path, lab_path) in enumerate(pairs):
            image = cv2.imread(str(img_path))
            if image is None:
                continue
            image = cv2.resize(image, None, fx=ENLARGE, fy=ENLARGE, interpolation=cv2.INTER_CUBIC)
            canvas, x0, y0 = placed(image, fill, np.random.default_rng(i))
            cls, boxes = labels_to_xyxy(read_labels(lab_path), image.shape[1], image.shape[0])
            gts.append((cls, boxes + np.array([x0, y0, x0, y0], np.float32)))
            for name, rec in (("zoom", zoomed), ("plain", plain)):
                t0 = time.perf_counter()
                preds[name].append(rec.recognize(canvas))
                times[name].append(time.perf_counter() - t0)
        row = {"fill": fill, "photos": len(gts)}
        for name in preds:
            r = score(gts, preds[name], times[name])
            row[name] = {k: r[k] for k in ("tiles_found", "tiles_right", "photos_all_right", "latency_ms_median")}
        progress(f"fill {fill:.2f}: tiles right {row['zoom']['tiles_right']:.1%} with zoom, "
                 f"{row['plain']['tiles_right']:.1%} without; median {row['zoom']['latency_ms_median']:.0f} ms "
                 f"against {row['plain']['latency_ms_median']:.0f} ms")
        rows.append(row)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.bench_zoom", description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(VALID), help="YOLO folder of labelled photos")
    ap.add_argument("--models", default=str(ROOT / "models"))
    ap.add_argument("--fills", default="1,0.5,0.33,0.25", help="shares of the canvas side the photo fills")
    ap.add_argument("--every", type=int, default=7, help="take every n-th photo")
    ap.add_argument("--record", action="store_true", help="keep the result in the model card")
    args = ap.parse_args(argv)
    if not Path(args.data).is_dir():
        print(f"bench_zoom: no such folder: {args.data}", file=sys.stderr)
        return 2
    rows = run(Path(args.data), Path(args.models), [float(f) for f in args.fills.split(",")], args.every)
    if args.record:
        from training.model_card import record

        print(f"recorded in {record(args.models, 'zoom_bench', {'rows': rows, 'every': args.every})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
