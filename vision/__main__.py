"""`python -m vision`: recognize a photo, evaluate on a labelled folder, train or adapt the models.

Bad input (missing photo, unreadable image, no models) prints one line on stderr and exits 2.
The model modules are imported only when a command needs them; `evaluate`, `train` and `adapt`
live in the training package (training/), which needs requirements-train.txt for the last two.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .classes import DEFAULT_TILESET, tileset_names

DEFAULT_MODELS = Path(__file__).resolve().parent.parent / "models"
EXIT_BAD_INPUT = 2


class InputError(Exception):
    """Something the user gave us is wrong; the message is printed as the one line."""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # train and adapt own their options: hand them everything after the command name
    if argv and argv[0] in ("train", "adapt"):
        return _delegate(argv[0], argv[1:])
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except InputError as exc:
        print(f"vision: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    rec = sub.add_parser("recognize", help="read the tiles and the hand's layout on a photo")
    rec.add_argument("photo", help="JPEG, PNG, WebP or HEIC photo")
    rec.add_argument("--json", action="store_true", help="print JSON instead of a summary")
    rec.add_argument("--draw", metavar="OUT", help="write the photo with boxes and labels to OUT (.jpg/.png)")
    rec.add_argument("--tileset", default=DEFAULT_TILESET, choices=tileset_names(),
                     help=f"how the 梅蘭菊竹 flowers are numbered (default {DEFAULT_TILESET})")
    rec.add_argument("--models", default=str(DEFAULT_MODELS), metavar="DIR", help="model folder")
    rec.add_argument("--low-confidence", type=_share, default=0.6, metavar="P",
                     help="flag tiles recognized with less confidence than P (default 0.6)")
    rec.set_defaults(run=_recognize)

    ev = sub.add_parser("evaluate", help="score the recognizer on a YOLO-labelled folder")
    ev.add_argument("folder", help="folder with images/ and labels/ (or both side by side)")
    ev.add_argument("--models", default=str(DEFAULT_MODELS), metavar="DIR", help="model folder")
    ev.add_argument("--boxes-only", action="store_true", help="labels carry no real class: score boxes only")
    ev.add_argument("--as-published", action="store_true",
                    help="score on the labels as published, without the reviewed fixes in training/label_fixes.json")
    ev.add_argument("--json", action="store_true", help="print the report as JSON")
    ev.set_defaults(run=_evaluate)

    for name, text in (("train", "train the models (options: python -m vision train --help)"),
                       ("adapt", "adapt the models to a new tile set (python -m vision adapt --help)")):
        sub.add_parser(name, help=text, add_help=False)
    return parser


def _share(text: str) -> float:
    """A number from 0 to 1 (argparse's type: anything else is a usage error)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1")
    return value


def _recognize(args) -> int:
    from .draw import draw_tiles
    from .image_io import ImageError, load_image
    from .pipeline import recognize_image

    try:
        image = load_image(args.photo)
    except ImageError as exc:
        raise InputError(f"{args.photo}: {exc}") from None
    result = recognize_image(image, _recognizer(args.models), args.tileset,
                             low_confidence=args.low_confidence)
    if args.draw:
        _write_image(args.draw, draw_tiles(image, result["tiles"], result["layout"]))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(summary(args.photo, result))
    return 0


def _evaluate(args) -> int:
    folder = Path(args.folder)
    if not folder.is_dir():
        raise InputError(f"no such folder: {folder}")
    evaluation, dataset = _import("evaluate"), _import("dataset")
    try:
        dataset.labelled_pairs(folder)
    except dataset.NoLabelledPhotos as exc:
        raise InputError(str(exc)) from None
    fixes = None if args.as_published else _import("label_fixes").load_fixes()
    try:
        report = evaluation.evaluate(folder, _recognizer(args.models), classes=not args.boxes_only, fixes=fixes)
    except dataset.LabelError as exc:
        raise InputError(str(exc)) from None
    if not report["photos"]:
        raise InputError(f"no photo in {folder} could be read")
    if args.json:
        print(json.dumps(report, ensure_ascii=False, default=str))
    else:
        print(evaluation.format_report(report))
    return 0


def _delegate(command: str, argv: list[str]) -> int:
    try:
        return _import(command).main(argv) or 0
    except InputError as exc:
        print(f"vision: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _import(name: str):
    import importlib

    try:
        return importlib.import_module(f"training.{name}")
    except ModuleNotFoundError as exc:
        if exc.name in ("training", f"training.{name}"):
            raise InputError(f"`{name}` is not available in this checkout (training/{name}.py is missing)") from None
        raise InputError(f"`{name}` needs the package {exc.name!r}; install it with `make train-deps`") from None


def _recognizer(models: str):
    folder = Path(models)
    if not folder.is_dir() or not any(folder.glob("*.onnx")):
        raise InputError(f"no models found in {folder}; train them with `make train`")
    from .model import Recognizer

    try:
        return Recognizer(folder)
    except Exception as exc:  # missing/corrupt files: onnxruntime raises its own types, a bad json a KeyError
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise InputError(f"cannot load the models in {folder}: {type(exc).__name__}: {first}") from None


def _write_image(path: str, image) -> None:
    import cv2

    try:
        ok = cv2.imwrite(path, image)
    except cv2.error:
        ok = False
    if not ok:
        raise InputError(f"cannot write {path} (use a .jpg or .png name in an existing folder)")


def summary(photo: str, result: dict) -> str:
    """Human-readable reading of one photo."""
    tiles, layout = result["tiles"], result["layout"]
    lines = [f"{photo}: {len(tiles)} tiles (tile set {result['tileset']})"]
    if layout["concealed"]:
        lines.append("concealed: " + " ".join(layout["concealed"]))
    for meld in layout["melds"]:
        claimed = "" if meld["claimed_index"] is None else f", claimed tile #{meld['claimed_index'] + 1}"
        lines.append(f"meld:      {meld['type']} {meld['tiles'] or '????'}{claimed}")
    if layout["flowers"]:
        lines.append("flowers:   " + " ".join(layout["flowers"]))
    if layout["winning_tile"]:
        lines.append("winning:   " + layout["winning_tile"])
    if layout["unplaced"]:
        lines.append("unplaced:  " + " ".join(tiles[i]["tile"] for i in layout["unplaced"]))
    for i in layout["flagged"]:
        t = tiles[i]
        lines.append(f"check:     tile {i} {t['tile']} at {[round(v) for v in t['box']]} "
                     f"(confidence {t['confidence']:.2f})")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
