"""A detector training round on a lent GPU machine, which has no ../shared and no ultralytics.

Two steps, so a round can be repeated whenever a GPU is at hand:

    python -m training.gpu_round pack --pseudo models     # here: writes .devpack/ (git-ignored)
    python -m training.gpu_round train --minutes 4 --out $OUT      # there, in the repo root

`pack` writes the one-class dataset `python -m vision train` builds (seeded back pasting), with
pseudo labels from the recognizer in --pseudo for the tiles the published labels leave out
(training.pseudo_labels), re-encoded as 448 px WebP so that it travels in the 64 MiB the device
tool carries (the detector reads photos at 416 px, so nothing it sees is lost), every second
valid photo to pick the best epoch by, and the ultralytics wheels. `train` runs the rounds named
in --runs side by side on the one GPU, each time-boxed, starting from --init (the shipped
models/detector.pt, which travels with the repo) or from scratch, and after every epoch copies
the best weights so far (optimizer stripped) and results.csv to --out, so that a run cut short
still returns its best. Back here, each returned .pt is exported (train_detector.export_detector)
into a copy of models/ and measured with the full pipeline before one is shipped; with
--every-epoch each epoch's weights come back too, so that the epoch is chosen by the whole
recognizer on real photos rather than by the valid half's mAP. When no GPU can be had, the same
pack trains here: `train --runs cpu_ft --device cpu --threads 2`.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACK = REPO / ".devpack"
WHEELS = ("ultralytics==8.4.190", "ultralytics-thop==2.2.3")  # pure Python; torch is on the device

# Rounds that can run side by side. "init" starts from --init, else from scratch. A fine-tuning
# round restarts the learning rate (a cosine from 0.001 with one warm-up epoch); the CPU rounds'
# rotation is +-10 deg.
FINE_TUNE = {"optimizer": "AdamW", "lr0": 0.001, "cos_lr": True, "warmup_epochs": 1, "close_mosaic": 5}
RUNS = {
    "ft": {"init": True, "degrees": 10.0, "overrides": FINE_TUNE},
    # a gentler restart (lr 0.0003), to keep more of what the CPU rounds learnt from the real photos
    "ft_gentle": {"init": True, "degrees": 10.0, "overrides": {**FINE_TUNE, "lr0": 0.0003}},
    # the CPU rounds' fine-tuning (train_detector's defaults: AdamW lr 0.0005, no warm-up), for a
    # round run here when no GPU is lent: --device cpu
    "cpu_ft": {"init": True, "degrees": 10.0, "overrides": {}},
    # only the head's score branch learns, with every BatchNorm statistic kept: every candidate box
    # stays where the shipped detector draws it (the readers were tuned on those), and only which
    # of them score high changes (model card, "A detector round that trains its scores alone")
    "cpu_scores": {"init": True, "degrees": 10.0, "keep_norm": True,
                   "overrides": {"freeze": [*range(23), "23.cv2", "23.dfl"]}},
    "ft_tight": {"init": True, "degrees": 0.0, "overrides": FINE_TUNE},  # no rotation: boxes stay tight
    "ft_askew": {"init": True, "degrees": 30.0, "overrides": FINE_TUNE},  # tiles lying further askew
    "scratch": {"init": False, "degrees": 10.0,
                "overrides": {"optimizer": "SGD", "lr0": 0.01, "cos_lr": True, "warmup_epochs": 3, "close_mosaic": 10}},
}


def pack(data_root: Path, artwork: Path, out: Path = PACK, seed: int = 0, side: int = 448,
         valid_every: int = 2, pseudo_models: Path | None = None, wheels: bool = True, procedural: int = 0,
         photo_seed: int | None = None, hard_tables: float = 0.0, face_down: float = 0.0,
         table_parts: float = 0.0) -> Path:
    """Write the dataset (and, with wheels, the ultralytics wheels) under out; returns out."""
    import cv2

    from training.train_detector import prepare_detector_data

    if out.exists():
        shutil.rmtree(out)
    with tempfile.TemporaryDirectory() as tmp:
        pseudo = None
        if pseudo_models:
            from training.pseudo_labels import detector_boxes
            pseudo = detector_boxes(pseudo_models)
        prepare_detector_data(data_root, artwork, Path(tmp) / "det", seed=seed, back_share=0.4, pseudo=pseudo,
                              procedural=procedural, photo_seed=photo_seed, hard_tables=hard_tables,
                              face_down=face_down, table_parts=table_parts)
        for split in ("train", "valid"):
            for sub in ("images", "labels"):
                (out / "det" / sub / split).mkdir(parents=True)
            photos = sorted((Path(tmp) / "det" / "images" / split).iterdir())
            for img in photos[::valid_every] if split == "valid" else photos:
                image = cv2.imread(str(img))
                image = cv2.resize(image, (side, side * image.shape[0] // image.shape[1]), interpolation=cv2.INTER_AREA)
                cv2.imwrite(str(out / "det" / "images" / split / (img.stem + ".webp")), image,
                            [cv2.IMWRITE_WEBP_QUALITY, 80])
                label = Path(tmp) / "det" / "labels" / split / (img.stem + ".txt")
                shutil.copyfile(label, out / "det" / "labels" / split / label.name)
    if wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(out / "whl"), *WHEELS],
                       check=True)
    return out


def _offline_patches() -> None:
    """What ultralytics would reach for that the device lacks: polars (results summary) and the
    AMP self-check, which downloads a model."""
    from ultralytics.engine import trainer

    try:
        import polars  # noqa: F401
    except ImportError:
        trainer.BaseTrainer.read_results_csv = lambda self: {}
    trainer.check_amp = lambda model: True


def _saver(name: str, out: Path, every_epoch: bool = False):
    """After each saved epoch: results.csv, and the best weights without optimizer state; with
    every_epoch also each epoch's own weights ({name}_epoch{N}.pt), to be judged by the whole
    recognizer on real photos (the valid half's mAP rose in rounds whose real photos read worse)."""
    from ultralytics.utils.torch_utils import strip_optimizer

    def save(tr):
        shutil.copyfile(tr.csv, out / f"{name}_results.csv")
        if tr.best_fitness == tr.fitness and tr.best.exists():
            tmp = out / f".{name}_best.pt"
            strip_optimizer(tr.best, str(tmp))
            os.replace(tmp, out / f"{name}_best.pt")
        if every_epoch and tr.last.exists():
            tmp = out / f".{name}_last.pt"
            strip_optimizer(tr.last, str(tmp))
            os.replace(tmp, out / f"{name}_epoch{tr.epoch + 1}.pt")

    return save


def train_one(name: str, pack_dir: Path, init: Path, out: Path, minutes: float, workers: int, batch: int,
              device: str, threads: int = 4, every_epoch: bool = False) -> None:
    from training import train_detector as td

    os.environ["YOLO_OFFLINE"] = "1"
    _offline_patches()
    out.mkdir(parents=True, exist_ok=True)
    spec = RUNS[name]
    det = (pack_dir / "det").resolve()
    callbacks = {"on_model_save": _saver(name, out, every_epoch)}
    if spec.get("keep_norm"):  # imported only then: adapt_detector brings vision.model and onnxruntime
        from training.adapt_detector import keep_norm_statistics
        callbacks["on_train_batch_start"] = keep_norm_statistics
    yaml = Path(tempfile.mkdtemp()) / "data.yaml"
    yaml.write_text(f"path: {det}\ntrain: images/train\nval: images/valid\nnc: 1\nnames:\n  0: tile\n")
    td.train_detector(yaml, Path(tempfile.mkdtemp()), minutes / 60, epochs=300, seed=0, threads=threads, workers=workers,
                      resume_from=init if spec["init"] else None, name=name,
                      degrees=spec["degrees"], device=device, batch=batch,
                      overrides={"amp": True, **spec["overrides"]},
                      callbacks=callbacks)


def train(pack_dir: Path, init: Path, out: Path, minutes: float, names: list[str], batch: int, device: str,
          threads: int = 4, every_epoch: bool = False) -> int:
    """Run each named round in its own process, side by side; returns how many failed.

    Their logs go to a scratch folder (the device returns at most 8 files); the lines that are
    not progress bars are gathered into out/logs.txt at the end.
    """
    out.mkdir(parents=True, exist_ok=True)
    logs = Path(tempfile.mkdtemp())
    workers = max(2, (os.cpu_count() or 4) // len(names) - 1)
    procs = []
    for name in names:
        cmd = [sys.executable, "-m", "training.gpu_round", "one", name, "--pack", str(pack_dir), "--init", str(init),
               "--out", str(out),
               "--minutes", str(minutes), "--workers", str(workers), "--batch", str(batch), "--device", device,
               "--threads", str(threads)] + (["--every-epoch"] if every_epoch else [])
        with open(logs / f"{name}.log", "w") as log:
            procs.append((name, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                                 env={**os.environ, "PYTHONUNBUFFERED": "1"})))
    failed = 0
    with open(out / "logs.txt", "w") as gathered:
        for name, p in procs:
            rc = p.wait()
            failed += rc != 0
            lines = (logs / f"{name}.log").read_text(errors="replace").replace("\r", "\n").splitlines()
            kept = [ln for ln in lines if "\x1b[K" not in ln and ln.strip()]
            gathered.write(f"== {name}: exit {rc}\n" + "\n".join(kept[-200:]) + "\n")
            print(f"== {name}: exit {rc}\n" + "\n".join(kept[-12:]), flush=True)
    return failed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.gpu_round", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--data", default=str((REPO / ".." / "shared" / "data").resolve()))
    p.add_argument("--pseudo", metavar="MODELS", help="label the train photos' unlabelled tiles with this recognizer")
    p.add_argument("--procedural", type=int, default=0, help="synthetic photos of procedural sets added to train")
    p.add_argument("--photo-seed", type=int, help="draw them from this seed (a fine-tuning round sees new ones)")
    p.add_argument("--hard-tables", type=float, default=0.0,
                   help="share of them on bold dark print or a cloth of the tiles' colour")
    p.add_argument("--face-down", type=float, default=0.0,
                   help="share of them showing a run of tiles face down")
    p.add_argument("--table-parts", type=float, default=0.0,
                   help="share of them showing an automatic table's own parts (no tile)")
    p.add_argument("--side", type=int, default=448, help="photos travel this wide")
    for name in ("train", "one"):
        t = sub.add_parser(name)
        if name == "one":
            t.add_argument("name", choices=sorted(RUNS))
            t.add_argument("--workers", type=int, default=4)
        else:
            t.add_argument("--runs", default="ft,ft_askew,scratch")
        t.add_argument("--pack", default=str(PACK))
        t.add_argument("--init", default=str(REPO / "models" / "detector.pt"), help="ultralytics .pt to fine-tune from")
        t.add_argument("--out", required=True)
        t.add_argument("--minutes", type=float, default=6.0)
        t.add_argument("--batch", type=int, default=32)
        t.add_argument("--device", default="0", help="0: the GPU; cpu: this machine's cores")
        t.add_argument("--threads", type=int, default=4, help="torch threads of each run")
        t.add_argument("--every-epoch", action="store_true",
                       help="also keep each epoch's weights, to judge them with the whole recognizer")
    args = ap.parse_args(argv)
    if args.cmd == "pack":
        data = Path(args.data)
        print(pack(data / "rf-chinese-mahjong-detection-v4", data / "artwork", side=args.side,
                   pseudo_models=Path(args.pseudo) if args.pseudo else None, procedural=args.procedural,
                   photo_seed=args.photo_seed, hard_tables=args.hard_tables, face_down=args.face_down,
                   table_parts=args.table_parts))
        return 0
    if args.cmd == "one":
        train_one(args.name, Path(args.pack), Path(args.init), Path(args.out), args.minutes, args.workers, args.batch,
                  args.device, args.threads, args.every_epoch)
        return 0
    return train(Path(args.pack), Path(args.init), Path(args.out), args.minutes, args.runs.split(","), args.batch,
                 args.device, args.threads, args.every_epoch)


if __name__ == "__main__":
    sys.exit(main())
