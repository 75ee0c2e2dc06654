"""Adaptation study: does `adapt` bring an unfamiliar tile set to 95% tiles right?

The shipped models never saw the KDE kmahjongglib set `traditional` (GPL-2+ artwork, rendered here
into a work folder under /tmp, never into the repository; `default` trains the classifier since
2026-12-02, training/synth.py KDE_TRAIN_SETS). This study renders one of them,
composes synthetic phone photos of it with YOLO labels (hands in rows with melds turned
sideways, tiles scattered on the table, a calibration layout), scores a copy of the shipped
models on test photos, then adapts copies through the same functions the CLI runs
(`python -m vision adapt --folder` on five other photos, `--calibration` on one photo) and
scores them again.

    python -m training.adapt_study [--data ../shared/data] [--models models] [--work /tmp/adapt-study]
                                 [--set traditional] [--seed 0] [--json OUT]
"""
from __future__ import annotations

import argparse
import configparser
import gzip
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

# Before torch loads its OpenMP: idle threads sleep instead of spinning. On two cores shared with
# other work, 20 classifier fine-tuning steps took 50 s spinning and 16 s sleeping (measured twice).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import cv2
import numpy as np

from training.compose import compose_photo, write_photo
from training.dataset import read_labels
from training.svg_render import SvgDocument, rsvg_available  # noqa: F401 (rsvg_available: tests)
from training.xmahjongg import SHEETS, sheet_faces

ROOT = Path(__file__).resolve().parent.parent
KMAHJONGG = "artwork/kmahjongglib"
# egypt draws the four flowers and the four seasons with one picture each, and alphabet
# is letters for children: neither can be read tile by tile. `default` trains the classifier
# (training/synth.py KDE_TRAIN_SETS), so only `traditional` is an unseen set to study.
SETS = ("traditional",)
# Procedural sets of the style training leaves out (training/style_study.py), on two bodies
# the issue names: red with light ink, and ivory.
PROCEDURAL_SETS = ("procedural-red", "procedural-ivory")
# Scanned art of Debian's xmahjongg (training/xmahjongg.py): a real Chinese set, never trained on.
SHEET_SETS = tuple(SHEETS)
# KDE element id -> class index. Checked by eye on renders of both sets: WIND_1-4 are
# north, south, east, west; DRAGON_1-3 white, green, red; SEASON_1-4 spring..winter;
# FLOWER_1-4 plum, orchid, chrysanthemum, bamboo.
ELEMENT_CLASSES = {
    **{f"CHARACTER_{i}": i - 1 for i in range(1, 10)},
    **{f"ROD_{i}": 8 + i for i in range(1, 10)},
    **{f"BAMBOO_{i}": 17 + i for i in range(1, 10)},
    "WIND_1": 30, "WIND_2": 28, "WIND_3": 27, "WIND_4": 29,
    "DRAGON_1": 33, "DRAGON_2": 32, "DRAGON_3": 31,
    **{f"SEASON_{i}": 33 + i for i in range(1, 5)},
    **{f"FLOWER_{i}": 37 + i for i in range(1, 5)},
}
BODIES = ("TILE_1", "TILE_2", "TILE_3", "TILE_4")  # one tile body per viewing angle
RENDER_SCALE = 3  # KDE faces are 69x89 units: x3 is sharp for tiles up to ~250 px tall
TEST_PHOTOS = 40
ADAPT_PHOTOS = 5


def _desktop(path: Path) -> dict:
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    cp.optionxform = str
    cp.read(path, encoding="utf-8")
    return dict(cp["KMahjonggTileset"])


def _fit(rect, size) -> tuple[float, float, float, float]:
    """A size-shaped rect centred on rect, grown to contain it: art that spills over its face
    (KDE draws a few seasons past the edge) is shrunk, undistorted, rather than cut."""
    x, y, w, h = rect
    fw, fh = size
    grow = max(1.0, w / fw, h / fh)
    return x + w / 2 - fw * grow / 2, y + h / 2 - fh * grow / 2, fw * grow, fh * grow


def _face_offset(body: np.ndarray, face_size: tuple[int, int]) -> tuple[int, int]:
    """Where the face sits on a body image: the opaque, evenly coloured corner of face size."""
    bh, bw = body.shape[:2]
    fw, fh = face_size
    best = None
    for ox in (0, bw - fw):
        for oy in (0, bh - fh):
            region = body[oy:oy + fh, ox:ox + fw].astype(np.float32)
            cost = (255 - region[..., 3].mean()) + region[..., :3].std()
            if best is None or cost < best[0]:
                best = (cost, ox, oy)
    return best[1], best[2]


