"""A close tile boxed as its parts, joined again (vision/parts.py, Recognizer._join_parts)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.parts import JOIN_DEFAULTS, is_whole_of, part_groups, suit_count

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
P1, P4, S3, S6 = 9, 12, 20, 23  # 1筒, 4筒, 3條, 6條


def boxes(*rows):
    return np.array(rows, np.float32)


def groups(b, cls, shape=(400, 400), confidence=None, **settings):
    return [[int(i) for i in g] for g, _, _ in part_groups(b, np.array(cls), shape, {**JOIN_DEFAULTS, **settings},
                                                            confidence)]


def test_four_circles_lying_together_are_one_candidate():
    circles = boxes([100, 100, 130, 130], [140, 100, 170, 130], [100, 140, 130, 170], [140, 140, 170, 170])
    assert groups(circles, [P1] * 4) == [[0, 1, 2, 3]]


def test_three_stick_columns_are_a_candidate_and_two_whole_tiles_side_by_side_are_not():
    columns = boxes([100, 100, 116, 180], [122, 100, 138, 180], [144, 100, 160, 180])  # a 9條's, 0.27 each
    assert groups(columns, [S3] * 3) == [[0, 1, 2]]
    tiles = boxes([100, 100, 160, 180], [162, 100, 222, 180])  # each half of it
    assert groups(tiles, [S3, S3]) == []


def test_a_row_is_not_a_tile_shape():
    row = boxes(*[[100 + 32 * k, 100, 130 + 32 * k, 140] for k in range(3)])
    assert groups(row, [P1] * 3, max_share=0.4) == []


def test_a_block_of_real_tiles_holding_other_tiles_is_left():
    # a 1筒 above a 1筒 diagonally, the block's other two tiles (read otherwise) inside their box
    block = boxes([100, 100, 150, 170], [155, 175, 205, 245], [155, 100, 205, 170], [100, 175, 150, 245])
    assert groups(block, [P1, P1, S6, 31]) == []
    assert groups(block[:2], [P1, P1]) == [[0, 1]]  # without them it would be one


def test_parts_apart_or_of_other_classes_or_suits_are_not_joined():
    far = boxes([100, 100, 130, 130], [200, 100, 230, 130])
    assert groups(far, [P1, P1]) == []
    mixed = boxes([100, 100, 130, 130], [140, 100, 170, 130])
    assert groups(mixed, [P1, P4]) == [] and groups(mixed, [0, 0]) == []  # 萬 are no parts


def test_the_box_round_the_parts_is_grown_and_kept_inside_the_photo():
    circles = boxes([0, 0, 20, 20], [24, 0, 44, 20], [0, 24, 20, 44], [24, 24, 44, 44])
    [(_, whole, read_as)] = part_groups(circles, np.full(4, P1), (50, 50), JOIN_DEFAULTS)
    assert read_as == P1
    assert whole.tolist() == pytest.approx([0, 0, 50, 50])


WEST, WHITE, BACK = 29, 33, 42
FIVE_CIRCLES = boxes([100, 100, 130, 130], [140, 100, 170, 130], [120, 135, 150, 165], [100, 170, 130, 200],
                     [140, 170, 170, 200])  # a 5筒's circles, each about 0.1 of the box round them


def test_circles_read_unsure_as_anything_are_a_candidate():
    read_as = [WEST, WEST, WHITE, WEST, BACK]
    unsure = np.full(5, 0.2)
    assert groups(FIVE_CIRCLES, read_as, confidence=unsure) == [[0, 1, 2, 3, 4]]
    [(_, _, part_cls)] = part_groups(FIVE_CIRCLES, np.array(read_as), (400, 400), JOIN_DEFAULTS, unsure)
    assert part_cls is None  # the whole need only be a 筒 or 條 tile of five or more
    assert groups(FIVE_CIRCLES, read_as) == []  # without confidences: only parts of one class
    assert groups(FIVE_CIRCLES, read_as, confidence=unsure, unsure_below=None) == []  # the rule off


def test_a_box_read_surely_is_no_unsure_part():
    read_as = [WEST, WEST, WHITE, WEST, BACK]
    confidence = np.array([0.2, 0.2, 0.9, 0.2, 0.2])  # the middle one a sure 白板
    # the four corners alone make two pairs, each circle nearly half the box round its pair (as two
    # tiles side by side are): no candidate
    assert groups(FIVE_CIRCLES, read_as, confidence=confidence) == []
    confidence[2] = 0.39
    assert groups(FIVE_CIRCLES, read_as, confidence=confidence) == [[0, 1, 2, 3, 4]]


def test_parts_of_one_class_are_not_asked_twice_as_unsure_parts():
    circles = FIVE_CIRCLES[:4]
    found = part_groups(circles, np.full(4, P1), (400, 400), JOIN_DEFAULTS, np.full(4, 0.1))
    assert [(sorted(int(i) for i in g), c) for g, _, c in found] == [([0, 1, 2, 3], P1)]


def test_unsure_real_tiles_side_by_side_or_in_a_row_are_no_candidate():
    side_by_side = boxes([100, 100, 160, 180], [162, 100, 222, 180])
    assert groups(side_by_side, [WEST, BACK], confidence=np.full(2, 0.2)) == []
    row = boxes(*[[100 + 62 * k, 100, 160 + 62 * k, 180] for k in range(4)])
    assert groups(row, [WEST] * 4, confidence=np.full(4, 0.2)) == []


@pytest.mark.parametrize("part, n, top, sure, p_tile, expected", [
    (P1, 4, P4, 0.9, 1.0, True),  # four 1筒: a 4筒
    (P1, 3, P4, 0.9, 1.0, True),  # a part missed: still a 4筒
    (S3, 2, S6, 0.85, 0.6, True),  # two columns of three sticks: a 6條
    (P1, 4, 10, 0.9, 1.0, False),  # a 2筒 cannot hold four circles
    (P1, 4, 21, 0.9, 1.0, False),  # a 4條: another suit
    (P1, 4, P4, 0.5, 1.0, False),  # unsure
    (P1, 4, P4, 0.9, 0.3, False),  # the check doubts it
    (None, 5, 13, 0.9, 1.0, True),  # five parts read unsure: a 5筒
    (None, 5, 22, 0.9, 1.0, True),  # or a 5條
    (None, 5, P4, 0.9, 1.0, False),  # a 4筒 cannot hold five
    (None, 2, 30, 0.95, 1.0, False),  # 北: not a tile of circles or sticks
    (None, 5, 13, 0.5, 1.0, False),  # unsure
    (None, 5, 13, 0.9, 0.3, False),  # the check doubts it
])
def test_the_box_round_the_parts_must_read_as_their_tile(part, n, top, sure, p_tile, expected):
    p = np.full(43, (1 - sure) / 42, np.float32)
    p[top] = sure
    assert is_whole_of(part, n, p, p_tile, JOIN_DEFAULTS) is expected


def test_suit_count_names_the_suit_and_its_circles_or_sticks():
    assert [suit_count(c) for c in (9, 17, 18, 26, 8, 27, 42)] == [(9, 1), (9, 9), (18, 1), (18, 9), (-1, 0),
                                                                   (-1, 0), (-1, 0)]


@pytest.mark.skipif(not (MODELS / "verifier.onnx").exists(), reason="needs the shipped models")
def test_a_drawn_close_tile_boxed_as_its_circles_reads_as_one_tile(shipped_models_with):
    # Two drawn close-ups (tests/fixtures/vision-closeup-parts): a 4筒 the detector boxed as three
    # and as four 1筒. Joined, every tile is right and nothing extra (the 1筒's own circle, boxed
    # inside it, is that tile boxed twice: vision/screen.py same_tile); unjoined (and not looked at
    # from further, vision/further.py, which finds one of them whole), both 4筒 are missed and
    # their seven circles are 1筒 in the answer.
    from training.evaluate import evaluate
    from vision.model import Recognizer

    photos = ROOT / "tests" / "fixtures" / "vision-closeup-parts"
    shipped = evaluate(photos, Recognizer(MODELS), progress=False)
    unjoined = evaluate(photos, Recognizer(shipped_models_with("join_parts", None, also={"read_further": None})),
                        progress=False)
    assert shipped["labelled_tiles"] == 4 and shipped["tiles_right"] == 1.0 and shipped["extras"] == 0
    assert unjoined["tiles_found"] == 0.5 and unjoined["extras"] == 7


@pytest.mark.skipif(not (MODELS / "verifier.onnx").exists(), reason="needs the shipped models")
def test_a_drawn_close_tile_whose_circles_read_as_nothing_sure_reads_as_one_tile(shipped_models_with):
    # A drawn close-up (tests/fixtures/vision-closeup-unsure-parts): a 5筒 on a black body whose five
    # circles the detector boxes one by one and the classifier reads as 西 and 白板 at 0.16-0.24.
    # Joined as parts read unsure, the 5筒 is right and nothing is extra; with unsure_below off
    # (and the look from further, which finds it whole too), the 5筒 is missed and its circles are
    # five tiles in the answer.
    from training.evaluate import evaluate
    from vision.model import Recognizer, load_config

    photos = ROOT / "tests" / "fixtures" / "vision-closeup-unsure-parts"
    off = {**load_config(MODELS)["join_parts"], "unsure_below": None}
    shipped = evaluate(photos, Recognizer(MODELS), progress=False)
    unjoined = evaluate(photos, Recognizer(shipped_models_with("join_parts", off, also={"read_further": None})),
                        progress=False)
    assert shipped["labelled_tiles"] == 1 and shipped["tiles_right"] == 1.0 and shipped["extras"] == 0
    assert unjoined["tiles_found"] == 0.0 and unjoined["extras"] == 5
