"""The before -> after table of one of the model card's decision sections, by one command.

    python -m training.decision_study --after /tmp/candidate-models \\
        --set "pink session (a real set never trained on)=../pink" \\
        --set "drawn, held-out style=/tmp/style-study/held-out" [--before models] \\
        [--after-config '{"set_copies": false}'] [--key some_study_not_shipped [--add]]

Each set's labelled photos are read by both recognizers (training.evaluate.read_folder, the
reviewed label fixes applied), and each row holds the card's columns (model_card.DECISION_COLUMNS):
萬, 筒 and 條, flowers right (their labelled tiles read as their class), tiles right, tiles found,
photos all right, photos exactly right and extras. --before-config / --after-config change
inference settings (a JSON object merged into recognizer.json's "inference", a nested setting key
by key) in a scratch copy of the models folder, its files linked, so that a setting is compared
without copying the models; settings are read when a recognizer loads. With --key the rows are written
into recognizer.json's training[key] of --card (its text and notes kept) and the card is written
again; with --add the section's rows of other sets stay (a set read again replaces its row). The
card's decision rows were counted this way before, by scripts kept outside the repository; this
command makes such a table repeatable.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from training.evaluate import match_boxes, read_folder, score
from training.model_card import DECISION_COLUMNS, write_card
from training.model_card import _pct as percent  # the card's way of writing a share
from vision.classes import CHARACTER_CLASSES, FLOWER_CLASSES, SUIT_CLASSES

REPO = Path(__file__).resolve().parent.parent
# the card's groups of labelled tiles, each read right when its box is found and its class read
GROUPS = {"wan": CHARACTER_CLASSES, "suits": SUIT_CLASSES, "flowers": FLOWER_CLASSES}


def figures(gts: list, preds: list) -> dict:
    """One reading of a set of photos in the card's columns: gts [(classes, boxes)] and preds
    [[{cls, box, confidence, ...}]] per photo, as training.evaluate reads them. A group no label holds is "-".

    >>> import numpy as np
    >>> gts = [(np.array([0, 34]), np.array([[0, 0, 10, 14], [20, 0, 30, 14]], float))]
    >>> preds = [[{"cls": 0, "box": [0, 0, 10, 14], "confidence": 0.9},
    ...           {"cls": 35, "box": [20, 0, 30, 14], "confidence": 0.8},
    ...           {"cls": 9, "box": [40, 0, 50, 14], "confidence": 0.3}]]
    >>> f = figures(gts, preds); f["wan"], f["flowers"], f["suits"], f["tiles"], f["exact"], f["extras"]
    ('100.0%', '0.0%', '-', '50.0%', '0.0%', 1)
    """
    right = {k: [0, 0] for k in GROUPS}
    for (g_cls, g_boxes), dets in zip(gts, preds):
        read = {g: dets[p]["cls"] for p, g in match_boxes([d["box"] for d in dets], g_boxes)}
        for g, c in enumerate(g_cls):
            for k, members in GROUPS.items():
                if int(c) in members:
                    right[k][1] += 1
                    right[k][0] += read.get(g) == int(c)
    s = score(gts, preds, classes=True)
    out = {k: percent(n / total) if total else "-" for k, (n, total) in right.items()}
    out.update(tiles=percent(s["tiles_right"]), found=percent(s["tiles_found"]), all=percent(s["photos_all_right"]),
               exact=percent(s["photos_exactly_right"]), extras=int(s["extras"]), photos=len(gts))
    return out


def row(name: str, before: dict, after: dict) -> dict:
    """A card row from the figures of one set read before and after."""
    out = {"name": f"{name}: {before['photos']} photos", "photos": before["photos"]}
    for key, _ in DECISION_COLUMNS:
        out[f"{key}_before"], out[f"{key}_after"] = before[key], after[key]
    return out


def markdown(rows: list[dict]) -> str:
    """The rows as the card prints them."""
    head = "| photos | " + " | ".join(title for _, title in DECISION_COLUMNS) + " |\n|---|" + "---|" * len(DECISION_COLUMNS)
    return head + "".join("\n| " + r["name"] + " | " + " | ".join(f"{r[k + '_before']} -> {r[k + '_after']}"
                                                                    for k, _ in DECISION_COLUMNS) + " |" for r in rows)


def with_settings(models: Path, settings: dict, scratch: Path) -> Path:
    """models itself without settings; else scratch holding a link to each of its files and a
    recognizer.json whose "inference" has settings merged in (a nested setting key by key).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     m = Path(tmp) / "m"; m.mkdir(); _ = (m / "x.onnx").write_bytes(b"1")
    ...     _ = (m / "recognizer.json").write_text('{"inference": {"screen": {"a": 1, "b": 2}, "c": 3}}')
    ...     out = with_settings(m, {"screen": {"b": 5}, "d": None}, Path(tmp) / "s")
    ...     json.loads((out / "recognizer.json").read_text())["inference"], (out / "x.onnx").read_bytes()
    ({'screen': {'a': 1, 'b': 5}, 'c': 3, 'd': None}, b'1')
    """
    models = Path(models)
    if not settings:
        return models
    scratch.mkdir(parents=True)
    for f in models.iterdir():
        if f.name != "recognizer.json":
            (scratch / f.name).symlink_to(f.resolve())
    info = json.loads((models / "recognizer.json").read_text(encoding="utf-8"))
    inference = info.setdefault("inference", {})
    for key, value in settings.items():
        if isinstance(value, dict) and isinstance(inference.get(key), dict):
            inference[key] = {**inference[key], **value}
        else:
            inference[key] = value
    (scratch / "recognizer.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    return scratch


def merged_rows(old: list[dict], new: list[dict], add: bool) -> list[dict]:
    """The rows a section keeps: new alone, or with add the old rows of other names first and new
    after them (a set read again replaces its row).

    >>> old = [{"name": "a: 3 photos"}, {"name": "b: 5 photos"}]
    >>> [r["name"] for r in merged_rows(old, [{"name": "b: 5 photos", "x": 1}, {"name": "c: 2 photos"}], True)]
    ['a: 3 photos', 'b: 5 photos', 'c: 2 photos']
    >>> [r["name"] for r in merged_rows(old, [{"name": "c: 2 photos"}], False)]
    ['c: 2 photos']
    """
    if not add:
        return list(new)
    names = {r["name"] for r in new}
    return [r for r in old if r["name"] not in names] + list(new)


def write_rows(card_models: Path, key: str, rows: list[dict], date: str, add: bool = False) -> None:
    """rows (and date) into recognizer.json's training[key] of card_models, text and notes kept
    (with add, its rows of other sets kept too: merged_rows); then the card again."""
    path = Path(card_models) / "recognizer.json"
    info = json.loads(path.read_text(encoding="utf-8"))
    study = info.setdefault("training", {}).setdefault(key, {})
    study.update(rows=merged_rows(study.get("rows", []), rows, add), date=date)
    path.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    write_card(card_models)


def parse_set(text: str) -> tuple[str, Path]:
    """"name=folder" as --set gives it."""
    name, sep, folder = text.partition("=")
    if not sep or not name.strip() or not folder.strip():
        raise argparse.ArgumentTypeError(f"--set wants NAME=FOLDER, got {text!r}")
    return name.strip(), Path(folder.strip())


def main(argv=None) -> int:
    import datetime as dt

    from training.label_fixes import load_fixes
    from vision.model import Recognizer

    ap = argparse.ArgumentParser(prog="python -m training.decision_study", description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=str(REPO / "models"), help="models folder read before (default: shipped)")
    ap.add_argument("--after", default=str(REPO / "models"), help="models folder read after")
    ap.add_argument("--before-config", type=json.loads, default={}, help="inference settings changed before (JSON)")
    ap.add_argument("--after-config", type=json.loads, default={}, help="inference settings changed after (JSON)")
    ap.add_argument("--set", dest="sets", type=parse_set, action="append", required=True, metavar="NAME=FOLDER")
    ap.add_argument("--key", help="write the rows into the card's training[KEY] and write the card again")
    ap.add_argument("--card", default=str(REPO / "models"), help="the models folder whose card --key writes")
    ap.add_argument("--add", action="store_true", help="with --key, keep the section's rows of other sets")
    args = ap.parse_args(argv)
    if args.before == args.after and args.before_config == args.after_config:
        ap.error("before and after are the same recognizer: give --after or a --*-config")
    fixes = load_fixes()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        before = Recognizer(with_settings(Path(args.before), args.before_config, Path(tmp) / "before"))
        after = Recognizer(with_settings(Path(args.after), args.after_config, Path(tmp) / "after"))
        for name, folder in args.sets:
            a, b = read_folder(folder, before, fixes), read_folder(folder, after, fixes)
            if not a["gts"]:
                print(f"{folder}: no labelled photo", file=sys.stderr)
                return 1
            rows.append(row(name, figures(a["gts"], a["preds"]), figures(b["gts"], b["preds"])))
            print(markdown(rows[-1:]).splitlines()[-1], flush=True)
    if args.key:
        write_rows(Path(args.card), args.key, rows, dt.date.today().isoformat(), args.add)
        print(f"rows written to {Path(args.card) / 'recognizer.json'} training[{args.key!r}]; card written again")
    return 0


if __name__ == "__main__":
    sys.exit(main())