def render_tileset(artwork_root: Path, name: str, out_dir: Path, scale: int = RENDER_SCALE) -> dict:
    """The 42 faces (class -> BGRA) and the tile bodies of a kmahjongglib set, cached as PNGs.

    Returns {"faces": {cls: bgra}, "bodies": [{"bgra", "face_xy"}]}; bodies is empty for a set
    without its own (faces then go on synth.tile_image's ivory body).
    """
    out_dir = Path(out_dir) / name
    meta_path = out_dir / "bodies.json"
    if not meta_path.exists():
        _render_to(Path(artwork_root) / KMAHJONGG, name, out_dir, scale)
    read = lambda p: cv2.imread(str(p), cv2.IMREAD_UNCHANGED)  # noqa: E731
    faces = {int(p.stem): read(p) for p in sorted((out_dir / "faces").glob("*.png"))}
    bodies = [{"bgra": read(out_dir / f"{b}.png"), "face_xy": tuple(xy)}
              for b, xy in json.loads(meta_path.read_text()).items()]
    return {"faces": faces, "bodies": bodies}


def load_set(data_root: Path, set_name: str, work: Path, seed: int) -> dict:
    """A KDE set (rendered under work), one of SHEET_SETS (its faces on synth's ivory body) or one
    of PROCEDURAL_SETS (drawn from the seed)."""
    if set_name in SHEET_SETS:
        return {"faces": sheet_faces(set_name), "bodies": []}
    if set_name not in PROCEDURAL_SETS:
        return render_tileset(data_root, set_name, work / "tilesets")
    from training import procedural
    from training.style_study import IVORY_BODY, RED_BODY

    rng = np.random.default_rng((seed, 41))
    imposed = RED_BODY if set_name == "procedural-red" else IVORY_BODY
    return procedural.make_tileset({**procedural.random_style(rng, held_out=True), **imposed}, rng)


def _render_to(kde_dir: Path, name: str, out_dir: Path, scale: int) -> None:
    info = _desktop(kde_dir / f"{name}.desktop")
    face_size = (int(info["TileFaceWidth"]), int(info["TileFaceHeight"]))
    data = gzip.decompress((kde_dir / info.get("FileName", f"{name}.svgz")).read_bytes())
    doc = SvgDocument(data)
    try:
        (out_dir / "faces").mkdir(parents=True, exist_ok=True)
        for element, cls in ELEMENT_CLASSES.items():
            rect = doc.element_rect(element)
            if rect is None:
                raise ValueError(f"{name}: no element {element}")
            face = doc.render(element, _fit(rect, face_size), scale)
            face = cv2.resize(face, (face_size[0] * scale, face_size[1] * scale), interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(out_dir / "faces" / f"{cls:02d}.png"), face)
        meta = {}
        for element in BODIES:
            rect = doc.element_rect(element)
            if rect is None:
                continue
            body = doc.render(element, rect, scale)
            ox, oy = _face_offset(body, (face_size[0] * scale, face_size[1] * scale))
            cv2.imwrite(str(out_dir / f"{element}.png"), body)
            meta[element] = [ox, oy]
        (out_dir / "bodies.json").write_text(json.dumps(meta))
    finally:
        doc.close()


# --- backgrounds from the data set's own tables ---------------------------------------------------

def background_crops(data_root: Path, rng: np.random.Generator, detect, count: int = 30) -> list[np.ndarray]:
    """Crops of real training photos in which `detect` (image -> boxes, scores) finds no tile:
    real tables, floors, hands. The labels cannot vouch for that: many photos leave the
    tiles of the wall and the discards unlabelled, and a stray unlabelled tile behind the
    hand would count against the detector."""
    from training.dataset import list_split

    pairs = list_split(Path(data_root) / "rf-chinese-mahjong-detection-v4", "train")
    crops = []
    for i in rng.permutation(len(pairs)):
        if len(crops) == count:
            break
        img = cv2.imread(str(pairs[i][0]), cv2.IMREAD_COLOR)
        if img is None:
            continue
        h, w = img.shape[:2]
        s = int(rng.uniform(0.3, 0.6) * min(h, w))
        x, y = int(rng.integers(0, w - s + 1)), int(rng.integers(0, h - s + 1))
        crop = img[y:y + s, x:x + s]
        if not len(detect(cv2.resize(crop, (640, 640)))[0]):
            crops.append(crop)
    return crops


