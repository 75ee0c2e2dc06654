"""A close-up read unsure, looked at from further (vision/further.py, Recognizer._read_further)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.further import FURTHER_DEFAULTS, holds_as_parts, is_better_look, wants_further_look
from vision.model import tile_shaped

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"


def boxes(*rows):
    return np.array(rows, np.float32)


CIRCLES = boxes([100, 100, 130, 130], [140, 100, 170, 130], [100, 140, 130, 170], [140, 140, 170, 170])
WHOLE = boxes([90, 85, 180, 200])


def test_a_few_tiles_read_unsure_want_a_look_from_further():
    assert wants_further_look(np.array([0.2, 0.3, 0.25]), FURTHER_DEFAULTS)


@pytest.mark.parametrize("confidence", [
    [0.9, 0.8, 0.3],  # read surely
    [0.2],  # one box: nothing to hold as parts
    [0.2] * 17,  # a hand's many tiles, read unsure for their art
])
def test_tiles_read_surely_or_one_or_many_want_no_look(confidence):
    assert not wants_further_look(np.array(confidence), FURTHER_DEFAULTS)


def test_a_whole_box_round_the_parts_holds_them():
    assert holds_as_parts(CIRCLES, WHOLE, FURTHER_DEFAULTS)


def test_the_same_tiles_found_again_one_each_are_no_parts():
    tiles = boxes([100, 100, 160, 180], [170, 100, 230, 180])
    assert not holds_as_parts(tiles, tiles + 2, FURTHER_DEFAULTS)


def test_a_box_that_leaves_most_of_the_first_tiles_outside_holds_no_parts():
    row = boxes(*[[100 + 40 * k, 100, 130 + 40 * k, 140] for k in range(6)])
    assert not holds_as_parts(row, boxes([95, 95, 175, 145]), FURTHER_DEFAULTS)  # two of six inside
    assert not holds_as_parts(CIRCLES, np.zeros((0, 4), np.float32), FURTHER_DEFAULTS)


def test_only_tile_shaped_boxes_count():
    shapes = boxes([0, 0, 60, 80], [0, 0, 80, 60], [0, 0, 200, 40])
    assert tile_shaped(shapes, 1.0, (0.5, 1.0)).tolist() == [True, True, False]


def test_the_look_from_further_must_read_surer_by_the_margin():
    first = np.array([0.2, 0.2, 0.3])
    assert is_better_look(first, np.array([0.6]), FURTHER_DEFAULTS)
    assert not is_better_look(first, np.array([0.3]), FURTHER_DEFAULTS)
    assert not is_better_look(first, np.zeros(0), FURTHER_DEFAULTS)


@pytest.mark.skipif(not (MODELS / "verifier.onnx").exists(), reason="needs the shipped models")
def test_drawn_close_tiles_boxed_as_their_parts_are_read_whole_from_further(shipped_and_changed):
    # tests/fixtures/vision-closeup-far: a 5條 boxed as its five stick clusters (read as backs) and a
    # 9筒 and a 4筒 boxed as their thirteen circles. Looked at from further, all three tiles are
    # right and nothing is extra; without the look the tiles are missed and their parts are tiles.
    shipped, near = shipped_and_changed(ROOT / "tests" / "fixtures" / "vision-closeup-far", "read_further", None)
    assert shipped["labelled_tiles"] == 3 and shipped["tiles_right"] == 1.0 and shipped["extras"] == 0
    assert near["tiles_found"] == 0.0 and near["extras"] >= 10


# --- each whole alone, where no shrunk pass replaces the whole answer (wholes_of_parts) ------------

def test_a_whole_box_replaces_the_parts_it_holds_and_leaves_the_rest():
    from vision.further import wholes_of_parts

    first = boxes([100, 100, 130, 130], [140, 100, 170, 130], [100, 140, 130, 170],  # three circles
                  [300, 100, 360, 180])  # a neighbour cut by the photo's edge, held by no whole
    whole = boxes([90, 85, 180, 200])
    out = wholes_of_parts(first, np.full(4, 0.2), whole, np.array([0.6]), FURTHER_DEFAULTS)
    assert [(j, p.tolist()) for j, p in out] == [(0, [0, 1, 2])]


@pytest.mark.parametrize("first, conf, whole, whole_conf", [
    # two real tiles side by side: each half of the box round both
    (boxes([100, 100, 160, 180], [162, 100, 222, 180]), [0.2, 0.2], boxes([98, 96, 224, 184]), [0.8]),
    # one part alone is no parts
    (boxes([100, 100, 130, 130]), [0.2], boxes([90, 85, 180, 200]), [0.8]),
    # read no surer by the margin
    (CIRCLES, [0.3] * 4, WHOLE, [0.4]),
])
def test_no_whole_replaces_real_tiles_one_part_or_parts_read_as_surely(first, conf, whole, whole_conf):
    from vision.further import wholes_of_parts

    assert wholes_of_parts(first, np.array(conf), whole, np.array(whole_conf), FURTHER_DEFAULTS) == []


# --- the same tile boxed again from further, read surer (surer_twins) ------------------------------

def test_a_first_box_boxed_again_from_further_and_read_surer_takes_that_box():
    from vision.further import surer_twins

    # a close tile read at 0.1, the same tile boxed from further and read at 0.7; its neighbour,
    # read 0.6 first and 0.65 from further, stays as it was (not surer by the margin)
    first = boxes([368, 94, 856, 406], [50, 323, 468, 607])
    new = boxes([369, 62, 841, 457], [57, 247, 489, 663])
    out = surer_twins(first, np.array([0.1, 0.6]), new, np.array([0.7, 0.65]), FURTHER_DEFAULTS)
    assert [(j, p.tolist()) for j, p in out] == [(0, [0])]


@pytest.mark.parametrize("first, new", [
    (boxes([100, 100, 160, 180]), boxes([100, 100, 130, 180])),  # half of it: another box (IoU 0.5)
    (boxes([100, 100, 160, 180]), boxes([200, 100, 260, 180])),  # beside it
])
def test_a_box_from_further_that_is_not_the_same_tile_replaces_nothing(first, new):
    from vision.further import surer_twins

    assert surer_twins(first, np.array([0.1]), new, np.array([0.9]), FURTHER_DEFAULTS) == []
    assert surer_twins(first, np.array([0.1]), first, np.array([0.9]), FURTHER_DEFAULTS) != []
