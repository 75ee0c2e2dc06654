"""A photo shows one set: the recognizer reads no tile more often than a set holds it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import HandError
from engine.tiles import check_copies, parse_tile
from tests.vision_support import probs
from vision.classes import COPIES, FLOWER_CLASSES, NUM_CLASSES, class_to_tile
from vision.copies import within_copies
from vision.layout import build_layout
from vision.pipeline import to_tiles

MODELS = Path(__file__).resolve().parent.parent / "models"
SPRING, SUMMER, AUTUMN, WHITE, BACK, ONE_M, FOUR_M = 34, 35, 36, 33, 42, 0, 3


def found_of(p: np.ndarray, scores=None) -> dict:
    """A Recognizer.read result of boxes in a row, one per row of class probabilities."""
    n = len(p)
    boxes = np.array([[60.0 * i, 0.0, 60.0 * i + 50, 70.0] for i in range(n)], np.float32).reshape(-1, 4)
    return {"boxes": boxes, "scores": np.full(n, 0.95, np.float32) if scores is None else np.asarray(scores, np.float32),
            "p_cls": p, "p_rot": np.tile(np.array([[1.0, 0, 0, 0]], np.float32), (n, 1)),
            "turned": np.zeros(n, bool), "shape": (80, 60 * n + 10), "aspect": np.ones(n, np.float32)}


def test_two_springs_the_less_sure_reads_its_next_class_and_is_flagged():
    from vision.model import tiles_from

    p = probs([{SPRING: 0.9, SUMMER: 0.1}, {SPRING: 0.55, SUMMER: 0.1, AUTUMN: 0.35}, {ONE_M: 1.0}])
    tiles = tiles_from(found_of(p), None, COPIES)
    assert [t["cls"] for t in tiles] == [SPRING, AUTUMN, ONE_M]
    assert abs(tiles[1]["confidence"] - 0.95 * 0.35) < 1e-6
    read = to_tiles(tiles)
    assert [t["tile"] for t in read] == ["1f", "3f", "1m"]
    assert build_layout(read)["flagged"] == [1]  # the moved tile is below the flagging confidence


def test_without_copies_both_read_spring():
    from vision.model import tiles_from

    p = probs([{SPRING: 0.9, SUMMER: 0.1}, {SPRING: 0.55, AUTUMN: 0.45}])
    assert [t["cls"] for t in tiles_from(found_of(p), None)] == [SPRING, SPRING]


def test_five_of_a_suit_tile_move_the_one_nearest_its_next_class():
    p = probs([{ONE_M: 0.9, FOUR_M: 0.1}] * 4 + [{ONE_M: 0.6, FOUR_M: 0.4}])
    assert within_copies(p, COPIES).tolist() == [ONE_M] * 4 + [FOUR_M]
    assert within_copies(p[:4], COPIES).tolist() == [ONE_M] * 4  # four: as read


def test_spare_blanks_and_face_down_tiles_have_no_limit():
    p = probs([{WHITE: 0.7, BACK: 0.3}] * 6 + [{BACK: 0.8, WHITE: 0.2}] * 20)
    assert within_copies(p, COPIES).tolist() == [WHITE] * 6 + [BACK] * 20


def test_boxes_screened_out_take_no_copies():
    """Only the tiles the screening keeps take a set's copies: a dropped phantom 春 moves nothing."""
    from vision.model import tiles_from
    from vision.screen import SCREEN_DEFAULTS

    p = probs([{SPRING: 0.9, SUMMER: 0.1}, {SPRING: 0.5, SUMMER: 0.5}])
    found = found_of(p, scores=[0.95, 0.05])  # 0.05 x 0.5 is under drop_below
    tiles = tiles_from(found, dict(SCREEN_DEFAULTS), COPIES)
    assert [t["cls"] for t in tiles] == [SPRING]


def test_copies_match_the_engine_but_for_spare_blanks():
    """What the recognizer allows is what the engine accepts as one set's tiles (flowers once,
    others four times), except 白板: sets carry spares, and a photo may show them."""
    for cls in range(NUM_CLASSES - 1):
        tile = class_to_tile(cls)
        n = COPIES[cls]
        if cls == WHITE:
            assert n is None
            continue
        check_copies([parse_tile(tile)] * n)
        try:
            check_copies([parse_tile(tile)] * (n + 1))
        except HandError:
            pass
        else:
            raise AssertionError(f"the engine takes {n + 1} of {tile}")
    assert COPIES[BACK] is None and all(COPIES[c] == 1 for c in FLOWER_CLASSES)


def test_the_recognizer_applies_the_setting(monkeypatch):
    from vision.model import Recognizer

    rec = Recognizer(MODELS)
    p = probs([{SPRING: 0.9, SUMMER: 0.1}, {SPRING: 0.6, SUMMER: 0.4}])
    monkeypatch.setattr(rec, "read", lambda image: found_of(p))
    image = np.zeros((80, 130, 3), np.uint8)
    assert rec.config["set_copies"] is True
    assert [t["cls"] for t in rec.recognize(image)] == [SPRING, SUMMER]
    monkeypatch.setitem(rec.config, "set_copies", False)  # a photo of two sets mixed
    assert [t["cls"] for t in rec.recognize(image)] == [SPRING, SPRING]


copies_lists = st.lists(st.sampled_from([1, 2, 4, None]), min_size=4, max_size=4).map(lambda c: c + [None])


@settings(max_examples=200, deadline=None)
@given(st.data(), copies_lists)
def test_property_within_copies_against_the_plain_reading(data, copies):
    n = data.draw(st.integers(0, 14))
    raw = data.draw(st.lists(st.lists(st.floats(0.001, 1.0), min_size=5, max_size=5), min_size=n, max_size=n))
    p = np.array(raw, np.float64).reshape(n, 5)
    p /= np.maximum(p.sum(1, keepdims=True), 1e-9)
    plain = p.argmax(1) if n else np.zeros(0, np.int64)
    got = within_copies(p, copies)
    limit = np.array([np.inf if c is None else c for c in copies])
    count = np.bincount(got, minlength=5)
    assert (count <= limit).all()  # the last class has no limit, so there is always room
    over = np.bincount(plain, minlength=5) > limit
    # only boxes of over-full classes move, and exactly the surplus of them
    assert all(got[i] == plain[i] for i in range(n) if not over[plain[i]])
    surplus = int(np.clip(np.bincount(plain, minlength=5) - limit, 0, None).sum())
    assert int((got != plain).sum()) == surplus
    # every class keeps as many boxes as its limit allows of those that read it
    for c in np.flatnonzero(over):
        assert count[c] == limit[c]
