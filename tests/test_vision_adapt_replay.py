"""adapt's rehearsal tiles: the player's look read off their crops, every class drawn in it."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("PIL")

from training import procedural  # noqa: E402
from training.adapt_replay import player_look, replay_for, replay_tiles  # noqa: E402
from tests.vision_support import flowers_print_numbers  # noqa: E402
from vision.crops import CROP_STORE, face, to_input  # noqa: E402

fonts = pytest.mark.skipif(not procedural.font_families(), reason="no CJK font of training/fonts.json installed")


def _crop(ground, ink, seed):
    """A stored crop of a plain tile face in ground colour with a few strokes of ink."""
    rng = np.random.default_rng(seed)
    crop = np.full((CROP_STORE, CROP_STORE, 3), ground, np.uint8)
    for _ in range(3):
        x, y = rng.integers(30, 60, 2)
        crop[y:y + 14, x:x + 4] = ink
    return crop


def test_the_look_is_the_faces_ground_and_its_ink_on_either_polarity():
    red, white = (40, 40, 180), (240, 240, 240)
    look = player_look(np.stack([_crop(red, white, s) for s in range(5)]), light_ink=True)
    assert np.allclose(look["ground"], red, atol=3) and np.allclose(look["ink"], white, atol=3)
    assert look["light_ink"] is True
    ivory, blue = (200, 230, 240), (150, 60, 20)
    look = player_look(np.stack([_crop(ivory, blue, s) for s in range(5)]), light_ink=False)
    assert np.allclose(look["ground"], ivory, atol=3) and np.allclose(look["ink"], blue, atol=3)


@fonts
def test_rehearsal_draws_every_class_on_the_players_ground_with_the_numbers_printed(monkeypatch):
    look = {"ground": [40, 40, 180], "ink": [240, 240, 240], "light_ink": False}
    flowers_print_numbers(monkeypatch, False)  # a set that prints names alone: no number known
    assert (replay_tiles(look, seed=0, sets=1, per_class=1)["numbers"] == 0).all()
    flowers_print_numbers(monkeypatch, True)
    tiles = replay_tiles(look, seed=0, sets=2, per_class=1)
    assert tiles["crops"].shape == (84, CROP_STORE, CROP_STORE, 3)
    assert tiles["cls"].tolist() == list(range(42)) * 2
    flowers = tiles["cls"] >= 34
    assert (tiles["numbers"][~flowers] == 0).all()
    assert set(tiles["numbers"][flowers].tolist()) == {1, 2, 3, 4}
    seasons = (tiles["cls"] >= 34) & (tiles["cls"] <= 37)
    assert (tiles["numbers"][seasons] == tiles["cls"][seasons] - 33).all()  # 春夏秋冬 print 1-4
    # the faces lie on the red ground (light ink drawn as such: no dark-ink second look here)
    middle = np.median([np.median(face(c).reshape(-1, 3), axis=0) for c in tiles["crops"]], axis=0)
    assert middle[2] > middle[0] + 60, middle


@fonts
def test_a_light_ink_set_is_rehearsed_in_both_looks():
    look = {"ground": [40, 40, 180], "ink": [240, 240, 240], "light_ink": True}
    crops = replay_tiles(look, seed=0, sets=1, per_class=4)["crops"]
    grey = np.array([np.ptp(c.reshape(-1, 3).astype(int), axis=1).mean() for c in crops])
    # dark_ink turns a crop grey (no colour spread between its channels), the other half stays red
    assert 0.2 < (grey < 1).mean() < 0.8


def test_without_fonts_adapt_goes_on_without_rehearsal_and_says_why(monkeypatch):
    monkeypatch.setattr(procedural, "font_families", lambda: {})
    crops = np.stack([_crop((200, 230, 240), (20, 20, 20), s) for s in range(3)])
    tiles, report = replay_for(crops, False, seed=0)
    assert tiles is None
    assert "make train-fonts" in report["skipped"] and report["look"]["light_ink"] is False


@fonts
def test_rehearsal_with_some_fonts_missing_says_so(monkeypatch, few_rehearsal_sets):
    crops = np.stack([_crop((200, 230, 240), (20, 20, 20), s) for s in range(3)])
    monkeypatch.setattr(procedural, "missing_font_files", lambda: ["/usr/share/fonts/gone.ttf"])
    tiles, report = replay_for(crops, False, seed=0)
    assert tiles is not None and report["fonts_missing"] == 1 and "make train-fonts" in report["note"]
    monkeypatch.setattr(procedural, "missing_font_files", lambda: [])
    assert "fonts_missing" not in replay_for(crops, False, seed=0)[1]


@fonts
def test_fine_tuning_with_rehearsal_keeps_a_class_the_players_crops_lack():
    """Own crops of one class only: the rehearsal's loss must still reach the other classes' logits
    (without it, the masked loss leaves them to drift)."""
    import torch

    from training.adapt import fine_tune
    from training.cls_net import TileNet

    look = {"ground": [230, 240, 245], "ink": [30, 30, 30], "light_ink": False}
    replay = replay_tiles(look, seed=0, sets=1, per_class=2, classes=(0, 9))
    own = np.stack([_crop((230, 240, 245), (30, 30, 30), s) for s in range(4)])
    torch.manual_seed(0)
    net = TileNet()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    fine_tune(net, own, np.zeros(4, np.int64), epochs=1, steps_per_epoch=2, batch=8, replay=replay)
    head = "cls_head.weight"
    # the row of class 9 (absent from the own crops) moved: only the rehearsal can have moved it
    assert not torch.allclose(net.state_dict()[head][9], before[head][9])
    net2 = TileNet()
    net2.load_state_dict(before)
    fine_tune(net2, own, np.zeros(4, np.int64), epochs=1, steps_per_epoch=2, batch=8)
    # weight decay moves every row a little; the rehearsal moves row 9 far more
    moved = (net.state_dict()[head][9] - before[head][9]).abs().sum()
    decayed = (net2.state_dict()[head][9] - before[head][9]).abs().sum()
    assert moved > 10 * decayed


@fonts
def test_rehearsal_never_draws_a_blank_white_dragon():
    from training.adapt_replay import look_style

    rng = np.random.default_rng(0)
    look = {"ground": [200, 230, 240], "ink": [30, 30, 30], "light_ink": False}
    assert {look_style(look, rng)["white"] for _ in range(40)} <= {"frame", "corners", "lattice"}  # never "blank"


def test_rehearsed_class_loss_masks_the_players_rows_and_weighs_each_part_by_its_rows():
    import torch
    from torch.nn import functional as F

    from training.adapt_replay import rehearsed_class_loss

    logits = torch.tensor([[2.0, 0.0, 5.0], [0.0, 1.0, 5.0], [0.0, 0.0, 3.0]])
    own, present = np.array([0, 1]), np.array([0, 1])  # the player showed classes 0 and 1
    masked = F.cross_entropy(logits[:2, :2], torch.tensor([0, 1]), label_smoothing=0.05)
    assert torch.isclose(rehearsed_class_loss(logits[:2], own, present), masked)  # class 2 never counts
    full = F.cross_entropy(logits[2:], torch.tensor([2]), label_smoothing=0.05)
    assert torch.isclose(rehearsed_class_loss(logits, own, present, np.array([2])), (2 * masked + full) / 3)


@pytest.mark.parametrize("layout", ["channels_last", "contiguous_format"])
def test_fine_tuning_in_either_layout_learns_the_same_and_gives_back_the_default_one(monkeypatch, layout):
    """adapt tunes the classifier channels-last where that is faster (training/adapt.TUNE_LAYOUT):
    the steps learn what the default layout's learn, and the net comes back in the default
    layout, as export and saving expect."""
    import torch

    from training import adapt
    from training.cls_net import TileNet

    own = np.stack([_crop((230, 240, 245), (30, 30, 30), s) for s in range(4)])
    torch.manual_seed(0)
    start = TileNet().state_dict()
    tuned = {}
    for name in ("contiguous_format", layout):
        monkeypatch.setattr(adapt, "TUNE_LAYOUT", getattr(torch, name))
        net = TileNet()
        net.load_state_dict(start)
        tuned[name] = adapt.fine_tune(net, own, np.array([0, 0, 1, 1]), epochs=1, steps_per_epoch=3, batch=8)
    weights = [p for p in tuned[layout].parameters() if p.dim() == 4]
    assert weights and all(p.is_contiguous() for p in weights)
    # AdamW turns float noise in a gradient into up to a step's worth of weight: compare what the
    # nets read, against how far the steps moved it
    x = torch.from_numpy(np.stack([to_input(c) for c in own]).transpose(0, 3, 1, 2).copy()).float() / 255
    fresh = TileNet().eval()
    fresh.load_state_dict(start)
    with torch.no_grad():
        read = {name: net(x)[0] for name, net in tuned.items()}
        moved = (read["contiguous_format"] - fresh(x)[0]).abs().max()
    assert (read[layout] - read["contiguous_format"]).abs().max() < 0.1 * moved
