"""Class-agnostic tile detector: dataset preparation, ultralytics training and ONNX export.

Every face class is folded into one class "tile"; synthetic face-down tiles are pasted into
a share of the training photos so the detector also finds backs.
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")  # never let ultralytics reach the network

import cv2
import numpy as np

from training import synth
from training.dataset import labels_to_xyxy, list_split, read_labels, write_labels, xyxy_to_labels

DET_IMGSZ = 416


def prepare_detector_data(data_root: Path, artwork_root: Path, out_dir: Path, seed: int = 0,
                          back_share: float = 0.4, pseudo=None, procedural: int = 0,
                          photo_seed: int | None = None, closeup_share: float = 0.15, hard_tables: float = 0.0,
                          face_down: float = 0.0, table_parts: float = 0.0) -> Path:
    """Write a one-class YOLO dataset under out_dir; returns the data yaml path.

    pseudo, a function image -> (boxes, scores) such as an earlier detector, adds the train
    photos' unlabelled tiles as labels (training.pseudo_labels); valid keeps its labels as published.
    procedural adds that many synthetic photos of procedural tile sets to the train split, drawn
    from photo_seed (default seed: a fine-tuning round given another sees new photos), closeup_share
    of them close-ups, hard_tables of them on a hard table, face_down of them showing a run of
    tiles face down and table_parts of them an automatic table's own parts (write_procedural_photos).
    """
    from training.pseudo_labels import unlabelled_tiles

    rng = np.random.default_rng(seed)
    out_dir = Path(out_dir)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    for split in ("train", "valid"):
        (out_dir / "images" / split).mkdir(parents=True)
        (out_dir / "labels" / split).mkdir(parents=True)
        for img_path, lab_path in list_split(data_root, split):
            labels = read_labels(lab_path)
            labels[:, 0] = 0
            dst_img = out_dir / "images" / split / img_path.name
            image = cv2.imread(str(img_path)) if split == "train" and pseudo else None
            if image is not None:
                h, w = image.shape[:2]
                extra = unlabelled_tiles(*pseudo(image), labels_to_xyxy(labels, w, h)[1])
                if len(extra):
                    labels = np.concatenate([labels, xyxy_to_labels(np.zeros(len(extra)), extra, w, h)])
            if split == "train" and rng.random() < back_share:
                image = cv2.imread(str(img_path)) if image is None else image
                h, w = image.shape[:2]
                _, boxes = labels_to_xyxy(labels, w, h)
                image, backs = synth.paste_backs(image, boxes, rng, int(rng.integers(1, 7)))
                if len(backs):
                    labels = np.concatenate([labels, xyxy_to_labels(np.zeros(len(backs)), backs, w, h)])
                cv2.imwrite(str(dst_img), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            else:
                os.symlink(img_path.resolve(), dst_img)
            write_labels(out_dir / "labels" / split / (img_path.stem + ".txt"), labels)
    if procedural:
        art = art_faces(artwork_root, out_dir.parent / "svg_faces")
        write_procedural_photos(out_dir / "images" / "train", out_dir / "labels" / "train", procedural,
                                seed if photo_seed is None else photo_seed, art=art, closeup_share=closeup_share,
                                hard_tables=hard_tables, face_down=face_down, table_parts=table_parts)
    yaml_path = out_dir / "data.yaml"
    yaml_path.write_text(f"path: {out_dir.resolve()}\ntrain: images/train\nval: images/valid\nnc: 1\nnames:\n  0: tile\n")
    return yaml_path


def _cpu_callbacks(threads: int, workers: int):
    """ultralytics forces workers=0 and NUM_THREADS=cpu-1 on CPU; put our choice back."""
    import torch

    def set_threads(trainer):
        trainer.args.workers = workers
        torch.set_num_threads(threads)

    return {"on_pretrain_routine_start": set_threads, "on_train_start": set_threads}


def train_detector(data_yaml: Path, run_dir: Path, hours: float | None, epochs: int, seed: int = 0,
                   threads: int = 2, workers: int = 2, resume_from: Path | None = None, name: str = "det",
                   degrees: float = 10.0, device: str = "cpu", batch: int = 16, overrides: dict | None = None,
                   callbacks: dict | None = None) -> Path:
    """Train yolo11n from scratch, or fine-tune resume_from at a low rate; returns the best .pt path.

    overrides replace any ultralytics argument (a GPU round's batch and schedule, say);
    callbacks are extra {event: fn} hooks.
    """
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(threads)
    model = YOLO(str(resume_from) if resume_from else "yolo11n.yaml")
    hooks = _cpu_callbacks(threads, workers) if device == "cpu" else {}
    for event, fn in [*hooks.items(), *(callbacks or {}).items()]:
        model.add_callback(event, fn)
    args = dict(
        data=str(data_yaml), imgsz=DET_IMGSZ, epochs=epochs, batch=batch, device=device, workers=workers,
        project=str(Path(run_dir).resolve()), name=name, exist_ok=True, seed=seed, deterministic=False,
        plots=False, amp=False, verbose=False, pretrained=False, single_cls=True,
        degrees=degrees, flipud=0.5, fliplr=0.5, mosaic=1.0, close_mosaic=2, scale=0.5,
        hsv_h=0.02, hsv_s=0.6, hsv_v=0.4, patience=100, cache=True,
    )
    if resume_from:  # a second round: no warm-up, small steps, so the first round's gains survive
        args.update(optimizer="AdamW", lr0=0.0005, warmup_epochs=0, close_mosaic=1, pretrained=True)
    if hours:
        args["time"] = hours
    args.update(overrides or {})
    t0 = time.time()
    model.train(**args)
    best = Path(run_dir).resolve() / name / "weights" / "best.pt"
    print(f"detector trained in {(time.time() - t0) / 60:.1f} min -> {best}", flush=True)
    return best


def export_detector(best_pt: Path, out_path: Path, imgsz: int = DET_IMGSZ,
                    calibration: list[np.ndarray] | None = None) -> Path:
    """ONNX with raw (1, 5, anchors) output: cx, cy, w, h, score; NMS happens in vision.detector_io.

    Height and width are left free so a photo is fed at its own aspect, not padded to a square.
    With calibration photos (BGR) it is made int8 on them (training/quantize.py), as the shipped
    detector is; without, it stays float.
    """
    import tempfile

    from ultralytics import YOLO

    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:  # ultralytics writes beside the weights: not into models/
        weights = Path(tmp) / "detector.pt"
        shutil.copyfile(best_pt, weights)
        exported = YOLO(str(weights)).export(format="onnx", imgsz=imgsz, simplify=False, dynamic=True,
                                             opset=17, device="cpu")
        shutil.copyfile(exported, out_path)
    if calibration is not None:
        from training.quantize import quantize_detector

        quantize_detector(out_path, calibration, imgsz)
    return out_path


def art_faces(artwork_root: Path, cache: Path) -> list[dict[int, np.ndarray]]:
    """The face art of each artwork set drawn without a body (class -> BGRA), one dict a set."""
    loads = [([folder], {}) for folder in synth.render_svg_sets(artwork_root, cache, log=lambda s: None)]
    loads += [((), {folder: entry}) for folder, entry in synth.ART_SETS.items() if not entry[1]]
    sets = [{f["cls"]: f["rgba"] for f in synth.load_faces(artwork_root, rendered, art_sets)}
            for rendered, art_sets in loads]
    return [faces for faces in sets if faces]


def write_procedural_photos(img_dir: Path, lab_dir: Path, count: int, seed: int = 0, per_set: int = 8,
                            max_side: int = 960, squash_share: float = 0.5, squash_size: int = 640,
                            closeup_share: float = 0.15, art: list[dict] = (), art_share: float = 0.3,
                            hard_tables: float = 0.0, table_parts: float = 0.0, face_down: float = 0.0,
                            dark_backs: float = 0.0) -> int:
    """count synthetic photos of procedural tile sets (training/procedural.py, never the held-out
    style) on procedural tables with distractors and glare (training/scenes.py), one class "tile";
    a new set every per_set photos. Returns the number of tiles labelled.

    squash_share of them are resized to squash_size square, as the data set's publisher resized
    every photo: a round whose new photos all kept their aspect learnt that a tile is never that
    thin and cut the squashed photos' tiles into slices.

    closeup_share of them are close-ups of one to three tiles filling most of the photo
    (compose.closeup_layout): a detector that had never seen a tile that big cut a close 條 tile
    into its stick columns, and found 81% of the style study's close-up tiles.

    art_share of the sets wear the faces of one artwork set of art (art_faces) on their bodies:
    the detector had seen drawn art only on the HK photos' own tiles.

    hard_tables of the photos lie on a hard table (scenes.table_top): bold dark print, or a cloth of
    about the tiles' body colour.

    table_parts of them show an automatic table's own parts (scenes.add_table_parts: its centre
    panel with dial knobs, dark plates of a tile's size, door seams). 0 draws exactly what was
    drawn before it existed.

    face_down of the hands and loose photos show a run of tiles face down (compose.compose_photo's
    face_down), labelled as tiles; 0 draws as before too. dark_backs of the sets have a back of
    about black (0: the style's own), as the dark plates of an automatic table are."""
    from training import compose, procedural, scenes

    rng = np.random.default_rng((seed, 15))
    tiles = 0
    tileset = None
    for i in range(count):
        if i % per_set == 0:
            style = procedural.random_style(rng)
            if dark_backs and rng.random() < dark_backs:
                style["back"] = np.clip(rng.normal(35, 8, 3), 10, 70).tolist()
            if len(art) and rng.random() < art_share:
                tileset = procedural.art_tileset(art[int(rng.integers(len(art)))], style, rng)
            else:
                tileset = procedural.make_tileset(style, rng)
        body = (style["front"] if rng.random() < 0.6 else style["back"]) if hard_tables else None
        table = scenes.table_top(int(rng.integers(500, 900)), int(rng.integers(700, 1200)), rng, hard_tables, body)
        u = rng.random()
        kind = "closeup" if u < closeup_share else "scatter" if u < closeup_share + 0.3 else "hand"
        img, _, boxes = compose.compose_photo(tileset, kind, rng, [table], face_down=face_down)
        img = scenes.add_distractors(img, rng, boxes)
        if table_parts and rng.random() < table_parts:
            img = scenes.add_table_parts(img, rng, boxes)
        if rng.random() < 0.3:
            img = scenes.add_glare(img, rng)
        h, w = img.shape[:2]
        scale = min(1.0, max_side / max(h, w))
        if scale < 1:
            img = cv2.resize(img, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
            boxes = boxes * scale
        if rng.random() < squash_share:
            h, w = img.shape[:2]
            boxes = boxes * np.array([squash_size / w, squash_size / h] * 2)
            img = cv2.resize(img, (squash_size, squash_size), interpolation=cv2.INTER_AREA)
        h, w = img.shape[:2]
        keep = (boxes[:, 2] - boxes[:, 0] > 2) & (boxes[:, 3] - boxes[:, 1] > 2)
        cv2.imwrite(str(Path(img_dir) / f"procedural_{i:04d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        write_labels(Path(lab_dir) / f"procedural_{i:04d}.txt",
                     xyxy_to_labels(np.zeros(int(keep.sum())), boxes[keep], w, h))
        tiles += int(keep.sum())
    return tiles
