"""The measurement behind the phantom screening's thresholds (vision/screen.py).

Reads every photo of a labelled folder once (Recognizer.read: detector, classifier), then
scores the same readings with the screening off, on, each rule alone and each threshold moved,
so each setting in recognizer.json's inference.screen is shown next to what it costs and saves.

    python -m training.screen_study FOLDER [FOLDER ...] [--models models] [--record]

--record keeps the table in models/recognizer.json (training.screen_study) and the model card.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from training.dataset import labels_to_xyxy, list_pairs, read_labels
from training.evaluate import score
from training.label_fixes import apply_fixes, load_fixes
from vision.screen import SCREEN_DEFAULTS

ROOT = Path(__file__).resolve().parent.parent
OFF = 10.0  # a share or ratio no box reaches: the rule never fires
NO_CHECK = dict(not_tile=0, flag_not_tile=0)  # the tile check's rule never fires
ONLY = {"drop_below": dict(contained=OFF, flag_contained=OFF, sliver=0, flag_sliver=0, blank_min_score=0, **NO_CHECK),
        "contained": dict(drop_below=0, sliver=0, flag_sliver=0, blank_min_score=0, **NO_CHECK),
        "sliver": dict(drop_below=0, contained=OFF, flag_contained=OFF, blank_min_score=0, **NO_CHECK),
        "not_tile": dict(drop_below=0, contained=OFF, flag_contained=OFF, sliver=0, flag_sliver=0,
                         blank_min_score=0)}
MOVES = {"drop_below": (0.05, 0.15, 0.2), "contained": (0.5, 0.7, 0.8), "sliver": (0.4, 0.6, 0.7),
         "not_tile": (0.02, 0.1, 0.2), "not_tile_sure": (0.5, 0.8, 0.9, 1.01)}
KEYS = ("tiles_found", "tiles_right", "photos_all_right", "extras", "extras_per_photo", "extras_on_labelled",
        "extras_flagged", "right_but_suspect", "photos_exactly_right")


def title_of(folder: Path) -> str:
    """How the model card names a folder of photos."""
    f = str(folder)
    if "rf-chinese-mahjong-detection" in f:
        return f"The training data set's {Path(f).name} split (reviewed labels, incomplete: discards unlabelled)"
    if "adapt-study" in f:
        return "The adapt study's test photos (a KDE set never trained on, labels complete)"
    if "style-study" in f:
        return f"The style study's `{Path(f).name}` photos (procedural sets, labels complete)"
    return f


def readings(folder: Path, recognizer, fixes: dict) -> list[tuple]:
    """[(ground truth, Recognizer.read result)] for every readable photo of folder."""
    out = []
    for img_path, lab_path in list_pairs(Path(folder)):
        image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        labels, _ = apply_fixes(img_path.name, read_labels(lab_path), fixes)
        found = recognizer.read(image)
        if recognizer.verifier is not None:  # every box, so that its thresholds can be moved
            found["p_tile"] = recognizer.verifier.p_tile(image, found["boxes"], found["aspect"])
        out.append((labels_to_xyxy(labels, w, h), found))
    return out


def figures(reads: list[tuple], settings: dict | None) -> dict:
    from vision.model import tiles_from

    r = score([g for g, _ in reads], [tiles_from(found, settings) for _, found in reads])
    return {k: r[k] for k in KEYS}


def study(reads: list[tuple], base: dict) -> list[dict]:
    rows = [{"name": "no screening", **figures(reads, None)}, {"name": "screening as shipped", **figures(reads, base)}]
    checked = any(found.get("p_tile") is not None for _, found in reads)
    if checked:
        rows.append({"name": "screening without the tile check", **figures(reads, {**base, **NO_CHECK})})
    for rule, cfg in ONLY.items():
        if rule.startswith("not_tile") and not checked:
            continue
        rows.append({"name": f"{rule} alone", **figures(reads, {**base, **cfg})})
    for rule, values in MOVES.items():
        if rule.startswith("not_tile") and not checked:
            continue
        for v in values:
            extra = {"flag_contained": min(base["flag_contained"], v)} if rule == "contained" else {}
            rows.append({"name": f"{rule} {v} (shipped {base[rule]})", **figures(reads, {**base, rule: v, **extra})})
    return rows


def format_rows(rows: list[dict]) -> str:
    head = f"{'':<34}{'found':>8}{'right':>8}{'all right':>10}{'extras':>8}{'on label':>9}{'flagged':>8}{'exact':>8}"
    return "\n".join([head] + [f"{r['name']:<34}{r['tiles_found']:>8.2%}{r['tiles_right']:>8.2%}"
                               f"{r['photos_all_right']:>10.1%}{r['extras']:>8}{r['extras_on_labelled']:>9}"
                               f"{r['extras_flagged']:>8}{r['photos_exactly_right']:>8.1%}" for r in rows])


def main(argv=None) -> int:
    from vision.model import Recognizer

    ap = argparse.ArgumentParser(prog="python -m training.screen_study", description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--models", default=str(ROOT / "models"))
    ap.add_argument("--record", action="store_true", help="keep the tables in the model card")
    args = ap.parse_args(argv)
    rec = Recognizer(args.models)
    base = {**SCREEN_DEFAULTS, **(rec._screen or {})}
    out = {"settings": base, "folders": []}
    for folder in args.folders:
        reads = readings(Path(folder), rec, load_fixes())
        rows = study(reads, base)
        print(f"{folder} ({len(reads)} photos)\n{format_rows(rows)}\n")
        out["folders"].append({"folder": str(folder), "title": title_of(Path(folder)), "photos": len(reads),
                               "rows": rows})
    if args.record:
        from training.model_card import record

        print(f"recorded in {record(args.models, 'screen_study', out)}")
    else:
        print(json.dumps(out["settings"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
