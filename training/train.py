"""`python -m vision train`: rebuild the models (detector, close-up detector, classifier, flower, character and suit readers, tile check) from the
shared data, export ONNX, evaluate, write the card.

Seeded; the schedules are time-boxed (detector in hours, classifier in minutes) so a run
fits a CPU budget. Everything but the final models goes to --work.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = (REPO / ".." / "shared" / "data").resolve()
DATASET = "rf-chinese-mahjong-detection-v4"
ARTWORK = "artwork"


# the group readers' options (vision/group_readers.py): option prefix -> (reader, its name in the
# help, default minutes)
GROUP_READER_OPTIONS = {"char": ("character_reader", "character reader", 25.0),
                        "suit": ("suit_reader", "suit reader (筒 and 條)", 40.0),
                        "honour": ("honour_reader", "honour reader (winds, 中 and 發)", 25.0)}

def parse(argv):
    ap = argparse.ArgumentParser(prog="python -m vision train", description=__doc__)
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="folder holding %s/ and %s/" % (DATASET, ARTWORK))
    ap.add_argument("--models", default=str(REPO / "models"))
    ap.add_argument("--work", default="/tmp/mahjong-vision-work", help="scratch: datasets, runs, crop cache")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--det-hours", type=float, default=0.8, help="detector time budget")
    ap.add_argument("--det-epochs", type=int, default=40, help="detector epoch cap")
    ap.add_argument("--det-weights", help="skip detector training, export this ultralytics .pt")
    ap.add_argument("--det-init", help="fine-tune the detector from this .pt instead of from scratch")
    # the shipped detector's last two rounds trained with 400 (models/README.md, "Tile styles seen and unseen")
    ap.add_argument("--det-procedural", type=int, default=400,
                    help="synthetic photos of procedural tile sets added to the detector's training photos")
    ap.add_argument("--det-closeups", type=float, default=0.15,
                    help="share of those photos that are close-ups of one to three tiles")
    ap.add_argument("--det-hard-tables", type=float, default=0.0,
                    help="share of those photos on bold dark print or a cloth of the tiles' own colour")
    ap.add_argument("--det-photo-seed", type=int,
                    help="draw the procedural photos from this seed instead of --seed (a fine-tuning round sees new ones)")
    ap.add_argument("--det-pseudo", metavar="MODELS",
                    help="label the train photos' unlabelled tiles with the detector in this folder")
    ap.add_argument("--det-degrees", type=float, default=10.0,
                    help="detector augmentation: random rotation up to this many degrees")
    # the close-up detector (vision/model.py CLOSEUP_DETECTOR_FILE): the detector just trained,
    # fine-tuned with many close-ups; the shipped one as these defaults say (models/README.md)
    ap.add_argument("--closeup-hours", type=float, default=1.0, help="close-up detector time budget")
    ap.add_argument("--closeup-photos", type=int, default=500,
                    help="procedural photos added to the train photos for the close-up detector")
    ap.add_argument("--closeup-share", type=float, default=0.35, help="share of those that are close-ups")
    ap.add_argument("--closeup-photo-seed", type=int, default=3,
                    help="draw its procedural photos from this seed (not the main detector's)")
    ap.add_argument("--closeup-init", help="fine-tune from this .pt (default: the models folder's detector.pt, "
                                           "the detector just trained); a close-up detector's own for a further round")
    ap.add_argument("--closeup-weights", help="skip its training, export this ultralytics .pt")
    ap.add_argument("--skip-closeup-detector", action="store_true",
                    help="keep models/detector_closeup.* (and what the card says of it) as they are")
    ap.add_argument("--cls-minutes", type=float, default=35.0, help="classifier time budget")
    ap.add_argument("--cls-init", help="fine-tune the classifier from these PyTorch weights")
    ap.add_argument("--cls-lr", type=float, default=3e-3, help="classifier peak learning rate")
    ap.add_argument("--skip-classifier", action="store_true", help="keep models/classifier.* as they are")
    # the shipped ensemble: the classifier and two rounds fine-tuned from it (models/README.md)
    ap.add_argument("--cls-members", type=int, default=3,
                    help="classifier members read together; each after the first is fine-tuned from the first")
    ap.add_argument("--member-minutes", type=float, default=40.0, help="time budget of each further member")
    ap.add_argument("--member-lr", type=float, default=1e-3, help="peak learning rate of each further member")
    ap.add_argument("--member-weights", nargs="+", metavar="PT",
                    help="take these PyTorch weights as the further members instead of training them")
    ap.add_argument("--skip-detector", action="store_true",
                    help="keep models/detector.* (and what the card says of it) as they are")
    ap.add_argument("--flower-minutes", type=float, default=30.0, help="flower reader time budget")
    ap.add_argument("--flower-init", help="start the flower reader from these classifier weights "
                                          "(default: the models folder's classifier.pt), or from a reader's own "
                                          "flower_reader.pt for a further round")
    ap.add_argument("--flower-lr", type=float, default=3e-4, help="flower reader peak learning rate")
    ap.add_argument("--flower-jitter", type=float, default=1.0,
                    help="flower reader box jitter: each view's drawn up to this many times the classifier's")
    ap.add_argument("--skip-flower-reader", action="store_true",
                    help="keep models/flower_reader.onnx (and what the card says of it) as it is")
    for prefix, (name, what, minutes) in GROUP_READER_OPTIONS.items():
        ap.add_argument(f"--{prefix}-minutes", type=float, default=minutes, help=f"{what} time budget")
        ap.add_argument(f"--{prefix}-init", help=f"start the {what} from these classifier weights (default: the models "
                                                 f"folder's classifier.pt), or from a reader's own {name}.pt for a further round")
        ap.add_argument(f"--{prefix}-lr", type=float, default=3e-4, help=f"{what} peak learning rate")
        ap.add_argument(f"--skip-{name.replace('_', '-')}", action="store_true",
                        help=f"keep models/{name}.onnx (and what the card says of it) as it is")
    ap.add_argument("--verifier-minutes", type=float, default=20.0, help="tile check time budget")
    ap.add_argument("--verifier-photos", type=int, default=900,
                    help="procedural table photos the tile check mines the detector's boxes on")
    ap.add_argument("--verifier-table-parts", type=int, default=300,
                    help="photos of an automatic table's parts the tile check's second member mines (0: one member)")
    ap.add_argument("--skip-verifier", action="store_true",
                    help="keep models/verifier.onnx (and what the card says of it) as it is")
    ap.add_argument("--evaluate-only", action="store_true",
                    help="train nothing: measure the models in --models again and rewrite their card")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    data_root = Path(args.data) / DATASET
    artwork = Path(args.data) / ARTWORK
    if not data_root.is_dir():
        raise SystemExit(f"no training data at {data_root} (use --data)")
    os.environ.setdefault("YOLO_OFFLINE", "1")
    import torch

    from training import train_classifier as tc
    from training import train_detector as td
    from training.cls_net import TileNet
    from vision.crops import CLS_INPUT
    from vision.model import CONFIG_FILE, DEFAULTS

    torch.set_num_threads(args.threads)
    models, work = Path(args.models), Path(args.work)
    models.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    info = {"seed": args.seed, "threads": args.threads, "date": dt.date.today().isoformat(),
            "det_imgsz": td.DET_IMGSZ, "back_share": 0.4}
    card_path = models / CONFIG_FILE
    if card_path.exists():  # keep what a previous stage measured when a stage is skipped
        info = {**json.loads(card_path.read_text()).get("training", {}), **info}

    if args.evaluate_only:
        config = json.loads(card_path.read_text())
        config["inference"] = {**DEFAULTS, "cls_input": CLS_INPUT}
        evaluate_and_card(models, data_root, config, args.threads)
        return 0

    t0 = time.time()
    if not args.skip_detector:
        train_detector_stage(args, info, data_root, artwork, work, models)
    if not args.skip_closeup_detector:
        closeup_detector_stage(args, info, data_root, artwork, work, models)

    if not args.skip_classifier:
        cls_work = work / "classifier"
        cls_work.mkdir(exist_ok=True)
        metrics = tc.train_classifier(data_root, artwork, cls_work, models / "classifier.onnx", args.cls_minutes,
                                      seed=args.seed, threads=args.threads,
                                      init_weights=Path(args.cls_init) if args.cls_init else None,
                                      lr=args.cls_lr, log=lambda s: print(s, flush=True))
        torch.save(torch.load(cls_work / "classifier_last.pt"), models / "classifier.pt")
        before = info.get("classifier")
        if args.cls_init and before:  # a fine-tuning round: remember the rounds before it
            info["cls_rounds"] = info.get("cls_rounds", []) + [
                [before.get("epochs"), before.get("train_minutes"), info.get("cls_lr", 3e-3)]]
        else:
            info.pop("cls_rounds", None)
        info["classifier"] = {k: v for k, v in metrics.items() if k != "per_class_recall"}
        info["cls_minutes_budget"] = args.cls_minutes
        info["cls_lr"] = args.cls_lr
        for key in ("cls_members", "ensemble"):  # a new classifier: its members, if any, are made below
            info.pop(key, None)
    if args.member_weights or (not args.skip_classifier and args.cls_members > 1):
        members_stage(args, info, data_root, artwork, work, models)
    if not args.skip_flower_reader:
        flower_reader_stage(args, info, data_root, work, models)
    for prefix, (name, _, _) in GROUP_READER_OPTIONS.items():
        if not getattr(args, f"skip_{name}"):
            group_reader_stage(name, getattr(args, f"{prefix}_minutes"), getattr(args, f"{prefix}_init"),
                               getattr(args, f"{prefix}_lr"), args, info, data_root, work, models)
    if not args.skip_verifier:
        verifier_stage(args, info, data_root, work, models)
    info["cls_params"] = sum(p.numel() for p in TileNet().parameters()) * (1 + len(info.get("cls_members", [])))
    info["train_images"] = len(list((data_root / "images" / "train").iterdir()))

    info["total_minutes"] = (time.time() - t0) / 60
    evaluate_and_card(models, data_root, {"inference": {**DEFAULTS, "cls_input": CLS_INPUT}, "training": info},
                      args.threads)
    print(f"models written to {models} in {info['total_minutes']:.0f} min", flush=True)
    return 0


def train_detector_stage(args, info: dict, data_root: Path, artwork: Path, work: Path, models: Path) -> None:
    """Train (or take --det-weights), export models/detector.onnx (int8) and note the round in info."""
    from training import train_detector as td
    from training.dataset import list_split
    from training.quantize import calibration_photos

    if args.det_weights:
        best = Path(args.det_weights)
    else:
        pseudo = None
        if args.det_pseudo:
            from training.pseudo_labels import detector_boxes
            pseudo = detector_boxes(Path(args.det_pseudo))
        yaml = td.prepare_detector_data(data_root, artwork, work / "det_data", seed=args.seed, back_share=0.4,
                                        pseudo=pseudo, procedural=args.det_procedural,
                                        photo_seed=args.det_photo_seed, closeup_share=args.det_closeups,
                                        hard_tables=args.det_hard_tables)
        info["det_procedural"] = args.det_procedural
        info["det_closeups"] = args.det_closeups
        info["det_hard_tables"] = args.det_hard_tables
        info["det_photo_seed"] = args.det_photo_seed  # None: drawn from --seed
        best = td.train_detector(yaml, work / "runs", args.det_hours, args.det_epochs, seed=args.seed,
                                 threads=args.threads, resume_from=Path(args.det_init) if args.det_init else None,
                                 name="det_finetune" if args.det_init else "det", degrees=args.det_degrees)
    if args.det_init and info.get("det_epochs"):  # a fine-tuning round: remember the rounds before it
        info["det_rounds"] = info.get("det_rounds", []) + [
            [info["det_epochs"], info["det_minutes"], info.get("det_degrees", 10.0)]]
    elif not args.det_weights:
        info.pop("det_rounds", None)
    info["det_epochs"], info["det_minutes"], info["det_map50_1class"] = _detector_log(best)
    if not args.det_weights:
        info["det_degrees"] = args.det_degrees
    # int8, calibrated on train photos: 0.6x the float network's time (models/README.md)
    calibration = calibration_photos([p for p, _ in list_split(data_root, "train")], seed=args.seed)
    td.export_detector(best, models / "detector.onnx", calibration=calibration)
    info["det_int8_photos"] = len(calibration)
    # adapt tunes the detector from these weights, and the next round starts from them
    if Path(best).resolve() != (models / "detector.pt").resolve():
        shutil.copyfile(best, models / "detector.pt")


def closeup_detector_stage(args, info: dict, data_root: Path, artwork: Path, work: Path, models: Path) -> None:
    """Fine-tune models/detector.pt with close-ups (or take --closeup-weights) into
    models/detector_closeup.onnx, the detector asked only about photos that may be close-ups,
    and note the round in info. The train photos' unlabelled tiles are labelled by the models
    folder's recognizer, as --det-pseudo does."""
    from training import train_detector as td
    from training.pseudo_labels import detector_boxes
    from vision.model import CLOSEUP_DETECTOR_FILE

    if args.closeup_weights:
        best = Path(args.closeup_weights)
        note = {"weights_given": True}  # the card says how they were made
    else:
        yaml = td.prepare_detector_data(data_root, artwork, work / "closeup_det_data", seed=args.seed, back_share=0.4,
                                        pseudo=detector_boxes(models), procedural=args.closeup_photos,
                                        photo_seed=args.closeup_photo_seed, closeup_share=args.closeup_share)
        init = Path(args.closeup_init) if args.closeup_init else models / "detector.pt"
        best = td.train_detector(yaml, work / "runs", args.closeup_hours, args.det_epochs, seed=args.seed,
                                 threads=args.threads, resume_from=init, name="det_closeup",
                                 degrees=args.det_degrees)
        note = {"procedural": args.closeup_photos, "closeup_share": args.closeup_share,
                "photo_seed": args.closeup_photo_seed, "hours": args.closeup_hours, "init": init.name}
    epochs, minutes, map50 = _detector_log(best)
    before = info.get("closeup_detector")
    if args.closeup_init and before:  # a further round: remember the rounds before it
        note["rounds"] = before.get("rounds", []) + [{k: v for k, v in before.items() if k != "rounds"}]
    info["closeup_detector"] = {**note, "epochs": epochs, "minutes": minutes, "map50_1class": map50}
    td.export_detector(best, models / CLOSEUP_DETECTOR_FILE)
    if Path(best).resolve() != (models / "detector_closeup.pt").resolve():
        shutil.copyfile(best, models / "detector_closeup.pt")