def cached_backgrounds(data_root: Path, folder: Path, seed: int, detect) -> list[np.ndarray]:
    """background_crops, kept as PNGs: vetting a crop runs the detector up to nine times."""
    if not folder.is_dir():
        crops = background_crops(data_root, np.random.default_rng((seed, 0)), detect)
        folder.mkdir(parents=True)
        for i, crop in enumerate(crops):
            cv2.imwrite(str(folder / f"{i:02d}.png"), crop)
    return [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted(folder.glob("*.png"))]


# --- the study -------------------------------------------------------------------------------------

def photo_kind(i: int) -> str:
    """Two photos of hands for every photo of loose tiles."""
    return "scatter" if i % 3 == 2 else "hand"


def make_photos(tileset: dict, folder: Path, count: int, seed: tuple, backgrounds: list[np.ndarray]) -> Path:
    """count photos (hands and loose tiles) with labels in folder/images + folder/labels."""
    if folder.exists():
        shutil.rmtree(folder)
    for i in range(count):
        img, cls, boxes = compose_photo(tileset, photo_kind(i), np.random.default_rng((*seed, i)), backgrounds)
        write_photo(folder, f"{i:03d}", img, cls, boxes)
    return folder


def score_models(models_dir: Path, folder: Path) -> dict:
    """The figures the study reports for one model folder on the test photos."""
    from training.evaluate import evaluate
    from vision.model import Recognizer

    r = evaluate(folder, Recognizer(models_dir), progress=False)
    keys = ("photos", "labelled_tiles", "tiles_found", "tiles_right", "photos_all_right", "flower_recall",
            "precision", "confusions", "per_class_recall", "extras", "extras_per_photo", "extras_flagged",
            "photos_exactly_right")  # the photos' labels are complete: every extra is a phantom
    return {k: r[k] for k in keys}


def fresh_models(shipped: Path, folder: Path) -> Path:
    """A throw-away copy of the shipped models (adapt writes into the folder it is given)."""
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(shipped, folder, ignore=shutil.ignore_patterns("previous"))
    return folder


def prepare_photos(data_root: Path, models_dir: Path, work: Path, set_name: str, seed: int, reuse: bool = False):
    """Render the set and compose the test, adapt and calibration photos (seeded, so the same
    every time: reuse keeps those already under work); returns (run folder, shipped models
    snapshot, test folder, adapt folder, calibration photo)."""
    from vision.model import Recognizer

    run = work / f"{set_name}-seed{seed}"
    # one snapshot of the shipped models: both paths start from it even if models/ changes meanwhile
    shipped = fresh_models(models_dir, run / "models-shipped")
    calibration = run / "calibration" / "images" / "calibration.jpg"
    counts = {d: len(list((run / d / "labels").glob("*.txt"))) for d in ("test", "adapt", "calibration")}
    if reuse and counts == {"test": TEST_PHOTOS, "adapt": ADAPT_PHOTOS, "calibration": 1} and calibration.exists():
        return run, shipped, run / "test", run / "adapt", calibration
    tileset = load_set(data_root, set_name, work, seed)
    backgrounds = cached_backgrounds(data_root, work / f"backgrounds-seed{seed}", seed, Recognizer(shipped).detect)
    test = make_photos(tileset, run / "test", TEST_PHOTOS, (seed, 1), backgrounds)
    folder = make_photos(tileset, run / "adapt", ADAPT_PHOTOS, (seed, 2), backgrounds)
    img, cls, boxes = compose_photo(tileset, "calibration", np.random.default_rng((seed, 3)))
    calibration = write_photo(run / "calibration", "calibration", img, cls, boxes)
    return run, shipped, test, folder, calibration


def fonts_missing(set_name: str, log=print) -> list[str]:
    """The font files a procedural set is drawn without here (training/procedural.py), said in
    the log; none for the other sets, which draw no font."""
    from training import procedural

    return procedural.say_missing_fonts(log) if set_name in PROCEDURAL_SETS else []


