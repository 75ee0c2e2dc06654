"""The group readers (vision/group_readers.py: the character reader, 萬, the suit reader, 筒
and 條, and the honour reader, winds, 中 and 發): which crops they read, how a reading joins the classifier's, their training data
(training/train_group_reader.py) and their adapt (training/adapt_readers.py)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.vision_support import probs
from vision.classes import CHARACTER_CLASSES, HONOUR_CLASSES, SUIT_CLASSES
from vision.flowers import FLOWER_INPUT, FLOWER_STORE
from vision.group_readers import READERS, GroupReader, reader_file, reader_settings

MODELS = Path(__file__).resolve().parent.parent / "models"
READER_FILE = reader_file("character_reader")


def CharacterReader(session, settings=None):  # noqa: N802: the character reader, as the recognizer makes it
    return GroupReader(session, CHARACTER_CLASSES, settings)


class FakeSession:
    """An ONNX session stand-in that says every crop is one class of its group (二萬 of the 萬
    unless told), and records its inputs."""

    def __init__(self, group=CHARACTER_CLASSES, says: int = 1):
        self.inputs = []
        self.answer = np.eye(len(group), dtype=np.float32)[list(group).index(says)]

    def run(self, names, feeds):
        assert names == ["p_cls"]
        self.inputs.append(feeds["image"])
        return [np.tile(self.answer, (len(feeds["image"]), 1))]


def test_refine_reads_only_the_wan_group_and_keeps_its_total():
    image = np.full((300, 400, 3), 200, np.uint8)
    boxes = np.array([[10, 10, 60, 80], [100, 10, 150, 80], [200, 10, 280, 60]], np.float32)
    # a 三萬 the classifier is unsure of, a 5筒, a 萬 in the group by only 0.4, and a sure 四萬
    boxes = np.concatenate([boxes, [[300, 100, 350, 170]]]).astype(np.float32)
    p_cls = probs([{2: 0.5, 1: 0.3, 11: 0.2}, {13: 1.0}, {2: 0.4, 40: 0.6}, {3: 0.95, 1: 0.05}])
    session = FakeSession()
    out = CharacterReader(session).refine(image, boxes, [False, False, True, False], p_cls)
    assert len(session.inputs) == 1 and session.inputs[0].shape == (1, 3, FLOWER_INPUT, FLOWER_INPUT)
    assert out[0, 1] == pytest.approx(0.8 * (0.5 * 0.3 / 0.8 + 0.5)) and out.argmax(1).tolist() == [1, 13, 40, 3]
    assert out[0, CHARACTER_CLASSES].sum() == pytest.approx(0.8) and out[0, 11] == pytest.approx(0.2)
    assert np.array_equal(out[1:], p_cls[1:])  # not read: untouched
    assert p_cls[0, 2] == pytest.approx(0.5)  # the input is not changed
    none = FakeSession()
    same = CharacterReader(none, {"weight": 1.0}).refine(image, boxes, [False] * 4, probs([{13: 1.0}] * 4))
    assert none.inputs == [] and np.array_equal(same, probs([{13: 1.0}] * 4))
    every = FakeSession()  # below 1.01: every crop of the group is read, the sure one too
    out = CharacterReader(every, {"below": 1.01}).refine(image, boxes, [False] * 4, p_cls)
    assert every.inputs[0].shape[0] == 2 and out.argmax(1).tolist() == [1, 13, 40, 1]


def test_the_suit_reader_reads_only_the_circles_and_sticks_group():
    image = np.full((200, 300, 3), 200, np.uint8)
    boxes = np.array([[10, 10, 60, 80], [100, 10, 150, 80], [200, 10, 250, 80]], np.float32)
    # a 6條 read 4條, a 二萬 the classifier is unsure of, a 7筒 with 夏 beside it
    p_cls = probs([{21: 0.6, 23: 0.3, 13: 0.1}, {1: 0.6, 2: 0.4}, {15: 0.55, 35: 0.45}])
    session = FakeSession(SUIT_CLASSES, says=23)  # 6條
    out = GroupReader(session, SUIT_CLASSES).refine(image, boxes, [False] * 3, p_cls)
    assert len(session.inputs) == 1 and len(session.inputs[0]) == 2  # the 條 and the 筒, not the 萬
    assert out.argmax(1).tolist() == [23, 1, 15]
    assert out[0, 23] == pytest.approx(0.5 * 0.3 + 0.5)  # half the classifier's share, half the reader's
    # the group keeps the classifier's 0.55 of the 7筒, now shared with 6條 (0.275 each), which would
    # leave 夏 (0.45) on top: the tile stays in the group the classifier put it in, 7筒 and 夏 swap shares
    assert out[2, 15] == pytest.approx(0.45) and out[2, 23] == pytest.approx(0.275)
    assert out[2, 35] == pytest.approx(0.275)
    assert np.array_equal(out[1], p_cls[1])


def test_the_honour_reader_reads_only_the_winds_and_dragons_but_white():
    image = np.full((200, 400, 3), 200, np.uint8)
    boxes = np.array([[10, 10, 60, 80], [100, 10, 150, 80], [200, 10, 250, 80], [300, 10, 350, 80]], np.float32)
    # a 東 read 中, a 白板 the classifier is unsure of, a 二萬, a sure 南
    p_cls = probs([{31: 0.6, 27: 0.4}, {33: 0.7, 31: 0.3}, {1: 0.6, 2: 0.4}, {28: 0.95, 27: 0.05}])
    session = FakeSession(HONOUR_CLASSES, says=27)  # 東
    out = GroupReader(session, HONOUR_CLASSES).refine(image, boxes, [False] * 4, p_cls)
    assert HONOUR_CLASSES == (27, 28, 29, 30, 31, 32)  # 白板 is a blank face: vision/blanks.py judges it
    assert len(session.inputs) == 1 and len(session.inputs[0]) == 1  # the 東 alone
    assert out.argmax(1).tolist() == [27, 33, 1, 28] and out[0, 27] == pytest.approx(0.5 * 0.4 + 0.5)
    assert np.array_equal(out[1:], p_cls[1:])


def test_weight_one_is_the_readers_reading_alone():
    image = np.full((120, 120, 3), 230, np.uint8)
    out = CharacterReader(FakeSession(), {"weight": 1.0}).refine(image, [[10, 10, 60, 90]], [False],
                                                                  probs([{2: 0.8, 1: 0.2}]))
    assert out[0, 1] == pytest.approx(1.0) and out[0, 2] == 0


def test_recognizer_uses_a_character_reader_beside_its_models_and_can_be_told_not_to(models_with_reader):
    pytest.importorskip("torch")
    from training.train_group_reader import export_onnx, start_from
    from vision.model import Recognizer

    tmp_path = models_with_reader(READER_FILE, start_from(MODELS / "classifier.pt"), export_onnx)
    rec = Recognizer(tmp_path, threads=1)
    assert list(rec.group_readers) == ["character_reader"]  # the folder has no suit reader
    session = FakeSession()
    rec.group_readers["character_reader"].session = session
    # the classifier leaning 三萬 over 二萬: the reader's sure 二萬 decides at the default weight
    rec._classify = lambda crops: (probs([{2: 0.55, 1: 0.45}] * len(crops)), np.eye(4, dtype=np.float32)[[0] * len(crops)],
                                   np.full((len(crops), 4), 0.25, np.float32))
    rec.detect_with_aspect = lambda img: (np.array([[10, 10, 80, 110]], np.float32), np.array([0.9], np.float32), 1.0)
    tiles = rec.recognize(np.full((400, 600, 3), 90, np.uint8))
    assert [t["cls"] for t in tiles] == [1] and len(session.inputs) == 1
    config = json.loads((tmp_path / "recognizer.json").read_text())
    config["inference"]["character_reader"] = None
    (tmp_path / "recognizer.json").write_text(json.dumps(config))
    assert Recognizer(tmp_path, threads=1).group_readers == {}


def test_the_shipped_models_include_the_character_reader():
    from vision.model import Recognizer

    assert (MODELS / READER_FILE).exists() and "character_reader" in Recognizer(MODELS, threads=1).group_readers


@pytest.mark.parametrize("name", list(READERS))
def test_the_exported_reader_gives_probabilities(tmp_path, name):
    pytest.importorskip("torch")
    import onnxruntime as ort

    from training.train_group_reader import export_onnx, start_from

    path = tmp_path / reader_file(name)
    export_onnx(start_from(None, name), path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (p,) = session.run(["p_cls"], {"image": np.random.default_rng(0).random(
        (2, 3, FLOWER_INPUT, FLOWER_INPUT), dtype=np.float32)})
    assert p.shape == (2, len(READERS[name]["classes"])) and np.allclose(p.sum(1), 1, atol=1e-5)


@pytest.mark.parametrize("name, size", [("character_reader", 9), ("suit_reader", 18), ("honour_reader", 6)])
def test_start_from_takes_the_classifiers_group_rows_or_a_readers_own_weights(tmp_path, name, size):
    torch = pytest.importorskip("torch")
    from training.cls_net import first_member
    from training.train_group_reader import start_from, weights_file

    made = start_from(MODELS / "classifier.pt", name)
    source = first_member(MODELS / "classifier.pt")
    assert torch.equal(made.cls_head.weight, source.cls_head.weight[list(READERS[name]["classes"])])
    torch.save(made.state_dict(), tmp_path / weights_file(name))
    again = start_from(tmp_path / weights_file(name), name)  # a reader's state: loaded as it is
    assert torch.equal(again.cls_head.weight, made.cls_head.weight)
    assert start_from(None, name).cls_head.out_features == size


def test_real_crops_of_a_group_are_taken_from_a_crop_cache():
    pytest.importorskip("torch")
    from training.train_group_reader import real_group

    cache = {"crops": np.zeros((5, 96, 96, 3), np.uint8), "cls": np.array([0, 8, 9, 40, 26])}
    data = real_group(cache, CHARACTER_CLASSES)
    assert data["crops"].shape == (2, FLOWER_STORE, FLOWER_STORE, 3) and data["cls"].tolist() == [0, 8]
    assert real_group(cache, SUIT_CLASSES)["cls"].tolist() == [0, 17]  # 1筒 and 9條: first and last
    assert len(real_group({"crops": cache["crops"][3:4], "cls": cache["cls"][3:4]}, CHARACTER_CLASSES)["cls"]) == 0


def test_a_real_crops_view_can_have_its_corners_painted_over():
    pytest.importorskip("torch")
    from training.train_group_reader import reader_view

    crop = np.full((FLOWER_STORE, FLOWER_STORE, 3), 240, np.uint8)
    crop[20:40, 20:40] = 0  # ink in the top left corner of the face, where HK sets print an index
    crop[45:70, 45:70] = 0  # and the numeral in the middle
    plain = [reader_view(crop, np.random.default_rng(s)) for s in range(6)]
    erased = [reader_view(crop, np.random.default_rng(s), erase=True) for s in range(6)]
    assert all(x.shape == (3, FLOWER_INPUT, FLOWER_INPUT) for x in plain + erased)
    dark = lambda xs: np.mean([(x < 100).mean() for x in xs])  # noqa: E731
    assert dark(erased) < dark(plain)  # some of the corner's ink is gone
    assert all((x[:, 40:56, 40:56] < 100).mean() > 0.5 for x in erased)  # the middle is never painted


@pytest.mark.parametrize("classes", [CHARACTER_CLASSES, SUIT_CLASSES])
def test_procedural_crops_are_of_every_tile_of_the_group(classes):
    pytest.importorskip("torch")
    from training.train_group_reader import procedural_crops

    try:
        data = procedural_crops(np.random.default_rng(3), 1, 2, classes)
    except OSError as e:  # no CJK font installed (make train-fonts)
        pytest.skip(str(e))
    n = len(classes)
    assert data["crops"].shape == (2 * n, FLOWER_STORE, FLOWER_STORE, 3)
    assert sorted(data["cls"].tolist()) == sorted(list(range(n)) * 2)
    assert len(procedural_crops(np.random.default_rng(4), 1, 1, classes, held_out=True)["cls"]) == n


@pytest.mark.parametrize("name", list(READERS))
def test_adapt_tunes_a_group_reader_on_the_players_tiles_and_keeps_the_previous_one(tmp_path, name):
    torch = pytest.importorskip("torch")
    from training.adapt_readers import GROUPS, adapt_reader
    from training.train_group_reader import export_onnx, procedural_crops, start_from, weights_file

    kind = next(k for k in GROUPS if k.onnx_file == reader_file(name))
    classes = np.array(READERS[name]["classes"])
    try:
        data = procedural_crops(np.random.default_rng(5), 1, 2, classes)
    except OSError as e:
        pytest.skip(str(e))
    net = start_from(MODELS / "classifier.pt", name)
    torch.save(net.state_dict(), tmp_path / weights_file(name))
    export_onnx(net, tmp_path / reader_file(name))
    old_onnx = (tmp_path / reader_file(name)).read_bytes()
    # a set the reader must learn to read otherwise: every tile read as the next of its group
    cls = classes[(data["cls"] + 1) % len(classes)]
    other = np.concatenate([cls, [40, 42]])  # a 菊 and a face-down tile: not the reader's
    crops = np.concatenate([data["crops"], data["crops"][:2]])
    numbers = np.array([0] * len(cls) + [3, 0])  # a flower's printed number means nothing here
    report = adapt_reader(tmp_path, crops, other, [], numbers, steps=20, kind=kind, batch=8)
    assert report[f"{kind.name}_crops"] == 2 * len(classes) and report["held_out_by_photo"] is False
    assert report["new_accuracy"] > report["old_accuracy"] and report["installed"] is True
    assert (tmp_path / "previous" / reader_file(name)).read_bytes() == old_onnx
    assert (tmp_path / reader_file(name)).read_bytes() != old_onnx
    assert adapt_reader(tmp_path, crops[-2:], other[-2:], [], None, kind=kind) is None


def test_the_card_describes_the_reader_and_its_figures():
    from training.model_card import _group_rows, _group_sections

    assert _group_rows({}) == "" and _group_sections({}) == ""
    cr = {"valid": {"right": 0.99, "crops": 1500}, "held_out_style": {"right": 0.995, "crops": 288},
          "seen_styles": {"right": 1.0, "crops": 288}, "train_minutes": 25.0, "steps": 2400, "lr": 0.0003,
          "store": 112, "input": 96, "real_train_crops": 6254, "real_share": 0.3, "corner_erase_share": 0.8,
          "pipeline": [{"name": "pink", "char_before": "95.3%", "char_after": "97.7%", "tiles_before": "98.9%",
                        "tiles_after": "99.2%", "exact_before": "42.9%", "exact_after": "50.0%",
                        "all_before": "80.0%", "all_after": "85.7%"}]}
    text = _group_sections({"character_reader": cr})
    assert "| 99.0% (1500) | 99.5% (288) | 100.0% (288) |" in text
    assert "| pink | 95.3% -> 97.7% | 98.9% -> 99.2% | 42.9% -> 50.0% | 80.0% -> 85.7% |" in text
    assert "70% of each batch" in text and "80% of them" in text
    rows = _group_rows({"character_reader": cr, "character_reader_mb": 4.2})
    assert "`character_reader.onnx`" in rows and "萬 group" in rows and "suit_reader" not in rows
    both = _group_rows({"character_reader": cr, "suit_reader": cr, "suit_reader_mb": 4.2})
    assert both.count("\n") == 2 and "`suit_reader.onnx` | the classifier's network with 18 classes" in both
    assert "further round" not in text
    later = {**cr, "rounds": [{"date": "2026-12-05", "train_minutes": 30.0, "steps": 2580, "lr": 0.00015,
                               "data": "red fives added.", "valid": {"right": 0.992, "crops": 1500}}]}
    more = _group_sections({"character_reader": later})
    assert ("Then a further round (2026-12-05), from the reader's own weights: 30 min (2580 steps of 64, "
            "lr 0.00015), red fives added. The reader alone after it: valid split 99.2% (1500);") in more


# Photos each shipped reader mends: the fixture, its labelled tiles, and the one confusion left
# without the reader. The pink session's (a real set never trained on) 5條 read 7筒 (IMG_2767, once
# its fixture) is read right by the classifier alone since its red-five member, and no
# real photo is left that the suit reader mends; a drawn red 5條 of the held-out style is.
MENDED = [("character_reader", "vision-brush-seven-wan", 14, "7m", "5m"),  # a brush 七萬 read 伍萬, IMG_2751
          ("suit_reader", "vision-red-five-sticks", 26, "5s", "7p"),  # a red 5條 read 7筒, drawn
          ("honour_reader", "vision-honour-reader", 3, "east", "red")]  # a light-ink 東 close up read 中, drawn


@pytest.mark.parametrize("reader, fixture, labelled, true, predicted", MENDED)
def test_a_shipped_reader_reads_a_real_tile_the_classifier_misreads(shipped_models_with, reader, fixture, labelled,
                                                                   true, predicted):
    from training.evaluate import evaluate
    from vision.model import Recognizer

    photo = Path(__file__).resolve().parent / "fixtures" / fixture
    with_it = evaluate(photo, Recognizer(MODELS), progress=False)
    assert with_it["tiles_right"] == 1.0 and with_it["labelled_tiles"] == labelled
    without = evaluate(photo, Recognizer(shipped_models_with(reader, None)), progress=False)
    assert without["confusions"] == [{"true": true, "predicted": predicted, "count": 1}]


def test_the_suit_readers_share_lets_its_reading_of_a_drawn_six_sticks_decide(shipped_models_with):
    # A red-bodied 6條 (tests/fixtures/vision-suit-reader-share) the classifier reads 4條 and the
    # suit reader 6條: averaged at 0.5 the classifier's answer stood, at the shipped 0.6 the reader's.
    from training.evaluate import evaluate
    from vision.model import Recognizer

    assert json.loads((MODELS / "recognizer.json").read_text())["inference"]["suit_reader"] == \
        reader_settings("suit_reader")
    photo = Path(__file__).resolve().parent / "fixtures" / "vision-suit-reader-share"
    shipped = evaluate(photo, Recognizer(MODELS), progress=False)
    assert shipped["labelled_tiles"] == 6 and shipped["tiles_right"] == 1.0
    even = evaluate(photo, Recognizer(shipped_models_with("suit_reader", {**reader_settings("suit_reader"),
                                                                         "weight": 0.5})), progress=False)
    assert even["confusions"] == [{"true": "6s", "predicted": "4s", "count": 1}]


def test_reader_settings_are_the_defaults_but_where_a_reader_says():
    from vision.group_readers import DEFAULTS

    assert reader_settings("character_reader") == DEFAULTS
    assert reader_settings("suit_reader") == {**DEFAULTS, "weight": 0.6}
    assert reader_settings("honour_reader") == DEFAULTS


def test_a_readers_unsure_reading_keeps_the_classifiers_group_on_a_real_photo():
    # A 1萬 the classifier puts mostly among the 萬 (1萬 0.42 over 中 0.33): the character reader,
    # unsure, once spread that mass so that 中 came out on top (vision/flowers.py merge).
    from training.evaluate import evaluate
    from vision.model import Recognizer

    recognizer = Recognizer(MODELS)
    reader = recognizer.group_readers["character_reader"]
    runs = []
    session = reader.session

    class Counting:
        def run(self, names, feeds):
            runs.append(len(feeds["image"]))
            return session.run(names, feeds)

    reader.session = Counting()
    out = evaluate(Path(__file__).resolve().parent / "fixtures" / "vision-wan-not-red", recognizer, progress=False)
    assert runs, "the character reader read none of the photo's tiles"
    assert out["labelled_tiles"] == 9 and out["tiles_right"] == 1.0 and out["confusions"] == []


def test_the_shipped_models_include_every_group_reader():
    from vision.model import Recognizer

    assert list(Recognizer(MODELS, threads=1).group_readers) == ["character_reader", "suit_reader", "honour_reader"]
    config = json.loads((MODELS / "recognizer.json").read_text())["inference"]
    assert all(config[name] == reader_settings(name) for name in READERS)  # as make train writes them


def test_a_light_ink_sets_crops_are_read_in_both_looks_unless_told_otherwise():
    image = np.full((120, 120, 3), 40, np.uint8)
    image[20:90, 30:80] = 220  # light ink on a dark body
    p_cls = probs([{2: 0.6, 1: 0.4}])
    both, one, plain = FakeSession(), FakeSession(), FakeSession()
    CharacterReader(both).refine(image, [[20, 10, 90, 100]], [False], p_cls, light_ink=True)
    CharacterReader(one, {"both_looks": False}).refine(image, [[20, 10, 90, 100]], [False], p_cls, light_ink=True)
    CharacterReader(plain).refine(image, [[20, 10, 90, 100]], [False], p_cls, light_ink=False)
    # one run each; both looks go in one batch, as photographed first
    assert [len(s.inputs) for s in (both, one, plain)] == [1, 1, 1]
    assert [len(s.inputs[0]) for s in (both, one, plain)] == [2, 1, 1]
    assert np.array_equal(both.inputs[0][:1], plain.inputs[0]) and np.array_equal(both.inputs[0][1:], one.inputs[0])
    assert not np.array_equal(both.inputs[0][0], both.inputs[0][1])  # as photographed, and as dark ink


def test_the_shipped_suit_reader_reads_red_fives_of_a_style_it_never_saw():
    """Red 5筒 and 5條 (aka dora) drawn in the held-out style, crops at the tile, read by the shipped
    suit_reader.onnx alone: before its red-five round (2026-12-05) it read 73% of them right,
    taking most red 5筒 for 6筒; plain fives of the same sets 100% either way."""
    import onnxruntime as ort
    from training import procedural
    from training.train_group_reader import procedural_crops
    from vision.crops import to_input

    fives = [c for c in SUIT_CLASSES if c in procedural.RED_FIVES]
    data = procedural_crops(np.random.default_rng(8), 6, 4, fives, held_out=True, red_share=1.0)
    x = np.stack([to_input(c, out=FLOWER_INPUT) for c in data["crops"]]).transpose(0, 3, 1, 2).astype(np.float32) / 255
    session = ort.InferenceSession(str(MODELS / reader_file("suit_reader")), providers=["CPUExecutionProvider"])
    read = np.asarray(SUIT_CLASSES)[session.run(["p_cls"], {"image": x})[0].argmax(1)]
    want = np.asarray(fives)[data["cls"]]
    assert len(want) == 48 and np.mean(read == want) >= 0.95


def test_the_shipped_character_reader_reads_squat_numerals_of_a_style_it_never_saw(monkeypatch):
    """萬 of the held-out style with every numeral pressed to half its height (as xmahjongg's
    scanned real set writes its 四), crops at the tile, read by the shipped character_reader.onnx
    alone: the reader before its squat round (2026-12-05) read 86% of them right, the two rounds
    read together 97%."""
    import onnxruntime as ort
    from training import procedural
    from training.train_group_reader import procedural_crops
    from vision.crops import to_input

    style = procedural.random_style
    monkeypatch.setattr(procedural, "random_style", lambda rng, held_out=False: {**style(rng, held_out),
                                                                                  "numeral_height": 0.5, "four": "glyph"})
    data = procedural_crops(np.random.default_rng(8), 6, 2, CHARACTER_CLASSES, held_out=True, red_share=0.0)
    x = np.stack([to_input(c, out=FLOWER_INPUT) for c in data["crops"]]).transpose(0, 3, 1, 2).astype(np.float32) / 255
    session = ort.InferenceSession(str(MODELS / READER_FILE), providers=["CPUExecutionProvider"])
    read = session.run(["p_cls"], {"image": x})[0].argmax(1)
    assert len(read) == 108 and np.mean(read == data["cls"]) >= 0.95


def test_the_shipped_character_reader_reads_the_old_running_four_of_a_style_it_never_saw(monkeypatch):
    """四萬 of the held-out style written as a flat loop (procedural.loop_four), crops at the tile,
    read by the shipped character_reader.onnx alone; the other 萬 of those sets stay read right."""
    import onnxruntime as ort
    from training import procedural
    from training.train_group_reader import procedural_crops
    from vision.crops import to_input

    style = procedural.random_style
    monkeypatch.setattr(procedural, "random_style", lambda rng, held_out=False: {**style(rng, held_out), "four": "loop"})
    data = procedural_crops(np.random.default_rng(9), 6, 2, CHARACTER_CLASSES, held_out=True, red_share=0.0)
    x = np.stack([to_input(c, out=FLOWER_INPUT) for c in data["crops"]]).transpose(0, 3, 1, 2).astype(np.float32) / 255
    session = ort.InferenceSession(str(MODELS / READER_FILE), providers=["CPUExecutionProvider"])
    read = session.run(["p_cls"], {"image": x})[0].argmax(1)
    four = data["cls"] == CHARACTER_CLASSES.index(3)
    assert four.sum() == 12 and np.all(read[four] == data["cls"][four])
    assert np.mean(read == data["cls"]) >= 0.95


def test_a_reader_read_as_rounds_together_starts_a_further_round_as_they_are(tmp_path):
    torch = pytest.importorskip("torch")
    from training.cls_net import TileEnsemble
    from training.train_group_reader import start_from, weights_file

    rounds = TileEnsemble([start_from(None, "honour_reader"), start_from(None, "honour_reader")]).eval()
    torch.save(rounds.state_dict(), tmp_path / weights_file("honour_reader"))
    again = start_from(tmp_path / weights_file("honour_reader"), "honour_reader").eval()
    x = torch.rand(2, 3, FLOWER_INPUT, FLOWER_INPUT)
    assert isinstance(again, TileEnsemble) and len(again.members) == 2
    assert torch.allclose(again(x)[0], rounds(x)[0])
    # the shipped reader: one round again since its third (2026-12-05) replaced the pair read together
    shipped = start_from(MODELS / weights_file("character_reader"), "character_reader")
    assert not isinstance(shipped, TileEnsemble) and shipped.cls_head.out_features == 9