def members_stage(args, info: dict, data_root: Path, artwork: Path, work: Path, models: Path) -> None:
    """Fine-tune the further classifier members from the classifier (seeds after --seed), or
    take --member-weights, and install them with it as one ensemble."""
    from training import ensemble
    from training import train_classifier as tc

    cls_work = work / "classifier"  # shares the classifier stage's crop caches
    cls_work.mkdir(parents=True, exist_ok=True)
    first = models / "classifier.pt"  # a round starts from its first member if it is an ensemble (load_weights)
    others, notes = [Path(p) for p in args.member_weights or []], []
    for k in range(1, args.cls_members) if not others else ():
        metrics = tc.train_classifier(data_root, artwork, cls_work, cls_work / f"member{k}.onnx", args.member_minutes,
                                      seed=args.seed + k, threads=args.threads, init_weights=first,
                                      lr=args.member_lr, last_file=f"member{k}.pt", log=lambda s: print(s, flush=True))
        others.append(cls_work / f"member{k}.pt")
        notes.append({"seed": args.seed + k, "epochs": metrics["epochs"], "train_minutes": metrics["train_minutes"],
                      "lr": args.member_lr, "crop_accuracy": metrics["crop_accuracy"]})
    for path in args.member_weights or []:  # how a kept round was made, from the note beside it
        note = Path(path).with_suffix(".json")
        notes.append({"weights": Path(path).name, **(json.loads(note.read_text()) if note.exists() else {})})
    net = ensemble.build(models, others, tc.crop_cache(data_root, cls_work, "train")["crops"], args.seed)
    valid = tc.crop_cache(data_root, cls_work, "valid")
    info["cls_members"] = notes
    info["cascade_lead"] = ensemble.LEAD
    info["ensemble"] = {k: v for k, v in tc.crop_metrics(net, valid).items() if k != "per_class_recall"}