def run_detector_study(data_root: Path, models_dir: Path, work: Path, set_name: str, seed: int,
                       epochs: int | None = None, log=print, **tune) -> dict:
    """The detector's part of adapt alone (the classifier as shipped), from the 5 adapt photos'
    boxes and from the calibration photo's 42, each scored on the test photos before and after.
    tune: more of adapt_detector's settings (pasted, rehearsal: photos composed of the player's
    tiles, procedural photos of other sets)."""
    from training.adapt import calibration_boxes, folder_photos
    from training.adapt_detector import DET_EPOCHS, adapt_detector
    from vision.model import Recognizer

    missing = fonts_missing(set_name, log)
    run, shipped, test, folder, calibration = prepare_photos(data_root, models_dir, work, set_name, seed, reuse=True)
    out = {"set": set_name, "seed": seed, "test_photos": TEST_PHOTOS, "fonts_missing": missing,
           "before": score_models(shipped, test)}
    image = cv2.imread(str(calibration), cv2.IMREAD_COLOR)
    sources = (("folder", lambda: folder_photos(folder)),
               ("calibration", lambda: [(image, calibration_boxes(image, Recognizer(shipped)))]))
    for path, photos in sources:
        models = fresh_models(shipped, run / f"models-det-{path}")
        try:
            report = adapt_detector(models, photos(), epochs=epochs or DET_EPOCHS, seed=seed, **tune)
        except ValueError as exc:
            out[path] = {"error": str(exc)}
            continue
        out[path] = {"adapt": report, "after": score_models(models, test)}
        log(f"detector from --{path}: {out[path]['after']['tiles_found']:.1%} found, "
            f"{out[path]['after']['extras']} extras ({report['seconds']:.0f} s, installed {report['installed']}; "
            f"{detector_summary(report)})")
    return out


def run_study(data_root: Path, models_dir: Path, work: Path, set_name: str, seed: int, log=print) -> dict:
    """Render, compose, score, adapt both ways, score again; returns every figure."""
    from training import adapt

    t_start = time.time()
    missing = fonts_missing(set_name, log)
    run, shipped, test, folder, calibration = prepare_photos(data_root, models_dir, work, set_name, seed)
    log(f"photos ready in {time.time() - t_start:.0f} s")
    out = {"set": set_name, "seed": seed, "test_photos": TEST_PHOTOS, "adapt_photos": ADAPT_PHOTOS,
           "fonts_missing": missing,
           "models": {p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:12] for p in sorted(shipped.glob("*.onnx"))},
           "before": score_models(shipped, test)}
    log(f"shipped model: {out['before']['tiles_right']:.1%} tiles right")
    paths = (("folder", folder, adapt.adapt_folder), ("calibration", calibration, adapt.adapt_calibration))
    for path, source, call in paths:
        models = fresh_models(shipped, run / f"models-{path}")
        t0 = time.time()
        try:
            report = call(models, source, seed=seed)
        except ValueError as exc:  # the calibration photo's tiles were not all found
            out[path] = {"error": str(exc)}
            log(f"adapt --{path}: {exc}")
            continue
        report["wall_seconds"] = time.time() - t0
        out[path] = {"adapt": report, "after": score_models(models, test)}
        log(f"adapt --{path}: {out[path]['after']['tiles_right']:.1%} tiles right ({report['wall_seconds']:.0f} s)")
    if "after" in out["folder"]:
        out["folder"]["unseen_classes"] = unseen_classes(folder, test, out["folder"]["after"])
    out["study_seconds"] = time.time() - t_start
    return out


def unseen_classes(adapt_folder: Path, test_folder: Path, after: dict) -> dict:
    """Classes on the test photos that none of the adapt photos shows: nothing to learn them from."""
    from training.evaluate import class_name

    def classes(folder: Path) -> np.ndarray:
        return np.concatenate([read_labels(p)[:, 0] for p in sorted((folder / "labels").glob("*.txt"))]).astype(int)

    seen, test = set(classes(adapt_folder)), classes(test_folder)
    missing = sorted(set(test) - seen)
    tiles = int(np.isin(test, missing).sum())
    right = sum(after["per_class_recall"][class_name(c)] * int((test == c).sum()) for c in missing)
    return {"classes": [class_name(c) for c in missing], "test_tiles": tiles, "read_right": round(right)}


