"""Scoring the recognizer on a YOLO-labelled folder of photos.

evaluate(folder, recognizer) runs the recognizer on every photo; score() is the pure metric
math on ground truth + predictions, so it can be checked on constructed cases.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import numpy as np

from training.dataset import LabelError, labels_to_xyxy, list_pairs, read_labels
from training.label_fixes import apply_fixes
from vision.screen import iou_matrix

NUM_FACE_CLASSES = 42
FLOWERS = tuple(range(34, 42))
IOU_THRESHOLDS = tuple(np.round(np.arange(0.5, 0.96, 0.05), 2))
LOW_CONFIDENCE = 0.6  # the pipeline flags tiles below this (vision.pipeline.recognize_image)


def class_name(cls: int) -> str:
    try:
        from vision.classes import CLASS_NAMES
        return CLASS_NAMES[cls]
    except (ImportError, IndexError):
        return str(cls)


def match_boxes(pred_boxes, gt_boxes, iou_min: float = 0.5) -> list[tuple[int, int]]:
    """One-to-one (pred, gt) pairs, highest IoU first, ignoring classes."""
    iou = iou_matrix(pred_boxes, gt_boxes)
    pairs = []
    if iou.size == 0:
        return pairs
    order = np.dstack(np.unravel_index(np.argsort(-iou, axis=None), iou.shape))[0]
    used_p, used_g = set(), set()
    for p, g in order:
        if iou[p, g] < iou_min:
            break
        if p not in used_p and g not in used_g:
            used_p.add(p)
            used_g.add(g)
            pairs.append((int(p), int(g)))
    return pairs


def average_precision(recall: np.ndarray, precision: np.ndarray) -> float:
    """Area under the precision envelope (all-point interpolation)."""
    r = np.concatenate([[0.0], recall, [1.0]])
    p = np.concatenate([[1.0], precision, [0.0]])
    p = np.maximum.accumulate(p[::-1])[::-1]
    idx = np.where(r[1:] != r[:-1])[0]
    return float(np.sum((r[idx + 1] - r[idx]) * p[idx + 1]))


def class_ap(gts, preds, cls: int, iou_min: float) -> float | None:
    """AP of one class over all images; None when the class has no ground truth."""
    n_gt = sum(int((g_cls == cls).sum()) for g_cls, _ in gts)
    if n_gt == 0:
        return None
    scored = []  # (confidence, image index, box)
    for i, dets in enumerate(preds):
        scored += [(d["confidence"], i, d["box"]) for d in dets if d["cls"] == cls]
    if not scored:
        return 0.0
    scored.sort(key=lambda t: -t[0])
    taken = [np.zeros(int((g_cls == cls).sum()), bool) for g_cls, _ in gts]
    tp = np.zeros(len(scored))
    for k, (_, i, box) in enumerate(scored):
        g_cls, g_boxes = gts[i]
        mine = g_boxes[g_cls == cls]
        if len(mine):
            iou = iou_matrix([box], mine)[0]
            iou[taken[i]] = -1
            j = int(iou.argmax())
            if iou[j] >= iou_min:
                taken[i][j] = True
                tp[k] = 1
    ctp = np.cumsum(tp)
    return average_precision(ctp / n_gt, ctp / np.arange(1, len(tp) + 1))


def inside_any(boxes, gt_boxes, share: float = 0.5) -> np.ndarray:
    """Which boxes lie at least share of their area inside some ground-truth box."""
    a = np.asarray(boxes, np.float64).reshape(-1, 4)
    b = np.asarray(gt_boxes, np.float64).reshape(-1, 4)
    if not len(a) or not len(b):
        return np.zeros(len(a), bool)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), 2)
    area = np.prod(np.clip(a[:, 2:] - a[:, :2], 0, None), 1)
    return (inter / np.maximum(area[:, None], 1e-9)).max(1) >= share


def score(gts: list, preds: list, latencies: list | None = None, classes: bool = True,
          low_confidence: float = LOW_CONFIDENCE) -> dict:
    """Metrics from ground truth [(cls (N,), boxes (N,4))] and predictions [[{cls, box, confidence}]].

    classes=False scores boxes only (folders whose labels carry no real class).
    Extras are predicted boxes matching no label. Where labels are complete (synthetic photos)
    every extra is a phantom and photos_exactly_right (no tile missing, none wrong, none extra)
    is the figure a player feels; where they are not (the published photos leave discards and
    other hands unlabelled), extras_on_labelled (an extra lying mostly inside a labelled tile:
    a duplicate or a fragment, a phantom whatever the labels leave out) is the sure part.
    extras_flagged: extras the pipeline flags (a `suspect` reason or confidence under
    low_confidence), so the player is asked to check them.
    """
    n_gt = sum(len(g[0]) for g in gts)
    n_pred = sum(len(p) for p in preds)
    found = right = photos_right = photos_exact = 0
    extras = extras_on_labelled = extras_flagged = right_suspect = 0
    confusions: dict[tuple[int, int], int] = {}
    per_class_hits = np.zeros(NUM_FACE_CLASSES + 1)
    per_class_total = np.zeros(NUM_FACE_CLASSES + 1)
    for (g_cls, g_boxes), dets in zip(gts, preds):
        pairs = match_boxes([d["box"] for d in dets], g_boxes)
        ok = 0
        for p, g in pairs:
            found += 1
            hit = (not classes) or dets[p]["cls"] == g_cls[g]
            ok += hit
            if classes and not hit:
                key = (int(g_cls[g]), int(dets[p]["cls"]))
                confusions[key] = confusions.get(key, 0) + 1
            if classes and hit:
                per_class_hits[g_cls[g]] += 1
        for c in g_cls:
            per_class_total[c] += 1
        right += ok
        photos_right += ok == len(g_cls)
        matched = {p for p, _ in pairs}
        spare = [p for p in range(len(dets)) if p not in matched]
        extras += len(spare)
        if spare:
            extras_on_labelled += int(inside_any([dets[p]["box"] for p in spare], g_boxes).sum())
        extras_flagged += sum(bool(dets[p].get("suspect")) or dets[p].get("confidence", 1.0) < low_confidence
                              for p in spare)
        right_suspect += sum(bool(dets[p].get("suspect")) for p, g in pairs
                             if (not classes) or dets[p]["cls"] == g_cls[g])
        photos_exact += ok == len(g_cls) and not spare
    out = {
        "photos": len(gts), "labelled_tiles": n_gt, "predicted_tiles": n_pred,
        "tiles_found": found / max(n_gt, 1),  # boxes at IoU>=0.5, any class
        "tiles_right": right / max(n_gt, 1),
        "precision": right / max(n_pred, 1),
        "photos_all_right": photos_right / max(len(gts), 1),
        "extras": extras, "extras_per_photo": extras / max(len(gts), 1),
        "extras_on_labelled": extras_on_labelled, "extras_flagged": extras_flagged,
        "right_but_suspect": right_suspect,
        "photos_exactly_right": photos_exact / max(len(gts), 1),  # assumes complete labels
    }
    if classes:
        aps = {t: [a for c in range(NUM_FACE_CLASSES) if (a := class_ap(gts, preds, c, t)) is not None]
               for t in IOU_THRESHOLDS}
        out["map50"] = float(np.mean(aps[0.5])) if aps[0.5] else 0.0
        out["map50_95"] = float(np.mean([np.mean(v) for v in aps.values() if v])) if aps[0.5] else 0.0
        out["per_class_recall"] = {class_name(c): float(per_class_hits[c] / per_class_total[c])
                                   for c in range(NUM_FACE_CLASSES + 1) if per_class_total[c]}
        fl = [c for c in FLOWERS if per_class_total[c]]
        out["flower_recall"] = float(per_class_hits[fl].sum() / per_class_total[fl].sum()) if fl else None
        worst = sorted(confusions.items(), key=lambda kv: -kv[1])[:10]
        out["confusions"] = [{"true": class_name(t), "predicted": class_name(p), "count": n} for (t, p), n in worst]
    if latencies:
        out["latency_ms_median"] = float(np.median(latencies) * 1000)
        out["latency_ms_p90"] = float(np.percentile(latencies, 90) * 1000)
    return out


def progress_bar(done: int, total: int, width: int = 30, stream=sys.stderr) -> None:
    filled = int(width * done / max(total, 1))
    stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        stream.write("\n")
    stream.flush()


AS_LABELLED_KEYS = ("tiles_found", "tiles_right", "precision", "photos_all_right", "map50", "map50_95",
                    "flower_recall", "per_class_recall", "extras", "extras_on_labelled", "photos_exactly_right")


def read_folder(folder, recognizer, fixes: dict | None = None, progress: bool = False) -> dict:
    """Run recognizer.recognize on every readable labelled photo of folder: {"names" (image
    paths), "gts" (labels with fixes applied), "published" (labels as published), "preds",
    "latencies" (seconds), "label_fixes" (how many fixes applied)}; gts and published are
    (classes, boxes xyxy) per photo."""
    pairs = list_pairs(Path(folder))
    out = {"names": [], "gts": [], "published": [], "preds": [], "latencies": [], "label_fixes": 0,
           "unreadable": []}
    for i, (img_path, lab_path) in enumerate(pairs):
        labels = read_labels(lab_path)  # LabelError before any photo is read for nothing
        image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if image is None:
            out["unreadable"].append(img_path)
            continue
        h, w = image.shape[:2]
        fixed, n = apply_fixes(img_path.name, labels, fixes or {})
        out["label_fixes"] += n
        out["names"].append(img_path)
        out["published"].append(labels_to_xyxy(labels, w, h))
        out["gts"].append(labels_to_xyxy(fixed, w, h))
        t0 = time.perf_counter()
        out["preds"].append(recognizer.recognize(image))
        out["latencies"].append(time.perf_counter() - t0)
        if progress:
            progress_bar(i + 1, len(pairs))
    return out


def evaluate(folder, recognizer, classes: bool = True, progress: bool = True, fixes: dict | None = None) -> dict:
    """Run recognizer.recognize on every labelled photo of folder and score it.

    fixes (label_fixes.load_fixes()) are reviewed corrections of published labels; where any
    apply, the report is scored on the corrected labels and keeps the figures as labelled
    under "as_labelled".
    """
    run = read_folder(folder, recognizer, fixes, progress)
    report = score(run["gts"], run["preds"], run["latencies"], classes)
    report["folder"] = str(folder)
    report["unreadable"] = [str(p) for p in run["unreadable"]]  # labelled photos no decoder could read
    if run["label_fixes"]:
        as_labelled = score(run["published"], run["preds"], None, classes)
        report["label_fixes"] = run["label_fixes"]
        report["as_labelled"] = {k: as_labelled[k] for k in AS_LABELLED_KEYS if k in as_labelled}
    return report


def format_report(r: dict) -> str:
    lines = [f"photos {r['photos']}, labelled tiles {r['labelled_tiles']}, predicted tiles {r['predicted_tiles']}",
             f"tiles found (IoU>=0.5)    {r['tiles_found']:.1%}",
             f"tiles right (class+box)   {r['tiles_right']:.1%}",
             f"precision                 {r['precision']:.1%}   (unlabelled tiles in a photo count as wrong)",
             f"photos with all tiles right {r['photos_all_right']:.1%}"]
    if "extras" in r:
        lines += [f"extras (boxes matching no label) {r['extras']}, {r['extras_per_photo']:.2f} per photo; "
                  f"{r['extras_on_labelled']} lie on a labelled tile (phantoms whatever the labels omit), "
                  f"{r['extras_flagged']} flagged; right tiles flagged as suspect {r['right_but_suspect']}",
                  f"photos exactly right      {r['photos_exactly_right']:.1%}   (no tile missing, wrong or extra: "
                  f"assumes complete labels, as synthetic sets have)"]
    if "map50" in r:
        lines.append(f"mAP50 {r['map50']:.3f}   mAP50-95 {r['map50_95']:.3f}   (42 face classes)")
        if r.get("flower_recall") is not None:
            lines.append(f"flowers+seasons recall    {r['flower_recall']:.1%}")
        pcr = r["per_class_recall"]
        lines.append("per-class recall: " + ", ".join(f"{k} {v:.0%}" for k, v in pcr.items()))
        if r["confusions"]:
            lines.append("worst confusions: " + ", ".join(f"{c['true']}->{c['predicted']} x{c['count']}"
                                                          for c in r["confusions"]))
    if r.get("unreadable"):
        lines.append(f"left out, unreadable: {len(r['unreadable'])} photo(s): " + ", ".join(r["unreadable"][:5]))
    if r.get("label_fixes"):
        a = r["as_labelled"]
        lines.append(f"scored with {r['label_fixes']} reviewed label fixes (training/label_fixes.json); as published: "
                     f"tiles right {a['tiles_right']:.1%}, photos with all tiles right {a['photos_all_right']:.1%}"
                     + (f", mAP50 {a['map50']:.3f}" if "map50" in a else ""))
    if "latency_ms_median" in r:
        lines.append(f"latency per photo: median {r['latency_ms_median']:.0f} ms, p90 {r['latency_ms_p90']:.0f} ms")
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse

    from training.label_fixes import load_fixes
    from vision.model import Recognizer

    ap = argparse.ArgumentParser(prog="python -m training.evaluate")
    ap.add_argument("folder")
    ap.add_argument("--models", default=str(Path(__file__).resolve().parent.parent / "models"))
    ap.add_argument("--boxes-only", action="store_true", help="labels carry no real class: score boxes only")
    ap.add_argument("--as-published", action="store_true", help="ignore the reviewed label fixes")
    args = ap.parse_args(argv)
    fixes = None if args.as_published else load_fixes()
    try:
        report = evaluate(args.folder, Recognizer(args.models), classes=not args.boxes_only, fixes=fixes)
    except LabelError as exc:  # as `python -m vision evaluate` says it
        print(f"evaluate: {exc}", file=sys.stderr)
        return 2
    print(format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