def flower_reader_stage(args, info: dict, data_root: Path, work: Path, models: Path) -> None:
    """Train models/flower_reader.onnx from the classifier's weights and note it in info."""
    import torch

    from training import train_flower_reader as tf
    from vision.flowers import READER_FILE

    fl_work = work / "classifier"  # the crop caches the classifier's stage made
    fl_work.mkdir(parents=True, exist_ok=True)
    init = Path(args.flower_init) if args.flower_init else models / "classifier.pt"
    before = info.get("flower_reader") or {}
    metrics = tf.train_flower_reader(data_root, fl_work, models / READER_FILE, args.flower_minutes,
                                     init if init.exists() else None, seed=args.seed, threads=args.threads,
                                     lr=args.flower_lr, log=lambda s: print(s, flush=True),
                                     jitter=args.flower_jitter)
    torch.save(torch.load(fl_work / "flower_reader_last.pt"), models / tf.WEIGHTS_FILE)
    if init.name == tf.WEIGHTS_FILE and before:  # a further round from the reader's own weights
        metrics["rounds"] = before.get("rounds", []) + [
            {k: before.get(k) for k in ("train_minutes", "steps", "lr", "jitter")}]
        metrics["round_start"] = metrics["before"]  # the reader as this round found it
        metrics["before"] = before.get("before", metrics["before"])  # the classifier's network, as first measured
    info["flower_reader"] = metrics