def detector_summary(d: dict) -> dict:
    """What the detector's part of an adapt did: skipped, or held-part errors old -> new and its time."""
    out = {"installed": d["installed"], "seconds": d["seconds"], "epochs": d["epochs"], "imgsz": d["imgsz"]}
    if "skipped" in d:
        return {**out, "skipped": d["skipped"]}
    return {**out, "held_photos": d["held_out_photos"], "held_by_photo": d["held_out_by_photo"],
            "old_held_errors": d["old_held"]["errors"], "new_held_errors": d["new_held"]["errors"],
            **({"composed_photos": d["held_composed_photos"], "old_composed_errors": d["old_held_composed"]["errors"],
                "new_composed_errors": d["new_held_composed"]["errors"]} if "held_composed_photos" in d else {}),
            "before_all": d["before_all"], **({"after_all": d["after_all"]} if "after_all" in d else {})}


def detector_card_summary(r: dict) -> dict:
    """run_detector_study's figures as the model card shows them."""
    keys = ("tiles_found", "extras_per_photo", "extras", "photos_exactly_right", "tiles_right")
    rows = [{"name": "shipped detector", **{k: r["before"][k] for k in keys}}]
    for path, name in (("folder", "detector adapted on the 5 adapt photos"),
                       ("calibration", "detector adapted on the calibration photo")):
        if "after" in r[path]:
            rows.append({"name": name, **{k: r[path]["after"][k] for k in keys},
                         "detector": detector_summary(r[path]["adapt"])})
        else:
            rows.append({"name": name, "error": r[path]["error"]})
    return {"set": r["set"], "seed": r["seed"], "photos": r["before"]["photos"],
            "tiles": r["before"]["labelled_tiles"], "rows": rows}


def card_key(set_name: str) -> str:
    """Where --record keeps a study in recognizer.json: the KDE sets share one section (the last
    one run), each procedural set and each xmahjongg sheet has its own."""
    return f"adapt_study:{set_name}" if set_name in PROCEDURAL_SETS + SHEET_SETS else "adapt_study"


def card_summary(r: dict) -> dict:
    """The study's figures as the model card shows them: one row per model."""
    b = r["before"]
    keys = ("tiles_right", "photos_all_right", "flower_recall", "tiles_found", "extras_per_photo", "photos_exactly_right")
    rows = [{"name": "shipped model", **{k: b[k] for k in keys if k in b}, "seconds": 0}]
    for path, name in (("folder", f"after `adapt --folder` on {r['adapt_photos']} photos"),
                       ("calibration", "after `adapt --calibration` on 1 photo")):
        if "error" in r[path]:
            continue
        after, a = r[path]["after"], r[path]["adapt"]
        rows.append({"name": name, **{k: after[k] for k in keys if k in after}, "seconds": a["wall_seconds"],
                     **({"detector": detector_summary(a["detector"])} if "detector" in a else {})})
    source = (f"A procedural set of the style training leaves out (`{r['set']}`, `training/procedural.py`)"
              if r["set"] in PROCEDURAL_SETS else
              f"xmahjongg's scan of a real Chinese set (`{r['set']}`, `training/xmahjongg.py`; GPL artwork, "
              f"read under /tmp only, never shipped or trained on)" if r["set"] in SHEET_SETS else
              f"KDE kmahjongglib set `{r['set']}` (GPL artwork, rendered under /tmp only, never shipped or trained on)")
    description = (f"{source} on synthetic table photos: {b['photos']} test photos, {b['labelled_tiles']} tiles, "
                   f"seed {r['seed']}. The detector finds {b['tiles_found']:.1%} of these tiles, which caps every row.")
    unseen = r["folder"].get("unseen_classes")
    if unseen and unseen["classes"]:
        description += (f" The {r['adapt_photos']} adapt photos show no {', '.join(unseen['classes'])}: of those "
                        f"{unseen['test_tiles']} test tiles, {unseen['read_right']} were read right.")
    description += "".join(held_check_line(path, r[path]["adapt"]) for path in ("folder", "calibration")
                           if "adapt" in r[path])
    return {"description": description, "rows": rows}


