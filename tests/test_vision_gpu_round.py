"""The GPU round's pack: the detector dataset made small enough to travel, labels unchanged."""
from __future__ import annotations

import cv2
import numpy as np

from training.dataset import write_labels, xyxy_to_labels
from training.gpu_round import pack


def test_pack_shrinks_photos_and_keeps_every_second_valid_photo(tmp_path):
    data = tmp_path / "data"
    for split, names in (("train", ["a", "b"]), ("valid", ["c", "d", "e"])):
        (data / "images" / split).mkdir(parents=True)
        (data / "labels" / split).mkdir(parents=True)
        for name in names:
            cv2.imwrite(str(data / "images" / split / f"{name}.jpg"), np.full((640, 640, 3), 120, np.uint8))
            write_labels(data / "labels" / split / f"{name}.txt",
                         xyxy_to_labels(np.array([7]), np.array([[10, 10, 50, 60]]), 640, 640))
    out = pack(data, tmp_path / "art", tmp_path / "pack", wheels=False)
    train = sorted(p.name for p in (out / "det" / "images" / "train").iterdir())
    valid = sorted(p.name for p in (out / "det" / "images" / "valid").iterdir())
    assert train == ["a.webp", "b.webp"] and valid == ["c.webp", "e.webp"]
    assert cv2.imread(str(out / "det" / "images" / "train" / "a.webp")).shape == (448, 448, 3)
    # one class, the box as labelled (back pasting may add more boxes to a train photo)
    first = (out / "det" / "labels" / "valid" / "c.txt").read_text().split()
    assert first[0] == "0" and np.allclose([float(v) for v in first[1:]], [30 / 640, 35 / 640, 40 / 640, 50 / 640],
                                           atol=1e-5)



def test_the_saver_keeps_the_best_and_asked_every_epochs_weights(tmp_path):
    """A round judged by the whole recognizer needs each epoch's weights, not only the one the
    valid half's mAP picked."""
    import pytest

    torch = pytest.importorskip("torch")
    pytest.importorskip("ultralytics")
    from types import SimpleNamespace

    from training.gpu_round import _saver

    run = tmp_path / "run"
    run.mkdir()
    for name in ("best.pt", "last.pt"):
        torch.save({"model": torch.nn.Linear(2, 2), "optimizer": {"state": 1}, "epoch": 0}, run / name)
    (run / "results.csv").write_text("epoch,fitness\n")
    out = tmp_path / "out"
    out.mkdir()
    tr = SimpleNamespace(csv=run / "results.csv", best=run / "best.pt", last=run / "last.pt",
                         best_fitness=0.5, fitness=0.4, epoch=2)
    _saver("ft", out)(tr)
    assert sorted(p.name for p in out.iterdir()) == ["ft_results.csv"]  # not the best epoch, not asked for each
    tr.fitness = 0.5
    _saver("ft", out, every_epoch=True)(tr)
    assert sorted(p.name for p in out.iterdir()) == ["ft_best.pt", "ft_epoch3.pt", "ft_results.csv"]
    assert torch.load(out / "ft_epoch3.pt", weights_only=False).get("optimizer") is None  # stripped


def test_pack_passes_what_its_procedural_photos_show(tmp_path, monkeypatch):
    """gpu_round pack --hard-tables --face-down --table-parts reach the procedural photos."""
    from training import train_detector

    asked = {}

    def fake_prepare(data_root, artwork, out_dir, **kwargs):
        asked.update(kwargs)
        for split in ("train", "valid"):
            (out_dir / "images" / split).mkdir(parents=True)
            (out_dir / "labels" / split).mkdir(parents=True)

    monkeypatch.setattr(train_detector, "prepare_detector_data", fake_prepare)
    pack(tmp_path / "data", tmp_path / "art", tmp_path / "pack", wheels=False, procedural=5, photo_seed=3,
         hard_tables=0.3, face_down=0.2, table_parts=0.1)
    assert {k: asked[k] for k in ("procedural", "photo_seed", "hard_tables", "face_down", "table_parts")} == \
        {"procedural": 5, "photo_seed": 3, "hard_tables": 0.3, "face_down": 0.2, "table_parts": 0.1}


def test_the_scores_round_trains_the_score_branch_alone():
    """cpu_scores freezes, by ultralytics' rule (a parameter whose name holds "model.{x}."), every
    layer but the detect head's score branch, so the boxes' regression stays as shipped."""
    import pytest

    pytest.importorskip("ultralytics")
    from ultralytics import YOLO

    from training.gpu_round import RUNS

    spec = RUNS["cpu_scores"]
    frozen = [f"model.{x}." for x in spec["overrides"]["freeze"]]
    names = [k for k, _ in YOLO("yolo11n.yaml").model.named_parameters()]
    learning = [k for k in names if not any(f in k for f in frozen)]
    assert learning and all(k.startswith("model.23.cv3.") for k in learning)
    assert any(k.startswith("model.23.cv2.") for k in names) and spec["keep_norm"]
