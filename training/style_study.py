"""Leave-one-style-out: how the models read tile styles they trained on and one they never saw.

Training draws its procedural tile sets (training/procedural.py) from every style but
procedural.LEAVE_OUT (a font family and a way of drawing 筒 circles). This study composes
labelled photos (complete labels: every extra is a phantom) of

- `seen`: new sets of styles training draws from (other seeds than any training set);
- `held-out`: sets drawn only with the left-out font and circles;
- `held-out-red`: the same, on red bodies with light ink (the issue's red-bodied set);
- `held-out-ivory`: the same, on ivory bodies;
- `held-out-closeup`: close-ups of one to three tiles of held-out sets filling most of the photo
  (the issue's close-ups, where a 條 tile came apart into its stick columns);
- `held-out-face-down`: held-out sets whose hands show a run of one to four tiles face down
  (compose.turn_face_down), so that face-down tiles found are measured too;

and, where `python -m training.adapt_study` left them, its photos of KDE's `traditional` set
(never trained on), and the training data set's valid split. Each models folder given is scored on every photo set with the full
pipeline; flowers are also scored by tile (1f-8f) under the default tile set, which takes the
number the classifier reads off each flower.

    python -m training.style_study [--models models [other ...]] [--work /tmp/style-study]
                                   [--photos 30] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from training import procedural, scenes
from training.compose import compose_photo, write_photo
from training.evaluate import match_boxes, score

ROOT = Path(__file__).resolve().parent.parent
KDE_TEST = Path("/tmp/adapt-study/traditional-seed0/test")
VALID = ROOT.parent / "shared" / "data" / "rf-chinese-mahjong-detection-v4" / "images" / "valid"
SETS_PER_FOLDER = 6
RED_BODY = {"front": [40, 40, 180], "back": [40, 40, 180], "scheme": "dark"}  # light ink on red
IVORY_BODY = {"front": [215, 235, 245], "scheme": "light"}
# name -> (held out?, style choices imposed, layout: None for two hands to one scatter)
PHOTO_SETS = {"seen": (False, {}, None), "held-out": (True, {}, None), "held-out-red": (True, RED_BODY, None),
              "held-out-ivory": (True, IVORY_BODY, None), "held-out-closeup": (True, {}, "closeup"),
              "held-out-face-down": (True, {}, None)}
FACE_DOWN = {"held-out-face-down": 1.0}  # share of photos showing face-down tiles (compose_photo's face_down)


def make_folder(folder: Path, name: str, count: int, seed: int) -> Path:
    """count labelled photos of SETS_PER_FOLDER sets of one kind; numbers.json keeps what each
    photo's flowers print. Kept on disk: the same seed gives the same photos."""
    numbers_path = folder / "numbers.json"
    if numbers_path.exists() and len(list((folder / "labels").glob("*.txt"))) == count:
        return folder
    held_out, imposed, layout = PHOTO_SETS[name]
    rng = np.random.default_rng((seed, 77, list(PHOTO_SETS).index(name)))
    numbers = {}
    tileset = None
    per_set = max(1, count // SETS_PER_FOLDER)
    for i in range(count):
        if i % per_set == 0:
            tileset = procedural.make_tileset({**procedural.random_style(rng, held_out=held_out), **imposed}, rng)
        table = scenes.table_top(int(rng.integers(500, 900)), int(rng.integers(700, 1200)), rng)
        img, cls, boxes = compose_photo(tileset, layout or ("scatter" if i % 3 == 2 else "hand"), rng, [table],
                                        face_down=FACE_DOWN.get(name, 0.0))
        stem = f"{i:03d}"
        write_photo(folder, stem, img, cls, boxes)
        numbers[stem] = {str(k): v for k, v in tileset["numbers"].items()}
    numbers_path.write_text(json.dumps(numbers))
    return folder


def score_folder(models_dir: Path, folder: Path, fixed_numbers: dict | None = None) -> dict:
    """Full-pipeline figures on one folder, and flower tiles by their printed number (from the
    folder's numbers.json, or fixed_numbers {class: number} for every photo)."""
    from training.evaluate import read_folder
    from vision.classes import DEFAULT_TILESET, FLOWER_CLASSES, class_to_tile, printed_flower_tile
    from vision.model import Recognizer
    from vision.pipeline import to_tiles

    run = read_folder(folder, Recognizer(models_dir))
    numbers = json.loads((folder / "numbers.json").read_text()) if (folder / "numbers.json").exists() else None
    if fixed_numbers is not None:
        numbers = {p.stem: {str(k): v for k, v in fixed_numbers.items()} for p in run["names"]}
    flowers = flowers_right = flowers_right_by_class = 0
    for path, (g_cls, g_boxes), dets in zip(run["names"], run["gts"], run["preds"]):
        if numbers is None:
            break
        printed = numbers[path.stem]
        tiles, by_class = to_tiles(dets), to_tiles(dets, "taiwan")
        pred_of = {g: p for p, g in match_boxes([d["box"] for d in dets], g_boxes)}
        for g, c in enumerate(g_cls):
            if int(c) in FLOWER_CLASSES:
                flowers += 1
                n = printed.get(str(int(c)))  # none where the set prints names alone: the name decides
                want = printed_flower_tile(int(c), n) if n else class_to_tile(int(c), DEFAULT_TILESET)
                p = pred_of.get(g)
                flowers_right += p is not None and tiles[p]["tile"] == want
                flowers_right_by_class += p is not None and by_class[p]["tile"] == want
    r = score(run["gts"], run["preds"], run["latencies"])
    keep = ("photos", "labelled_tiles", "tiles_found", "tiles_right", "photos_all_right", "photos_exactly_right",
            "extras", "extras_per_photo", "flower_recall", "confusions", "latency_ms_median")
    out = {k: r[k] for k in keep if k in r}
    if numbers is not None:
        out["flower_tiles"] = flowers
        out["flower_tiles_right"] = flowers_right / max(flowers, 1)
        out["flower_tiles_right_taiwan"] = flowers_right_by_class / max(flowers, 1)  # numbers not read
    return out


def run(models: list[Path], work: Path, photos: int, seed: int = 0, valid: Path | None = None, log=print) -> dict:
    from training.train_classifier import REAL_NUMBERS

    missing = procedural.say_missing_fonts(log)
    folders = {name: (make_folder(work / name, name, photos, seed), None) for name in PHOTO_SETS}
    if (KDE_TEST / "labels").is_dir():
        folders["kde-traditional"] = (KDE_TEST, None)
    if valid is not None and valid.is_dir():  # the training data set's own HK sets: 梅1 蘭2 菊3 竹4
        folders["valid (HK sets)"] = (valid, REAL_NUMBERS)
    out = {"photos_per_set": photos, "leave_out": procedural.LEAVE_OUT, "fonts_missing": missing, "results": {}}
    for m in models:
        out["results"][str(m)] = {}
        for name, (folder, fixed) in folders.items():
            out["results"][str(m)][name] = r = score_folder(m, folder, fixed)
            log(f"{m} {name}: {r['tiles_right']:.1%} right, {r['tiles_found']:.1%} found, "
                f"{r['photos_exactly_right']:.0%} exact, {r['extras']} extras"
                + (f", flowers by number {r['flower_tiles_right']:.0%} (taiwan {r['flower_tiles_right_taiwan']:.0%})"
                   if "flower_tiles" in r else ""))
    return out


def format_table(study: dict) -> str:
    """The study's rows for the console, as the model card shows them."""
    from training.model_card import style_rows

    return style_rows(card_summary(study)["rows"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.style_study", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=[str(ROOT / "models")])
    ap.add_argument("--work", default="/tmp/style-study")
    ap.add_argument("--photos", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--no-valid", action="store_true", help="leave the training data set's valid split out")
    ap.add_argument("--record", metavar="MODELS", help="keep the figures in this models folder's card")
    ap.add_argument("--names", nargs="+", help="what to call each models folder in the card")
    args = ap.parse_args(argv)
    study = run([Path(m) for m in args.models], Path(args.work), args.photos, args.seed,
                None if args.no_valid else VALID)
    print(format_table(study))
    if args.json:
        Path(args.json).write_text(json.dumps(study, indent=1))
    if args.record:
        from training.model_card import record

        print(f"recorded in {record(args.record, 'style_study', card_summary(study, args.names))}")
    return 0


def card_summary(study: dict, names: list[str] | None = None) -> dict:
    """The rows the model card shows: one per models folder and photo set."""
    label = dict(zip(study["results"], names or []))
    rows = [{"models": label.get(m, Path(m).name), "set": name,
             **{k: r.get(k) for k in ("tiles_right", "tiles_found", "photos_exactly_right", "extras_per_photo",
                                       "flower_tiles_right", "flower_tiles_right_taiwan")}}
            for m, sets in study["results"].items() for name, r in sets.items()]
    return {"photos_per_set": study["photos_per_set"], "leave_out": study["leave_out"], "rows": rows}


if __name__ == "__main__":
    raise SystemExit(main())