def held_check_line(path: str, a: dict) -> str:
    """What adapt installed and what its held check read (training.adapt.adapt_crops' report).

    >>> held_check_line("folder", {"installed": True, "old_score": 0.785, "new_score": 0.867, "held_parts": 2,
    ...                            "held_out_crops": 29, "flower_reader": {"installed": True}, "suit_reader": None})
    ' `adapt --folder` installed the classifier: its held part (2 photos in turn, 29 crops) read 0.785 -> 0.867 (mean probability of the right class); readers installed: flower.'
    """
    if "old_score" not in a:
        return ""
    parts = a.get("held_parts", 1)
    held = f"{parts} photos in turn, " if a.get("held_out_by_photo", parts > 1) else "its own tiles in other looks, "
    readers = [k.removesuffix("_reader") for k, v in a.items() if k.endswith("_reader") and v and v.get("installed")]
    return (f" `adapt --{path}` {'installed' if a['installed'] else 'kept'} the classifier: its held part ({held}"
            f"{a['held_out_crops']} crops) read {a['old_score']:.3f} -> {a['new_score']:.3f} (mean probability of "
            f"the right class); readers installed: {', '.join(readers) or 'none'}.")


def format_table(r: dict) -> str:
    """The before/after table printed at the end of the study."""
    def row(name: str, s: dict, seconds: str) -> str:
        fl = "-" if s["flower_recall"] is None else f"{s['flower_recall']:.1%}"
        return (f"{name:<26}{s['tiles_right']:>12.1%}{s['photos_all_right']:>18.1%}{fl:>17}"
                f"{s['tiles_found']:>13.1%}{s['tiles_right'] / max(s['tiles_found'], 1e-9):>13.1%}{seconds:>16}"
                f"{s.get('extras_per_photo', 0):>9.2f}{s.get('photos_exactly_right', 0):>9.1%}")
    b = r["before"]
    lines = [f"set {r['set']} (seed {r['seed']}): {b['photos']} test photos, {b['labelled_tiles']} tiles",
             f"{'':<26}{'tiles right':>12}{'photos all right':>18}{'flowers+seasons':>17}{'tiles found':>13}"
             f"{'right/found':>13}{'adapt wall/cpu':>16}{'extras':>9}{'exact':>9}",
             row("shipped model", b, "-")]
    for path, name in (("folder", f"adapt --folder ({r['adapt_photos']} photos)"),
                       ("calibration", "adapt --calibration")):
        if "error" in r[path]:
            lines.append(f"{name:<26}failed: {r[path]['error']}")
            continue
        a = r[path]["adapt"]
        lines.append(row(name, r[path]["after"], f"{a['wall_seconds']:.0f}/{a['cpu_seconds']:.0f} s")
                     + ("" if a["installed"] else "  (not installed: held-out check)"))
        if "detector" in a:
            lines.append(f"{'':<26}detector: {detector_summary(a['detector'])}")
    unseen = r["folder"].get("unseen_classes")
    if unseen and unseen["classes"]:
        lines.append(f"the adapt photos lack {', '.join(unseen['classes'])}: {unseen['test_tiles']} test tiles, "
                     f"{unseen['read_right']} read right")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.adapt_study", description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"),
                    help="folder holding artwork/ and the photos")
    ap.add_argument("--models", default=str(ROOT / "models"), help="shipped models (only copied)")
    ap.add_argument("--work", default="/tmp/adapt-study", help="renders, photos and model copies go here")
    ap.add_argument("--set", default="traditional", choices=SETS + PROCEDURAL_SETS + SHEET_SETS,
                    help="kmahjongglib tileset, a procedural set of the held-out style, or xmahjongg's "
                         "scanned real set, to study")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write every figure to this file")
    ap.add_argument("--record", action="store_true", help="keep the result in the model card (models/README.md)")
    ap.add_argument("--detector-only", action="store_true",
                    help="adapt only the detector (the classifier as shipped), reusing the photos already composed")
    ap.add_argument("--det-pasted", type=int, default=0,
                    help="with --detector-only: photos composed of the adapt photos' tiles to tune on too")
    ap.add_argument("--det-rehearsal", type=int, default=0,
                    help="with --detector-only: procedural photos of other sets to tune on too")
    args = ap.parse_args(argv)
    if args.detector_only:
        result = run_detector_study(Path(args.data), Path(args.models), Path(args.work), args.set, args.seed,
                                    pasted=args.det_pasted, rehearsal=args.det_rehearsal)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1, ensure_ascii=False, default=float))
        if args.record:
            from training.model_card import record

            print(f"recorded in {record(args.models, 'adapt_detector_study', detector_card_summary(result))}")
        return 0
    result = run_study(Path(args.data), Path(args.models), Path(args.work), args.set, args.seed)
    print(format_table(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, ensure_ascii=False, default=float))
    if args.record:
        from training.model_card import record

        print(f"recorded in {record(args.models, card_key(args.set), card_summary(result))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