def group_reader_stage(name: str, minutes: float, init_path: str | None, lr: float, args, info: dict,
                       data_root: Path, work: Path, models: Path) -> None:
    """Train group reader `name` (vision/group_readers.py READERS) as models/`name`.onnx, from the
    classifier's weights unless init_path says, and note it in info[name]."""
    import torch

    from training import train_group_reader as tr
    from vision.group_readers import reader_file

    cr_work = work / "classifier"  # the crop caches the classifier's stage made
    cr_work.mkdir(parents=True, exist_ok=True)
    init = Path(init_path) if init_path else models / "classifier.pt"
    metrics = tr.train_group_reader(name, data_root, cr_work, models / reader_file(name), minutes,
                                    init if init.exists() else None, seed=args.seed, threads=args.threads,
                                    lr=lr, log=lambda s: print(s, flush=True))
    torch.save(torch.load(cr_work / f"{name}_last.pt"), models / tr.weights_file(name))
    metrics["init"] = "reader" if init.name == tr.weights_file(name) else "classifier"
    info[name] = metrics


def verifier_stage(args, info: dict, data_root: Path, work: Path, models: Path) -> None:
    """Train models/verifier.onnx on the boxes of the detector just trained, and note it in info."""
    from training import train_verifier as tv

    v_work = work / "verifier"
    if (v_work / "examples.npz").exists():  # mined with an earlier detector
        (v_work / "examples.npz").unlink()
    log = lambda s: print(s, flush=True)  # noqa: E731
    figures = tv.train_verifier(models, models, v_work, data_root, args.verifier_photos, args.verifier_minutes,
                                seed=args.seed, threads=args.threads, log=log)
    info["verifier"] = {k: v for k, v in figures.items() if k != "history"}
    info.pop("verifier_tables", None)
    if args.verifier_table_parts:  # the second member, asked together with the first (models/README.md)
        t_work = work / "verifier-tables"
        shutil.rmtree(t_work, ignore_errors=True)  # its table photos were mined with an earlier detector
        t_work.mkdir(parents=True)
        for cache in v_work.glob("*.npz"):  # the first member's examples, not mined again
            shutil.copyfile(cache, t_work / cache.name)
        tables = tv.train_verifier(models, models, t_work, data_root, args.verifier_photos, args.verifier_minutes,
                                   seed=args.seed, threads=args.threads, log=log,
                                   table_parts=args.verifier_table_parts, join=v_work / "verifier.pt")
        info["verifier_tables"] = {k: v for k, v in tables.items() if k != "history"}


