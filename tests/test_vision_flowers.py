"""The flower reader (vision/flowers.py): which crops it reads, how its reading joins the
classifier's, and its training data (training/train_flower_reader.py)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.classes import FLOWER_CLASSES
from tests.vision_support import probs
from vision.flowers import (FLOWER_INPUT, FLOWER_STORE, READER_FILE, FlowerReader, in_group, merge, read_rows,
                            reader_input, scaled)

MODELS = Path(__file__).resolve().parent.parent / "models"


def test_only_crops_mostly_in_the_flower_group_are_read():
    p = probs([{38: 0.3, 40: 0.3, 5: 0.4}, {38: 0.2, 5: 0.8}, {16: 1.0}])
    assert in_group(p, 0.5).tolist() == [True, False, False]
    assert in_group(np.zeros((0, 43)), 0.5).tolist() == []


def test_merge_moves_the_group_toward_the_reader_and_keeps_the_group_total():
    p_cls = probs([{38: 0.6, 39: 0.2, 5: 0.2}, {16: 1.0}])
    p_num = np.array([[0.1, 0.7, 0.1, 0.1], [0.25] * 4], np.float32)
    reader = (np.eye(8, dtype=np.float32)[[2]], np.array([[0.0, 0.0, 1.0, 0.0]], np.float32))
    rows = np.array([True, False])
    c, n = merge(p_cls, p_num, rows, reader, weight=1.0)
    assert c[0, 36] == pytest.approx(0.8) and c[0, 5] == pytest.approx(0.2) and c[0, 38] == 0
    assert n[0].tolist() == [0, 0, 1, 0]
    assert np.array_equal(c[1], p_cls[1]) and np.array_equal(n[1], p_num[1])  # not read: untouched
    half, half_n = merge(p_cls, p_num, rows, reader, weight=0.5)
    assert half[0, 38] == pytest.approx(0.3) and half[0, 36] == pytest.approx(0.4)
    assert half[0, FLOWER_CLASSES].sum() == pytest.approx(0.8)
    assert half_n[0, 2] == pytest.approx(0.55)
    assert p_cls[0, 38] == pytest.approx(0.6)  # the inputs are not changed
    c, n = merge(p_cls, None, rows, reader, weight=1.0)
    assert n is None and c[0, 36] == pytest.approx(0.8)


def test_merge_keeps_the_classifiers_group_when_the_reader_spreads_it():
    # the classifier's top class (梅) is a flower; an unsure reader spreads the group's 0.6 so
    # that 6萬 (0.3) would come out on top: the group's top and 6萬 swap shares
    p_cls = probs([{38: 0.4, 39: 0.2, 5: 0.3, 0: 0.1}])
    unsure = np.full((1, 8), 0.1, np.float32)
    unsure[0, 4] = 0.3
    c, _ = merge(p_cls, None, np.array([True]), (unsure, None), weight=1.0)
    assert int(c[0].argmax()) == 38 and c[0, 38] == pytest.approx(0.3) and c[0, 5] == pytest.approx(0.18)
    assert c[0].sum() == pytest.approx(1.0)
    # where the classifier's own top class is outside the group, the flat answer stands
    p_out = probs([{5: 0.35, 38: 0.3, 39: 0.3, 0: 0.05}])
    c, _ = merge(p_out, None, np.array([True]), (unsure, None), weight=1.0)
    assert int(c[0].argmax()) == 5 and c[0, 5] == pytest.approx(0.35)


def test_a_reader_that_says_no_number_is_printed_leaves_the_tile_to_the_name():
    # xmahjongg's scanned set prints 梅 and no number; the classifier's number head read 4 (0.97).
    # A reader with a fifth answer, "no number", leaves the four numbers too little to decide the
    # tile, so the name does (梅 -> 5f under the default table), never 8f from a number not there.
    from vision.pipeline import to_tiles

    p_cls = probs([{38: 0.9, 41: 0.1}])
    p_num = np.array([[0.01, 0.01, 0.01, 0.97]], np.float32)
    says_none = (np.eye(8, dtype=np.float32)[[4]], np.array([[0.01, 0.01, 0.01, 0.02, 0.95]], np.float32))
    _, n = merge(p_cls, p_num, np.array([True]), says_none, weight=0.5)
    assert n.shape == (1, 4) and float(n.max()) == pytest.approx(0.495)
    det = {"cls": 38, "box": [0, 0, 10, 14], "confidence": 0.9, "number": int(n.argmax()) + 1,
           "number_confidence": float(n.max())}
    assert to_tiles([det])[0]["tile"] == "5f"
    # the same reader reading a printed 4 keeps the number's say: 梅 printing 4 is the 8th flower
    reads_four = (says_none[0], np.array([[0.01, 0.01, 0.01, 0.95, 0.02]], np.float32))
    _, n = merge(p_cls, p_num, np.array([True]), reads_four, weight=0.5)
    assert float(n.max()) == pytest.approx(0.96)
    assert to_tiles([{**det, "number": 4, "number_confidence": float(n.max())}])[0]["tile"] == "8f"


def test_the_readers_no_number_answer_is_taught_on_flowers_that_print_none():
    torch = pytest.importorskip("torch")
    from training.cls_net import NUM_PRINTED, TileNet
    from training.train_classifier import NO_NUMBER
    from training.train_flower_reader import (NONE_PRINTED, WEIGHTS_FILE, _reader, from_classifier, with_none_targets,
                                              with_none)

    k = torch.tensor([0, 3, NO_NUMBER])
    four = from_classifier(None)
    assert with_none_targets(k, four).tolist() == [0, 3, NO_NUMBER]  # a four-answer head skips them
    five = with_none(from_classifier(None))
    assert with_none_targets(k, five).tolist() == [0, 3, NONE_PRINTED]
    # widening keeps the four numbers' weights and starts "none" below every number
    made = from_classifier(MODELS / "classifier.pt")  # the classifier's four-answer number head
    old_w, old_b = made.num_head.weight.clone(), made.num_head.bias.clone()
    wide = with_none(made)
    assert wide.num_head.out_features == NUM_PRINTED + 1
    assert torch.equal(wide.num_head.weight[:NUM_PRINTED], old_w) and torch.equal(wide.num_head.bias[:NUM_PRINTED], old_b)
    assert wide.num_head.bias.detach()[NUM_PRINTED] < old_b.detach().min()
    # and a five-answer reader's weights load back as one
    again = _reader(wide.state_dict(), FLOWER_CLASSES)
    assert again.num_head.out_features == NUM_PRINTED + 1 and isinstance(again, TileNet)
    assert _reader(torch.load(MODELS / WEIGHTS_FILE), FLOWER_CLASSES).num_head.out_features == NUM_PRINTED + 1


class FakeSession:
    """An ONNX session stand-in that says every crop is 竹 printing 4, and records its inputs."""

    def __init__(self):
        self.inputs = []

    def run(self, names, feeds):
        x = feeds["image"]
        self.inputs.append(x)
        n = len(x)
        return [np.tile(np.eye(8, dtype=np.float32)[7], (n, 1)), np.tile(np.eye(4, dtype=np.float32)[3], (n, 1))]


def test_refine_reads_the_group_crops_at_its_own_size_and_nothing_else():
    image = np.full((300, 400, 3), 200, np.uint8)
    boxes = np.array([[10, 10, 60, 80], [100, 10, 150, 80], [200, 10, 280, 60]], np.float32)
    p_cls = probs([{38: 0.9, 0: 0.1}, {3: 1.0}, {35: 0.7, 0: 0.3}])
    session = FakeSession()
    c, n = FlowerReader(session, {"weight": 1.0}).refine(image, boxes, [False, False, True], p_cls,
                                                        np.full((3, 4), 0.25, np.float32))
    assert len(session.inputs) == 1 and session.inputs[0].shape == (2, 3, FLOWER_INPUT, FLOWER_INPUT)
    assert c.argmax(1).tolist() == [41, 3, 41] and n.argmax(1).tolist() == [3, 0, 3]
    assert np.array_equal(n[1], [0.25] * 4)
    none = FakeSession()
    same = FlowerReader(none).refine(image, boxes, [False] * 3, probs([{3: 1.0}] * 3), None)
    assert none.inputs == [] and same[1] is None


def test_reader_input_is_the_boxes_long_side_up_and_dark_ink_on_request():
    image = np.zeros((200, 200, 3), np.uint8)
    image[50:90, 20:180] = 255  # a lying tile: turned, its crop stands up
    x = reader_input(image, [[20, 50, 180, 90]], [True], FLOWER_STORE, FLOWER_INPUT, light_ink=False)
    centre = x[0, 0, FLOWER_INPUT // 2]
    assert x.shape == (1, 3, FLOWER_INPUT, FLOWER_INPUT) and x.dtype == np.float32
    assert centre.max() == pytest.approx(1.0)
    dark = reader_input(image, [[20, 50, 180, 90]], [True], FLOWER_STORE, FLOWER_INPUT, light_ink=True)
    assert dark[0, 0, FLOWER_INPUT // 2].min() == pytest.approx(0.0)


def test_recognizer_uses_a_flower_reader_beside_its_models_and_can_be_told_not_to(models_with_reader):
    pytest.importorskip("torch")
    from training.train_flower_reader import export_onnx, from_classifier
    from vision.model import Recognizer

    tmp_path = models_with_reader(READER_FILE, from_classifier(MODELS / "classifier.pt"), export_onnx)
    rec = Recognizer(tmp_path, threads=1)
    assert rec.flowers is not None
    session = FakeSession()
    rec.flowers.session = session
    image = np.full((400, 600, 3), 90, np.uint8)
    # the classifier unsure between two plants: the reader's sure 竹 decides at the default weight
    rec._classify = lambda crops: (probs([{40: 0.6, 38: 0.4}] * len(crops)), np.eye(4, dtype=np.float32)[[0] * len(crops)],
                                   np.full((len(crops), 4), 0.25, np.float32))
    rec.detect_with_aspect = lambda img: (np.array([[10, 10, 80, 110]], np.float32), np.array([0.9], np.float32), 1.0)
    tiles = rec.recognize(image)
    assert [t["cls"] for t in tiles] == [41] and tiles[0]["number"] == 4 and len(session.inputs) == 1
    config = json.loads((tmp_path / "recognizer.json").read_text())
    config["inference"]["flower_reader"] = None
    (tmp_path / "recognizer.json").write_text(json.dumps(config))
    assert Recognizer(tmp_path, threads=1).flowers is None


def test_the_exported_reader_gives_probabilities(tmp_path):
    pytest.importorskip("torch")
    import onnxruntime as ort

    from training.train_flower_reader import export_onnx, from_classifier

    path = tmp_path / READER_FILE
    export_onnx(from_classifier(None), path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    p8, num = session.run(["p_cls", "p_num"], {"image": np.random.default_rng(0).random(
        (2, 3, FLOWER_INPUT, FLOWER_INPUT), dtype=np.float32)})
    assert p8.shape == (2, 8) and num.shape == (2, 4)
    assert np.allclose(p8.sum(1), 1, atol=1e-5) and np.allclose(num.sum(1), 1, atol=1e-5)


def test_from_classifier_keeps_the_classifiers_flower_rows():
    torch = pytest.importorskip("torch")
    from training.cls_net import first_member
    from training.train_flower_reader import from_classifier

    net = from_classifier(MODELS / "classifier.pt")
    source = first_member(MODELS / "classifier.pt")  # the shipped classifier, or its first member
    assert torch.equal(net.cls_head.weight, source.cls_head.weight[list(FLOWER_CLASSES)])
    assert torch.equal(net.num_head.weight, source.num_head.weight)


def test_a_further_reader_round_starts_from_the_readers_own_weights():
    torch = pytest.importorskip("torch")
    from training.train_flower_reader import WEIGHTS_FILE, from_classifier, start_from

    shipped = start_from(MODELS / WEIGHTS_FILE)  # a reader's state: loaded as it is
    assert torch.equal(shipped.cls_head.weight, torch.load(MODELS / WEIGHTS_FILE)["cls_head.weight"])
    made = start_from(MODELS / "classifier.pt")  # a classifier's: made into a reader
    assert torch.equal(made.cls_head.weight, from_classifier(MODELS / "classifier.pt").cls_head.weight)
    assert start_from(None).cls_head.out_features == len(FLOWER_CLASSES)


def test_the_card_counts_every_reader_round():
    from training.model_card import _reader_rounds

    fr = {"train_minutes": 35.2, "steps": 900, "lr": 0.0005, "rounds": [{"train_minutes": 40.1, "steps": 1753, "lr": 0.0003}]}
    assert _reader_rounds(fr) == ("40 min (1753 steps of 64, lr 0.0003) from the classifier's weights, "
                                  "then 35 min (900 steps of 64, lr 0.0005) from its own")


def test_the_card_says_what_the_last_reader_round_started_from():
    from training.model_card import _round_start

    start = {"valid": {"tile": 0.936}, "held_out_style": {"tile": 0.695}, "seen_styles": {"tile": 0.707}}
    assert "tile: valid 93.6%, held-out style 69.5%, styles seen 70.7%." in _round_start({"round_start": start})
    assert _round_start({"before": start}) == ""  # a first round starts from the classifier: said in the table


def test_procedural_flowers_carry_their_sets_printed_numbers(monkeypatch):
    pytest.importorskip("torch")
    from tests.vision_support import flowers_print_numbers
    from training.train_flower_reader import procedural_flowers

    flowers_print_numbers(monkeypatch, True)  # one set in five would print names alone

    try:
        data = procedural_flowers(np.random.default_rng(3), sets=2, per_class=1)
    except OSError as e:  # no CJK font installed (make train-fonts)
        pytest.skip(str(e))
    assert data["crops"].shape == (16, FLOWER_STORE, FLOWER_STORE, 3)
    assert sorted(data["cls"].tolist()) == sorted(list(range(8)) * 2)
    seasons = data["num"][data["cls"] < 4]
    assert sorted(seasons.tolist()) == [0, 0, 1, 1, 2, 2, 3, 3]  # 春夏秋冬 print 1-4 in every set
    plants = data["cls"] >= 4
    assert set(data["num"][plants].tolist()) == {0, 1, 2, 3}
    held = procedural_flowers(np.random.default_rng(4), sets=1, per_class=1, held_out=True)
    assert len(held["cls"]) == 8


def test_adapt_tunes_the_reader_on_the_players_flowers_and_keeps_the_previous_one(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    import training.adapt_readers as adapt_readers
    from training.adapt_readers import WEIGHTS_FILE, adapt_reader
    from training.train_flower_reader import export_onnx, from_classifier, procedural_flowers

    try:
        data = procedural_flowers(np.random.default_rng(5), sets=1, per_class=2)
    except OSError as e:
        pytest.skip(str(e))
    net = from_classifier(MODELS / "classifier.pt")
    torch.save(net.state_dict(), tmp_path / WEIGHTS_FILE)
    export_onnx(net, tmp_path / READER_FILE)
    old_onnx = (tmp_path / READER_FILE).read_bytes()
    # a set whose pictures the reader must learn to name otherwise: every flower one class on
    cls = np.array(FLOWER_CLASSES)[(data["cls"] + 1) % 8]
    other = np.concatenate([cls, [5, 17]])  # two tiles that are no flowers: not the reader's
    crops = np.concatenate([data["crops"], data["crops"][:2]])
    report = adapt_reader(tmp_path, crops, other, [], None, steps=20, batch=8)
    assert report["flower_crops"] == 16 and report["held_out_by_photo"] is False and report["held_parts"] == 1
    assert report["new_accuracy"] > report["old_accuracy"] and report["installed"] is True
    assert (tmp_path / "previous" / READER_FILE).read_bytes() == old_onnx
    assert (tmp_path / READER_FILE).read_bytes() != old_onnx
    assert adapt_reader(tmp_path, crops[-2:], other[-2:], [], None) is None  # no flowers
    # the classifier's held photos: one holding no flower is no part to judge the reader on
    no_flower, half = np.arange(len(other)) >= 16, np.arange(len(other)) < 8
    steps, tune = [], adapt_readers.fine_tune
    monkeypatch.setattr(adapt_readers, "fine_tune", lambda *a, **k: steps.append(k["steps"]) or tune(*a, **k))
    judged = adapt_reader(tmp_path, crops, other, [no_flower, half], None, steps=4, install_if_better=False,
                          batch=8)
    assert judged["held_out_by_photo"] is True and judged["held_parts"] == 1 and judged["held_out_crops"] == 8
    assert judged["installed"] is False  # asked not to install
    assert steps == [2]  # the held check tunes half as long as an installed reader is tuned


class _FixedReader:
    """A stand-in flower reader giving the same probabilities to every crop."""

    def __init__(self, p_class, p_number):
        self.p_class, self.p_number = p_class, p_number

    def eval(self):
        return self

    def __call__(self, x):
        import torch

        n = len(x)
        return (torch.log(torch.tensor(self.p_class)).repeat(n, 1), None,
                torch.log(torch.tensor(self.p_number)).repeat(n, 1))


def test_a_readers_held_score_is_the_probability_of_reading_the_tile_right():
    pytest.importorskip("torch")
    from training.adapt_readers import held_reading
    from training.train_classifier import NO_NUMBER
    from vision.flowers import FLOWER_STORE

    # seasons hold 0.8 (spring 0.5), the plants 0.2; the number 1 is read at 0.7
    net = _FixedReader([0.5, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05], [0.7, 0.1, 0.1, 0.1])
    crops = np.zeros((2, FLOWER_STORE, FLOWER_STORE, 3), np.uint8)
    # a season printing 1: a season (0.8) and its number (0.7), whichever season; a plant
    # printing no number: its name (0.05)
    r = held_reading(net, crops, np.array([1, 5]), np.array([0, NO_NUMBER]), copies=2)
    assert r["looks"] == 4 and r["right"] == 2
    assert r["p_right"] == pytest.approx(2 * (0.8 * 0.7 + 0.05), abs=1e-5)


def test_reader_rehearsal_reaches_the_flowers_the_players_photos_lack():
    torch = pytest.importorskip("torch")
    from training.adapt_readers import fine_tune
    from training.train_flower_reader import from_classifier, procedural_flowers

    try:
        data = procedural_flowers(np.random.default_rng(6), sets=1, per_class=2)
    except OSError as e:
        pytest.skip(str(e))
    own = data["cls"] == 0  # the player showed spring only
    torch.manual_seed(0)
    start = from_classifier(None).state_dict()
    moved = {}
    for name, replay in (("rehearsed", (data["crops"], data["cls"], data["num"])), ("alone", None)):
        net = from_classifier(None)
        net.load_state_dict(start)
        fine_tune(net, data["crops"][own], data["cls"][own], data["num"][own], steps=3, batch=8, replay=replay)
        moved[name] = float((net.state_dict()["cls_head.weight"][5] - start["cls_head.weight"][5]).abs().sum())
    # alone, one class's masked loss is nothing and only weight decay moves orchid's row
    assert moved["rehearsed"] > 10 * moved["alone"]


def test_scaled_grows_or_shrinks_a_box_about_its_centre():
    assert scaled([10, 20, 30, 60], 1.5) == [5.0, 10.0, 35.0, 70.0]
    assert scaled([10, 20, 30, 60], 0.5) == [15.0, 30.0, 25.0, 50.0]


class ReadsTheFrame:
    """A session stand-in whose reading is the share of the crop's centre line that is light:
    a tighter box's crop is more of the (light) tile, a looser one more of the (dark) table."""

    def __init__(self):
        self.batches = []

    def run(self, names, feeds):
        x = feeds["image"]
        self.batches.append(len(x))
        light = (x[:, 0, FLOWER_INPUT // 2] > 0.5).mean(1)
        p = np.stack([light, 1 - light] + [np.zeros_like(light)] * 6, 1).astype(np.float32)
        return [p, np.full((len(x), 4), 0.25, np.float32)]


def test_read_rows_averages_the_box_scales_and_looks():
    image = np.zeros((200, 300, 3), np.uint8)
    image[50:150, 100:180] = 230  # a light tile on a dark table
    boxes, turned = [[100, 50, 180, 150], [0, 0, 10, 10]], [False, False]
    rows = np.array([True, False])
    settings = {"store": FLOWER_STORE, "input": FLOWER_INPUT}

    def read(scales, light_ink=False, **more):
        session = ReadsTheFrame()
        p = read_rows(session, ["p_cls", "p_num"], image, boxes, turned, rows, {**settings, "scales": scales, **more},
                      light_ink)[0]
        return p, session.batches

    p_one, batches = read([1.0])
    assert batches == [1] and p_one.shape == (1, 8)
    tight, loose = read([0.7])[0], read([1.3])[0]
    assert tight[0, 0] > p_one[0, 0] > loose[0, 0]  # the tighter box sees more tile
    p_three, batches = read([1.0, 0.7, 1.3], True, both_looks=True)
    assert batches == [2, 4]  # the first scale in both looks, then the other two in both
    dark = [read([s], True)[0] for s in (1.0, 0.7, 1.3)]  # without both_looks: dark ink alone
    assert p_three == pytest.approx((p_one + tight + loose + sum(dark)) / 6)
    # a reading as sure as scales_below or more is not read again
    sure, batches = read([1.0, 0.7, 1.3], scales_below=0.5)
    assert batches == [1] and sure == pytest.approx(p_one)