def evaluate_and_card(models: Path, data_root: Path, config: dict, threads: int) -> None:
    """Measure the models on the valid split (and boxes-only photos), keep the figures in
    recognizer.json and write the model card."""
    from training.evaluate import evaluate, format_report
    from training.label_fixes import load_fixes
    from training.model_card import write_card
    from vision.flowers import READER_FILE
    from vision.group_readers import READERS, reader_file
    from vision.model import CLASSIFIER_FIRST_FILE, CLOSEUP_DETECTOR_FILE, CONFIG_FILE, Recognizer
    from vision.verifier import VERIFIER_FILE

    info = config["training"]
    info["det_conf"] = config["inference"]["det_conf"]
    info["cascade_below"] = config["inference"].get("cascade_below")
    card_path = models / CONFIG_FILE
    card_path.write_text(json.dumps(config, indent=1))
    rec = Recognizer(models, threads=threads)
    info["valid_report"] = evaluate(data_root / "images" / "valid", rec, fixes=load_fixes())
    print(format_report(info["valid_report"]), flush=True)
    boxes_only = data_root / "boxes-only"
    if boxes_only.is_dir():
        info["boxes_only_report"] = evaluate(boxes_only, rec, classes=False)
    info["detector_mb"] = (models / "detector.onnx").stat().st_size / 1e6
    if (models / CLOSEUP_DETECTOR_FILE).exists():
        info["detector_closeup_mb"] = (models / CLOSEUP_DETECTOR_FILE).stat().st_size / 1e6
    info["classifier_mb"] = (models / "classifier.onnx").stat().st_size / 1e6
    if (models / CLASSIFIER_FIRST_FILE).exists():
        info["classifier_first_mb"] = (models / CLASSIFIER_FIRST_FILE).stat().st_size / 1e6
    if (models / READER_FILE).exists():
        info["flower_reader_mb"] = (models / READER_FILE).stat().st_size / 1e6
    for name in READERS:
        if (models / reader_file(name)).exists():
            info[f"{name}_mb"] = (models / reader_file(name)).stat().st_size / 1e6
    if (models / VERIFIER_FILE).exists():
        info["verifier_mb"] = (models / VERIFIER_FILE).stat().st_size / 1e6
    card_path.write_text(json.dumps(config, indent=1))
    write_card(models)


def _detector_log(best_pt: Path):
    """(epochs, minutes, last 1-class mAP50 on valid) from ultralytics' results.csv next to the weights."""
    csv = Path(best_pt).parent.parent / "results.csv"
    if not csv.exists():
        return None, None, None
    lines = csv.read_text().strip().splitlines()
    head = [h.strip() for h in lines[0].split(",")]
    last = dict(zip(head, (v.strip() for v in lines[-1].split(","))))
    return len(lines) - 1, float(last.get("time", 0)) / 60, float(last.get("metrics/mAP50(B)", 0))


if __name__ == "__main__":
    sys.exit(main())
